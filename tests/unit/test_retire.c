/* test_retire.c - gs_engine_retire reclaims a finished job's memory
 * (engine.h, engine_private.h "Job slots and handles").
 *
 * Rules the expectations follow: handles are given 0, 1, 2, ... in
 * submission order and never reused; a retired handle is refused by every
 * call (GS_ENOENT; gs_engine_job_eta says GS_ESTATE, wait_reason NONE,
 * partition_name NULL); the retired job's slot and id go to the next job
 * submitted (the last freed first), so the slot count stays at the peak of
 * live jobs; ties in the queue go to the earlier handle, not the lower
 * slot.  gs_engine_check (which also checks slots, ids and the handle map)
 * runs after every engine call (lctestutil.h).  White-box: the slot of a
 * handle is read from engine_private.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lctestutil.h"
#include "core/engine/engine_private.h"
#include "core/preempt/preempt_private.h"
#include "core/diagnose/diagnose.h"
#include "core/metrics/metrics.h"

static int slot_of(const struct lfix *f, int handle)
{
    return gs_eng_slot(f->eng, handle);
}

/* Every call that takes a handle refuses `h`. */
static void assert_refused(struct lfix *f, int h)
{
    struct gs_job_info ji;
    struct gs_job_spec sp;
    struct gs_alloc al;
    gs_time t = gs_engine_now(f->eng), split[GS_REASON_COUNT], end;
    struct gs_diag dg;
    assert_int_equal(gs_engine_job_info(f->eng, h, &ji), GS_ENOENT);
    assert_int_equal(gs_engine_job_spec(f->eng, h, &sp), GS_ENOENT);
    assert_int_equal(gs_engine_job_alloc(f->eng, h, &al), GS_ENOENT);
    assert_int_equal(gs_engine_job_eta(f->eng, h, 1000, &end), GS_ESTATE);
    assert_null(gs_engine_partition_name(f->eng, h));
    assert_int_equal(gs_engine_wait_split(f->eng, h, split), GS_ENOENT);
    assert_int_equal(gs_engine_wait_reason(f->eng, h), GS_REASON_NONE);
    assert_int_equal(gs_engine_explain(f->eng, h, &dg), GS_ENOENT);
    LF_OK(f, gs_engine_cancel(f->eng, t, h, LF_ERR), GS_ENOENT);
    LF_OK(f, gs_engine_finish(f->eng, t, h, LF_ERR), GS_ENOENT);
    LF_OK(f, gs_engine_exited(f->eng, t, h, 1, LF_ERR), GS_ENOENT);
    LF_OK(f, gs_engine_started(f->eng, t, h, LF_ERR), GS_ENOENT);
    LF_OK(f, gs_engine_launch_failed(f->eng, t, h, LF_ERR), GS_ENOENT);
    LF_OK(f, gs_engine_checkpointed(f->eng, t, h, LF_ERR), GS_ENOENT);
    LF_OK(f, gs_engine_retire(f->eng, h, LF_ERR), GS_ENOENT);
}

/* Jobs end in every final state on one [8] node (synchronous engine,
 * runtime cap 30 s):
 *   done  8 GPUs, runs 0..10 s, finished           -> DONE
 *   fail  8 GPUs, runs 10..20 s, exit 3            -> FAILED
 *   kill  8 GPUs, runs 20 s.., capped at 50 s      -> KILLED
 *   canc  1 GPU, submitted at 0, cancelled at 5 s  -> CANCELLED (pending)
 *   big   16 GPUs: never fits                      -> REJECTED
 * Each is retired; running or pending jobs are refused (GS_ESTATE). */
static void test_every_final_state(void **state)
{
    (void)state;
    const char *kv[] = { "queue.runtime_cap", "30s", NULL };
    struct lfix *f = lf_new("n1:8", kv, 0);
    int done = lf_submit(f, 0, "done", 8), fail = lf_submit(f, 0, "fail", 8);
    int kill = lf_submit(f, 0, "kill", 8), canc = lf_submit(f, 0, "canc", 1);
    int big = lf_submit(f, 0, "big", 16);
    assert_int_equal(lf_state(f, big), GS_JOB_REJECTED);
    lf_step(f, 0);
    LF_OK(f, gs_engine_retire(f->eng, done, LF_ERR), GS_ESTATE); /* running */
    LF_OK(f, gs_engine_retire(f->eng, canc, LF_ERR), GS_ESTATE); /* pending */
    LF_OK(f, gs_engine_cancel(f->eng, SEC(5), canc, LF_ERR), 0);
    LF_OK(f, gs_engine_finish(f->eng, SEC(10), done, LF_ERR), 0);
    lf_step(f, SEC(10));
    LF_OK(f, gs_engine_exited(f->eng, SEC(20), fail, 3, LF_ERR), 0);
    lf_step(f, SEC(20));
    lf_step(f, SEC(50)); /* kill started at 20 s: its 30 s cap */
    const int jobs[] = { done, fail, kill, canc, big };
    const int want[] = { GS_JOB_DONE, GS_JOB_FAILED, GS_JOB_KILLED, GS_JOB_CANCELLED,
                         GS_JOB_REJECTED };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(lf_state(f, jobs[i]), want[i]);
        LF_OK(f, gs_engine_retire(f->eng, jobs[i], LF_ERR), 0);
        assert_refused(f, jobs[i]);
    }
    assert_int_equal(gs_engine_job_count(f->eng), 5); /* handles given, not live jobs */
    assert_int_equal(gs_strtab_live(f->eng->ids), 0);
    assert_int_equal(gs_engine_job_find(f->eng, "kill"), GS_ENOENT);
    lf_free(f);
}

/* Slots are reused, the last freed first, behind new handles:
 * a, b, c take slots 0, 1, 2 (handles 0, 1, 2); a and c end and are
 * retired (a first); d gets handle 3 in c's slot 2, e handle 4 in a's slot
 * 0, f handle 5 in a new slot 3.  Old handles 0 and 2 stay refused though
 * their slots hold d and e; events name the new handles. */
static void test_slot_reuse(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0);
    int a = lf_submit(f, 0, "a", 2), b = lf_submit(f, 0, "b", 2), c = lf_submit(f, 0, "c", 2);
    lf_step(f, 0); /* all three start: events 0, 1, 2 */
    LF_OK(f, gs_engine_finish(f->eng, SEC(1), a, LF_ERR), 0);
    LF_OK(f, gs_engine_finish(f->eng, SEC(1), c, LF_ERR), 0);
    LF_OK(f, gs_engine_retire(f->eng, a, LF_ERR), 0);
    LF_OK(f, gs_engine_retire(f->eng, c, LF_ERR), 0);
    int d = lf_submit(f, SEC(2), "d", 2), e = lf_submit(f, SEC(2), "e", 2);
    int g = lf_submit(f, SEC(2), "f", 2);
    assert_int_equal(d, 3);
    assert_int_equal(e, 4);
    assert_int_equal(g, 5);
    assert_int_equal(slot_of(f, d), 2);
    assert_int_equal(slot_of(f, e), 0);
    assert_int_equal(slot_of(f, g), 3);
    assert_int_equal(slot_of(f, b), 1);
    assert_int_equal(f->eng->njobs, 4);
    assert_refused(f, a);
    assert_refused(f, c);
    /* records 0..3 hold e, b, d, f; no record is free */
    const int by_slot[] = { e, b, d, g };
    assert_int_equal(gs_engine_slot_count(f->eng), 4);
    assert_int_equal(gs_engine_held_count(f->eng), 4);
    for (int s = 0; s < 4; s++)
        assert_int_equal(gs_engine_slot_handle(f->eng, s), by_slot[s]);
    assert_int_equal(gs_engine_slot_handle(f->eng, 4), -1);
    int run[4];
    assert_int_equal(gs_engine_running_list(f->eng, run, 4), 1); /* b only, so far */
    assert_int_equal(run[0], b);
    assert_int_equal(gs_engine_job_find(f->eng, "e"), e);
    assert_string_equal(lf_info(f, e).id, "e");
    assert_string_equal(lf_info(f, d).id, "d");
    f->rec.n = 0;
    lf_step(f, SEC(2)); /* b holds 2 GPUs: d, e, f fit, started in order */
    lf_event(f, 0, GS_EV_START, d, SEC(2));
    lf_event(f, 1, GS_EV_START, e, SEC(2));
    lf_event(f, 2, GS_EV_START, g, SEC(2));
    /* running, in handle order though e sits in slot 0: b, d, e, f */
    assert_int_equal(gs_engine_running_list(f->eng, run, 2), 4); /* too small: count only */
    assert_int_equal(gs_engine_running_list(f->eng, run, 4), 4);
    assert_int_equal(run[0], b);
    assert_int_equal(run[1], d);
    assert_int_equal(run[2], e);
    assert_int_equal(run[3], g);
    LF_OK(f, gs_engine_finish(f->eng, SEC(3), e, LF_ERR), 0);
    lf_event(f, 3, GS_EV_FINISH, e, SEC(3));
    LF_OK(f, gs_engine_retire(f->eng, e, LF_ERR), 0);
    assert_int_equal(gs_engine_slot_handle(f->eng, 0), -1); /* free again */
    assert_int_equal(gs_engine_held_count(f->eng), 3);
    lf_free(f);
}

/* A long life with a bounded live set: 5,000 jobs through
 * submit -> start -> finish -> retire with at most 4 alive never need more
 * than 4 slots (plus one: a job is submitted before the oldest retires),
 * the id table holds only the live ids and the GPU parts pool stays small. */
static void test_bounded_slots(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0);
    int live[5], nlive = 0;
    char id[32];
    for (int i = 0; i < 5000; i++) {
        gs_time t = SEC(i);
        snprintf(id, sizeof id, "job-%d", i);
        live[nlive++] = lf_submit(f, t, id, 2);
        assert_int_equal(live[nlive - 1], i);
        lf_step(f, t);
        if (nlive == 5) { /* the oldest ends and is retired */
            LF_OK(f, gs_engine_finish(f->eng, t, live[0], LF_ERR), 0);
            LF_OK(f, gs_engine_retire(f->eng, live[0], LF_ERR), 0);
            memmove(live, live + 1, 4 * sizeof *live);
            nlive--;
        }
    }
    lf_step(f, SEC(5000)); /* the last one submitted starts in the freed GPUs */
    assert_true(f->eng->njobs <= 5);
    assert_int_equal(gs_strtab_live(f->eng->ids), 4);
    assert_true(gs_strtab_count(f->eng->ids) <= 5);
    assert_int_equal(gs_engine_job_count(f->eng), 5000);
    assert_int_equal(gs_engine_running_count(f->eng), 4);
    /* the runs' GPU parts pool (one part a run) is rebuilt once retired
     * parts d pass half of it plus the slots: 2d > n + 5 + 64 with n <= 4 + d
     * live and dead parts, so n stays below 4 + 74 */
    assert_true(f->eng->nparts < 78);
    for (int i = 0; i < 4; i++)
        assert_int_equal(lf_state(f, live[i]), GS_JOB_RUNNING);
    assert_refused(f, 0);
    assert_refused(f, 4995);
    lf_free(f);
}

/* Ties in the queue go to the earlier handle, whatever the slots: under
 * priority order, c (handle 1, slot 1) and d (handle 2, slot 0: a's, freed
 * at 5 s) are both submitted at 5 s with priority 0 and want all 8 GPUs;
 * c is listed and started first.  (Comparing slots would put d first.) */
static void test_ties_by_handle(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", NULL };
    struct lfix *f = lf_new("n1:8", kv, 0);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    int c = lf_submit(f, SEC(5), "c", 8);
    LF_OK(f, gs_engine_finish(f->eng, SEC(5), a, LF_ERR), 0);
    LF_OK(f, gs_engine_retire(f->eng, a, LF_ERR), 0);
    int d = lf_submit(f, SEC(5), "d", 8);
    assert_int_equal(slot_of(f, d), 0);
    assert_int_equal(slot_of(f, c), 1);
    int q[4];
    assert_int_equal(gs_engine_queue_list(f->eng, q, 4), 2);
    assert_int_equal(q[0], c);
    assert_int_equal(q[1], d);
    f->rec.n = 0;
    lf_step(f, SEC(5));
    lf_start(f, 0, c, SEC(5), "n1", 0xFF);
    struct gs_diag dg;
    assert_int_equal(gs_engine_explain(f->eng, d, &dg), 0);
    assert_int_equal(dg.job, d);
    lf_free(f);
}

/* The wait summary keeps what retired jobs waited: b (8 GPUs) waits 0..10 s
 * behind a, then both are retired; the totals are those before. */
static void test_wait_summary_kept(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0);
    int a = lf_submit(f, 0, "a", 8), b = lf_submit(f, 0, "b", 8);
    lf_step(f, 0);
    LF_OK(f, gs_engine_finish(f->eng, SEC(10), a, LF_ERR), 0);
    lf_step(f, SEC(10));
    LF_OK(f, gs_engine_finish(f->eng, SEC(20), b, LF_ERR), 0);
    struct gs_wait_reasons before, after;
    gs_wait_reasons_build(&before, f->eng);
    /* b waited 10 s = 1/360 h with 8 GPUs */
    assert_true(before.total_gpu_h > 8.0 / 360 - 1e-12 && before.total_gpu_h < 8.0 / 360 + 1e-12);
    LF_OK(f, gs_engine_retire(f->eng, a, LF_ERR), 0);
    LF_OK(f, gs_engine_retire(f->eng, b, LF_ERR), 0);
    gs_wait_reasons_build(&after, f->eng);
    assert_true(after.total_gpu_h == before.total_gpu_h);
    assert_true(after.total_job_h == before.total_job_h);
    for (int r = 0; r < GS_REASON_COUNT; r++)
        for (int k = 0; k < GS_SIZE_CLASSES; k++)
            assert_true(after.gpu_h[r][k] == before.gpu_h[r][k]);
    /* a new job in a's slot starts its own accounting from nothing */
    int c = lf_submit(f, SEC(30), "c", 8);
    gs_time split[GS_REASON_COUNT];
    assert_int_equal(gs_engine_wait_split(f->eng, c, split), 0);
    for (int r = 0; r < GS_REASON_COUNT; r++)
        assert_int_equal(split[r], 0);
    lf_free(f);
}

/* A restore after retirement.  o: a (done, retired), b running on 4 GPUs
 * since 0, c pending (8 GPUs), d done (kept).  A fresh engine restored
 * from o's live handles (1, 2, 3) gets handles 0, 1, 2 and equal records;
 * restoring "a" again into o itself (its id is free) takes a's slot 0 with
 * handle 4; the queue order is restored through the new handles. */
static void test_restore_after_retire(void **state)
{
    (void)state;
    struct lfix *o = lf_new("n1:8", NULL, 1);
    int a = lf_submit(o, 0, "a", 2), b = lf_submit(o, 0, "b", 4);
    lf_step(o, 0);
    LF_OK(o, gs_engine_started(o->eng, 0, a, LF_ERR), 0);
    LF_OK(o, gs_engine_started(o->eng, 0, b, LF_ERR), 0);
    int c = lf_submit(o, SEC(1), "c", 8), d = lf_submit(o, SEC(1), "d", 1);
    lf_step(o, SEC(1)); /* fifo: c blocks, d waits behind it */
    assert_int_equal(lf_state(o, d), GS_JOB_PENDING);
    struct gs_job_info ainfo = lf_info(o, a);
    struct gs_job_spec aspec;
    assert_int_equal(gs_engine_job_spec(o->eng, a, &aspec), 0);
    LF_OK(o, gs_engine_exited(o->eng, SEC(9), a, 0, LF_ERR), 0);
    ainfo = lf_info(o, a);
    LF_OK(o, gs_engine_cancel(o->eng, SEC(9), d, LF_ERR), 0);
    LF_OK(o, gs_engine_retire(o->eng, a, LF_ERR), 0);

    struct lfix *cp = lf_new("n1:8", NULL, 1);
    const int from[] = { b, c, d };
    for (int i = 0; i < 3; i++) {
        struct gs_job_spec sp;
        struct gs_job_info in;
        struct gs_alloc al;
        assert_int_equal(gs_engine_job_spec(o->eng, from[i], &sp), 0);
        in = lf_info(o, from[i]);
        int has = gs_job_state_holds(in.state);
        if (has)
            assert_int_equal(gs_engine_job_alloc(o->eng, from[i], &al), 0);
        LF_OK(cp, gs_engine_restore_job(cp->eng, &sp, &in, has ? &al : NULL, LF_ERR), i);
        struct gs_job_info back = lf_info(cp, i);
        assert_string_equal(back.id, in.id);
        assert_int_equal(back.state, in.state);
        assert_int_equal(back.start, in.start);
        assert_int_equal(back.run_base, in.run_base); /* work counts from cp's own time */
        assert_int_equal(back.submit, in.submit);
    }
    int q[4];
    assert_int_equal(gs_engine_queue_list(o->eng, q, 4), 1);
    assert_int_equal(q[0], c);
    int qc[1] = { 1 }; /* c's handle in cp */
    LF_OK(cp, gs_engine_restore_queue(cp->eng, qc, 1, LF_ERR), 0);
    assert_int_equal(lf_idle(cp, "n1"), lf_idle(o, "n1"));

    /* into o itself: "a" is free again and takes its old slot */
    aspec.id = "a";
    int a2 = gs_engine_restore_job(o->eng, &aspec, &ainfo, NULL, NULL);
    lf_check(o);
    assert_int_equal(a2, 4);
    assert_int_equal(slot_of(o, a2), 0);
    assert_int_equal(lf_state(o, a2), GS_JOB_DONE);
    assert_int_equal(lf_info(o, a2).end, SEC(9));
    assert_refused(o, a);
    int qo[1] = { c };
    LF_OK(o, gs_engine_restore_queue(o->eng, qo, 1, LF_ERR), 0);
    int stale[1] = { a };
    LF_OK(o, gs_engine_restore_queue(o->eng, stale, 1, LF_ERR), GS_EINVAL);
    lf_free(o);
    lf_free(cp);
}

/* Preemption with a grace period (live, one [8] node): low runs; high
 * (prio 10) arrives at 100 s and low is told to drain until 130 s.
 * - waiter retired: high is cancelled at 110 s and retired; x (prio 0)
 *   takes its slot.  low goes on running past 130 s (nobody waits for its
 *   GPUs) and x is not started on them.
 * - victim retired: low is cancelled at 105 s, exits at 106 s and is
 *   retired; y takes its slot.  At 130 s high starts on all of n1 (its
 *   hold); y, pending, is not mistaken for the victim.
 * White-box, the preemption modules' per-slot tables (kept beside the job
 * table, not in struct job): low's entries say it drains (drain.c) and was
 * preempted by high, pre_by = high's handle + 1 (preempt.c); its exit
 * clears the first (GS_HOOK_STOPPED) and y, taking its slot, finds both
 * zero (GS_HOOK_ADDED), though low's pre_by was still set when retired. */
static void test_retire_in_drain(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", "preemption.mode", "checkpoint",
                         "preemption.grace", "60s", "preemption.min_runtime", "0s", NULL };
    for (int victim = 0; victim < 2; victim++) {
        struct lfix *f = lf_new("n1:8", kv, 1);
        struct gs_job_spec lo = spec_of("low", 0, 8), hi = spec_of("high", SEC(100), 8);
        lo.ckpt_interval = SEC(600);
        lo.ckpt_cost = SEC(30);
        hi.priority = 10;
        int l = lf_submit_spec(f, 0, &lo);
        lf_step(f, 0);
        LF_OK(f, gs_engine_started(f->eng, 0, l, LF_ERR), 0);
        int h = lf_submit_spec(f, SEC(100), &hi);
        lf_step(f, SEC(100));
        lf_event(f, 1, GS_EV_DRAIN, l, SEC(100));
        const struct gs_preempt *pre = f->eng->pre;
        assert_int_equal(pre->draining[slot_of(f, l)], 1);
        assert_int_equal(pre->pre_by[slot_of(f, l)], h + 1);
        if (!victim) {
            LF_OK(f, gs_engine_cancel(f->eng, SEC(110), h, LF_ERR), 0);
            LF_OK(f, gs_engine_retire(f->eng, h, LF_ERR), 0);
            int x = lf_submit(f, SEC(110), "x", 8);
            assert_int_equal(slot_of(f, x), slot_of(f, l) + 1); /* high's slot */
            lf_step(f, SEC(110));
            lf_step(f, SEC(130));
            lf_step(f, SEC(140));
            assert_int_equal(lf_state(f, l), GS_JOB_RUNNING);
            assert_int_equal(lf_state(f, x), GS_JOB_PENDING);
        } else {
            LF_OK(f, gs_engine_cancel(f->eng, SEC(105), l, LF_ERR), 0);
            LF_OK(f, gs_engine_exited(f->eng, SEC(106), l, 143, LF_ERR), 0);
            assert_int_equal(pre->draining[0], 0); /* low's slot: it stopped */
            LF_OK(f, gs_engine_retire(f->eng, l, LF_ERR), 0);
            assert_int_equal(pre->pre_by[0], h + 1); /* kept until the slot is reused */
            int y = lf_submit(f, SEC(106), "y", 8);
            assert_int_equal(slot_of(f, y), 0); /* low's slot */
            assert_int_equal(pre->pre_by[0], 0);
            assert_int_equal(pre->draining[0], 0);
            f->rec.n = 0;
            lf_step(f, SEC(106));
            lf_step(f, SEC(130));
            assert_int_equal(lf_state(f, h), GS_JOB_STARTING);
            assert_int_equal(lf_state(f, y), GS_JOB_PENDING);
            assert_int_equal(lf_idle(f, "n1"), 0);
        }
        lf_free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_every_final_state, lf_teardown),
        cmocka_unit_test_teardown(test_slot_reuse, lf_teardown),
        cmocka_unit_test_teardown(test_bounded_slots, lf_teardown),
        cmocka_unit_test_teardown(test_ties_by_handle, lf_teardown),
        cmocka_unit_test_teardown(test_wait_summary_kept, lf_teardown),
        cmocka_unit_test_teardown(test_restore_after_retire, lf_teardown),
        cmocka_unit_test_teardown(test_retire_in_drain, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

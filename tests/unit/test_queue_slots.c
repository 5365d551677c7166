/* test_queue_slots.c - the queue modules' per-slot table (struct gs_qjob,
 * queue_private.h, queue_slots.c): a job's wait reason, its entry in the
 * kept order and the pass cycles that tried it live beside the job table,
 * not in struct job.  The table follows the job table (gs_engine_check,
 * run after every call by lctestutil.h, checks it covers the slots and
 * that a job on its GPUs has no wait reason); a new job in a reused slot
 * finds its entry zero (GS_HOOK_ADDED); a start clears the wait reason
 * (GS_HOOK_STARTED) and a requeue makes it `resources` (GS_HOOK_STOPPED).
 * White-box: the entries are read from queue_private.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lctestutil.h"
#include "core/engine/engine_private.h"
#include "core/queue/queue_private.h"

static const struct gs_qjob *qj_of(const struct lfix *f, int handle)
{
    return gs_queue_job(f->eng, gs_eng_slot(f->eng, handle));
}

/* One [8] node, priority order (no aging), every job 8 GPUs:
 *   0 s  r (prio 0) starts;
 *   1 s  hi (prio 10) and z (prio 5) wait (the pass keys both into the
 *        young list: hi's entry is listed, seq > 0, reason resources);
 *   2 s  hi is cancelled and retired; y (prio 0) takes its slot.
 * y's entry is zero: in no list (so the next pass keys it by its own
 * priority), no reason yet (explain: `priority`, not reached by a pass),
 * tried by no pass.  3 s: r finishes and z, prio 5 > y's 0, starts.  Were
 * hi's entry left to y, y would revive hi's key (prio 10, live while the
 * slot's in_order and order_seq match it) and start before z. */
static void test_reuse_resets_entry(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", NULL };
    struct lfix *f = lf_new("n1:8", kv, 0);
    struct gs_job_spec hs = spec_of("hi", SEC(1), 8), zs = spec_of("z", SEC(1), 8);
    struct gs_job_spec ys = spec_of("y", SEC(2), 8);
    hs.priority = 10;
    zs.priority = 5;
    int r = lf_submit(f, 0, "r", 8);
    lf_step(f, 0);
    lf_event(f, 0, GS_EV_START, r, 0);
    int hi = lf_submit_spec(f, SEC(1), &hs), z = lf_submit_spec(f, SEC(1), &zs);
    lf_step(f, SEC(1));
    int hslot = gs_eng_slot(f->eng, hi);
    const struct gs_qjob *h = qj_of(f, hi);
    assert_int_not_equal(h->in_order, 0);
    assert_int_not_equal(h->order_seq, 0);
    assert_int_not_equal(h->tried_cycle, 0);
    assert_int_equal(h->reason, GS_WAIT_RESOURCES);
    LF_OK(f, gs_engine_cancel(f->eng, SEC(2), hi, LF_ERR), 0);
    LF_OK(f, gs_engine_retire(f->eng, hi, LF_ERR), 0);
    int y = lf_submit_spec(f, SEC(2), &ys);
    assert_int_equal(gs_eng_slot(f->eng, y), hslot);
    const struct gs_qjob *e = qj_of(f, y);
    assert_int_equal(e->in_order, 0);
    assert_int_equal(e->order_seq, 0);
    assert_int_equal(e->tried_cycle, 0);
    assert_int_equal(e->keep_cycle, 0);
    assert_int_equal(e->reason, GS_WAIT_NONE);
    struct gs_diag d;
    assert_int_equal(gs_engine_explain(f->eng, y, &d), 0);
    assert_int_equal(d.reason, GS_REASON_PRIORITY);
    LF_OK(f, gs_engine_finish(f->eng, SEC(3), r, LF_ERR), 0);
    f->rec.n = 0;
    lf_step(f, SEC(3));
    lf_event(f, 0, GS_EV_START, z, SEC(3)); /* the driver told of r's end: no event */
    assert_int_equal(lf_state(f, y), GS_JOB_PENDING);
    assert_int_equal(qj_of(f, y)->reason, GS_WAIT_RESOURCES);
    assert_int_equal(qj_of(f, z)->reason, GS_WAIT_NONE);
    lf_free(f);
}

/* Live, one [8] node, immediate preemption: low starts (reason none);
 * high (prio 10) preempts it at 100 s; low exits at 105 s and is pending
 * again with reason `resources` before any pass has looked at it (the
 * requeue, GS_HOOK_STOPPED); high then starts (none). */
static void test_requeue_reason(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", "preemption.mode", "immediate",
                         "preemption.min_runtime", "0s", NULL };
    struct lfix *f = lf_new("n1:8", kv, 1);
    struct gs_job_spec lo = spec_of("low", 0, 8), hs = spec_of("high", SEC(100), 8);
    hs.priority = 10;
    int l = lf_submit_spec(f, 0, &lo);
    assert_int_equal(qj_of(f, l)->reason, GS_WAIT_NONE);
    lf_step(f, 0);
    LF_OK(f, gs_engine_started(f->eng, 0, l, LF_ERR), 0);
    assert_int_equal(qj_of(f, l)->reason, GS_WAIT_NONE);
    int h = lf_submit_spec(f, SEC(100), &hs);
    lf_step(f, SEC(100));
    lf_event(f, 1, GS_EV_PREEMPT, l, SEC(100));
    LF_OK(f, gs_engine_exited(f->eng, SEC(105), l, 143, LF_ERR), 0);
    assert_int_equal(lf_state(f, l), GS_JOB_PENDING);
    assert_int_equal(qj_of(f, l)->reason, GS_WAIT_RESOURCES);
    lf_step(f, SEC(105));
    lf_start(f, 2, h, SEC(105), "n1", 0xFF);
    assert_int_equal(lf_idle(f, "n1"), 0);
    assert_int_equal(qj_of(f, h)->reason, GS_WAIT_NONE);
    lf_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_reuse_resets_entry, lf_teardown),
        cmocka_unit_test_teardown(test_requeue_reason, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_preempt.c - preemption golden tests (issue 5): loss accounting,
 * grace periods, victim choice, refusals.  Every expected number is
 * derived by hand in the comment above it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ptestutil.h"
#include "core/diagnose/diagnose.h"

/* The issue's example.  One 8-GPU node.  A (prio 0, 8 GPUs, 1000 s of
 * work, I = 100 s, C = 10 s) starts at 0; B (prio 10, 8 GPUs, 100 s)
 * arrives at 250; mode checkpoint, no grace, defaults otherwise.
 *   A: work 0-100 at t 0-100, checkpoint t 100-110 (saved 100),
 *      work 100-200 at t 110-210, checkpoint t 210-220 (saved 200),
 *      work 200-230 at t 220-250: preempted at 250, loses 30 s x 8 GPUs.
 *   B runs 250-350.
 *   A restarts at 350 from 200 (restore 0): 800 s of work with
 *   checkpoints at 300, 400, ..., 900 = 7 x 10 s: ends 350 + 800 + 70 = 1220.
 *   A's checkpoint time: 2 x 10 + 7 x 10 = 90 s.
 *   A started at its submission and waits only while requeued, 250-350,
 *   all 8 GPUs held by B: 100 s of shortage (not 350 from its submit);
 *   B never waits. */
static void test_issue_example(void **state)
{
    (void)state;
    static const struct pjob rows[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000, .ckpt_i = 100, .ckpt_c = 10 },
        { .id = "B", .submit_s = 250, .gpus = 8, .dur_s = 100, .prio = 10 },
    };
    struct gs_cluster *cl = cluster_of("n1:8");
    const char *kv[] = { "preemption.mode", "checkpoint", NULL };
    struct gs_policy pol;
    ppolicy(&pol, kv);
    struct gs_trace *tr = ptrace(rows, 2);
    struct recorder rec;
    struct gs_sim_result res;
    psim(cl, &pol, tr, &rec, &res);
    passert_at(&rec, res.engine, GS_EV_PREEMPT, "A", SEC(250));
    passert_at(&rec, res.engine, GS_EV_START, "B", SEC(250));
    passert_at(&rec, res.engine, GS_EV_FINISH, "B", SEC(350));
    int i = pfind(&rec, res.engine, pfind(&rec, res.engine, 0, GS_EV_PREEMPT, "A"),
                  GS_EV_START, "A");
    assert_true(i >= 0);
    assert_int_equal(rec.ev[i].time, SEC(350));
    passert_at(&rec, res.engine, GS_EV_FINISH, "A", SEC(1220));
    struct gs_job_info a = job_named(res.engine, "A");
    assert_int_equal(a.lost, SEC(30));
    assert_int_equal(a.work, SEC(1000));
    assert_int_equal(a.ckpt_wall, SEC(90));
    assert_int_equal(a.restore_wall, 0);
    assert_int_equal(a.runs, 2);
    assert_int_equal(a.preemptions, 1);
    assert_int_equal(a.first_start, 0);
    gs_time split[GS_REASON_COUNT];
    assert_int_equal(gs_engine_wait_split(res.engine, gs_engine_job_find(res.engine, "A"), split),
                     0);
    for (int c = 0; c < GS_REASON_COUNT; c++)
        assert_int_equal(split[c], c == GS_REASON_SHORTAGE ? SEC(100) : 0);
    assert_int_equal(gs_engine_wait_dominant(res.engine, gs_engine_job_find(res.engine, "A")),
                     GS_REASON_SHORTAGE);
    assert_int_equal(gs_engine_wait_dominant(res.engine, gs_engine_job_find(res.engine, "B")),
                     GS_REASON_NONE);
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
}


/* Run `rows` on cluster `desc` under the policy pairs `kv`; the caller
 * finishes with pdone(). */
struct prun {
    struct gs_cluster *cl;
    struct gs_policy pol;
    struct gs_trace *tr;
    struct recorder rec;
    struct gs_sim_result res;
};

static void prun(struct prun *r, const char *desc, const char *const *kv,
                 const struct pjob *rows, size_t n)
{
    r->cl = cluster_of(desc);
    ppolicy(&r->pol, kv);
    r->tr = ptrace(rows, n);
    psim(r->cl, &r->pol, r->tr, &r->rec, &r->res);
}

static void pdone(struct prun *r)
{
    gs_sim_result_fini(&r->res);
    gs_trace_destroy(r->tr);
    gs_policy_fini(&r->pol);
    gs_cluster_destroy(r->cl);
}

/* Loss accounting under each way of stopping a job between checkpoints.
 * A: 8 GPUs, 1000 s of work, I = 100, C = 10, from t = 0; B (prio 10,
 * 8 GPUs, 100 s) arrives at 150.  At 150 A has checkpointed at work 100
 * (t 100-110) and computed 110-150: work 140, saved 100, 40 s at risk.
 *  immediate, grace 30 (ignored): stops at 150, loses 40.  B 150-250.
 *    Restarts at 250, restore 5 s (policy default): 250-255, then 900 s of
 *    work from 100 with checkpoints at 200..900 (8 x 10): ends
 *    255 + 900 + 80 = 1235.  ckpt 10 + 80 = 90 s.
 *  checkpoint, grace 30: drains - checkpoints 150-160 (saved 140), stops at
 *    160 losing nothing.  B 160-260.  A from 140 at 260 + 5 restore: 860 s
 *    with checkpoints at 200..900 (8): ends 265 + 860 + 80 = 1205.  ckpt
 *    10 + 10 + 80 = 100 s.
 *  checkpoint, grace 5 (< C): cannot save in time, stops at 150 like
 *    immediate: ends 1235, loses 40.
 *  checkpoint, no grace: the same.
 *  no checkpoint support (I = 0), grace 30: stops at 150, loses all 150 s;
 *    B 150-250; A from 0 at 250 + 5: ends 255 + 1000 = 1255. */
static void test_loss_accounting(void **state)
{
    (void)state;
    static const struct {
        const char *mode, *grace;
        double ckpt_i;
        double preempt_at, b_start, a_end, lost, ckpt;
    } rows[] = {
        { "immediate", "30s", 100, 150, 150, 1235, 40, 90 },
        { "checkpoint", "30s", 100, 160, 160, 1205, 0, 100 },
        { "checkpoint", "5s", 100, 150, 150, 1235, 40, 90 },
        { "checkpoint", "0", 100, 150, 150, 1235, 40, 90 },
        { "checkpoint", "30s", 0, 150, 150, 1255, 150, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct pjob jobs[] = {
            { .id = "A", .gpus = 8, .dur_s = 1000, .ckpt_i = rows[i].ckpt_i, .ckpt_c = 10 },
            { .id = "B", .submit_s = 150, .gpus = 8, .dur_s = 100, .prio = 10 },
        };
        const char *kv[] = { "preemption.mode", rows[i].mode, "preemption.grace",
                             rows[i].grace, "preemption.restore_cost", "5s", NULL };
        struct prun r;
        prun(&r, "n1:8", kv, jobs, 2);
        passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "A", SEC(rows[i].preempt_at));
        passert_at(&r.rec, r.res.engine, GS_EV_START, "B", SEC(rows[i].b_start));
        passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "A", SEC(rows[i].a_end));
        int drains = pcount(&r.rec, r.res.engine, GS_EV_DRAIN, "A");
        assert_int_equal(drains, rows[i].preempt_at != 150);
        struct gs_job_info a = job_named(r.res.engine, "A");
        if (a.lost != SEC(rows[i].lost) || a.ckpt_wall != SEC(rows[i].ckpt))
            fail_msg("row %zu: lost %lld ckpt %lld", i, (long long)a.lost,
                     (long long)a.ckpt_wall);
        assert_int_equal(a.restore_wall, SEC(5));
        assert_int_equal(a.preemptions, 1);
        assert_int_equal(a.submit, 0); /* requeued with its original submit time */
        pdone(&r);
    }
}

/* A victim preempted just after a checkpoint loses less than a new
 * checkpoint would cost, so even with a grace period it stops at once.
 * A (I = 100, C = 10): checkpoint t 100-110, computes 110-115: 5 s at
 * risk < C = 10.  B arrives at 115: A stops at 115 losing 5 s. */
static void test_cheaper_to_lose_than_save(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000, .ckpt_i = 100, .ckpt_c = 10 },
        { .id = "B", .submit_s = 115, .gpus = 8, .dur_s = 100, .prio = 10 },
    };
    const char *kv[] = { "preemption.mode", "checkpoint", "preemption.grace", "1m", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, jobs, 2);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "A", SEC(115));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_DRAIN, NULL), 0);
    assert_int_equal(job_named(r.res.engine, "A").lost, SEC(5));
    pdone(&r);
}

/* While a victim checkpoints, the GPUs the waiting job will use are held
 * for it.  n1:8.  X (4 GPUs, I = 100, C = 20) and Y (4 GPUs, cannot
 * checkpoint) start at 0.  W (8 GPUs, prio 10) and Z (4 GPUs, prio 0)
 * arrive at 150; grace 60 s.  X at 150: checkpoint 100-120, computing
 * since 120: 30 s at risk > C = 20, so it drains until 170.  Y stops at
 * 150 (loses 150 s).  Y's 4 GPUs are held for W, so Z does not start on
 * them.  At 170 X stops (loses nothing) and W starts on all 8 GPUs. */
static void test_grace_holds_gpus(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "X", .gpus = 4, .dur_s = 1000, .ckpt_i = 100, .ckpt_c = 20 },
        { .id = "Y", .gpus = 4, .dur_s = 1000 },
        { .id = "W", .submit_s = 150, .gpus = 8, .dur_s = 100, .prio = 10 },
        { .id = "Z", .submit_s = 150, .gpus = 4, .dur_s = 100 },
    };
    const char *kv[] = { "queue.policy", "priority", "preemption.mode", "checkpoint",
                         "preemption.grace", "60s", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, jobs, 4);
    passert_at(&r.rec, r.res.engine, GS_EV_DRAIN, "X", SEC(150));
    assert_int_equal(r.rec.ev[pfind(&r.rec, r.res.engine, 0, GS_EV_DRAIN, "X")].until,
                     SEC(170));
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "Y", SEC(150));
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "X", SEC(170));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "W", SEC(170));
    assert_true(job_named(r.res.engine, "Z").first_start >= SEC(270));
    assert_int_equal(job_named(r.res.engine, "X").lost, 0);
    assert_int_equal(job_named(r.res.engine, "Y").lost, SEC(150));
    pdone(&r);
}

/* The cheapest victim is not the lowest-priority one.  n1:4 n2:4.
 * L (prio 0, 4 GPUs, no checkpoints) lands on n1, M (prio 5, 4 GPUs,
 * I = 100, C = 1) on n2, both at 0.  W (prio 10, 4 GPUs) arrives at 1000.
 * L would lose 1000 s x 4 GPUs.  M runs cycles of 101 s: 9 by 909 (saved
 * 900), then computes 909-1000: 91 s x 4 GPUs at risk.  M is preempted;
 * W starts on n2. */
static void test_cheapest_not_lowest_priority(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "L", .gpus = 4, .dur_s = 5000 },
        { .id = "M", .gpus = 4, .dur_s = 5000, .prio = 5, .ckpt_i = 100, .ckpt_c = 1 },
        { .id = "W", .submit_s = 1000, .gpus = 4, .dur_s = 100, .prio = 10 },
    };
    const char *kv[] = { "preemption.mode", "checkpoint", NULL };
    struct prun r;
    prun(&r, "n1:4 n2:4", kv, jobs, 3);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "M", SEC(1000));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, "L"), 0);
    int w = pfind(&r.rec, r.res.engine, 0, GS_EV_START, "W");
    assert_int_equal(r.rec.ev[w].time, SEC(1000));
    assert_int_equal(r.rec.ev[w].parts[0].node, node_of(r.cl, "n2"));
    assert_int_equal(job_named(r.res.engine, "M").lost, SEC(91));
    pdone(&r);
}

/* Two cheap victims beat one expensive one inside a domain.  n1:5.
 * E (prio 0, 2 GPUs, no checkpoints, from 0), C1 and C2 (prio 0, 1 GPU
 * each, I = 10, C = 1, from 0).  One GPU idle.  W (prio 10, 3 GPUs)
 * arrives at 100: needs 2 more.  Options: E (100 s x 2 = 200
 * GPU-s) or C1 + C2 (cycles of 11 s: 9 by 99, 1 s at risk each = 2 GPU-s).
 * C1 and C2 are preempted. */
static void test_cheapest_set(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "E", .gpus = 2, .dur_s = 5000 },
        { .id = "C1", .gpus = 1, .dur_s = 5000, .ckpt_i = 10, .ckpt_c = 1 },
        { .id = "C2", .gpus = 1, .dur_s = 5000, .ckpt_i = 10, .ckpt_c = 1 },
        { .id = "W", .submit_s = 100, .gpus = 3, .dur_s = 100, .prio = 10 },
    };
    const char *kv[] = { "preemption.mode", "checkpoint", NULL };
    struct prun r;
    prun(&r, "n1:5", kv, jobs, 4);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "C1", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "C2", SEC(100));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, "E"), 0);
    passert_at(&r.rec, r.res.engine, GS_EV_START, "W", SEC(100));
    assert_int_equal(job_named(r.res.engine, "C1").lost, SEC(1));
    pdone(&r);
}

/* Refused: the preemptible jobs free enough GPUs in count but not one
 * whole NVLink domain.  n1:4 n2:4 (one 4-GPU domain each).  a (prio 0) and
 * b (prio 20) take 2 GPUs each on n1; c (prio 0) and d (prio 20) on n2
 * (FIFO, pack: in submission order).
 * W (prio 10, 4 GPUs) at 100 may preempt a and c (4 GPUs) but no domain
 * would be whole: nothing is preempted and W waits until b ends at 500
 * (n1: a's 2 + b's 2). */
static void test_refused_no_whole_domain(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "a", .gpus = 2, .dur_s = 1000 },
        { .id = "b", .gpus = 2, .dur_s = 500, .prio = 20 },
        { .id = "c", .gpus = 2, .dur_s = 1000 },
        { .id = "d", .gpus = 2, .dur_s = 2000, .prio = 20 },
        { .id = "W", .submit_s = 100, .gpus = 4, .dur_s = 100, .prio = 10 },
    };
    const char *kv[] = { "preemption.mode", "immediate", NULL };
    struct prun r;
    prun(&r, "n1:4 n2:4", kv, jobs, 5);
    assert_int_equal(pfind(&r.rec, r.res.engine, 0, GS_EV_START, "a") >= 0, 1);
    /* at 100 nothing may be preempted */
    for (int i = 0; i < r.rec.n; i++)
        if (r.rec.ev[i].kind == GS_EV_PREEMPT)
            assert_true(r.rec.ev[i].time >= SEC(500));
    /* at 500 b ends: n1 has b's 2 idle and a's 2 preemptible: a goes */
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "a", SEC(500));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "W", SEC(500));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, "c"), 0);
    pdone(&r);
}

/* min_runtime: a run younger than it is never preempted; the engine wakes
 * when it comes of age (FIFO has no aging ticks).  A (8 GPUs, no
 * checkpoints) from 0, B (prio 10) at 100, min_runtime 300 s: A is
 * preempted at 300 losing 300 s. */
static void test_min_runtime(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000 },
        { .id = "B", .submit_s = 100, .gpus = 8, .dur_s = 100, .prio = 10 },
    };
    const char *kv[] = { "preemption.mode", "immediate", "preemption.min_runtime", "5m", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, jobs, 2);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "A", SEC(300));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "B", SEC(300));
    assert_int_equal(job_named(r.res.engine, "A").lost, SEC(300));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "A", SEC(1400));
    pdone(&r);
}

/* Rights: the priority gap; mode none; quota reclaim of borrowed GPUs.
 * n1:8, A (8 GPUs, team b) from 0, B (8 GPUs, team a) at 100.
 *  gap 5, prio 4 vs 0: no right, B waits for A (1000).
 *  gap 5, prio 5: preempted at 100.
 *  mode none: never.
 *  quotas a: 4, b: 4, borrow; A of team b holds 8 (4 borrowed); B asks 4
 *    within team a's quota, equal priority: reclaim at 100. */
static void test_rights(void **state)
{
    (void)state;
    static const struct {
        const char *mode, *gap;
        int prio, bgpus, quota;
        double b_start;
    } rows[] = {
        { "immediate", "5", 4, 8, 0, 1000 },
        { "immediate", "5", 5, 8, 0, 100 },
        { "none", "1", 10, 8, 0, 1000 },
        { "immediate", "0", 0, 4, 1, 100 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct pjob jobs[] = {
            { .id = "A", .gpus = 8, .dur_s = 1000, .team = "b" },
            { .id = "B", .submit_s = 100, .gpus = rows[i].bgpus, .dur_s = 100,
              .prio = rows[i].prio, .team = "a" },
        };
        const char *kv[] = { "preemption.mode", rows[i].mode, "preemption.priority_gap",
                             rows[i].gap, rows[i].quota ? "queue.quota.a" : NULL, "4",
                             "queue.quota.b", "4", "queue.quota_mode", "borrow", NULL };
        struct prun r;
        prun(&r, "n1:8", kv, jobs, 2);
        if (job_named(r.res.engine, "B").first_start != SEC(rows[i].b_start))
            fail_msg("row %zu: B started at %lld", i,
                     (long long)job_named(r.res.engine, "B").first_start);
        pdone(&r);
    }
}

/* over_cap: preempt - a job past the runtime cap is not killed but may be
 * preempted by any waiting job.  Cap 100 s.  A (prio 10, 8 GPUs, 1000 s, no
 * checkpoints) from 0; B (prio 0, 8 GPUs, 100 s) at 50 has no right until A
 * passes the cap at 100 (the cap deadline wakes the engine): A is
 * preempted at 100 losing 100 s, B runs 100-200, A restarts at 200, passes
 * the cap again at 300 with nobody waiting, and ends at 1200. */
static void test_over_cap_preemptible(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000, .prio = 10 },
        { .id = "B", .submit_s = 50, .gpus = 8, .dur_s = 100 },
    };
    const char *kv[] = { "queue.runtime_cap", "100s", "preemption.over_cap", "preempt",
                         "preemption.mode", "immediate", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, jobs, 2);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "A", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "B", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "A", SEC(1200));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_KILL, NULL), 0);
    assert_int_equal(job_named(r.res.engine, "A").lost, SEC(100));
    pdone(&r);
}

/* Two jobs that both outrun the cap must not preempt each other in turn.
 * Cap 100 s, immediate.  A (8 GPUs, 1000 s) from 0; B (8 GPUs, 1000 s) at
 * 10.  A passes the cap at 100 and B preempts it (A loses 100 s and is now
 * capped).  B runs from 100 and passes its own cap at 200 with A waiting,
 * but A, preempted past its cap, holds no over-cap right: B runs on and
 * ends at 1100.  A restarts at 1100 with nobody waiting and ends at 2100.
 * Before the rule A preempted B at 200, B preempted A at 300, and so on:
 * neither ever finished. */
static void test_over_cap_no_cycle(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000 },
        { .id = "B", .submit_s = 10, .gpus = 8, .dur_s = 1000 },
    };
    const char *kv[] = { "queue.runtime_cap", "100s", "preemption.over_cap", "preempt",
                         "preemption.mode", "immediate", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, jobs, 2);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "A", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "B", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "B", SEC(1100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "A", SEC(2100));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, NULL), 1);
    struct gs_job_info a = job_named(r.res.engine, "A"), b = job_named(r.res.engine, "B");
    assert_int_equal(a.capped, 1);
    assert_int_equal(b.capped, 0);
    assert_int_equal(a.lost, SEC(100));
    assert_int_equal(b.preemptions, 0);
    pdone(&r);
}

/* Progress (issue 23): the over-cap right must not be answered by the
 * priority right.  Cap 100 s, immediate, over_cap preempt, priority_gap 1,
 * min_runtime 50 s, one 8-GPU node.  A (prio 10, 8 GPUs, 1000 s) from 0;
 * B (prio 0, 8 GPUs, 1000 s) at 10: no right against A until A passes its
 * cap at 100, when B preempts it (A loses 100 s and is capped).  Before
 * the rule A, higher by the gap, preempted B back at 150 (B's min_runtime),
 * passed its cap again at 250, was preempted by B (never capped: always
 * stopped before its cap), and so on for ever.  Now a capped job holds no
 * right: B runs 100-1100, A restarts at 1100, passes its cap at 1200 with
 * nobody waiting and ends at 2100; one preemption in all. */
static void test_progress_capped_no_priority(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000, .prio = 10 },
        { .id = "B", .submit_s = 10, .gpus = 8, .dur_s = 1000 },
    };
    const char *kv[] = { "queue.runtime_cap", "100s", "preemption.over_cap", "preempt",
                         "preemption.mode", "immediate", "preemption.min_runtime", "50s",
                         "preemption.priority_gap", "1", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, jobs, 2);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "A", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "B", SEC(1100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "A", SEC(2100));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, NULL), 1);
    pdone(&r);
}

/* Progress (issue 23): two jobs that last preempted each other do not go
 * on.  Quota reclaim against priority, immediate, gap 1, min_runtime 50 s,
 * one 8-GPU node, quotas a 8, b 0, c 8 (c idle), borrow.  H (team b, prio
 * 5, 8 GPUs, 1000 s) from 0 on borrowed GPUs; L (team a, prio 0, 8 GPUs,
 * 1000 s) at 10: a stays within its quota of 8 and b holds 8 over its 0,
 * so L reclaims once H's run is min_runtime old, at 50 (H loses 50 s).  H
 * may still borrow (c's idle 8) and outranks L by the gap; requeued in the
 * middle of the pass at 50, it has a right against L, too young until 100
 * (min_runtime): the engine wakes at 100 and H preempts L (L loses 50 s):
 * the one answer allowed.  (Before, a victim requeued mid-pass was not
 * considered until the next event, the stale end of H's first run at
 * 1000.)  Before the rule L reclaimed again 50 s later, H answered, and so
 * on for ever (main's `gpusched sim` on these two jobs never ends).  Now
 * each was preempted last by the other: H runs 100-1100, L 1100-2100; two
 * preemptions. */
static void test_progress_no_preempt_back(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "H", .gpus = 8, .dur_s = 1000, .prio = 5, .team = "b" },
        { .id = "L", .submit_s = 10, .gpus = 8, .dur_s = 1000, .team = "a" },
    };
    const char *kv[] = { "preemption.mode", "immediate", "preemption.min_runtime", "50s",
                         "preemption.priority_gap", "1", "preemption.quota_reclaim", "true",
                         "queue.quota.a", "8", "queue.quota.b", "0", "queue.quota.c", "8",
                         "queue.quota_mode", "borrow", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, jobs, 2);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "H", SEC(50));
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "L", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "H", SEC(1100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "L", SEC(2100));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, NULL), 2);
    pdone(&r);
}

/* The report on the issue's example (class train; B cannot checkpoint).
 *  lost 30 s x 8 = 240 GPU-s; checkpoints 9 x 10 s x 8 = 720 GPU-s.
 *  MTBP = run time / preemptions = (A 250 + 870, B 100) / 1 = 1220 s.
 *  a = A's loss / (1 preemption x I/2) = 30 / 50 = 0.6.
 *  Young/Daly I* = sqrt(2 x 10 x 1220) = 156.205 s; calibrated
 *  I_a = 156.205 / sqrt(0.6) = 201.660 s; A's I = 100 < I_a / 2 = 100.83:
 *  too often.  W(I) = C/I + a I / (2 M): W(100) = 0.1 + 60 / 2440 =
 *  0.124590; W(201.660) = 0.049588 + 0.6 x 201.660 / 2440 = 0.099177;
 *  A's run GPU-h = (1000 + 30 + 90) s x 8 / 3600 = 2.48889: saves
 *  2.48889 x 0.025413 = 0.063250 GPU-h. */
static void test_report_and_advice(void **state)
{
    (void)state;
    static const struct pjob rows[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000, .ckpt_i = 100, .ckpt_c = 10, .team = "t1" },
        { .id = "B", .submit_s = 250, .gpus = 8, .dur_s = 100, .prio = 10, .team = "t2" },
    };
    const char *kv[] = { "preemption.mode", "checkpoint", NULL };
    struct prun r;
    prun(&r, "n1:8", kv, rows, 2);
    const struct gs_preempt_summary *p = &r.res.summary.pre;
    const struct gs_class_summary *t = &p->cls[GS_CLASS_TRAIN];
    assert_int_equal(t->loss.preemptions, 1);
    assert_float_equal(t->loss.lost_gpu_h, 240.0 / 3600, 1e-12);
    assert_float_equal(t->loss.ckpt_gpu_h, 720.0 / 3600, 1e-12);
    assert_float_equal(p->total.restore_gpu_h, 0, 1e-12);
    assert_int_equal(p->nteams, 2);
    assert_string_equal(p->teams[0].team, "t1");
    assert_int_equal(p->teams[0].loss.preemptions, 1);
    assert_int_equal(p->teams[1].loss.preemptions, 0);
    const struct gs_ckpt_advice *a = &t->advice;
    assert_float_equal(a->mtbp_s, 1220, 1e-9);
    assert_int_equal(a->able, 1);
    assert_int_equal(a->unable, 1);
    assert_float_equal(a->loss_factor, 0.6, 1e-12);
    assert_float_equal(a->optimal_s, 156.2049935, 1e-6);
    assert_float_equal(a->calibrated_s, 201.6597, 1e-3);
    assert_int_equal(a->too_often, 1);
    assert_float_equal(a->save_gpu_h, 0.063250, 1e-5);
    /* util_effective = kept work (1000 + 100) x 8 / (8 x 1220) */
    assert_float_equal(r.res.summary.util_effective, 8800.0 / 9760, 1e-12);
    pdone(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_example),
        cmocka_unit_test(test_progress_capped_no_priority),
        cmocka_unit_test(test_progress_no_preempt_back),
        cmocka_unit_test(test_loss_accounting),
        cmocka_unit_test(test_cheaper_to_lose_than_save),
        cmocka_unit_test(test_grace_holds_gpus),
        cmocka_unit_test(test_cheapest_not_lowest_priority),
        cmocka_unit_test(test_cheapest_set),
        cmocka_unit_test(test_refused_no_whole_domain),
        cmocka_unit_test(test_min_runtime),
        cmocka_unit_test(test_rights),
        cmocka_unit_test(test_over_cap_preemptible),
        cmocka_unit_test(test_over_cap_no_cycle),
        cmocka_unit_test(test_report_and_advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

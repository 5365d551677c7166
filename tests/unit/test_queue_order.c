/* test_queue_order.c - issue 10's queue at any depth: the bounded
 * look-ahead (queue.max_job_test), the minimum pass interval
 * (queue.min_pass_interval), the kept quota totals and the kept pass order
 * (src/core/queue/queue.c and queue_order.c are the spec).
 *
 *   max_job_test N: a pass tries at most N pending jobs, in pass order; the
 *     pending jobs it leaves untried are counted (gs_queue_stats.skipped,
 *     N untried by k passes count k x N).  0 = all.
 *   min_pass_interval D: a pass within D after the last pass is held back;
 *     the engine asks to be woken at last + D, when the pass runs.
 *
 * The engine is driven directly (qeng_new) so every pass is one explicit
 * gs_engine_step.  Times: s = seconds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qtestutil.h"
#include "core/queue/queue_private.h" /* white box: the pass's visit list, quota totals */
#include "core/base/rng.h"


static struct gs_queue_stats stats_of(const struct qeng *q)
{
    struct gs_queue_stats st;
    gs_engine_queue_stats(q->eng, &st);
    return st;
}

/* ---- bounded look-ahead ----------------------------------------------------- */

/* Whether the engine asks for a pass at `now` itself: the continuation of
 * a pass that stopped at max_job_test with jobs untried. */
static int cont_due(const struct qeng *q, gs_time now)
{
    return gs_engine_next_wakeup(q->eng, now) == now;
}

/* fifo + EASY, max_job_test 2, one 4-GPU node; the driver honours
 * gs_engine_next_wakeup (a continuation is due at the same instant).
 *   0s: big (4 GPUs, limit 1h) submitted; pass 1 tries big: starts.  The
 *       order is done: no continuation.
 *  10s: a (2), b (1), c (1), d (1) submitted (limits 1h).  Pass 2 tries a
 *       (no free GPU: blocked, reserved at 1h) and b (does not fit either);
 *       c and d are left untried (2 skipped) and the pass is held: the
 *       engine asks for its continuation at 10s.
 *  10s: pass 3 resumes the held pass where it stopped (nothing happened in
 *       between): c and d (the bound, 2), neither fits.  End of the order:
 *       every job the pass began with was tried, 0 more skipped; the pass
 *       visited a, b, c, d, as one unbounded pass does.
 * 100s: big finishes.  Pass 4 tries a (starts on GPUs 0-1) and b (GPU 2);
 *       c, d untried: 2 skipped (4), continuation due at 100s.
 * 100s: pass 5 resumes: c (starts on GPU 3) and d (no GPU left).
 * So c starts at 100s as with max_job_test 0, where passes 0s, 10s, 100s
 * try everything and nothing is skipped (on main, without the
 * continuation, c waited until the next event, 101s here). */
static void test_lookahead_fifo(void **state)
{
    (void)state;
    static const struct qjob big = { .id = "big", .gpus = 4, .tl_s = 3600 };
    static const struct qjob rows[] = {
        { .id = "a", .submit_s = 10, .gpus = 2, .tl_s = 3600 },
        { .id = "b", .submit_s = 10, .gpus = 1, .tl_s = 3600 },
        { .id = "c", .submit_s = 10, .gpus = 1, .tl_s = 3600 },
        { .id = "d", .submit_s = 10, .gpus = 1, .tl_s = 3600 },
    };
    for (int limited = 0; limited <= 1; limited++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.backfill", "easy",
                             "queue.max_job_test", limited ? "2" : "0", NULL };
        struct qeng *q = qeng_new("n1:4", qpolicy(kv));
        int hb = qsubmit(q, 0, &big);
        qstep(q, 0);
        assert_int_equal(qstate(q, hb), GS_JOB_RUNNING);
        assert_false(cont_due(q, 0));
        int h[4];
        for (int i = 0; i < 4; i++)
            h[i] = qsubmit(q, SEC(10), &rows[i]);
        qstep(q, SEC(10));
        assert_int_equal(stats_of(q).skipped, limited ? 2 : 0);
        assert_int_equal(cont_due(q, SEC(10)), limited);
        if (limited) {
            qstep(q, SEC(10));
            assert_int_equal(stats_of(q).skipped, 2);
            assert_int_equal(q->eng->q->nvisited, 4); /* a, b, c, d */
            assert_false(cont_due(q, SEC(10)));
            assert_int_equal(qstate(q, h[2]), GS_JOB_PENDING);
            assert_int_equal(gs_engine_wait_reason(q->eng, h[2]), GS_REASON_SHORTAGE);
        }
        qfinish(q, SEC(100), hb);
        qstep(q, SEC(100));
        assert_int_equal(qstate(q, h[0]), GS_JOB_RUNNING);
        assert_int_equal(qstate(q, h[1]), GS_JOB_RUNNING);
        assert_int_equal(qstate(q, h[2]), limited ? GS_JOB_PENDING : GS_JOB_RUNNING);
        assert_int_equal(stats_of(q).skipped, limited ? 4 : 0);
        assert_int_equal(cont_due(q, SEC(100)), limited);
        if (limited)
            qstep(q, SEC(100));
        assert_false(cont_due(q, SEC(100)));
        assert_int_equal(qstate(q, h[2]), GS_JOB_RUNNING);
        assert_int_equal(qstate(q, h[3]), GS_JOB_PENDING);
        assert_int_equal(job_named(q->eng, "c").first_start, SEC(100));
        struct gs_queue_stats st = stats_of(q);
        assert_int_equal(st.skipped, limited ? 4 : 0);
        assert_int_equal(st.passes, limited ? 5 : 3);
        assert_int_equal(st.held_back, 0);
    }
}

/* priority (no backfill, aging 0), max_job_test 1, one 2-GPU node; three
 * 1-GPU jobs submitted at 0s: lo (priority 1), hi (5), mid (3).  Pass
 * order hi, mid, lo.  All passes at 0s (each continuation is due at once
 * and resumes the held pass):
 *   pass 1 tries hi (starts); mid, lo untried: 2 skipped.
 *   pass 2 tries mid (starts on the second GPU); lo untried: 1 skipped.
 *   pass 3 tries lo: no free GPU, it blocks; end of the order: 0 skipped,
 *   no continuation; the three segments visited hi, mid, lo.
 * So the look-ahead skips the lowest-ranked jobs, never a higher one, and
 * its continuation reaches them at the same instant. */
static void test_lookahead_priority(void **state)
{
    (void)state;
    static const struct qjob rows[] = {
        { .id = "lo", .gpus = 1, .prio = 1 },
        { .id = "hi", .gpus = 1, .prio = 5 },
        { .id = "mid", .gpus = 1, .prio = 3 },
    };
    const char *kv[] = { "queue.policy", "priority", "queue.backfill", "false",
                         "queue.aging_rate", "0", "queue.max_job_test", "1", NULL };
    struct qeng *q = qeng_new("n1:2", qpolicy(kv));
    int h[3];
    for (int i = 0; i < 3; i++)
        h[i] = qsubmit(q, 0, &rows[i]);
    qstep(q, 0);
    assert_int_equal(qstate(q, h[1]), GS_JOB_RUNNING);
    assert_int_equal(qstate(q, h[2]), GS_JOB_PENDING);
    assert_int_equal(stats_of(q).skipped, 2);
    assert_true(cont_due(q, 0));
    qstep(q, 0);
    assert_int_equal(qstate(q, h[2]), GS_JOB_RUNNING);
    assert_int_equal(qstate(q, h[0]), GS_JOB_PENDING);
    assert_int_equal(stats_of(q).skipped, 3);
    assert_true(cont_due(q, 0));
    qstep(q, 0);
    assert_int_equal(qstate(q, h[0]), GS_JOB_PENDING);
    assert_int_equal(stats_of(q).skipped, 3);
    assert_int_equal(q->eng->q->nvisited, 3);
    assert_int_equal(q->eng->q->visited[2], h[0]);
    assert_false(cont_due(q, 0));
    assert_int_equal(stats_of(q).passes, 3);
}

/* A held pass that cannot be resumed: fifo, max_job_test 1, one 4-GPU
 * node, 1-GPU jobs a, b, c at 0s.  Pass 1 at 0s starts a and is held (b,
 * c untried).  The driver does not come back at 0s: at 5s d is submitted
 * and the step at 5s finds the engine changed (a later instant, a new
 * job), so it closes the held pass as it stood and continues its cycle by
 * stamps: a started, b is the first job the cycle has not tried: it starts
 * (the bound, 1), c is left: continuation due at 5s.  Pass 3 at 5s: c
 * starts, d left; pass 4 at 5s: d starts, end of the order.  4 passes, all
 * four running at 5s. */
static void test_hold_abandoned(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "fifo", "queue.max_job_test", "1", NULL };
    struct qeng *q = qeng_new("n1:4", qpolicy(kv));
    static const struct qjob rows[] = {
        { .id = "a", .gpus = 1 }, { .id = "b", .gpus = 1 }, { .id = "c", .gpus = 1 },
        { .id = "d", .submit_s = 5, .gpus = 1 },
    };
    int h[4];
    for (int i = 0; i < 3; i++)
        h[i] = qsubmit(q, 0, &rows[i]);
    qstep(q, 0);
    assert_true(cont_due(q, 0));
    assert_true(q->eng->q->held);
    h[3] = qsubmit(q, SEC(5), &rows[3]);
    qstep(q, SEC(5));
    assert_false(q->eng->q->held);
    assert_int_equal(qstate(q, h[1]), GS_JOB_RUNNING);
    assert_int_equal(qstate(q, h[2]), GS_JOB_PENDING);
    assert_true(cont_due(q, SEC(5)));
    qstep(q, SEC(5));
    assert_int_equal(qstate(q, h[2]), GS_JOB_RUNNING);
    assert_true(cont_due(q, SEC(5)));
    qstep(q, SEC(5));
    assert_false(cont_due(q, SEC(5)));
    for (int i = 0; i < 4; i++)
        assert_int_equal(qstate(q, h[i]), GS_JOB_RUNNING);
    assert_int_equal(stats_of(q).passes, 4);
}

/* The burst: 200 one-GPU jobs (1,000 s each) submitted at 0 on 64
 * x 8 idle GPUs under the default policy (max_job_test 100 here, as the
 * default was when the issue was filed).  Pass 1 starts the first 100 and
 * leaves 100 untried; on main nothing ran again until the first end at
 * 1,000 s, with 412 GPUs free.  Its continuation at 0 s starts the other
 * 100 (412 GPUs free, each fits): all 200 start at 0, 2 passes, 100
 * skipped (by pass 1 only), and no continuation after the second. */
static void test_burst_continuation(void **state)
{
    (void)state;
    const char *kv[] = { "queue.max_job_test", "100", NULL };
    char desc[64 * 8] = "";
    for (int n = 0; n < 64; n++)
        snprintf(desc + strlen(desc), sizeof desc - strlen(desc), "%sn%d:8", n ? " " : "", n);
    struct qeng *q = qeng_new(desc, qpolicy(kv));
    struct qjob r = { .id = "j", .gpus = 1, .dur_s = 1000 };
    char id[16];
    int h[200];
    for (int i = 0; i < 200; i++) {
        snprintf(id, sizeof id, "j%d", i);
        r.id = id;
        h[i] = qsubmit(q, 0, &r);
    }
    qstep(q, 0);
    assert_true(cont_due(q, 0));
    qstep(q, 0);
    assert_false(cont_due(q, 0));
    for (int i = 0; i < 200; i++)
        assert_int_equal(qstate(q, h[i]), GS_JOB_RUNNING);
    struct gs_queue_stats st = stats_of(q);
    assert_int_equal(st.passes, 2);
    assert_int_equal(st.skipped, 100);
}

/* ---- minimum pass interval ---------------------------------------------------- */

/* fifo, min_pass_interval 60s, one 1-GPU node.
 *   0s: j1 submitted, pass (the first: nothing before it): j1 starts.
 *  10s: j2 submitted; the pass is held back (10 < 0 + 60); the engine
 *       asks to be woken at 60s.
 *  20s: j1 finishes; held back again (GPU idle, j2 still waits).
 *  60s: the pass runs: j2 starts at 60s.
 * 2 passes ran, 2 were held back.  With interval 0, j2 starts at 20s. */
static void test_min_pass_interval(void **state)
{
    (void)state;
    static const struct qjob j1 = { .id = "j1", .gpus = 1 };
    static const struct qjob j2 = { .id = "j2", .submit_s = 10, .gpus = 1 };
    for (int gap = 0; gap <= 1; gap++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.min_pass_interval",
                             gap ? "60s" : "0s", NULL };
        struct qeng *q = qeng_new("n1:1", qpolicy(kv));
        int h1 = qsubmit(q, 0, &j1);
        qstep(q, 0);
        assert_int_equal(qstate(q, h1), GS_JOB_RUNNING);
        int h2 = qsubmit(q, SEC(10), &j2);
        qstep(q, SEC(10));
        if (gap)
            assert_int_equal(gs_engine_next_wakeup(q->eng, SEC(10)), SEC(60));
        qfinish(q, SEC(20), h1);
        qstep(q, SEC(20));
        assert_int_equal(qstate(q, h2), gap ? GS_JOB_PENDING : GS_JOB_RUNNING);
        if (gap) {
            assert_int_equal(gs_engine_next_wakeup(q->eng, SEC(20)), SEC(60));
            qstep(q, SEC(60));
        }
        assert_int_equal(job_named(q->eng, "j2").first_start, gap ? SEC(60) : SEC(20));
        struct gs_queue_stats st = stats_of(q);
        assert_int_equal(st.passes, gap ? 2 : 3);
        assert_int_equal(st.held_back, gap ? 2 : 0);
    }
}

/* The same through the simulator, which steps at the engine's wakeups:
 * j1 (1 GPU, 20s) at 0s, j2 (1 GPU, 5s) at 10s on one GPU, interval 60s:
 * j1 runs 0-20s; passes at 10s and 20s are held back; j2 starts at 60s
 * (wakeup) and finishes at 65s; the pass at 65s is held back too and runs
 * at its wakeup, 120s (an empty queue).  Passes 0, 60, 120s; held back 10,
 * 20, 65s. */
static void test_min_pass_interval_sim(void **state)
{
    (void)state;
    static const struct qjob rows[] = {
        { .id = "j1", .gpus = 1, .dur_s = 20 },
        { .id = "j2", .submit_s = 10, .gpus = 1, .dur_s = 5 },
    };
    const char *kv[] = { "queue.policy", "fifo", "queue.min_pass_interval", "1m", NULL };
    struct gs_sim_result *res = qsim(qcluster("n1:1"), qpolicy(kv), qtrace(rows, 2), NULL);
    qassert_start(res->engine, "j1", 0);
    qassert_start(res->engine, "j2", SEC(60));
    assert_int_equal(job_named(res->engine, "j2").end, SEC(65));
    assert_int_equal(res->summary.queue.held_back, 3);
    assert_int_equal(res->summary.queue.passes, 3);
}

/* ---- quota totals --------------------------------------------------------------- */

/* The borrow rule's totals (quota left unused and used beyond quota, over
 * all teams) are kept as jobs start and stop; after each of 3,000 random
 * submissions, passes, finishes and cancellations they equal a recount
 * over every team, and gs_queue_quota_ok agrees with the rule evaluated from
 * that recount for every pending job. */
static void check_quota(const struct gs_engine *eng)
{
    int64_t u, b;
    gs_queue_quota_recount(eng, &u, &b);
    assert_int_equal(eng->quota_unused, u);
    assert_int_equal(eng->quota_borrowed, b);
    for (size_t i = eng->phead; i < eng->ptail; i++) {
        int job = eng->pending[i];
        const struct job *j = &eng->jobs[job];
        if (j->state != GS_JOB_PENDING || eng->team_quota[j->team] < 0)
            continue;
        int64_t q = (int64_t)eng->team_quota[j->team] * GS_MILLI_GPU;
        int64_t used = eng->team_milli[j->team], need = (int64_t)j->gpus * j->milli;
        int64_t su = used < q ? q - used : 0, sb = used < q ? 0 : used - q;
        int want = used + need <= q || used + need - q <= (u - su) - (b - sb);
        assert_int_equal(gs_queue_quota_ok(eng, job), want);
    }
}

static void test_quota_totals(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "fifo", "queue.backfill", "easy",
                         "queue.quota_mode", "borrow", "queue.quota.a", "3",
                         "queue.quota.b", "5", "queue.quota.c", "0", NULL };
    struct qeng *q = qeng_new("n1:8 n2:8", qpolicy(kv));
    static const char *const teams[] = { "a", "b", "c", "d" };
    struct gs_rng r;
    gs_rng_seed(&r, 3);
    gs_time now = 0;
    int borrowed = 0;
    for (int op = 0; op < 3000; op++) {
        now += SEC(1);
        int what = (int)gs_rng_below(&r, 10);
        struct gs_engine *eng = q->eng;
        if (what < 5) {
            char id[16];
            snprintf(id, sizeof id, "j%d", op);
            struct qjob row = { .id = id, .gpus = 1 + (int)gs_rng_below(&r, 4),
                                .tl_s = 3600, .team = teams[gs_rng_below(&r, 4)] };
            row.submit_s = (double)now / GS_MS_PER_SEC;
            qsubmit(q, now, &row);
        } else if (what < 8 && eng->nrunning > 0) {
            qfinish(q, now, eng->running[gs_rng_below(&r, (uint64_t)eng->nrunning)]);
        } else if (what == 8 && eng->npending > 0) {
            size_t span = eng->ptail - eng->phead;
            int job = eng->pending[eng->phead + gs_rng_below(&r, (uint64_t)span)];
            struct gs_error err = { 0 };
            if (eng->jobs[job].state == GS_JOB_PENDING)
                assert_int_equal(gs_engine_cancel(eng, now, job, &err), 0);
        }
        qstep(q, now);
        check_quota(q->eng);
        borrowed += q->eng->quota_borrowed > 0;
    }
    assert_true(borrowed > 100); /* the borrow rule was exercised, not just strict quotas */
}

/* ---- the kept order equals a full sort ---------------------------------------- */

/* Reference: the documented order, sorted from scratch.  effective x 1h x
 * 1000 = priority x 1h x 1000 + aging_milli x extra wait (ms), extra =
 * now - submit - max_wait when positive. */
struct ref {
    int64_t eff;
    gs_time submit;
    int job;
};

static int cmp_ref(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    if (x->eff != y->eff)
        return x->eff > y->eff ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

static void check_order(const struct gs_engine *eng, gs_time now, int64_t rate_milli,
                        gs_time max_wait)
{
    struct ref *v = calloc(eng->njobs + 1, sizeof *v);
    assert_non_null(v);
    size_t n = 0;
    for (size_t h = 0; h < eng->njobs; h++) {
        const struct job *j = &eng->jobs[h];
        if (j->state != GS_JOB_PENDING)
            continue;
        gs_time extra = now - j->submit - max_wait;
        int64_t eff = (int64_t)j->priority * 3600 * 1000 * 1000;
        if (extra > 0)
            eff += rate_milli * extra;
        v[n++] = (struct ref){ eff, j->submit, (int)h };
    }
    qsort(v, n, sizeof *v, cmp_ref);
    const struct gs_qstate *q = eng->q;
    assert_int_equal(q->nvisited, n);
    for (size_t i = 0; i < n; i++)
        if (q->visited[i] != v[i].job)
            fail_msg("at %lld ms position %zu: pass visited %d, sort says %d", (long long)now,
                     i, q->visited[i], v[i].job);
    /* the order's ahead hook (the diagnosis's rank) agrees with the pass */
    for (size_t i = 1; i < n; i++) {
        const struct job *a = &eng->jobs[q->visited[i - 1]], *b = &eng->jobs[q->visited[i]];
        assert_true(gs_queue_ahead(eng, a, b, now));
        assert_false(gs_queue_ahead(eng, b, a, now));
    }
    free(v);
}

/* One 8-GPU node held by a 10-day job, so no pending 8-GPU job ever starts
 * and every pass (EASY, max_job_test 0) visits the whole queue.  Over 400
 * rounds, 1-5 jobs arrive with priorities 0-9 and back-dated submit times
 * (0-2h earlier), a random pending job is cancelled now and then, and time
 * moves 1-600 s: aging (1.5 points per hour past 30 min) keeps moving jobs
 * from the young to the aged list and reordering them.  After every pass,
 * the order it visited equals the reference sort of all pending jobs. */
static void test_order_equals_sort(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "1.5",
                         "queue.max_wait_before_aging", "30m", "queue.max_job_test", "0",
                         NULL };
    struct qeng *q = qeng_new("n1:8", qpolicy(kv));
    /* the visit list is the whole order only when no pass ends at its stop
     * point (test_qclass.c covers that) */
    assert_int_equal(gs_queue_set_classes(q->eng, 0), 0);
    static const struct qjob blocker = { .id = "blocker", .gpus = 8, .tl_s = 864000 };
    qsubmit(q, 0, &blocker);
    qstep(q, 0);
    struct gs_rng r;
    gs_rng_seed(&r, 5);
    gs_time now = HRS(3);
    int id = 0;
    for (int round = 0; round < 400; round++) {
        now += SEC(1 + gs_rng_below(&r, 600));
        for (int k = (int)gs_rng_below(&r, 5); k >= 0; k--) {
            char name[16];
            snprintf(name, sizeof name, "p%d", id++);
            struct qjob row = { .id = name, .gpus = 8, .prio = (int)gs_rng_below(&r, 10) };
            row.submit_s = (double)(now - (gs_time)gs_rng_below(&r, 7200) * 1000) / 1000.0;
            qsubmit(q, now, &row);
        }
        struct gs_engine *eng = q->eng;
        if (gs_rng_below(&r, 3) == 0 && eng->npending > 1) {
            size_t span = eng->ptail - eng->phead;
            int job = eng->pending[eng->phead + gs_rng_below(&r, (uint64_t)span)];
            struct gs_error err = { 0 };
            if (eng->jobs[job].state == GS_JOB_PENDING && job != 0)
                assert_int_equal(gs_engine_cancel(eng, now, job, &err), 0);
        }
        qstep(q, now);
        check_order(q->eng, now, 1500, MINS(30));
        /* the wakeup by groups of young keys equals the walk of both lists */
        assert_int_equal(gs_queue_order_change(q->eng, now),
                         gs_queue_order_change_linear(q->eng, now));
    }
    assert_true(q->eng->npending > 100);
}

/* The order registry (queue_order.c): fifo keeps its own table, both
 * priority policies walk the priority order (they differ only in the
 * default backfill), and every table has the hooks a pass calls.
 * Regression: priority_with_backfill mapped to fifo would start jobs in
 * submission order. */
static void test_order_registry(void **state)
{
    (void)state;
    assert_ptr_equal(gs_queue_order_of(GS_QUEUE_FIFO), &gs_queue_fifo_ops);
    assert_ptr_equal(gs_queue_order_of(GS_QUEUE_PRIORITY), &gs_queue_priority_ops);
    assert_ptr_equal(gs_queue_order_of(GS_QUEUE_PRIORITY_BACKFILL), &gs_queue_priority_ops);
    assert_ptr_equal(gs_queue_order_of(-1), &gs_queue_fifo_ops);
    assert_ptr_equal(gs_queue_order_of(99), &gs_queue_fifo_ops);
    const struct gs_queue_order_ops *all[] = { &gs_queue_fifo_ops, &gs_queue_priority_ops };
    for (size_t i = 0; i < 2; i++) {
        assert_non_null(all[i]->begin);
        assert_non_null(all[i]->next);
        assert_non_null(all[i]->list);
        assert_non_null(all[i]->eff_prio);
        assert_non_null(all[i]->head_kept);
        assert_non_null(all[i]->ahead);
    }
    assert_string_equal(gs_queue_fifo_ops.name, gs_policy_queue_name(GS_QUEUE_FIFO));
    assert_string_equal(gs_queue_priority_ops.name, gs_policy_queue_name(GS_QUEUE_PRIORITY));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_lookahead_fifo),
        QTEST(test_lookahead_priority),
        QTEST(test_burst_continuation),
        QTEST(test_hold_abandoned),
        QTEST(test_min_pass_interval),
        QTEST(test_min_pass_interval_sim),
        QTEST(test_quota_totals),
        QTEST(test_order_equals_sort),
        cmocka_unit_test(test_order_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

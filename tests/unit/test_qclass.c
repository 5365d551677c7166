/* test_qclass.c - equivalence classes and the stop point of a pass
 * (src/core/queue/qclass.c, docs/policy.md "Equivalence classes").
 *
 * The rule under test: a pass that reaches the point where every job left
 * fails with no side effect, and whose state there (the signature) is the
 * one the last full pass left, ends there; the jobs it does not walk keep
 * the wait code they hold.  The schedule and every wait code must be those
 * of the exhaustive pass.  So every case drives two engines with the same
 * cluster, policy and calls, one with the stop (the default) and one
 * without (gs_queue_set_classes(eng, 0): every pass walks the whole
 * order), and asserts after every step that both made the same decisions
 * (the event logs), that every job is in the same state with the same wait
 * code, and that the time-weighted wait split of every job is the same to
 * the millisecond.  Each case also asserts that the stop did happen
 * (gs_queue_stats.stopped > 0), so the comparison is not vacuous.
 *
 * The hand-built cases are those where a naive class key (GPU count
 * alone) would be wrong; the last cases are seeded random grids, one of
 * them (test_random_followers) with the policies where passes leave
 * followers instead (no quota, backfill, max_job_test 0; queue.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qtestutil.h"
#include "core/queue/queue_private.h" /* white box: gs_queue_set_classes */
#include "core/queue/qclass.h"        /* white box: gs_qclass_enabled */
#include "core/queue/queue_estidx.h"  /* white box: gs_qest_min */
#include "core/queue/queue_pass.h"    /* white box: gs_qfol_prefix */
#include "core/diagnose/diagnose.h"
#include "core/base/rng.h"

/* Two engines that must stay equal: [0] with the stop, [1] exhaustive. */
struct twin {
    struct qeng *e[2];
    int n;                      /* handles submitted */
};

static void twin_init(struct twin *t, const char *desc, const char *const *kv)
{
    const struct gs_policy *pol = qpolicy(kv);
    for (int i = 0; i < 2; i++) {
        t->e[i] = qeng_new(desc, pol);
        assert_int_equal(gs_queue_set_classes(t->e[i]->eng, i == 0), 0);
    }
    t->n = 0;
}

static int twin_submit(struct twin *t, gs_time now, const struct qjob *r)
{
    int h = qsubmit(t->e[0], now, r);
    assert_int_equal(qsubmit(t->e[1], now, r), h);
    t->n = h + 1;
    return h;
}

static void twin_finish(struct twin *t, gs_time now, int h)
{
    for (int i = 0; i < 2; i++)
        qfinish(t->e[i], now, h);
}

/* Both engines agree on every decision so far and on every job. */
static void twin_check(const struct twin *t)
{
    const struct qlog *a = &t->e[0]->log, *b = &t->e[1]->log;
    assert_int_equal(a->n, b->n);
    for (int k = 0; k < a->n; k++) {
        assert_int_equal(a->ev[k].kind, b->ev[k].kind);
        assert_int_equal(a->ev[k].job, b->ev[k].job);
        assert_int_equal(a->ev[k].time, b->ev[k].time);
    }
    for (int h = 0; h < t->n; h++) {
        assert_int_equal(qstate(t->e[0], h), qstate(t->e[1], h));
        assert_int_equal(gs_engine_wait_reason(t->e[0]->eng, h),
                         gs_engine_wait_reason(t->e[1]->eng, h));
        /* the coarse reason too: the diagnosis and the promises read it */
        const struct gs_engine *e0 = t->e[0]->eng, *e1 = t->e[1]->eng;
        if (qstate(t->e[0], h) == GS_JOB_PENDING)
            assert_int_equal(gs_queue_job(e0, gs_eng_slot(e0, h))->reason,
                             gs_queue_job(e1, gs_eng_slot(e1, h))->reason);
        gs_time sa[GS_REASON_COUNT], sb[GS_REASON_COUNT];
        assert_int_equal(gs_engine_wait_split(t->e[0]->eng, h, sa), 0);
        assert_int_equal(gs_engine_wait_split(t->e[1]->eng, h, sb), 0);
        for (int c = 0; c < GS_REASON_COUNT; c++)
            assert_int_equal(sa[c], sb[c]);
    }
}

/* A step of both (and the continuations due at the same instant), then
 * the comparison.  Returns jobs started. */
static int twin_step(struct twin *t, gs_time now)
{
    int started = 0;
    for (int i = 0; i < 2; i++) {
        int s = 0;
        do
            s += qstep(t->e[i], now);
        while (gs_engine_next_wakeup(t->e[i]->eng, now) == now);
        if (i == 0)
            started = s;
        else
            assert_int_equal(s, started);
    }
    twin_check(t);
    for (int i = 0; i < 2; i++) /* the class bytes beside the order's keys */
        assert_int_equal(gs_queue_order_check(t->e[i]->eng), 0);
    return started;
}

static int64_t stopped_of(const struct twin *t, int i)
{
    struct gs_queue_stats st;
    gs_engine_queue_stats(t->e[i]->eng, &st);
    return st.stopped;
}

/* Priority order (default aging: every pass runs), strict quotas, no
 * backfill; one 8-GPU node.  team-a's quota is 4.
 *   0s: a-run (team-a, 4 GPUs, priority 9), blk (team-c, 8 GPUs, priority
 *       9) and 22 jobs of 2 GPUs for each of team-a and team-b (priority
 *       0), interleaved a0, b0, a1, b1, ...  The pass starts a-run; blk
 *       does not fit the 4 free GPUs and blocks the queue (no backfill);
 *       every team-a job waits with `quota` (4 + 2 > 4), every team-b job
 *       with `priority` (behind blk).  Same GPU count, two codes: the quota
 *       test is made per job and its state is in the signature, so a0's
 *       code is never given to b0.
 *  10s, 20s, 30s: passes with nothing new: from the 20 s pass on they end
 *       at their stop point (the signature of the pass before), walking
 *       only a-run's successor blk.
 *  40s: a-run ends: blk starts on the 8 GPUs; team-a is at 0, so a0 passes
 *       its quota test, finds no idle GPU and blocks (`shortage`); every
 *       other job, of either team, waits behind it (`priority`).  The quota
 *       state changed: this pass walks the whole queue.
 *  50s, 60s: quiet again; the 60 s pass stops. */
static void test_team_quota_class(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", "queue.backfill", "false",
                         "queue.quota.team-a", "4", NULL };
    struct twin t;
    twin_init(&t, "n1:8", kv);
    struct qjob run = { .id = "a-run", .gpus = 4, .tl_s = 3600, .prio = 9, .team = "team-a" };
    struct qjob blk = { .id = "blk", .gpus = 8, .tl_s = 3600, .prio = 9, .team = "team-c" };
    int hrun = twin_submit(&t, 0, &run);
    int hblk = twin_submit(&t, 0, &blk);
    char ids[44][16];
    for (int i = 0; i < 44; i++) {
        snprintf(ids[i], sizeof ids[i], "%c%d", i % 2 ? 'b' : 'a', i / 2);
        struct qjob r = { .id = ids[i], .gpus = 2, .tl_s = 3600,
                          .team = i % 2 ? "team-b" : "team-a" };
        twin_submit(&t, 0, &r);
    }
    assert_int_equal(twin_step(&t, 0), 1);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, hblk + 1), GS_REASON_QUOTA);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, hblk + 2), GS_REASON_PRIORITY);
    twin_step(&t, SEC(10));
    twin_step(&t, SEC(20));
    twin_step(&t, SEC(30));
    assert_true(stopped_of(&t, 0) >= 2);
    assert_int_equal(stopped_of(&t, 1), 0);
    twin_finish(&t, SEC(40), hrun);
    int64_t before = stopped_of(&t, 0);
    assert_int_equal(twin_step(&t, SEC(40)), 1);
    assert_int_equal(stopped_of(&t, 0), before);
    assert_int_equal(qstate(t.e[0], hblk), GS_JOB_RUNNING);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, hblk + 1), GS_REASON_SHORTAGE);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, hblk + 3), GS_REASON_PRIORITY);
    twin_step(&t, SEC(50));
    twin_step(&t, SEC(60));
    assert_true(stopped_of(&t, 0) > before);
}

/* EASY backfill on user limits; one 8-GPU node.
 *   0s: r1 (4 GPUs, limit 1h) starts; r2 (2 GPUs, 2h) starts; 2 GPUs idle.
 *       big (8 GPUs) blocks: reserved at 2h (r2's end), all 8 GPUs.
 *   Then 30 "long" 1-GPU jobs (limit 3h: past the shadow time 2h, so not
 *   backfilled: `reservation`) and, behind them, "short" (1 GPU, limit
 *   30 min: ends before 2h, so it backfills on an idle GPU).  Same GPU
 *   count, two sides of the shadow time: a class key without the
 *   estimate would give short the verdict of the long ones.
 *   The passes at 10s, 20s: short starts at 0 s in both engines; later the
 *   long ones wait with `reservation` and the quiet passes stop.
 *  900s: a second short joins (1 GPU, 30 min): it fits the last idle GPU
 *   before the shadow time and starts; the memo changes, the pass walks.
 */
static void test_backfill_sides(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "fifo", "queue.backfill", "easy", NULL };
    struct twin t;
    twin_init(&t, "n1:8", kv);
    struct qjob r1 = { .id = "r1", .gpus = 4, .tl_s = 3600 };
    struct qjob r2 = { .id = "r2", .gpus = 2, .tl_s = 7200 };
    struct qjob big = { .id = "big", .gpus = 8, .tl_s = 3600 };
    twin_submit(&t, 0, &r1);
    twin_submit(&t, 0, &r2);
    twin_submit(&t, 0, &big);
    char ids[30][16];
    for (int i = 0; i < 30; i++) {
        snprintf(ids[i], sizeof ids[i], "l%d", i);
        struct qjob r = { .id = ids[i], .gpus = 1, .tl_s = 3 * 3600 };
        twin_submit(&t, 0, &r);
    }
    struct qjob s1 = { .id = "short", .gpus = 1, .tl_s = 1800 };
    int hs1 = twin_submit(&t, 0, &s1);
    assert_int_equal(twin_step(&t, 0), 3); /* r1, r2, short */
    assert_int_equal(qstate(t.e[0], hs1), GS_JOB_RUNNING);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, 3), GS_REASON_RESERVATION);
    for (int s = 10; s <= 40; s += 10)
        assert_int_equal(twin_step(&t, SEC(s)), 0);
    assert_true(stopped_of(&t, 0) >= 1);
    struct qjob s2 = { .id = "short2", .submit_s = 900, .gpus = 1, .tl_s = 1800 };
    int hs2 = twin_submit(&t, SEC(900), &s2);
    assert_int_equal(twin_step(&t, SEC(900)), 1);
    assert_int_equal(qstate(t.e[0], hs2), GS_JOB_RUNNING);
    for (int s = 910; s <= 930; s += 10)
        twin_step(&t, SEC(s));
}

static void twin_node(struct twin *t, gs_time now, int node, int state)
{
    for (int i = 0; i < 2; i++)
        assert_int_equal(gs_engine_node_set_state(t->e[i]->eng, now, node, state, NULL), 0);
}

/* Hot spares (spares.nodes 1, spares.min_gpus 8; the unbounded pass,
 * test_coverage_bounded): the highest-numbered
 * fully idle node is kept for jobs requeued by a node failure ("spare
 * users"); for every other job it is not there.  Priority order without
 * aging, EASY backfill on user limits; n1, n2, n3 of 8 GPUs.
 *   0s: a1, a2 (8 GPUs, limit 2h, priority 0) start on n1 and n2; n3 is
 *       the spare.
 *   5s: w0..w9 (4 GPUs, 3h, priority 5) and p8 (8 GPUs, 1h, priority 5)
 *       join.  w0 fits nowhere (n3 is kept): it blocks, reserved at 2h on
 *       n1 or n2; the rest wait with `shortage`.  Quiet passes at 10s and
 *       15s end at their stop point (spares do not keep it off: a start
 *       only takes GPUs, so the nodes left to a plain job only shrink).
 *  20s: n3 goes down (no spare now), n1 goes down: a1 is requeued, a spare
 *       user (8 >= min_gpus): priority 0, last in the order.  It does not
 *       fit either (n2 busy).
 *  30s: quiet.
 *  40s: n3 comes back, fully idle: the spare again.  For the plain jobs
 *       nothing changed (their signature is that of 30 s: n3 is kept from
 *       them, p8 is class 8's representative), but a1 may use the spare
 *       and starts there, behind the blocked head.  A class table that
 *       filed a1 as a plain 8-GPU job would end this pass at w0 and never
 *       try a1: a spare user is not plain (qclass.c), so while one waits
 *       under backfill the pass walks on.
 *  50s, 60s: no spare user waits: the quiet passes stop again. */
static void test_hot_spares(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "0",
                         "queue.max_job_test", "0", "spares.nodes", "1", "spares.min_gpus", "8",
                         NULL };
    struct twin t;
    twin_init(&t, "n1:8 n2:8 n3:8", kv);
    struct qjob a1 = { .id = "a1", .gpus = 8, .tl_s = 7200 };
    struct qjob a2 = { .id = "a2", .gpus = 8, .tl_s = 7200 };
    int h1 = twin_submit(&t, 0, &a1);
    twin_submit(&t, 0, &a2);
    assert_int_equal(twin_step(&t, 0), 2);
    char ids[10][16];
    for (int i = 0; i < 10; i++) {
        snprintf(ids[i], sizeof ids[i], "w%d", i);
        struct qjob r = { .id = ids[i], .submit_s = 5, .gpus = 4, .tl_s = 3 * 3600, .prio = 5 };
        twin_submit(&t, SEC(5), &r);
    }
    struct qjob p8 = { .id = "p8", .submit_s = 5, .gpus = 8, .tl_s = 3600, .prio = 5 };
    int hp8 = twin_submit(&t, SEC(5), &p8);
    assert_int_equal(twin_step(&t, SEC(5)), 0);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, hp8), GS_REASON_SHORTAGE);
    twin_step(&t, SEC(10));
    twin_step(&t, SEC(15));
    assert_true(stopped_of(&t, 0) >= 1);
    twin_node(&t, SEC(20), 2, GS_NODE_DOWN);
    twin_node(&t, SEC(20), 0, GS_NODE_DOWN);
    assert_int_equal(qstate(t.e[0], h1), GS_JOB_PENDING);
    assert_int_equal(twin_step(&t, SEC(20)), 0);
    twin_step(&t, SEC(30));
    twin_node(&t, SEC(40), 2, GS_NODE_UP);
    assert_int_equal(twin_step(&t, SEC(40)), 1);
    assert_int_equal(qstate(t.e[0], h1), GS_JOB_RUNNING);
    int64_t before = stopped_of(&t, 0);
    twin_step(&t, SEC(50));
    twin_step(&t, SEC(60));
    assert_true(stopped_of(&t, 0) > before);
    assert_int_equal(stopped_of(&t, 1), 0);
}

/* An estimator that moves while jobs wait, set by the test: the estimate of
 * handle h is tab[h] (ms), whatever happened in the engine. */
static gs_time moving_estimate(void *arg, const struct gs_engine *eng, int handle)
{
    (void)eng;
    const gs_time *tab = arg;
    return handle >= 0 && handle < 8 ? tab[handle] : GS_TIME_NONE;
}

/* Estimates that move while jobs wait (as `from_history` does at every
 * end): the stop is taken only where no code it leaves reads an estimate.
 * FIFO, EASY backfill, the unbounded pass (test_coverage_bounded), one
 * 8-GPU node; the test's estimator gives each job
 * the estimate in `tab` (handles 0..4: A, B, H, W, S).
 *   0s: A (6 GPUs, 2h) and B (2 GPUs, 1h) start: the node is full.  H (8
 *       GPUs) blocks, reserved at 2h.  W (1 GPU, 5h) finds no idle GPU:
 *       `shortage`, and so does S (1 GPU, 6h): every plain job is refused
 *       by "1 GPU does not fit the idle GPUs", whatever its estimate.
 *  10s, 20s: quiet; the 20 s pass stops (its signature is the 10 s one's).
 *  30s: B ends: 2 GPUs idle, held by H's reservation from 2h.  W (5h)
 *       would run past 2h: `reservation`, so S (6h) too, by the memo: a
 *       code that reads the estimate.  No stop from here.
 *  40s: quiet.
 *  50s: S's estimate drops to 30 min, with no event: the exhaustive pass
 *       backfills S on an idle GPU (it ends before 2h).  A pass that ended
 *       at W's refusal, as under fixed estimates, would leave S waiting
 *       with `reservation`. */
static void test_moving_estimates(void **state)
{
    (void)state;
    static gs_time tab[8];
    const gs_time est[5] = { HRS(2), HRS(1), HRS(1), HRS(5), HRS(6) };
    memcpy(tab, est, sizeof est);
    const char *kv[] = { "queue.policy", "fifo", "queue.backfill", "easy", "queue.max_job_test",
                         "0", NULL };
    struct twin t;
    twin_init(&t, "n1:8", kv);
    struct gs_estimator me = { "moving", moving_estimate, NULL, tab };
    for (int i = 0; i < 2; i++)
        gs_engine_set_estimator(t.e[i]->eng, &me);
    const struct qjob rows[5] = {
        { .id = "A", .gpus = 6, .tl_s = 7200 }, { .id = "B", .gpus = 2, .tl_s = 3600 },
        { .id = "H", .gpus = 8, .tl_s = 3600 }, { .id = "W", .gpus = 1, .tl_s = 5 * 3600 },
        { .id = "S", .gpus = 1, .tl_s = 6 * 3600 },
    };
    for (int i = 0; i < 5; i++)
        assert_int_equal(twin_submit(&t, 0, &rows[i]), i);
    assert_int_equal(twin_step(&t, 0), 2);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, 4), GS_REASON_SHORTAGE);
    twin_step(&t, SEC(10));
    twin_step(&t, SEC(20));
    assert_true(stopped_of(&t, 0) >= 1);
    twin_finish(&t, SEC(30), 1);
    assert_int_equal(twin_step(&t, SEC(30)), 0);
    assert_int_equal(gs_engine_wait_reason(t.e[0]->eng, 4), GS_REASON_RESERVATION);
    twin_step(&t, SEC(40));
    tab[4] = MINS(30);
    assert_int_equal(twin_step(&t, SEC(50)), 1);
    assert_int_equal(qstate(t.e[0], 4), GS_JOB_RUNNING);
}

/* Hot spares and moving estimates keep the stop with the unbounded pass
 * only: a bounded pass that stopped would end its segments elsewhere, and
 * the start-time promises and the continuations by stamps read where they
 * end (docs/policy.md).  Under fixed estimates without spares the stop is
 * on whatever the bound, as before. */
static void test_coverage_bounded(void **state)
{
    (void)state;
    static const struct {
        const char *mjt, *spares, *est;
        int on;
    } c[] = {
        { "0", "1", "user", 1 },   { "100", "1", "user", 0 },  { "0", "0", "from_history", 1 },
        { "100", "0", "from_history", 0 }, { "100", "0", "user", 1 }, { "3", "0", "oracle", 1 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *kv[] = { "queue.max_job_test", c[i].mjt, "spares.nodes", c[i].spares,
                             "queue.duration_estimate", c[i].est, NULL };
        struct qeng *q = qeng_new("n1:8", qpolicy(kv));
        assert_int_equal(gs_qclass_enabled(q->eng), c[i].on);
    }
}

/* A seeded random grid: one or two nodes, fifo or priority with aging,
 * no / EASY / conservative backfill, strict or borrow quotas; jobs of
 * 1-8 GPUs (some fractional, some of a GPU type: not plain, they keep the
 * pass from stopping while they wait), random teams and limits; submits,
 * finishes and passes at random times.  Both engines compared after every
 * step; over the grid some passes must have stopped. */
static int64_t fol_walked, fol_ends, fol_rsv, fol_settled, fol_index, fol_coded; /* over random_grid_of(.., 1) */

/* The seeded random grid: 24 engines from seed `from`, estimates `est`;
 * with `fol` no quota, backfill always and the unbounded pass (the
 * policies where passes leave followers, queue.c).  Returns the passes
 * that stopped early (with `fol`: that ended where every job left follows
 * its class, plus jobs walked over), asserting after every step that the
 * engine with the stop and the exhaustive one agree. */
static int64_t random_grid_of(int from, const char *est, int fol)
{
    static const char *const orders[] = { "fifo", "priority" };
    static const char *const bfs[] = { "false", "easy", "conservative" };
    static const char *const modes[] = { "strict", "borrow" };
    int64_t stops = 0;
    for (int seed = from; seed < from + 24; seed++) {
        struct gs_rng r;
        gs_rng_seed(&r, (uint64_t)seed);
        const char *bf = fol ? bfs[1 + seed % 2] : bfs[seed % 3];
        const char *ord = seed % 3 == 0 ? "fifo" : orders[(seed / 3) % 2];
        const char *kv[] = { "queue.policy", ord, "queue.backfill", bf,
                             "queue.aging_rate", "2", "queue.max_wait_before_aging", "5m",
                             "queue.reservations", "2", "queue.duration_estimate", est,
                             "queue.max_job_test", fol || seed % 4 ? "0" : "3",
                             fol ? NULL : "queue.quota.team-a", "6",
                             "queue.quota.team-b", "4", "queue.quota_mode", modes[seed % 2],
                             NULL };
        struct twin t;
        twin_init(&t, seed % 2 ? "n1:8 n2:8:[4,4]" : "n1:8", kv);
        static char ids[24][64][16];
        int running[64], nrun = 0;
        gs_time now = 0;
        for (int k = 0; k < 64; k++) {
            now += SEC(1 + gs_rng_below(&r, 600));
            int op = (int)gs_rng_below(&r, 4);
            if (op == 0 && nrun > 0) {
                int i = (int)gs_rng_below(&r, (uint64_t)nrun);
                if (qstate(t.e[0], running[i]) == GS_JOB_RUNNING)
                    twin_finish(&t, now, running[i]);
                running[i] = running[--nrun];
            } else if (op <= 2) {
                snprintf(ids[seed - from][k], sizeof ids[0][0], "j%d", k);
                static const char *const teams[] = { "team-a", "team-b", "team-c" };
                struct qjob j = { .id = ids[seed - from][k], .submit_s = (double)now / 1000,
                                  .gpus = 1 << gs_rng_below(&r, 4),
                                  .tl_s = (double)(600 * (1 + gs_rng_below(&r, 12))),
                                  .prio = (int)gs_rng_below(&r, 4),
                                  .team = teams[gs_rng_below(&r, 3)] };
                if (gs_rng_below(&r, 10) == 0) {
                    j.gpus = 1;
                    j.milli = 500;
                }
                twin_submit(&t, now, &j);
            }
            twin_step(&t, now);
            for (int h = 0; h < t.n && nrun < 64; h++) {
                int seen = 0;
                for (int i = 0; i < nrun; i++)
                    seen |= running[i] == h;
                if (!seen && qstate(t.e[0], h) == GS_JOB_RUNNING)
                    running[nrun++] = h;
            }
        }
        stops += stopped_of(&t, 0);
        if (fol) {
            fol_walked += (int64_t)t.e[0]->eng->q->fol_walked;
            fol_ends += (int64_t)t.e[0]->eng->q->fol_ends;
            fol_rsv += (int64_t)t.e[0]->eng->q->fol_rsv;
            fol_settled += (int64_t)t.e[0]->eng->q->fol_settled;
            fol_index += (int64_t)t.e[0]->eng->q->fol_index;
            fol_coded += (int64_t)t.e[0]->eng->q->fol_coded;
            assert_int_equal(t.e[1]->eng->q->fol_walked + t.e[1]->eng->q->fol_ends, 0);
        }
        assert_int_equal(stopped_of(&t, 1), 0);
    }
    return stops;
}

static int64_t random_grid(int from, const char *est)
{
    return random_grid_of(from, est, 0);
}

static void test_random_grid(void **state)
{
    (void)state;
    assert_true(random_grid(1, "user") > 0);
}

/* The same grid with `duration_estimate: from_history` (every end teaches
 * the estimator, so a waiting job's estimate moves): a pass may stop only
 * where no code it leaves reads an estimate (qclass.c, memo_refuses_any);
 * both engines must still agree on every decision and wait split, and
 * some passes must have stopped. */
static void test_random_history(void **state)
{
    (void)state;
    assert_true(random_grid(101, "from_history") > 0);
}

/* Followers (queue.c, diagnose_follow.c): with no quota, backfill and the
 * unbounded pass, a pass leaves untried the plain jobs whose class the
 * memo refuses with `resources` whatever the estimate, and ends where every
 * job left is one; those jobs read their class's wait timeline.  The grid
 * without quotas, under user limits and under history estimates: every
 * decision, state, wait code, coarse reason and wait split equals the
 * exhaustive pass's after every step, and jobs were walked over and passes
 * ended that way (the counts are asserted, so the comparison is not
 * vacuous), among them jobs refused as long (`reservation`: limits of 600
 * to 7,200 s, so estimates fall on both sides of the shadow), classes the
 * estimate index found all long (queue_estidx.h), jobs walked over
 * whose class then changed kind within the pass (settled), and jobs of a
 * class kept on `resources` coded one by one from the skip (coded).  After
 * every step the order's class bytes match its keys (twin_step). */
static void test_random_followers(void **state)
{
    (void)state;
    fol_walked = fol_ends = fol_rsv = fol_settled = fol_index = fol_coded = 0;
    random_grid_of(201, "user", 1);
    assert_true(fol_walked > 0 && fol_ends > 0);
    assert_true(fol_rsv > 0 && fol_settled > 0 && fol_index > 0 && fol_coded > 0);
    fol_walked = fol_ends = fol_rsv = fol_settled = fol_index = fol_coded = 0;
    random_grid_of(301, "from_history", 1);
    assert_true(fol_walked > 0 && fol_ends > 0);
    assert_true(fol_rsv > 0 && fol_settled > 0 && fol_index > 0 && fol_coded > 0);
}

/* One random operation of the spares grid at `now`: a finish, a node
 * going down or coming back, or a submit (ids in `id`, 16 bytes). */
static void spares_op(struct twin *t, struct gs_rng *r, gs_time now, char *id, int k)
{
    int op = (int)gs_rng_below(r, 5);
    if (op == 0) {
        for (int h = 0; h < t->n; h++) /* the oldest running job ends */
            if (qstate(t->e[0], h) == GS_JOB_RUNNING) {
                twin_finish(t, now, h);
                break;
            }
    } else if (op == 1) {
        int node = (int)gs_rng_below(r, 3);
        int up = gs_engine_node_state(t->e[0]->eng, node) == GS_NODE_DOWN;
        twin_node(t, now, node, up ? GS_NODE_UP : GS_NODE_DOWN);
    } else {
        snprintf(id, 16, "j%d", k);
        struct qjob j = { .id = id, .submit_s = (double)now / 1000,
                          .gpus = 1 << gs_rng_below(r, 4),
                          .tl_s = (double)(600 * (1 + gs_rng_below(r, 12))),
                          .prio = (int)gs_rng_below(r, 4) };
        twin_submit(t, now, &j);
    }
}

/* Hot spares under random node failures: three nodes of 8 GPUs, 1 or 2
 * spares for jobs of at least 4 or 8 GPUs, fifo or priority with aging,
 * no / EASY / conservative backfill; submits, finishes, nodes going down
 * (their jobs requeued: spare users) and coming back at random times.
 * Both engines compared after every step; some passes must have stopped. */
static void test_random_spares(void **state)
{
    (void)state;
    static const char *const bfs[] = { "false", "easy", "conservative" };
    int64_t stops = 0;
    for (int seed = 1; seed <= 18; seed++) {
        struct gs_rng r;
        gs_rng_seed(&r, (uint64_t)(1000 + seed));
        const char *kv[] = { "queue.policy", seed % 2 ? "priority" : "fifo",
                             "queue.backfill", bfs[seed % 3], "queue.aging_rate", "2",
                             "queue.max_wait_before_aging", "5m", "queue.reservations", "2",
                             "queue.max_job_test", "0", "spares.nodes", seed % 4 < 2 ? "1" : "2",
                             "spares.min_gpus", seed % 5 < 3 ? "4" : "8", NULL };
        struct twin t;
        twin_init(&t, "n1:8 n2:8 n3:8", kv);
        static char ids[18][64][16];
        gs_time now = 0;
        for (int k = 0; k < 64; k++) {
            now += SEC(1 + gs_rng_below(&r, 600));
            spares_op(&t, &r, now, ids[seed - 1][k], k);
            twin_step(&t, now);
        }
        stops += stopped_of(&t, 0);
        assert_int_equal(stopped_of(&t, 1), 0);
    }
    assert_true(stops > 0);
}

/* The estimate index (queue_estidx.h) against brute force: on history
 * estimates, with jobs of four users, two names and three teams (so a
 * class holds several groups) and limits of 10-120 min, after every step
 * the smallest estimate the index gives for each plain class equals the
 * smallest gs_eng_estimate over the class's pending jobs, read one by one.
 * Asserted not vacuous: some answers read the history (an estimate below
 * its job's limit) and some classes had pending jobs. */
static void test_estidx_min(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", "queue.backfill", "easy",
                         "queue.duration_estimate", "from_history", "queue.max_job_test", "0",
                         NULL };
    struct qeng *e = qeng_new("n1:8 n2:8", qpolicy(kv));
    struct gs_rng r;
    gs_rng_seed(&r, 77);
    static char ids[160][16];
    static const char *const users[] = { "u0", "u1", "u2", "u3" }, *const names[] = { "a", "b" };
    static const char *const teams[] = { "team-a", "team-b", "team-c" };
    int n = 0, answered = 0, learned = 0;
    gs_time now = 0;
    for (int k = 0; k < 160; k++) {
        now += SEC(1 + gs_rng_below(&r, 300));
        if (gs_rng_below(&r, 3) == 0) {
            for (int h = 0; h < n; h++) /* the oldest running job ends */
                if (qstate(e, h) == GS_JOB_RUNNING) {
                    qfinish(e, now, h);
                    break;
                }
        } else {
            snprintf(ids[k], sizeof ids[k], "j%d", k);
            struct qjob j = { .id = ids[k], .submit_s = (double)now / 1000,
                              .gpus = 1 << gs_rng_below(&r, 4),
                              .tl_s = (double)(600 * (1 + gs_rng_below(&r, 12))),
                              .prio = (int)gs_rng_below(&r, 4),
                              .team = teams[gs_rng_below(&r, 3)],
                              .user = users[gs_rng_below(&r, 4)],
                              .name = names[gs_rng_below(&r, 2)] };
            n = qsubmit(e, now, &j) + 1;
        }
        qstep(e, now);
        struct gs_engine *eng = e->eng;
        for (int g = 1; g <= 8; g *= 2) {
            gs_time want = GS_TIME_INF, got;
            for (size_t s = 0; s < eng->njobs; s++) {
                const struct job *j = &eng->jobs[s];
                if (gs_eng_slot_free(eng, (int)s) || j->state != GS_JOB_PENDING ||
                    gs_qclass_of(eng, j) != g)
                    continue;
                gs_time est = gs_eng_estimate(eng, (int)s);
                est = est == GS_TIME_NONE ? GS_TIME_INF : est;
                learned += est < j->time_limit;
                if (est < want)
                    want = est;
            }
            if (n == 0)
                continue; /* nothing filed yet: the index answers unknown */
            assert_int_equal(gs_qest_min(eng->q->est, eng, g, &got), 1);
            assert_int_equal(got, want);
            answered += want != GS_TIME_INF;
        }
    }
    assert_true(answered > 50 && learned > 0);
}

/* The memo's prefix read by the followed kind of every class
 * (gs_qfol_prefix, one scan for all GPU counts) against the rule read per
 * class, as the walk read it before (a loop of the test's own over counts
 * 1..g that stops at the first that does not fit): random memos with misfits
 * (fail_live 0), `reservation` entries (finite fail_view) before and past
 * them, on counts up to 64.  Fails if the scan goes on past the first
 * misfit (an entry past it read), or stops one count early or late. */
static void test_follow_prefix(void **state)
{
    (void)state;
    static struct pass ps; /* only the memo is read */
    struct gs_qfol_pre p;
    struct gs_rng r;
    gs_rng_seed(&r, 2323);
    int past = 0; /* memos with an entry shorter than d past the first misfit */
    for (int trial = 0; trial < 2000; trial++) {
        for (int k = 0; k <= MEMO_MAX_GPUS; k++) {
            uint64_t u = gs_rng_below(&r, 24);
            ps.fail_live[0][k] = u == 0 ? 0 : GS_TIME_INF;
            ps.fail_view[0][k] = u < 8 ? (gs_time)(1 + gs_rng_below(&r, 1000)) : GS_TIME_INF;
        }
        gs_qfol_prefix(&ps, &p);
        gs_time dmin_all = GS_TIME_INF;
        for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++) {
            gs_time d = GS_TIME_INF;
            int misfit = 0;
            for (int k = 1; k <= g && !misfit; k++) {
                misfit = ps.fail_live[0][k] == 0;
                if (!misfit && ps.fail_view[0][k] < d)
                    d = ps.fail_view[0][k];
            }
            assert_int_equal(p.misfit[g], misfit);
            assert_int_equal(p.d[g], d);
            if (ps.fail_live[0][g] != 0 && ps.fail_view[0][g] < dmin_all)
                dmin_all = ps.fail_view[0][g];
            past += g == GS_QCLASS_MAX_GPUS && dmin_all < d;
        }
    }
    assert_true(past > 100); /* the entries past a misfit were there to be misread */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_team_quota_class),
        QTEST(test_backfill_sides),
        QTEST(test_hot_spares),
        QTEST(test_coverage_bounded),
        QTEST(test_random_grid),
        QTEST(test_moving_estimates),
        QTEST(test_random_history),
        QTEST(test_random_followers),
        QTEST(test_estidx_min),
        QTEST(test_random_spares),
        QTEST(test_follow_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

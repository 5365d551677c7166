/* test_queue.c - issue 3's queue order rules, derived by hand from the
 * header comment of src/core/queue/queue.c (the spec):
 *
 *   fifo: submission order.  priority / priority_with_backfill: effective
 *   priority, highest first, where
 *     effective = priority + aging_rate * max(0, wait - max_wait_before_aging) / 1h
 *   ties by submit time, then submission order.  Jobs start in order while
 *   they fit; the first that does not fit blocks the rest unless backfill is
 *   on.  A job held back by its team's quota never blocks others.
 *
 * plus the policy keys (policy.h): aging_rate in points per hour (default
 * 1.0), max_wait_before_aging (default 30m), pass_interval (priority
 * policies run a pass at least this often while jobs wait, default 60s),
 * quota / quota_mode strict | borrow.
 *
 * The simulator (sim.h) applies finishes, then submissions, then one pass
 * per instant, and passes again at the engine's wakeups, so passes happen at
 * events and pass_interval after the latest pass.  Placement is pack: on one
 * [8] node a g-GPU job takes the g lowest idle GPUs (test_place.c).  Times in
 * comments: h = hours, m = minutes from the start of the trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qtestutil.h"
#include "core/engine/engine_private.h" /* white box: the wait reason of a pending job */
#include "core/queue/queue_private.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

static int reason_of(const struct qeng *q, int job)
{
    return gs_queue_job(q->eng, job)->reason;
}

/* ---- order ------------------------------------------------------------------ */

/* Ties: equal priority goes by submit time, then by submission order - and
 * submit time, not arrival, decides (a job may be submitted late with an
 * earlier submit time).  fifo ignores priorities and uses submission order
 * alone.
 *
 * One 1-GPU node, so jobs start one at a time.  blk holds the GPU from 0;
 * then, all pending, in submission order (handle: id prio submit):
 *   1:a 1 1s   2:b 3 1s   3:e 3 1s   (submitted at 1s)
 *   4:c 3 2s   5:d 1 2s   6:f 3 0.5s (submitted at 2s; f back-dated)
 * priority: prio 3 first - f (0.5s), b (1s, h2), e (1s, h3), c (2s) - then
 *   prio 1: a (1s), d (2s)                       => f b e c a d
 * fifo: handle order                              => a b e c d f
 * Aging is off (aging_rate 0) so waiting does not reorder anything. */
static void test_order_ties(void **state)
{
    (void)state;
    static const struct {
        const char *policy;
        const char *expect[6];
    } rows[] = {
        { "priority", { "f", "b", "e", "c", "a", "d" } },
        { "priority_with_backfill", { "f", "b", "e", "c", "a", "d" } },
        { "fifo", { "a", "b", "e", "c", "d", "f" } },
    };
    static const struct qjob jobs[] = {
        { .id = "blk", .submit_s = 0, .gpus = 1 },
        { .id = "a", .submit_s = 1, .gpus = 1, .prio = 1 },
        { .id = "b", .submit_s = 1, .gpus = 1, .prio = 3 },
        { .id = "e", .submit_s = 1, .gpus = 1, .prio = 3 },
        { .id = "c", .submit_s = 2, .gpus = 1, .prio = 3 },
        { .id = "d", .submit_s = 2, .gpus = 1, .prio = 1 },
        { .id = "f", .submit_s = 0.5, .gpus = 1, .prio = 3 },
    };
    static const double arrive_s[] = { 0, 1, 1, 1, 2, 2, 2 };
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", rows[r].policy, "queue.aging_rate", "0", NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qeng *q = qeng_new("n1:1", pol);
        for (size_t i = 0; i < NROWS(jobs); i++) {
            gs_time now = gs_time_from_sec(arrive_s[i]);
            assert_int_equal(qsubmit(q, now, &jobs[i]), (int)i);
            qstep(q, now);
        }
        assert_int_equal(qstate(q, 0), GS_JOB_RUNNING);
        /* each finish at 10s, 11s, ... frees the GPU for the next in order */
        int running = 0;
        for (int k = 0; k < 6; k++) {
            gs_time t = SEC(10 + k);
            qfinish(q, t, running);
            assert_int_equal(qstep(q, t), 1);
            int i = q->log.n - 1;
            assert_int_equal(q->log.ev[i].kind, GS_EV_START);
            running = q->log.ev[i].job;
            struct gs_job_info ji;
            assert_int_equal(gs_engine_job_info(q->eng, running, &ji), 0);
            if (strcmp(ji.id, rows[r].expect[k]) != 0)
                fail_msg("%s: start #%d is %s, want %s", rows[r].policy, k + 1, ji.id,
                         rows[r].expect[k]);
        }
    }
}

/* fifo vs priority vs aging on the same three jobs.  One [8] node; run (8
 * GPUs) holds it 0-2h; old (8 GPUs, prio 0) arrives at 1m, hi (8 GPUs, prio
 * 5) at 2m, each runs 1h.  At 2h (the first pass with the node free):
 *   old = rate * (119m - mwba) / 60m,  hi = 5 + rate * (118m - mwba) / 60m
 * so old overtakes exactly when rate * 1m / 60m > 5, i.e. rate > 300, as
 * long as both are past max_wait_before_aging (mwba).  The first row starts
 * at 2h, the second at 3h (when the first ends). */
static void test_order_fifo_priority_aging(void **state)
{
    (void)state;
    static const struct {
        const char *policy, *rate, *mwba;
        const char *first, *second;
    } rows[] = {
        /* fifo: submission order whatever the priorities and aging */
        { "fifo", "600", "0", "old", "hi" },
        { "fifo", "0", "0", "old", "hi" },
        /* plain priority: hi (5) before old (0) */
        { "priority", "0", "30m", "hi", "old" },
        /* rate 600, mwba 0: old 600*119/60 = 1190 > hi 5 + 600*118/60 = 1185 */
        { "priority", "600", "0", "old", "hi" },
        /* rate 360: old 714 > hi 5 + 708 = 713 */
        { "priority", "360", "0", "old", "hi" },
        /* rate 240: old 476 < hi 5 + 472 = 477 */
        { "priority", "240", "0", "hi", "old" },
        /* mwba 119m: old's extra wait is 0 at 2h, hi's is negative: 0 < 5 */
        { "priority", "600", "119m", "hi", "old" },
        /* same rules with backfill on (nothing can backfill: 8-GPU jobs) */
        { "priority_with_backfill", "600", "30m", "old", "hi" },
    };
    static const struct qjob jobs[] = {
        { .id = "run", .submit_s = 0, .gpus = 8, .dur_s = 7200 },
        { .id = "old", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 0 },
        { .id = "hi", .submit_s = 120, .gpus = 8, .dur_s = 3600, .prio = 5 },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", rows[r].policy, "queue.aging_rate", rows[r].rate,
                             "queue.max_wait_before_aging", rows[r].mwba, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct gs_sim_result *res = qsim(cl, pol, tr, NULL);
        qassert_start(res->engine, "run", 0);
        qassert_start(res->engine, rows[r].first, HRS(2));
        qassert_start(res->engine, rows[r].second, HRS(3));
    }
}

/* Head of line: the first job that does not fit blocks the jobs behind it
 * - while it is there.  fifo, one [8] node: A (4 GPUs) starts on 0-3; B (8
 * GPUs) does not fit and blocks C (2 GPUs), which would fit.  At 10s B is
 * cancelled: C is now first in line and starts in the pass at 10s on GPUs
 * 4-5, although no GPU was released. */
static void test_head_cancelled_unblocks(void **state)
{
    (void)state;
    static const char *const policies[] = { "fifo", "priority" };
    for (size_t r = 0; r < NROWS(policies); r++) {
        const char *kv[] = { "queue.policy", policies[r], "queue.backfill", "false", NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qeng *q = qeng_new("n1:8", pol);
        static const struct qjob a = { .id = "A", .gpus = 4 }, b = { .id = "B", .gpus = 8 },
                                 c = { .id = "C", .gpus = 2 };
        qsubmit(q, 0, &a);
        int hb = qsubmit(q, 0, &b);
        int hc = qsubmit(q, 0, &c);
        assert_int_equal(qstep(q, 0), 1);
        assert_int_equal(qstate(q, hc), GS_JOB_PENDING);
        assert_int_equal(reason_of(q, hc), GS_WAIT_PRIORITY);
        struct gs_error err = { 0 };
        assert_int_equal(gs_engine_cancel(q->eng, SEC(10), hb, &err), 0);
        if (qstep(q, SEC(10)) != 1)
            fail_msg("%s: C did not start when the blocking head was cancelled", policies[r]);
        int i = qlog_find(&q->log, 0, GS_EV_START, hc);
        assert_true(i >= 0);
        assert_int_equal(q->log.ev[i].time, SEC(10));
        qassert_on(q->cl, &q->log.ev[i], "n1", 0x30);
    }
}

/* A pass without backfill may be skipped when nothing can change
 * (queue.c); under priority without aging an arrival that ranks above the
 * blocked head must still get its pass.  One [8] node, priority, aging 0:
 *   run 4 GPUs  0-100s (GPUs 0-3)
 *   H   8 GPUs prio 1, at 1s: does not fit, blocks the queue
 *   L   1 GPU  prio 0, at 2s: behind H, waits (it would fit)
 *   X   1 GPU  prio 5, at 3s: ranks above H and fits: starts at 3s, 3-53s
 *   E   1 GPU  prio 1, at 4s: ties H, submitted later: behind H, waits
 * At 53s X ends (4 GPUs idle, H still does not fit); at 100s run ends and H
 * starts, 100-200s; at 200s E (prio 1) and L (prio 0) start. */
static void test_arrival_above_blocked_head(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "run", .submit_s = 0, .gpus = 4, .dur_s = 100 },
        { .id = "H", .submit_s = 1, .gpus = 8, .dur_s = 100, .prio = 1 },
        { .id = "L", .submit_s = 2, .gpus = 1, .dur_s = 10, .prio = 0 },
        { .id = "X", .submit_s = 3, .gpus = 1, .dur_s = 50, .prio = 5 },
        { .id = "E", .submit_s = 4, .gpus = 1, .dur_s = 10, .prio = 1 },
    };
    const char *kv[] = { "queue.policy", "priority", "queue.aging_rate", "0", NULL };
    struct gs_cluster *cl = qcluster("n1:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    struct gs_sim_result *res = qsim(cl, qpolicy(kv), tr, NULL);
    qassert_start(res->engine, "run", 0);
    qassert_start(res->engine, "X", SEC(3));
    qassert_start(res->engine, "H", SEC(100));
    qassert_start(res->engine, "E", SEC(200));
    qassert_start(res->engine, "L", SEC(200));
}

/* ---- aging -------------------------------------------------------------------- */

/* The exact pass at which an aged job overtakes.  One [8] node, priority,
 * max_wait_before_aging 30m:
 *   L1 4 GPUs prio 20, 0-10h (GPUs 0-3)    L2 4 GPUs prio 20, 0-1h (GPUs 4-7)
 *   A  4 GPUs prio 0, submitted 0, runs 1h H  8 GPUs prio 10, submitted 1h, 1h
 * At 0, L1 and L2 start and A waits.  At 1h L2 ends and H arrives: A's
 * effective priority is rate*(60m-30m)/60m, H's is 10 (no wait yet), so
 * with rate 12: A = 6 < 10, H ranks first, does not fit (4 GPUs idle) and,
 * without backfill, holds A back although A fits.
 * From then on A = 12*(t-30m)/60m while H stays 10 until 1h30m; A reaches
 * 10 at t = 1h20m exactly (12*50/60) and wins the tie on its earlier submit
 * time.  A starts at the first pass at or after 1h20m on GPUs 4-7; passes
 * after 1h come every pass_interval (no events until 10h):
 *   60s -> 1h20m     7m -> 1h07, 1h14, 1h21 -> 1h21m (A = 10.2)
 *   30m -> 1h30m (A = 12, H = 10 + 0)
 * Without aging (rate 0) A waits behind H: H starts when L1 ends (10h), A
 * when H ends (11h).  H starts at 10h in every row. */
static void test_aging_overtakes_at_pass(void **state)
{
    (void)state;
    static const struct {
        const char *rate, *interval;
        gs_time a_start;
    } rows[] = {
        { "12", "60s", HRS(1) + MINS(20) },
        { "12", "7m", HRS(1) + MINS(21) },
        { "12", "30m", HRS(1) + MINS(30) },
        { "0", "60s", HRS(11) },
    };
    static const struct qjob jobs[] = {
        { .id = "L1", .submit_s = 0, .gpus = 4, .dur_s = 36000, .prio = 20 },
        { .id = "L2", .submit_s = 0, .gpus = 4, .dur_s = 3600, .prio = 20 },
        { .id = "A", .submit_s = 0, .gpus = 4, .dur_s = 3600, .prio = 0 },
        { .id = "H", .submit_s = 3600, .gpus = 8, .dur_s = 3600, .prio = 10 },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "priority", "queue.aging_rate", rows[r].rate,
                             "queue.max_wait_before_aging", "30m", "queue.pass_interval",
                             rows[r].interval, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        qassert_start(res->engine, "A", rows[r].a_start);
        qassert_start(res->engine, "H", HRS(10));
        if (rows[r].a_start < HRS(10))
            qassert_on(cl, qstart_ev(log, res->engine, "A"), "n1", 0xF0);
    }
}

/* A low-priority 8-GPU job starves under plain priority and starts under
 * aging.  One [8] node, priority, no backfill.  big: 8 GPUs, prio 0,
 * submitted 0, runs 1h.  A stream of 4-GPU prio-10 jobs running 2h each,
 * submitted as the previous one in their lane ends, so two lanes keep the
 * node busy: a0 0h, b0 1h, a1 2h, b1 3h, a2 4h, b2 5h, a3 6h, b3 7h.
 *
 * Plain priority (aging_rate 0): each stream job ranks above big at its
 * submission and takes the 4 GPUs its predecessor just left; the node is
 * never empty until the stream ends: a3 ends 8h, b3 ends 9h -> big 9h.
 *
 * Aging (rate 6/h, max_wait_before_aging 30m): big = 6*(t-30m)/60m, a new
 * stream job 10 (no wait).  At 2h big = 9 < 10: a1 starts.  big passes 10 at
 * 2h10m, but no stream job is waiting until 3h, when big = 15 > 10: big
 * ranks first, does not fit (a1 holds GPUs 0-3 until 4h) and holds b1 back.
 * At 4h a1 ends, the node is empty: big starts at 4h (first pass after it
 * overtakes and the node drains), ends 5h.  At 5h, waiting: b1 (since 3h:
 * 10 + 6*1.5 = 19), a2 (since 4h: 10 + 6*0.5 = 13), b2 (new: 10) -> b1 on
 * 0-3, a2 on 4-7.  At 7h b1 and a2 end; b2 (19), a3 (13), b3 (10) -> b2 and
 * a3 start.  At 9h b3 starts. */
static void test_aging_prevents_starvation(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "big", .submit_s = 0, .gpus = 8, .dur_s = 3600, .prio = 0 },
        { .id = "a0", .submit_s = 0, .gpus = 4, .dur_s = 7200, .prio = 10 },
        { .id = "b0", .submit_s = 3600, .gpus = 4, .dur_s = 7200, .prio = 10 },
        { .id = "a1", .submit_s = 7200, .gpus = 4, .dur_s = 7200, .prio = 10 },
        { .id = "b1", .submit_s = 10800, .gpus = 4, .dur_s = 7200, .prio = 10 },
        { .id = "a2", .submit_s = 14400, .gpus = 4, .dur_s = 7200, .prio = 10 },
        { .id = "b2", .submit_s = 18000, .gpus = 4, .dur_s = 7200, .prio = 10 },
        { .id = "a3", .submit_s = 21600, .gpus = 4, .dur_s = 7200, .prio = 10 },
        { .id = "b3", .submit_s = 25200, .gpus = 4, .dur_s = 7200, .prio = 10 },
    };
    static const struct {
        const char *rate;
        gs_time start[9]; /* in jobs[] order */
    } rows[] = {
        /* plain: every stream job at its submission, big after the stream */
        { "0", { HRS(9), 0, HRS(1), HRS(2), HRS(3), HRS(4), HRS(5), HRS(6), HRS(7) } },
        /* aging: big at 4h; b1, a2 at 5h; b2, a3 at 7h; b3 at 9h */
        { "6", { HRS(4), 0, HRS(1), HRS(2), HRS(5), HRS(5), HRS(7), HRS(7), HRS(9) } },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "priority", "queue.aging_rate", rows[r].rate,
                             "queue.max_wait_before_aging", "30m", NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        for (size_t i = 0; i < NROWS(jobs); i++)
            qassert_start(res->engine, jobs[i].id, rows[r].start[i]);
        qassert_on(cl, qstart_ev(log, res->engine, "big"), "n1", 0xFF);
        assert_int_equal(res->summary.completed, 9);
        assert_int_equal(res->summary.unfinished, 0);
        if (r == 1) {
            /* b1 took GPUs 0-3 and a2 GPUs 4-7 at 5h, in that order */
            qassert_on(cl, qstart_ev(log, res->engine, "b1"), "n1", 0x0F);
            qassert_on(cl, qstart_ev(log, res->engine, "a2"), "n1", 0xF0);
        }
    }
}

/* pass_interval: priority policies with aging run a pass on the grid now +
 * k x pass_interval while jobs wait (policy.h), at the first point at or
 * after the earliest time a pass could decide otherwise (engine.c
 * aging_tick; test_aging_wakeup.c has the detail); with queue.aging_wakeup:
 * tick, at every point (now + pass_interval).  fifo passes only at events;
 * with nothing waiting, or without aging, no pass is needed.  One [8]
 * node: `run` (8 GPUs, no time limit) starts at 0; `wait` (8 GPUs,
 * submitted at 0, queued at 100s) cannot start.  No runtime cap, so no
 * other wakeup.  The only change ahead is `wait`'s aging, from 0 + 30m +
 * 1 ms = 1800.001 s (max_wait_before_aging's default 30m): from 100 s the
 * 60 s grid reaches it at 100 + 29 x 60 = 1840 s, the 5 min grid at 100 +
 * 6 x 300 = 1900 s (backfill: `run` has no estimate, so no reservation or
 * free time comes sooner). */
static void test_pass_interval_wakeup(void **state)
{
    (void)state;
    static const struct {
        const char *policy, *rate, *interval, *wakeup;
        int waiting;
        gs_time want; /* after `now` = 100s */
    } rows[] = {
        { "priority", "1", "60s", "changes", 1, SEC(1840) },
        { "priority_with_backfill", "1", "5m", "changes", 1, SEC(1900) },
        { "priority", "1", "60s", "tick", 1, SEC(160) },
        { "priority_with_backfill", "1", "5m", "tick", 1, SEC(400) },
        { "priority", "1", "60s", "changes", 0, GS_TIME_INF },
        { "fifo", "1", "60s", "tick", 1, GS_TIME_INF },
        /* pass_interval serves aging (policy.h): with aging_rate 0 priorities
         * do not move between events, so no periodic pass is needed */
        { "priority", "0", "60s", "tick", 1, GS_TIME_INF },
    };
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", rows[r].policy, "queue.aging_rate", rows[r].rate,
                             "queue.pass_interval", rows[r].interval, "queue.aging_wakeup",
                             rows[r].wakeup, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qeng *q = qeng_new("n1:8", pol);
        const struct qjob run = { .id = "run", .gpus = 8 };
        const struct qjob wait = { .id = "wait", .gpus = 8 };
        qsubmit(q, 0, &run);
        qstep(q, 0);
        if (rows[r].waiting)
            qsubmit(q, SEC(100), &wait);
        qstep(q, SEC(100));
        gs_time got = gs_engine_next_wakeup(q->eng, SEC(100));
        if (got != rows[r].want)
            fail_msg("row %zu (%s rate %s every %s, %s): next wakeup %lld, want %lld", r,
                     rows[r].policy, rows[r].rate, rows[r].interval, rows[r].wakeup,
                     (long long)got, (long long)rows[r].want);
    }
}

/* ---- quotas ------------------------------------------------------------------ */

/* Strict quota: a team at its quota waits with reason quota and never
 * blocks the jobs behind it, under fifo (strict head-of-line otherwise) and
 * under priority even when it ranks first.  One [8] node, quota a: 4.
 * At 0, in order: a1 (a, 4 GPUs) -> GPUs 0-3, a = 4; a2 (a, 2 GPUs, prio 9):
 * 4 + 2 > 4 -> waits (quota); c1 (team c, no quota, 2 GPUs) -> GPUs 4-5.
 * At 10s a1 ends: a = 0, a2 starts on the lowest idle GPUs 0-1. */
static void test_quota_strict_does_not_block(void **state)
{
    (void)state;
    static const char *const policies[] = { "fifo", "priority", "priority_with_backfill" };
    for (size_t r = 0; r < NROWS(policies); r++) {
        const char *kv[] = { "queue.policy", policies[r], "queue.quota.a", "4", NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qeng *q = qeng_new("n1:8", pol);
        static const struct qjob a1 = { .id = "a1", .gpus = 4, .team = "a" };
        static const struct qjob a2 = { .id = "a2", .gpus = 2, .team = "a", .prio = 9 };
        static const struct qjob c1 = { .id = "c1", .gpus = 2, .team = "c" };
        int h1 = qsubmit(q, 0, &a1);
        assert_int_equal(qstep(q, 0), 1);
        int h2 = qsubmit(q, SEC(1), &a2);
        int h3 = qsubmit(q, SEC(1), &c1);
        assert_int_equal(qstep(q, SEC(1)), 1);
        assert_int_equal(qstate(q, h2), GS_JOB_PENDING);
        assert_int_equal(reason_of(q, h2), GS_WAIT_QUOTA);
        assert_int_equal(qstate(q, h3), GS_JOB_RUNNING);
        qassert_on(q->cl, &q->log.ev[qlog_find(&q->log, 0, GS_EV_START, h3)], "n1", 0x30);
        qfinish(q, SEC(10), h1);
        assert_int_equal(qstep(q, SEC(10)), 1);
        int i = qlog_find(&q->log, 0, GS_EV_START, h2);
        assert_true(i >= 0);
        assert_int_equal(q->log.ev[i].time, SEC(10));
        qassert_on(q->cl, &q->log.ev[i], "n1", 0x03);
    }
}

/* strict vs borrow on one [4] node, quota a: 2, b: 2, fifo, all submitted
 * at 0 in this order:
 *   a1 (a, 2 GPUs) runs 2h, a2 (a, 2 GPUs) runs 1h, b1 (b, 2 GPUs) runs 1h.
 * strict: a1 on 0-1; a2 waits (a at quota); b1, behind it, is not blocked:
 *   GPUs 2-3 at 0 (ends 1h); a2 when a1 ends at 2h (a's quota is full until
 *   then; b1's end at 1h does not help a).
 * borrow: a2 borrows b's idle quota and starts at 0 on 2-3; b1 is within
 *   its quota but the GPUs are lent: it waits (resources) until the
 *   borrower a2 ends at 1h and takes GPUs 2-3 back. */
static void test_quota_borrow_returns_on_end(void **state)
{
    (void)state;
    static const struct {
        const char *mode;
        gs_time a1, a2, b1;
    } rows[] = {
        { "strict", 0, HRS(2), 0 },
        { "borrow", 0, 0, HRS(1) },
    };
    static const struct qjob jobs[] = {
        { .id = "a1", .submit_s = 0, .gpus = 2, .dur_s = 7200, .team = "a" },
        { .id = "a2", .submit_s = 0, .gpus = 2, .dur_s = 3600, .team = "a" },
        { .id = "b1", .submit_s = 0, .gpus = 2, .dur_s = 3600, .team = "b" },
    };
    struct gs_cluster *cl = qcluster("n1:4");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.quota.a", "2", "queue.quota.b", "2",
                             "queue.quota_mode", rows[r].mode, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        qassert_start(res->engine, "a1", rows[r].a1);
        qassert_start(res->engine, "a2", rows[r].a2);
        qassert_start(res->engine, "b1", rows[r].b1);
        qassert_on(cl, qstart_ev(log, res->engine, "a1"), "n1", 0x03);
        qassert_on(cl, qstart_ev(log, res->engine, "b1"), "n1", 0x0C);
        assert_int_equal(res->summary.completed, 3);
    }
}

/* A quota is idle from the start, whether or not its team has submitted
 * anything yet.  Same cluster and policy as above (borrow), but b1 arrives
 * at 10m: at 0, b's 2 GPUs of quota are idle, so a2 borrows them and
 * starts at 0 on GPUs 2-3; b1 waits until a2 ends at 1h. */
static void test_quota_borrow_from_team_not_seen_yet(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "a1", .submit_s = 0, .gpus = 2, .dur_s = 7200, .team = "a" },
        { .id = "a2", .submit_s = 0, .gpus = 2, .dur_s = 3600, .team = "a" },
        { .id = "b1", .submit_s = 600, .gpus = 2, .dur_s = 3600, .team = "b" },
    };
    const char *kv[] = { "queue.policy", "fifo", "queue.quota.a", "2", "queue.quota.b", "2",
                         "queue.quota_mode", "borrow", NULL };
    struct gs_policy *pol = qpolicy(kv);
    struct gs_cluster *cl = qcluster("n1:4");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    struct gs_sim_result *res = qsim(cl, pol, tr, NULL);
    qassert_start(res->engine, "a1", 0);
    qassert_start(res->engine, "a2", 0);
    qassert_start(res->engine, "b1", HRS(1));
}

/* Borrowing never lends the same idle quota twice: the teams with quotas
 * never hold more than the sum of their quotas through borrowing.  One [8]
 * node, quota a: 2, b: 2, c: 2 (sum 6), borrow, fifo.  a1 (a, 4 GPUs)
 * borrows 2 of the idle 4 (b's and c's): a holds 4.  Then c1 (c, g GPUs):
 *   g = 2: within c's own quota -> starts (a 4 + c 2 = 6)
 *   g = 3: 1 beyond c's quota; idle quota left = 6 - 4 (a) - 2 (c's own) = 0
 *          -> waits (quota), though 4 GPUs are idle
 *   g = 4: 2 beyond -> waits (quota)
 * b1 (b, 2 GPUs) is within b's quota and starts in every row (b's lent
 * quota cannot be reclaimed without preemption). */
static void test_quota_borrow_not_lent_twice(void **state)
{
    (void)state;
    static const struct {
        int c_gpus;
        int c_state;
    } rows[] = {
        { 2, GS_JOB_RUNNING },
        { 3, GS_JOB_PENDING },
        { 4, GS_JOB_PENDING },
    };
    const char *kv[] = { "queue.policy", "fifo", "queue.quota.a", "2", "queue.quota.b", "2",
                         "queue.quota.c", "2", "queue.quota_mode", "borrow", NULL };
    struct gs_policy *pol = qpolicy(kv);
    for (size_t r = 0; r < NROWS(rows); r++) {
        struct qeng *q = qeng_new("n1:8", pol);
        const struct qjob a1 = { .id = "a1", .gpus = 4, .team = "a" };
        const struct qjob c1 = { .id = "c1", .gpus = rows[r].c_gpus, .team = "c" };
        const struct qjob b1 = { .id = "b1", .gpus = 2, .team = "b" };
        int ha = qsubmit(q, 0, &a1);
        int hc = qsubmit(q, 0, &c1);
        int hb = qsubmit(q, 0, &b1);
        qstep(q, 0);
        assert_int_equal(qstate(q, ha), GS_JOB_RUNNING);
        assert_int_equal(qstate(q, hb), GS_JOB_RUNNING);
        if (qstate(q, hc) != rows[r].c_state)
            fail_msg("c1 with %d GPUs: state %d, want %d", rows[r].c_gpus, qstate(q, hc),
                     rows[r].c_state);
        if (rows[r].c_state == GS_JOB_PENDING)
            assert_int_equal(reason_of(q, hc), GS_WAIT_QUOTA);
    }
}

/* ---- determinism ------------------------------------------------------------- */

/* The same trace and policy twice give the identical decision sequence
 * (kind, time, job, GPUs, until, backfilled) and summary.  A pseudo-random
 * 80-job trace on two [8] nodes and one [4,4] node, under each queue policy
 * with history estimates, quotas and a runtime cap. */
static void test_determinism(void **state)
{
    (void)state;
    static const char *const teams[] = { "a", "b", "c" };
    static const char *const users[] = { "u1", "u2" };
    static const char *const names[] = { "train", "eval", "sweep" };
    static const int sizes[] = { 1, 2, 4, 8, 1, 2, 3, 6 };
    struct gs_trace *tr = qgc_keep(gs_trace_create(), qgc_trace);
    struct gs_rng rng;
    gs_rng_seed(&rng, 42);
    char ids[80][16];
    for (int i = 0; i < 80; i++) {
        snprintf(ids[i], sizeof ids[i], "j%d", i);
        struct qjob row = {
            .id = ids[i],
            .submit_s = (double)(i * 300 + (int)gs_rng_below(&rng, 300)),
            .gpus = sizes[gs_rng_below(&rng, 8)],
            .dur_s = (double)(600 + gs_rng_below(&rng, 7200)),
            .prio = (int)gs_rng_below(&rng, 4),
            .tl_s = gs_rng_below(&rng, 3) ? (double)(600 + gs_rng_below(&rng, 9000)) : 0,
            .team = teams[gs_rng_below(&rng, 3)],
            .user = users[gs_rng_below(&rng, 2)],
            .name = names[gs_rng_below(&rng, 3)],
        };
        struct gs_job_spec s = qspec(&row);
        assert_int_equal(gs_trace_add(tr, &s, gs_time_from_sec(row.dur_s)), i);
    }
    static const char *const policies[][2] = {
        { "fifo", "false" },
        { "priority", "false" },
        { "priority_with_backfill", "easy" },
        { "priority_with_backfill", "conservative" },
    };
    struct gs_cluster *cl = qcluster("n1:8 n2:8 n3:8:[4,4]");
    for (size_t p = 0; p < NROWS(policies); p++) {
        const char *kv[] = { "queue.policy", policies[p][0], "queue.backfill", policies[p][1],
                             "queue.duration_estimate", "from_history",
                             "queue.estimate_quantile", "p50", "queue.quota.a", "10",
                             "queue.quota_mode", "borrow", "queue.runtime_cap", "estimate_x3",
                             NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *l1 = qlog_new(), *l2 = qlog_new();
        struct gs_sim_result *r1 = qsim(cl, pol, tr, l1);
        struct gs_sim_result *r2 = qsim(cl, pol, tr, l2);
        assert_true(l1->n >= 160); /* a start and an end per job, at least */
        assert_int_equal(l1->n, l2->n);
        for (int i = 0; i < l1->n; i++) {
            const struct rec_event *a = &l1->ev[i], *b = &l2->ev[i];
            if (a->kind != b->kind || a->time != b->time || a->job != b->job ||
                a->until != b->until || a->backfilled != b->backfilled ||
                a->nparts != b->nparts ||
                memcmp(a->parts, b->parts, (size_t)a->nparts * sizeof a->parts[0]) != 0)
                fail_msg("%s/%s: event %d differs", policies[p][0], policies[p][1], i);
        }
        assert_int_equal(r1->summary.completed, r2->summary.completed);
        assert_int_equal(r1->summary.killed, r2->summary.killed);
        assert_int_equal(r1->summary.backfilled, r2->summary.backfilled);
        assert_true(r1->summary.wait.p90 == r2->summary.wait.p90);
        assert_true(r1->summary.util_alloc == r2->summary.util_alloc);
        assert_int_equal(r1->summary.completed + r1->summary.killed, 80);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_order_ties),
        QTEST(test_order_fifo_priority_aging),
        QTEST(test_head_cancelled_unblocks),
        QTEST(test_arrival_above_blocked_head),
        QTEST(test_aging_overtakes_at_pass),
        QTEST(test_aging_prevents_starvation),
        QTEST(test_pass_interval_wakeup),
        QTEST(test_quota_strict_does_not_block),
        QTEST(test_quota_borrow_returns_on_end),
        QTEST(test_quota_borrow_from_team_not_seen_yet),
        QTEST(test_quota_borrow_not_lent_twice),
        QTEST(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

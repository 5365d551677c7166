/* test_backfill.c - topology-aware backfill (issue 3), derived by hand from
 * the header comment of src/core/queue/queue.c (the spec):
 *
 *   The blocked job gets a reservation: the earliest time and the exact GPUs
 *   (NVLink domain, node) it will get as running jobs end by their
 *   estimates (profile.c).  Behind it, a job may start now only on GPUs that
 *   no reservation holds during [now, now + its estimate) - so it either
 *   ends before the reservation starts or stays off the reserved GPUs.  easy
 *   keeps one reservation; conservative gives one to every blocked job, up
 *   to queue.reservations.  Reservations are recomputed at every pass from
 *   the current estimates, so a backfilled job that overruns its estimate
 *   delays the reserved job until it ends, unless queue.runtime_cap stops
 *   it.
 *
 * and profile.h: a running job that has overrun its estimate is expected to
 * end at any moment, its GPUs free from now + 1 ms; a GPU with an unknown
 * estimate is never free (a job behind an unknown estimate cannot be
 * planned).
 *
 * Placement is pack (test_place.c): a g-GPU job goes to the domain whose
 * idle GPUs fit best (fewest left over in the domain, then on the node),
 * ties to the lower node, and takes the lowest idle GPU indexes there.
 * aging_rate is 0 throughout so passes happen only at events (finishes,
 * submissions, runtime-cap deadlines).  m = minutes, h = hours.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qtestutil.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

/* The first RESERVE event for job `id` at time `t`; fails when absent. */
static const struct rec_event *reserve_ev(const struct qlog *log, const struct gs_engine *eng,
                                          const char *id, gs_time t)
{
    int h = qjob_handle(eng, id);
    for (int i = 0; i < log->n; i++)
        if (log->ev[i].kind == GS_EV_RESERVE && log->ev[i].job == h && log->ev[i].time == t)
            return &log->ev[i];
    fail_msg("no RESERVE event for %s at %lld ms", id, (long long)t);
    return NULL;
}

static void assert_backfilled(const struct qlog *log, const struct gs_engine *eng,
                              const char *id, int want)
{
    const struct rec_event *e = qstart_ev(log, eng, id);
    if (e->backfilled != want)
        fail_msg("%s: backfilled %d, want %d", id, e->backfilled, want);
    assert_int_equal(job_named(eng, id).backfilled, want);
}

/* ---- EASY: the reservation names GPUs ------------------------------------------ */

/* Two [8] nodes, oracle estimates (true durations).
 * At 0: rR (6 GPUs, 1h) -> n1 0-5 (empty nodes tie, n1 first);
 *       rO (4 GPUs, 3h) -> n2 0-3 (n1 has only 2 idle).
 * At 1m: big (8 GPUs, prio 10, 1h), long (2 GPUs, 2h), short (2 GPUs, 30m).
 *   big does not fit (n1 2 idle, n2 4 idle) and is reserved where 8 GPUs
 *   free first: n1 at 1h (rR's end) vs n2 at 3h -> n1 GPUs 0-7 from 1h.
 *   long runs [1m, 2h1m), overlapping the reservation: n1's idle 6-7 are
 *   reserved, so although pack would prefer n1 (exact fit 2 of 2), long
 *   goes to n2's idle 4-7 -> GPUs 4-5.
 *   short runs [1m, 31m), before the reservation starts: it may use the
 *   reserved GPUs; n1 6-7 and n2 6-7 both fit exactly, n1 first -> short
 *   backfills onto the reserved node, GPUs 6-7.
 * At 31m short ends; at 1h rR ends and big starts on n1 0-7 at its
 * reserved time.  Two jobs were backfilled.
 * Same with backfill true, unset (priority_with_backfill defaults to easy)
 * and under fifo + easy (big is submitted first at 1m anyway). */
static void test_easy_reservation_names_gpus(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        { "priority_with_backfill", "easy" },
        { "priority_with_backfill", "true" },
        { "priority_with_backfill", NULL },
        { "fifo", "easy" },
        { "priority", "easy" },
    };
    static const struct qjob jobs[] = {
        { .id = "rR", .submit_s = 0, .gpus = 6, .dur_s = 3600 },
        { .id = "rO", .submit_s = 0, .gpus = 4, .dur_s = 10800 },
        { .id = "big", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 10 },
        { .id = "long", .submit_s = 60, .gpus = 2, .dur_s = 7200 },
        { .id = "short", .submit_s = 60, .gpus = 2, .dur_s = 1800 },
    };
    struct gs_cluster *cl = qcluster("n1:8 n2:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", rows[r][0], "queue.aging_rate", "0",
                             "queue.duration_estimate", "oracle",
                             rows[r][1] ? "queue.backfill" : NULL, rows[r][1], NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        qassert_on(cl, qstart_ev(log, res->engine, "rR"), "n1", 0x3F);
        qassert_on(cl, qstart_ev(log, res->engine, "rO"), "n2", 0x0F);
        const struct rec_event *rv = reserve_ev(log, res->engine, "big", MINS(1));
        qassert_on(cl, rv, "n1", 0xFF);
        assert_int_equal(rv->until, HRS(1));
        assert_int_equal(qlog_count(log, GS_EV_RESERVE, -1, MINS(1)), 1);
        qassert_start(res->engine, "long", MINS(1));
        qassert_on(cl, qstart_ev(log, res->engine, "long"), "n2", 0x30);
        assert_backfilled(log, res->engine, "long", 1);
        qassert_start(res->engine, "short", MINS(1));
        qassert_on(cl, qstart_ev(log, res->engine, "short"), "n1", 0xC0);
        assert_backfilled(log, res->engine, "short", 1);
        qassert_start(res->engine, "big", HRS(1));
        qassert_on(cl, qstart_ev(log, res->engine, "big"), "n1", 0xFF);
        assert_backfilled(log, res->engine, "big", 0);
        assert_int_equal(res->summary.backfilled, 2);
        assert_int_equal(res->summary.completed, 5);
    }
}

/* The reservation names an NVLink domain, not a GPU count.  One [4,4] node,
 * oracle estimates.  At 0: r0 (4 GPUs, 1h) -> domain 0 (GPUs 0-3; both
 * domains fit exactly, the first wins); r1 (2 GPUs, 2h) -> domain 1, GPUs
 * 4-5.  At 1m: H (4 GPUs, prio 10, 1h) must sit in one domain; none has 4
 * idle.  Domain 0 is free at 1h, domain 1 at 2h -> H is reserved GPUs 0-3
 * from 1h.  B (2 GPUs, 3h) runs far past 1h but GPUs 6-7 are outside the
 * reserved domain: it starts at 1m on 6-7.  H starts at 1h on 0-3. */
static void test_easy_reserves_a_domain(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "r0", .submit_s = 0, .gpus = 4, .dur_s = 3600 },
        { .id = "r1", .submit_s = 0, .gpus = 2, .dur_s = 7200 },
        { .id = "H", .submit_s = 60, .gpus = 4, .dur_s = 3600, .prio = 10 },
        { .id = "B", .submit_s = 60, .gpus = 2, .dur_s = 10800 },
    };
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "0",
                         "queue.duration_estimate", "oracle", NULL };
    struct gs_policy *pol = qpolicy(kv);
    struct gs_cluster *cl = qcluster("n1:8:[4,4]");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    struct qlog *log = qlog_new();
    struct gs_sim_result *res = qsim(cl, pol, tr, log);
    qassert_on(cl, qstart_ev(log, res->engine, "r0"), "n1", 0x0F);
    qassert_on(cl, qstart_ev(log, res->engine, "r1"), "n1", 0x30);
    const struct rec_event *rv = reserve_ev(log, res->engine, "H", MINS(1));
    qassert_on(cl, rv, "n1", 0x0F);
    assert_int_equal(rv->until, HRS(1));
    qassert_start(res->engine, "B", MINS(1));
    qassert_on(cl, qstart_ev(log, res->engine, "B"), "n1", 0xC0);
    assert_backfilled(log, res->engine, "B", 1);
    qassert_start(res->engine, "H", HRS(1));
    qassert_on(cl, qstart_ev(log, res->engine, "H"), "n1", 0x0F);
}

/* ---- conservative ------------------------------------------------------------ */

/* A job EASY backfills but conservative refuses because it would delay the
 * second reserved job.  Two [8] nodes, oracle estimates.
 * At 0: rA (5 GPUs, 1h) -> n1 0-4; rB (4 GPUs, 1h30m) -> n2 0-3 (n1 has 3
 *   idle).  Idle: n1 5-7, n2 4-7.
 * At 1m: H1 (8, prio 10, 1h), H2 (8, prio 5, 1h), X (4, prio 0, 1h40m).
 *   H1: n1 frees at 1h, n2 at 1h30m -> reserved n1 0-7 over [1h, 2h).
 * easy (one reservation):
 *   H2 cannot start (8 GPUs) and gets no reservation.  X runs [1m, 1h41m):
 *   n1's idle GPUs are H1's, n2's 4-7 are held by no reservation -> X
 *   starts at 1m on n2 4-7 (backfilled).
 *   1h: rA ends, H1 starts on n1.  H2 is reserved where 8 GPUs free first:
 *   n2 (rB 1h30m, X 1h41m) at 1h41m vs n1 (H1 until 2h) -> H2 starts at
 *   1h41m when X ends: X delayed it by 11m.
 * conservative (N >= 3):
 *   H2 reserved too: n2 frees at 1h30m (rB); n1 only at 2h (after H1's
 *   reservation) -> n2 0-7 over [1h30m, 2h30m).  X's window [1m, 1h41m)
 *   overlaps H1's reservation on n1 and H2's on n2 -> X waits; its own
 *   reservation: n1 at 2h (after H1) vs n2 at 2h30m -> n1 0-3 from 2h.
 *   1h: H1 starts on n1.  1h30m: rB ends, H2 starts on n2 (on time).
 *   2h: H1 ends, X starts on n1 0-3 (not ahead of anyone: not backfilled).
 * conservative, reservations 2: H1 and H2 reserved, X refused, not
 *   reserved; same starts.  reservations 1: as easy. */
static void test_conservative_protects_second_job(void **state)
{
    (void)state;
    static const struct {
        const char *backfill, *nres;
        int reserves_at_1m;
        gs_time h2, x;
        const char *x_node;
        uint64_t x_mask;
        int x_backfilled;
    } rows[] = {
        { "easy", "100", 1, HRS(1) + MINS(41), MINS(1), "n2", 0xF0, 1 },
        { "conservative", "100", 3, HRS(1) + MINS(30), HRS(2), "n1", 0x0F, 0 },
        { "conservative", "2", 2, HRS(1) + MINS(30), HRS(2), "n1", 0x0F, 0 },
        { "conservative", "1", 1, HRS(1) + MINS(41), MINS(1), "n2", 0xF0, 1 },
    };
    static const struct qjob jobs[] = {
        { .id = "rA", .submit_s = 0, .gpus = 5, .dur_s = 3600 },
        { .id = "rB", .submit_s = 0, .gpus = 4, .dur_s = 5400 },
        { .id = "H1", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 10 },
        { .id = "H2", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 5 },
        { .id = "X", .submit_s = 60, .gpus = 4, .dur_s = 6000, .prio = 0 },
    };
    struct gs_cluster *cl = qcluster("n1:8 n2:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "0",
                             "queue.duration_estimate", "oracle", "queue.backfill",
                             rows[r].backfill, "queue.reservations", rows[r].nres, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        qassert_on(cl, qstart_ev(log, res->engine, "rA"), "n1", 0x1F);
        qassert_on(cl, qstart_ev(log, res->engine, "rB"), "n2", 0x0F);
        const struct rec_event *rv = reserve_ev(log, res->engine, "H1", MINS(1));
        qassert_on(cl, rv, "n1", 0xFF);
        assert_int_equal(rv->until, HRS(1));
        int nres = qlog_count(log, GS_EV_RESERVE, -1, MINS(1));
        if (nres != rows[r].reserves_at_1m)
            fail_msg("%s/%s: %d reservations at 1m, want %d", rows[r].backfill, rows[r].nres,
                     nres, rows[r].reserves_at_1m);
        if (rows[r].reserves_at_1m >= 2) {
            rv = reserve_ev(log, res->engine, "H2", MINS(1));
            qassert_on(cl, rv, "n2", 0xFF);
            assert_int_equal(rv->until, HRS(1) + MINS(30));
        }
        if (rows[r].reserves_at_1m >= 3) {
            rv = reserve_ev(log, res->engine, "X", MINS(1));
            qassert_on(cl, rv, "n1", 0x0F);
            assert_int_equal(rv->until, HRS(2));
        }
        qassert_start(res->engine, "H1", HRS(1));
        qassert_on(cl, qstart_ev(log, res->engine, "H1"), "n1", 0xFF);
        qassert_start(res->engine, "H2", rows[r].h2);
        qassert_on(cl, qstart_ev(log, res->engine, "H2"), "n2", 0xFF);
        qassert_start(res->engine, "X", rows[r].x);
        qassert_on(cl, qstart_ev(log, res->engine, "X"), rows[r].x_node, rows[r].x_mask);
        assert_backfilled(log, res->engine, "X", rows[r].x_backfilled);
    }
}

/* ---- overrun ------------------------------------------------------------------ */

/* A backfilled job whose estimate is wrong.  The EASY scenario above with
 * user estimates (time_limit) and short declaring 30m but running 1h20m:
 *   rR 6 GPUs tl 1h (runs 1h), rO 4 GPUs tl 3h (3h), big 8 GPUs prio 10 tl 1h
 *   (1h), long 2 GPUs tl 2h (2h), short 2 GPUs tl 30m (runs 1h20m).
 * At 1m the decisions are as before: big reserved n1 0-7 from 1h, long on
 * n2 4-5, short backfilled onto n1 6-7 (estimated end 31m).
 * No cap: at 1h rR ends; short is still on n1 6-7, past its estimate, so
 *   it "ends at any moment": its GPUs count as free from now + 1 ms.  The
 *   pass at 1h recomputes big's reservation: n1 at 1h + 1 ms (n2 only at 3h).
 *   short ends at 1m + 1h20m = 1h21m; big starts then, on n1 0-7.
 * runtime_cap estimate_x1: short is killed at 1m + 30m = 31m (state killed,
 *   counted in summary.killed); every other job ends exactly at its cap and
 *   finishes first.  big starts at its reserved time, 1h. */
static void test_overrun(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "rR", .submit_s = 0, .gpus = 6, .dur_s = 3600, .tl_s = 3600 },
        { .id = "rO", .submit_s = 0, .gpus = 4, .dur_s = 10800, .tl_s = 10800 },
        { .id = "big", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 10, .tl_s = 3600 },
        { .id = "long", .submit_s = 60, .gpus = 2, .dur_s = 7200, .tl_s = 7200 },
        { .id = "short", .submit_s = 60, .gpus = 2, .dur_s = 4800, .tl_s = 1800 },
    };
    static const struct {
        const char *cap;
        gs_time big_start;
        gs_time reserve_at_1h;   /* RESERVE start reported by the 1h pass, 0 = none */
        int short_state;
        gs_time short_end;
        int killed;
    } rows[] = {
        { "none", HRS(1) + MINS(21), HRS(1) + 1, GS_JOB_DONE, HRS(1) + MINS(21), 0 },
        { "estimate_x1", HRS(1), 0, GS_JOB_KILLED, MINS(31), 1 },
    };
    struct gs_cluster *cl = qcluster("n1:8 n2:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "0",
                             "queue.duration_estimate", "user", "queue.runtime_cap",
                             rows[r].cap, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        const struct rec_event *rv = reserve_ev(log, res->engine, "big", MINS(1));
        qassert_on(cl, rv, "n1", 0xFF);
        assert_int_equal(rv->until, HRS(1));
        qassert_on(cl, qstart_ev(log, res->engine, "short"), "n1", 0xC0);
        qassert_on(cl, qstart_ev(log, res->engine, "long"), "n2", 0x30);
        if (rows[r].reserve_at_1h) {
            rv = reserve_ev(log, res->engine, "big", HRS(1));
            qassert_on(cl, rv, "n1", 0xFF);
            assert_int_equal(rv->until, rows[r].reserve_at_1h);
        }
        qassert_start(res->engine, "big", rows[r].big_start);
        qassert_on(cl, qstart_ev(log, res->engine, "big"), "n1", 0xFF);
        struct gs_job_info sj = job_named(res->engine, "short");
        assert_int_equal(sj.state, rows[r].short_state);
        assert_int_equal(sj.end, rows[r].short_end);
        int hs = qjob_handle(res->engine, "short");
        assert_int_equal(qlog_count(log, GS_EV_KILL, hs, MINS(31)), rows[r].killed);
        assert_int_equal(res->summary.killed, rows[r].killed);
        assert_int_equal(res->summary.completed, 5 - rows[r].killed);
    }
}

/* ---- unknown estimates --------------------------------------------------------- */

/* A job without an estimate (user estimates, no time_limit) counts as
 * running forever: it may backfill only onto GPUs no reservation ever
 * holds.  The EASY scenario's decisions at 1m with `short` declaring 30m or
 * nothing (it runs 30m either way):
 *   tl 30m: ends before big's reservation -> n1 6-7 (the exact fit)
 *   none:   overlaps every reservation -> off n1, onto n2 6-7 (long took
 *           n2 4-5 first) */
static void test_unknown_estimate_stays_off_reservations(void **state)
{
    (void)state;
    static const struct {
        double tl_s;
        const char *node;
        uint64_t mask;
    } rows[] = {
        { 1800, "n1", 0xC0 },
        { 0, "n2", 0xC0 },
    };
    struct gs_cluster *cl = qcluster("n1:8 n2:8");
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "0",
                         "queue.duration_estimate", "user", NULL };
    struct gs_policy *pol = qpolicy(kv);
    for (size_t r = 0; r < NROWS(rows); r++) {
        const struct qjob jobs[] = {
            { .id = "rR", .submit_s = 0, .gpus = 6, .dur_s = 3600, .tl_s = 3600 },
            { .id = "rO", .submit_s = 0, .gpus = 4, .dur_s = 10800, .tl_s = 10800 },
            { .id = "big", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 10, .tl_s = 3600 },
            { .id = "long", .submit_s = 60, .gpus = 2, .dur_s = 7200, .tl_s = 7200 },
            { .id = "short", .submit_s = 60, .gpus = 2, .dur_s = 1800, .tl_s = rows[r].tl_s },
        };
        struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        qassert_start(res->engine, "short", MINS(1));
        qassert_on(cl, qstart_ev(log, res->engine, "short"), rows[r].node, rows[r].mask);
        qassert_start(res->engine, "big", HRS(1));
    }
}

/* A blocked job behind a running job of unknown length cannot be planned
 * (profile.h: GS_ENOSPC), and then nothing may backfill past it (queue.c
 * plan(): backfilling could starve it).  One [8] node, user estimates.
 * r (4 GPUs, no time_limit) runs 0-1h; at 1m H (8 GPUs, prio 10, tl 1h)
 * and S (2 GPUs, tl 10m) arrive.  H cannot be planned; S fits GPUs 4-5 but
 * waits.  1h: r ends, H starts (0-7), runs 1h.  2h: S starts on 0-1.
 * With r declaring tl 1h instead, H is reserved 0-7 from 1h and S (ending
 * 11m) backfills at 1m onto GPUs 4-5. */
static void test_unplannable_head_blocks_backfill(void **state)
{
    (void)state;
    static const struct {
        double r_tl_s;
        gs_time s_start;
        uint64_t s_mask;
    } rows[] = {
        { 0, HRS(2), 0x03 },
        { 3600, MINS(1), 0x30 },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "0",
                         "queue.duration_estimate", "user", NULL };
    struct gs_policy *pol = qpolicy(kv);
    for (size_t r = 0; r < NROWS(rows); r++) {
        const struct qjob jobs[] = {
            { .id = "r", .submit_s = 0, .gpus = 4, .dur_s = 3600, .tl_s = rows[r].r_tl_s },
            { .id = "H", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 10, .tl_s = 3600 },
            { .id = "S", .submit_s = 60, .gpus = 2, .dur_s = 600, .tl_s = 600 },
        };
        struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        qassert_start(res->engine, "H", HRS(1));
        qassert_start(res->engine, "S", rows[r].s_start);
        qassert_on(cl, qstart_ev(log, res->engine, "S"), "n1", rows[r].s_mask);
        assert_int_equal(qlog_count(log, GS_EV_RESERVE, qjob_handle(res->engine, "H"), MINS(1)),
                         rows[r].r_tl_s > 0 ? 1 : 0);
    }
}

/* Shared (fractional) jobs follow the same rule: GPUs no reservation holds
 * during [now, now + estimate).  The EASY scenario without `long` and
 * `short`: rR on n1 0-5 until 1h, rO on n2 0-3 until 3h, big reserved n1 0-7
 * from 1h.  At 1m S (half a GPU, oracle estimate = its run time) arrives.
 * Pack puts a share on the idle GPU of the node with fewest idle GPUs: n1
 * GPU 6 (n1 has 2 idle, n2 4).
 *   S runs 10m: ends before the reservation -> n1 GPU 6 is allowed
 *   S runs 2h: overlaps it -> off n1, onto n2's lowest idle GPU, 4 */
static void test_shared_job_backfill(void **state)
{
    (void)state;
    static const struct {
        double dur_s;
        const char *node;
        uint64_t mask;
    } rows[] = {
        { 600, "n1", 0x40 },
        { 7200, "n2", 0x10 },
    };
    struct gs_cluster *cl = qcluster("n1:8 n2:8");
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.aging_rate", "0",
                         "queue.duration_estimate", "oracle", NULL };
    struct gs_policy *pol = qpolicy(kv);
    for (size_t r = 0; r < NROWS(rows); r++) {
        const struct qjob jobs[] = {
            { .id = "rR", .submit_s = 0, .gpus = 6, .dur_s = 3600 },
            { .id = "rO", .submit_s = 0, .gpus = 4, .dur_s = 10800 },
            { .id = "big", .submit_s = 60, .gpus = 8, .dur_s = 3600, .prio = 10 },
            { .id = "S", .submit_s = 60, .gpus = 1, .milli = 500, .dur_s = rows[r].dur_s },
        };
        struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        qassert_start(res->engine, "big", HRS(1));
        if (qstart_of(res->engine, "S") != MINS(1))
            fail_msg("S (%g s): started at %lld ms, want 60000 ms on %s %#llx", rows[r].dur_s,
                     (long long)qstart_of(res->engine, "S"), rows[r].node,
                     (unsigned long long)rows[r].mask);
        qassert_on(cl, qstart_ev(log, res->engine, "S"), rows[r].node, rows[r].mask);
        assert_backfilled(log, res->engine, "S", 1);
    }
}

/* ---- configuration ------------------------------------------------------------ */

/* backfill resolution (policy.h): unset = easy for priority_with_backfill,
 * none otherwise; true = easy; false with priority_with_backfill is an
 * error (GS_EINVAL at engine creation). */
static void test_backfill_modes(void **state)
{
    (void)state;
    static const struct {
        const char *policy, *backfill; /* NULL = unset */
        int mode;                      /* resolved, or the creation error */
        int create_rc;
    } rows[] = {
        { "fifo", NULL, GS_BACKFILL_NONE, 0 },
        { "priority", NULL, GS_BACKFILL_NONE, 0 },
        { "priority_with_backfill", NULL, GS_BACKFILL_EASY, 0 },
        { "priority_with_backfill", "true", GS_BACKFILL_EASY, 0 },
        { "priority_with_backfill", "easy", GS_BACKFILL_EASY, 0 },
        { "priority_with_backfill", "conservative", GS_BACKFILL_CONSERVATIVE, 0 },
        { "fifo", "easy", GS_BACKFILL_EASY, 0 },
        { "priority", "conservative", GS_BACKFILL_CONSERVATIVE, 0 },
        { "fifo", "false", GS_BACKFILL_NONE, 0 },
        /* must fail */
        { "priority_with_backfill", "false", GS_BACKFILL_NONE, GS_EINVAL },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", rows[r].policy,
                             rows[r].backfill ? "queue.backfill" : NULL, rows[r].backfill, NULL };
        struct gs_policy *pol = qpolicy(kv);
        assert_int_equal(gs_policy_backfill_mode(pol), rows[r].mode);
        struct gs_error err = { 0 };
        struct gs_engine *eng = gs_engine_create(cl, pol, &err);
        if (rows[r].create_rc == 0) {
            if (!eng)
                fail_msg("%s/%s: %s", rows[r].policy, rows[r].backfill, err.msg);
        } else {
            assert_null(eng);
            assert_int_equal(err.code, rows[r].create_rc);
            assert_non_null(strstr(err.msg, "backfill"));
        }
        gs_engine_destroy(eng);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_easy_reservation_names_gpus),
        QTEST(test_easy_reserves_a_domain),
        QTEST(test_conservative_protects_second_job),
        QTEST(test_overrun),
        QTEST(test_unknown_estimate_stays_off_reservations),
        QTEST(test_unplannable_head_blocks_backfill),
        QTEST(test_shared_job_backfill),
        QTEST(test_backfill_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

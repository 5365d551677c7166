/* test_caps.c - runtime caps (issue 3), derived by hand from caps.c's
 * header (the spec):
 *
 *   queue.runtime_cap is either a fixed duration (every job is stopped
 *   after it) or estimate_xF (stopped after F x the estimate it started
 *   with; jobs without an estimate are not capped).  A job running past its
 *   cap is stopped and counted as killed.
 *
 * The START event carries the kill time in `until` (GS_TIME_INF = none).
 * The simulator applies finishes before the pass of an instant, so a job
 * whose true end equals its cap completes.  One [8] node and 8-GPU jobs
 * throughout, fifo: each job starts when the one before it stops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qtestutil.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

struct expect {
    gs_time start, until, end;
    int state;
};

static void check_jobs(const struct gs_cluster *cl, const struct qlog *log,
                       const struct gs_sim_result *res, const char *const *ids,
                       const struct expect *want, int n, const char *row)
{
    int killed = 0;
    for (int i = 0; i < n; i++) {
        struct gs_job_info ji = job_named(res->engine, ids[i]);
        const struct rec_event *e = qstart_ev(log, res->engine, ids[i]);
        if (ji.start != want[i].start || e->until != want[i].until || ji.end != want[i].end ||
            ji.state != want[i].state)
            fail_msg("%s: %s start %lld until %lld end %lld state %d; want %lld %lld %lld %d",
                     row, ids[i], (long long)ji.start, (long long)e->until, (long long)ji.end,
                     ji.state, (long long)want[i].start, (long long)want[i].until,
                     (long long)want[i].end, want[i].state);
        qassert_on(cl, e, "n1", 0xFF);
        int h = qjob_handle(res->engine, ids[i]);
        int kills = qlog_count(log, GS_EV_KILL, h, -1);
        assert_int_equal(kills, want[i].state == GS_JOB_KILLED);
        if (kills)
            assert_int_equal(qlog_count(log, GS_EV_KILL, h, want[i].end), 1);
        killed += want[i].state == GS_JOB_KILLED;
    }
    assert_int_equal(res->summary.killed, killed);
    assert_int_equal(res->summary.completed, n - killed);
}

/* Fixed cap.  A runs 5h, B 3h, C 4h, all submitted at 0.
 *   none: A 0-5h, B 5h-8h, C 8h-12h, nothing killed.
 *   4h:   A killed at 4h; B 4h-7h (cap at 8h); C 7h, its end 11h equals its
 *         cap: completes.  1 killed.
 *   3h:   A killed at 3h; B 3h, ends at its cap 6h: completes; C 6h, killed
 *         at 9h.  2 killed. */
static void test_fixed_cap(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "A", .gpus = 8, .dur_s = 5 * 3600 },
        { .id = "B", .gpus = 8, .dur_s = 3 * 3600 },
        { .id = "C", .gpus = 8, .dur_s = 4 * 3600 },
    };
    static const char *const ids[] = { "A", "B", "C" };
    static const struct {
        const char *cap;
        struct expect want[3];
    } rows[] = {
        { "none",
          { { 0, GS_TIME_INF, HRS(5), GS_JOB_DONE },
            { HRS(5), GS_TIME_INF, HRS(8), GS_JOB_DONE },
            { HRS(8), GS_TIME_INF, HRS(12), GS_JOB_DONE } } },
        { "4h",
          { { 0, HRS(4), HRS(4), GS_JOB_KILLED },
            { HRS(4), HRS(8), HRS(7), GS_JOB_DONE },
            { HRS(7), HRS(11), HRS(11), GS_JOB_DONE } } },
        { "3h",
          { { 0, HRS(3), HRS(3), GS_JOB_KILLED },
            { HRS(3), HRS(6), HRS(6), GS_JOB_DONE },
            { HRS(6), HRS(9), HRS(9), GS_JOB_KILLED } } },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.runtime_cap", rows[r].cap, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        check_jobs(cl, log, res, ids, rows[r].want, 3, rows[r].cap);
    }
}

/* estimate_xF.  P declares 1h, Q nothing, R 2h; each runs 3h.
 * user estimates, estimate_x2: P's cap 2h -> killed at 2h; Q has no
 *   estimate -> not capped, 2h-5h; R's cap 4h, 5h-8h (cap at 9h).
 * user, estimate_x1.5: P's cap 1h30m -> killed then; Q 1h30m-4h30m; R's
 *   cap 3h: starts 4h30m, ends at its cap 7h30m: completes.
 * oracle, estimate_x1: every cap is the true run time: all complete,
 *   P 0-3h, Q 3h-6h, R 6h-9h. */
static void test_estimate_cap(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "P", .gpus = 8, .dur_s = 3 * 3600, .tl_s = 3600 },
        { .id = "Q", .gpus = 8, .dur_s = 3 * 3600 },
        { .id = "R", .gpus = 8, .dur_s = 3 * 3600, .tl_s = 7200 },
    };
    static const char *const ids[] = { "P", "Q", "R" };
    static const struct {
        const char *source, *cap;
        struct expect want[3];
    } rows[] = {
        { "user", "estimate_x2",
          { { 0, HRS(2), HRS(2), GS_JOB_KILLED },
            { HRS(2), GS_TIME_INF, HRS(5), GS_JOB_DONE },
            { HRS(5), HRS(9), HRS(8), GS_JOB_DONE } } },
        { "user", "estimate_x1.5",
          { { 0, MINS(90), MINS(90), GS_JOB_KILLED },
            { MINS(90), GS_TIME_INF, MINS(270), GS_JOB_DONE },
            { MINS(270), MINS(450), MINS(450), GS_JOB_DONE } } },
        { "oracle", "estimate_x1",
          { { 0, HRS(3), HRS(3), GS_JOB_DONE },
            { HRS(3), HRS(6), HRS(6), GS_JOB_DONE },
            { HRS(6), HRS(9), HRS(9), GS_JOB_DONE } } },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.duration_estimate", rows[r].source,
                             "queue.runtime_cap", rows[r].cap, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        check_jobs(cl, log, res, ids, rows[r].want, 3, rows[r].cap);
    }
}

/* Time limits (queue.time_limit, queue.over_time_limit; caps.c): A runs 5h
 * with a 3h limit, B 2h with a 3h limit, C 1h with none.
 *   unset (the engine's default: advisory): A 0-5h, B 5h-7h, C 7h-8h.
 *   enforce: A killed at its limit 3h (timed out); B 3h-5h (until 6h); C
 *     5h-6h, no limit.
 *   enforce, over_time_limit 1h: A until 4h, killed then; B 4h-6h (until
 *     8h); C 6h-7h.
 *   enforce with runtime_cap 2h and over_cap preempt: `until` is the
 *     earlier of the two (A 2h); past its cap A runs on (nothing preempts
 *     under preemption.mode none), and the limit still kills it at 3h;
 *     B 3h until min(5h cap, 6h limit) = 5h, ends at 5h itself: completes;
 *     C 5h-6h (cap 7h). */
static void test_time_limit(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "A", .gpus = 8, .dur_s = 5 * 3600, .tl_s = 3 * 3600 },
        { .id = "B", .gpus = 8, .dur_s = 2 * 3600, .tl_s = 3 * 3600 },
        { .id = "C", .gpus = 8, .dur_s = 3600 },
    };
    static const char *const ids[] = { "A", "B", "C" };
    static const struct {
        const char *mode, *grace, *cap, *over_cap;
        struct expect want[3];
    } rows[] = {
        { NULL, "0", "none", "kill",
          { { 0, GS_TIME_INF, HRS(5), GS_JOB_DONE },
            { HRS(5), GS_TIME_INF, HRS(7), GS_JOB_DONE },
            { HRS(7), GS_TIME_INF, HRS(8), GS_JOB_DONE } } },
        { "enforce", "0", "none", "kill",
          { { 0, HRS(3), HRS(3), GS_JOB_KILLED },
            { HRS(3), HRS(6), HRS(5), GS_JOB_DONE },
            { HRS(5), GS_TIME_INF, HRS(6), GS_JOB_DONE } } },
        { "enforce", "1h", "none", "kill",
          { { 0, HRS(4), HRS(4), GS_JOB_KILLED },
            { HRS(4), HRS(8), HRS(6), GS_JOB_DONE },
            { HRS(6), GS_TIME_INF, HRS(7), GS_JOB_DONE } } },
        { "enforce", "0", "2h", "preempt",
          { { 0, HRS(2), HRS(3), GS_JOB_KILLED },
            { HRS(3), HRS(5), HRS(5), GS_JOB_DONE },
            { HRS(5), HRS(7), HRS(6), GS_JOB_DONE } } },
    };
    struct gs_cluster *cl = qcluster("n1:8");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.over_time_limit", rows[r].grace,
                             "queue.runtime_cap", rows[r].cap, "preemption.over_cap",
                             rows[r].over_cap, rows[r].mode ? "queue.time_limit" : NULL,
                             rows[r].mode, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct qlog *log = qlog_new();
        struct gs_sim_result *res = qsim(cl, pol, tr, log);
        check_jobs(cl, log, res, ids, rows[r].want, 3, rows[r].mode ? rows[r].mode : "unset");
        for (int i = 0; i < 3; i++)
            assert_int_equal(job_named(res->engine, ids[i]).timed_out,
                             rows[r].want[i].state == GS_JOB_KILLED);
    }
}

/* The engine driven directly: the cap fires at the first step at or after
 * the deadline, reports GS_EV_KILL, frees the GPUs for the queue in the
 * same step, and a killed job can no longer be finished (GS_ESTATE).  One
 * [8] node, runtime_cap 1h: A (8 GPUs) starts at 0; B (8 GPUs) waits.  The
 * engine asks for a wakeup at 1h.  A step at 59m kills nothing; the step at
 * 1h kills A and starts B (kill at 2h). */
static void test_cap_in_engine(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "fifo", "queue.runtime_cap", "1h", NULL };
    struct gs_policy *pol = qpolicy(kv);
    struct qeng *q = qeng_new("n1:8", pol);
    static const struct qjob a = { .id = "A", .gpus = 8 }, b = { .id = "B", .gpus = 8 };
    int ha = qsubmit(q, 0, &a), hb = qsubmit(q, 0, &b);
    assert_int_equal(qstep(q, 0), 1);
    assert_int_equal(gs_engine_next_wakeup(q->eng, 0), HRS(1));
    assert_int_equal(qstep(q, MINS(59)), 0);
    assert_int_equal(qstate(q, ha), GS_JOB_RUNNING);
    assert_int_equal(qstep(q, HRS(1)), 1);
    assert_int_equal(qstate(q, ha), GS_JOB_KILLED);
    assert_int_equal(qstate(q, hb), GS_JOB_RUNNING);
    int k = qlog_find(&q->log, 0, GS_EV_KILL, ha);
    int s = qlog_find(&q->log, 0, GS_EV_START, hb);
    assert_true(k >= 0 && s > k);
    assert_int_equal(q->log.ev[k].time, HRS(1));
    assert_int_equal(q->log.ev[s].until, HRS(2));
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_finish(q->eng, HRS(1), ha, &err), GS_ESTATE);
    assert_int_equal(gs_engine_next_wakeup(q->eng, HRS(1)), HRS(2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_fixed_cap),
        QTEST(test_estimate_cap),
        QTEST(test_cap_in_engine),
        QTEST(test_time_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

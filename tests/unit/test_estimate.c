/* test_estimate.c - duration estimates (issue 3), derived by hand from
 * estimate.h (the spec):
 *
 *   Finished jobs are remembered per key, most specific first:
 *     1. user + job name   2. team + GPU count   3. GPU count   4. all jobs
 *   Each key keeps only its last GS_HIST_WINDOW (32) run times.  The
 *   estimate is the chosen quantile (p50 or p90, numpy's linear rule) of
 *   the most specific key with at least GS_HIST_MIN_SAMPLES (3) samples.
 *   Cold start: no key has enough samples -> the job's time_limit if it has
 *   one, else unknown (GS_TIME_NONE).  A history estimate is never larger
 *   than the job's time_limit.
 *
 * and the policy: duration_estimate user (time_limit, none -> unknown),
 * oracle (the true duration, simulator only), from_history; the summary
 * reports estimate / actual over completed jobs that had an estimate
 * (median, p90) and the share with estimate < actual.
 *
 * numpy's linear quantile of sorted v[0..n-1] at q: position q*(n-1),
 * interpolated between the two neighbouring values.  Samples here are
 * whole seconds; estimates are in ms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qtestutil.h"
#include "core/jobs/estimate.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))
#define MAXS 48

/* An engine used only as the job table the estimator reads keys from, and
 * a history fed directly through the estimator ops. */
struct hfix {
    struct qeng *q;
    struct gs_history *h;
    struct gs_estimator est;
    int next_id;
    char ids[256][16];
};

static void hfix_free(void *p)
{
    struct hfix *f = p;
    gs_history_destroy(f->h);
    free(f);
}

/* Freed after the test (qgc_teardown). */
static struct hfix *hfix_new(int quantile)
{
    struct hfix *f = qgc_keep(calloc(1, sizeof(struct hfix)), hfix_free);
    const char *kv[] = { "queue.policy", "fifo", NULL };
    f->q = qeng_new("n1:8", qpolicy(kv));
    f->h = gs_history_create(quantile);
    assert_non_null(f->h);
    f->est = gs_history_estimator(f->h);
    assert_non_null(f->est.estimate);
    assert_non_null(f->est.observe);
    return f;
}

/* A job of the given key fields (never started); returns its handle. */
static int hjob(struct hfix *f, const char *user, const char *name, const char *team, int gpus,
                double tl_s)
{
    assert_true(f->next_id < 256);
    char *id = f->ids[f->next_id++];
    snprintf(id, sizeof f->ids[0], "j%d", f->next_id);
    struct qjob r = { .id = id, .gpus = gpus, .tl_s = tl_s, .team = team, .user = user,
                      .name = name };
    return qsubmit(f->q, 0, &r);
}

/* Observe finished runs (seconds) of jobs with the given key fields. */
static void hfeed(struct hfix *f, const char *user, const char *name, const char *team, int gpus,
                  const double *secs, int n)
{
    for (int i = 0; i < n; i++) {
        int job = hjob(f, user, name, team, gpus, 0);
        f->est.observe(f->est.arg, f->q->eng, job, gs_time_from_sec(secs[i]));
    }
}

static gs_time hestimate(struct hfix *f, int job)
{
    return f->est.estimate(f->est.arg, f->q->eng, job);
}

/* ---- the history estimator ---------------------------------------------------- */

/* Cold start: fewer than 3 samples on every key -> time_limit, else
 * unknown.  Samples are runs of the probe's own spec (u/n, team t, 2 GPUs),
 * so they land on all four keys. */
static void test_cold_start(void **state)
{
    (void)state;
    static const struct {
        int n;
        double secs[3];
        double tl_s;
        gs_time want;
    } rows[] = {
        { 0, { 0 }, 0, GS_TIME_NONE },
        { 0, { 0 }, 600, SEC(600) },
        { 2, { 10, 20 }, 600, SEC(600) },      /* 2 < 3 samples: still cold */
        { 2, { 10, 20 }, 0, GS_TIME_NONE },
        /* 3 samples: p90 of 10, 20, 30 = pos 1.8 -> 20 + 0.8*10 = 28 s */
        { 3, { 10, 20, 30 }, 0, SEC(28) },
        { 3, { 10, 20, 30 }, 600, SEC(28) },
    };
    for (size_t r = 0; r < NROWS(rows); r++) {
        struct hfix *f = hfix_new(90);
        hfeed(f, "u", "n", "t", 2, rows[r].secs, rows[r].n);
        int probe = hjob(f, "u", "n", "t", 2, rows[r].tl_s);
        gs_time got = hestimate(f, probe);
        if (got != rows[r].want)
            fail_msg("row %zu: estimate %lld, want %lld", r, (long long)got,
                     (long long)rows[r].want);
    }
}

/* Key fallback: user+name, then team+gpus, then gpus, then all jobs, each
 * needing 3 samples.  Probe: user u, name n, team t, 2 GPUs, no limit, p50.
 * Sample groups (user/name, team, GPUs -> runs) and the probe keys they
 * reach:
 *   G  v/m, x, 4 GPUs: 10 20 30      all jobs only
 *   K2 v/m, x, 2 GPUs: 40 50 60      GPU count (2), all jobs
 *   K1 v/m, t, 2 GPUs: 70 80 90      team+gpus (t,2), GPU count, all
 *   K0 u/n, x, 4 GPUs: 100 110 120   user+name, all jobs
 * (the p50 of three samples is the middle one). */
static void test_key_fallback_order(void **state)
{
    (void)state;
    static const double G[] = { 10, 20, 30 }, K2[] = { 40, 50, 60 }, K1[] = { 70, 80, 90 },
                        K0[] = { 100, 110, 120 };
    static const struct {
        int g, k2, k1, k0; /* samples taken from each group (a prefix) */
        gs_time want;
    } rows[] = {
        { 3, 0, 0, 0, SEC(20) },  /* all jobs: 10 20 30 */
        { 3, 3, 0, 0, SEC(50) },  /* GPU count 2: 40 50 60 */
        { 3, 3, 3, 0, SEC(80) },  /* team+gpus: 70 80 90 (GPU count has 6) */
        { 3, 3, 3, 3, SEC(110) }, /* user+name: 100 110 120 */
        { 0, 0, 0, 3, SEC(110) }, /* user+name alone */
        { 0, 0, 3, 2, SEC(80) },  /* user+name has 2 < 3: team+gpus */
        /* team+gpus and GPU count have 2 each: all jobs = 10 20 30 70 80,
         * median 30 */
        { 3, 0, 2, 0, SEC(30) },
        /* nothing with 3 samples anywhere: cold start, no limit */
        { 0, 0, 2, 0, GS_TIME_NONE },
    };
    for (size_t r = 0; r < NROWS(rows); r++) {
        struct hfix *f = hfix_new(50);
        hfeed(f, "v", "m", "x", 4, G, rows[r].g);
        hfeed(f, "v", "m", "x", 2, K2, rows[r].k2);
        hfeed(f, "v", "m", "t", 2, K1, rows[r].k1);
        hfeed(f, "u", "n", "x", 4, K0, rows[r].k0);
        int probe = hjob(f, "u", "n", "t", 2, 0);
        gs_time got = hestimate(f, probe);
        if (got != rows[r].want)
            fail_msg("row %zu: estimate %lld, want %lld", r, (long long)got,
                     (long long)rows[r].want);
    }
}

/* Quantiles, numpy's linear rule, on the probe's own key. */
static void test_quantiles(void **state)
{
    (void)state;
    static const struct {
        int n;
        double secs[12];
        gs_time p50, p90;
    } rows[] = {
        /* pos 1.5 -> 25; pos 2.7 -> 30 + 0.7*10 = 37 */
        { 4, { 10, 20, 30, 40 }, SEC(25), SEC(37) },
        /* order does not matter: 1 3 5; pos 1 -> 3; pos 1.8 -> 3 + 0.8*2 = 4.6 */
        { 3, { 5, 1, 3 }, SEC(3), 4600 },
        { 3, { 7, 7, 7 }, SEC(7), SEC(7) },
        /* 1..11: pos 5 -> 6; pos 9 -> 10 */
        { 11, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }, SEC(6), SEC(10) },
        /* 1..10: pos 4.5 -> 5.5; pos 8.1 -> 9 + 0.1*1 = 9.1 s = 9100 ms */
        { 10, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 5500, 9100 },
    };
    for (size_t r = 0; r < NROWS(rows); r++) {
        for (int q = 50; q <= 90; q += 40) {
            struct hfix *f = hfix_new(q);
            hfeed(f, "u", "n", "t", 2, rows[r].secs, rows[r].n);
            int probe = hjob(f, "u", "n", "t", 2, 0);
            gs_time got = hestimate(f, probe), want = q == 50 ? rows[r].p50 : rows[r].p90;
            if (got != want)
                fail_msg("row %zu p%d: estimate %lld ms, want %lld ms", r, q, (long long)got,
                         (long long)want);
            }
    }
}

/* Each key keeps its last 32 runs: older ones are forgotten.  8 runs of
 * 1000 s, then 32 runs of 1..32 s: the ring holds exactly 1..32, so
 *   p50 = pos 15.5 -> 16.5 s,  p90 = pos 27.9 -> 28 + 0.9 = 28.9 s
 * (with the old runs kept, the p90 of 40 runs would be 1000 s).  Memory is
 * per key, not per run: one job spec gives 4 keys however many runs. */
static void test_ring_forgets_old_runs(void **state)
{
    (void)state;
    static const struct {
        int quantile;
        gs_time want;
    } rows[] = {
        { 50, 16500 },
        { 90, 28900 },
    };
    double old[8], recent[32];
    for (int i = 0; i < 8; i++)
        old[i] = 1000;
    for (int i = 0; i < 32; i++)
        recent[i] = i + 1;
    assert_int_equal(GS_HIST_WINDOW, 32);
    assert_int_equal(GS_HIST_MIN_SAMPLES, 3);
    for (size_t r = 0; r < NROWS(rows); r++) {
        struct hfix *f = hfix_new(rows[r].quantile);
        hfeed(f, "u", "n", "t", 2, old, 8);
        hfeed(f, "u", "n", "t", 2, recent, 32);
        int probe = hjob(f, "u", "n", "t", 2, 0);
        assert_int_equal(hestimate(f, probe), rows[r].want);
        assert_int_equal(gs_history_keys(f->h), 4);
    }
}

/* A history estimate never exceeds the job's time_limit.  Runs 100, 200,
 * 300 s; p50 = 200 s. */
static void test_time_limit_caps_history(void **state)
{
    (void)state;
    static const struct {
        double tl_s;
        gs_time want;
    } rows[] = {
        { 0, SEC(200) },     /* no limit */
        { 150, SEC(150) },   /* 200 > 150: capped */
        { 200, SEC(200) },
        { 250, SEC(200) },
    };
    static const double runs[] = { 100, 200, 300 };
    for (size_t r = 0; r < NROWS(rows); r++) {
        struct hfix *f = hfix_new(50);
        hfeed(f, "u", "n", "t", 2, runs, 3);
        int probe = hjob(f, "u", "n", "t", 2, rows[r].tl_s);
        assert_int_equal(hestimate(f, probe), rows[r].want);
    }
}

/* ---- estimators inside the engine ---------------------------------------------- */

/* Sequential jobs of one user+name on a 1-GPU node (fifo), submitted at 0,
 * from_history: each start sees the runs finished before it.
 *   j1 10 s, tl 100   starts 0:   no runs         -> cold: 100 s
 *   j2 20 s, no tl    starts 10:  1 run           -> cold: unknown
 *   j3 30 s, tl 15    starts 30:  2 runs          -> cold: 15 s
 *   j4 40 s, no tl    starts 60:  10 20 30        -> p50 20 s / p90 28 s
 *   j5 50 s, tl 22    starts 100: 10 20 30 40     -> p50 25 / p90 37,
 *                                                    capped at 22 s */
static void test_history_online(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "j1", .gpus = 1, .dur_s = 10, .tl_s = 100, .user = "u", .name = "n" },
        { .id = "j2", .gpus = 1, .dur_s = 20, .user = "u", .name = "n" },
        { .id = "j3", .gpus = 1, .dur_s = 30, .tl_s = 15, .user = "u", .name = "n" },
        { .id = "j4", .gpus = 1, .dur_s = 40, .user = "u", .name = "n" },
        { .id = "j5", .gpus = 1, .dur_s = 50, .tl_s = 22, .user = "u", .name = "n" },
    };
    static const struct {
        const char *quantile;
        gs_time est[5];
    } rows[] = {
        { "p50", { SEC(100), GS_TIME_NONE, SEC(15), SEC(20), SEC(22) } },
        { "p90", { SEC(100), GS_TIME_NONE, SEC(15), SEC(28), SEC(22) } },
    };
    static const gs_time starts[] = { 0, SEC(10), SEC(30), SEC(60), SEC(100) };
    struct gs_cluster *cl = qcluster("n1:1");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.duration_estimate", "from_history",
                             "queue.estimate_quantile", rows[r].quantile, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct gs_sim_result *res = qsim(cl, pol, tr, NULL);
        for (size_t i = 0; i < NROWS(jobs); i++) {
            struct gs_job_info ji = job_named(res->engine, jobs[i].id);
            assert_int_equal(ji.start, starts[i]);
            if (ji.estimate != rows[r].est[i])
                fail_msg("%s %s: estimate %lld, want %lld", rows[r].quantile, jobs[i].id,
                         (long long)ji.estimate, (long long)rows[r].est[i]);
        }
    }
}

/* user: the time_limit, none -> unknown; oracle: the true duration. */
static void test_user_and_oracle(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "a", .gpus = 1, .dur_s = 30, .tl_s = 600 },
        { .id = "b", .gpus = 1, .dur_s = 45 },
    };
    static const struct {
        const char *source;
        gs_time a, b;
    } rows[] = {
        { "user", SEC(600), GS_TIME_NONE },
        { "oracle", SEC(30), SEC(45) },
    };
    struct gs_cluster *cl = qcluster("n1:2");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.duration_estimate", rows[r].source, NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct gs_sim_result *res = qsim(cl, pol, tr, NULL);
        assert_int_equal(job_named(res->engine, "a").estimate, rows[r].a);
        assert_int_equal(job_named(res->engine, "b").estimate, rows[r].b);
    }
}

/* Estimate accuracy in the summary, over completed jobs with an estimate.
 * One 1-GPU node, fifo, user estimates (time_limit / true run):
 *   e1 10/20 = 0.5 (under)  e2 30/20 = 1.5  e3 40/40 = 1.0 (equal: not under)
 *   e4 90/30 = 3.0          e5 no limit: no estimate, not counted
 * sorted 0.5 1.0 1.5 3.0: median pos 1.5 -> 1.25; p90 pos 2.7 -> 1.5 +
 * 0.7*1.5 = 2.55; underestimates 1 of 4 = 0.25.
 * oracle: every estimate is exact: 5 jobs, ratios 1, no underestimate. */
static void test_accuracy_summary(void **state)
{
    (void)state;
    static const struct qjob jobs[] = {
        { .id = "e1", .gpus = 1, .dur_s = 20, .tl_s = 10 },
        { .id = "e2", .gpus = 1, .dur_s = 20, .tl_s = 30 },
        { .id = "e3", .gpus = 1, .dur_s = 40, .tl_s = 40 },
        { .id = "e4", .gpus = 1, .dur_s = 30, .tl_s = 90 },
        { .id = "e5", .gpus = 1, .dur_s = 5 },
    };
    static const struct {
        const char *source;
        int64_t n;
        double p50, p90, under;
    } rows[] = {
        { "user", 4, 1.25, 2.55, 0.25 },
        { "oracle", 5, 1.0, 1.0, 0.0 },
    };
    struct gs_cluster *cl = qcluster("n1:1");
    struct gs_trace *tr = qtrace(jobs, NROWS(jobs));
    for (size_t r = 0; r < NROWS(rows); r++) {
        const char *kv[] = { "queue.policy", "fifo", "queue.duration_estimate", rows[r].source,
                             NULL };
        struct gs_policy *pol = qpolicy(kv);
        struct gs_sim_result *res = qsim(cl, pol, tr, NULL);
        assert_int_equal(res->summary.completed, 5);
        assert_int_equal(res->summary.estimate.n, rows[r].n);
        assert_float_equal(res->summary.estimate.ratio_p50, rows[r].p50, 1e-9);
        assert_float_equal(res->summary.estimate.ratio_p90, rows[r].p90, 1e-9);
        assert_float_equal(res->summary.estimate.under_share, rows[r].under, 1e-9);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_cold_start),
        QTEST(test_key_fallback_order),
        QTEST(test_quantiles),
        QTEST(test_ring_forgets_old_runs),
        QTEST(test_time_limit_caps_history),
        QTEST(test_history_online),
        QTEST(test_user_and_oracle),
        QTEST(test_accuracy_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_eta.c - start-time promises recorded at submit (core/diagnose/eta.h,
 * sim opts.eta; issue 27): the point estimate behind a known running job,
 * behind a quota, one that cannot be made; the calibrated P90 bound; the
 * accuracy statistics and both naive predictors.  Every expected number is
 * derived by hand in the comment above its assertion.
 *
 * Cluster everywhere: one node of 8 GPUs ("n1:8"); policy fifo + pack with
 * user estimates (testutil's fifo_pack), EASY backfill where stated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "core/diagnose/eta.h"

struct ejob {
    const char *id;
    double submit_s;
    int gpus;
    double dur_s, limit_s; /* limit 0 = none */
    const char *team;
};

/* Replay `rows` on one 8-GPU node under `pol` with promises recorded. */
static void run_eta(const struct gs_policy *pol, const struct ejob *rows, size_t n,
                    struct gs_sim_result *res, struct gs_cluster **cl)
{
    *cl = cluster_of("n1:8");
    struct gs_trace *tr = gs_trace_create();
    assert_non_null(tr);
    for (size_t i = 0; i < n; i++) {
        struct gs_job_spec s = row_spec(rows[i].id, rows[i].submit_s, rows[i].gpus, 0,
                                        rows[i].team, 0, 0);
        s.time_limit = rows[i].limit_s > 0 ? SEC(rows[i].limit_s) : 0;
        trace_add_ok(tr, &s, rows[i].dur_s, i);
    }
    struct gs_sim_opts opts = { 0 };
    opts.check = 1;
    opts.eta = 1;
    struct gs_error err = { 0 };
    int rc = gs_sim_run(*cl, pol, tr, &opts, res, &err);
    if (rc != 0)
        fail_msg("gs_sim_run: %s", err.msg);
    assert_non_null(res->eta);
    assert_int_equal(res->neta, n);
    gs_trace_destroy(tr);
}

static const struct gs_eta_rec *rec_of(const struct gs_sim_result *r, const char *id)
{
    int h = gs_engine_job_find(r->engine, id);
    assert_true(h >= 0 && (size_t)h < r->neta);
    assert_true(r->eta[h].recorded);
    return &r->eta[h];
}

/* A (8 GPUs, runs 100 s, limit 200 s) holds the node from 0.  B (4 GPUs)
 * arrives at 10: it cannot fit, and under EASY the pass at 10 reserves
 * the node for it at A's planned end, 0 + 200 = 200 s: est 200, basis
 * reservation.  A really ends at 100, so B starts at 100 (error -100 s).
 * A itself started in its submit's pass: est = submit = 0, basis now. */
static void test_reservation_behind_running(void **state)
{
    (void)state;
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "queue.backfill", "easy");
    const struct ejob rows[] = { { "A", 0, 8, 100, 200, NULL }, { "B", 10, 4, 50, 100, NULL } };
    struct gs_sim_result r;
    struct gs_cluster *cl;
    run_eta(&pol, rows, 2, &r, &cl);
    const struct gs_eta_rec *a = rec_of(&r, "A"), *b = rec_of(&r, "B");
    assert_int_equal(a->est, 0);
    assert_int_equal(a->basis, GS_BASIS_NOW);
    assert_int_equal(b->est, SEC(200));
    assert_int_equal(b->basis, GS_BASIS_RESERVATION);
    assert_int_equal(b->submit, SEC(10));
    assert_int_equal(job_named(r.engine, "B").first_start, SEC(100));
    /* no error was known when either promise was made: no bound, and the
     * calibrated point is the engine's estimate */
    assert_int_equal(a->p90, GS_TIME_NONE);
    assert_int_equal(b->p90, GS_TIME_NONE);
    assert_int_equal(b->cal, SEC(200));
    assert_int_equal(b->chosen, -1);
    /* naive class median: A is class "5-8" and nothing had started, so
     * submit (0); B is class "2-4", none started before it: submit (10) */
    assert_int_equal(a->naive_median, 0);
    assert_int_equal(b->naive_median, SEC(10));
    gs_sim_result_fini(&r);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* Quota 4 for team t.  A (t, 4 GPUs, runs 100 s, limit 300 s) starts at 0.
 * B (t, 2 GPUs) arrives at 10: 4 GPUs are idle but t is at its quota.  Its
 * team frees GPUs when A ends by its estimate, 0 + 300 = 300 s: est 300,
 * basis quota.  A really ends at 100, B starts at 100. */
static void test_quota_held(void **state)
{
    (void)state;
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "queue.quota.t", "4");
    const struct ejob rows[] = { { "A", 0, 4, 100, 300, "t" }, { "B", 10, 2, 50, 100, "t" } };
    struct gs_sim_result r;
    struct gs_cluster *cl;
    run_eta(&pol, rows, 2, &r, &cl);
    const struct gs_eta_rec *b = rec_of(&r, "B");
    assert_int_equal(b->est, SEC(300));
    assert_int_equal(b->basis, GS_BASIS_QUOTA);
    assert_int_equal(job_named(r.engine, "B").first_start, SEC(100));
    gs_sim_result_fini(&r);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* A (8 GPUs, no time limit) runs 100 s from 0: under user estimates it
 * has no estimate, so when B (1 GPU) arrives at 10 nothing says when a
 * GPU frees: no estimate, no bound, basis unknown.  The statistics count B
 * as a promise without an estimate, and only A (est 0, started 0) in the
 * errors: n 1, median error 0. */
static void test_cannot_estimate(void **state)
{
    (void)state;
    struct gs_policy pol;
    fifo_pack(&pol);
    const struct ejob rows[] = { { "A", 0, 8, 100, 0, NULL }, { "B", 10, 1, 50, 0, NULL } };
    struct gs_sim_result r;
    struct gs_cluster *cl;
    run_eta(&pol, rows, 2, &r, &cl);
    const struct gs_eta_rec *b = rec_of(&r, "B");
    assert_int_equal(b->est, GS_TIME_NONE);
    assert_int_equal(b->p90, GS_TIME_NONE);
    assert_int_equal(b->basis, GS_BASIS_UNKNOWN);
    gs_time start[2];
    for (int i = 0; i < 2; i++) {
        struct gs_job_info ji;
        assert_int_equal(gs_engine_job_info(r.engine, i, &ji), 0);
        start[i] = ji.first_start;
    }
    struct gs_eta_stats st;
    assert_int_equal(gs_eta_stats_build(r.eta, start, 2, &st), 0);
    assert_int_equal(st.jobs, 2);
    assert_int_equal(st.estimated, 1);
    assert_int_equal(st.all.n, 1);
    assert_true(st.all.med_abs_s == 0);
    assert_int_equal(st.by_basis[GS_BASIS_UNKNOWN].n, 0);
    gs_sim_result_fini(&r);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* A promise of class `cls`, basis profile, submitted at 0 with the engine's
 * estimate `est_s`. */
static struct gs_eta_rec rec_at(int cls, double est_s)
{
    struct gs_eta_rec r = { 0 };
    r.submit = 0;
    r.est = SEC(est_s);
    r.basis = GS_BASIS_PROFILE;
    r.size_class = cls;
    r.recorded = 1;
    for (int m = 0; m < GS_ETA_CANDIDATES; m++)
        r.cand[m] = GS_TIME_NONE;
    r.p90 = GS_TIME_NONE;
    r.naive_median = GS_TIME_NONE; /* no switch to the naive predictors (test_naive_switch) */
    return r;
}

/* The calibration (H = 60 s).  Class "1": 20 jobs submitted at 0 with the
 * estimate 100 s start at 100 + i s (i = 1..20).  After 19 nothing is
 * calibrated (19 < 20): the point is the estimate, no bound.  After 20:
 *   shift errors 1..20 s: median (nearest rank, 10th) 10 s;
 *   ratios (100 + i + 60) / (100 + 60): median 170/160 = 1.0625, q90 (18th)
 *   178/160 = 1.1125.
 * A promise with the estimate 1,000 s (h + H = 1,060 s): candidates raw
 * 1,000, shift 1,010, scale 1,060 x 1.0625 - 60 = 1,066.25 s, wait (the
 * waits 101..120 s: every run of 10 of them spans 9 s, the lowest,
 * 101..110, has the middle 105.5 s) 105.5 s, now 0, shift mode (errors
 * 1..20 s: 1..10, middle 5.5 s) 1,005.5 s.  These jobs
 * had no candidates (no errors known at their promise), so none has a
 * record of |error|: the point is scale, 1,066.25 s; the bound 1,060 x
 * 1.1125 - 60 = 1,119.25 s.
 * Class "2-4": 20 jobs, estimate 100 s, candidates 100 / 110 / 200 / 130 /
 * 0 / 105 s, all start at 110 s: |errors| 10 / 0 / 90 / 20 / 110 / 5.
 * The threshold T is the median |error| of the points of waiting jobs
 * (c->err; rec_at's point is 0): 101..120 s and twenty 110 s, the 20th of
 * 40 is 110 s; every candidate's last 16 |errors| are within it, so the
 * tie goes to the smallest median: shift is chosen; shift median
 * 10 s, ratios all 170/160.  Estimate 300 s: point 310 s; bound (300 + 60)
 * x 1.0625 - 60 = 322.5 s. */
static void test_calibration(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    gs_eta_cal_init(c);
    for (int i = 1; i <= 20; i++) {
        struct gs_eta_rec p = rec_at(0, 1000);
        gs_eta_cal_apply(c, &p);
        if (i == 20) {
            assert_int_equal(p.cal, SEC(1000));
            assert_int_equal(p.p90, GS_TIME_NONE);
            assert_int_equal(p.chosen, -1);
        }
        struct gs_eta_rec r = rec_at(0, 100);
        gs_eta_cal_observe(c, &r, SEC(100 + i));
        assert_true(r.observed);
        gs_eta_cal_observe(c, &r, SEC(500)); /* a second start: no-op */
        struct gs_eta_rec q = rec_at(1, 100);
        q.cand[0] = SEC(100);
        q.cand[1] = SEC(110);
        q.cand[2] = SEC(200);
        q.cand[3] = SEC(130);
        q.cand[4] = 0;
        q.cand[5] = SEC(105);
        gs_eta_cal_observe(c, &q, SEC(110));
    }
    struct gs_eta_rec p = rec_at(0, 1000);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cand[0], SEC(1000));
    assert_int_equal(p.cand[1], SEC(1010));
    assert_int_equal(p.cand[2], 1066250);
    assert_int_equal(p.cand[3], 105500);
    assert_int_equal(p.cand[4], 0);
    assert_int_equal(p.cand[5], 1005500);
    assert_int_equal(p.chosen, 2);
    assert_int_equal(p.cal, 1066250);
    assert_int_equal(p.p90, 1119250);
    p = rec_at(1, 300);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.chosen, 1);
    assert_int_equal(p.cal, SEC(310));
    assert_int_equal(p.p90, 322500);
    /* the bucket of GPUs queued ahead: 20 more class-"1" jobs in bucket 3
     * (4-7 GPUs ahead), estimate 100 s, start at 260 s: ratio 320/160 = 2.
     * Estimate 1,000 s in bucket 3: scale 1,060 x 2 - 60 = 2,060 s, bound
     * the same.  In bucket 5 (no jobs) it falls back to class and basis:
     * 40 ratios, the 20 above (1.00625 .. 1.125) and twenty 2s: median
     * (20th) 180/160 = 1.125, point 1,060 x 1.125 - 60 = 1,132.5 s; q90
     * (36th) 2, bound 2,060 s. */
    for (int i = 0; i < 20; i++) {
        struct gs_eta_rec r = rec_at(0, 100);
        r.bucket = 3;
        gs_eta_cal_observe(c, &r, SEC(260));
    }
    p = rec_at(0, 1000);
    p.bucket = 3;
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cal, SEC(2060));
    assert_int_equal(p.p90, SEC(2060));
    p.bucket = 5;
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cal, 1132500);
    assert_int_equal(p.p90, SEC(2060));
    /* no estimate: nothing to calibrate */
    p = rec_at(0, 0);
    p.est = GS_TIME_NONE;
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cal, GS_TIME_NONE);
    assert_int_equal(p.p90, GS_TIME_NONE);
    /* the adaptive level: no job so far had a bound, so it is 0.9; 10
     * class-"2-4" jobs that start after their bound raise it by 10 x 0.005
     * x 0.9 = 0.045, then 5 covered ones lower it by 5 x 0.0005: 0.9425 */
    assert_true(c->cls[1].level == 0.9);
    for (int i = 0; i < 15; i++) {
        struct gs_eta_rec r = rec_at(1, 100);
        r.p90 = SEC(120);
        gs_eta_cal_observe(c, &r, SEC(i < 10 ? 200 : 110));
    }
    assert_true(c->cls[1].level > 0.9425 - 1e-12 && c->cls[1].level < 0.9425 + 1e-12);
    assert_true(c->key[1][GS_BASIS_PROFILE].level > 0.9425 - 1e-12);
    assert_true(c->ahead[1][GS_BASIS_PROFILE][0].level < 0.9425 + 1e-12);
    /* every start also went to its class's waits: 40 in class "1" */
    assert_int_equal(c->wait[0].n, 40);
    free(c);
}

/* Statistics on four hand-made promises (seconds): submit, est, p90,
 * calibrated point, naive median, actual start:
 *   J1: 0, 10, 30, 20, 5,  20    |err| 10, cal 0,  covered, now 20, median 15
 *   J2: 0, 50, 60, 80, 5,  100   |err| 50, cal 20, not,     now 100, median 95
 *   J3: 0, 0,  -,  0,  5,  0     |err| 0,  cal 0,  no bound, now 0,  median 5
 *   J4: 0, 40, 90, 40, 5,  never started: not counted
 * n 3, sorted errors 0, 10, 50: median 10, P90 (ceil 2.7 = 3rd) 50;
 * calibrated 0, 0, 20: median 0, P90 20; coverage 1 of 2; naive now 0, 20,
 * 100: median 20; naive median 5, 15, 95: median 15. */
/* The conformal widening of the bound.  20 jobs of class "5-8" (index 2),
 * estimated at 100 s with a bound of 100 s, all start at 260 s: ratio and
 * bound ratio (260 + 60) / (100 + 60) = 2 each; each missed its bound, so
 * the level rose 20 x 0.005 x 0.9 = 0.09 to 0.99.  A promise estimated at
 * 1,000 s: scale point 1,060 x 2 - 60 = 2,060 s (no candidate errors were
 * kept: the point is scale); the bound before widening is the ratios' q99,
 * 2, so 2,060 s as well; the window of bound ratios has q90 = 2 > 1, so
 * the bound becomes (2,060 + 60) x 2 - 60 = 4,180 s. */
static void test_bound_widening(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    gs_eta_cal_init(c);
    for (int i = 0; i < 20; i++) {
        struct gs_eta_rec r = rec_at(2, 100);
        r.p90 = r.p90_base = SEC(100);
        gs_eta_cal_observe(c, &r, SEC(260));
    }
    struct gs_eta_rec p = rec_at(2, 1000);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cal, SEC(2060));
    assert_int_equal(p.p90_base, SEC(2060));
    assert_int_equal(p.p90, SEC(4180));
    free(c);
}

/* The level past 1 (extrapolation).  As above but 30 jobs, each missing
 * its bound: the level rises 30 x 0.0045 = 0.135 to 1.035 (past 1: the
 * quantiles stay at the windows' largest values, 2 each).  A promise
 * estimated at 1,000 s: point 2,060 s, bound before widening 2,060 s,
 * after the conformal factor 2: 4,180 s, then x (1 + 4 x 0.035) = 1.14:
 * (4,180 + 60) x 1.14 - 60 = 4,773.6 s.  200 more misses stop the level
 * at its ceiling, 1.5. */
static void test_level_past_one(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    gs_eta_cal_init(c);
    for (int i = 0; i < 30; i++) {
        struct gs_eta_rec r = rec_at(2, 100);
        r.p90 = r.p90_base = SEC(100);
        gs_eta_cal_observe(c, &r, SEC(260));
    }
    assert_true(c->ahead[2][GS_BASIS_PROFILE][0].level > 1.035 - 1e-9 &&
                c->ahead[2][GS_BASIS_PROFILE][0].level < 1.035 + 1e-9);
    struct gs_eta_rec p = rec_at(2, 1000);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cal, SEC(2060));
    assert_int_equal(p.p90_base, SEC(2060));
    assert_int_equal(p.p90, 4773600);
    for (int i = 0; i < 200; i++) {
        struct gs_eta_rec r = rec_at(2, 100);
        r.p90 = r.p90_base = SEC(100);
        gs_eta_cal_observe(c, &r, SEC(260));
    }
    assert_true(c->cls[2].level == GS_ETA_LEVEL_MAX);
    free(c);
}

static int cmp_gs_time(const void *a, const void *b)
{
    gs_time x = *(const gs_time *)a, y = *(const gs_time *)b;
    return x < y ? -1 : x > y;
}

/* The windows keep the last GS_ETA_WINDOW values, oldest out first, and
 * answer nearest-rank quantiles: 3,000 class-"1" jobs estimated at 1,000 s
 * start at 1,000 s + e_i with e_i from a fixed LCG in [-500, 4500) s,
 * many repeated (the values are whole 100 s steps, so equal values enter
 * and leave).  The shift candidate of a new promise at 1,000 s is then
 * 1,000 s + the 256th smallest of the last 512 e_i (nearest rank of 0.5 of
 * 512: ceil(256) = 256), computed here by sorting a copy. */
/* The fallback to a naive predictor.  Class ">8": 20 jobs with the
 * estimate 1,000 s whose candidates were raw 1,000, shift 900, scale 800,
 * wait 50, now 0 s and shift mode 700 s all start at 50 s: |errors| 950 /
 * 850 / 750 / 0 / 50 / 650.  T (c->err: the twenty starts at 50 s
 * against the point 0) is 50 s: wait and now each have 16 of their last 16
 * |errors| within it, the others none; of the two, wait has the smaller
 * median, so the key's wait (every wait is 50 s, so is
 * the middle of their shortest half) is the point of a new promise,
 * whatever its estimate (2,000 s); the bound is the ratio's: every ratio
 * is (50 + 60) / (1,000 + 60), so (2,000 + 60) x 110/1,060 - 60 =
 * 153.77 s (ratio rounded to 103,774 ppm: 2,060 x 0.103774 - 60 =
 * 153.774 s, rounded to the ms), above the point. */
static void test_naive_fallback(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    gs_eta_cal_init(c);
    static const double cand[GS_ETA_CANDIDATES] = { 1000, 900, 800, 50, 0, 700 };
    for (int i = 0; i < 20; i++) {
        struct gs_eta_rec q = rec_at(3, 1000);
        for (int m = 0; m < GS_ETA_CANDIDATES; m++)
            q.cand[m] = SEC(cand[m]);
        gs_eta_cal_observe(c, &q, SEC(50));
    }
    struct gs_eta_rec p = rec_at(3, 2000);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.chosen, 3);
    assert_int_equal(p.cal, SEC(50));
    assert_int_equal(p.p90, 153774);
    free(c);
}

/* The point's selection by the threshold (eta.c choose).  First 20 jobs
 * of class "1" without candidates (so they leave no |errors|), point 0 s
 * (rec_at), start at 50 s: they fill the errors of waiting jobs' points
 * (c->err) with 50 s.  Then 20 class-">8" jobs, point 0 s too, whose
 * candidates were raw = start + 100 s (|error| 100 s each), now = 0
 * (|error| = its start) and the four others start + 10,000 s: 8 of them
 * start at 30 s, 12 at 5,000 s.  c->err then holds 20 x 50 s and the 20
 * starts: 40 values, the 20th (nearest rank of 0.5) is 50 s = T.
 * Case A, the 8 short ones last: the last 16 |errors| of now hold 8
 * within 50 s, raw's none (100 > 50), the others none: now is the point
 * (0 s), although its median |error| (the 10th of 20: 5,000 s) is above
 * raw's (100 s), which the median alone would take.
 * Case B, 4 short ones first and 16 at 5,000 s: T is again 50 s (4 x 30,
 * 20 x 50, 16 x 5,000: the 20th is 50 s); the last 16 |errors| of now are
 * all 5,000 s, so no candidate came within T lately: the tie goes to the
 * smaller median, raw's 100 s (now's: 5,000 s), and the point is the
 * estimate, 2,000 s.  (Counted over the whole window, now would win with
 * 4 against 0.) */
static void fill_threshold(struct gs_eta_cal *c, int nshort, int short_last)
{
    gs_eta_cal_init(c);
    for (int i = 0; i < 20; i++) {
        struct gs_eta_rec r = rec_at(0, 100);
        gs_eta_cal_observe(c, &r, SEC(50));
    }
    for (int i = 0; i < 20; i++) {
        int is_short = short_last ? i >= 20 - nshort : i < nshort;
        double st = is_short ? 30 : 5000;
        struct gs_eta_rec q = rec_at(3, 1000);
        for (int m = 0; m < GS_ETA_CANDIDATES; m++)
            q.cand[m] = SEC(st + 10000);
        q.cand[0] = SEC(st + 100);
        q.cand[4] = 0;
        gs_eta_cal_observe(c, &q, SEC(st));
    }
    assert_int_equal(c->err.n, 40);
}

static void test_threshold_choice(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    fill_threshold(c, 8, 1);
    struct gs_eta_rec p = rec_at(3, 2000);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.chosen, 4);
    assert_int_equal(p.cal, 0);
    fill_threshold(c, 4, 0);
    p = rec_at(3, 2000);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.chosen, 0);
    assert_int_equal(p.cal, SEC(2000));
    free(c);
}

/* The switch to a naive predictor (eta.c naive_switch).  20 class-">8"
 * jobs of basis profile, submitted at 0, start at 100 s; their promise
 * had the candidates raw = 1,000 s, the five others 5,000 s (the per-key
 * choice: rec_at's est, chosen -1, so kerr takes the point 1,000 s), and
 * the naive class median `nm`.  c->err and kerr then hold 20 x |100 -
 * 1,000| = 900 s: T = 900 s (median of err), and the per-key choice
 * brought 20 of the last 20 within T (900 <= 900).
 * Case A, nm = 100 s (|error| 0): the class median also brings 20 within T,
 * not more, so the point stays the per-key choice: the raw estimate
 * 1,000 s wins the count of its own window (every candidate's last 16
 * |errors|: raw 900 s <= T, the others 4,900 s), so the point is a new
 * promise's raw, 2,000 s.
 * Case B, the per-key choice missed: its |errors| are 20 x 900 s, but T is
 * taken from c->err, which the same jobs filled; to make T smaller than
 * 900 s, 20 more class-"1" jobs (basis profile, no candidates: they
 * leave only err, kerr, nerr, werr) with point 0 start at 50 s and have
 * nm = 50 s: c->err holds 20 x 50 s then 20 x 900 s, its 20th value
 * (nearest rank of 0.5 of 40) is 50 s = T.  Over the last 128 (all 40):
 * kerr has 20 within 50 s (the class-"1" ones: |50 - 0|), nerr 40 (nm =
 * 100 s for the ">8" ones: |100 - 100| = 0; 50 s for the others: 0);
 * werr (|start - 0|): 50 s within, 100 s not: 20.  40 > 20 + margin 0
 * and 40 >= 20: the point of a new ">8" promise is its naive class median,
 * 300 s (set on the promise), although its per-key choice (raw) stays
 * chosen = 0.
 * Case C, now better than both: as B, but the ">8" jobs had nm = 5,000 s
 * (|error| 4,900 s > T) and started at 30 s (the candidates' errors move
 * with it: raw 970 s): nerr 20 within T (the class-"1" ones), werr 40
 * (30 and 50 s <= 50 s), kerr 20 (|30 - 1,000| = 970 s > T): now wins,
 * the point is the promise's submit, 0. */
static void fill_switch(struct gs_eta_cal *c, int with_short, double nm, double st)
{
    gs_eta_cal_init(c);
    for (int i = 0; with_short && i < 20; i++) {
        struct gs_eta_rec r = rec_at(0, 100);
        r.cal = 0;
        r.naive_median = SEC(50);
        gs_eta_cal_observe(c, &r, SEC(50));
    }
    for (int i = 0; i < 20; i++) {
        struct gs_eta_rec q = rec_at(3, 1000);
        for (int m = 0; m < GS_ETA_CANDIDATES; m++)
            q.cand[m] = SEC(5000);
        q.cand[0] = SEC(1000);
        q.cal = SEC(1000);
        q.naive_median = SEC(nm);
        gs_eta_cal_observe(c, &q, SEC(st));
    }
}

static void test_naive_switch(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    fill_switch(c, 0, 100, 100); /* case A */
    struct gs_eta_rec p = rec_at(3, 2000);
    p.naive_median = SEC(300);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.chosen, 0);
    assert_int_equal(p.cal, SEC(2000));
    fill_switch(c, 1, 100, 100); /* case B */
    assert_int_equal(c->err.sorted[19], SEC(50)); /* nearest rank 0.5 of 40: the 20th */
    p = rec_at(3, 2000);
    p.naive_median = SEC(300);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.chosen, 0);
    assert_int_equal(p.cal, SEC(300));
    assert_true(p.p90 >= p.cal);
    p = rec_at(3, 2000); /* the same without a naive median: no switch */
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cal, SEC(2000));
    p = rec_at(3, 2000); /* a promise "now" is never switched */
    p.basis = GS_BASIS_NOW;
    p.naive_median = SEC(300);
    gs_eta_cal_apply(c, &p);
    assert_true(p.cal != SEC(300));
    fill_switch(c, 1, 5000, 30); /* case C */
    p = rec_at(3, 2000);
    p.naive_median = SEC(300);
    gs_eta_cal_apply(c, &p);
    assert_int_equal(p.cal, 0);
    free(c);
}

/* The calibration rebuilt from what a journal keeps (the daemon's
 * loop_eta.c): after each observe, the ring slots each window of the
 * changed keys was pushed into (gs_eta_win.pushed, then zeroed), the
 * window's cursor and the key's level.  3,000 promises of every class,
 * basis and bucket, with candidates and bounds, start at pseudo-random
 * times (so that windows wrap and the same-value shortcut of a push is
 * taken); a calibration set from the kept slots with gs_eta_win_set then
 * makes the same promise as the original, field by field, for every
 * class and basis, and its windows hold the same sorted values. */
static gs_time kept[GS_ETA_NKEYS * GS_ETA_KEY_WINS][GS_ETA_WINDOW];
static int kept_n[GS_ETA_NKEYS * GS_ETA_KEY_WINS], kept_next[GS_ETA_NKEYS * GS_ETA_KEY_WINS];
static double kept_level[GS_ETA_NKEYS];

static void keep_keys(struct gs_eta_cal *c, const int *keys, int nk)
{
    for (int i = 0; i < nk; i++)
        for (int w = 0; w < GS_ETA_KEY_WINS; w++) {
            struct gs_eta_win *x = gs_eta_cal_win(c, keys[i], w);
            if (!x)
                break;
            int id = keys[i] * GS_ETA_KEY_WINS + w;
            for (int k = x->pushed < x->n ? x->pushed : x->n; k > 0; k--) {
                int slot = (x->next - k + GS_ETA_WINDOW) % GS_ETA_WINDOW;
                kept[id][slot] = x->v[slot];
            }
            x->pushed = 0;
            kept_n[id] = x->n;
            kept_next[id] = x->next;
            const double *lv = gs_eta_cal_level(c, keys[i]);
            kept_level[keys[i]] = lv ? *lv : 0;
        }
}

/* Field by field (a struct's padding is not part of its value). */
static void assert_rec_equal(const struct gs_eta_rec *p, const struct gs_eta_rec *q)
{
    assert_int_equal(p->submit, q->submit);
    assert_int_equal(p->est, q->est);
    assert_int_equal(p->p90, q->p90);
    assert_int_equal(p->p90_base, q->p90_base);
    assert_int_equal(p->naive_median, q->naive_median);
    assert_int_equal(p->cal, q->cal);
    assert_memory_equal(p->cand, q->cand, sizeof p->cand);
    assert_int_equal(p->basis, q->basis);
    assert_int_equal(p->size_class, q->size_class);
    assert_int_equal(p->bucket, q->bucket);
    assert_int_equal(p->chosen, q->chosen);
    assert_int_equal(p->recorded, q->recorded);
    assert_int_equal(p->observed, q->observed);
    assert_int_equal(p->missed, q->missed);
}

static void test_rebuild_from_journal(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c), *b = calloc(1, sizeof *b);
    assert_true(c && b);
    gs_eta_cal_init(c);
    uint32_t x = 12345;
    int dirty[7 * GS_ETA_OBS_KEYS], ndirty = 0;
    for (int i = 0; i < 3000; i++) {
        x = x * 1103515245u + 12345u;
        struct gs_eta_rec r = rec_at(i % GS_SIZE_CLASSES, (double)(x >> 20 & 1023));
        r.basis = 1 + (int)(x >> 8) % (GS_ETA_BASES - 1);
        r.bucket = (int)(x >> 12) % GS_ETA_BUCKETS;
        r.submit = SEC(i);
        r.est = gs_time_add(r.submit, r.est);
        r.naive_median = gs_time_add(r.submit, SEC((x >> 24) % 600)); /* the switch's windows too */
        gs_eta_cal_apply(c, &r);
        int keys[GS_ETA_OBS_KEYS], nk = gs_eta_cal_keys_of(&r, keys);
        assert_int_equal(nk, r.basis == GS_BASIS_NOW ? 4 : 5); /* + the errors unless now */
        gs_time start = gs_time_add(r.submit, SEC((x >> 4) % 7 == 0 ? 30 : (x >> 16) % 2000));
        gs_eta_cal_observe(c, &r, start);
        for (int k = 0; k < nk; k++)
            dirty[ndirty++] = keys[k];
        if (i % 7 == 6 || i == 2999) { /* a save every 7 starts: pushed up to 7 */
            keep_keys(c, dirty, ndirty);
            ndirty = 0;
        }
    }
    gs_eta_cal_init(b);
    for (int key = 0; key < GS_ETA_NKEYS; key++) {
        double *lv = gs_eta_cal_level(b, key);
        if (lv)
            *lv = kept_level[key] ? kept_level[key] : 0.9;
        for (int w = 0; w < GS_ETA_KEY_WINS; w++) {
            struct gs_eta_win *y = gs_eta_cal_win(b, key, w), *o = gs_eta_cal_win(c, key, w);
            if (!y)
                break;
            int id = key * GS_ETA_KEY_WINS + w;
            assert_int_equal(gs_eta_win_set(y, kept[id], kept_n[id], kept_next[id]), 0);
            assert_int_equal(y->n, o->n);
            assert_memory_equal(y->sorted, o->sorted, (size_t)o->n * sizeof(gs_time));
        }
    }
    int full = 0;
    for (int cl = 0; cl < GS_SIZE_CLASSES; cl++)
        for (int bs = 0; bs < GS_ETA_BASES; bs++) {
            struct gs_eta_rec p = rec_at(cl, 500), q = rec_at(cl, 500);
            p.naive_median = q.naive_median = SEC(40);
            p.basis = q.basis = bs;
            p.bucket = q.bucket = 2;
            gs_eta_cal_apply(c, &p);
            gs_eta_cal_apply(b, &q);
            assert_rec_equal(&p, &q);
            full += p.p90 != GS_TIME_NONE;
        }
    assert_true(full >= GS_SIZE_CLASSES); /* the promises compared were calibrated */
    assert_int_equal(gs_eta_cal_win(c, GS_ETA_NKEYS - 2, 1), NULL); /* a class wait: one window */
    assert_non_null(gs_eta_cal_win(c, GS_ETA_KEY_ERR, 3)); /* the errors: err, kerr, nerr, werr */
    assert_int_equal(gs_eta_cal_win(c, GS_ETA_KEY_ERR, 4), NULL);
    assert_true(c->nerr.n == GS_ETA_WINDOW && c->kerr.n == GS_ETA_WINDOW);
    assert_int_equal(gs_eta_cal_level(c, GS_ETA_KEY_ERR), NULL);
    assert_int_equal(gs_eta_cal_level(c, GS_ETA_NKEYS - 1), NULL);
    assert_int_equal(gs_eta_win_set(gs_eta_cal_win(b, 0, 0), kept[0], 3, 5), GS_EINVAL);
    free(c);
    free(b);
}

static void test_window_order(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    gs_eta_cal_init(c);
    enum { N = 3000 };
    static gs_time e[N];
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        e[i] = SEC(100.0 * (double)((x >> 16) % 50) - 500);
        struct gs_eta_rec r = rec_at(0, 1000);
        gs_eta_cal_observe(c, &r, r.est + e[i]);
        if (i == 700 || i == N - 1) {
            gs_time last[GS_ETA_WINDOW];
            memcpy(last, e + i + 1 - GS_ETA_WINDOW, sizeof last);
            qsort(last, GS_ETA_WINDOW, sizeof *last, cmp_gs_time);
            struct gs_eta_rec p = rec_at(0, 1000);
            gs_eta_cal_apply(c, &p);
            gs_time want = SEC(1000) + last[GS_ETA_WINDOW / 2 - 1];
            assert_int_equal(p.cand[1], want < 0 ? 0 : want);
        }
    }
    free(c);
}


static void test_stats(void **state)
{
    (void)state;
    static const double v[4][6] = { { 10, 30, 20, 5, 20, 0 }, { 50, 60, 80, 5, 100, 1 },
                                     { 0, -1, 0, 5, 0, 0 }, { 40, 90, 40, 5, -1, 0 } };
    struct gs_eta_rec r[4];
    gs_time start[4];
    for (int i = 0; i < 4; i++) {
        r[i] = rec_at((int)v[i][5], v[i][0]);
        r[i].p90 = v[i][1] < 0 ? GS_TIME_NONE : SEC(v[i][1]);
        r[i].cal = SEC(v[i][2]);
        r[i].naive_median = SEC(v[i][3]);
        start[i] = v[i][4] < 0 ? GS_TIME_NONE : SEC(v[i][4]);
    }
    r[1].basis = GS_BASIS_RESERVATION;
    r[2].basis = GS_BASIS_NOW;
    struct gs_eta_stats st;
    assert_int_equal(gs_eta_stats_build(r, start, 4, &st), 0);
    assert_int_equal(st.jobs, 4);
    assert_int_equal(st.estimated, 4);
    assert_int_equal(st.unstarted, 1);
    assert_int_equal(st.all.n, 3);
    assert_true(st.all.med_abs_s == 10);
    assert_true(st.all.p90_abs_s == 50);
    assert_true(st.all.cal_med_abs_s == 0);
    assert_true(st.all.cal_p90_abs_s == 20);
    assert_int_equal(st.all.n_bound, 2);
    assert_int_equal(st.all.covered, 1);
    assert_true(st.all.now_med_abs_s == 20);
    assert_true(st.all.class_med_abs_s == 15);
    /* class "1": J1 and J3 (J4 never started): errors 10, 0 -> median 5 */
    assert_int_equal(st.by_size[0].n, 2);
    assert_true(st.by_size[0].med_abs_s == 5);
    /* basis reservation: J2 alone, not covered */
    assert_int_equal(st.by_basis[GS_BASIS_RESERVATION].n, 1);
    assert_int_equal(st.by_basis[GS_BASIS_RESERVATION].covered, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reservation_behind_running),
        cmocka_unit_test(test_quota_held),
        cmocka_unit_test(test_cannot_estimate),
        cmocka_unit_test(test_calibration),
        cmocka_unit_test(test_naive_fallback),
        cmocka_unit_test(test_threshold_choice),
        cmocka_unit_test(test_naive_switch),
        cmocka_unit_test(test_level_past_one),
        cmocka_unit_test(test_rebuild_from_journal),
        cmocka_unit_test(test_window_order),
        cmocka_unit_test(test_bound_widening),
        cmocka_unit_test(test_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

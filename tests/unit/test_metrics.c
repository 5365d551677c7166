/* test_metrics.c - order statistics (numpy's linear-interpolation
 * percentiles), the time-weighted accumulator (util, S_k mean, share with
 * S_k >= 1, windows, fragmentation) and the job summary built from an
 * engine driven by hand.
 *
 * Percentile rule (stats.h, DESIGN.md section 3): for sorted v[0..n-1] the
 * q-th percentile sits at position q*(n-1); between ranks lo and lo+1 it is
 * v[lo] + (v[lo+1] - v[lo]) * frac.  Every expected value is worked out in
 * the comment next to it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/metrics/metrics.h"
#include "core/base/stats.h"
#include "testutil.h"

#define EPS 1e-9

static void near(double got, double want, const char *what)
{
    if (!(got > want - EPS && got < want + EPS))
        fail_msg("%s: got %.12g want %.12g", what, got, want);
}

/* gs_percentile_sorted on small arrays, by hand. */
static void test_percentile_sorted(void **state)
{
    (void)state;
    static const double v4[] = { 1, 2, 3, 4 };
    static const double v5[] = { 10, 20, 30, 40, 50 };
    static const double v2[] = { 1, 3 };
    static const double v1[] = { 5 };
    static const double dup[] = { 0, 0, 0, 70 };
    static const struct {
        const double *v;
        size_t n;
        double q, want;
    } rows[] = {
        { v4, 4, 0.50, 2.5 },    /* pos 1.5: 2 + 0.5*(3-2) */
        { v4, 4, 0.90, 3.7 },    /* pos 2.7: 3 + 0.7*(4-3) */
        { v4, 4, 0.99, 3.97 },   /* pos 2.97: 3 + 0.97 */
        { v4, 4, 0.00, 1 },      /* pos 0 */
        { v4, 4, 1.00, 4 },      /* pos 3 */
        { v4, 4, 0.25, 1.75 },   /* pos 0.75: 1 + 0.75 */
        { v5, 5, 0.50, 30 },     /* pos 2 exactly */
        { v5, 5, 0.90, 46 },     /* pos 3.6: 40 + 0.6*10 */
        { v5, 5, 0.99, 49.6 },   /* pos 3.96: 40 + 0.96*10 */
        { v2, 2, 0.25, 1.5 },    /* pos 0.25: 1 + 0.25*2 */
        { v1, 1, 0.50, 5 },      /* one value: itself */
        { v1, 1, 0.99, 5 },
        { dup, 4, 0.50, 0 },     /* pos 1.5 between 0 and 0 */
        { dup, 4, 0.90, 49 },    /* pos 2.7: 0 + 0.7*70 */
        { dup, 4, 0.99, 67.9 },  /* pos 2.97: 0.97*70 */
        { v4, 0, 0.50, 0 },      /* empty: 0 */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "row %zu", i);
        near(gs_percentile_sorted(rows[i].v, rows[i].n, rows[i].q), rows[i].want, what);
    }
}

/* gs_pctl_compute sorts in place and fills n, p50, p90, p99, mean, max. */
static void test_pctl_compute(void **state)
{
    (void)state;
    double v[] = { 4, 1, 3, 2 };
    struct gs_pctl p;
    gs_pctl_compute(&p, v, 4);
    assert_int_equal(p.n, 4);
    near(p.p50, 2.5, "p50");     /* as [1,2,3,4] */
    near(p.p90, 3.7, "p90");
    near(p.p99, 3.97, "p99");
    near(p.mean, 2.5, "mean");   /* 10 / 4 */
    near(p.max, 4, "max");
    near(v[0], 1, "sorted");
    near(v[3], 4, "sorted");
    /* one long wait among 100: the mean (40) is far above the median (0) */
    double w[100] = { 0 };
    w[17] = 4000;
    gs_pctl_compute(&p, w, 100);
    near(p.mean, 40, "skew mean");     /* 4000 / 100 */
    near(p.p50, 0, "skew p50");
    near(p.p99, 0.01 * 4000, "skew p99"); /* pos 98.01: 0 + 0.01*4000 = 40 */
    near(p.max, 4000, "skew max");
    gs_pctl_compute(&p, NULL, 0);
    assert_int_equal(p.n, 0);
    near(p.p50 + p.p90 + p.p99 + p.mean + p.max, 0, "empty");
}

/* gs_dvec grows and frees. */
static void test_dvec(void **state)
{
    (void)state;
    struct gs_dvec d = { 0 };
    for (int i = 0; i < 1000; i++)
        assert_int_equal(gs_dvec_push(&d, i * 0.5), 0);
    assert_int_equal(d.n, 1000);
    near(d.v[999], 499.5, "last");
    gs_dvec_fini(&d);
    assert_null(d.v);
    assert_int_equal(d.n, 0);
    gs_dvec_fini(&d);
}

/* Size classes and their labels. */
static void test_size_classes(void **state)
{
    (void)state;
    static const struct {
        int gpus, cls;
    } rows[] = { { 0, 0 }, { 1, 0 }, { 2, 1 }, { 4, 1 }, { 5, 2 }, { 8, 2 }, { 9, 3 }, { 64, 3 } };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(gs_job_size_class(rows[i].gpus), rows[i].cls);
    assert_string_equal(gs_size_class_name(0), "1");
    assert_string_equal(gs_size_class_name(1), "2-4");
    assert_string_equal(gs_size_class_name(2), "5-8");
    assert_string_equal(gs_size_class_name(3), ">8");
}

/* A gs_cluster_stats value for the accumulator tests. */
static struct gs_cluster_stats st(int64_t used_milli, int64_t sched, int64_t count,
                                  int64_t topo)
{
    struct gs_cluster_stats s = { 0 };
    s.k = 8;
    s.gpus = 8;
    s.used_milli = used_milli;
    s.sched = sched;
    s.frag_count = count;
    s.frag_topology = topo;
    return s;
}

struct sample {
    double t;
    struct gs_cluster_stats s;
};

/* Feed samples, close, and build a summary against an empty 8-GPU engine. */
static void summarize(const struct sample *v, size_t n, double end, struct gs_summary *out)
{
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    struct gs_engine *eng = gs_engine_create(cl, &pol, NULL);
    assert_non_null(eng);
    struct gs_metrics *m = gs_metrics_create();
    assert_non_null(m);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(gs_metrics_sample(m, SEC(v[i].t), &v[i].s), 0);
    assert_int_equal(gs_metrics_close(m, SEC(end)), 0);
    assert_int_equal(gs_summary_build(out, m, eng), 0);
    gs_metrics_destroy(m);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* Time-weighted figures over a 40 s span on 8 GPUs:
 *   [0,10)  used 0,     S 1, frag count 0
 *   [10,30) used 4 GPU, S 0, frag count 4
 *   [30,40) used 0,     S 2, frag count 0 */
static void test_time_weighted(void **state)
{
    (void)state;
    const struct sample v[] = {
        { 0, st(0, 1, 0, 0) },
        { 10, st(4000, 0, 4, 0) },
        { 30, st(0, 2, 0, 0) },
    };
    struct gs_summary s;
    summarize(v, 3, 40, &s);
    assert_int_equal(s.span_start, 0);
    assert_int_equal(s.span_end, SEC(40));
    assert_int_equal(s.gpus, 8);
    near(s.util_alloc, 0.25, "util");            /* 4*20 / (8*40) = 80/320 */
    near(s.sched.mean, 0.75, "S mean");          /* (1*10 + 0*20 + 2*10)/40 */
    near(s.sched.share_ge1, 0.5, "share");       /* (10 + 10)/40 */
    assert_int_equal(s.sched.windows, 2);        /* [0,10) and [30,40) */
    near(s.sched.win_mean, 10, "win mean");
    near(s.sched.win_max, 10, "win max");
    near(s.frag.count, 2, "frag count");         /* 4*20/40 */
    near(s.frag.topology, 0, "frag topo");
    near(s.jobs_per_gpu_day, 0, "jobs/GPU-day"); /* nothing completed */
    assert_int_equal(s.jobs, 0);
    gs_summary_fini(&s);
}

/* Windows of S_k >= 1 of different lengths, repeated samples at one time:
 *   t:  0   5   20  25  30  30  50 | close 60
 *   S:  1   3   0   1   0   0   2
 * windows: [0,20) = 20 s, [25,30) = 5 s, [50,60) = 10 s
 * mean S = (1*5 + 3*15 + 0*5 + 1*5 + 0*20 + 2*10)/60 = 75/60 = 1.25
 * share >= 1 = (20 + 5 + 10)/60 = 35/60
 * window lengths sorted 5, 10, 20: p50 10, p90 pos 1.8 -> 10 + 0.8*10 = 18,
 * mean 35/3, max 20.  Topology fragmentation 8 during [25,30): 8*5/60. */
static void test_windows(void **state)
{
    (void)state;
    const struct sample v[] = {
        { 0, st(0, 1, 0, 0) },  { 5, st(0, 3, 0, 0) },  { 20, st(0, 0, 0, 0) },
        { 25, st(0, 1, 0, 8) }, { 30, st(0, 0, 0, 0) }, { 30, st(0, 0, 0, 0) },
        { 50, st(0, 2, 0, 0) },
    };
    struct gs_summary s;
    summarize(v, 7, 60, &s);
    near(s.sched.mean, 1.25, "S mean");
    near(s.sched.share_ge1, 35.0 / 60, "share");
    assert_int_equal(s.sched.windows, 3);
    near(s.sched.win_p50, 10, "p50");
    near(s.sched.win_p90, 18, "p90");
    near(s.sched.win_mean, 35.0 / 3, "mean");
    near(s.sched.win_max, 20, "max");
    near(s.frag.topology, 40.0 / 60, "topo");
    gs_summary_fini(&s);
}

/* A window is time with S_k >= 1: an instant with S_k >= 1 that lasts no
 * time (at the very end of the span, or replaced at the same timestamp) is
 * not a window.  share_ge1 = 0 must go with windows = 0. */
static void test_zero_length_window_not_counted(void **state)
{
    (void)state;
    /* S = 0 on [0,10), S = 1 only at t = 10 = the end */
    const struct sample at_end[] = { { 0, st(0, 0, 0, 0) }, { 10, st(0, 1, 0, 0) } };
    struct gs_summary s;
    summarize(at_end, 2, 10, &s);
    near(s.sched.share_ge1, 0, "share at end");
    assert_int_equal(s.sched.windows, 0);
    gs_summary_fini(&s);
    /* S = 1 at t = 5 replaced by S = 0 at the same t = 5 */
    const struct sample same_t[] = {
        { 0, st(0, 0, 0, 0) }, { 5, st(0, 1, 0, 0) }, { 5, st(0, 0, 0, 0) } };
    summarize(same_t, 3, 10, &s);
    near(s.sched.share_ge1, 0, "share same t");
    assert_int_equal(s.sched.windows, 0);
    gs_summary_fini(&s);
}

/* No samples and an immediate close: a zero span gives zeros, not NaN. */
static void test_empty_span(void **state)
{
    (void)state;
    struct gs_summary s;
    summarize(NULL, 0, 0, &s);
    near(s.util_alloc, 0, "util");
    near(s.sched.mean, 0, "S mean");
    near(s.jobs_per_gpu_day, 0, "jobs/GPU-day");
    assert_int_equal(s.sched.windows, 0);
    gs_summary_fini(&s);
    gs_summary_fini(NULL);
}

/* Step the engine and sample the cluster, as a driver does. */
static void step_sample(struct gs_engine *eng, struct gs_metrics *m, double t)
{
    assert_true(gs_engine_step(eng, SEC(t), NULL) >= 0);
    struct gs_cluster_stats s = gs_cluster_stats(gs_engine_cluster(eng));
    assert_int_equal(gs_metrics_sample(m, SEC(t), &s), 0);
}

static void sub(struct gs_engine *eng, double t, const char *id, int gpus, const char *team)
{
    struct gs_job_spec s = spec_of(id, SEC(t), gpus);
    s.team = team;
    assert_true(gs_engine_submit(eng, SEC(t), &s, NULL) >= 0);
}

/* The job half of the summary, on "n1:8" under FIFO (strict HOL), pack:
 *   t=0   A(1, zeta) starts on GPU 0; B(8, alpha) blocks; D(12, zeta) is
 *         rejected at submit.
 *   t=5   C(4, alpha) waits behind B.   t=6  E(2, mid) waits too.
 *   t=10  A ends; B starts (all 8).
 *   t=30  B ends; C starts (0-3), E starts (4,5).
 *   t=40  C and E end.
 * waits: A 0, B 10, C 25, E 24 -> sorted 0, 10, 24, 25: p50 pos 1.5 = 17,
 *   p90 pos 2.7 = 24.7, p99 pos 2.97 = 24.97, mean 59/4 = 14.75, max 25.
 * jct: A 10, B 30, C 35, E 34 -> sorted 10, 30, 34, 35: p50 32, mean 27.25.
 * by size: "1" A [0]; "2-4" C, E [24, 25] -> p50 24.5; "5-8" B [10];
 *   ">8" none (D never started).
 * teams by name: alpha B, C [10, 25] -> p50 17.5; mid E [24]; zeta A [0].
 * util: GPU-s A 1*10 + B 8*20 + C 4*10 + E 2*10 = 230 over 8*40 = 320.
 * jobs/GPU-day: 4 completed / (8 GPUs * 40/86400 days) = 1080.
 * S_8 = 0 for all of [0,40); frag count: idle 7 on [0,10), 0 on [10,30),
 *   2 on [30,40) -> (70 + 0 + 20)/40 = 2.25. */
static void test_summary_from_engine(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    struct gs_engine *eng = gs_engine_create(cl, &pol, NULL);
    struct gs_metrics *m = gs_metrics_create();
    sub(eng, 0, "A", 1, "zeta");
    sub(eng, 0, "B", 8, "alpha");
    sub(eng, 0, "D", 12, "zeta");
    step_sample(eng, m, 0);
    sub(eng, 5, "C", 4, "alpha");
    step_sample(eng, m, 5);
    sub(eng, 6, "E", 2, "mid");
    step_sample(eng, m, 6);
    assert_int_equal(gs_engine_finish(eng, SEC(10), gs_engine_job_find(eng, "A"), NULL), 0);
    step_sample(eng, m, 10);
    assert_int_equal(gs_engine_finish(eng, SEC(30), gs_engine_job_find(eng, "B"), NULL), 0);
    step_sample(eng, m, 30);
    assert_int_equal(gs_engine_finish(eng, SEC(40), gs_engine_job_find(eng, "C"), NULL), 0);
    assert_int_equal(gs_engine_finish(eng, SEC(40), gs_engine_job_find(eng, "E"), NULL), 0);
    step_sample(eng, m, 40);
    assert_int_equal(gs_metrics_close(m, SEC(40)), 0);
    struct gs_summary s;
    assert_int_equal(gs_summary_build(&s, m, eng), 0);
    assert_int_equal(s.jobs, 5);
    assert_int_equal(s.completed, 4);
    assert_int_equal(s.rejected, 1);
    assert_int_equal(s.unfinished, 0);
    assert_int_equal(s.wait.n, 4);
    near(s.wait.p50, 17, "wait p50");
    near(s.wait.p90, 24.7, "wait p90");
    near(s.wait.p99, 24.97, "wait p99");
    near(s.wait.mean, 14.75, "wait mean");
    near(s.wait.max, 25, "wait max");
    near(s.jct.p50, 32, "jct p50");
    near(s.jct.mean, 27.25, "jct mean");
    near(s.jct.max, 35, "jct max");
    assert_int_equal(s.wait_by_size[0].n, 1);
    near(s.wait_by_size[0].max, 0, "size 1");
    assert_int_equal(s.wait_by_size[1].n, 2);
    near(s.wait_by_size[1].p50, 24.5, "size 2-4");
    assert_int_equal(s.wait_by_size[2].n, 1);
    near(s.wait_by_size[2].p50, 10, "size 5-8");
    assert_int_equal(s.wait_by_size[3].n, 0);
    assert_int_equal(s.nteams, 3);
    assert_string_equal(s.teams[0].team, "alpha");
    assert_string_equal(s.teams[1].team, "mid");
    assert_string_equal(s.teams[2].team, "zeta");
    near(s.teams[0].wait.p50, 17.5, "alpha p50");
    near(s.teams[1].wait.max, 24, "mid");
    assert_int_equal(s.teams[2].wait.n, 1);
    near(s.util_alloc, 230.0 / 320, "util");
    near(s.jobs_per_gpu_day, 1080, "jobs/GPU-day");
    near(s.sched.mean, 0, "S mean");
    near(s.sched.share_ge1, 0, "share");
    near(s.frag.count, 2.25, "frag count");
    assert_int_equal(s.sched.k, 8);
    gs_summary_fini(&s);
    gs_metrics_destroy(m);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile_sorted),
        cmocka_unit_test(test_pctl_compute),
        cmocka_unit_test(test_dvec),
        cmocka_unit_test(test_size_classes),
        cmocka_unit_test(test_time_weighted),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_zero_length_window_not_counted),
        cmocka_unit_test(test_empty_span),
        cmocka_unit_test(test_summary_from_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

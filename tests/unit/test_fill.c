/* test_fill.c - FGD's fill experiment (sim/fill.c): workload inflation,
 * sampling per arrived percent, the FGD measure in the curve, strategies
 * and baselines, medians over seeds, and must-fail options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "core/policy/policy.h"
#include "sim/fill.h"
#include "sim/whatif.h"
#include "testutil.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static struct gs_trace *jobs(int n, int gpus, int milli)
{
    struct gs_trace *tr = gs_trace_create();
    for (int i = 0; i < n; i++) {
        char id[16];
        snprintf(id, sizeof id, "j%d", i);
        struct gs_job_spec s = spec_of(id, 0, gpus);
        s.milli = milli;
        assert_true(gs_trace_add(tr, &s, GS_TIME_NONE) >= 0);
    }
    return tr;
}

static struct gs_fill_result fill(const struct gs_cluster *cl, const struct gs_trace *tr,
                                  const char *policy, double inflate, uint64_t seed)
{
    struct gs_fill_opts o;
    gs_fill_defaults(&o);
    assert_int_equal(gs_fill_policy_find(policy, &o.policy, &o.strategy), 0);
    o.inflate = inflate;
    o.seed = seed;
    struct gs_fill_result r;
    struct gs_error err = { 0 };
    if (gs_fill_run(cl, tr, &o, &r, &err) != 0)
        fail_msg("gs_fill_run: %s", err.msg);
    return r;
}

/* Four identical 1-GPU jobs on "n1:2 n2:2" (k = 2), inflate 1.5: target
 * 6000 milli-GPU, the trace asks 4000 -> two copies (4000 + 1000 + 1000 =
 * 6000, a third would exceed) -> 6 jobs.  pack: n1 GPU0, n1 GPU1 (best fit),
 * n2 GPU0, n2 GPU1, then two fail.  After each job (arrived 25 .. 150 %):
 * unallocated 75, 50, 25, 0, 0, 0; S_2 = 1 (n2 whole), 1, 0, 0, 0, 0.
 * The only shape is "1 GPU": usable = idle GPUs, busy GPUs have no free
 * share -> fragmentation 0 all along.  spread puts job 2 on n2 (more idle)
 * -> S_2 = 0 already at 50 %. */
static void test_identical_jobs(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:2 n2:2");
    struct gs_trace *tr = jobs(4, 1, 1000);
    struct gs_fill_result r = fill(cl, tr, "pack", 1.5, 42);
    assert_int_equal(r.jobs, 6);
    assert_int_equal(r.placed, 4);
    assert_int_equal(r.failed, 2);
    assert_int_equal(r.k, 2);
    assert_int_equal(r.shapes, 1);
    static const int at[] = { 25, 50, 75, 100, 125, 150 };
    static const double unalloc[] = { 75, 50, 25, 0, 0, 0 }, sched[] = { 1, 1, 0, 0, 0, 0 };
    for (int i = 0; i < 6; i++) {
        const struct gs_fill_point *p = &r.points[at[i]];
        assert_int_equal(p->arrived, at[i]);
        assert_true(NEAR(p->unallocated, unalloc[i]));
        assert_true(NEAR(p->schedulability, sched[i]));
        assert_true(NEAR(p->frag_amount, 0) && NEAR(p->frag_ratio, 0));
    }
    assert_int_equal(r.points[37].arrived, -1); /* no sample within 1 % */
    assert_int_equal(r.points[26].arrived, 26); /* the 25 % sample next door */
    gs_fill_result_fini(&r);
    r = fill(cl, tr, "spread", 1.5, 42);
    assert_true(NEAR(r.points[50].schedulability, 0));
    gs_fill_result_fini(&r);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* The FGD measure in the curve.  One 2-GPU node; a 0.5-share job and a
 * whole 1-GPU job; inflate 0.75: target 1500 = the trace -> no copies.
 * Whatever the order, pack ends with one GPU full and one half used
 * (free 500).  Shapes {0.5: 0.5, 1 GPU: 0.5}: the share fits (frag 0);
 * no idle GPU for the whole one -> all 500 free is fragment -> F = 250.
 * At 75 %: unallocated 25 %, ratio 250/500 = 50 %, amount 250/2000 =
 * 12.5 %. */
static void test_measure_in_curve(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:2");
    struct gs_trace *tr = gs_trace_create();
    struct gs_job_spec a = spec_of("a", 0, 1), b = spec_of("b", 0, 1);
    a.milli = 500;
    gs_trace_add(tr, &a, GS_TIME_NONE);
    gs_trace_add(tr, &b, GS_TIME_NONE);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct gs_fill_result r = fill(cl, tr, "pack", 0.75, seed);
        const struct gs_fill_point *p = &r.points[75];
        assert_int_equal(r.shapes, 2);
        assert_true(NEAR(p->unallocated, 25) && NEAR(p->frag_ratio, 50) &&
                    NEAR(p->frag_amount, 12.5));
        gs_fill_result_fini(&r);
    }
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* Baselines: same seed, same curve; every policy name resolves. */
static void test_baselines_reproducible(void **state)
{
    (void)state;
    static const char *const names[] = { "random", "dotprod", "clustering", "packing",
                                         "bestfit", "fgd", "topo", "frag" };
    struct gs_cluster *cl = cluster_of("n1:4 n2:4 n3:2");
    struct gs_trace *tr = gs_trace_create();
    const int milli[] = { 300, 1000, 700, 1000, 500 };
    for (int i = 0; i < 5; i++) {
        char id[16];
        snprintf(id, sizeof id, "p%d", i);
        struct gs_job_spec s = spec_of(id, 0, 1);
        s.milli = milli[i];
        gs_trace_add(tr, &s, GS_TIME_NONE);
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct gs_fill_result x = fill(cl, tr, names[i], 1.2, 7), y = fill(cl, tr, names[i], 1.2, 7);
        assert_int_equal(x.npoints, y.npoints);
        for (int k = 0; k < x.npoints; k++)
            assert_true(NEAR(x.points[k].unallocated, y.points[k].unallocated));
        assert_int_equal(x.placed + x.failed, x.jobs);
        gs_fill_result_fini(&x);
        gs_fill_result_fini(&y);
    }
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* The median over seeds, point by point; a percent missing in one run is
 * left out.  Runs with unallocated {10, 30, 20} at 1 % -> 20; at 2 % only
 * two runs have data -> dropped. */
static void test_median(void **state)
{
    (void)state;
    struct gs_fill_point pts[3][3];
    struct gs_fill_result runs[3];
    const double u[3] = { 10, 30, 20 };
    for (int r = 0; r < 3; r++) {
        memset(pts[r], 0, sizeof pts[r]);
        for (int a = 0; a < 3; a++) {
            pts[r][a].arrived = a;
            pts[r][a].unallocated = u[r] + a;
        }
        runs[r] = (struct gs_fill_result){ .npoints = 3, .points = pts[r], .jobs = 5, .k = 8 };
    }
    pts[1][2].arrived = -1;
    struct gs_fill_result m;
    assert_int_equal(gs_fill_median(runs, 3, &m), 0);
    assert_int_equal(m.npoints, 2);
    assert_int_equal(m.points[1].arrived, 1);
    assert_true(NEAR(m.points[1].unallocated, 21));
    assert_int_equal(m.jobs, 15);
    gs_fill_result_fini(&m);
}

/* One run of first_fit with the tie order `ties`; returns S_8 after the
 * first job.  Cluster "n1:1 n2:2 n3:4 n4:8" (15 GPUs, k = 8), one 1-GPU
 * job, inflate 1/15: target 1000 = the trace -> one job, arrived 1000/15000
 * = 6.7 % -> point 7.  first_fit puts it on the first node of the order:
 * S_8 = 0 exactly when that is n4 (its only 8-GPU unit breaks), else 1. */
static double first_job_sched(const struct gs_cluster *cl, const struct gs_trace *tr, int ties,
                              uint64_t seed)
{
    struct gs_fill_opts o;
    gs_fill_defaults(&o);
    assert_int_equal(gs_fill_policy_find("first_fit", &o.policy, &o.strategy), 0);
    o.inflate = 1.0 / 15;
    o.seed = seed;
    o.ties = ties;
    struct gs_fill_result r;
    struct gs_error err = { 0 };
    if (gs_fill_run(cl, tr, &o, &r, &err) != 0)
        fail_msg("gs_fill_run: %s", err.msg);
    assert_int_equal(r.jobs, 1);
    assert_int_equal(r.points[7].arrived, 7);
    double s = r.points[7].schedulability;
    gs_fill_result_fini(&r);
    return s;
}

/* FGD's protocol: a random node order per seed decides ties.  The same
 * seed gives the same order (and answer) every time; over seeds 1-40 n4
 * comes first in some orders and not in others (each order puts n4 first
 * with probability 1/4, so all 40 alike would be a broken shuffle); the
 * file order always takes n1 (S_8 stays 1). */
static void test_random_ties_per_seed(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:1 n2:2 n3:4 n4:8");
    struct gs_trace *tr = jobs(1, 1, 1000);
    int broke = 0, kept = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        double s = first_job_sched(cl, tr, GS_FILL_TIES_RANDOM, seed);
        assert_true(NEAR(s, first_job_sched(cl, tr, GS_FILL_TIES_RANDOM, seed)));
        broke += NEAR(s, 0);
        kept += NEAR(s, 1);
        assert_true(NEAR(first_job_sched(cl, tr, GS_FILL_TIES_FILE, seed), 1));
    }
    assert_int_equal(broke + kept, 40);
    assert_true(broke > 0 && kept > 0);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* gs_cluster_reordered: node i of the copy is node order[i]; GPUs and
 * names follow, and the copy is sealed with the same k. */
static void test_cluster_reordered(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("a:1 b:2 c:4:[2,2]");
    const int order[] = { 2, 0, 1 };
    struct gs_cluster *r = gs_cluster_reordered(cl, order, NULL);
    assert_non_null(r);
    assert_string_equal(gs_cluster_node_name(r, 0), "c");
    assert_string_equal(gs_cluster_node_name(r, 1), "a");
    assert_string_equal(gs_cluster_node_name(r, 2), "b");
    assert_int_equal(gs_cluster_node_gpus(r, 0), 4);
    assert_int_equal(gs_cluster_node_domains(r, 0), 2);
    assert_int_equal(gs_cluster_gpu_count(r), 7);
    assert_int_equal(gs_cluster_stats(r).k, gs_cluster_stats(cl).k);
    gs_cluster_destroy(r);
    gs_cluster_destroy(cl);
}

/* The typical shapes come from the original trace by default.  Trace: 9
 * whole 1-GPU jobs and one 0.5-share job on "n1:8 n2:8 n3:8" (24 GPUs),
 * inflate 1.0: the trace asks 9.5 GPUs -> about 14 copies.  Original: the
 * 1-GPU shape covers 9/10 = 90 % < 95 % -> 2 shapes, whatever the seed.
 * Inflated: when the copies hold few share jobs, the 1-GPU shape alone
 * covers >= 95 % (e.g. 0 share copies among 14: 23/24) -> 1 shape; among
 * seeds 1-30 at least one such draw (each has P(no share copy) = 0.9^14 =
 * 0.23). */
static void test_typical_from_original(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8 n3:8");
    struct gs_trace *tr = jobs(9, 1, 1000);
    struct gs_job_spec s = spec_of("share", 0, 1);
    s.milli = 500;
    gs_trace_add(tr, &s, GS_TIME_NONE);
    int one = 0;
    for (uint64_t seed = 1; seed <= 30; seed++) {
        struct gs_fill_opts o;
        gs_fill_defaults(&o);
        o.inflate = 1.0;
        o.seed = seed;
        struct gs_fill_result r;
        assert_int_equal(gs_fill_run(cl, tr, &o, &r, NULL), 0);
        assert_int_equal(r.shapes, 2);
        gs_fill_result_fini(&r);
        o.typical = GS_FILL_TYPICAL_INFLATED;
        assert_int_equal(gs_fill_run(cl, tr, &o, &r, NULL), 0);
        one += r.shapes == 1;
        gs_fill_result_fini(&r);
    }
    assert_true(one > 0);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* Must-fail rows. */
static void test_fill_must_fail(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:2");
    struct gs_trace *empty = gs_trace_create(), *tr = jobs(1, 1, 1000);
    struct gs_fill_opts o;
    struct gs_fill_result r;
    struct gs_error err = { 0 };
    gs_fill_defaults(&o);
    assert_int_equal(gs_fill_run(cl, empty, &o, &r, &err), GS_EINVAL);
    o.inflate = 0;
    assert_int_equal(gs_fill_run(cl, tr, &o, &r, &err), GS_EINVAL);
    gs_fill_defaults(&o);
    o.coverage = 1.5;
    assert_int_equal(gs_fill_run(cl, tr, &o, &r, &err), GS_EINVAL);
    int p, s;
    assert_int_equal(gs_fill_policy_find("tetris", &p, &s), GS_ENOENT);
    assert_string_equal(gs_fill_policy_name(GS_FILL_BESTFIT, 0), "bestfit");
    gs_trace_destroy(empty);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_jobs),
        cmocka_unit_test(test_measure_in_curve),
        cmocka_unit_test(test_baselines_reproducible),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_random_ties_per_seed),
        cmocka_unit_test(test_cluster_reordered),
        cmocka_unit_test(test_typical_from_original),
        cmocka_unit_test(test_fill_must_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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

#include "sim/fill.h"
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
        cmocka_unit_test(test_fill_must_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

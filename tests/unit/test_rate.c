/* test_rate.c - the slow-down model (rate.c) through the simulator:
 * co-runners on a shared GPU, memory-bandwidth intensity, split placements
 * across NVLink domains and nodes, recovery when a co-runner leaves,
 * exclusive sharing, and util_effective.
 *
 * Model (rate.c): rate = topology factor x product over co-runners of
 * (1 - (1 - corunner) * bw(o) / 0.5), per mille, at least 1.  Defaults:
 * corunner 0.85, pcie 0.7, network 0.5, bw 0.5.  Work is kept in 1/1000 ms
 * units (progress.h): a job of D ms at rate r ends ceil(D*1000 / r) ms
 * after it starts (no checkpoints).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "testutil.h"

struct rjob {
    const char *id;
    int gpus, milli, mem_bw;    /* mem_bw per mille, 0 = default */
    int topology;
    double dur_s;
};

static struct gs_trace *trace_rows(const struct rjob *rows, size_t n)
{
    struct gs_trace *tr = gs_trace_create();
    for (size_t i = 0; i < n; i++) {
        struct gs_job_spec s = spec_of(rows[i].id, 0, rows[i].gpus);
        if (rows[i].milli)
            s.milli = rows[i].milli;
        s.mem_bw = rows[i].mem_bw;
        s.topology = rows[i].topology;
        assert_int_equal(gs_trace_add(tr, &s, gs_time_from_sec(rows[i].dur_s)), (int)i);
    }
    return tr;
}

/* Replay and return the end time (ms) of each job in `ends`. */
struct util {
    double alloc, effective;
    int modelled;
};

static void replay(const char *cluster, const struct rjob *rows, size_t n, const char *sharing,
                   gs_time *ends, struct util *u)
{
    struct gs_cluster *cl = cluster_of(cluster);
    struct gs_trace *tr = trace_rows(rows, n);
    struct gs_policy pol;
    fifo_pack(&pol);
    if (sharing)
        pol_set(&pol, "placement.sharing", sharing);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    for (size_t i = 0; i < n; i++)
        ends[i] = job_named(res.engine, rows[i].id).end;
    if (u) {
        u->alloc = res.summary.util_alloc;
        u->effective = res.summary.util_effective;
        u->modelled = res.summary.util_effective_modelled;
    }
    gs_sim_result_fini(&res);
    gs_policy_fini(&pol);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* Two 0.5-share jobs of 100 s on one GPU: each has one co-runner of
 * default bw -> 0.85 -> 850 per mille -> ceil(100000*1000/850) = 117648
 * ms.  util_alloc over the 117.648 s span on 1 GPU = 1.0 (2 x 0.5 all the
 * time); util_effective = 2 x 0.5 x 100 s / 117.648 s = 0.85. */
static void test_two_corunners(void **state)
{
    (void)state;
    const struct rjob rows[] = { { "A", 1, 500, 0, GS_TOPO_AUTO, 100 },
                                 { "B", 1, 500, 0, GS_TOPO_AUTO, 100 } };
    gs_time ends[2];
    struct util u;
    replay("n1:1", rows, 2, NULL, ends, &u);
    assert_int_equal(ends[0], 117648);
    assert_int_equal(ends[1], 117648);
    assert_true(fabs(u.alloc - 1.0) < 1e-6);
    assert_true(fabs(u.effective - 100.0 / 117.648) < 1e-6);
    assert_int_equal(u.modelled, 1);
}

/* Memory bandwidth: A (bw 1.0) and B (bw 0.25) share a GPU.
 *   A's factor from B: 1 - 0.15 * 0.25/0.5 = 0.925 -> 925.
 *   B's factor from A: 1 - 0.15 * 1.0/0.5 = 0.70 -> 700.
 * A: ceil(100e6 / 925) = 108109 ms.  B runs 100 s of work: at 700 until A
 * leaves at 108.109 s, having done 108109 * 700 = 75676300 units; the rest
 * 24323700 at full speed -> 24324 ms more -> 132433 ms. */
static void test_memory_bandwidth(void **state)
{
    (void)state;
    const struct rjob rows[] = { { "A", 1, 500, 1000, GS_TOPO_AUTO, 100 },
                                 { "B", 1, 500, 250, GS_TOPO_AUTO, 100 } };
    gs_time ends[2];
    replay("n1:1", rows, 2, NULL, ends, NULL);
    assert_int_equal(ends[0], 108109);
    assert_int_equal(ends[1], 132433);
}

/* Recovery: A 100 s and B 50 s share a GPU at 850 each.  B ends at
 * ceil(50e6 / 850) = 58824 ms; A has done 58824 * 850 = 50000400 units,
 * 49999600 left at 1000 -> 50000 ms -> 108824 ms. */
static void test_recovery(void **state)
{
    (void)state;
    const struct rjob rows[] = { { "A", 1, 500, 0, GS_TOPO_AUTO, 100 },
                                 { "B", 1, 500, 0, GS_TOPO_AUTO, 50 } };
    gs_time ends[2];
    replay("n1:1", rows, 2, NULL, ends, NULL);
    assert_int_equal(ends[1], 58824);
    assert_int_equal(ends[0], 108824);
}

/* Exclusive sharing: each fractional job takes a whole GPU alone.  On two
 * GPUs both run at full speed (100 s); on one GPU B waits for A
 * (0-100, 100-200). */
static void test_exclusive(void **state)
{
    (void)state;
    const struct rjob rows[] = { { "A", 1, 500, 0, GS_TOPO_AUTO, 100 },
                                 { "B", 1, 500, 0, GS_TOPO_AUTO, 100 } };
    gs_time ends[2];
    replay("n1:2", rows, 2, "exclusive", ends, NULL);
    assert_int_equal(ends[0], SEC(100));
    assert_int_equal(ends[1], SEC(100));
    replay("n1:1", rows, 2, "exclusive", ends, NULL);
    assert_int_equal(ends[0], SEC(100));
    assert_int_equal(ends[1], SEC(200));
}

/* Split placements.  n1 [4,4]: X (3 GPUs, 1000 s) takes island 0's GPUs
 * 0-2 (both islands idle: the first), Y (3) cannot fit d0's last GPU and
 * takes d1's 4-6.  A 2-GPU job with topology
 * any finds no island with 2 free (1 + 1) and takes GPUs 3 and 7 across
 * the islands: pcie 0.7 -> ceil(100e6 / 700) = 142858 ms.  On two 4-GPU
 * nodes, X and Y take 3 GPUs of each and the job spans the nodes: network
 * 0.5 -> 200000 ms. */
static void test_split_placements(void **state)
{
    (void)state;
    const struct rjob one[] = { { "X", 3, 0, 0, GS_TOPO_AUTO, 1000 },
                                { "Y", 3, 0, 0, GS_TOPO_AUTO, 1000 },
                                { "J", 2, 0, 0, GS_TOPO_ANY, 100 } };
    gs_time ends[3];
    replay("n1:8:[4,4]", one, 3, NULL, ends, NULL);
    assert_int_equal(ends[0], SEC(1000));
    assert_int_equal(ends[2], 142858);
    replay("n1:4 n2:4", one, 3, NULL, ends, NULL);
    assert_int_equal(ends[2], SEC(200));
}

/* A job larger than a domain taking whole domains is at its natural span:
 * 8 GPUs on [4,4] -> full speed, 100 s. */
static void test_natural_span(void **state)
{
    (void)state;
    const struct rjob rows[] = { { "J", 8, 0, 0, GS_TOPO_AUTO, 100 } };
    gs_time ends[1];
    replay("n1:8:[4,4]", rows, 1, NULL, ends, NULL);
    assert_int_equal(ends[0], SEC(100));
}

/* Policy keys: the factors are configurable and range-checked (must fail
 * outside (0, 1]). */
static void test_rate_keys(void **state)
{
    (void)state;
    struct gs_policy p;
    gs_policy_init(&p);
    pol_set(&p, "placement.slowdown.corunner", "0.5");
    assert_true(fabs(p.slow_corunner - 0.5) < TU_EPS);
    struct gs_error err = { 0 };
    assert_int_equal(gs_policy_set(&p, "placement.slowdown.pcie", "0", &err), GS_ERANGE);
    assert_int_equal(gs_policy_set(&p, "placement.slowdown.network", "1.5", &err), GS_ERANGE);
    assert_int_equal(gs_policy_set(&p, "placement.slowdown.nvswitch", "1", &err), GS_ENOENT);
    gs_policy_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_corunners),
        cmocka_unit_test(test_memory_bandwidth),
        cmocka_unit_test(test_recovery),
        cmocka_unit_test(test_exclusive),
        cmocka_unit_test(test_split_placements),
        cmocka_unit_test(test_natural_span),
        cmocka_unit_test(test_rate_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_failures_model.c - the simulated failure cost against the
 * first-order model (docs/failures.md): one job on every GPU of a cluster,
 * exponential node failures drawn inside the run (gs_sim_opts.failures).
 *
 * Setup: 16 nodes x 8 GPUs, one 128-GPU job of W = 30 days of work, a
 * checkpoint every tau of work costing C = 120 s, restore R_r = 300 s after
 * each restart, repair R_p = 600 s; node MTBF 16 x 50 h, so the job (on
 * every node) sees a system MTBF M = 50 h = 180,000 s.  No spare: after a
 * failure the job waits for the repair, so its restart time is
 * R = R_p + R_r = 900 s.
 *
 * First-order model: waste = C / tau + (tau / 2 + R) / M, ETTR = 1 - waste.
 * At tau = 3600 s: 120 / 3600 + (1800 + 900) / 180000 = 0.033333 + 0.015
 * = 0.048333, ETTR 0.951667.  (The finer count - a failure loses half of
 * tau + C, and every restart costs R - gives (1 - (1860 + 900) / 180000) /
 * (1 + 120 / 3600) = 0.952903; the first-order model is within 0.0013 of
 * it.)  Each run of 30 days sees about 14.5 failures; the spread of one
 * run's ETTR is about sqrt(14.5) x 2760 / 2.7e6 s = 0.004, so the mean of
 * 16 seeds has a standard error near 0.001: the tolerance 0.005 is about 4
 * standard errors plus the model's own 0.0013.
 *
 * Young/Daly: the tau minimising C / tau + tau / (2 M) is sqrt(2 C M) =
 * sqrt(2 x 120 x 180000) = 6,573 s.  The model's waste is flat near it
 * (4,800 s: 0.0383, 6,600 s: 0.0365, 9,000 s: 0.0383), so the check is
 * that the best of the grid 1200 ... 27000 s, by mean simulated ETTR over
 * the same seeds, lies in [4800, 9000] (within a factor 1.4 of it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_fail.h"
#include "sim/sim.h"
#include "testutil.h"

#define NODES16 "n1:8 n2:8 n3:8 n4:8 n5:8 n6:8 n7:8 n8:8 n9:8 n10:8 n11:8 n12:8 n13:8 " \
                "n14:8 n15:8 n16:8"
#define SEEDS 16
#define WORK_S (30 * 86400.0)

/* ETTR of the one job for checkpoint interval tau_s, system MTBF sys_s. */
static double ettr_of(const struct gs_cluster *cl, double tau_s, double sys_mtbf_s,
                      uint64_t seed)
{
    struct gs_policy pol;
    struct gs_error err = { 0 };
    gs_policy_init(&pol);
    assert_int_equal(gs_policy_set(&pol, "retry.max_attempts", "1000", &err), 0);
    struct gs_trace *tr = gs_trace_create();
    assert_non_null(tr);
    struct gs_job_spec s = spec_of("big", 0, 128);
    s.ckpt_interval = gs_time_from_sec(tau_s);
    s.ckpt_cost = SEC(120);
    s.restore_cost = SEC(300);
    trace_add_ok(tr, &s, WORK_S, 0);
    struct gs_failure_model m = { seed, 16 * sys_mtbf_s, 600, GS_FAIL_EXPONENTIAL, 1, 0 };
    struct gs_sim_opts o = { 0 };
    o.failures = &m;
    struct gs_sim_result r;
    if (gs_sim_run(cl, &pol, tr, &o, &r, &err) != 0)
        fail_msg("gs_sim_run: %s", err.msg);
    struct gs_job_info ji = job_named(r.engine, "big");
    assert_int_equal(ji.state, GS_JOB_DONE);
    double e;
    assert_true(gs_report_job_ettr(&ji, &e));
    assert_true(r.fail->restarts[0] < 250); /* under the engine's failure count cap */
    gs_sim_result_fini(&r);
    gs_trace_destroy(tr);
    gs_policy_fini(&pol);
    return e;
}

static double mean_ettr(const struct gs_cluster *cl, double tau_s, double sys_mtbf_s)
{
    double sum = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++)
        sum += ettr_of(cl, tau_s, sys_mtbf_s, seed);
    return sum / SEEDS;
}

static double first_order(double tau_s, double sys_mtbf_s)
{
    return 1 - (120 / tau_s + (tau_s / 2 + 900) / sys_mtbf_s);
}

static void test_first_order(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(NODES16);
    double sim = mean_ettr(cl, 3600, 180000), model = first_order(3600, 180000);
    printf("# tau 3600 s, M 50 h: simulated ETTR %.4f (mean of %d seeds), first-order %.4f\n",
           sim, SEEDS, model);
    assert_true(fabs(model - 0.951667) < 1e-6);
    assert_true(fabs(sim - model) < 0.005);
    /* no failures within reach (MTBF 10^6 h): only the checkpoints cost,
     * ETTR = W / (W + 719 C): floor((W - 1 s) / 3600) = 719 writes */
    double none = ettr_of(cl, 3600, 3.6e9, 1);
    assert_true(fabs(none - WORK_S / (WORK_S + 719 * 120)) < 1e-9);
    gs_cluster_destroy(cl);
}

static void test_young_daly(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(NODES16);
    static const double taus[] = { 1200, 2400, 3600, 4800, 6600, 9000, 12000, 18000, 27000 };
    double best = 0, best_tau = 0;
    for (size_t i = 0; i < sizeof taus / sizeof *taus; i++) {
        double e = mean_ettr(cl, taus[i], 180000);
        printf("# tau %6.0f s: simulated ETTR %.4f, first-order %.4f\n", taus[i], e,
               first_order(taus[i], 180000));
        if (e > best) {
            best = e;
            best_tau = taus[i];
        }
    }
    printf("# best tau %.0f s; Young/Daly sqrt(2 C M) = %.0f s\n", best_tau,
           sqrt(2 * 120 * 180000.0));
    assert_true(best_tau >= 4800 && best_tau <= 9000);
    gs_cluster_destroy(cl);
}

/* A shorter MTBF never raises the mean ETTR (same seeds: exponential up
 * times scale with the mean, so the failures come at proportionally earlier
 * times). */
static void test_mtbf_monotone(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(NODES16);
    static const double mtbf_h[] = { 400, 200, 100, 50, 25, 12.5 };
    double prev = 1.0;
    for (size_t i = 0; i < sizeof mtbf_h / sizeof *mtbf_h; i++) {
        double e = mean_ettr(cl, 3600, mtbf_h[i] * 3600);
        printf("# system MTBF %5.1f h: simulated ETTR %.4f, first-order %.4f\n", mtbf_h[i], e,
               first_order(3600, mtbf_h[i] * 3600));
        assert_true(e <= prev);
        prev = e;
    }
    gs_cluster_destroy(cl);
}

/* ETTR of one 120-GPU job (15 nodes' worth) on `nodes` x 8 GPUs, node
 * MTBF 750 h (the job sees 50 h), repair 4 h, tau 1 h: the nodes beyond 15
 * are spares the job restarts on instead of waiting for the repair. */
static double spare_ettr(int nodes, uint64_t seed)
{
    char desc[512] = "";
    for (int i = 1; i <= nodes; i++) {
        char one[16];
        snprintf(one, sizeof one, "%sn%d:8", i > 1 ? " " : "", i);
        strncat(desc, one, sizeof desc - strlen(desc) - 1);
    }
    struct gs_cluster *cl = cluster_of(desc);
    struct gs_policy pol;
    struct gs_error err = { 0 };
    gs_policy_init(&pol);
    assert_int_equal(gs_policy_set(&pol, "retry.max_attempts", "1000", &err), 0);
    struct gs_trace *tr = gs_trace_create();
    assert_non_null(tr);
    struct gs_job_spec s = spec_of("big", 0, 120);
    s.ckpt_interval = SEC(3600);
    s.ckpt_cost = SEC(120);
    s.restore_cost = SEC(300);
    trace_add_ok(tr, &s, WORK_S, 0);
    struct gs_failure_model m = { seed, 750 * 3600.0, 4 * 3600.0, GS_FAIL_EXPONENTIAL, 1, 0 };
    struct gs_sim_opts o = { 0 };
    o.failures = &m;
    struct gs_sim_result r;
    if (gs_sim_run(cl, &pol, tr, &o, &r, &err) != 0)
        fail_msg("gs_sim_run: %s", err.msg);
    struct gs_job_info ji = job_named(r.engine, "big");
    double e = 0;
    assert_true(gs_report_job_ettr(&ji, &e));
    gs_sim_result_fini(&r);
    gs_trace_destroy(tr);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
    return e;
}

/* More spares never lower the job's mean ETTR.  Without a spare each
 * failure costs the 4 h repair: first-order 1 - (120/3600 + (1800 + 300 +
 * 14400) / 180000) = 0.875; with spares the restart is the 300 s restore
 * alone (0.955) unless more nodes are down than there are spares. */
static void test_spares_monotone(void **state)
{
    (void)state;
    static const int nodes[] = { 15, 16, 17, 19, 23 };
    double prev = 0;
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        double sum = 0;
        for (uint64_t seed = 1; seed <= SEEDS; seed++)
            sum += spare_ettr(nodes[i], seed);
        printf("# %d spare nodes: mean simulated ETTR %.4f\n", nodes[i] - 15, sum / SEEDS);
        assert_true(sum / SEEDS >= prev);
        prev = sum / SEEDS;
    }
    assert_true(prev > 0.94); /* 8 spares: close to the restore-only 0.955 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_order),
        cmocka_unit_test(test_young_daly),
        cmocka_unit_test(test_mtbf_monotone),
        cmocka_unit_test(test_spares_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_failures_props.c - monotonic properties of the failure model over a
 * generated grid (docs/failures.md, "Monotonic properties"), every seed
 * fixed:
 *
 *   more hot spares (spares.nodes 0, 1, 2, 4; expedited requeue) never
 *   lower the largest job's ETTR;
 *   a shorter node MTBF (2000, 1000, 500, 250 h) never raises it;
 *   expedited requeue never raises the hit job's restart delay.
 *
 * Grid: 3 workload seeds x 6 failure seeds.  Cluster: 12 nodes x 8 GPUs.
 * Workload: one 64-GPU job (8 nodes; 4 days of work, a checkpoint every
 * hour costing 60 s, restore 300 s) at t = 0 among 80 small jobs (1, 2, 4
 * or 8 GPUs, 1-6 h, Poisson arrivals over 4 days), all from the workload
 * seed.  Node failures: exponential, repair 4 h, retry.max_attempts 1000.
 *
 * The properties are checked per grid point where they are exact and over
 * the grid's mean where a single point may legitimately break them (why is
 * stated at each check and in docs/failures.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/rng.h"
#include "report/report_fail.h"
#include "sim/sim.h"
#include "testutil.h"

#define NODES12 "n1:8 n2:8 n3:8 n4:8 n5:8 n6:8 n7:8 n8:8 n9:8 n10:8 n11:8 n12:8"
#define WSEEDS 5
#define FSEEDS 20
#define NSMALL 200

static struct gs_trace *workload(uint64_t wseed)
{
    struct gs_trace *tr = gs_trace_create();
    assert_non_null(tr);
    struct gs_job_spec big = spec_of("big", 0, 64);
    big.ckpt_interval = SEC(3600);
    big.ckpt_cost = SEC(60);
    big.restore_cost = SEC(300);
    trace_add_ok(tr, &big, 4 * 86400.0, 0);
    struct gs_rng r;
    gs_rng_seed(&r, wseed * 7919 + 1);
    static const int sizes[] = { 1, 2, 4, 8 };
    double t = 0;
    static char ids[NSMALL][16];
    for (int i = 0; i < NSMALL; i++) {
        t += -log(1 - gs_rng_uniform(&r)) * 4 * 86400.0 / NSMALL;
        snprintf(ids[i], sizeof ids[i], "s%d", i);
        struct gs_job_spec s = spec_of(ids[i], gs_time_from_sec(floor(t)),
                                       sizes[(int)(gs_rng_uniform(&r) * 4) & 3]);
        trace_add_ok(tr, &s, 3600 * (1 + floor(gs_rng_uniform(&r) * 6)), i + 1);
    }
    return tr;
}

/* Restart delay of the big job: the sum over its failures of the time from
 * the failure to its next start. */
struct watch {
    int big;            /* handle */
    gs_time failed_at;  /* GS_TIME_NONE = running or never failed */
    double delay_s;
    double first_s;     /* the first restart's delay, -1 = none */
    int others_first;   /* another job's run failed before the big job's first */
    int big_failed;
};

static void observe(void *arg, const struct gs_event *ev)
{
    struct watch *w = arg;
    if (ev->job != w->big) {
        w->others_first |= ev->kind == GS_EV_FAIL && !w->big_failed;
        return;
    }
    w->big_failed |= ev->kind == GS_EV_FAIL;
    if (ev->kind == GS_EV_FAIL)
        w->failed_at = ev->time;
    else if (ev->kind == GS_EV_START && w->failed_at != GS_TIME_NONE) {
        w->delay_s += gs_time_to_sec(ev->time - w->failed_at);
        if (w->first_s < 0)
            w->first_s = gs_time_to_sec(ev->time - w->failed_at);
        w->failed_at = GS_TIME_NONE;
    }
}

struct outcome {
    double ettr;        /* the big job's */
    double delay_s;     /* its restart delay */
    double first_s;     /* its first restart's delay, -1 = never failed */
    int restarts;
    int others_first;   /* another job was hit before its first failure */
};

static struct outcome run(uint64_t wseed, uint64_t fseed, double mtbf_h, int spares,
                          int expedite)
{
    struct gs_cluster *cl = cluster_of(NODES12);
    struct gs_policy pol;
    struct gs_error err = { 0 };
    char v[16];
    gs_policy_init(&pol);
    assert_int_equal(gs_policy_set(&pol, "retry.max_attempts", "1000", &err), 0);
    assert_int_equal(gs_policy_set(&pol, "retry.expedite", expedite ? "true" : "false", &err), 0);
    snprintf(v, sizeof v, "%d", spares);
    assert_int_equal(gs_policy_set(&pol, "spares.nodes", v, &err), 0);
    assert_int_equal(gs_policy_set(&pol, "spares.min_gpus", "64", &err), 0);
    struct gs_trace *tr = workload(wseed);
    struct gs_failure_model m = { fseed, mtbf_h * 3600, 4 * 3600.0, GS_FAIL_EXPONENTIAL, 1, 0 };
    struct watch w = { 0, GS_TIME_NONE, 0, -1, 0, 0 };
    struct gs_sim_opts o = { 0 };
    o.failures = &m;
    o.on_event = observe;
    o.arg = &w;
    struct gs_sim_result r;
    if (gs_sim_run(cl, &pol, tr, &o, &r, &err) != 0)
        fail_msg("gs_sim_run: %s", err.msg);
    struct gs_job_info ji = job_named(r.engine, "big");
    struct outcome out = { 0, w.delay_s, w.first_s, r.fail->restarts[0], w.others_first };
    assert_int_equal(ji.state, GS_JOB_DONE);
    assert_true(gs_report_job_ettr(&ji, &out.ettr));
    gs_sim_result_fini(&r);
    gs_trace_destroy(tr);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
    return out;
}

/* More hot spares never lower the largest job's ETTR: over the grid's mean
 * (measured: 0.9590, 0.9728, 0.9730, 0.9738 for 0, 1, 2, 4 spares).  At a
 * single point it is not a property: 22 of the grid's 300 comparisons go
 * the other way, every one because the job restarts on other nodes (the
 * spares are the highest-numbered idle nodes) and so meets other nodes'
 * failures (more restarts, or the same number at other phases of its
 * checkpoint interval: e.g. workload 1, failures 2: 2 restarts with 2
 * spares, 3 with 4).  What holds at every point: with a spare the job's
 * first restart is immediate (its 7 surviving nodes and a spare; the pool
 * is full at the first failure, as no other job may use it), while without
 * one it waits for idle nodes (545 s, 6,067 s, ... at some points). */
static void test_spares_monotone(void **state)
{
    (void)state;
    static const int sp[] = { 0, 1, 2, 4 };
    double mean[4] = { 0 };
    int waited0 = 0;
    for (uint64_t ws = 1; ws <= WSEEDS; ws++)
        for (uint64_t fs = 1; fs <= FSEEDS; fs++)
            for (int i = 0; i < 4; i++) {
                struct outcome o = run(ws, fs, 500, sp[i], 1);
                mean[i] += o.ettr / (WSEEDS * FSEEDS);
                if (i > 0 && o.first_s >= 0)
                    assert_true(o.first_s == 0);
                waited0 += i == 0 && o.first_s > 0;
            }
    printf("# spares 0, 1, 2, 4: mean ETTR %.4f %.4f %.4f %.4f; first restart waited without "
           "a spare at %d points, never with one\n", mean[0], mean[1], mean[2], mean[3], waited0);
    for (int i = 1; i < 4; i++)
        assert_true(mean[i] >= mean[i - 1]);
    assert_true(waited0 > 0); /* the spares' gain is not empty */
    assert_true(mean[1] - mean[0] > 0.005);
}

/* A shorter node MTBF never raises the largest job's ETTR: over the grid's
 * mean (measured 0.9776, 0.9725, 0.9590, 0.9380 at 2000, 1000, 500, 250
 * h).  At a single point it is not: 65 of 300 comparisons go the other
 * way.  The failure times scale with the MTBF (the same draws), so a point
 * sees more failures at shorter MTBF, but the work each one loses depends
 * on where it falls in the checkpoint interval (just after a checkpoint it
 * loses almost nothing). */
static void test_mtbf_monotone(void **state)
{
    (void)state;
    static const double mtbf[] = { 2000, 1000, 500, 250 };
    double mean[4] = { 0 };
    for (uint64_t ws = 1; ws <= WSEEDS; ws++)
        for (uint64_t fs = 1; fs <= FSEEDS; fs++)
            for (int i = 0; i < 4; i++)
                mean[i] += run(ws, fs, mtbf[i], 0, 1).ettr / (WSEEDS * FSEEDS);
    printf("# node MTBF 2000, 1000, 500, 250 h: mean ETTR %.4f %.4f %.4f %.4f\n", mean[0],
           mean[1], mean[2], mean[3]);
    for (int i = 1; i < 4; i++)
        assert_true(mean[i] <= mean[i - 1]);
}

/* Expedited requeue never raises the hit job's restart delay.  Exact for
 * the big job's first restart when its failure is the run's first (the
 * two runs are identical until then; under FIFO nobody may start before
 * the job at the front, so the idle nodes it finds at any instant are at
 * least those it would find behind the queue).  Over a whole run it holds
 * in the mean (measured 13,037 s plain, 5,581 s expedited) but not at
 * every point (4 of 100): after the first failure the schedules differ,
 * and so do the nodes the job meets later failures on. */
static void test_expedite(void **state)
{
    (void)state;
    double plain = 0, fast = 0;
    int exact = 0, shorter = 0;
    for (uint64_t ws = 1; ws <= WSEEDS; ws++)
        for (uint64_t fs = 1; fs <= FSEEDS; fs++) {
            struct outcome p = run(ws, fs, 500, 0, 0), x = run(ws, fs, 500, 0, 1);
            plain += p.delay_s;
            fast += x.delay_s;
            if (p.first_s >= 0 && !p.others_first) {
                assert_true(x.first_s <= p.first_s);
                exact++;
                shorter += x.first_s < p.first_s;
            }
        }
    printf("# restart delay, mean: plain %.0f s, expedited %.0f s; first restarts compared "
           "exactly at %d points, shorter expedited at %d\n", plain / (WSEEDS * FSEEDS),
           fast / (WSEEDS * FSEEDS), exact, shorter);
    assert_true(fast <= plain);
    assert_true(exact >= 20); /* the exact check covers many points */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spares_monotone),
        cmocka_unit_test(test_mtbf_monotone),
        cmocka_unit_test(test_expedite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

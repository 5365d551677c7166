/* bench_eta.c - cost of the start-time promise (issue 27, docs/eta.md).
 *
 * A cluster of 128 nodes x 8 GPUs is filled with 1,024 one-GPU jobs with
 * time limits (so the profile knows when each GPU frees), then 10^4
 * (--size small: 10^3) more jobs of 1-8 GPUs queue behind them; one pass
 * runs (fifo + EASY on user limits).  Reported: the median over 5 rounds of
 * one gs_eta_promise for every queued job (what a publish of every queued
 * job's estimate costs), per job and in total, and the pass itself for
 * scale; then the two parts of it apart: the engine's diagnosis of every
 * queued job (gs_engine_explain, which counts the jobs ahead of each) and
 * the calibration of the promise from those diagnoses (gs_eta_promise_of,
 * on a calibration warmed with 4,096 started jobs so that every key has
 * its windows).  Usage: bench_eta [--size small|full]
 */
#define _DEFAULT_SOURCE
#include "bench_util.h"
#include "core/diagnose/eta.h"
#include "core/engine/engine.h"
#include "core/policy/policy.h"

#include <stdlib.h>
#include <string.h>

static int fill(struct gs_engine *eng, int nodes, int queued, struct gs_error *err)
{
    char name[32];
    for (int i = 0; i < nodes * 8; i++) {
        struct gs_job_spec s = bench_spec(name, sizeof name, "r", i, 0);
        s.time_limit = (gs_time)(600 + 37 * (i % 97)) * 1000;
        if (gs_engine_submit(eng, 0, &s, err) < 0)
            return 1;
    }
    if (gs_engine_step(eng, 0, err) < 0)
        return 1;
    static const int sizes[] = { 1, 2, 4, 8, 1, 1, 2, 8 };
    for (int i = 0; i < queued; i++) {
        struct gs_job_spec s = bench_spec(name, sizeof name, "q", i, 1000);
        s.gpus = sizes[i % 8];
        s.time_limit = (gs_time)(900 + 53 * (i % 89)) * 1000;
        if (gs_engine_submit(eng, 1000, &s, err) < 0)
            return 1;
    }
    return 0;
}

/* The diagnosis and the calibration of every queued job's promise, timed
 * apart. */
static int split(struct gs_engine *eng, struct gs_eta_cal *cal, struct gs_eta_rec *rec, int base,
                 int queued)
{
    struct gs_diag *d = calloc((size_t)queued, sizeof *d);
    if (!d)
        return -1;
    for (int i = 0; i < 4096; i++) { /* warm: every key gets its windows */
        struct gs_eta_rec r = rec[i % queued];
        r.observed = 0;
        gs_eta_cal_observe(cal, &r, gs_time_add(r.submit, (gs_time)(i % 97) * 60000));
    }
    double t0 = bench_now_ms();
    for (int i = 0; i < queued; i++)
        if (gs_engine_explain(eng, base + i, &d[i]) < 0)
            return -1;
    double explain_ms = bench_now_ms() - t0;
    t0 = bench_now_ms();
    int bounded = 0;
    for (int i = 0; i < queued; i++) {
        gs_eta_promise_of(cal, 1000, d[i].gpus, 1000, &d[i], &rec[i]);
        bounded += rec[i].p90 != GS_TIME_NONE;
    }
    double cal_ms = bench_now_ms() - t0;
    printf("  of which: diagnosis (explain) %.1f ms (%.2f us per job), calibration %.2f ms "
           "(%.3f us per job; %d of %d with a P90 bound)\n",
           explain_ms, explain_ms * 1e3 / queued, cal_ms, cal_ms * 1e3 / queued, bounded, queued);
    free(d);
    return 0;
}

int main(int argc, char **argv)
{
    int small = argc > 2 && strcmp(argv[1], "--size") == 0 && strcmp(argv[2], "small") == 0;
    int nodes = 128, queued = small ? 1000 : 10000;
    struct gs_error err = { 0 };
    struct gs_cluster *cl = bench_cluster(nodes);
    struct gs_policy pol;
    gs_policy_init(&pol);
    pol.backfill = GS_BACKFILL_EASY;
    pol.estimate = GS_EST_USER;
    pol.max_job_test = 0; /* the fill starts all 1,024 runners in one pass */
    struct gs_engine *eng = cl ? gs_engine_create(cl, &pol, &err) : NULL;
    struct gs_eta_cal *cal = calloc(1, sizeof *cal);
    struct gs_eta_rec *rec = calloc((size_t)queued, sizeof *rec);
    if (!eng || !cal || !rec || fill(eng, nodes, queued, &err)) {
        fprintf(stderr, "bench_eta: %s\n", err.msg);
        return 1;
    }
    double t0 = bench_now_ms();
    if (gs_engine_step(eng, 1000, &err) < 0)
        return 1;
    double pass_ms = bench_now_ms() - t0, ms[5];
    gs_eta_cal_init(cal);
    int base = nodes * 8, known = 0;
    for (int round = 0; round < 5; round++) {
        t0 = bench_now_ms();
        for (int i = 0; i < queued; i++)
            if (gs_eta_promise(eng, base + i, cal, &rec[i]) < 0)
                return 1;
        ms[round] = bench_now_ms() - t0;
    }
    for (int i = 0; i < queued; i++)
        known += rec[i].est != GS_TIME_NONE;
    qsort(ms, 5, sizeof *ms, bench_cmp_double);
    printf("bench_eta: %d GPUs busy, %d jobs queued, pass %.1f ms; a promise for every queued "
           "job: %.1f ms (%.2f us per job; min %.1f, max %.1f ms); %d of %d estimated, "
           "last job's estimate %.0f s\n",
           nodes * 8, queued, pass_ms, ms[2], ms[2] * 1e3 / queued, ms[0], ms[4], known, queued,
           gs_time_to_sec(rec[queued - 1].est));
    printf("  running %d, last job basis %s\n", gs_engine_running_count(eng), gs_est_basis_name(rec[queued - 1].basis));
    if (split(eng, cal, rec, base, queued) < 0)
        return 1;
    free(rec);
    free(cal);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    return 0;
}

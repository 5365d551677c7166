/* bench_util.h - shared helpers for the benchmarks (speedtest1 style:
 * numbered cases, per-case ms, a decision hash, TOTAL). */
#ifndef GS_BENCH_UTIL_H
#define GS_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <stdlib.h>

#include "core/cluster/cluster.h"
#include "core/engine/engine.h"
#include "core/policy/job.h"
#include "core/policy/policy.h"

/* The policy defaults, with queue.max_job_test from the environment
 * variable BENCH_MAX_JOB_TEST when it is set (0 = the exhaustive pass): the
 * hashes of every benchmark can be compared with the exhaustive pass's. */
static inline void bench_policy_init(struct gs_policy *pol)
{
    gs_policy_init(pol);
    const char *m = getenv("BENCH_MAX_JOB_TEST");
    if (m && *m)
        pol->max_job_test = atoi(m);
}

/* One scheduling step at `now` and the continuations it asks for at the
 * same instant (a pass stopped at queue.max_job_test: docs/policy.md), as
 * a driver runs them; the total started, or the first negative error. */
static inline int bench_step(struct gs_engine *eng, gs_time now, struct gs_error *err)
{
    int started = 0, rc;
    do {
        rc = gs_engine_step(eng, now, err);
        if (rc < 0)
            return rc;
        started += rc;
    } while (gs_engine_next_wakeup(eng, now) == now);
    return started;
}

static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* qsort comparator for doubles, ascending (medians of timings). */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A job spec with the defaults, named `<prefix><n>` in `name` (which must
 * outlive the spec), submitted at `submit`. */
static inline struct gs_job_spec bench_spec(char *name, size_t cap, const char *prefix, int n,
                                            gs_time submit)
{
    snprintf(name, cap, "%s%d", prefix, n);
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = name;
    s.submit = submit;
    return s;
}

/* FNV-1a over a 64-bit value, for decision hashes. */
static inline uint64_t bench_hash(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ULL;
    }
    return h;
}

/* A cluster of `nodes` x 8 GPUs, one NVLink domain each, sealed. */
static inline struct gs_cluster *bench_cluster(int nodes)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_create();
    int t = gs_cluster_add_gpu_type(cl, "H100-80G", 80 * 1024, &err);
    for (int i = 0; i < nodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%d", i + 1);
        struct gs_node_spec s = { 0 };
        s.name = name;
        s.gpus = 8;
        s.gpu_type = t;
        gs_cluster_add_node(cl, &s, &err);
    }
    if (gs_cluster_seal(cl, 0, &err) < 0) {
        fprintf(stderr, "bench: %s\n", err.msg);
        gs_cluster_destroy(cl);
        return NULL;
    }
    return cl;
}

#endif

/* bench_place.c - placement decision time (issue 4) and simulation speed
 * of the openb traces.
 *
 * Cases 1-12: a cluster of 1,024 nodes x 8 GPUs (one NVLink domain each) at
 * 70 % occupancy - every GPU busy with probability 0.7 (seeded), one busy
 * GPU in ten holding a share of 0.25, 0.5 or 0.75 instead of the whole GPU
 * - and one decision for a 1-GPU, an 8-GPU and a 0.25-GPU job under each
 * strategy.  frag measures against {1 GPU: 0.5, 2: 0.15, 4: 0.1, 8: 0.15,
 * 0.25 share: 0.1}.  Each decision is repeated (placement never changes
 * the cluster); the median of the repetitions is reported, with pack as
 * the baseline in the same run.
 * Cases 13-14: replay every openb pod file that has times
 * (../shared/traces/openb, imported in memory as `gpusched import --format
 * openb` does) under pack and frag; jobs per second.  Skipped when the
 * traces are absent.
 *
 * Usage: bench_place [--size small|full] [--case N]
 */
#define _DEFAULT_SOURCE
#include "bench_util.h"
#include "core/place/frag.h"
#include "core/place/place.h"
#include "core/policy/policy.h"
#include "core/base/rng.h"
#include "core/place/shapes.h"
#include "io/cluster_yaml.h"
#include "io/import_openb.h"
#include "sim/sim.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODES 1024
#define OPENB "../shared/traces/openb"

/* 70 % of the GPUs busy, a tenth of those only partly. */
static void occupy(struct gs_cluster *cl)
{
    struct gs_rng r;
    gs_rng_seed(&r, 2026);
    static const int shares[] = { 250, 500, 750 };
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        for (int g = 0; g < 8; g++) {
            if (gs_rng_uniform(&r) >= 0.737) /* 0.737 x (0.9 + 0.1 x 0.5) = 70 % */
                continue;
            int milli = gs_rng_uniform(&r) < 0.1 ? shares[gs_rng_below(&r, 3)] : 1000;
            struct gs_alloc_part p = { n, 1ULL << g };
            struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &p, .milli = milli,
                                  .mem_mib = 80 * 1024 * milli / 1000 };
            gs_cluster_alloc(cl, &a, NULL);
        }
    }
}

static struct gs_shape shape(int gpus, int milli, double p)
{
    struct gs_shape s = { 0 };
    s.gpus = gpus;
    s.milli = milli;
    s.mem_mib = -1;
    s.gpu_type = -1;
    s.p = p;
    return s;
}

/* Median microseconds of `reps` decisions; *hash gets the answer. */
static double time_place(const struct gs_cluster *cl, const struct gs_request *req, int strategy,
                         int reps, uint64_t *hash)
{
    struct gs_alloc_part parts[NODES];
    struct gs_alloc out = { .cap = NODES, .parts = parts };
    double *us = malloc((size_t)reps * sizeof *us);
    int rc = 0;
    for (int i = 0; i < reps; i++) {
        double t0 = bench_now_ms();
        rc = gs_place(cl, NULL, req, strategy, &out, NULL);
        us[i] = (bench_now_ms() - t0) * 1000;
    }
    qsort(us, (size_t)reps, sizeof *us, bench_cmp_double);
    double med = us[reps / 2];
    free(us);
    *hash = bench_hash(bench_hash(1469598103934665603ULL, (uint64_t)rc),
                       rc == 0 ? (uint64_t)parts[0].node * 64 + (uint64_t)parts[0].mask : 0);
    return med;
}

static int decision_cases(int only, int reps, double *total)
{
    struct gs_cluster *cl = bench_cluster(NODES);
    if (!cl)
        return 1;
    occupy(cl);
    struct gs_cluster_stats st = gs_cluster_stats(cl);
    printf("cluster: %d nodes x 8 GPUs, %.1f%% allocated, S_8 = %lld, %lld partly used GPUs\n",
           NODES, 100.0 * (double)st.used_milli / (double)(st.gpus * 1000), (long long)st.sched,
           (long long)st.shared_gpus);
    struct gs_shape_dist d = { 5, { shape(1, 1000, 0.5), shape(2, 1000, 0.15),
                                    shape(4, 1000, 0.1), shape(8, 1000, 0.15),
                                    shape(1, 250, 0.1) } };
    struct gs_place_ctx ctx = { &d, 1.0, 100, GS_MIG_NEVER, NULL, GS_FRAG_SCORE_QUANTUM };
    struct gs_frag_cache fc; /* what the engine keeps for frag (not timed) */
    if (gs_frag_cache_init(&fc, NODES) < 0)
        return 1;
    gs_frag_cache_refresh(&fc, cl, &d);
    ctx.frag_cache = &fc;
    static const struct {
        const char *what;
        int gpus, milli;
    } jobs[] = { { "1 GPU", 1, 1000 }, { "8 GPUs", 8, 1000 }, { "0.25 GPU", 1, 250 } };
    static const int strategies[] = { GS_PLACE_PACK, GS_PLACE_SPREAD, GS_PLACE_TOPO,
                                      GS_PLACE_FRAG };
    printf("%4s %-9s %-7s %12s %10s %18s\n", "case", "job", "strategy", "median us", "x pack",
           "decision hash");
    int c = 0;
    for (size_t j = 0; j < 3; j++) {
        double base = 0;
        for (size_t s = 0; s < 4; s++) {
            c++;
            if (only && only != c)
                continue;
            struct gs_request r = { 0 };
            r.gpus = jobs[j].gpus;
            r.milli = jobs[j].milli;
            r.mem_mib = -1;
            r.gpu_type = -1;
            r.ctx = &ctx;
            uint64_t h;
            double us = time_place(cl, &r, strategies[s], reps, &h);
            if (s == 0)
                base = us;
            *total += us * reps / 1000;
            printf("%4d %-9s %-7s %12.2f %10.2f %18llx\n", c, jobs[j].what,
                   gs_policy_strategy_name(strategies[s]), us, base > 0 ? us / base : 0,
                   (unsigned long long)h);
        }
    }
    gs_frag_cache_fini(&fc);
    gs_cluster_destroy(cl);
    return 0;
}

/* Replay one openb pod file; returns jobs (0 when it has no times). */
static int64_t replay_openb(const char *pods, int strategy, double *ms, uint64_t *hash)
{
    struct gs_openb_result r;
    struct gs_error err = { 0 };
    if (gs_openb_load(OPENB "/openb_node_list_gpu_node.csv", pods, &r, &err) < 0)
        return -1;
    int64_t jobs = 0;
    if (r.stats.no_times == 0) {
        char path[] = "/tmp/gs_bench_openb_XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        struct gs_cluster *cl = NULL;
        if (f && gs_openb_write_cluster_yaml(f, &r, &err) == 0 && fclose(f) == 0)
            cl = gs_cluster_load_yaml(path, &err);
        unlink(path);
        struct gs_policy pol;
        gs_policy_init(&pol);
        pol.strategy = strategy;
        struct gs_sim_result res;
        double t0 = bench_now_ms();
        if (cl && gs_sim_run(cl, &pol, r.trace, NULL, &res, &err) == 0) {
            *ms += bench_now_ms() - t0;
            jobs = res.summary.jobs;
            *hash = bench_hash(*hash, (uint64_t)(res.summary.util_alloc * 1e9));
            gs_sim_result_fini(&res);
        }
        gs_policy_fini(&pol);
        gs_cluster_destroy(cl);
    }
    gs_openb_result_fini(&r);
    return jobs;
}

static void openb_cases(int only, int small, double *total)
{
    DIR *dir = opendir(OPENB);
    if (!dir) {
        printf("13-14: skipped (no %s)\n", OPENB);
        return;
    }
    char names[64][320];
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) && n < 64;)
        if (strncmp(e->d_name, "openb_pod_list_", 15) == 0)
            snprintf(names[n++], sizeof names[0], "%s/%s", OPENB, e->d_name);
    closedir(dir);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    if (small && n > 2)
        n = 2;
    static const int strategies[] = { GS_PLACE_PACK, GS_PLACE_FRAG };
    for (int s = 0; s < 2; s++) {
        if (only && only != 13 + s)
            continue;
        double ms = 0;
        int64_t jobs = 0, files = 0;
        uint64_t h = 1469598103934665603ULL;
        for (int i = 0; i < n; i++) {
            int64_t j = replay_openb(names[i], strategies[s], &ms, &h);
            jobs += j > 0 ? j : 0;
            files += j > 0;
        }
        *total += ms;
        printf("%4d openb sim %-6s %lld files, %lld jobs, %.0f ms, %.0f jobs/s, hash %llx\n",
               13 + s, gs_policy_strategy_name(strategies[s]), (long long)files,
               (long long)jobs, ms, ms > 0 ? 1000.0 * (double)jobs / ms : 0,
               (unsigned long long)h);
    }
}

int main(int argc, char **argv)
{
    int small = 0, only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            small = strcmp(argv[++i], "small") == 0;
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
    }
    double total = 0;
    if (decision_cases(only, small ? 21 : 201, &total) != 0)
        return 1;
    openb_cases(only, small, &total);
    printf("TOTAL %.1f ms\n", total);
    return 0;
}

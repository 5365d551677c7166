/* bench_preempt.c - victim search (issue 5).
 *
 * 1,024 nodes x 8 GPUs (8,192 GPUs, one NVLink domain per node) running
 * about 10,000 jobs: quarter and half GPUs (sharing a GPU), 1, 2, 4 and 8 GPUs,
 * priorities 0-4, started over the last two hours, half of them
 * checkpointing every 10-60 minutes.  Every GPU is busy.  A waiting job of
 * priority 10 asks for 8 GPUs (a whole NVLink domain), 4, 1 and half a GPU;
 * for each, the median of 21 searches on the same state is reported (the
 * search changes nothing), with the victims' GPU-hours lost and a hash of
 * the chosen set.
 *
 * Baseline, in the same run: the naive rule most schedulers use -
 * lowest priority first (youngest first among equals), until enough GPUs
 * are free in count.  It is faster, but it counts GPUs instead of freeing
 * a domain, so its set often does not let the job start at all
 * ("fits" = whether the waiting job can be placed on the idle GPUs plus
 * those the victims free), and it does not look at lost work.
 */
#include "bench_util.h"
#include "core/engine/engine.h"
#include "core/place/place.h"
#include "core/preempt/preempt_private.h"
#include "core/base/rng.h"

#include <stdlib.h>
#include <string.h>

#define NODES 1024
#define RUNNING 10000
#define REPS 21
#define NOW ((gs_time)7200 * 1000)

/* Submit one running job of a random shape, started at `start`. */
static int submit(struct gs_engine *eng, struct gs_rng *r, int id, gs_time start)
{
    /* milli-GPU per job: a quarter (32 %), half (40 %), 1 (20 %), 2, 4, 8
     * GPUs (4, 2, 2 %): 0.8 GPU per job on average */
    static const struct { int gpus, milli, weight; } mix[] = {
        { 1, 250, 32 }, { 1, 500, 40 }, { 1, 1000, 20 }, { 2, 1000, 4 }, { 4, 1000, 2 },
        { 8, 1000, 2 },
    };
    char name[32];
    struct gs_job_spec s = bench_spec(name, sizeof name, "r", id, start);
    int u = (int)gs_rng_below(r, 100), k = 0;
    while (u >= mix[k].weight)
        u -= mix[k++].weight;
    s.gpus = mix[k].gpus;
    s.milli = mix[k].milli;
    s.priority = (int)gs_rng_below(r, 5);
    if (gs_rng_below(r, 2)) {
        s.ckpt_interval = (gs_time)(10 + gs_rng_below(r, 51)) * 60 * 1000;
        s.ckpt_cost = 60 * 1000;
    }
    struct gs_error err;
    return gs_engine_submit(eng, start, &s, &err);
}

/* Fill the cluster: jobs start in submission order at random times over
 * the last two hours until no GPU is idle (about 10,000 jobs). */
static void fill(struct gs_engine *eng, struct gs_rng *r)
{
    struct gs_error err;
    int id = 0;
    gs_time t = 0;
    while (gs_cluster_stats(gs_engine_cluster(eng)).idle_gpus > 0 && id < 4 * RUNNING) {
        t += (gs_time)gs_rng_below(r, 700);
        submit(eng, r, id++, t < NOW ? t : NOW - 1);
        bench_step(eng, t < NOW ? t : NOW - 1, &err);
    }
}

struct result {
    double ms;
    int victims, gpus, fits;
    double lost_gpu_h;
    uint64_t hash;
};

/* Whether `job` places on idle GPUs plus those of `v[0..n)`. */
static int fits(struct gs_engine *eng, int job, const int *v, int n)
{
    const struct gs_cluster *cl = gs_engine_cluster(eng);
    int nn = gs_cluster_node_count(cl);
    uint64_t *view = calloc((size_t)nn, sizeof *view);
    struct gs_alloc_part *parts = calloc((size_t)nn, sizeof *parts);
    for (int i = 0; i < nn; i++)
        view[i] = gs_cluster_idle_mask(cl, i);
    for (int i = 0; i < n; i++) {
        struct gs_alloc a;
        gs_engine_job_alloc(eng, v[i], &a);
        for (int p = 0; p < a.nparts; p++)
            view[a.parts[p].node] |= a.parts[p].mask; /* shared GPUs: optimistic */
    }
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    struct gs_alloc out;
    memset(&out, 0, sizeof out);
    out.cap = nn;
    out.parts = parts;
    int ok = gs_place(cl, view, &req, GS_PLACE_PACK, &out, NULL) == 0;
    free(view);
    free(parts);
    return ok;
}

static void describe(struct gs_engine *eng, int job, const int *v, int n, struct result *res)
{
    res->victims = n;
    res->gpus = 0;
    res->lost_gpu_h = 0;
    res->hash = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, v[i], &ji);
        res->gpus += ji.gpus;
        res->lost_gpu_h += (double)gs_eng_preempt_victim_cost(eng, v[i], NOW) / 1000 / 3600000.0;
        res->hash = bench_hash(res->hash, (uint64_t)v[i]);
    }
    res->fits = n > 0 && fits(eng, job, v, n);
}

/* The baseline: lowest priority first, youngest first, by GPU count. */
struct nv {
    int job, prio;
    gs_time start;
};

static int cmp_naive(const void *a, const void *b)
{
    const struct nv *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio - y->prio;
    if (x->start != y->start)
        return x->start > y->start ? -1 : 1;
    return x->job - y->job;
}

static int naive(struct gs_engine *eng, int job, struct nv *buf, int *out)
{
    struct gs_job_info w;
    gs_engine_job_info(eng, job, &w);
    int n = 0, total = gs_engine_job_count(eng);
    for (int j = 0; j < total; j++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, j, &ji);
        if (ji.state == GS_JOB_RUNNING && ji.priority < w.priority)
            buf[n++] = (struct nv){ j, ji.priority, ji.start };
    }
    qsort(buf, (size_t)n, sizeof *buf, cmp_naive);
    int64_t need = (int64_t)w.gpus * w.milli;
    need -= gs_cluster_stats(gs_engine_cluster(eng)).idle_gpus * 1000;
    int k = 0;
    for (int i = 0; i < n && need > 0; i++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, buf[i].job, &ji);
        need -= (int64_t)ji.gpus * ji.milli;
        out[k++] = buf[i].job;
    }
    return need > 0 ? 0 : k;
}

static double median(double *ms)
{
    qsort(ms, REPS, sizeof *ms, bench_cmp_double);
    return ms[REPS / 2];
}

static void print(int id, const char *what, int gpus, int milli, const struct result *r)
{
    printf("%3d  %-8s %4.1f GPU  median %7.3f ms  victims %3d (%3d GPUs)  lost %7.3f GPU-h"
           "  fits %-3s  hash %016llx\n",
           id, what, gpus * milli / 1000.0, r->ms, r->victims, r->gpus, r->lost_gpu_h,
           r->fits ? "yes" : "NO", (unsigned long long)r->hash);
}

static void run_case(int id, struct gs_engine *eng, int gpus, int milli, struct nv *buf,
                     int *nvict)
{
    char name[32];
    struct gs_job_spec s = bench_spec(name, sizeof name, "w", id, NOW);
    s.gpus = gpus;
    s.milli = milli;
    s.priority = 10;
    struct gs_error err;
    int job = gs_engine_submit(eng, NOW, &s, &err);
    double ms[REPS];
    struct result ours = { 0 }, base = { 0 };
    const int *v = NULL;
    int n = 0;
    for (int i = 0; i < REPS; i++) {
        double t0 = bench_now_ms();
        n = gs_eng_preempt_plan(eng, job, NOW, &v);
        ms[i] = bench_now_ms() - t0;
    }
    ours.ms = median(ms);
    describe(eng, job, v, n, &ours);
    for (int i = 0; i < REPS; i++) {
        double t0 = bench_now_ms();
        n = naive(eng, job, buf, nvict);
        ms[i] = bench_now_ms() - t0;
    }
    base.ms = median(ms);
    describe(eng, job, nvict, n, &base);
    print(id, "gpusched", gpus, milli, &ours);
    print(id, "naive", gpus, milli, &base);
    gs_engine_cancel(eng, job, NOW, &err);
}

int main(void)
{
    double t0 = bench_now_ms();
    struct gs_cluster *cl = bench_cluster(NODES);
    struct gs_policy pol;
    bench_policy_init(&pol);
    pol.preempt_mode = GS_PREEMPT_CHECKPOINT;
    pol.restore_cost = 60 * 1000;
    pol.sharing = GS_SHARING_SHARED;
    struct gs_error err = { 0 };
    struct gs_engine *eng = gs_engine_create(cl, &pol, &err);
    if (!eng) {
        fprintf(stderr, "bench_preempt: %s\n", err.msg);
        return 1;
    }
    struct gs_rng r;
    gs_rng_seed(&r, 11);
    fill(eng, &r);
    printf("bench_preempt: %d GPUs, %d running jobs, %lld idle GPUs, waiting job priority 10\n",
           NODES * 8, gs_engine_running_count(eng),
           (long long)gs_cluster_stats(gs_engine_cluster(eng)).idle_gpus);
    struct nv *buf = calloc(RUNNING * 2, sizeof *buf);
    int *nvict = calloc(RUNNING * 2, sizeof *nvict);
    static const int shapes[][2] = { { 8, 1000 }, { 4, 1000 }, { 1, 1000 }, { 1, 500 } };
    for (int i = 0; i < 4; i++)
        run_case(i + 1, eng, shapes[i][0], shapes[i][1], buf, nvict);
    free(buf);
    free(nvict);
    gs_engine_destroy(eng);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
    printf("TOTAL %.1f ms (including setup)\n", bench_now_ms() - t0);
    return 0;
}

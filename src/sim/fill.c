/* fill.c - FGD's fill experiment (see fill.h). */
#include "sim/fill_private.h"
#include "core/base/alloc.h"
#include "core/policy/policy.h"
#include "sim/whatif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int policy, strategy;
} policies[] = {
    { "pack", GS_FILL_ENGINE, GS_PLACE_PACK },     { "spread", GS_FILL_ENGINE, GS_PLACE_SPREAD },
    { "topo", GS_FILL_ENGINE, GS_PLACE_TOPO },     { "frag", GS_FILL_ENGINE, GS_PLACE_FRAG },
    { "first_fit", GS_FILL_ENGINE, GS_PLACE_FIRST_FIT },
    { "random", GS_FILL_RANDOM, 0 },               { "dotprod", GS_FILL_DOTPROD, 0 },
    { "clustering", GS_FILL_CLUSTERING, 0 },       { "packing", GS_FILL_PACKING, 0 },
    { "bestfit", GS_FILL_BESTFIT, 0 },             { "fgd", GS_FILL_FGD, 0 },
};

#define NPOLICIES (sizeof policies / sizeof policies[0])

int gs_fill_policy_find(const char *name, int *policy, int *strategy)
{
    for (size_t i = 0; i < NPOLICIES; i++) {
        if (strcmp(name, policies[i].name) == 0) {
            *policy = policies[i].policy;
            *strategy = policies[i].strategy;
            return 0;
        }
    }
    return GS_ENOENT;
}

const char *gs_fill_policy_name(int policy, int strategy)
{
    for (size_t i = 0; i < NPOLICIES; i++)
        if (policies[i].policy == policy &&
            (policy != GS_FILL_ENGINE || policies[i].strategy == strategy))
            return policies[i].name;
    return "?";
}

void gs_fill_defaults(struct gs_fill_opts *o)
{
    memset(o, 0, sizeof *o);
    o->inflate = 1.3;
    o->seed = 42;
    o->policy = GS_FILL_ENGINE;
    o->strategy = GS_PLACE_FRAG;
    o->sched_weight = 1.0;
    o->quantum = 100;
    o->coverage = 0.95;
    o->ties = GS_FILL_TIES_RANDOM;
    o->typical = GS_FILL_TYPICAL_ORIGINAL;
    o->score_shape = GS_FRAG_SCORE_QUANTUM;
}

/* Class of a GPU request for the clustering baseline: 0 = a share of one
 * GPU, n = n whole GPUs (capped at 63), -1 = no GPU. */
static int request_class(int gpus, int milli)
{
    if (gpus == 0)
        return -1;
    if (milli < GS_MILLI_GPU)
        return 0;
    return gpus < 63 ? gpus : 63;
}

static int load_jobs(struct fill *f, const struct gs_trace *tr)
{
    size_t n = gs_trace_count(tr);
    f->jobs = gs_calloc(n, sizeof *f->jobs);
    if (!f->jobs)
        return GS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct gs_job_spec *s = gs_trace_job(tr, i);
        struct fjob *j = &f->jobs[i];
        j->gpus = s->gpus;
        j->milli = s->gpus > 0 ? s->milli : 0;
        j->cpu = s->cpu_milli;
        j->mem = s->host_mem_mib;
        gs_frag_parse_models(f->cl, s->gpu_model, &j->type, &j->types);
        j->cls = request_class(j->gpus, j->milli);
    }
    return 0;
}

static int64_t request_of(const struct fjob *j)
{
    return (int64_t)j->gpus * j->milli;
}

static int push(struct fill *f, size_t idx)
{
    if (gs_grow((void **)&f->list, &f->cap, f->n + 1, sizeof *f->list))
        return GS_ENOMEM;
    f->list[f->n++] = idx;
    return 0;
}

/* The run's job list: every job, then copies (or removals) to reach the
 * target request, shuffled (Fisher-Yates). */
static int build_list(struct fill *f, size_t ntrace, int64_t target)
{
    int64_t total = 0;
    for (size_t i = 0; i < ntrace; i++) {
        if (push(f, i) < 0)
            return GS_ENOMEM;
        total += request_of(&f->jobs[i]);
    }
    while (total < target) {
        size_t pick = (size_t)gs_rng_below(&f->rng, ntrace);
        int64_t r = request_of(&f->jobs[pick]);
        if (total + r > target)
            break;
        if (push(f, pick) < 0)
            return GS_ENOMEM;
        total += r;
    }
    while (total > target && f->n > 0) {
        size_t k = (size_t)gs_rng_below(&f->rng, f->n);
        total -= request_of(&f->jobs[f->list[k]]);
        f->list[k] = f->list[--f->n];
    }
    for (size_t i = f->n; i > 1; i--) {
        size_t k = (size_t)gs_rng_below(&f->rng, i);
        size_t t = f->list[i - 1];
        f->list[i - 1] = f->list[k];
        f->list[k] = t;
    }
    return 0;
}

/* The typical shapes of the workload (FGD: CPU, GPU count, share, GPU
 * type; host memory is not part of its target workload): of the `ntrace`
 * trace jobs, or of the run's inflated list. */
static int build_dist(struct fill *f, size_t ntrace)
{
    int orig = f->o->typical == GS_FILL_TYPICAL_ORIGINAL;
    size_t n = orig ? ntrace : f->n;
    struct gs_shape *v = gs_calloc(n ? n : 1, sizeof *v);
    if (!v)
        return GS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct fjob *j = &f->jobs[orig ? i : f->list[i]];
        v[i].gpus = j->gpus;
        v[i].milli = j->milli;
        v[i].mem_mib = -1;
        v[i].cpu_milli = j->cpu;
        v[i].gpu_type = j->type;
        v[i].gpu_types = j->types;
        v[i].topology = GS_TOPO_AUTO;
    }
    int rc = gs_shape_dist_build(v, (int)n, f->o->coverage, &f->dist);
    gs_free(v);
    return rc;
}

static void refresh_node(struct fill *f, int n)
{
    double before = f->fc.f[n];
    gs_frag_cache_node(&f->fc, f->cl, n, &f->dist);
    f->ftotal += f->fc.f[n] - before;
}

/* frag for a job without GPUs: the fragmentation it adds, scored as
 * gs_place scores a GPU job (place_frag.c): in steps of the quantum, or
 * by FGD's sigmoid (fgd_score.go scores a CPU-only pod like any other). */
static double frag_step(const struct fill *f, int n, const struct fjob *j)
{
    double d = gs_fill_frag_after(f, n, j, 0, -1) - f->fc.f[n];
    if (f->o->score_shape == GS_FRAG_SCORE_SIGMOID)
        return -trunc(100.0 / (1.0 + exp(d / 1000.0)));
    return f->o->quantum > 0 ? floor(d / f->o->quantum + 0.5) : d;
}

/* A job without GPUs under an engine strategy: the node whose free CPU
 * fits best (spread: the most free CPU; frag: the least fragmentation
 * added). */
static int host_only(struct fill *f, const struct fjob *j)
{
    double best = 0;
    f->host_node = -1;
    for (int n = 0; n < gs_cluster_node_count(f->cl); n++) {
        if (!gs_fill_feasible(f, n, j))
            continue;
        int64_t cap = gs_cluster_node_cpu(f->cl, n);
        double left = cap ? (double)(cap - gs_cluster_node_cpu_used(f->cl, n) - j->cpu) : 1e18;
        double s = f->o->strategy == GS_PLACE_SPREAD ? -left
                   : f->o->strategy == GS_PLACE_FRAG ? frag_step(f, n, j) : left;
        if (f->host_node < 0 || s < best) {
            best = s;
            f->host_node = n;
        }
    }
    return f->host_node >= 0 ? 0 : GS_ENOSPC;
}

static int place_engine(struct fill *f, const struct fjob *j)
{
    if (j->gpus == 0)
        return host_only(f, j);
    if (j->type == -2)
        return GS_ENOSPC;
    struct gs_request r;
    memset(&r, 0, sizeof r);
    r.gpus = j->gpus;
    r.milli = j->milli;
    r.mem_mib = -1;
    r.topology = GS_TOPO_AUTO;
    r.gpu_type = j->type;
    r.gpu_types = j->types;
    r.cpu_milli = j->cpu;
    r.host_mem_mib = j->mem;
    r.ctx = &f->ctx;
    return gs_place(f->cl, NULL, &r, f->o->strategy, &f->a, NULL);
}

/* Place one job and take its resources; returns 1 placed, 0 failed, or
 * GS_ENOMEM. */
static int place_one(struct fill *f, const struct fjob *j)
{
    f->host_node = -1;
    f->a.nparts = 0;
    int rc = f->o->policy == GS_FILL_ENGINE ? place_engine(f, j) : gs_fill_baseline(f, j);
    if (rc < 0)
        return 0;
    if (j->gpus == 0) {
        if (gs_cluster_host_take(f->cl, f->host_node, j->cpu, j->mem, 1, NULL) < 0)
            return 0;
        refresh_node(f, f->host_node);
        return 1;
    }
    if (gs_cluster_alloc(f->cl, &f->a, NULL) < 0)
        return 0;
    for (int i = 0; i < f->a.nparts; i++) {
        refresh_node(f, f->a.parts[i].node);
        if (j->cls >= 0)
            f->aff[f->a.parts[i].node] |= 1ULL << j->cls;
    }
    return 1;
}

/* Sums per arrived percent: unallocated, ratio, amount, S_k, count. */
struct acc {
    double *sum;    /* 4 per point */
    int64_t *cnt;
    int npoints;
};

static void sample(struct fill *f, struct acc *acc, int64_t arrived, int64_t cap)
{
    struct gs_cluster_stats st = gs_cluster_stats(f->cl);
    int a = (int)llround(100.0 * (double)arrived / (double)cap);
    if (a < 0 || a >= acc->npoints)
        return;
    double idle = (double)(cap - st.used_milli);
    double *s = acc->sum + (size_t)4 * (size_t)a;
    s[0] += 100.0 * idle / (double)cap;
    s[1] += idle > 0 ? 100.0 * f->ftotal / idle : 0;
    s[2] += 100.0 * f->ftotal / (double)cap;
    s[3] += (double)st.sched;
    acc->cnt[a]++;
}

/* Mean per percent; a percent with no sample takes its neighbours'. */
static void finish_points(const struct acc *acc, struct gs_fill_result *out)
{
    for (int a = 0; a < acc->npoints; a++) {
        double s[4] = { 0, 0, 0, 0 };
        int64_t c = acc->cnt[a];
        for (int k = 0; k < 4; k++)
            s[k] = acc->sum[4 * a + k];
        if (c == 0) {
            for (int b = a - 1; b <= a + 1; b += 2) {
                if (b < 0 || b >= acc->npoints)
                    continue;
                c += acc->cnt[b];
                for (int k = 0; k < 4; k++)
                    s[k] += acc->sum[4 * b + k];
            }
        }
        struct gs_fill_point *p = &out->points[a];
        p->arrived = a;
        if (c > 0) {
            p->unallocated = s[0] / (double)c;
            p->frag_ratio = s[1] / (double)c;
            p->frag_amount = s[2] / (double)c;
            p->schedulability = s[3] / (double)c;
        } else {
            p->arrived = -1; /* no data */
        }
    }
}

/* The run's copy of the cluster: as it is, or with its nodes in a random
 * order drawn from the seed on a stream of its own (FGD's random names). */
static struct gs_cluster *run_cluster(const struct gs_cluster *cl, const struct gs_fill_opts *o)
{
    if (o->ties != GS_FILL_TIES_RANDOM)
        return gs_cluster_clone(cl);
    int nn = gs_cluster_node_count(cl);
    int *order = gs_calloc((size_t)nn, sizeof *order);
    if (!order)
        return NULL;
    struct gs_rng r;
    gs_rng_seed(&r, o->seed ^ 0x5449455352414e44ULL); /* "TIESRAND" */
    for (int i = 0; i < nn; i++)
        order[i] = i;
    for (int i = nn; i > 1; i--) {
        int k = (int)gs_rng_below(&r, (uint64_t)i), t = order[i - 1];
        order[i - 1] = order[k];
        order[k] = t;
    }
    struct gs_cluster *c = gs_cluster_reordered(cl, order, NULL);
    gs_free(order);
    return c;
}

static int setup(struct fill *f, const struct gs_cluster *cl, const struct gs_trace *tr,
                 const struct gs_fill_opts *o)
{
    int nn = gs_cluster_node_count(cl);
    f->o = o;
    gs_rng_seed(&f->rng, o->seed);
    f->cl = run_cluster(cl, o);
    f->tie_by_index = o->ties == GS_FILL_TIES_RANDOM;
    f->aff = gs_calloc((size_t)nn, sizeof *f->aff);
    f->a.parts = gs_calloc((size_t)nn, sizeof *f->a.parts);
    f->a.cap = nn;
    f->cand = gs_calloc((size_t)nn, sizeof *f->cand);
    f->score = gs_calloc((size_t)nn, sizeof *f->score);
    if (!f->cl || gs_frag_cache_init(&f->fc, nn) < 0 || !f->aff || !f->a.parts || !f->cand || !f->score ||
        load_jobs(f, tr) < 0)
        return GS_ENOMEM;
    int64_t cap = gs_cluster_gpu_count(cl) * GS_MILLI_GPU;
    if (build_list(f, gs_trace_count(tr), llround(o->inflate * (double)cap)) < 0 ||
        build_dist(f, gs_trace_count(tr)) < 0)
        return GS_ENOMEM;
    f->ctx.shapes = &f->dist;
    f->ctx.sched_weight = o->sched_weight;
    f->ctx.quantum = o->quantum;
    f->ctx.score_shape = o->score_shape;
    f->ctx.frag_cache = &f->fc; /* kept exact by refresh_node */
    f->ctx.mig_reconfigure = GS_MIG_NEVER;
    for (int n = 0; n < nn; n++)
        refresh_node(f, n);
    return 0;
}

static void teardown(struct fill *f)
{
    gs_cluster_destroy(f->cl);
    gs_free(f->jobs);
    gs_free(f->list);
    gs_frag_cache_fini(&f->fc);
    gs_free(f->aff);
    gs_free(f->a.parts);
    gs_free(f->cand);
    gs_free(f->score);
}

static int run_list(struct fill *f, struct gs_fill_result *out)
{
    int64_t cap = gs_cluster_gpu_count(f->cl) * GS_MILLI_GPU, total = 0, arrived = 0;
    for (size_t i = 0; i < f->n; i++)
        total += request_of(&f->jobs[f->list[i]]);
    struct acc acc = { NULL, NULL, (int)(100 * total / cap) + 3 };
    acc.sum = gs_calloc((size_t)acc.npoints * 4, sizeof *acc.sum);
    acc.cnt = gs_calloc((size_t)acc.npoints, sizeof *acc.cnt);
    out->points = gs_calloc((size_t)acc.npoints, sizeof *out->points);
    int rc = acc.sum && acc.cnt && out->points ? 0 : GS_ENOMEM;
    for (size_t i = 0; rc == 0 && i < f->n; i++) {
        const struct fjob *j = &f->jobs[f->list[i]];
        arrived += request_of(j);
        if (place_one(f, j))
            out->placed++;
        else
            out->failed++;
        sample(f, &acc, arrived, cap);
    }
    if (rc == 0) {
        out->npoints = acc.npoints;
        finish_points(&acc, out);
    }
    gs_free(acc.sum);
    gs_free(acc.cnt);
    return rc;
}

int gs_fill_run(const struct gs_cluster *cl, const struct gs_trace *tr,
                const struct gs_fill_opts *o, struct gs_fill_result *out, struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (gs_trace_count(tr) == 0 || gs_cluster_gpu_count(cl) == 0)
        return gs_errorf(err, GS_EINVAL, "fill needs jobs and GPUs");
    if (!(o->inflate > 0 && o->inflate <= 100) || !(o->coverage > 0 && o->coverage <= 1) ||
        o->policy < GS_FILL_ENGINE || o->policy > GS_FILL_FGD)
        return gs_errorf(err, GS_EINVAL, "fill: bad options (inflate in (0, 100])");
    struct fill f;
    memset(&f, 0, sizeof f);
    int rc = setup(&f, cl, tr, o);
    if (rc == 0)
        rc = run_list(&f, out);
    if (rc == 0) {
        out->jobs = (int64_t)f.n;
        out->k = gs_cluster_stats(f.cl).k;
        out->shapes = f.dist.n;
    }
    teardown(&f);
    if (rc < 0) {
        gs_fill_result_fini(out);
        return gs_errorf(err, rc, "out of memory");
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int gs_fill_median(const struct gs_fill_result *runs, int n, struct gs_fill_result *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return 0;
    int np = runs[0].npoints;
    for (int r = 0; r < n; r++) {
        np = runs[r].npoints < np ? runs[r].npoints : np;
        out->jobs += runs[r].jobs;
        out->placed += runs[r].placed;
        out->failed += runs[r].failed;
    }
    out->k = runs[0].k;
    out->shapes = runs[0].shapes;
    out->points = gs_calloc(np > 0 ? (size_t)np : 1, sizeof *out->points);
    double *v = gs_calloc((size_t)n, sizeof *v);
    if (!out->points || !v) {
        gs_free(v);
        gs_fill_result_fini(out);
        return GS_ENOMEM;
    }
    for (int a = 0; a < np; a++) {
        int ok = 1;
        for (int r = 0; r < n; r++)
            ok &= runs[r].points[a].arrived == a;
        struct gs_fill_point *p = &out->points[out->npoints];
        if (!ok)
            continue;
        p->arrived = a;
        double *fields[] = { &p->unallocated, &p->frag_ratio, &p->frag_amount,
                             &p->schedulability };
        for (int k = 0; k < 4; k++) {
            for (int r = 0; r < n; r++) {
                const struct gs_fill_point *q = &runs[r].points[a];
                const double vals[] = { q->unallocated, q->frag_ratio, q->frag_amount,
                                        q->schedulability };
                v[r] = vals[k];
            }
            *fields[k] = median_of(v, n);
        }
        out->npoints++;
    }
    gs_free(v);
    return 0;
}

void gs_fill_result_fini(struct gs_fill_result *r)
{
    if (!r)
        return;
    gs_free(r->points);
    r->points = NULL;
    r->npoints = 0;
}

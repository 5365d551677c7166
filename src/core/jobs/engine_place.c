/* engine_place.c - shape window, GPU -> jobs index and queue-dependent
 * fragmentation for the engine (see engine_place.h). */
#include "core/jobs/engine_place.h"
#include "core/base/alloc.h"
#include "core/jobs/jobs.h"
#include "core/place/frag.h"

#include <string.h>

#define COVERAGE 0.95       /* FGD's typical-pod coverage */
#define EXTRA_PENDING 256   /* waiting jobs the memory measure looks at */

struct gs_eng_place {
    struct gs_shape_window *win;
    struct gs_shape_dist dist;
    int pushes;                 /* shapes pushed since the last rebuild */
    struct gs_place_ctx ctx;
    int32_t *head;              /* per global GPU: first shared job, -1 = none */
    struct gs_frag_cache fc;    /* F_n per node w.r.t. dist (frag strategy) */
    int use_cache;
    int64_t ngpus;
    uint64_t version;           /* bumped on every start, stop and submit */
    uint64_t extra_version;     /* version `extra` was computed at, 0 = never */
    struct gs_frag_extra extra;
    /* pending_shapes memo: the waiting jobs it last looked at and their
     * distinct shapes (a job's shape never changes while it waits) */
    int memo_jobs[EXTRA_PENDING];
    int memo_n;                 /* -1 = none yet */
    struct gs_shape_dist memo_dist;
};

struct gs_eng_place *gs_eng_place_create(const struct gs_cluster *cl, const struct gs_policy *pol)
{
    struct gs_eng_place *p = gs_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ngpus = gs_cluster_gpu_count(cl);
    p->win = gs_shape_window_create(pol->frag_window > 0 ? pol->frag_window : 1000);
    p->head = gs_malloc((size_t)(p->ngpus > 0 ? p->ngpus : 1) * sizeof *p->head);
    p->use_cache = pol->strategy == GS_PLACE_FRAG;
    if (!p->win || !p->head ||
        (p->use_cache && gs_frag_cache_init(&p->fc, gs_cluster_node_count(cl)) < 0)) {
        gs_eng_place_destroy(p);
        return NULL;
    }
    for (int64_t i = 0; i < p->ngpus; i++)
        p->head[i] = -1;
    p->ctx.shapes = &p->dist;
    p->ctx.sched_weight = pol->frag_sched_weight;
    p->ctx.quantum = pol->frag_quantum;
    p->ctx.score_shape = pol->frag_score;
    p->ctx.mig_reconfigure = pol->mig_reconfigure;
    p->version = 1;
    p->memo_n = -1;
    return p;
}

void gs_eng_place_destroy(struct gs_eng_place *p)
{
    if (!p)
        return;
    gs_shape_window_destroy(p->win);
    gs_free(p->head);
    gs_frag_cache_fini(&p->fc);
    gs_free(p);
}

void gs_eng_job_shape(const struct gs_engine *eng, int job, struct gs_shape *out)
{
    const struct job *j = &eng->jobs[job];
    memset(out, 0, sizeof *out);
    out->gpus = j->gpus;
    out->milli = j->milli;
    out->mem_mib = j->mem_mib;
    out->cpu_milli = j->cpu_milli;
    out->host_mem_mib = j->host_mem_mib;
    out->gpu_type = j->gpu_type;
    out->gpu_types = j->gpu_types;
    out->topology = j->topology;
    out->mig = j->mig;
    if (eng->pol.sharing == GS_SHARING_EXCLUSIVE && !j->mig && out->milli < GS_MILLI_GPU) {
        out->milli = GS_MILLI_GPU;
        out->mem_mib = -1;
    }
}

void gs_eng_place_submit(struct gs_engine *eng, int job)
{
    struct gs_shape s;
    gs_eng_job_shape(eng, job, &s);
    gs_shape_window_push(eng->place->win, &s);
    eng->place->pushes++;
    eng->place->version++;
}

void gs_eng_place_pass(struct gs_engine *eng)
{
    struct gs_eng_place *p = eng->place;
    int n = gs_shape_window_count(p->win);
    if (p->pushes == 0 || p->pushes < n / 64)
        return;
    gs_shape_window_dist(p->win, COVERAGE, &p->dist);
    p->pushes = 0;
    gs_frag_cache_invalidate(&p->fc);
}

const struct gs_place_ctx *gs_eng_place_ctx(const struct gs_engine *eng)
{
    struct gs_eng_place *p = eng->place;
    if (p->use_cache && p->dist.n > 0) {
        /* a cache of the live state: refreshing it changes no decision */
        gs_frag_cache_refresh(&p->fc, eng->cl, &p->dist);
        p->ctx.frag_cache = &p->fc;
    } else {
        p->ctx.frag_cache = NULL;
    }
    return &p->ctx;
}

/* Global GPU of a shared job's allocation, or -1 when it holds no shared
 * GPU (whole GPUs, MIG instance, not started). */
static int64_t shared_gpu(const struct gs_engine *eng, const struct job *j)
{
    if (j->nparts != 1 || j->mig_slot || j->alloc_milli >= GS_MILLI_GPU)
        return -1;
    const struct gs_alloc_part *part = &eng->parts[j->parts_off];
    return gs_cluster_node_first_gpu(eng->cl, part->node) + __builtin_ctzll(part->mask);
}

void gs_eng_place_started(struct gs_engine *eng, int job)
{
    struct job *j = &eng->jobs[job];
    int64_t gi = shared_gpu(eng, j);
    eng->place->version++;
    j->gpu_next = -1;
    if (gi < 0)
        return;
    j->gpu_next = eng->place->head[gi];
    eng->place->head[gi] = job;
}

void gs_eng_place_stopped(struct gs_engine *eng, int job)
{
    struct job *j = &eng->jobs[job];
    int64_t gi = shared_gpu(eng, j);
    eng->place->version++;
    if (gi < 0)
        return;
    int32_t *at = &eng->place->head[gi];
    while (*at >= 0 && *at != job)
        at = &eng->jobs[*at].gpu_next;
    if (*at == job)
        *at = j->gpu_next;
    j->gpu_next = -1;
}

int gs_eng_place_first(const struct gs_engine *eng, int64_t gi)
{
    return gi >= 0 && gi < eng->place->ngpus ? eng->place->head[gi] : -1;
}

int gs_eng_place_next(const struct gs_engine *eng, int job)
{
    return eng->jobs[job].gpu_next;
}

/* Distinct shapes of the first waiting jobs, equally weighted.  When they
 * are the jobs of the last call, the last answer is reused (the simulator
 * asks after every step; the first waiting jobs seldom change). */
static void pending_shapes(const struct gs_engine *eng, struct gs_shape_dist *d)
{
    struct gs_eng_place *p = eng->place;
    int jobs[EXTRA_PENDING] = { 0 }, handles[EXTRA_PENDING] = { 0 }, seen = 0;
    for (size_t i = eng->phead; i < eng->ptail && seen < EXTRA_PENDING; i++) {
        int job = gs_eng_queued(eng, i);
        if (job >= 0) {
            handles[seen] = gs_eng_handle(eng, job); /* slots may be reused: the memo */
            jobs[seen++] = job;                      /* names handles */
        }
    }
    if (seen == p->memo_n &&
        memcmp(handles, p->memo_jobs, (size_t)seen * sizeof *handles) == 0) {
        d->n = p->memo_dist.n;
        memcpy(d->s, p->memo_dist.s, (size_t)d->n * sizeof *d->s);
        return;
    }
    d->n = 0;
    for (int i = 0; i < seen; i++) {
        struct gs_shape s;
        gs_eng_job_shape(eng, jobs[i], &s);
        gs_shape_dist_add_distinct(d, &s);
    }
    gs_shape_dist_equal_weights(d);
    p->memo_n = seen;
    memcpy(p->memo_jobs, handles, (size_t)seen * sizeof *handles);
    p->memo_dist.n = d->n;
    memcpy(p->memo_dist.s, d->s, (size_t)d->n * sizeof *d->s);
}

void gs_engine_frag_extra(struct gs_engine *eng, struct gs_frag_extra *out)
{
    struct gs_eng_place *p = eng->place;
    if (p->extra_version != p->version) {
        struct gs_shape_dist d;
        pending_shapes(eng, &d);
        const struct gs_shape_dist *use = d.n ? &d : &p->dist;
        struct gs_cluster_stats st = gs_cluster_stats(eng->cl);
        p->extra.memory = gs_frag_memory(eng->cl, use);
        p->extra.mig = st.mig_gpus ? gs_frag_mig(eng->cl, use) : 0;
        p->extra_version = p->version;
    }
    *out = p->extra;
}

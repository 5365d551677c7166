/* fill_private.h - what fill.c (the experiment) and fill_score.c (the
 * artifact's baseline score plugins) share. */
#ifndef GS_SIM_FILL_PRIVATE_H
#define GS_SIM_FILL_PRIVATE_H

#include "core/place/frag.h"
#include "core/place/place.h"
#include "core/base/rng.h"
#include "sim/fill.h"

/* One job as the experiment sees it. */
struct fjob {
    int gpus, milli;
    int64_t cpu, mem;       /* host CPU (milli-cores) and memory (MiB) */
    int type;               /* required GPU type, -1 any, -2 none exists */
    uint64_t types;         /* allowed GPU types, 0 = `type` */
    int cls;                /* GPU-request class for clustering, -1 = no GPU */
};

struct fill {
    struct gs_cluster *cl;
    const struct gs_fill_opts *o;
    struct gs_rng rng;
    struct fjob *jobs;      /* per trace job */
    size_t *list;           /* the run's jobs (trace indexes), shuffled */
    size_t n, cap;
    struct gs_shape_dist dist;
    struct gs_place_ctx ctx;
    struct gs_frag_cache fc; /* F_n per node (frag.h), milli-GPU, kept exact */
    double ftotal;
    uint64_t *aff;          /* per node: GPU-request classes placed there */
    struct gs_alloc a;      /* placement result (parts: one per node) */
    int host_node;          /* CPU-only job: the node chosen, -1 = none */
    int *cand, *score;      /* baselines: feasible nodes and their scores */
    int tie_by_index;       /* baselines: ties go to the lower node index
                               (random tie order), else the smaller name */
};

/* Place job `j` under one of the baseline score plugins: fills f->a (or
 * f->host_node for a job without GPUs).  Returns 0 or GS_ENOSPC.
 * (fill_score.c) */
int gs_fill_baseline(struct fill *f, const struct fjob *j);

/* Whether node `n` passes the filter for `j` (GPU type, host CPU and
 * memory, enough GPUs with the share free).  (fill_score.c) */
int gs_fill_feasible(const struct fill *f, int n, const struct fjob *j);

/* F_n of node `n` after taking `take` whole GPUs, or `milli` more on GPU
 * `gpu` (gpu >= 0), and the job's host CPU.  (fill_score.c) */
double gs_fill_frag_after(const struct fill *f, int n, const struct fjob *j, uint64_t take,
                          int gpu);

#endif

/* frag.h - fragmentation measured against a distribution of job shapes.
 *
 * The expected-fragmentation measure of FGD (Weng et al., "Beware of
 * Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
 * Gradient Descent", USENIX ATC'23, section 4.1; the artifact's
 * pkg/utils/frag.go), extended with NVLink domains and GPU memory:
 *
 *   F_n = sum over shapes m of p_m * frag_n(m)          (milli-GPU)
 *
 * frag_n(m) is all of node n's free GPU share when m cannot run on n at all
 * (CPU-only shape, wrong GPU type, too little host CPU, or not enough
 * usable GPUs under the topology rule); otherwise the free share of the
 * GPUs m cannot use (free share below m's, too little free memory, or - for
 * a job that must stay inside one NVLink domain - in a domain with too few
 * usable GPUs).  MIG shapes and GPUs in MIG mode are left out (they are a
 * separate pool, measured by gs_frag_mig).  With one domain per node and no
 * memory requests this is exactly FGD's measure.  docs/placement.md has the
 * derivation and worked examples.
 */
#ifndef GS_CORE_FRAG_H
#define GS_CORE_FRAG_H

#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/policy/job.h"
#include "core/place/shapes.h"

/* One node's free resources as the measure sees them, with the node's
 * shape (filled by gs_frag_node_load; callers may change the free fields
 * to evaluate a placement). */
struct gs_frag_node {
    int ngpus;
    uint64_t whole;                  /* GPUs with nothing on them */
    int free_milli[GS_MAX_NODE_GPUS];   /* 0 for GPUs in MIG mode or full */
    int64_t free_mem[GS_MAX_NODE_GPUS];
    int64_t cpu_free;                /* INT64_MAX when CPU is not modelled */
    /* the node's shape, constant */
    int type, ndom, maxdom, maxnode;
    int64_t cap;                     /* GPU memory */
    uint64_t dom[GS_MAX_NODE_DOMAINS];
};

/* Load node `node`'s state: the live state, or with `view` (one mask per
 * node) the GPUs idle in the view as empty and the others as full. */
void gs_frag_node_load(const struct gs_cluster *cl, int node, const uint64_t *view,
                       struct gs_frag_node *st);

/* frag_n(m) of one shape, in milli-GPU. */
int64_t gs_frag_node_shape(const struct gs_cluster *cl, int node, const struct gs_frag_node *st,
                           const struct gs_shape *m);

/* F_n: the expected fragmentation of the node state w.r.t. `d`. */
double gs_frag_node_score(const struct gs_cluster *cl, int node, const struct gs_frag_node *st,
                          const struct gs_shape_dist *d);

/* Cluster totals of the live state w.r.t. `d`. */
struct gs_frag_total {
    double frag_milli;       /* sum of F_n */
    int64_t free_milli;      /* free share of all non-MIG GPUs */
};
void gs_frag_cluster(const struct gs_cluster *cl, const struct gs_shape_dist *d,
                     struct gs_frag_total *out);

/* Memory fragmentation: free memory on partly used GPUs (a share of them
 * taken, not all, not MIG) on which no shape of `d` fits (share, memory,
 * type, host CPU),
 * in GPU-equivalents (free memory / the GPU's memory).  With d NULL or
 * empty every partly used GPU's free memory counts. */
double gs_frag_memory(const struct gs_cluster *cl, const struct gs_shape_dist *d);

/* MIG fragmentation: compute slices of free MIG instances whose profile no
 * MIG shape of `d` asks for, in GPU-equivalents (slices / 7).  With no MIG
 * shapes in d every free instance counts. */
double gs_frag_mig(const struct gs_cluster *cl, const struct gs_shape_dist *d);

/* A cache of F_n for every node of a cluster's live state w.r.t. one shape
 * distribution, refreshed node by node through gs_cluster_node_versions,
 * so placement reads F_n before a placement in O(1) (gs_place_ctx). */
struct gs_frag_cache {
    double *f;              /* per node */
    double *simple;         /* per node: gs_frag_node_simple (pruning) */
    uint32_t *ver;          /* node version f was computed at */
    int n;
    int valid;              /* 0 = recompute every node */
};

/* The probability mass of the single-GPU shapes of `d` an idle GPU of the
 * node serves now (type, memory and host CPU allow them): taking idle GPUs
 * never lowers their fragmentation, which bounds how much a whole-GPU
 * placement can lower F_n (place_frag.c prunes nodes with it). */
double gs_frag_node_simple(const struct gs_frag_node *st, const struct gs_shape_dist *d);

/* Recompute entry `node` from the live state, whatever its version. */
void gs_frag_cache_node(struct gs_frag_cache *c, const struct gs_cluster *cl, int node,
                        const struct gs_shape_dist *d);

/* Allocate for `nodes` nodes (nothing valid).  Returns 0 or GS_ENOMEM. */
int gs_frag_cache_init(struct gs_frag_cache *c, int nodes);

/* Free; `c` may be reused after init. */
void gs_frag_cache_fini(struct gs_frag_cache *c);

/* The distribution changed: every entry is stale. */
void gs_frag_cache_invalidate(struct gs_frag_cache *c);

/* Recompute the entries of nodes changed since they were computed (all of
 * them after an invalidate).  O(nodes) plus the work for stale nodes. */
void gs_frag_cache_refresh(struct gs_frag_cache *c, const struct gs_cluster *cl,
                           const struct gs_shape_dist *d);

/* Resolve a `gpu_model` ("A100", or alternatives "V100M16|V100M32") to a
 * type index (one model) or a mask (several); *type = -2 when no listed
 * model exists in the cluster, -1 with *mask = 0 when model is NULL/empty. */
void gs_frag_parse_models(const struct gs_cluster *cl, const char *model, int *type,
                          uint64_t *mask);

/* The shape of a job spec on `cl` (p = 1); `exclusive` turns a fractional
 * share into a whole GPU as placement.sharing: exclusive does. */
void gs_frag_shape_of_spec(const struct gs_cluster *cl, const struct gs_job_spec *s,
                           int exclusive, struct gs_shape *out);

#endif

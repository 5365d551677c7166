/* cluster_private.h - the cluster's internal representation, shared by
 * cluster.c (shape, allocation, statistics) and cluster_mig.c (MIG mode).
 * Nothing else includes this. */
#ifndef GS_CORE_CLUSTER_PRIVATE_H
#define GS_CORE_CLUSTER_PRIVATE_H

#include "core/cluster/cluster.h"
#include "core/base/strtab.h"

#include <stddef.h>

struct gpu_type {
    char name[GS_NAME_MAX];
    int64_t mem_mib;
    int mig_model;              /* enum gs_mig_model, -1 = none */
};

/* MIG state of one GPU (allocated for the whole cluster on first use). */
struct mig_gpu {
    struct gs_mig_layout l;
    uint8_t busy;               /* bit i: instance i in use */
};

struct node {
    int gpus;
    int first_gpu;
    int type;
    int ndom;
    uint64_t dom_mask[GS_MAX_NODE_DOMAINS];
    int rack, mdomain;
    int64_t cpu, mem;           /* capacity, 0 = not modelled */
    int64_t cpu_used, mem_used;
    uint64_t idle;              /* GPUs with no allocation, not in MIG mode */
    uint64_t mig_mask;          /* GPUs in MIG mode */
    int sched;                  /* S_k contribution (k <= gpus) */
    int frag_topo;              /* topology fragmentation contribution */
};

struct gs_cluster {
    struct gpu_type *types;
    size_t ntypes, types_cap;
    struct node *nodes;
    size_t nnodes, nodes_cap;
    struct gs_strtab *names;    /* node names, id == node index */
    struct gs_strtab *labels;   /* rack and mdomain labels */
    int64_t ngpus;
    int max_domain, max_node;
    int sealed;
    int k;
    /* per GPU (global index) */
    int32_t *milli;
    int64_t *mem;
    int32_t *users;
    uint64_t *full;             /* per node: all GPUs */
    uint64_t *idle_arr;         /* per node: copy of node.idle, for fast scans */
    uint8_t *ndom_arr;          /* per node: NVLink domains */
    uint64_t *part_arr;         /* per node: partly used GPUs (is_shared) */
    uint32_t *ver_arr;          /* per node: bumped on every change */
    struct mig_gpu *mig;        /* per GPU, NULL until a GPU enters MIG mode */
    /* incremental stats */
    int64_t idle_gpus, used_milli;
    int64_t shared_gpus, mig_gpus, mig_busy_compute;
    int64_t sched_nodes;        /* sum of node sched for nodes with gpus >= k */
    int64_t whole_idle_small;   /* GPUs of fully idle nodes with gpus < k */
    int64_t frag_topo;
    struct gs_dom_index *dix;   /* domains by idle count (cluster_index.c) */
};

/* Build the domain index of a sealed cluster; NULL on allocation failure. */
struct gs_dom_index *gs_dom_index_create(const struct gs_cluster *cl);

/* Deep copy (the cluster has `nnodes` nodes); NULL on failure. */
struct gs_dom_index *gs_dom_index_clone(const struct gs_dom_index *src, size_t nnodes);

/* Free it; NULL is a no-op. */
void gs_dom_index_destroy(struct gs_dom_index *x);

/* Re-bucket the domains of `node` after its idle mask changed. */
void gs_dom_index_update(struct gs_dom_index *x, const struct gs_cluster *cl, int node);

/* 0 when the index matches the idle masks, else GS_ESTATE. */
int gs_dom_index_check(const struct gs_dom_index *x, const struct gs_cluster *cl);

/* The domain a g-GPU job goes to under pack (spread = 0) or spread
 * (spread = 1; only clusters with one domain per node, else GS_ENOTSUP),
 * with the same choice and ties as the linear scan; GS_ENOSPC if none. */
int gs_dom_index_best(const struct gs_dom_index *x, const struct gs_cluster *cl, int g,
                      int spread, int *node, uint64_t *dmask);

/* Remove (sign -1) or add (sign +1) a node's contribution to the
 * incremental statistics.  (cluster.c) */
void gs_cl_account_node(struct gs_cluster *cl, struct node *n, int node, int sign);

/* Validate the MIG part of allocation `a` (mig_slot or mig_reconf set).
 * Returns 0, GS_EINVAL or GS_ENOSPC.  (cluster_mig.c) */
int gs_cl_mig_check(const struct gs_cluster *cl, const struct gs_alloc *a,
                    struct gs_error *err);

/* Apply (+1) or undo (-1) the MIG part of a valid allocation: instance busy
 * bits, repartitioning, compute-slice statistics.  (cluster_mig.c) */
void gs_cl_mig_apply(struct gs_cluster *cl, const struct gs_alloc *a, int sign);

/* Recount MIG statistics from the per-GPU state (consistency check). */
void gs_cl_mig_recount(const struct gs_cluster *cl, int64_t *gpus, int64_t *busy_compute);

#endif

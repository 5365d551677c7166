/* cluster.h - the cluster model: GPU types, nodes, NVLink domains, and the
 * live allocation state of every GPU.
 *
 * A cluster is built once (add GPU types, add nodes, seal) and then changes
 * only through gs_cluster_alloc/gs_cluster_release.  The cluster keeps the
 * schedulability S_k and the fragmentation split up to date incrementally, so
 * reading them is O(1).
 *
 * GPUs are numbered per node (0..gpus-1) and globally (node order, then GPU
 * index).  A node has at most GS_MAX_NODE_GPUS GPUs, so a set of GPUs of one
 * node is a uint64_t bit mask.
 */
#ifndef GS_CORE_CLUSTER_H
#define GS_CORE_CLUSTER_H

#include <stdint.h>

#include "core/base/error.h"
#include "core/cluster/mig.h"
#include "core/base/types.h"

#define GS_MAX_NODE_GPUS 64
#define GS_MAX_NODE_DOMAINS 16
#define GS_NAME_MAX 64

struct gs_cluster;

/* Whether a node (or GPU) accepts work (the live engine's node events). */
enum gs_node_state { GS_NODE_UP, GS_NODE_DRAIN, GS_NODE_DOWN };

/* Description of one node, as read from the cluster file. */
struct gs_node_spec {
    const char *name;         /* unique; copied */
    int gpus;                 /* 0..GS_MAX_NODE_GPUS */
    int gpu_type;             /* index from gs_cluster_add_gpu_type */
    int ndomains;             /* 0 means one domain holding every GPU */
    int domain_sizes[GS_MAX_NODE_DOMAINS]; /* GPUs per NVLink island, sum = gpus */
    const char *rack;         /* optional label, NULL = none; copied */
    const char *mdomain;      /* optional multi-node NVLink domain label */
    int64_t cpu_milli;        /* host CPU capacity; 0 = not modelled */
    int64_t mem_mib;          /* host memory; 0 = not modelled */
};

/* One node's part of an allocation: which GPUs of `node`. */
struct gs_alloc_part {
    int32_t node;
    uint64_t mask;
};

/* A set of GPUs given to one job.  Every GPU of the allocation receives the
 * same share (`milli`, 1000 = the whole GPU) and `mem_mib` of its memory.
 * `parts` is caller-owned storage for up to `cap` parts.
 *
 * A MIG allocation names one GPU (one part, one bit) in MIG mode and
 * `mig_slot` = 1 + the index of a free instance of its layout; `milli` and
 * `mem_mib` must be the instance's compute share (gs_mig_milli) and its
 * memory slices' part of the GPU type's memory (memory x slices / 8).
 * With `mig_reconf` = 1 + a profile id the GPU, which must have no instance
 * in use, is first repartitioned into gs_mig_layout_homogeneous(profile). */
struct gs_alloc {
    int nparts;
    int cap;
    struct gs_alloc_part *parts;
    int milli;
    int64_t mem_mib;
    int64_t cpu_milli;        /* host CPU taken on the first part's node */
    int64_t host_mem_mib;     /* host memory taken on the first part's node */
    int mig_slot;             /* 1 + MIG instance index; 0 = not MIG */
    int mig_reconf;           /* 1 + profile to repartition into; 0 = keep */
};

/* Point-in-time figures, maintained incrementally. */
struct gs_cluster_stats {
    int k;                    /* the S_k job size */
    int64_t gpus;             /* total GPUs */
    int64_t idle_gpus;        /* GPUs with nothing on them */
    int64_t used_milli;       /* sum of allocated shares, milli-GPU */
    int64_t sched;            /* S_k: k-GPU jobs placeable at once now */
    int64_t frag_count;       /* idle GPUs unusable by a k-job: count form */
    int64_t frag_topology;    /* ... because of NVLink domain boundaries */
    int64_t shared_gpus;      /* GPUs partly used (users > 0, share < 1000), not MIG */
    int64_t mig_gpus;         /* GPUs in MIG mode (never idle whole GPUs) */
    int64_t mig_free_compute; /* compute slices of MIG GPUs not in busy instances */
    /* set by drivers that know the queue (gs_engine_frag_extra), 0 here */
    double frag_memory;       /* GPU-equivalents of unusable memory (frag.h) */
    double frag_mig;          /* GPU-equivalents of unusable MIG slices */
};

/* Create an empty cluster.  NULL on allocation failure.  Destroy with
 * gs_cluster_destroy. */
struct gs_cluster *gs_cluster_create(void);

/* Free the cluster; NULL is a no-op. */
void gs_cluster_destroy(struct gs_cluster *cl);

/* Add a GPU type with `mem_mib` of memory per GPU.  Returns its index, or
 * GS_EEXIST for a duplicate name, GS_EINVAL for bad values, GS_ENOMEM. */
int gs_cluster_add_gpu_type(struct gs_cluster *cl, const char *name,
                            int64_t mem_mib, struct gs_error *err);

/* Give GPU type `type` a MIG geometry (enum gs_mig_model, -1 = none; the
 * default).  Returns 0 or GS_EINVAL. */
int gs_cluster_set_gpu_type_mig(struct gs_cluster *cl, int type, int model);

/* MIG geometry of a GPU type, -1 = none. */
int gs_cluster_gpu_type_mig(const struct gs_cluster *cl, int type);

/* Index of GPU type `name`, or GS_ENOENT. */
int gs_cluster_find_gpu_type(const struct gs_cluster *cl, const char *name);

/* Add a node (only before gs_cluster_seal).  Returns the node index, or
 * GS_EEXIST (duplicate name), GS_EINVAL (bad GPU count, domains that do not
 * sum to the GPU count, unknown GPU type), GS_ESTATE (sealed), GS_ENOMEM. */
int gs_cluster_add_node(struct gs_cluster *cl, const struct gs_node_spec *spec,
                        struct gs_error *err);

/* Finish construction and fix the schedulability job size `k` (0 = the
 * largest NVLink domain).  Returns GS_EINVAL for an empty cluster or k < 0,
 * GS_ENOMEM. */
int gs_cluster_seal(struct gs_cluster *cl, int k, struct gs_error *err);

/* Deep copy of a sealed cluster including its allocation state; NULL on
 * allocation failure. */
struct gs_cluster *gs_cluster_clone(const struct gs_cluster *cl);

/* --- static shape ------------------------------------------------------ */
int gs_cluster_node_count(const struct gs_cluster *cl);
int64_t gs_cluster_gpu_count(const struct gs_cluster *cl);
int gs_cluster_gpu_type_count(const struct gs_cluster *cl);
const char *gs_cluster_gpu_type_name(const struct gs_cluster *cl, int type);
int64_t gs_cluster_gpu_type_mem(const struct gs_cluster *cl, int type);
/* Largest NVLink domain and largest node, in GPUs. */
int gs_cluster_max_domain(const struct gs_cluster *cl);
int gs_cluster_max_node_gpus(const struct gs_cluster *cl);
/* Node index by name, or GS_ENOENT. */
int gs_cluster_find_node(const struct gs_cluster *cl, const char *name);
/* Node accessors; `node` must be in range.  Strings are borrowed for the
 * cluster's lifetime. */
const char *gs_cluster_node_name(const struct gs_cluster *cl, int node);
int gs_cluster_node_gpus(const struct gs_cluster *cl, int node);
int gs_cluster_node_gpu_type(const struct gs_cluster *cl, int node);
int gs_cluster_node_first_gpu(const struct gs_cluster *cl, int node);
int gs_cluster_node_domains(const struct gs_cluster *cl, int node);
uint64_t gs_cluster_domain_mask(const struct gs_cluster *cl, int node, int d);
int gs_cluster_node_rack(const struct gs_cluster *cl, int node);    /* -1 none */
int gs_cluster_node_mdomain(const struct gs_cluster *cl, int node); /* -1 none */
/* Label string for a rack or mdomain id (see the two calls above). */
const char *gs_cluster_label_name(const struct gs_cluster *cl, int id);
int64_t gs_cluster_node_cpu(const struct gs_cluster *cl, int node);
int64_t gs_cluster_node_mem(const struct gs_cluster *cl, int node);

/* One mask per node with every GPU set: the view of an empty cluster, for
 * "could this ever fit" questions.  Borrowed; valid once sealed. */
const uint64_t *gs_cluster_full_view(const struct gs_cluster *cl);

/* Fast per-node arrays for placement scans (sealed cluster): the idle
 * masks (gs_cluster_idle_mask of every node) and the NVLink domain counts.
 * Borrowed until the next change to the cluster. */
const uint64_t *gs_cluster_idle_masks(const struct gs_cluster *cl);
const uint8_t *gs_cluster_domain_counts(const struct gs_cluster *cl);
/* Per node: GPUs partly used (a share taken, not all of it, not MIG). */
const uint64_t *gs_cluster_shared_masks(const struct gs_cluster *cl);
/* Per node: a counter bumped by every change to the node (allocation,
 * release, host resources, MIG layout), for caches of per-node figures. */
const uint32_t *gs_cluster_node_versions(const struct gs_cluster *cl);

/* --- live state --------------------------------------------------------- */
/* Bit mask of the node's GPUs that have nothing on them. */
uint64_t gs_cluster_idle_mask(const struct gs_cluster *cl, int node);
/* Share (milli-GPU) and memory in use on GPU `gpu` of `node`, and the
 * number of allocations on it. */
int gs_cluster_gpu_used_milli(const struct gs_cluster *cl, int node, int gpu);
int64_t gs_cluster_gpu_used_mem(const struct gs_cluster *cl, int node, int gpu);
int gs_cluster_gpu_users(const struct gs_cluster *cl, int node, int gpu);
int64_t gs_cluster_node_cpu_used(const struct gs_cluster *cl, int node);
int64_t gs_cluster_node_mem_used(const struct gs_cluster *cl, int node);

/* --- MIG ------------------------------------------------------------------ */
/* Put GPU `gpu` of `node` (sealed cluster) in MIG mode with layout `l`, or
 * take it out of MIG mode with l = NULL.  The GPU must have nothing on it
 * and its type a MIG geometry; instances must be valid for it.  Returns 0,
 * GS_EINVAL (bad GPU, layout or type), GS_ESTATE (GPU in use), GS_ENOMEM. */
int gs_cluster_set_mig(struct gs_cluster *cl, int node, int gpu,
                       const struct gs_mig_layout *l, struct gs_error *err);

/* GPUs of `node` in MIG mode (never part of the idle mask). */
uint64_t gs_cluster_mig_mask(const struct gs_cluster *cl, int node);

/* Layout and busy-instance mask (bit i = instance i in use) of a GPU in
 * MIG mode; NULL for other GPUs.  Borrowed until the next change. */
const struct gs_mig_layout *gs_cluster_gpu_mig(const struct gs_cluster *cl, int node, int gpu,
                                               unsigned *busy);

/* Check that `a` fits the current state (shares, memory, host resources).
 * Returns 0, or GS_ENOSPC / GS_EINVAL with a message naming the GPU. */
int gs_cluster_can_alloc(const struct gs_cluster *cl, const struct gs_alloc *a,
                         struct gs_error *err);

/* Take the resources of `a`.  Fails (GS_ENOSPC, GS_EINVAL) without changing
 * anything if `a` does not fit. */
int gs_cluster_alloc(struct gs_cluster *cl, const struct gs_alloc *a,
                     struct gs_error *err);

/* Give back the resources of `a`, which must have been allocated.  Returns
 * GS_ESTATE without changes if it was not. */
int gs_cluster_release(struct gs_cluster *cl, const struct gs_alloc *a,
                       struct gs_error *err);

/* Take (sign +1) or give back (sign -1) host CPU and memory on `node`
 * without GPUs, for jobs that ask for no GPU (the fill experiment's
 * CPU-only pods).  Fails without changes: GS_ENOSPC when it does not fit a
 * modelled capacity, GS_ESTATE when giving back more than was taken,
 * GS_EINVAL for a bad node. */
int gs_cluster_host_take(struct gs_cluster *cl, int node, int64_t cpu_milli, int64_t mem_mib,
                         int sign, struct gs_error *err);

/* Current statistics (O(1)). */
struct gs_cluster_stats gs_cluster_stats(const struct gs_cluster *cl);

/* S_k contribution of one node given an idle mask: how many k-GPU jobs
 * fit in `idle` under the topology rule (k <= node GPUs).  Used by the
 * incremental statistics and by reports that list placeable units. */
int gs_cluster_node_sched(const struct gs_cluster *cl, int node, uint64_t idle,
                          int k);

/* The whole-domain rule for one job of `k` GPUs on `node` given `idle`:
 * whole idle domains (in index order, each no larger than what is still
 * needed), then a remainder in the best-fitting single domain.  Returns the
 * GPUs taken, or 0 when the rule cannot be met. */
uint64_t gs_cluster_take_whole_domains(const struct gs_cluster *cl, int node, uint64_t idle,
                                       int k);

/* Indexed best fit for a job of `gpus` GPUs that must sit in one NVLink
 * domain, on the live idle GPUs with no other constraint: under pack
 * (spread = 0) the domain with the fewest idle GPUs that still holds the
 * job, then the node with the fewest idle GPUs, then node and domain order;
 * under spread (spread = 1) the most idle domain - the same choice as the
 * linear scan in place.c, in O(buckets) instead of O(nodes).  Sets *node
 * and *dmask (the domain's GPUs).  Returns 0, GS_ENOSPC when no domain
 * fits, GS_ENOTSUP when the index cannot answer (spread on nodes with
 * several domains). */
int gs_cluster_best_domain(const struct gs_cluster *cl, int gpus, int spread, int *node,
                           uint64_t *dmask);

/* Full consistency check (debug/tests): shares within [0,1000], memory
 * within capacity, idle masks and incremental statistics equal to a fresh
 * recount.  Returns 0 or GS_ESTATE with the first inconsistency. */
int gs_cluster_check(const struct gs_cluster *cl, struct gs_error *err);

#endif

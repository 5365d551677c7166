/* place.h - placement: which GPUs a request gets.
 *
 * One call, a request in and a result out; it never changes the cluster.
 * The caller may pass `idle`, an array with one mask per node saying which
 * GPUs count as free (a future view from the availability profile, or the
 * current state minus reserved GPUs); NULL means the cluster's live state.
 *
 * The topology rule (DESIGN.md, issue 2): a job whose GPU count fits in the
 * cluster's largest NVLink domain takes all its GPUs from one domain; a
 * larger job takes whole idle domains of one node (a remainder smaller than
 * a domain goes into one best-fitting domain), and a job larger than a node
 * takes whole idle nodes plus such a remainder.  `topology: node` only asks
 * for one node, `any` lifts the rule.  Ties break by node order, then GPU
 * index, so results are reproducible.
 */
#ifndef GS_CORE_PLACE_H
#define GS_CORE_PLACE_H

#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "core/place/shapes.h"

enum gs_mig_reconf { GS_MIG_NEVER, GS_MIG_WHEN_IDLE };

/* frag: how a candidate's change of fragmentation becomes its score.
 * QUANTUM: uniform steps of ctx->quantum milli-GPU.  SIGMOID: the FGD
 * artifact's integer score, trunc(100 x sigmoid(decrease / 1000 milli-GPU))
 * (fgd_score.go): steps of about 40 milli-GPU near no change, flat for
 * large changes (docs/placement.md). */
enum gs_frag_score { GS_FRAG_SCORE_QUANTUM, GS_FRAG_SCORE_SIGMOID };

/* Optional context for the strategies that look beyond the request; the
 * caller owns it (the engine keeps one per engine).  Borrowed for the call. */
struct gs_frag_cache; /* core/frag.h */

struct gs_place_ctx {
    const struct gs_shape_dist *shapes; /* frag: recent job shapes; NULL or
                                           empty = the request's own shape */
    double sched_weight;    /* frag: cost of losing one k-GPU unit of S_k, in
                               units of k whole GPUs of fragmentation */
    double quantum;         /* frag: scores are compared in steps of this many
                               milli-GPU; closer candidates tie and the topo
                               order decides (0 = exact) */
    int mig_reconfigure;    /* enum gs_mig_reconf */
    const struct gs_frag_cache *frag_cache; /* frag: F_n of every node's live
                               state w.r.t. `shapes`, up to date (frag.h), or
                               NULL to compute it; unused with a view */
    int score_shape;        /* frag: enum gs_frag_score (0 = quantum) */
};

struct gs_request {
    int gpus;               /* >= 1 */
    int milli;              /* per-GPU share; < 1000 only with gpus == 1 */
    int64_t mem_mib;        /* per GPU; -1 = in proportion to the share */
    int topology;           /* enum gs_topo */
    int gpu_type;           /* required type index, -1 = any */
    int64_t cpu_milli;      /* host resources on the (first) node */
    int64_t host_mem_mib;
    const unsigned char *nodes_allowed; /* per node 1 = usable (partitions), NULL = all */
    const uint64_t *blocked;  /* per node: GPUs that must not be used (reserved), NULL = none */
    uint64_t gpu_types;     /* allowed GPU types as a bit mask, 0 = any (and gpu_type) */
    int mig;                /* MIG profile id + 1 (core/mig.h), 0 = none; then
                               gpus must be 1 and milli/mem are ignored */
    const struct gs_place_ctx *ctx; /* NULL = defaults (no shapes, weight 1,
                                       quantum 100, never reconfigure MIG) */
};

/* Find GPUs for `req` under `strategy` (enum gs_strategy) and write them to
 * `out` (whose `parts` must hold at least gs_cluster_node_count() parts).
 * Strategies (docs/placement.md): pack and spread score each candidate
 * unit by its leftover; topo keeps S_k units, whole NVLink domains and
 * whole nodes free before fitting best, and keeps multi-node jobs inside
 * one rack or multi-node domain; frag minimises the increase of expected
 * fragmentation (FGD) w.r.t. ctx->shapes plus sched_weight x the S_k loss
 * (rounded by ctx->score_shape); first_fit takes the first candidate in
 * node order that fits (Tiresias).
 * A MIG request takes a free instance of its profile (GPUs with more busy
 * instances first, spread: fewer), else, with mig_reconfigure when_idle, an
 * idle MIG GPU repartitioned (out->mig_reconf).
 * Returns 0 on success; GS_ENOSPC when nothing fits now; GS_EINVAL for a
 * malformed request; GS_ENOTSUP for an unknown strategy. */
int gs_place(const struct gs_cluster *cl, const uint64_t *idle,
             const struct gs_request *req, int strategy, struct gs_alloc *out,
             struct gs_error *err);

/* How a strategy ranks candidates where only counts of free GPUs are
 * compared (a one-domain job's scan and the domain index, the earliest
 * start's ties, MIG instances): BEST fewest left free (pack, topo, frag),
 * WORST most left free (spread), FIRST none, node order (first_fit). */
enum gs_place_fit { GS_PLACE_FIT_BEST, GS_PLACE_FIT_WORST, GS_PLACE_FIT_FIRST };

/* The fit rule of `strategy` (enum gs_strategy); BEST for an unknown one. */
int gs_place_fit(int strategy);

/* Whether `req` could ever be placed: it fits the cluster when every GPU is
 * idle.  `scratch` is caller storage as for gs_place.  Returns 1 or 0. */
int gs_place_possible(const struct gs_cluster *cl, const struct gs_request *req,
                      struct gs_alloc *scratch);

/* The `n` lowest set bits of `m` (all of them when it has fewer): the GPUs
 * a placement takes from a mask of free ones, lowest index first. */
uint64_t gs_place_take_low(uint64_t m, int n);

/* The effective topology of `req` on `cl`: GS_TOPO_AUTO is resolved to
 * GS_TOPO_DOMAIN when the job fits the largest NVLink domain, else to the
 * whole-domain rule (returned as GS_TOPO_AUTO). */
int gs_place_topology(const struct gs_cluster *cl, const struct gs_request *req);

#endif

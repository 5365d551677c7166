/* place_private.h - what the placement strategies share: the call context,
 * candidate scores, the strategy ops table and small helpers.  Included by
 * place.c (the topology rule, candidate enumeration and the registry), the
 * strategy files place_pack.c, place_spread.c, place_first_fit.c,
 * place_topo.c and place_frag.c, place_mig.c and profile.c; nothing else.
 *
 * Every placement is a choice among candidates (an NVLink domain or node
 * plus the GPUs taken, or one GPU for a shared job).  A strategy turns a
 * candidate into a gs_pscore; the lowest wins, the first in node order on
 * ties.
 */
#ifndef GS_CORE_PLACE_PRIVATE_H
#define GS_CORE_PLACE_PRIVATE_H

#include "core/place/frag.h"
#include "core/place/place.h"
#include "core/policy/policy.h"

/* Lower is better: compare `a`, then `b`. */
struct gs_pscore {
    double a;
    int64_t b;
};

struct gs_pctx;

/* Shared-job candidate sets (place.c): SH_PART every partly used GPU,
 * SH_IDLE the lowest idle GPU of each NVLink domain. */
enum { GS_SH_PART = 1, GS_SH_IDLE = 2 };

/* A placement strategy: what place.c's candidate enumeration asks of it.
 * One table per strategy, defined in the strategy's file (place_pack.c,
 * place_spread.c, place_first_fit.c, place_topo.c, place_frag.c) and
 * registered by name in GS_PLACE_STRATEGIES (policy.h); place.c finds it by
 * the policy's enum value.  Hooks get the call context `c` (borrowed for
 * the call) and never change the cluster. */
struct gs_place_ops {
    const char *name;              /* placement.strategy value */
    int fit;                       /* enum gs_place_fit: the integer rank of the
                                      fast paths (one-domain scan, domain index,
                                      earliest start, MIG instances) */
    int domain_int;                /* a one-domain job is ranked by `fit` alone
                                      (integer scan) instead of score_whole */
    int indexed;                   /* the cluster's domain index may answer a
                                      one-domain job on the live state (fit
                                      BEST or WORST only) */
    int zero_floor;                /* scores are never below {0, 0}: a scan may
                                      stop at the first such candidate */
    unsigned char shared[2];       /* shared job: candidate sets to scan, the
                                      second only when the first has no fit */
    /* Called once per placement before any score (NULL = nothing). */
    void (*setup)(struct gs_pctx *c);
    /* Score of a whole-GPU candidate: `take` from a unit (domain or node)
     * with `unit_free` free GPUs on `node` with `node_free` free GPUs. */
    struct gs_pscore (*score_whole)(struct gs_pctx *c, int node, uint64_t take,
                                    int unit_free, int node_free);
    /* Score of a shared candidate: GPU `gpu` of `node` with `fm` milli-GPU
     * free, on a node with `node_free` idle GPUs. */
    struct gs_pscore (*score_shared)(struct gs_pctx *c, int node, int gpu, int fm,
                                     int node_free);
    /* Whether node `n` cannot beat `best` found on an earlier node, so the
     * scan may skip it (NULL = never). */
    int (*prune)(const struct gs_pctx *c, int n, struct gs_pscore best);
    /* A job larger than a node: fill c->out, return 0 or GS_ENOSPC
     * (NULL = whole idle nodes in node order, then a remainder). */
    int (*place_multi)(struct gs_pctx *c);
};

/* The ops of `strategy` (enum gs_strategy), NULL when unknown. */
const struct gs_place_ops *gs_place_ops_of(int strategy);

#define GS_PLACE_OPS_DECL(id, name) extern const struct gs_place_ops gs_place_##name##_ops;
GS_PLACE_STRATEGIES(GS_PLACE_OPS_DECL)
#undef GS_PLACE_OPS_DECL

struct gs_pctx {
    const struct gs_cluster *cl;
    const uint64_t *view;          /* NULL = live state */
    const uint64_t *idle_arr;      /* the view, or the cluster's idle masks */
    const uint8_t *ndom;           /* NVLink domains per node */
    int mask_mig;                  /* a view must drop GPUs in MIG mode */
    int plain;                     /* no type, partition or host constraint */
    const struct gs_request *req;
    const struct gs_place_ops *ops; /* the strategy */
    struct gs_alloc *out;
    int k;                         /* S_k job size of the cluster */
    double weight;                 /* frag: S_k loss weight */
    double quantum;                /* frag: score step, milli-GPU */
    int score_shape;               /* frag: enum gs_frag_score */
    double pk;                     /* frag: probability of shapes needing >= k GPUs */
    double pmass;                  /* frag: probability of the non-MIG shapes */
    double psmall;                 /* frag, shared request: of shapes no bigger */
    int mig_reconfigure;           /* enum gs_mig_reconf */
    const struct gs_shape_dist *shapes; /* frag: never NULL once set up */
    struct gs_shape_dist own;      /* frag: the request's own shape */
    /* frag: the node whose state is loaded and its fragmentation */
    int fnode;
    const double *node_frag;       /* frag: F_n cache (live state), or NULL */
    const double *node_simple;     /* frag: gs_frag_node_simple per node */
    double f_before;
    int s_before;
    struct gs_frag_node st;
};

/* Whether score x beats y. */
static inline int gs_pscore_less(struct gs_pscore x, struct gs_pscore y)
{
    return x.a < y.a || (x.a == y.a && x.b < y.b);
}

/* The worst score: every candidate beats it. */
#define GS_PSCORE_WORST ((struct gs_pscore){ 1e300, INT64_MAX })

/* The best whole-GPU candidate of a scan so far: `mask` on `node`, or
 * node -1 (and the worst score) before any. */
struct gs_pl_best {
    struct gs_pscore s;
    int node;
    uint64_t mask;
};

/* Keep candidate (`s`, `node`, `mask`) in `b` if it beats the best so far;
 * an equal score keeps the earlier candidate. */
static inline void gs_pl_consider(struct gs_pl_best *b, struct gs_pscore s, int node,
                                  uint64_t mask)
{
    if (gs_pscore_less(s, b->s)) {
        b->s = s;
        b->node = node;
        b->mask = mask;
    }
}

/* Append part (`node`, `mask`) to c->out; the caller checks c->out->cap. */
static inline void gs_pl_add_part(struct gs_pctx *c, int node, uint64_t mask)
{
    c->out->parts[c->out->nparts].node = node;
    c->out->parts[c->out->nparts].mask = mask;
    c->out->nparts++;
}

/* Whether `node` already has a part in `a`. */
int gs_pl_in_alloc(const struct gs_alloc *a, int node);

/* GPUs of `node` free for whole-GPU use (the view, or the idle mask);
 * never GPUs in MIG mode nor blocked ones. */
static inline uint64_t gs_pl_idle(const struct gs_pctx *c, int node)
{
    uint64_t m = c->idle_arr[node];
    if (c->mask_mig)
        m &= ~gs_cluster_mig_mask(c->cl, node);
    return c->req->blocked ? m & ~c->req->blocked[node] : m;
}

/* GPU type, partition and host resources allow `node` at all. */
int gs_pl_node_ok(const struct gs_pctx *c, int node);

/* Memory a shared request needs on a GPU of `node`. */
int64_t gs_pl_shared_mem(const struct gs_pctx *c, int node);

/* topo and frag placement of a job larger than a node: whole idle nodes of
 * one rack or multi-node domain when one can hold it (the fullest such
 * group first), then a remainder scored by c->ops->score_whole; else across
 * groups.  Returns 0 or GS_ENOSPC.  (place_topo.c) */
int gs_topo_place_multi(struct gs_pctx *c);

/* A MIG request.  Returns 0 or GS_ENOSPC.  (place_mig.c) */
int gs_place_mig(struct gs_pctx *c);

#endif

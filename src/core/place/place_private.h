/* place_private.h - what the placement strategies share: the call context,
 * candidate scores and small helpers.  Included by place.c (the topology
 * rule and candidate enumeration), place_topo.c, place_frag.c and
 * place_mig.c; nothing else.
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

/* Lower is better: compare `a`, then `b`. */
struct gs_pscore {
    double a;
    int64_t b;
};

struct gs_pctx {
    const struct gs_cluster *cl;
    const uint64_t *view;          /* NULL = live state */
    const uint64_t *idle_arr;      /* the view, or the cluster's idle masks */
    const uint8_t *ndom;           /* NVLink domains per node */
    int mask_mig;                  /* a view must drop GPUs in MIG mode */
    int plain;                     /* no type, partition or host constraint */
    const struct gs_request *req;
    int strategy;
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

/* topo scores (place_topo.c): a whole-GPU candidate taking `take` from a
 * unit with `unit_free` free GPUs on a node with `node_free`; a shared
 * candidate on GPU `gpu` with `fm` milli-GPU free. */
struct gs_pscore gs_topo_score_whole(const struct gs_pctx *c, int node, uint64_t take,
                                     int unit_free, int node_free);
struct gs_pscore gs_topo_score_shared(const struct gs_pctx *c, int node, int gpu, int fm);

/* topo and frag placement of a job larger than a node: whole idle nodes of
 * one rack or multi-node domain when one can hold it (the fullest such
 * group first), then a remainder; else across groups.  Returns 0 or
 * GS_ENOSPC.  (place_topo.c) */
int gs_topo_place_multi(struct gs_pctx *c);

/* frag scores (place_frag.c), same candidates as topo. */
struct gs_pscore gs_frag_score_whole(struct gs_pctx *c, int node, uint64_t take,
                                     int unit_free, int node_free);
struct gs_pscore gs_frag_score_shared(struct gs_pctx *c, int node, int gpu, int fm);

/* Set up the frag context (shape distribution, cache). */
void gs_frag_setup(struct gs_pctx *c);

/* frag: whether node `n` cannot beat `best` (found on an earlier node):
 * a lower bound of its score (place_frag.c) is no better, and a tie goes
 * to the earlier node.  Needs the F_n cache; 0 without. */
int gs_frag_prune(const struct gs_pctx *c, int n, struct gs_pscore best);

/* A MIG request.  Returns 0 or GS_ENOSPC.  (place_mig.c) */
int gs_place_mig(struct gs_pctx *c);

#endif

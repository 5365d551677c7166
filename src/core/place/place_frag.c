/* place_frag.c - the frag strategy: fragmentation gradient descent (FGD,
 * Weng et al., USENIX ATC'23, section 5) with a schedulability term.
 *
 * For a candidate that changes node n from state s to s':
 *
 *   score = round((F_n(s') - F_n(s) + w * p_k * k * 1000 * (S_k(s) - S_k(s'))) / q)
 *
 * F_n is the expected fragmentation of frag.h w.r.t. the recent job shapes
 * (milli-GPU); S_k(s) the k-GPU jobs node n can take; p_k the probability
 * that a job of the shape distribution needs at least k GPUs (so losing a
 * unit costs in proportion to how often big jobs come; 0 when none come);
 * w placement.frag.sched_weight; q placement.frag.quantum.  Lower wins.
 * With placement.frag.score: sigmoid the rounding is FGD's instead:
 * score = -trunc(100 x sigmoid(-(F_n(s') - F_n(s) + S_k term) / 1000)).
 * Like FGD's integer node score, q makes candidates within q milli-GPU of
 * each other tie, and ties go to node order, then GPU index (first fit):
 * that implicit packing rule is worth ~6 points of unallocated GPUs on
 * openb (docs/placement.md).  Only node n changes, so the difference of
 * the node terms is the difference of the cluster totals.
 */
#include "core/place/place_private.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>

/* The request as a shape: the distribution used when no recent shapes are
 * known (the job keeps room for jobs like itself). */
static void own_shape(const struct gs_request *r, struct gs_shape_dist *d)
{
    struct gs_shape *s = &d->s[0];
    s->gpus = r->gpus;
    s->milli = r->milli;
    s->mem_mib = r->mem_mib;
    s->cpu_milli = r->cpu_milli;
    s->host_mem_mib = r->host_mem_mib;
    s->gpu_type = r->gpu_type;
    s->gpu_types = r->gpu_types;
    s->topology = r->topology;
    s->mig = r->mig;
    s->p = 1;
    d->n = 1;
}

/* Whether a single-GPU shape fits wherever the shared request `r` fits:
 * no more share, memory, host CPU, and no GPU type rule but r's. */
static int no_bigger(const struct gs_shape *m, const struct gs_request *r)
{
    if (m->mig || m->gpus != 1 || m->milli > r->milli || m->cpu_milli > r->cpu_milli)
        return 0;
    if (m->gpu_types || (m->gpu_type >= 0 && m->gpu_type != r->gpu_type))
        return 0;
    if (m->mem_mib < 0 && r->mem_mib < 0)
        return 1; /* both in proportion to the share */
    return m->mem_mib >= 0 && r->mem_mib >= 0 && m->mem_mib <= r->mem_mib;
}

/* Set up the frag context (shape distribution, cache). */
static void frag_setup(struct gs_pctx *c)
{
    if (!c->shapes || c->shapes->n == 0) {
        own_shape(c->req, &c->own);
        c->shapes = &c->own;
    }
    c->fnode = -1;
    const struct gs_frag_cache *fc = !c->view && c->req->ctx ? c->req->ctx->frag_cache : NULL;
    c->node_frag = fc ? fc->f : NULL;
    c->node_simple = fc ? fc->simple : NULL;
    c->pk = 0;
    c->pmass = 0;
    c->psmall = 0;
    for (int i = 0; i < c->shapes->n; i++) {
        const struct gs_shape *m = &c->shapes->s[i];
        if (!m->mig && m->gpus >= c->k)
            c->pk += m->p;
        if (!m->mig)
            c->pmass += m->p;
        if (c->req->milli < GS_MILLI_GPU && no_bigger(m, c->req))
            c->psmall += m->p;
    }
}

/* Load node `node` and its fragmentation before the placement. */
static void load_node(struct gs_pctx *c, int node)
{
    if (c->fnode == node)
        return;
    gs_frag_node_load(c->cl, node, c->view, &c->st);
    c->f_before = c->node_frag ? c->node_frag[node]
                               : gs_frag_node_score(c->cl, node, &c->st, c->shapes);
    c->s_before = gs_cluster_node_sched(c->cl, node, gs_pl_idle(c, node), c->k);
    c->fnode = node;
}

/* Scores closer than the quantum tie (then the topo order decides).  The
 * sigmoid shape is FGD's node score, trunc(100 / (1 + exp(v / 1000))) of
 * the decrease -v, negated so that lower still wins; like the quantum it
 * is non-decreasing in v, which keeps frag_prune's bound valid. */
static double quantise(const struct gs_pctx *c, double v)
{
    if (c->score_shape == GS_FRAG_SCORE_SIGMOID)
        return -trunc(100.0 / (1.0 + exp(v / 1000.0)));
    return c->quantum > 0 ? floor(v / c->quantum + 0.5) : v;
}

static double sched_term(const struct gs_pctx *c, int node, uint64_t idle_after)
{
    if (c->pk <= 0)
        return 0;
    int after = gs_cluster_node_sched(c->cl, node, idle_after, c->k);
    return c->weight * c->pk * c->k * (double)GS_MILLI_GPU * (double)(c->s_before - after);
}

/* A lower bound of the score of any candidate on node n.  Taking t milli
 * (whole GPUs: t = 1000 x gpus) lowers the free total by t and never
 * raises any shape's served share, so frag_n(m) falls by at most t (F_n
 * by at most t x the mass of the non-MIG shapes); for the shapes the
 * taken GPUs were serving it does not fall at all - an idle GPU serves the
 * single-GPU shapes of mass node_simple, the GPU a shared request takes
 * at least the shapes no bigger than the request (psmall); and F_n cannot
 * fall below 0.  The S_k term is never negative.  A hair below, against
 * rounding. */
static int frag_prune(const struct gs_pctx *c, int n, struct gs_pscore best)
{
    if (!c->node_frag || best.a >= 1e300)
        return 0;
    const struct gs_request *r = c->req;
    double lb = r->milli < GS_MILLI_GPU
                    ? -(double)r->milli * (c->pmass - c->psmall)
                    : -(double)GS_MILLI_GPU * r->gpus * (c->pmass - c->node_simple[n]);
    if (lb < -c->node_frag[n])
        lb = -c->node_frag[n];
    return quantise(c, lb - 1e-6) >= best.a;
}

static struct gs_pscore frag_whole(struct gs_pctx *c, int node, uint64_t take, int unit_free,
                                   int node_free)
{
    load_node(c, node);
    struct gs_frag_node *st = &c->st;
    int saved_milli[GS_MAX_NODE_GPUS] = { 0 }; /* only the bits of `take` are used */
    int64_t saved_mem[GS_MAX_NODE_GPUS] = { 0 };
    uint64_t whole = st->whole;
    int64_t cpu = st->cpu_free;
    for (uint64_t m = take; m; m &= m - 1) {
        int g = __builtin_ctzll(m);
        saved_milli[g] = st->free_milli[g];
        saved_mem[g] = st->free_mem[g];
        st->free_milli[g] = 0;
        st->free_mem[g] = 0;
    }
    st->whole &= ~take;
    if (cpu != INT64_MAX)
        st->cpu_free -= c->req->cpu_milli;
    double after = gs_frag_node_score(c->cl, node, st, c->shapes);
    for (uint64_t m = take; m; m &= m - 1) {
        int g = __builtin_ctzll(m);
        st->free_milli[g] = saved_milli[g];
        st->free_mem[g] = saved_mem[g];
    }
    st->whole = whole;
    st->cpu_free = cpu;
    (void)unit_free;
    (void)node_free;
    struct gs_pscore s = { 0, 0 };
    s.a = quantise(c, after - c->f_before + sched_term(c, node, gs_pl_idle(c, node) & ~take));
    return s;
}

static struct gs_pscore frag_shared(struct gs_pctx *c, int node, int gpu, int fm, int node_free)
{
    (void)node_free;
    load_node(c, node);
    struct gs_frag_node *st = &c->st;
    int64_t need = gs_pl_shared_mem(c, node), cpu = st->cpu_free;
    uint64_t whole = st->whole, bit = 1ULL << gpu;
    st->free_milli[gpu] -= c->req->milli;
    st->free_mem[gpu] -= need;
    st->whole &= ~bit;
    if (cpu != INT64_MAX)
        st->cpu_free -= c->req->cpu_milli;
    double after = gs_frag_node_score(c->cl, node, st, c->shapes);
    st->free_milli[gpu] += c->req->milli;
    st->free_mem[gpu] += need;
    st->whole = whole;
    st->cpu_free = cpu;
    (void)fm;
    struct gs_pscore s = { 0, 0 };
    s.a = quantise(c, after - c->f_before + sched_term(c, node, gs_pl_idle(c, node) & ~bit));
    return s;
}

const struct gs_place_ops gs_place_frag_ops = {
    .name = "frag",
    .fit = GS_PLACE_FIT_BEST,
    .domain_int = 0,
    .indexed = 0,
    .zero_floor = 0,
    .shared = { GS_SH_PART | GS_SH_IDLE, 0 },
    .setup = frag_setup,
    .score_whole = frag_whole,
    .score_shared = frag_shared,
    .prune = frag_prune,
    .place_multi = gs_topo_place_multi,
};

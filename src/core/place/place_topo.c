/* place_topo.c - the topo strategy: topology-aware best fit.
 *
 * A candidate (see place_private.h) is scored lexicographically, lower
 * first:
 *   1. S_k units of the node it destroys (k-GPU jobs that no longer fit);
 *   2. whole idle NVLink domains it breaks (takes some but not all of);
 *   3. whether it breaks a whole idle node;
 *   4. free GPUs left in the unit (domain or node) - best fit;
 *   5. free GPUs left on the node.
 * Shared jobs (a fraction of one GPU) first avoid idle GPUs, then fit the
 * free share, then the free memory best.  Jobs larger than a node stay
 * inside one multi-node NVLink domain (`domain:` label) or else one rack
 * when the cluster has labels and one group can hold them: the group left
 * with the fewest idle GPUs wins.  docs/placement.md gives worked examples.
 */
#include "core/place/place_private.h"

#include <limits.h>

static int pc(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* Pack fields into one integer; each must be below 2^bits. */
static int64_t field(int64_t acc, int64_t v, int bits)
{
    int64_t cap = ((int64_t)1 << bits) - 1;
    return (acc << bits) | (v < 0 ? 0 : v > cap ? cap : v);
}

static int sched_of(const struct gs_pctx *c, int node, uint64_t idle)
{
    return gs_cluster_node_sched(c->cl, node, idle, c->k);
}

/* Whole idle domains of `node` that `take` breaks (takes part of). */
static int broken_domains(const struct gs_pctx *c, int node, uint64_t idle, uint64_t take)
{
    int broken = 0;
    for (int d = 0; d < gs_cluster_node_domains(c->cl, node); d++) {
        uint64_t dm = gs_cluster_domain_mask(c->cl, node, d);
        if ((idle & dm) == dm && (take & dm) && (idle & ~take & dm))
            broken++;
    }
    return broken;
}

static struct gs_pscore topo_whole(struct gs_pctx *c, int node, uint64_t take, int unit_free,
                                   int node_free)
{
    uint64_t idle = gs_pl_idle(c, node), after = idle & ~take;
    int gpus = pc(take);
    int loss = sched_of(c, node, idle) - sched_of(c, node, after);
    int whole_node = pc(idle) == gs_cluster_node_gpus(c->cl, node) && after != 0;
    int64_t b = field(0, loss, 8);
    b = field(b, broken_domains(c, node, idle, take), 6);
    b = field(b, whole_node, 1);
    b = field(b, unit_free - gpus, 12);
    b = field(b, node_free - gpus, 12);
    struct gs_pscore s = { 0, b };
    return s;
}

static struct gs_pscore topo_shared(struct gs_pctx *c, int node, int gpu, int fm, int node_free)
{
    (void)node_free;
    uint64_t idle = gs_pl_idle(c, node), bit = 1ULL << gpu;
    int gpu_idle = (idle & bit) != 0;
    uint64_t after = idle & ~bit;
    int loss = gpu_idle ? sched_of(c, node, idle) - sched_of(c, node, after) : 0;
    int whole_node = gpu_idle && pc(idle) == gs_cluster_node_gpus(c->cl, node) && after;
    int64_t cap = gs_cluster_gpu_type_mem(c->cl, gs_cluster_node_gpu_type(c->cl, node));
    int64_t fmem = cap - (c->view ? 0 : gs_cluster_gpu_used_mem(c->cl, node, gpu));
    int64_t mem_left = cap > 0 ? (fmem - gs_pl_shared_mem(c, node)) * 1000 / cap : 0;
    int64_t b = field(0, loss, 7);
    b = field(b, gpu_idle, 1);
    b = field(b, gpu_idle ? broken_domains(c, node, idle, bit) : 0, 5);
    b = field(b, whole_node, 1);
    b = field(b, fm - c->req->milli, 11);
    b = field(b, mem_left, 11);
    b = field(b, pc(after), 7);
    struct gs_pscore s = { 0, b };
    return s;
}

/* --- jobs larger than a node ----------------------------------------- */

/* Label of a node under the grouping in use (-1 = no group). */
static int group_of(const struct gs_pctx *c, int node, int by_mdomain)
{
    return by_mdomain ? gs_cluster_node_mdomain(c->cl, node) : gs_cluster_node_rack(c->cl, node);
}

/* The remainder `r` (smaller than a node) on one node of the group (label
 * `grp`, or any node when grp < 0) not yet used: the best topo candidate
 * under the domain or whole-domain rule.  Appends one part. */
static int remainder_in(struct gs_pctx *c, int r, int grp, int by_mdomain)
{
    int maxdom = gs_cluster_max_domain(c->cl);
    struct gs_pl_best best = { GS_PSCORE_WORST, -1, 0 };
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        uint64_t idle = gs_pl_idle(c, n);
        if (pc(idle) < r || gs_pl_in_alloc(c->out, n) || !gs_pl_node_ok(c, n) ||
            (grp >= 0 && group_of(c, n, by_mdomain) != grp))
            continue;
        for (int d = 0; d < gs_cluster_node_domains(c->cl, n); d++) {
            uint64_t fd = idle & gs_cluster_domain_mask(c->cl, n, d);
            uint64_t m = r <= maxdom ? (pc(fd) >= r ? gs_place_take_low(fd, r) : 0)
                                     : (d == 0 ? gs_cluster_take_whole_domains(c->cl, n,
                                                                                idle, r)
                                               : 0);
            if (!m)
                continue;
            int unit = r <= maxdom ? pc(fd) : pc(idle);
            gs_pl_consider(&best, c->ops->score_whole(c, n, m, unit, pc(idle)), n, m);
        }
    }
    if (best.node < 0 || c->out->nparts >= c->out->cap)
        return GS_ENOSPC;
    gs_pl_add_part(c, best.node, best.mask);
    return 0;
}

/* Whole idle nodes of the group in node order, then the remainder.
 * Leaves c->out filled (0) or with nparts = 0 (GS_ENOSPC). */
static int fill_group(struct gs_pctx *c, int grp, int by_mdomain)
{
    int remaining = c->req->gpus;
    c->out->nparts = 0;
    for (int n = 0; n < gs_cluster_node_count(c->cl) && remaining > 0; n++) {
        int g = gs_cluster_node_gpus(c->cl, n);
        uint64_t idle = gs_pl_idle(c, n);
        if (g == 0 || g > remaining || pc(idle) != g || !gs_pl_node_ok(c, n) ||
            (grp >= 0 && group_of(c, n, by_mdomain) != grp))
            continue;
        if (c->out->nparts >= c->out->cap)
            break;
        gs_pl_add_part(c, n, idle);
        remaining -= g;
    }
    if (remaining > 0 && remainder_in(c, remaining, grp, by_mdomain) < 0) {
        c->out->nparts = 0;
        return GS_ENOSPC;
    }
    return 0;
}

/* Idle GPUs on allowed nodes of group `grp`. */
static int64_t group_idle(const struct gs_pctx *c, int grp, int by_mdomain)
{
    int64_t idle = 0;
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++)
        if (group_of(c, n, by_mdomain) == grp && gs_pl_node_ok(c, n))
            idle += pc(gs_pl_idle(c, n));
    return idle;
}

int gs_topo_place_multi(struct gs_pctx *c)
{
    int by_mdomain = 0, labelled = 0, maxlabel = -1;
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        int md = gs_cluster_node_mdomain(c->cl, n), rk = gs_cluster_node_rack(c->cl, n);
        by_mdomain |= md >= 0;
        labelled |= md >= 0 || rk >= 0;
        maxlabel = md > maxlabel ? md : rk > maxlabel ? rk : maxlabel;
    }
    if (labelled) {
        int best = -1;
        int64_t best_left = INT64_MAX;
        for (int grp = 0; grp <= maxlabel; grp++) {
            int64_t idle = group_idle(c, grp, by_mdomain);
            if (idle < c->req->gpus || idle - c->req->gpus >= best_left)
                continue;
            if (fill_group(c, grp, by_mdomain) == 0) {
                best = grp;
                best_left = idle - c->req->gpus;
            }
        }
        if (best >= 0)
            return fill_group(c, best, by_mdomain);
    }
    return fill_group(c, -1, 0);
}

const struct gs_place_ops gs_place_topo_ops = {
    .name = "topo",
    .fit = GS_PLACE_FIT_BEST,
    .domain_int = 0,
    .indexed = 0,
    .zero_floor = 1,
    .shared = { GS_SH_PART, GS_SH_IDLE },
    .score_whole = topo_whole,
    .score_shared = topo_shared,
    .place_multi = gs_topo_place_multi,
};

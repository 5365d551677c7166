/* place_mig.c - a job with a MIG profile takes one free instance of that
 * profile on a GPU in MIG mode.
 *
 * Candidates are the free instances of the profile on allowed nodes.  pack,
 * topo and frag take the GPU with the most compute slices already busy
 * (consolidate, so whole MIG GPUs stay free for repartitioning); spread the
 * one with the fewest.  Ties: node order, GPU index, instance index.  When
 * no instance is free and the policy says `mig.reconfigure: when_idle`, the
 * first MIG GPU in node order with no instance in use and a geometry that
 * offers the profile is repartitioned into that profile only
 * (gs_mig_layout_homogeneous) and the job takes its first instance; the
 * engine charges the drain cost.  With a view (planning), every instance of
 * a GPU idle in the view counts as free.
 */
#include "core/place/place_private.h"
#include "core/policy/policy.h"

struct mig_pick {
    int node, gpu, slot, reconf;
    int64_t key;
};

/* Instance geometry and memory for `profile` on GPUs of `node`, or NULL. */
static const struct gs_mig_geom *geom_of(const struct gs_pctx *c, int node, int profile)
{
    int type = gs_cluster_node_gpu_type(c->cl, node);
    return gs_mig_geom(gs_cluster_gpu_type_mig(c->cl, type), profile);
}

static unsigned busy_of(const struct gs_pctx *c, int node, int gpu, unsigned busy)
{
    return c->view ? (c->view[node] >> gpu & 1 ? 0 : 0x7Fu) : busy;
}

/* The best free instance of `profile` on `node`, updating *best. */
static void scan_node(const struct gs_pctx *c, int node, int profile, struct mig_pick *best)
{
    int model = gs_cluster_gpu_type_mig(c->cl, gs_cluster_node_gpu_type(c->cl, node));
    uint64_t blocked = c->req->blocked ? c->req->blocked[node] : 0;
    for (uint64_t m = gs_cluster_mig_mask(c->cl, node) & ~blocked; m; m &= m - 1) {
        int g = __builtin_ctzll(m);
        unsigned busy;
        const struct gs_mig_layout *l = gs_cluster_gpu_mig(c->cl, node, g, &busy);
        busy = busy_of(c, node, g, busy);
        int used = gs_mig_layout_compute(model, l, busy);
        int64_t key = c->ops->fit == GS_PLACE_FIT_WORST ? used : GS_MIG_COMPUTE - used;
        for (int i = 0; i < l->n; i++) {
            if (l->prof[i] != profile || (busy >> i & 1))
                continue;
            if (best->node < 0 || key < best->key) {
                *best = (struct mig_pick){ node, g, i, 0, key };
            }
            break;
        }
    }
}

/* The first MIG GPU with nothing on it that offers `profile`. */
static void find_idle(const struct gs_pctx *c, int profile, struct mig_pick *best)
{
    for (int n = 0; n < gs_cluster_node_count(c->cl) && best->node < 0; n++) {
        if (!geom_of(c, n, profile) || !gs_pl_node_ok(c, n))
            continue;
        uint64_t blocked = c->req->blocked ? c->req->blocked[n] : 0;
        for (uint64_t m = gs_cluster_mig_mask(c->cl, n) & ~blocked; m; m &= m - 1) {
            int g = __builtin_ctzll(m);
            unsigned busy;
            gs_cluster_gpu_mig(c->cl, n, g, &busy);
            if (busy_of(c, n, g, busy) == 0) {
                *best = (struct mig_pick){ n, g, 0, 1, 0 };
                return;
            }
        }
    }
}

int gs_place_mig(struct gs_pctx *c)
{
    int profile = c->req->mig - 1;
    struct mig_pick best = { -1, -1, -1, 0, 0 };
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++)
        if (gs_cluster_mig_mask(c->cl, n) && geom_of(c, n, profile) && gs_pl_node_ok(c, n))
            scan_node(c, n, profile, &best);
    if (best.node < 0 && c->mig_reconfigure == GS_MIG_WHEN_IDLE)
        find_idle(c, profile, &best);
    if (best.node < 0)
        return GS_ENOSPC;
    const struct gs_mig_geom *g = geom_of(c, best.node, profile);
    int64_t cap = gs_cluster_gpu_type_mem(c->cl, gs_cluster_node_gpu_type(c->cl, best.node));
    c->out->nparts = 1;
    c->out->parts[0].node = best.node;
    c->out->parts[0].mask = 1ULL << best.gpu;
    c->out->milli = gs_mig_milli(g);
    c->out->mem_mib = cap * g->mem_slices / GS_MIG_MEM_SLICES;
    c->out->mig_slot = best.slot + 1;
    c->out->mig_reconf = best.reconf ? profile + 1 : 0;
    return 0;
}

/* place_pack.c - the pack strategy: best fit.
 *
 * A whole-GPU candidate scores the free GPUs it leaves in its unit (NVLink
 * domain or node), then on the node: fewest first, so jobs fill partly used
 * domains before they break idle ones.  A shared candidate scores the free
 * share it leaves on the GPU, then the node's idle GPUs; every partly used
 * GPU is tried before an idle one.  Scores are never below zero, so a scan
 * stops at a perfect fit; one-domain jobs use the integer scan and the
 * cluster's domain index (place.c) with the same ranking.
 */
#include "core/place/place_private.h"

static struct gs_pscore pack_whole(struct gs_pctx *c, int node, uint64_t take, int unit_free,
                                   int node_free)
{
    (void)c;
    (void)node;
    int gpus = __builtin_popcountll(take);
    struct gs_pscore s = { 0, (int64_t)(unit_free - gpus) * 1024 + (node_free - gpus) };
    return s;
}

static struct gs_pscore pack_shared(struct gs_pctx *c, int node, int gpu, int fm, int node_free)
{
    (void)node;
    (void)gpu;
    struct gs_pscore s = { 0, (int64_t)(fm - c->req->milli) * 1024 + node_free };
    return s;
}

const struct gs_place_ops gs_place_pack_ops = {
    .name = "pack",
    .fit = GS_PLACE_FIT_BEST,
    .domain_int = 1,
    .indexed = 1,
    .zero_floor = 1,
    .shared = { GS_SH_PART, GS_SH_IDLE },
    .score_whole = pack_whole,
    .score_shared = pack_shared,
};

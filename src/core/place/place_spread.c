/* place_spread.c - the spread strategy: worst fit.
 *
 * A whole-GPU candidate on the node with the most idle GPUs wins, then the
 * unit (NVLink domain or node) with the most free GPUs: load is spread over
 * the cluster.  A shared job goes to an idle GPU of the most idle node
 * first (answered by the cluster's domain index when the request has no
 * per-node constraint), and only when no GPU is idle to the partly used
 * GPU with the most free share.  One-domain jobs use the integer scan and
 * the domain index (place.c) with the same ranking.
 */
#include "core/place/place_private.h"

static struct gs_pscore spread_whole(struct gs_pctx *c, int node, uint64_t take, int unit_free,
                                     int node_free)
{
    (void)c;
    (void)node;
    (void)take;
    struct gs_pscore s = { 0, -((int64_t)node_free * 1024 + unit_free) };
    return s;
}

static struct gs_pscore spread_shared(struct gs_pctx *c, int node, int gpu, int fm,
                                      int node_free)
{
    (void)c;
    (void)node;
    (void)gpu;
    struct gs_pscore s = { 0, -((int64_t)fm * 1024 + node_free) };
    return s;
}

const struct gs_place_ops gs_place_spread_ops = {
    .name = "spread",
    .fit = GS_PLACE_FIT_WORST,
    .domain_int = 1,
    .indexed = 1,
    .zero_floor = 0,
    .shared = { GS_SH_IDLE, GS_SH_PART },
    .score_whole = spread_whole,
    .score_shared = spread_shared,
};

/* place_first_fit.c - the first_fit strategy (Tiresias): the first
 * candidate in node order that fits, GPUs lowest index first.
 *
 * Every candidate scores zero, so the topology rule's enumeration (place.c)
 * stops at the first one; a shared job takes the first GPU, partly used or
 * idle, with room for its share and memory.
 */
#include "core/place/place_private.h"

static struct gs_pscore first_whole(struct gs_pctx *c, int node, uint64_t take, int unit_free,
                                    int node_free)
{
    (void)c;
    (void)node;
    (void)take;
    (void)unit_free;
    (void)node_free;
    struct gs_pscore s = { 0, 0 };
    return s;
}

static struct gs_pscore first_shared(struct gs_pctx *c, int node, int gpu, int fm,
                                     int node_free)
{
    (void)c;
    (void)node;
    (void)gpu;
    (void)fm;
    (void)node_free;
    struct gs_pscore s = { 0, 0 };
    return s;
}

const struct gs_place_ops gs_place_first_fit_ops = {
    .name = "first_fit",
    .fit = GS_PLACE_FIT_FIRST,
    .domain_int = 1,
    .indexed = 0,
    .zero_floor = 1,
    .shared = { GS_SH_PART | GS_SH_IDLE, 0 },
    .score_whole = first_whole,
    .score_shared = first_shared,
};

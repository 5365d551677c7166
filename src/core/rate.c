/* rate.c - how fast a running job progresses on its GPUs.
 *
 * Every job runs at full speed (1000 per mille): slow-downs from
 * cross-domain placement and from sharing a GPU are not modelled yet, so
 * util_effective differs from util_alloc only by checkpoint, restore and
 * lost work.  This file is the one place a slow-down model plugs in.
 */
#include "core/engine_private.h"

int gs_eng_rate(const struct gs_engine *eng, int job)
{
    (void)eng;
    (void)job;
    return GS_RATE_FULL;
}

void gs_eng_update_rates(struct gs_engine *eng, gs_time now, const struct gs_alloc *a)
{
    (void)eng;
    (void)now;
    (void)a;
}

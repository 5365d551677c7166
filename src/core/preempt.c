/* preempt.c - preemption: stopping running jobs so a waiting job can start.
 * Not built yet: no job is ever preempted. */
#include "core/engine_private.h"

int gs_eng_try_preempt(struct gs_engine *eng, int job, gs_time now)
{
    (void)eng;
    (void)job;
    (void)now;
    return GS_ENOSPC;
}

/* diagnose.c - why pending jobs wait.  Not built yet beyond the coarse
 * reason the queue pass records in each job. */
#include "core/engine_private.h"

void gs_eng_account_waits(struct gs_engine *eng, gs_time now)
{
    (void)eng;
    (void)now;
}

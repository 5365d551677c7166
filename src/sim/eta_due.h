/* eta_due.h - the P90 bounds of the simulator's promises still to pass:
 * a min-heap by bound, so that at each submit instant the jobs whose bound
 * passed before they started are told to the calibration as misses
 * (gs_eta_cal_miss) before the instant's promises are made (docs/eta.md,
 * section 2, "censored misses").
 */
#ifndef GS_SIM_ETA_DUE_H
#define GS_SIM_ETA_DUE_H

#include <stddef.h>

#include "core/base/types.h"
#include "core/diagnose/eta.h"

struct gs_eta_due {
    struct gs_eta_due_ent { gs_time bound; int job; } *h;
    size_t n, cap;
};

/* Remember that job `job`'s promise has the bound `bound`.  Returns 0 or
 * GS_ENOMEM (`d` unchanged). */
int gs_eta_due_push(struct gs_eta_due *d, gs_time bound, int job);

/* Every job whose bound is before `now`: each is popped and, when its
 * promise in recs[job] has not been fed a start, told to `c` as a miss
 * (gs_eta_cal_miss).  recs is indexed by job; never fails. */
void gs_eta_due_pass(struct gs_eta_due *d, gs_time now, struct gs_eta_cal *c,
                     struct gs_eta_rec *recs);

/* Free the heap's memory; `d` is then empty. */
void gs_eta_due_free(struct gs_eta_due *d);

#endif

/* diagnose_hooks.h - the diagnosis module's entry points for the facade
 * (src/core/engine/facade.c): its state's create/destroy and the hooks it
 * subscribes and provides.  (diagnose.h is the public API,
 * diagnose_private.h the module's internals.)
 */
#ifndef GS_CORE_DIAGNOSE_HOOKS_H
#define GS_CORE_DIAGNOSE_HOOKS_H

#include "core/jobs/jobs.h"

/* Diagnose: GS_HOOK_RETIRED, GS_HOOK_RESERVED; its per-slot tables'
 * hooks.grow and GS_HOOK_ADDED (diagnose_slots.c).  (diagnose.c) */
void gs_eng_diag_hooks(struct gs_eng_hooks *h);

/* The diagnosis state of an engine with `nnodes` nodes: NULL on allocation
 * failure; destroy (NULL is a no-op).  (diagnose.c) */
struct gs_diag_state *gs_eng_diag_create(int nnodes);
void gs_eng_diag_destroy(struct gs_diag_state *ds);

/* Check the per-slot tables (diagnose_slots.c): they cover the slots in
 * use; a live job with no code has no wait segments, its follower class is
 * set exactly when it follows one, its segments lie in the pool; each
 * class's follower count is the number of live jobs following it.  0 or
 * GS_ESTATE naming the slot or class. */
int gs_eng_diag_slots_check(const struct gs_engine *eng, struct gs_error *err);

/* The providers it sets in the hooks table (hooks.account_waits,
 * hooks.plain_code), through which the queue pass reaches them: */

/* End of a pass at `now`: give every pending job its reason code and
 * account waiting time to codes.  `full` = 0 when the pass was skipped
 * because nothing could change (only new jobs are looked at).  Returns 0 or
 * GS_ENOMEM.  (diagnose.c) */
int gs_eng_diag_account_waits(struct gs_engine *eng, gs_time now, int full);

/* The wait code the accounting would give now to plain pending `job`
 * (whole GPUs, no memory or type constraint, no partitions) if its pass
 * reason were `resources`: the cluster's idle GPUs read afresh, with the
 * per-pass memo's own rule (shortage below g idle GPUs, else the figures),
 * and `priority` when it would fit.  Reads only, but for the diagnosis's
 * scratch.  (diagnose_explain.c) */
int gs_eng_diag_plain_code_now(struct gs_engine *eng, int job);

#endif

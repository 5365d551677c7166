/* diagnose_hooks.h - the diagnosis module's entry points for the facade
 * (src/core/engine/facade.c): its state's create/destroy and the hooks it
 * subscribes.  (diagnose.h is the public API; diagnose_private.h the
 * module's internals.)
 */
#ifndef GS_CORE_DIAGNOSE_HOOKS_H
#define GS_CORE_DIAGNOSE_HOOKS_H

#include "core/jobs/jobs.h"

/* Diagnose: GS_HOOK_RETIRED, GS_HOOK_RESERVED.  (diagnose.c) */
void gs_eng_diag_hooks(struct gs_eng_hooks *h);

/* The diagnosis state of an engine with `nnodes` nodes: NULL on allocation
 * failure; destroy (NULL is a no-op).  (diagnose.c) */
struct gs_diag_state *gs_eng_diag_create(int nnodes);
void gs_eng_diag_destroy(struct gs_diag_state *ds);


#endif

/* engine_private.h - the facade's part of the engine internals: the entry
 * points of the policies (queue, preempt, diagnose) that the facade
 * (facade.c) calls - create/destroy of their state, the hooks they
 * subscribe, the pass, the preemption step, the wakeups - and the calls
 * between policies.  The job table and the run primitives are the jobs
 * floor's (core/jobs/jobs.h, included here).  Nothing outside src/core/
 * (other than white-box tests) includes this.
 */
#ifndef GS_CORE_ENGINE_PRIVATE_H
#define GS_CORE_ENGINE_PRIVATE_H

#include "core/jobs/jobs.h"
#include "core/preempt/preempt.h"
#include "core/queue/queue.h"
#include "core/diagnose/diagnose_hooks.h"

#endif

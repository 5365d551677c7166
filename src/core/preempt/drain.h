/* drain.h - drain.c's calls for the other preemption modules: requeueing
 * victims, grace drains and the GPUs held for their waiters, and the
 * per-slot draining table drain.c owns.  (Its calls for the facade are in
 * preempt.h.)  Core only.
 */
#ifndef GS_CORE_PREEMPT_DRAIN_H
#define GS_CORE_PREEMPT_DRAIN_H

#include "core/jobs/jobs.h"

/* Make room to requeue `n` jobs without allocating (compacts the queue so
 * no stale entry of a running job remains).  Returns 0 or GS_ENOMEM. */
int gs_eng_drain_requeue_reserve(struct gs_engine *eng, size_t n);

/* Stop running job `job` at `now` as preempted: the work since its last
 * completed checkpoint is lost, it is pending again with its original
 * submit time, and GS_EV_PREEMPT is emitted.  Room reserved before. */
void gs_eng_drain_requeue(struct gs_engine *eng, int job, gs_time now);

/* Grow the drain and hold tables for one more hold and `n` drains.
 * Returns 0 or GS_ENOMEM. */
int gs_eng_drain_reserve(struct gs_engine *eng, size_t n);

/* Start draining `victim` for `waiter`: it checkpoints now and stops when
 * the checkpoint completes (at `end`); emits GS_EV_DRAIN. */
void gs_eng_drain_start(struct gs_engine *eng, int victim, int waiter, gs_time now);

/* Hold `want` GPUs of `node` for `waiter` (those idle now are taken from
 * the cluster at once, the rest as its victims stop). */
void gs_eng_drain_hold_start(struct gs_engine *eng, int waiter, int node, uint64_t want);

/* drain.c's subscriptions (gs_eng_preempt_hooks, after the partitions'):
 * GS_HOOK_STARTED, STOPPED, DRAIN_DUE, RETIRED, ADDED, its per-slot
 * table's grow function and hooks.draining. */
void gs_eng_drain_hooks(struct gs_eng_hooks *h);

/* Whether `job` was told to checkpoint and stop and still drains (its
 * entry in drain.c's per-slot table; hooks.draining). */
int gs_eng_drain_is(const struct gs_engine *eng, int job);

#endif

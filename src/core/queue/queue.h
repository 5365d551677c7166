/* queue.h - the queue policy's entry points: the pass and its wakeups
 * (called by the facade, src/core/engine/facade.c), the team quotas
 * (queue_quota.c) and the hooks the queue subscribes.  The job table and
 * the run primitives it calls are the jobs floor's (core/jobs/jobs.h).
 */
#ifndef GS_CORE_QUEUE_H
#define GS_CORE_QUEUE_H

#include "core/jobs/jobs.h"

/* Why a pending job did not start in the last pass (coarse; the diagnosis
 * module refines `resources` into shortage/fragmentation).  A job's is in
 * the queue's per-slot table (gs_queue_job(eng, job)->reason,
 * queue_private.h). */
enum gs_wait_reason {
    GS_WAIT_NONE,
    GS_WAIT_RESOURCES,          /* does not fit the free GPUs */
    GS_WAIT_QUOTA,              /* team at its quota */
    GS_WAIT_PRIORITY,           /* behind a blocked job of higher rank */
    GS_WAIT_RESERVATION,        /* fits, but only on GPUs held for a reservation */
    GS_WAIT_PARTITION,          /* its partition is at its quota (partition.c) */
};

/* Whether starting `job` keeps its team within quota. */
int gs_queue_quota_ok(const struct gs_engine *eng, int job);

/* Change a team's quota, keeping the engine's quota totals (quota_unused,
 * quota_borrowed) in step: O(1).  The team's usage follows its jobs'
 * starts and stops (GS_HOOK_STARTED/STOPPED).  (queue_quota.c) */
void gs_queue_team_set_quota(struct gs_engine *eng, int team, int quota);

/* The quota totals recounted from every team (tests check the kept ones
 * against it).  (queue.c) */
void gs_queue_quota_recount(const struct gs_engine *eng, int64_t *unused, int64_t *borrowed);

/* Queue: the team accounting (GS_HOOK_STARTED, GS_HOOK_STOPPED) and
 * hooks.team_quota.  (queue_quota.c) */
void gs_queue_hooks(struct gs_eng_hooks *h);

/* The queue policy's pass: start what it allows.  Returns jobs started or a
 * negative error.  (queue.c) */
int gs_queue_pass(struct gs_engine *eng, gs_time now);

/* Free the queue pass state (queue_order.c); NULL is a no-op. */
void gs_queue_state_free(struct gs_qstate *q);

/* Whether a pass stopped at queue.max_job_test is held for its resumption
 * (queue.c): the queue array must not be compacted meanwhile. */
int gs_queue_holding(const struct gs_engine *eng);

/* Earliest time a pass held back by queue.min_pass_interval, or the
 * continuation of a pass that stopped at queue.max_job_test, is due (at or
 * before the last pass's time: due at once), GS_TIME_INF if none.
 * (queue.c) */
gs_time gs_queue_wakeup(const struct gs_engine *eng);

/* Under priority with aging: the earliest time after `now` at which a
 * pass could decide otherwise than the one just run at `now`, with no
 * event in between; `now` when that is not known (the caller then ticks
 * every queue.pass_interval as before).  GS_TIME_INF: never by time
 * alone.  Read-only.  (queue.c) */
gs_time gs_queue_aging_change(const struct gs_engine *eng, gs_time now);

#endif

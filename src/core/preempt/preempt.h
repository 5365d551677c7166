/* preempt.h - the preemption policy's entry points (preempt.c, drain.c,
 * partition.c) for the queue pass and the facade: try a preemption, the
 * partitions' node sets, groups and quotas, the state's init/fini, the
 * hooks it subscribes, the step and the wakeup.  The modules' internals are
 * in preempt_private.h.
 */
#ifndef GS_CORE_PREEMPT_H
#define GS_CORE_PREEMPT_H

#include "core/jobs/jobs.h"

/* A pending job could not start at `now`: the preemption policy may free
 * GPUs for it by stopping other jobs and start it.  Returns 0 when the job
 * was started, GS_ENOSPC when nothing changed, 1 when GPUs changed hands
 * but the job did not start (it waits for victims that are checkpointing:
 * the pass's caches are stale), GS_ENOMEM.  (preempt.c) */
int gs_eng_preempt_try(struct gs_engine *eng, int job, gs_time now);

/* `job` was requeued by a preemption in the middle of a pass at `now`: the
 * engine wakes when one of the running jobs it holds a right against comes
 * of age (preemption.min_runtime), so it is considered again then rather
 * than at the next event.  Reads only, but for that wakeup.  (preempt.c) */
void gs_eng_preempt_note(struct gs_engine *eng, int job, gs_time now);

/* Preemption and partition state of a new engine (eng->pre): resolves the
 * policy's partitions against the cluster.  Returns 0, GS_EINVAL (message
 * names the partition) or GS_ENOMEM; the engine then frees with
 * gs_eng_preempt_fini (NULL-safe).  (preempt.c) */
int gs_eng_preempt_init(struct gs_engine *eng, struct gs_error *err);
void gs_eng_preempt_fini(struct gs_engine *eng);

/* gs_eng_part_assign of a job record `j` not (yet) in eng->jobs, whose
 * queue label is `label` (NULL or "" = none): sets j->part (and a whole
 * GPU in an exclusive partition).  0 or GS_ENOENT.  (partition.c) */
int gs_eng_part_pick(const struct gs_engine *eng, struct job *j, const char *label);

/* Nodes the job's partition allows (for gs_request.nodes_allowed), NULL =
 * every node.  (partition.c) */
const unsigned char *gs_eng_part_nodes(const struct gs_engine *eng, int job);

/* The same for partition index `part` (job->part: 0 = none).  (partition.c) */
const unsigned char *gs_eng_part_nodes_of(const struct gs_engine *eng, int part);

/* Add (sign +1) or remove (-1) a job's GPUs from its partition's usage.
 * (partition.c) */
void gs_eng_part_account(struct gs_engine *eng, int job, int sign);

/* The job's queue group as a bit: its partition's (bit 0 without
 * partitions).  Head-of-line blocking in the queue pass holds within a
 * group only, so a blocked training job does not hold inference back.
 * (partition.c) */
uint64_t gs_eng_part_queue_group(const struct gs_engine *eng, int job);

/* Whether starting `job` keeps its quota partition within its quota (or it
 * may borrow the rest).  1 without a quota.  (partition.c) */
int gs_eng_part_quota_ok(const struct gs_engine *eng, int job);

/* Preempt: the partitions' (gs_eng_part_hooks: usage on GS_HOOK_STARTED
 * and STOPPED, hooks.part_pick, hooks.part_nodes), then the drains'
 * (gs_eng_drain_hooks: STARTED, STOPPED, DRAIN_DUE, RETIRED, ADDED, the
 * draining table's grow, hooks.draining), then the victims' (ADDED, the
 * pre_by table's grow).  (preempt_state.c, partition.c) */
void gs_eng_preempt_hooks(struct gs_eng_hooks *h);
void gs_eng_part_hooks(struct gs_eng_hooks *h);

/* Start of a step at `now`: stop victims whose grace checkpoint completed
 * and start the jobs waiting for them.  Returns 0 or GS_ENOMEM.  (drain.c) */
int gs_eng_preempt_step(struct gs_engine *eng, gs_time now);

/* Earliest time the preemption state wants a step (a drain completing, a
 * candidate victim passing min_runtime), GS_TIME_INF if none.  (drain.c) */
gs_time gs_eng_preempt_wakeup(const struct gs_engine *eng);

#endif

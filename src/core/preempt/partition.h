/* partition.h - partition.c's calls for the other preemption modules:
 * the partitions' state, a job's effective preemption mode, and whether
 * its partition is over or within its quota.  (Its calls for the queue and
 * the facade are in preempt.h.)  Core only.
 */
#ifndef GS_CORE_PREEMPT_PARTITION_H
#define GS_CORE_PREEMPT_PARTITION_H

#include "core/jobs/jobs.h"

/* Resolve the policy's partitions against the engine's cluster into
 * eng->pre.  Errors (GS_EINVAL, message naming the partition): unknown
 * node, a node in two partitions, nodes together with gpus/share, no pool
 * nodes left for a quota partition.  GS_ENOMEM. */
int gs_eng_part_init(struct gs_engine *eng, struct gs_error *err);

/* Free what gs_eng_part_init allocated. */
void gs_eng_part_fini(struct gs_engine *eng);

/* Effective preemption mode of a running job: its partition's, else its
 * class's, else the policy's. */
int gs_eng_part_job_mode(const struct gs_engine *eng, int job);

/* Whether the job's partition is over its quota (its jobs hold borrowed
 * GPUs), and whether starting `job` keeps its own partition within quota
 * (it reclaims, not borrows).  Both 0 without quota partitions. */
int gs_eng_part_over(const struct gs_engine *eng, int job);
int gs_eng_part_within(const struct gs_engine *eng, int job);

#endif

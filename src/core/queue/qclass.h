/* qclass.h - equivalence classes of pending jobs, and the early end of a
 * pass they allow (qclass.c; docs/policy.md, "Equivalence classes").
 *
 * A class is what the try-to-start path of a pass reads of a pending job
 * once the pass is blocked: whole GPUs of any type, the default topology,
 * no CPU / host-memory / GPU-memory / MIG / partition constraint (a
 * "plain" job, the pass memo's own rule), keyed by GPU count, plus its
 * team for the quota test; every other job is "not plain".  The queue keeps,
 * across passes, per GPU count the smallest duration estimate of its
 * pending plain jobs, and whether any pending job is not plain.
 *
 * With these a pass knows when no job left in its order can start or
 * leave a trace (the stop point): every later job fails its quota, or
 * waits behind the blocked head (`priority`), or is refused by the memo
 * at every estimate its class holds.  From then on the exhaustive pass
 * only gives each remaining job a wait code, a function of the job's class
 * and of the pass state at the stop point (the signature).  When the
 * signature equals the one of the last pass that established the codes,
 * every job not tried since already holds that code, and the pass ends
 * at the stop point, giving codes only to the jobs that need them (those
 * tried individually last time and not this time, and those new to the
 * queue).  Otherwise it walks on, exactly as before, and establishes the
 * codes for the next pass.  With followers (queue_follow.c) the pass ends
 * instead where every class left is followed (gs_qclass_has: which
 * classes have pending jobs).  Core only; used by queue.c, queue_order.c (a list
 * entry's class) and diagnose.c (a follower's class, gs_qclass_of).
 */
#ifndef GS_CORE_QUEUE_QCLASS_H
#define GS_CORE_QUEUE_QCLASS_H

#include "core/queue/queue.h"

#define GS_QCLASS_MAX_GPUS 64   /* plain classes: 1..64 GPUs (the pass memo's) */

/* Whether `j` is plain for the pass memo (queue.c) and for this module:
 * the memo's rule (whole GPUs of any type, the default topology, 1-64
 * GPUs, no CPU or host memory, partition index < `groups`). */
static inline int gs_qclass_plain(const struct gs_engine *eng, const struct job *j, int groups)
{
    return j->milli == GS_MILLI_GPU && j->gpu_type == -1 && j->topology == eng->pol.topology &&
           j->gpus >= 1 && j->gpus <= GS_QCLASS_MAX_GPUS && j->cpu_milli == 0 &&
           j->host_mem_mib == 0 && j->part < groups;
}

/* The class of pending `j`: its GPU count if plain (gs_qclass_plain with
 * one group, no per-GPU memory, type list or MIG profile, not a hot-spare
 * user and no GPUs held for it: gs_eng_recovering), else 0 ("not plain").
 * Pure. */
static inline int gs_qclass_of(const struct gs_engine *eng, const struct job *j)
{
    return gs_qclass_plain(eng, j, 1) && j->mem_mib <= 0 && !j->gpu_types && !j->mig &&
                   !gs_eng_recovering(eng, j)
               ? j->gpus
               : 0;
}

struct gs_qclass;

/* The pass state the remaining jobs' codes depend on, at the stop point. */
struct gs_qclass_sig {
    int mode;                   /* 1: all wait behind the head; 2: the memo */
    int cl_dep;                 /* some code depends on the cluster (resources) */
    gs_time live[GS_QCLASS_MAX_GPUS + 1], view[GS_QCLASS_MAX_GPUS + 1];
    uint64_t quota;             /* hash of every team's quota and use */
    int8_t code[GS_QCLASS_MAX_GPUS + 1]; /* cl_dep: per class, its `resources` code */
};

/* A new, empty class state; NULL on allocation failure. */
struct gs_qclass *gs_qclass_create(void);

/* Free `c` (NULL-safe). */
void gs_qclass_free(struct gs_qclass *c);

/* Whether the engine's policy allows the stop at all: no preemption, no
 * partitions.  With queue.max_job_test 0 also hot spares (a spare user is
 * filed as not plain) and estimates that move while a job waits (any
 * estimator but `user` and `oracle`: from_history; the stop is then taken
 * only where the codes it leaves do not read an estimate,
 * gs_qclass_doomed); under a bound neither (a stopped bounded pass would
 * end its segments elsewhere: docs/policy.md).  Reads only. */
int gs_qclass_enabled(const struct gs_engine *eng);

/* `job` joined the queue (new or requeued): file it under its class.  A
 * job may be filed twice; entries of jobs that left are dropped lazily.
 * 0 or GS_ENOMEM. */
int gs_qclass_note(struct gs_qclass *c, const struct gs_engine *eng, int job, gs_time dur);

/* Whether every pending job left in the pass fails with no side effect:
 * `behind` (the blocked head holds them all back: no backfill, or its plan
 * failed) or, with backfill, the memo (`live`, `view`, per GPU count, as
 * in queue.c) refuses every plain class at its smallest estimate and no
 * pending job is not plain; with moving estimates, refuses every plain
 * class with one code whatever the estimate (a count up to the class's
 * does not fit the idle GPUs, with no `reservation` entry before it).
 * On 1 fills `sig` (all but the cluster and quota parts, see
 * gs_qclass_sig_finish; with max_job_test 0 the memo past the first count
 * that does not fit is left out: it decides no code).  Drops stale
 * entries. */
int gs_qclass_doomed(struct gs_qclass *c, const struct gs_engine *eng, int behind,
                     const gs_time *live, const gs_time *view, struct gs_qclass_sig *sig);

/* Complete `sig` with the quota part and, when some code depends on the
 * cluster, the `resources` code of each class the last gs_qclass_doomed
 * saw, read from `eng` now. */
void gs_qclass_sig_finish(struct gs_qclass *c, struct gs_engine *eng, struct gs_qclass_sig *sig);

/* Whether `sig` equals the signature of the last pass that established the
 * codes (gs_qclass_establish), and that one is still valid. */
int gs_qclass_same(const struct gs_qclass *c, const struct gs_qclass_sig *sig);

/* The pass that ended established every code beyond its stop point under
 * `sig`; `prefix[0..n)` are the jobs it tried before that point (their
 * codes may differ).  0 or GS_ENOMEM (then nothing is established). */
int gs_qclass_establish(struct gs_qclass *c, const struct gs_qclass_sig *sig,
                        const int *prefix, size_t n);

/* rep[g] = a pending job of plain class g, or -1, for g = 0..64 (rep[0]
 * is -1).  Drops stale entries; counts the classes (gs_qclass_count). */
void gs_qclass_reps(struct gs_qclass *c, const struct gs_engine *eng, int *rep);

/* Whether a pending job is filed under class `g` (0: not plain).  Drops
 * stale entries. */
int gs_qclass_has(struct gs_qclass *c, const struct gs_engine *eng, int g);

/* Set the coarse reason of every pending job filed under plain class `g`
 * that pass cycle `cycle` did not try (tried_cycle) to `reason`. */
void gs_qclass_set_reason(const struct gs_qclass *c, struct gs_engine *eng, int g,
                          uint32_t cycle, int reason);

/* Forget the established codes (a pass that ended otherwise). */
void gs_qclass_invalidate(struct gs_qclass *c);

/* The jobs tried before the stop point of the last establishing pass. */
const int *gs_qclass_prefix(const struct gs_qclass *c, size_t *n);

/* Classes with pending jobs at the last gs_qclass_doomed or gs_qclass_reps (plain GPU
 * counts, plus one if some job is not plain): the bench's figure. */
int gs_qclass_count(const struct gs_qclass *c);

#endif

/* engine.h - the scheduling engine: one pure state machine driven by
 * timestamped calls, shared by the simulator and the daemon.
 *
 * A driver (simulator, daemon) tells the engine what happened - a job was
 * submitted, a job finished - each with the current time `now`, then calls
 * gs_engine_step() once all events of that instant are in.  The step runs a
 * scheduling pass and reports its decisions (start job J on GPUs G, stop job
 * K at its runtime cap, ...) to the observer, in order, synchronously.
 *
 * The engine has no clock, does no I/O and holds no global state; the same
 * calls in the same order give the same decisions, bit for bit.  It never
 * sees a job's true duration: it asks the estimator (see estimate.h).
 *
 * Job handles are dense integers assigned in submission order (0, 1, ...).
 */
#ifndef GS_CORE_ENGINE_H
#define GS_CORE_ENGINE_H

#include <stdint.h>

#include "core/cluster.h"
#include "core/error.h"
#include "core/job.h"
#include "core/policy.h"
#include "core/types.h"

struct gs_engine;

enum gs_event_kind {
    GS_EV_START,      /* job started on `alloc` */
    GS_EV_FINISH,     /* job finished (reported by the driver) */
    GS_EV_KILL,       /* job stopped by the runtime cap */
    GS_EV_CANCEL,     /* job cancelled */
    GS_EV_REJECT,     /* job can never fit; it will not be queued */
    GS_EV_RESERVE,    /* `job` holds a reservation of `alloc` from `until` */
    GS_EV_RATE,       /* running job's speed changed: its finish time moves */
    GS_EV_PREEMPT,    /* running job stopped and requeued */
    GS_EV_DRAIN,      /* running job told to checkpoint now and stop when saved,
                         at `until` (preemption with a grace period) */
};

struct gs_event {
    int kind;                     /* enum gs_event_kind */
    gs_time time;
    int job;
    const struct gs_alloc *alloc; /* START/RESERVE; borrowed for the call */
    gs_time until;                /* START: kill time if it runs past the cap
                                     (GS_TIME_INF = none); RESERVE: start */
    int backfilled;               /* START: started ahead of a reservation */
};

/* Decision observer; called synchronously from engine calls.  It must not
 * call back into the engine. */
typedef void (*gs_observer_fn)(void *arg, const struct gs_event *ev);

/* Duration estimator.  `estimate` returns the expected run time of `job`
 * (full speed, wall time) or GS_TIME_NONE when it cannot tell; `observe`
 * (may be NULL) learns a finished job's actual run time.  The engine calls
 * `estimate` when it must plan around a job. */
struct gs_estimator {
    const char *name;
    gs_time (*estimate)(void *arg, const struct gs_engine *eng, int job);
    void (*observe)(void *arg, const struct gs_engine *eng, int job, gs_time runtime);
    void *arg;
};

/* What the engine knows about a job; strings borrowed from the engine until
 * it is destroyed. */
struct gs_job_info {
    const char *id;
    const char *team, *user, *name, *queue;
    int state;                /* enum gs_job_state */
    int gpus, milli, priority, klass;
    gs_time submit;
    gs_time first_start;      /* GS_TIME_NONE until started */
    gs_time start;            /* start of the current/last run */
    gs_time end;              /* GS_TIME_NONE until it ends */
    gs_time time_limit;
    gs_time estimate;         /* estimate used at its start, GS_TIME_NONE if none */
    int backfilled;           /* started ahead of a reservation */
    int runs;                 /* times started (> 1 after preemption) */
    gs_time work;             /* useful work credited (ms at full speed) */
    gs_time lost;             /* work lost to preemption and redone (ms) */
    gs_time ckpt_wall;        /* wall time spent writing checkpoints (ms) */
    gs_time restore_wall;     /* wall time spent restoring (ms) */
    int preemptions;          /* times preempted */
};

/* The job's GPU share in milli-GPUs: gpus x milli.  Its GPU-time figures
 * (lost, ckpt_wall, restore_wall x share) are weighted by it, in the
 * summary (preempt_metrics.h) and in jobs.csv alike. */
static inline int64_t gs_job_info_milli_gpus(const struct gs_job_info *ji)
{
    return (int64_t)ji->gpus * ji->milli;
}

/* Create an engine for a sealed cluster and a policy; both are copied, so
 * the caller keeps ownership of its arguments.  Returns NULL with `err`
 * filled: GS_EINVAL (cluster not sealed), GS_ENOTSUP (a policy feature that
 * is not built), GS_ENOMEM. */
struct gs_engine *gs_engine_create(const struct gs_cluster *cl, const struct gs_policy *pol,
                                   struct gs_error *err);

/* Destroy the engine and everything it owns; NULL is a no-op. */
void gs_engine_destroy(struct gs_engine *eng);

/* Set the decision observer (NULL to remove). */
void gs_engine_set_observer(struct gs_engine *eng, gs_observer_fn fn, void *arg);

/* Replace the built-in estimator chosen by the policy (the simulator passes
 * its oracle this way).  `est` is copied; its `arg` stays the caller's. */
void gs_engine_set_estimator(struct gs_engine *eng, const struct gs_estimator *est);

/* Submit a job at time `now` (spec->submit is the job's submit time and must
 * be <= now).  Returns the job handle (>= 0).  A job that can never fit the
 * cluster is recorded as GS_JOB_REJECTED and reported with GS_EV_REJECT; its
 * handle is still returned.  Errors: GS_EINVAL (bad spec, message names the
 * field), GS_EEXIST (duplicate id), GS_ENOMEM. */
int gs_engine_submit(struct gs_engine *eng, gs_time now, const struct gs_job_spec *spec,
                     struct gs_error *err);

/* Report that running job `job` finished at `now`; its GPUs are released
 * and the estimator learns its run time.  Errors: GS_ENOENT, GS_ESTATE (not
 * running). */
int gs_engine_finish(struct gs_engine *eng, gs_time now, int job, struct gs_error *err);

/* Cancel a pending or running job at `now`.  Errors: GS_ENOENT, GS_ESTATE. */
int gs_engine_cancel(struct gs_engine *eng, gs_time now, int job, struct gs_error *err);

/* Run one scheduling pass at `now`: enforce runtime caps, then start what
 * the queue policy allows.  Returns the number of jobs started, or a
 * negative error (GS_ENOMEM; GS_EINVAL if `now` goes backwards). */
int gs_engine_step(struct gs_engine *eng, gs_time now, struct gs_error *err);

/* Earliest time after `now` at which the engine wants a step even if no
 * event arrives (a runtime cap expiring, a priority crossing while aging,
 * a pass held back by queue.min_pass_interval falling due); GS_TIME_INF if
 * none. */
gs_time gs_engine_next_wakeup(const struct gs_engine *eng, gs_time now);

/* Borrowed views, valid until the next mutating call. */
const struct gs_cluster *gs_engine_cluster(const struct gs_engine *eng);
const struct gs_policy *gs_engine_policy(const struct gs_engine *eng);

/* Number of jobs ever submitted (handles are 0..count-1). */
int gs_engine_job_count(const struct gs_engine *eng);
/* Jobs waiting and running now. */
int gs_engine_pending_count(const struct gs_engine *eng);
int gs_engine_running_count(const struct gs_engine *eng);

/* Handle of the job with external id `id`, or GS_ENOENT. */
int gs_engine_job_find(const struct gs_engine *eng, const char *id);

/* Fill `out` for `job`.  Returns 0 or GS_ENOENT. */
int gs_engine_job_info(const struct gs_engine *eng, int job, struct gs_job_info *out);

/* The job's spec as submitted (strings borrowed).  Returns 0 or GS_ENOENT. */
int gs_engine_job_spec(const struct gs_engine *eng, int job, struct gs_job_spec *out);

/* The GPUs of the job's current (or last) run: `out->parts` is set to
 * borrowed engine storage.  Returns 0, or GS_ENOENT, or GS_ESTATE when the
 * job never started. */
int gs_engine_job_alloc(const struct gs_engine *eng, int job, struct gs_alloc *out);

/* Restore a job record into a fresh engine, in handle order, to resume a
 * saved state: `info` gives state and times (id and strings come from
 * `spec`); for a running job `alloc` gives its GPUs, which are taken again.
 * Finished jobs are fed to the estimator.  Errors: GS_EINVAL, GS_EEXIST,
 * GS_ENOSPC (the GPUs are not free), GS_ENOMEM. */
int gs_engine_restore_job(struct gs_engine *eng, const struct gs_job_spec *spec,
                          const struct gs_job_info *info, const struct gs_alloc *alloc,
                          struct gs_error *err);

/* When running job `job` will have done `total_ms` of work if its speed
 * does not change (the simulator passes the true duration; the engine never
 * stores it).  Returns 0 and sets *end, or GS_ESTATE when not running. */
int gs_engine_job_eta(const struct gs_engine *eng, int job, gs_time total_ms, gs_time *end);

/* Name of the partition `job` belongs to ("" if unnamed), or NULL when the
 * policy has no partitions (or no such job).  Borrowed from the engine. */
const char *gs_engine_partition_name(const struct gs_engine *eng, int job);

/* Time of the most recent engine call (the engine's notion of now). */
gs_time gs_engine_now(const struct gs_engine *eng);

/* Queue pass counters since the engine was created: passes run, passes held
 * back by queue.min_pass_interval, and pending jobs that passes left
 * untried because of queue.max_job_test (a job left untried by k passes
 * counts k times). */
struct gs_queue_stats {
    int64_t passes, held_back, skipped;
};

/* Fill `out` with the engine's queue pass counters.  (queue.c) */
void gs_engine_queue_stats(const struct gs_engine *eng, struct gs_queue_stats *out);

#endif

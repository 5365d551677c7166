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
 * Job handles are integers assigned in submission order (0, 1, ...) and
 * never reused: a handle stays valid until its job is retired
 * (gs_engine_retire), then every call refuses it with GS_ENOENT, even once
 * the record's memory went to a later job.  Observers, estimators and the
 * queue listing see handles too.
 */
#ifndef GS_CORE_ENGINE_H
#define GS_CORE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "core/policy/job.h"
#include "core/policy/policy.h"
#include "core/base/types.h"

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
    GS_EV_FAIL,       /* a run failed (its node went down, or its launch failed):
                         informational; the job is pending again or FAILED */
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

/* Start latency source: the driver's model of the time between a start
 * decision and the job's work beginning (scheduling cycle, launch).  The
 * engine calls it once per start it decides, from inside the call that
 * decides (gs_engine_step, and the calls that start jobs: finish, cancel,
 * node events...), with the job's handle and its start number `run` (0 for
 * the first start; gs_job_info.runs before this start).  The job holds its
 * resources from the decision and starts (gs_job_info.start, its progress,
 * runtime cap and planned end) at decision + the answer, in ms (a
 * saturating sum); an answer below 0 counts as 0.  It may read the engine
 * (gs_engine_policy gives the policy's start_latency.* keys) and must not
 * call a mutating engine function.  The engine draws nothing itself: the
 * simulator's draw is sim/latency.h; a live driver sets none, its latency
 * being real (the start is confirmed by gs_engine_started). */
typedef gs_time (*gs_latency_fn)(void *arg, const struct gs_engine *eng, int job, int run);

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
    /* live mode (lifecycle.c); restore_job reads these too */
    int exit_code;            /* exit code of the last run that ended, -1 = none */
    int attempts;             /* starts decided, failed launches included */
    int failures;             /* attempts that failed (node or launch failure) */
    gs_time last_ckpt;        /* last reported checkpoint, GS_TIME_NONE = none */
    int stop_reason;          /* STOPPING: the state it becomes once the stop is
                                 confirmed (PENDING = requeued, CANCELLED, KILLED,
                                 FAILED); -1 otherwise */
    gs_time stop_at;          /* STOPPING: when it was told to stop */
    gs_time saved;            /* work (ms) protected by checkpoints */
    gs_time run_base;         /* holding GPUs: work (ms) at the start of the current
                                 run; restore replays the run from it */
    gs_time past_ckpt_wall;   /* ckpt_wall and restore_wall of the runs before the */
    gs_time past_restore_wall; /* current one (= the totals when not holding GPUs) */
    int front;                /* pending after a failed launch: ahead of its peers */
    int capped;               /* was preempted while past its runtime cap: it may
                                 no longer preempt by the over-cap right */
    int timed_out;            /* its last run was stopped (KILLED) at its enforced
                                 time limit + queue.over_time_limit */
    int recover;              /* pending: requeued by a node failure, not started
                                 since (its right to the hot spares, spares.c) */
    int held;                 /* pending: GPUs are held for its restart now
                                 (retry.hold, recovery.c); restore_job ignores it */
    int64_t held_gpu_ms;      /* GPU-ms held for its restarts so far (retry.hold:
                                 what its holds kept from the other jobs) */
    int64_t qstamp;           /* its last entry into the queue: +n appended at the
                                 back, -n put in front, n growing with each entry;
                                 restore_job takes it (0 = a new stamp): sorted,
                                 the pending jobs' stamps give the fifo order for
                                 gs_engine_restore_queue */
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

/* Set the start latency source (NULL, the default: every start begins at
 * its decision).  `arg` stays the caller's and must outlive the engine or
 * the next call. */
void gs_engine_set_latency(struct gs_engine *eng, gs_latency_fn fn, void *arg);

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

/* Whether a job with `spec` could ever run on this cluster as configured,
 * by the very test gs_engine_submit makes before it rejects a job (a
 * partition that admits its class, then a placement on the idle cluster),
 * without submitting it: no job, event or queue entry is made.  Returns 1
 * when it could; 0 when it never can, with `err` saying why as "FIELD:
 * reason", the request field first ("gpus: 100 requested, the cluster has
 * 24 GPUs"); a negative code for a bad spec, as gs_engine_submit (its
 * submit time is taken as now). */
int gs_engine_possible(struct gs_engine *eng, const struct gs_job_spec *spec,
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
 * none.  `now` itself when the last pass stopped at queue.max_job_test with
 * jobs untried and min_pass_interval is 0: its continuation is due at once
 * (a driver steps again without waiting; every continuation tries jobs no
 * pass of its cycle tried, so the steps at one instant are finite). */
gs_time gs_engine_next_wakeup(const struct gs_engine *eng, gs_time now);

/* Borrowed views, valid until the next mutating call. */
const struct gs_cluster *gs_engine_cluster(const struct gs_engine *eng);
const struct gs_policy *gs_engine_policy(const struct gs_engine *eng);

/* Number of jobs ever submitted (handles are 0..count-1; retired ones
 * answer GS_ENOENT). */
int gs_engine_job_count(const struct gs_engine *eng);
/* Job records the engine holds: the live jobs plus the free slots that
 * retired jobs left for the next ones (a high-water mark of live jobs
 * when the driver retires; the job count when it never does). */
int gs_engine_slot_count(const struct gs_engine *eng);
/* Jobs the engine holds now: every job submitted and not yet retired. */
int gs_engine_held_count(const struct gs_engine *eng);
/* The handle of the job in record `slot` (0 <= slot < gs_engine_slot_count),
 * -1 for a free record or out of range.  Visiting every record visits every
 * job held once, in handle order while no record was reused (always in the
 * simulator), at a cost that follows the jobs held, not the handles given. */
int gs_engine_slot_handle(const struct gs_engine *eng, int slot);
/* Handles of the jobs holding GPUs (running, starting, stopping), in
 * handle order: returns their count, and writes them to `out` when `cap`
 * is at least that (else nothing).  O(r log r) for r such jobs. */
int gs_engine_running_list(const struct gs_engine *eng, int *out, size_t cap);
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

/* After restoring every job: put the pending jobs in the queue order of
 * the saved engine (`jobs`, as gs_engine_queue_list gave it; it matters
 * for fifo, where requeued jobs sit behind later submissions and failed
 * launches in front).  `handles` must list every pending job once.  Errors:
 * GS_EINVAL (not exactly the pending jobs). */
int gs_engine_restore_queue(struct gs_engine *eng, const int *handles, size_t n,
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
    int64_t stopped;            /* passes ended at their stop point (classes) */
    int64_t reached;            /* passes that reached it (ended there or not) */
    int64_t tried;              /* jobs tried, summed over passes */
    int classes;                /* classes with pending jobs at the last check */
};

/* Fill `out` with the engine's queue pass counters.  (queue.c) */
void gs_engine_queue_stats(const struct gs_engine *eng, struct gs_queue_stats *out);
/* --- live mode: asynchronous starts and stops (lifecycle.c) -------------
 *
 * Off by default (the simulator): a START is confirmed at once and every
 * stop takes effect at once, so schedules are those of a synchronous
 * engine.  On: GS_EV_START leaves the job GS_JOB_STARTING until the driver
 * calls gs_engine_started (or gs_engine_launch_failed); GS_EV_KILL,
 * GS_EV_PREEMPT (also at the end of a GS_EV_DRAIN grace) and GS_EV_CANCEL of
 * a job holding GPUs leave it GS_JOB_STOPPING, with its GPUs held (offered
 * to no one, planned busy by the availability profile) until the driver
 * calls gs_engine_exited.  Refinements of docs/live-engine contract:
 * - while any job is STOPPING no new preemption is planned (the victims'
 *   GPUs are not free yet); a waiter whose victims stop starts at the
 *   first pass after the stops are confirmed;
 * - a stopping job's work is frozen at the stop order (what it computes
 *   until its exit is not credited; a checkpoint it reports is);
 * - the run's start (gs_job_info.start, and first_start for a first run),
 *   its runtime cap and its planned end count from the confirmation.
 * All calls below return 0 or a negative GS_E* with `err` filled:
 * GS_ENOENT (no such handle), GS_ESTATE (wrong state), GS_EINVAL (time
 * going backwards, bad exit code), GS_ENOMEM. */
void gs_engine_set_live(struct gs_engine *eng, int live);

/* STARTING -> RUNNING at `now`; the run's start becomes `now`: its
 * progress (restore cost first), runtime cap and expected end count from
 * here. */
int gs_engine_started(struct gs_engine *eng, gs_time now, int job, struct gs_error *err);

/* A STARTING job could not be launched: its GPUs are released and it goes
 * back to the queue ahead of its peers (front of a FIFO queue; first among
 * equal priorities), the failed launch not counted in `runs` - or it
 * becomes GS_JOB_FAILED when `retry.on` lacks launch_failure or it has
 * failed retry.max_attempts times.  Reports GS_EV_FAIL.  On a STOPPING job
 * it confirms the stop (the process never ran). */
int gs_engine_launch_failed(struct gs_engine *eng, gs_time now, int job,
                            struct gs_error *err);

/* The attempt of a job holding GPUs was lost without an exit status (the
 * live driver's supervisor vanished together with the job: a cgroup-wide
 * kill, the OOM killer): a failure of the system, not of the job.  Treated
 * as a failure of the job's node alone: requeued under the progress model
 * (losing the work since its last checkpoint) when `retry.on` has
 * node_failure and it has failed fewer than retry.max_attempts times, else
 * GS_JOB_FAILED; counted in gs_job_info.failures; reports GS_EV_FAIL.  A
 * STOPPING job completes its stop.  GS_ESTATE when it holds no GPUs. */
int gs_engine_run_lost(struct gs_engine *eng, gs_time now, int job, struct gs_error *err);

/* A STARTING job could not be launched for the driver's own reasons (out
 * of descriptors, processes or memory: not the job's failure): its GPUs are
 * released and it goes back to the queue ahead of its peers, as if the
 * START had not been decided: `attempts` and `runs` are restored, no
 * failure is counted, the retry policy is not consulted and no event is
 * reported (the driver knows; the simulator never calls it).  On a
 * STOPPING job it confirms the stop, as gs_engine_launch_failed.  Returns
 * 0, GS_ENOENT (no such job), GS_ESTATE (neither starting nor stopping),
 * GS_EINVAL (time going back) or GS_ENOMEM. */
int gs_engine_launch_deferred(struct gs_engine *eng, gs_time now, int job,
                              struct gs_error *err);

/* The job's processes are gone, with `exit_code` (0..255, or 128 +
 * signal).  RUNNING (or STARTING): 0 = completed (GS_JOB_DONE, the
 * estimator learns the run time), else GS_JOB_FAILED with the code kept;
 * reports GS_EV_FINISH either way - except a job draining after
 * GS_EV_DRAIN that exits non-zero before its grace ends: it stopped as told,
 * so it is requeued under the progress model (GS_EV_PREEMPT).  STOPPING: the stop is confirmed, the
 * GPUs released and the job becomes what the stop decided (stop_reason:
 * pending again under the progress model, CANCELLED, KILLED); no event
 * (the stop was reported when decided). */
int gs_engine_exited(struct gs_engine *eng, gs_time now, int job, int exit_code,
                     struct gs_error *err);

/* A RUNNING (or STOPPING) job reports that it has written a checkpoint at
 * `now`: all its work so far is protected (a later failure or preemption
 * loses only what follows).  Sets gs_job_info.last_ckpt. */
int gs_engine_checkpointed(struct gs_engine *eng, gs_time now, int job, struct gs_error *err);

/* The driver learned that jobs hold other GPUs than decided (a backend
 * that cannot pin GPU indices, e.g. Slurm with plain `gpu:N` requests):
 * for each of the n moves, job `job`'s GPUs on node `node` become `mask`
 * (as many GPUs as before; whole-GPU, non-MIG allocations only; the job
 * STARTING, RUNNING or STOPPING).  Moves of several jobs are applied
 * together, so jobs that swapped GPUs can be given in one call: every old
 * set is given back first, then every new one taken.  All or nothing:
 * GS_ENOSPC (nothing changed) when a new GPU is held by a job not moving
 * away from it or out of service; GS_EINVAL (bad node or mask, a job
 * without GPUs on that node, another count, a shared or MIG allocation, the
 * same job and node twice); GS_ENOENT; GS_ESTATE (not holding GPUs).
 * The jobs' planned ends and states do not change.  (lifecycle_move.c) */
struct gs_gpu_move {
    int job, node;
    uint64_t mask;
};
int gs_engine_move_gpus(struct gs_engine *eng, gs_time now, const struct gs_gpu_move *mv,
                        size_t n, struct gs_error *err);

/* --- node events (nodes.c) ----------------------------------------------
 * Node index = order in the cluster file (gs_cluster_find_node by name).
 * GS_NODE_DOWN: the jobs holding GPUs there lose their run at once (no
 * STOPPING: the processes are gone): each is requeued under the progress
 * model, losing the work since its last checkpoint, when `retry.on` has
 * node_failure and it has failed fewer than retry.max_attempts times, else
 * GS_JOB_FAILED; GS_EV_FAIL each.  A STOPPING job there completes its stop.
 * The node's GPUs leave service: they are never offered, S_k and
 * fragmentation count them as not free, the profile plans them busy until
 * further notice (reservations there move at the next pass).
 * GS_NODE_DRAIN: running jobs go on; nothing new starts there (each GPU
 * leaves service as it empties).  GS_NODE_UP: back in service.
 * Returns 0, GS_EINVAL (bad node, GPU or state), GS_ENOMEM. */
int gs_engine_node_set_state(struct gs_engine *eng, gs_time now, int node, int state,
                             struct gs_error *err);

/* The same for GPU `gpu` of `node` alone; a GPU is in service when both it
 * and its node are up. */
int gs_engine_gpu_set_state(struct gs_engine *eng, gs_time now, int node, int gpu, int state,
                            struct gs_error *err);

/* State of a node (enum gs_node_state) or of one of its GPUs; GS_EINVAL
 * when out of range. */
int gs_engine_node_state(const struct gs_engine *eng, int node);
int gs_engine_gpu_state(const struct gs_engine *eng, int node, int gpu);

/* --- invariants, retirement, queue listing ------------------------------ */

/* Verify every invariant of the engine: each GPU given at most once (job
 * allocations and out-of-service GPUs sum to the cluster's usage), team
 * usage equals the sum over its jobs holding GPUs, the pending / running /
 * starting / stopping counts match the job states, no job is both queued
 * and holding GPUs, the availability profile plans every held GPU busy,
 * and the cluster's own check.  Returns 0 or GS_ESTATE with the first
 * violation in `err`. */
int gs_engine_check(const struct gs_engine *eng, struct gs_error *err);

/* Forget terminal job `handle` and reclaim its memory: its record, its id
 * string and its wait bookkeeping go to the next job submitted, so an
 * engine's memory follows its live jobs, not every job it ever saw.  What
 * it contributed stays: the estimator has learnt its run time, the wait
 * summary (gs_wait_reasons_build) keeps its waits; per-job queries on the
 * handle return GS_ENOENT from now on and the job summaries (metrics.h)
 * skip it, so a driver that retires reports finished jobs itself (the
 * daemon's journal does).  The handle is never given again; the id is free
 * again (a later submit or restore may use it).  Costs O(1), plus the
 * preemption holds and drains that still name the job (they are dropped:
 * nobody waits for a job that ended).  Errors: GS_ENOENT (no such handle,
 * or already retired), GS_ESTATE (not terminal). */
int gs_engine_retire(struct gs_engine *eng, int job, struct gs_error *err);

/* Pending jobs in the order the next pass visits them (as of the last
 * call; it refreshes the engine's kept order, which never changes a
 * decision: the keys do not depend on when they are computed); writes up to `cap` handles to `out` and returns the count (which
 * may exceed cap), or GS_ENOMEM.  A job's position is its index; its reason
 * comes from the diagnose calls. */
int gs_engine_queue_list(const struct gs_engine *eng, int *out, size_t cap);

/* A pending job's place in gs_engine_queue_list, as a key: the listing is
 * the pending jobs sorted by gs_queue_key_cmp of their keys.  A key holds
 * (the same job keeps its place against every other job whose key holds)
 * while the engine's time is at most `until`: GS_TIME_INF without aging,
 * the moment the job starts aging while it is young, the engine's time now
 * once it ages (its key then moves against the young jobs' with time).
 * Lets a caller keep the listing between passes and re-key only the jobs
 * that joined or left the queue.  Returns 0, GS_ENOENT (no such handle, or
 * not pending), GS_ENOTSUP (an order without keys: fifo, whose listing is
 * the queue array itself). */
struct gs_queue_key {
    int64_t prio;             /* effective priority x GS_PRIO_SCALE (higher first) */
    gs_time submit;           /* GS_TIME_NONE for a job requeued to the front */
    int handle;               /* ties: the earlier handle first */
    gs_time until;
};
int gs_engine_queue_key(const struct gs_engine *eng, int handle, struct gs_queue_key *k);

/* <0, 0, >0 as a sorts before, with, after b in the listing. */
int gs_queue_key_cmp(const struct gs_queue_key *a, const struct gs_queue_key *b);

#endif

/* jobs.h - the jobs floor: the job table (struct job, slots and handles),
 * the engine state the floor owns (struct gs_engine) and the run primitives
 * (add, request, try-start, start-placed, mark-running, stop-running,
 * compact) with the lifecycle, progress, estimates, rates, caps, node state,
 * hot spares and restart holds (the .c files of src/core/jobs).
 *
 * It sits beneath the policies (queue, preempt, diagnose): they include this
 * header and call down into it; the floor never calls up into them but
 * announces what happened through the hooks table (struct gs_eng_hooks),
 * which the facade (src/core/engine/facade.c) fills at create.  The internal
 * prefix stays gs_eng_ (the floor's functions kept their names when they
 * moved here from src/core/engine/).  Nothing outside src/core/ (other than
 * white-box tests) includes this.
 */
#ifndef GS_CORE_JOBS_H
#define GS_CORE_JOBS_H

#include "core/engine/engine.h"
#include "core/place/place.h"
#include "core/jobs/estimate.h"
#include "core/place/profile.h"
#include "core/jobs/progress.h"
#include "core/base/strtab.h"
#include "core/base/intmap.h"
#include "core/base/alloc.h"

#include <stddef.h>
#include <string.h>

struct job {
    gs_time submit;
    gs_time first_start, start, end;
    gs_time time_limit, ckpt_interval, ckpt_cost, restore_cost;
    gs_time estimate;           /* at the current/last start */
    gs_time deadline;           /* runtime-cap or enforced time-limit kill time,
                                   GS_TIME_INF = none */
    int64_t mem_mib, cpu_milli, host_mem_mib;
    int64_t alloc_mem;          /* per-GPU memory actually taken */
    gs_time saved;              /* work (ms) protected by checkpoints, kept across runs */
    gs_time work;               /* useful work (ms) credited so far */
    gs_time lost;               /* work (ms) lost to preemption and redone */
    gs_time ckpt_wall, restore_wall; /* wall ms spent checkpointing / restoring */
    int runs;                   /* number of starts */
    int preemptions;            /* times preempted (the lifecycle counts its
                                   requeues by a stop: lifecycle.c) */
    uint8_t part;               /* partition index + 1, 0 = none: set through
                                   hooks.part_pick (partition.c), read by every
                                   request (the lifecycle's: jobs.c) */
    int gpus, milli, priority;
    int team, user, name, queue; /* ids in eng->strs */
    int gpu_type;               /* -1 = any */
    int run_pos;                /* index in eng->running, -1 when not running */
    uint32_t parts_off;         /* allocation in eng->parts */
    uint16_t nparts;
    uint8_t topology, klass, state, backfilled; /* small non-negative codes */
    uint32_t qpos;              /* index of its live entry in eng->pending[]: the
                                   array may still hold an older, dead entry of a
                                   job that left the queue and came back */
    /* (the queue modules' per-job data - its coarse wait reason, its entry
     * in the kept order, the pass cycles that tried it - is in their
     * per-slot table beside this one: struct gs_qjob, queue_private.h) */
    /* placement (engine_place.c, rate.c) */
    uint64_t gpu_types;         /* allowed GPU types (gpu_model "A|B"), 0 = gpu_type */
    int32_t alloc_milli;        /* per-GPU share actually taken (1000 when exclusive) */
    int32_t gpu_next;           /* next shared job on the same GPU, -1 = none */
    int16_t mem_bw;             /* memory-bandwidth intensity, per mille */
    uint8_t mig;                /* MIG profile id + 1, 0 = none */
    uint8_t mig_slot;           /* MIG instance + 1 of the current run, 0 = none */
    /* live lifecycle (lifecycle.c) */
    gs_time last_ckpt;          /* last reported checkpoint, GS_TIME_NONE = none */
    gs_time stop_at;            /* STOPPING: when it was told to stop */
    int attempts;               /* starts decided, failed launches included */
    int16_t exit_code;          /* of the last run that ended, -1 = none */
    uint8_t failures;           /* failed attempts (node / launch failures) */
    int16_t stop_reason;        /* STOPPING: state once confirmed, -1 = none */
    uint8_t front;              /* requeued after a failed launch: sorts ahead of
                                   its peers until it starts (queue_order.c) */
    uint8_t recover;            /* requeued by a node failure, not started since:
                                   it may use the hot spares (spares.c) */
    uint8_t rheld;              /* GPUs are held for its restart (retry.hold,
                                   recovery.c) */
    int64_t held_gpu_ms;        /* GPU-ms held for its restarts so far (recovery.c) */
    int64_t qstamp;             /* its last entry into the queue: +n appended, -n
                                   put in front (n = eng->qstamps then); sorting
                                   pending jobs by it gives the fifo array's order
                                   (a restore's gs_engine_restore_queue) */
    uint8_t capped;             /* preempted while past its runtime cap: it loses
                                   the over-cap right to preempt (set by the
                                   lifecycle's stop, read by preempt.c) */
    uint8_t timed_out;          /* its last run was stopped at its enforced time
                                   limit (caps.c) */
    int handle;                 /* the public handle of the job in this slot,
                                   -1 = free slot (its job was retired) */
};

struct deadline {
    gs_time at;
    gs_time start;              /* the run it belongs to (stale if different) */
    int job;                    /* slot */
    int handle;                 /* ... and handle: stale once the slot is reused */
    int limit;                  /* dl: 1 = the enforced time limit, 0 = the runtime cap */
};

/* The hooks table: how the run primitives (this floor: engine.c,
 * lifecycle*.c, nodes.c, ...) tell the policies above them (queue, preempt,
 * diagnose) what happened, without calling up into them.  gs_engine_create
 * fills it (gs_eng_hooks_fill: each policy module subscribes its handlers in
 * a fixed order); a primitive announces an event with gs_eng_hooks_run,
 * which calls the subscribers in that order.  Events (`job` a slot, `t` a
 * time): */
enum gs_eng_hook_event {
    GS_HOOK_STARTED,            /* job took its GPUs (mark_running); t = now */
    GS_HOOK_STOPPED,            /* job left its GPUs (stop_running); t = now */
    GS_HOOK_RETIRED,            /* slot is being retired (gs_engine_retire) */
    GS_HOOK_RESERVED,           /* the pass reserved GPUs for job from t (emit) */
    GS_HOOK_DRAIN_DUE,          /* draining job stopped early at t (lifecycle) */
    GS_HOOK_ADDED,              /* a new job record took slot job (gs_eng_add_job):
                                   per-slot tables reset their entry */
    GS_HOOK_QUEUED,             /* job was appended to the queue array
                                   (gs_eng_queue_append): new to the queue */
    GS_HOOK_COUNT
};

#define GS_ENG_MAX_HOOKS 6      /* subscribers per event */

typedef void (*gs_eng_hook_fn)(struct gs_engine *eng, int job, gs_time t);

/* Besides the events, the questions a primitive asks a policy (one provider
 * each, set by gs_eng_hooks_fill; never NULL once the engine exists): */
struct gs_eng_hooks {
    gs_eng_hook_fn on[GS_HOOK_COUNT][GS_ENG_MAX_HOOKS];
    uint8_t n[GS_HOOK_COUNT];
    /* put job record `j` (queue label `label`) in its partition: 0 or
     * GS_ENOENT (gs_eng_part_pick, partition.c) */
    int (*part_pick)(const struct gs_engine *eng, struct job *j, const char *label);
    /* the nodes partition `part` allows, NULL = all (gs_eng_part_nodes_of) */
    const unsigned char *(*part_nodes)(const struct gs_engine *eng, int part);
    /* a team's quota changed (gs_queue_team_set_quota, queue_quota.c) */
    void (*team_quota)(struct gs_engine *eng, int team, int quota);
    /* the queue pass ended at `now`: give every pending job its wait code
     * and account waiting time (gs_eng_diag_account_waits, diagnose.c); `full`
     * = 0 for a skipped pass.  0 or GS_ENOMEM */
    int (*account_waits)(struct gs_engine *eng, gs_time now, int full);
    /* the wait code plain pending `job` would get now (gs_eng_diag_plain_code_now,
     * diagnose_explain.c): the queue's per-class index asks it */
    int (*plain_code)(struct gs_engine *eng, int job);
    /* whether `job` was told to checkpoint and stop (GS_EV_DRAIN) and still
     * drains (drain.c) */
    int (*draining)(const struct gs_engine *eng, int job);
    /* The per-slot tables of the policy modules (their per-job data, kept
     * beside the job table, not in struct job): each grows its table to
     * `cap` slots, new entries zero; 0 or GS_ENOMEM.  Called in fill order
     * by gs_eng_jobs_reserve; a table already that large is left alone. */
    int (*grow[GS_ENG_MAX_HOOKS])(struct gs_engine *eng, size_t cap);
    uint8_t ngrow;
};

/* Add a per-slot table's grow function `fn` (hooks.grow) after those
 * already there (at most GS_ENG_MAX_HOOKS). */
static inline void gs_eng_hook_grow_add(struct gs_eng_hooks *h,
                                        int (*fn)(struct gs_engine *eng, size_t cap))
{
    h->grow[h->ngrow++] = fn;
}

/* Grow per-slot table `*arr` (`*cap` entries of `elem` bytes) to at least
 * `need` entries, the new ones zero (for a hooks.grow function).  0 or
 * GS_ENOMEM (then unchanged). */
static inline int gs_eng_slot_table_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;
    if (gs_grow(arr, cap, need, elem))
        return GS_ENOMEM;
    if (*cap > old)
        memset((char *)*arr + old * elem, 0, (*cap - old) * elem);
    return 0;
}

/* Subscribe `fn` to `ev` after the subscribers already there (at most
 * GS_ENG_MAX_HOOKS: a fixed table, so it cannot fail at run time). */
static inline void gs_eng_hook_add(struct gs_eng_hooks *h, enum gs_eng_hook_event ev,
                                   gs_eng_hook_fn fn)
{
    h->on[ev][h->n[ev]++] = fn;
}

struct gs_engine {
    struct gs_cluster *cl;
    struct gs_policy pol;
    struct gs_eng_hooks hooks;  /* the policies' subscriptions (gs_eng_hooks_fill) */
    /* Job slots and handles.  Everything inside the engine indexes jobs by
     * slot (eng->jobs[slot]); callers hold handles, given 0, 1, 2, ... in
     * submission order and never reused.  The id table gives each job its
     * slot: a retired job's id is removed (gs_strtab_remove) and its slot
     * goes to the next job submitted.  Until a slot is reused, handle ==
     * slot (the simulator never retires: there the two are the same); a
     * job in a reused slot, or appended after one, is found through `moved`
     * (handle -> slot), so memory follows the live jobs (gs_eng_slot). */
    struct gs_strtab *ids;      /* job id -> slot (free slots: removed) */
    struct gs_strtab *strs;     /* team, user, name, queue, gpu model strings */
    struct job *jobs;           /* by slot */
    size_t njobs, jobs_cap;     /* slots in use or free (a high-water mark) */
    int nhandles;               /* handles given so far */
    int probe_slot;             /* gs_engine_probe's job (GS_PROBE_HANDLE) while it
                                   runs, -1 otherwise */
    struct gs_intmap *moved;    /* handle -> slot where the two differ */
    int *pending;               /* handles in queue order, from phead; new entries
                                   only at the end (queue_order.c scans the tail) */
    size_t phead, ptail, pending_cap;
    uint64_t pending_epoch;     /* bumped when compaction moves entries */
    int64_t qstamps;            /* queue entries stamped so far (job.qstamp) */
    size_t pending_gone;        /* entries in [phead, ptail) no longer pending */
    size_t npending;            /* live pending jobs */
    int *running;
    struct gs_progress *prog;   /* parallel to running[]: progress of each run */
    size_t nrunning, running_cap, prog_cap;
    struct gs_alloc_part *parts; /* each run's GPUs, appended at its start */
    size_t nparts, parts_cap;
    size_t parts_dead;          /* of those, retired jobs' (gs_eng_compact_parts) */
    struct gs_alloc possible_buf; /* room for job_possible's test placement
                                     (one part per node); its result is unused */
    int64_t *team_milli;        /* GPU share held per string id (teams) */
    int *team_quota;            /* quota GPUs per string id, -1 none */
    size_t teams_cap;
    int64_t quota_unused;       /* sum over teams of quota left unused (milli) */
    int64_t quota_borrowed;     /* ... and of usage beyond quota (queue.c) */
    struct gs_profile *profile; /* expected free times + reservations */
    struct gs_history *hist;    /* from_history estimator state, or NULL */
    int backfill;               /* resolved enum gs_backfill */
    struct gs_qstate *q;        /* pass order and bookkeeping (queue_private.h) */
    struct deadline *dl;        /* min-heap of runtime-cap kill times */
    size_t ndl, dl_cap;
    struct deadline *expect;    /* min-heap of estimated ends (overrun watch) */
    size_t nexpect, expect_cap;
    int8_t possible[GS_TOPO_ANY + 1][GS_MAX_NODE_GPUS + 1]; /* job_possible memo:
                                   0 unknown, 1 fits an empty cluster, -1 never */
    uint64_t releases;          /* GPU releases so far (stop_running) */
    uint64_t decisions;         /* events emitted so far but RESERVE (gs_eng_emit) */
    uint64_t pass_releases;     /* `releases` at the end of the last pass */
    int pass_blocked;           /* the last pass ended at a blocked job */
    int pass_head_prio;         /* priority of the last pass's blocked head */
    uint64_t arrivals_ahead;    /* jobs queued since the last pass that would
                                   sort before its blocked head (no aging) */
    gs_observer_fn observer;
    void *observer_arg;
    struct gs_estimator est;
    gs_latency_fn latency;      /* the driver's start latency, NULL = none */
    void *latency_arg;
    struct gs_preempt *pre;     /* preemption and partitions (preempt_private.h) */
    struct gs_diag_state *diag; /* wait reasons and accounting (diagnose.c) */
    struct gs_eng_place *place; /* shapes, GPU index, frag figures (engine_place.c) */
    struct gs_eng_nodes *nodes; /* node states (nodes.c), NULL until one changes */
    unsigned char *spare_mask;  /* per node, gs_eng_spare_nodes' answer; NULL
                                   without spares.nodes (spares.c) */
    struct gs_eng_rholds *rholds; /* GPUs held for restarts (retry.hold,
                                   recovery.c); NULL without retry.hold */
    int live;                   /* asynchronous starts and stops (lifecycle.c) */
    size_t nstopping;           /* jobs in GS_JOB_STOPPING */
    size_t nstarting;           /* jobs in GS_JOB_STARTING */
    gs_time now;
};

/* Announce `ev` for slot `job` at `t`: call its subscribers in order. */
static inline void gs_eng_hooks_run(struct gs_engine *eng, enum gs_eng_hook_event ev, int job,
                                    gs_time t)
{
    for (int i = 0; i < eng->hooks.n[ev]; i++)
        eng->hooks.on[ev][i](eng, job, t);
}

/* Whether job `j` may restart on the hot spares: requeued by a node failure
 * and not started since, with at least spares.min_gpus GPUs (spares.c). */
static inline int gs_eng_spare_user(const struct gs_engine *eng, const struct job *j)
{
    return eng->pol.spares_nodes > 0 && j->recover && j->gpus >= eng->pol.spares_min_gpus;
}

/* The nodes job record `j` may be placed on: `allowed` (its partition's, NULL =
 * all) less the hot spares - the spares.nodes highest-numbered nodes whose
 * GPUs are all idle (a down or drained node is not idle) - unless the job
 * is a spare user.  Returns `allowed` itself when no spare is kept from it,
 * else eng->spare_mask (valid until the next call).  (spares.c) */
const unsigned char *gs_eng_spare_nodes(const struct gs_engine *eng, const struct job *j,
                                        const unsigned char *allowed);

/* Allocate eng->spare_mask when the policy keeps spares; GS_ENOMEM. */
int gs_eng_spares_init(struct gs_engine *eng);

/* Whether job `j`'s chance to start depends on more than its shape: a
 * spare user, or a job GPUs are held for (retry.hold).  The queue pass's
 * memo and the per-class index leave such a job out (queue.c, qclass.c). */
static inline int gs_eng_recovering(const struct gs_engine *eng, const struct job *j)
{
    return j->rheld || gs_eng_spare_user(eng, j);
}

/* --- recovery.c: retry.hold, GPUs held for the restart of a job hit by a
 * node failure (docs/failures.md, "Recovery policies") --- */

/* Set up eng->rholds when the policy holds (retry.hold > 0): 0 or GS_ENOMEM. */
int gs_eng_rhold_init(struct gs_engine *eng);

/* Free the hold table (NULL-safe). */
void gs_eng_rhold_fini(struct gs_eng_rholds *rh);

/* `job` was just requeued at `now` by the failure of GPUs `down` of `node`:
 * hold the GPUs its last run used elsewhere (in service, idle now) for it
 * until now + retry.hold.  No-op without retry.hold or retry.expedite, for
 * a shared or MIG run, or when nothing survives.  0 or GS_ENOMEM (then
 * nothing is held and nothing changed: the caller may go on without). */
int gs_eng_rhold_begin(struct gs_engine *eng, int job, gs_time now, int node, uint64_t down);

/* gs_eng_try_start for a job with GPUs held (j->rheld): its held GPUs count
 * as free to it (in the live state and in `view`).  On a start the hold
 * ends; else it stays as it was.  Returns as gs_eng_try_start. */
int gs_eng_rhold_try_start(struct gs_engine *eng, int job, gs_time now, const uint64_t *view,
                           int backfilled, struct gs_alloc *a);

/* End the holds whose bound passed by `now`, and the hold of `job` (a slot,
 * -1 = none: it was cancelled).  Their GPUs are free again. */
void gs_eng_rhold_expire(struct gs_engine *eng, gs_time now, int job);

/* GPUs `mask` of `node` left service at `now` (drain, down): they are no
 * longer held (the caller then takes them out of service). */
void gs_eng_rhold_node(struct gs_engine *eng, gs_time now, int node, uint64_t mask);

/* The earliest end of a hold's bound, GS_TIME_INF if none. */
gs_time gs_eng_rhold_next(const struct gs_engine *eng);

/* GPUs of `node` held for restarts (engine_check.c). */
uint64_t gs_eng_rhold_mask(const struct gs_engine *eng, int node);

/* Check the holds: each for a pending job marked rheld, and every job
 * marked rheld has one.  0 or GS_ESTATE with `err` naming the job. */
int gs_eng_rhold_check(const struct gs_engine *eng, struct gs_error *err);

/* Make room in the team tables for string id `team` and set its quota from
 * the policy (hooks.team_quota).  Returns 0 or GS_ENOMEM. */
int gs_eng_grow_teams(struct gs_engine *eng, int team);

/* Check that `now` does not go backwards and make it the engine's time.
 * Returns 0 or GS_EINVAL. */
int gs_eng_check_time(struct gs_engine *eng, gs_time now, struct gs_error *err);

/* Whether slot `job` is free (its job was retired, gs_engine_retire). */
static inline int gs_eng_slot_free(const struct gs_engine *eng, int job)
{
    return eng->jobs[job].handle < 0;
}

/* The slot of the live job with handle `handle`, or GS_ENOENT (never
 * given, or retired).  O(1): the slot itself while the job sits where its
 * handle points, else the `moved` map. */
#define GS_PROBE_HANDLE INT32_MAX /* never given: gs_eng_add_job stops below it */

static inline int gs_eng_slot(const struct gs_engine *eng, int handle)
{
    if (handle >= 0 && (size_t)handle < eng->njobs && eng->jobs[handle].handle == handle)
        return handle;
    if (handle == GS_PROBE_HANDLE)
        return eng->probe_slot >= 0 ? eng->probe_slot : GS_ENOENT;
    return gs_intmap_get(eng->moved, handle);
}

/* The public handle of the job in slot `job`. */
static inline int gs_eng_handle(const struct gs_engine *eng, int job)
{
    return eng->jobs[job].handle;
}

/* gs_eng_slot with a message: "no job with handle H" (GS_ENOENT). */
int gs_eng_find(const struct gs_engine *eng, int handle, struct gs_error *err);

/* The job queued at pending[i], or -1 when that entry is dead (the job left
 * the queue, or came back and has a newer entry). */
static inline int gs_eng_queued(const struct gs_engine *eng, size_t i)
{
    int job = eng->pending[i];
    const struct job *j = &eng->jobs[job];
    return j->state == GS_JOB_PENDING && j->qpos == i ? job : -1;
}

/* Append `job` to the queue array (room must have been made).  It is new
 * to the queue (GS_HOOK_QUEUED): no pass of the current cycle has tried it
 * (queue_slots.c). */
static inline void gs_eng_queue_append(struct gs_engine *eng, int job)
{
    eng->jobs[job].qpos = (uint32_t)eng->ptail;
    eng->jobs[job].qstamp = ++eng->qstamps;
    gs_eng_hooks_run(eng, GS_HOOK_QUEUED, job, eng->now);
    eng->pending[eng->ptail++] = job;
}

/* Emit `ev` (its `job` a slot) to the observer, if any, with the job's
 * handle in its place. */
void gs_eng_emit(struct gs_engine *eng, const struct gs_event *ev);

/* Placement request for `job`. */
void gs_eng_request(const struct gs_engine *eng, int job, struct gs_request *req);

/* The record of a job with `s` submitted now, for a probe
 * (gs_engine_probe): its request and partition, its team interned (for
 * its quota), user and name the defaults; and room for it in
 * eng->jobs[eng->njobs], a slot no job uses.  0 or GS_ENOMEM. */
int gs_eng_probe_fill(struct gs_engine *eng, const struct gs_job_spec *s, struct job *j);

/* Why a job with `spec` can never run (gs_engine_possible said so): fills
 * `err` (GS_EINVAL) with "FIELD: reason", the request field to blame
 * first.  `req` is its request (partition applied), NULL when no
 * partition admits its class; `part` its partition index + 1, 0 = none.
 * (door.c) */
void gs_eng_refusal(const struct gs_engine *eng, const struct gs_job_spec *spec,
                    const struct gs_request *req, int part, struct gs_error *err);

/* Current estimate of the job's run time, or GS_TIME_NONE. */
gs_time gs_eng_estimate(const struct gs_engine *eng, int job);

/* Try to start `job` now, on GPUs free in `view` (NULL = live state).
 * The placement is written to `a`, caller storage with room for one part
 * per node (it holds the GPUs the job got when 0 is returned).
 * Returns 0 when started, GS_ENOSPC when it does not fit, GS_ENOMEM. */
int gs_eng_try_start(struct gs_engine *eng, int job, gs_time now, const uint64_t *view,
                     int backfilled, struct gs_alloc *a);

/* Validate a job spec submitted at `now`; the message names the field.
 * Returns 0 or GS_EINVAL. */
int gs_eng_check_spec(const struct gs_job_spec *s, gs_time now, struct gs_error *err);

/* Whether job record `j` (in eng->jobs or not, its partition assigned)
 * could ever be placed: on an empty cluster, its partition's nodes, the hot
 * spares included.  Memoised for the plain whole-GPU shapes. */
int gs_eng_job_possible(struct gs_engine *eng, const struct job *j);

/* Add a pending job record (not yet queued) in a free slot or a new one,
 * with the next handle; returns its slot, or GS_EEXIST / GS_ENOMEM (then
 * nothing changed). */
int gs_eng_add_job(struct gs_engine *eng, const struct gs_job_spec *s, struct gs_error *err);

/* Retired jobs left `parts_dead` parts in eng->parts: once they are half
 * of the pool (and of the slots, which the rebuild scans), rebuild it from
 * the last runs of the jobs still held, so the pool follows the live jobs.
 * Called by gs_engine_retire only (nothing holds a pointer into the pool
 * across a public call).  On allocation failure the pool stays as it is. */
void gs_eng_compact_parts(struct gs_engine *eng);

/* Make room in the job table for `n` slots, and in every per-slot table
 * of the policies (hooks.grow) for as many as the job table holds.
 * Returns 0 or GS_ENOMEM (the tables that grew stay grown). */
int gs_eng_jobs_reserve(struct gs_engine *eng, size_t n);

/* Grow the job-run pools so one more job with `nparts` parts can start
 * without allocating.  Returns 0 or GS_ENOMEM. */
int gs_eng_reserve_pools(struct gs_engine *eng, int nparts);

/* Make `job` running on `a` (already taken from the cluster) at `now`:
 * records the GPUs, estimate, expected end and runtime-cap deadline.  With
 * `lat` > 0 (the driver's start latency) it really starts at now + lat:
 * that is its start, and it does no work before. */
void gs_eng_mark_running(struct gs_engine *eng, int job, gs_time now, gs_time lat,
                         const struct gs_alloc *a);

/* Take a running job off its GPUs and out of the running set, ending in
 * `state` at `now`. */
void gs_eng_stop_running(struct gs_engine *eng, int job, gs_time now, int state);

/* --- lifecycle.c: pending -> starting -> running -> stopping -> done --- */

/* Tell running (or starting) `job` to stop at `now`, to become `target`
 * (GS_JOB_PENDING = requeued under the progress model, GS_JOB_KILLED,
 * GS_JOB_CANCELLED), reporting `ev_kind` (GS_EV_PREEMPT, GS_EV_KILL,
 * GS_EV_CANCEL).  Off live mode the stop takes effect at once; in live
 * mode the job becomes STOPPING and keeps its GPUs until gs_engine_exited.
 * A requeue needs room for one more pending entry (gs_eng_drain_requeue_reserve)
 * off live mode.  Returns 0 or GS_ENOMEM (live confirmation only). */
int gs_eng_stop_job(struct gs_engine *eng, int job, gs_time now, int target, int ev_kind);

/* A just-started job (gs_eng_start_placed) enters STARTING in live mode. */
void gs_eng_lifecycle_started(struct gs_engine *eng, int job);

/* Whether new preemptions may be planned now: not in live mode while
 * victims of earlier ones are still stopping (their GPUs are not free). */
int gs_eng_may_preempt(const struct gs_engine *eng);

/* A run of `job` failed at `now` (`why`: 0 node failure, 1 launch failure):
 * its GPUs are released and it is requeued ahead of its peers, or FAILED
 * when the retry policy says so; reports GS_EV_FAIL.  Returns 0 or
 * GS_ENOMEM. */
int gs_eng_fail_run(struct gs_engine *eng, int job, gs_time now, int why);

/* --- nodes.c: node and GPU states --- */

/* After GPUs of `a` were released: take those on drained or down nodes
 * out of service again.  No-op when every node is up. */
void gs_eng_nodes_released(struct gs_engine *eng, const struct gs_alloc *a);

/* GPUs of `node` taken out of service (drained or down, and idle). */
uint64_t gs_eng_nodes_out(const struct gs_engine *eng, int node);

/* Free the node-state tables (NULL-safe). */
void gs_eng_nodes_destroy(struct gs_eng_nodes *nd);

/* The job's current allocation (parts borrowed from the engine). */
void gs_eng_job_alloc(const struct gs_engine *eng, const struct job *j, struct gs_alloc *a);

/* Runtime-cap deadline for a job that has just started (GS_TIME_INF =
 * none), pushed on the deadline heap, with its enforced time limit
 * (queue.time_limit: enforce) beside it.  (caps.c) */
gs_time gs_eng_deadline(struct gs_engine *eng, int job);

/* Stop every running job whose runtime cap expired by `now` (GS_EV_KILL).
 * (caps.c) */
void gs_eng_enforce_caps(struct gs_engine *eng, gs_time now);

/* Watch a job that has just started: if it outlives its estimate, plan it
 * to end at its time limit instead.  (caps.c) */
void gs_eng_watch_overrun(struct gs_engine *eng, int job);

/* Re-plan the jobs that have outlived their estimate by `now`.  (caps.c) */
void gs_eng_plan_overruns(struct gs_engine *eng, gs_time now);

/* Earliest pending runtime-cap deadline, GS_TIME_INF if none. (caps.c) */
gs_time gs_eng_next_deadline(const struct gs_engine *eng);

/* The earliest estimated end the engine will replan at (gs_eng_plan_overruns;
 * some may be stale), GS_TIME_INF if none.  (caps.c) */
gs_time gs_eng_next_expect(const struct gs_engine *eng);

/* Speed of `job` on its current GPUs, per mille of full speed (slow-downs
 * from cross-domain placement and GPU sharing).  (rate.c) */
int gs_eng_rate(const struct gs_engine *eng, int job);

/* After GPUs of `a` changed hands at `now`, recompute the rates of the
 * running jobs that share them and report changes (GS_EV_RATE).  (rate.c) */
void gs_eng_update_rates(struct gs_engine *eng, gs_time now, const struct gs_alloc *a);

/* Progress of a running job (NULL if it is not running). */
struct gs_progress *gs_eng_progress(struct gs_engine *eng, int job);

/* Put a new job in its partition (and give a fractional job a whole GPU in
 * an exclusive one), through hooks.part_pick.  Returns 0, or GS_ENOENT when
 * partitions are set and none takes the job's class (it is rejected). */
static inline int gs_eng_part_assign(struct gs_engine *eng, int job)
{
    struct job *j = &eng->jobs[job];
    return eng->hooks.part_pick(eng, j, gs_strtab_name(eng->strs, j->queue));
}


/* Start `job` on placement `a` (from gs_place; borrowed for the call):
 * takes the GPUs, records the run and reports GS_EV_START.  Returns 0,
 * GS_ENOSPC (the GPUs are not free after all) or GS_ENOMEM. */
int gs_eng_start_placed(struct gs_engine *eng, int job, gs_time now, int backfilled,
                        const struct gs_alloc *a);

/* Mark `job` as no longer pending (started, cancelled); the queue array is
 * compacted lazily by gs_eng_compact_pending. */
void gs_eng_leave_pending(struct gs_engine *eng, int job);

/* Drop queue entries that are no longer pending: those at the front at
 * once, the others when they are a quarter of the queue (amortised O(1)
 * per departure); bumps pending_epoch when entries move. */
void gs_eng_compact_pending(struct gs_engine *eng);

#endif

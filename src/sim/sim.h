/* sim.h - the trace-driven discrete-event simulator: a thin driver of the
 * engine on a virtual clock.
 *
 * Events at one instant are applied in a fixed order - job ends, node
 * events, then submissions in trace order - before one engine step decides.  Finish
 * events live in a binary heap ordered by (time, sequence number).  The
 * simulator owns the true durations; the engine sees them only through the
 * oracle estimator when the policy asks for `oracle`.
 */
#ifndef GS_SIM_SIM_H
#define GS_SIM_SIM_H

#include "core/cluster/cluster.h"
#include "core/engine/engine.h"
#include "core/base/error.h"
#include "core/metrics/metrics.h"
#include "core/cluster/node_event.h"
#include "core/diagnose/eta.h"
#include "core/policy/policy.h"
#include "sim/failures.h"
#include "workload/trace.h"

/* One row of the timeline: the cluster after the step at `time`. */
struct gs_sim_tick {
    gs_time time;
    const struct gs_cluster_stats *stats;
    int pending, running;
};

struct gs_sim_opts {
    /* Called after every step (optional). */
    void (*on_tick)(void *arg, const struct gs_sim_tick *tick);
    /* Called for every engine decision (optional), after the simulator's own
     * handling. */
    gs_observer_fn on_event;
    void *arg;
    /* Run gs_engine_check (every engine invariant, and the cluster's own
     * check) after every step (tests); a failure stops the run with
     * GS_ESTATE. */
    int check;
    /* Node events to replay (optional; sorted by time): applied at their
     * instant after the job ends and before the submissions of it. */
    const struct gs_node_events *node_events;
    /* Random node failures drawn inside the run (optional; failures.h,
     * docs/failures.md): their node events are applied after those of
     * `node_events` at the same instant, and drawn only while jobs remain
     * (submitted later, pending or running).  A failure down on a node
     * already down changes nothing; its repair's end brings the node up. */
    const struct gs_failure_model *failures;
    /* Record every job's start-time promise right after the pass at its
     * submit instant (core/diagnose/eta.h): gs_sim_result.eta.  It reads
     * the engine only, so no decision changes. */
    int eta;
};

/* What the failures of opts->failures cost (docs/failures.md). */
struct gs_sim_fail {
    int64_t events;      /* node and GPU failures (downs) applied: drawn, and
                            of the replayed node events (a down of a node or
                            GPU that was not down) */
    int64_t events_drawn; /* of those, drawn by the failure model */
    int64_t hits;        /* runs ended by a node failure */
    size_t njobs;
    gs_time *lost;       /* owned; per engine handle: work (ms) lost to node
                            failures (the engine's `lost` less preemption's) */
    int *restarts;       /* owned; per engine handle: runs ended by failures */
};

struct gs_sim_result {
    struct gs_engine *engine;     /* owned: job records for jobs.csv */
    struct gs_summary summary;    /* owned */
    int64_t steps;                /* scheduling passes run */
    int64_t events;               /* submissions + finishes + wakeups */
    struct gs_sim_fail *fail;     /* owned; NULL without opts->failures */
    struct gs_eta_rec *eta;       /* owned, opts->eta: per engine handle, NULL
                                     otherwise */
    size_t neta;                  /* entries in eta */
};

/* Replay `tr` on `cl` under `pol`.  `opts` may be NULL.  On success fills
 * `out` (free with gs_sim_result_fini) and returns 0.  Errors: the engine's
 * (GS_ENOTSUP for policies not built, GS_EINVAL for bad jobs - the message
 * names the job), GS_EINVAL when a job has no duration, GS_ENOMEM. */
int gs_sim_run(const struct gs_cluster *cl, const struct gs_policy *pol,
               const struct gs_trace *tr, const struct gs_sim_opts *opts,
               struct gs_sim_result *out, struct gs_error *err);

/* Free what `r` owns; NULL is a no-op. */
void gs_sim_result_fini(struct gs_sim_result *r);

#endif

/* snapshot_run.h - what the scheduler would do with a cluster snapshot:
 * its busy GPUs become running jobs of unknown end, its queue is submitted
 * at the snapshot time, and one scheduling pass runs.  `gpusched frag
 * --state` then explains every queued job that did not start
 * (gs_engine_explain).
 */
#ifndef GS_SIM_SNAPSHOT_RUN_H
#define GS_SIM_SNAPSHOT_RUN_H

#include "core/cluster/cluster.h"
#include "core/engine/engine.h"
#include "core/base/error.h"
#include "core/policy/policy.h"
#include "workload/trace.h"
#include "workload/running.h"

/* Build an engine on `idle` (the sealed cluster with nothing allocated)
 * that holds, as running jobs "busy:NODE:GPU" of team "(busy)" with no
 * duration estimate, every GPU in use in `busy` (the same cluster with the
 * snapshot's allocations, one job per GPU with its share and memory), then
 * submit the jobs of `queue` (submit <= now, in submit order) at `now` and
 * run one pass.  *first_queued receives the handle of the first queue job
 * (queue job i has handle *first_queued + i in submit order; see
 * gs_trace_order).  Returns the engine (destroy with gs_engine_destroy) or
 * NULL with `err` set: the engine's errors (a bad job names the job),
 * GS_ENOMEM. */


/* As gs_snapshot_run, but the engine first holds `run`'s jobs (their own
 * ids, teams and ends) as running jobs; busy GPUs of `busy` that no
 * running job holds become "busy:NODE:GPU" jobs as before, or
 * "drain:NODE:GPU" / "down:NODE:GPU" of team "(drain)" / "(down)" on a
 * node that is not up, all with no end.  `run` may be NULL. */
struct gs_engine *gs_snapshot_run_jobs(const struct gs_cluster *idle,
                                       const struct gs_cluster *busy,
                                       const struct gs_policy *pol,
                                       const struct gs_trace *queue, gs_time now,
                                       const struct gs_snapshot_jobs *run, int *first_queued,
                                       struct gs_error *err);

struct gs_engine *gs_snapshot_run(const struct gs_cluster *idle, const struct gs_cluster *busy,
                                  const struct gs_policy *pol, const struct gs_trace *queue,
                                  gs_time now, int *first_queued, struct gs_error *err);

#endif

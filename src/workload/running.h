/* running.h - the running jobs and node states of a cluster snapshot, as
 * plain borrowed arrays: what a snapshot reader (io/snapshot_json.c) fills
 * and what the snapshot pass (sim/snapshot_run.h) and the dashboard read.
 */
#ifndef GS_WORKLOAD_RUNNING_H
#define GS_WORKLOAD_RUNNING_H

#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/base/types.h"
#include "workload/trace.h"

/* Running jobs and node states of a snapshot, for gs_snapshot_run_jobs.
 * Running job i has spec gs_trace_job(jobs, i) (its time_limit, 0 = none,
 * becomes the duration estimate, so it ends at start + time_limit), start
 * start[i] and the GPUs allocs[i] (whole GPUs).  node_state has one entry
 * per node (enum gs_node_state) or is NULL when every node is up.  All
 * borrowed. */
struct gs_snapshot_jobs {
    const struct gs_trace *jobs;
    const gs_time *start;
    const struct gs_alloc *allocs;
    const uint8_t *node_state;
};

#endif

/* snapshot_running.h - the "running" and "nodes" keys of a cluster
 * snapshot (docs/formats.md), for io/snapshot_json.c:
 *
 *   "running": [ { "id": "17", "placement": "node-1:0-5 node-2:0,1",
 *                  "start": 1796122517, "time_limit": 3600, "team": "a", ... } ],
 *   "nodes": { "node-2": "drain", "node-5": "down" }
 *
 * A running job's GPUs are taken whole on the cluster; its other keys are
 * the trace columns (gpus, if given, must equal the placement's count).
 * GPUs of a drained or down node that nothing runs on are taken too, so
 * they are never counted free.
 */
#ifndef GS_IO_SNAPSHOT_RUNNING_H
#define GS_IO_SNAPSHOT_RUNNING_H

#include <jansson.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "io/snapshot_json.h"

/* Read `arr` (NULL = no running jobs) into out->running, run_start and
 * run_alloc and take their GPUs on `cl`.  Errors (GS_EINVAL, GS_ENOMEM)
 * name the file `name` and the JSON path ("running[2].placement: ..."). */
int gs_snapshot_read_running(const char *name, struct gs_cluster *cl, const json_t *arr,
                             struct gs_snapshot *out, struct gs_error *err);

/* Read `nodes` (NULL = every node up) into out->node_state ("up", "drain"
 * or "down" per node name) and take every idle GPU of a node that is not
 * up. */
int gs_snapshot_read_nodes(const char *name, struct gs_cluster *cl, const json_t *nodes,
                           struct gs_snapshot *out, struct gs_error *err);

/* Free the running jobs and node states of `s`. */
void gs_snapshot_running_fini(struct gs_snapshot *s);

#endif

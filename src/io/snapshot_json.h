/* snapshot_json.h - read a cluster snapshot for `gpusched frag`
 * (DESIGN.md section 3):
 *
 *   { "time": 0,
 *     "busy": { "node-1": [0, 1, 2], "node-4": [{"gpu": 3, "share": 0.5, "mem_gb": 40}] },
 *     "queue": [ { "id": "big", "gpus": 8, "team": "a" } ] }
 *
 * and, for a snapshot of a live cluster (docs/formats.md):
 *
 *     "running": [ { "id": "17", "placement": "node-1:0-5", "start": 1796122517,
 *                    "time_limit": 3600, "team": "a" } ],
 *     "nodes": { "node-2": "drain", "node-5": "down" }
 *
 * Busy GPUs are allocated on the given cluster.  Queue entries use the trace
 * columns as keys (numbers or strings).  Errors name the file and the JSON
 * path ("s.json: busy.node-9: no such node in the cluster").
 */
#ifndef GS_IO_SNAPSHOT_JSON_H
#define GS_IO_SNAPSHOT_JSON_H

#include <stddef.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "core/base/types.h"
#include "workload/running.h"
#include "workload/trace.h"

struct gs_snapshot {
    gs_time time;
    struct gs_trace *queue;   /* owned; empty when the snapshot has none */
    /* "running" and "nodes" (io/snapshot_running.c) */
    struct gs_trace *running; /* owned; NULL when the snapshot has none */
    gs_time *run_start;       /* owned; start of running job i */
    struct gs_alloc *run_alloc; /* owned (parts too); GPUs of running job i */
    uint8_t *node_state;      /* owned; per node (enum gs_node_state), NULL = all up */
};

/* Parse JSON text and mark its busy GPUs on `cl` (sealed, all idle).  On
 * success fills `out` (free with gs_snapshot_fini) and returns 0; on error
 * returns a negative code with `err` set and leaves nothing to free (the
 * cluster may be partly marked and should be discarded). */
int gs_snapshot_parse_json(const char *text, size_t len, const char *name,
                           struct gs_cluster *cl, struct gs_snapshot *out,
                           struct gs_error *err);

/* Read and parse the file at `path` (GS_EIO if it cannot be read). */
int gs_snapshot_load_json(const char *path, struct gs_cluster *cl, struct gs_snapshot *out,
                          struct gs_error *err);

/* The running jobs and node states of `s` as gs_snapshot_run_jobs takes
 * them (borrowed from `s`). */
void gs_snapshot_jobs_view(const struct gs_snapshot *s, struct gs_snapshot_jobs *out);

/* Free what `s` owns; NULL is a no-op. */
void gs_snapshot_fini(struct gs_snapshot *s);

#endif

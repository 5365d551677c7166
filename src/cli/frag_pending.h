/* frag_pending.h - `gpusched frag --state`: why each queued job of the
 * snapshot waits (issue 6), for cmd_frag.c. */
#ifndef GS_CLI_FRAG_PENDING_H
#define GS_CLI_FRAG_PENDING_H

#include <jansson.h>

#include "core/cluster/cluster.h"
#include "io/snapshot_json.h"

/* Run one scheduling pass over the snapshot (sim/snapshot_run.h) under the
 * policy at `policy_path` (NULL = defaults) and report every queued job:
 * with `out` set, as its "pending" array; else as text on stdout.  `idle`
 * is the sealed cluster before the snapshot was applied, `busy` after.
 * Returns 0, or 1 after printing an error. */
int frag_pending(const char *policy_path, const struct gs_cluster *idle,
                 const struct gs_cluster *busy, const struct gs_snapshot *snap, json_t *out);

#endif

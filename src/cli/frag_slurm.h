/* frag_slurm.h - `gpusched frag --from-slurm` and `why --from-slurm`: read
 * a live Slurm cluster in two batched calls (`squeue --json`, `sinfo
 * --json`; the clients find the cluster through SLURM_CONF or their
 * built-in default, exactly as for an operator's own shell) and turn it
 * into the cluster and snapshot that `frag` works on (io/slurm_state.h).
 */
#ifndef GS_CLI_FRAG_SLURM_H
#define GS_CLI_FRAG_SLURM_H

#include <jansson.h>

#include "core/cluster/cluster.h"
#include "io/slurm_state.h"
#include "io/snapshot_json.h"

struct frag_slurm {
    const char *cmd;            /* "frag": error prefix */
    const char *save_snapshot;  /* write the snapshot JSON here, or NULL */
    const char *save_cluster;   /* write the cluster YAML here, or NULL */
    struct gs_slurm_state st;   /* what Slurm said (owned) */
    double read_ms;             /* wall time of the two Slurm calls */
};

/* Read Slurm and return the cluster (sealed, default k; caller destroys):
 * the cluster file at `cluster_path` when given (its node names must match
 * Slurm's), else one built from Slurm's node list.  Writes
 * fs->save_cluster when set.  Prints the error and returns NULL on
 * failure.  Release fs with frag_slurm_fini either way. */
struct gs_cluster *frag_slurm_cluster(struct frag_slurm *fs, const char *cluster_path);

/* Apply Slurm's running jobs, node states and queue to `cl` as a saved
 * snapshot would (writing it to fs->save_snapshot first).  Returns 0, or
 * a negative code with `err` set. */
int frag_slurm_snapshot(struct frag_slurm *fs, struct gs_cluster *cl, struct gs_snapshot *snap,
                        struct gs_error *err);

/* Add each node's Slurm state ("up", "drain", "down") and reason to the
 * "nodes" array of a frag JSON object, "unavailable" (names of nodes not
 * up) and "slurm" (jobs read, read_ms) at its top, and Slurm's own reason
 * ("slurm_reason") to each "pending" entry. */
void frag_slurm_json(const struct frag_slurm *fs, json_t *frag);

/* Print the nodes that are not up ("node-2 drain: reason") after the
 * text report; nothing when all are up. */
void frag_slurm_print(const struct frag_slurm *fs);

/* Slurm's own reason for pending job `id` ("Resources"), or NULL. */
const char *frag_slurm_reason(const struct frag_slurm *fs, const char *id);

void frag_slurm_fini(struct frag_slurm *fs);

#endif

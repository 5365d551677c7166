/* slurm_state.h - a live Slurm cluster as a gpusched snapshot: turns the
 * JSON of one `squeue --json` and one `sinfo --json` call (Slurm 22.05,
 * OpenAPI v0.0.38 field names; later versions' {"set", "number"} objects
 * are read too) into the snapshot document of docs/formats.md, so that
 * `frag --from-slurm` and a saved snapshot go through the same reader.
 *
 *   nodes      sinfo: name, GRES (GPU count), state; "down"/"fail"/
 *              "unknown"/"future" (or NOT_RESPONDING) = down, a DRAIN flag
 *              or "drain*" state = drain
 *   running    squeue RUNNING/COMPLETING/SUSPENDED jobs with GPUs: the
 *              indices from gres_detail (one entry per node of the node
 *              list), start_time, time_limit (minutes), account as team
 *   queue      squeue PENDING jobs: GPUs from tres_per_node x node_count,
 *              tres_per_job or tres_per_task x tasks; submit_time,
 *              time_limit, priority, account, user, name, partition (as
 *              "queue"), Slurm's own state_reason (as "slurm_reason")
 */
#ifndef GS_IO_SLURM_STATE_H
#define GS_IO_SLURM_STATE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"

struct gs_slurm_state {
    json_t *snapshot;   /* the snapshot document (owned) */
    json_t *nodes;      /* [{name, gpus, gpu_type, state, reason}] in sinfo order (owned) */
    int jobs_running, jobs_pending, jobs_other;
};

/* Parse the two JSON texts (`squeue`, `sinfo`, lengths given) taken at
 * UNIX time `now` (seconds) into `out` (free with gs_slurm_state_fini).
 * Returns 0, or GS_EINVAL naming the command and the field ("squeue:
 * jobs[3].gres_detail: 'gpu:x' is not ..."), GS_EIO when the command
 * reported errors in its JSON (controller unreachable), GS_ENOMEM. */
int gs_slurm_state_parse(const char *squeue, size_t squeue_len, const char *sinfo,
                         size_t sinfo_len, int64_t now, struct gs_slurm_state *out,
                         struct gs_error *err);

/* Whether one command's output (`what` = "squeue" or "sinfo", for the
 * message) is a JSON object without errors.  Returns 0, or GS_EINVAL /
 * GS_EIO with `err` (required) set as gs_slurm_state_parse would. */
int gs_slurm_check(const char *what, const char *text, size_t len, struct gs_error *err);

/* A cluster of Slurm's nodes (one NVLink domain per node, GPU type from a
 * typed GRES such as gpu:a100:8, else "gpu"; 80 GB per GPU is assumed:
 * Slurm does not say), sealed with k = `k` (0 = largest domain).  NULL
 * with `err` set on failure. */
struct gs_cluster *gs_slurm_state_cluster(const struct gs_slurm_state *st, int k,
                                          struct gs_error *err);

/* The cluster as a cluster YAML (for --save-cluster). */
void gs_slurm_state_write_cluster(FILE *f, const struct gs_slurm_state *st);

/* Free what `st` owns; NULL is a no-op. */
void gs_slurm_state_fini(struct gs_slurm_state *st);

#endif

/* backend_slurm.h - the slurm backend's helpers (backend_slurm_cmd.c:
 * running Slurm's clients and reading their output; backend_slurm_gpus.c:
 * placements and GPU indices), shared with backend_slurm.c.  The backend itself is the ops table
 * gsd_backend_slurm (backend.h); docs/slurm-backend.md describes it.
 */
#ifndef GS_DAEMON_BACKEND_SLURM_H
#define GS_DAEMON_BACKEND_SLURM_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/types.h"
#include "core/cluster/cluster.h"

struct gsd_bctx;

/* Most nodes one placement names. */
#define MAX_PARTS 256

/* Run argv[0] (found in PATH) with argv, no shell, and wait.  0 with *out
 * = its stdout (malloc'ed, caller frees) when it exits 0; otherwise a
 * negative GS_E* with err naming the command and quoting its stderr. */
int gsd_slurm_run(char *const argv[], char **out, struct gs_error *err);

/* Copy the value of " KEY=" in an `scontrol -o` line into buf (up to the
 * next space): 0, or GS_ENOENT with buf = "". */
int gsd_slurm_field(const char *line, const char *key, char *buf, size_t n);

/* Call fn(arg, name) for each host of a Slurm host list ("n-[1-3,05],x").
 * 0, or -1 when the list is malformed or fn returns < 0. */
int gsd_slurm_hostlist(const char *list, int (*fn)(void *, const char *), void *arg);

/* Slurm's "A:B" exit code as a shell would see it: B > 0 -> 128 + B, else
 * A; -1 when unreadable. */
int gsd_slurm_exit_code(const char *text);

/* Slurm's local time "2026-12-01T11:45:26" as UNIX ms (now when unreadable). */
int64_t gsd_slurm_time_ms(const char *t);

/* What accounting (sacct, with slurmdbd) knows of ended Slurm job `id`: 0
 * with *code (as gsd_slurm_exit_code), *end_ms and *ran (it was given
 * nodes), or a negative GS_E* with err saying why not (accounting disabled,
 * no record, not ended). */
int gsd_slurm_sacct_end(long long id, int *code, int64_t *end_ms, int *ran,
                        struct gs_error *err);

/* From the placement parts[n] (node ids of cl, as gsd_bcalls.placement
 * gives them): Slurm's NodeList "n1,n2" into nodes and the per-node GRES
 * into gres ("gpu:g0:1,gpu:g3:1" with per-GPU types, else "gpu:2"),
 * *nnodes; 0, or -1 when Slurm cannot express it (nodes with different GPU
 * sets: GRES is per node; no GPUs) or a buffer is too small. */
int gsd_slurm_placement_args(const struct gs_cluster *cl, const struct gs_alloc_part *parts,
                             int n, int types, char *nodes, size_t nn, char *gres, size_t ng,
                             int *nnodes);

/* The placement Slurm gave, from an `scontrol -d -o show job` line, in
 * the decided placement's node order ("n:g,..."; "" when it shows none). */
void gsd_slurm_actual_placement(const char *line, const char *decided, char *buf, size_t n);

/* Inside the turn: hand every job's bk.actual (GPUs Slurm gave that differ
 * from the decision) to the engine (gs_engine_move_gpus), all in one call
 * so that swaps move, else job by job; a followed job's placement becomes
 * bk.actual (logged, journal event gpus_moved).  A job whose new GPUs
 * another job still holds waits for that job's own report. */
void gsd_slurm_follow(struct gsd_bctx *c, gs_time now);

#endif

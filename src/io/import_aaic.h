/* import_aaic.h - convert the AIST AI Cloud (AAIC) GPU batch-queue log
 * (aistairc/aaic-workload-old, shared/traces/aaic/) into a native trace.
 *
 * Input: CSV with the header
 *   id, user, group, queue, nodes, gpus, walltime_req, termcode,
 *   time_submit, time_start, time_end, waittime, walltime
 * (any order; values space-padded after commas; all integers, UNIX seconds
 * for the times, |value| <= 9e12 - the native trace's largest time, so
 * every import can be written and read back).  `gpus` is GPUs per node.
 *
 * Conversion, in this order:
 *   1. Exact duplicate records - rows whose fields other than `id` are all
 *      identical - are dropped; the first one in file order is kept.
 *   2. Rows that cannot be replayed are dropped and counted by reason
 *      (enum gs_aaic_drop).
 *   3. Each kept row becomes a job:
 *        id         = the row's id ("ID-2", "ID-3", ... for later rows that
 *                     repeat an id, in file order)
 *        submit     = time_submit - min(time_submit), seconds
 *        duration   = walltime (time_end - time_start when walltime is
 *                     missing or negative)
 *        gpus       = nodes * gpus; a multi-node job (nodes > 1) takes
 *                     whole 8-GPU nodes, so gpus = nodes * 8, and keeps
 *                     topology auto, under which the engine gives whole
 *                     nodes to jobs larger than a node
 *        time_limit = walltime_req (none when missing or <= 0)
 *        team "g<group>", user "u<user>", queue "<queue>", name "-" (AAIC
 *        logs no job name)
 *      Jobs are ordered by (time_submit, id, line).
 *   4. The observed wait (waittime; time_start - time_submit when it is
 *      missing) is kept per job and summarised with numpy's linear
 *      percentiles.
 */
#ifndef GS_IO_IMPORT_AAIC_H
#define GS_IO_IMPORT_AAIC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/error.h"
#include "core/base/stats.h"
#include "core/base/types.h"
#include "workload/trace.h"

/* GPUs per AAIC node (traces/README.md: every batch node has 8). */
#define GS_AAIC_NODE_GPUS 8

/* More nodes than any row can sensibly ask for (AAIC has 50); such rows
 * are dropped as GS_AAIC_DROP_WIDE. */
#define GS_AAIC_MAX_NODES 65536

/* Why a row was dropped. */
enum gs_aaic_drop {
    GS_AAIC_DROP_SUBMIT,    /* time_submit missing or negative */
    GS_AAIC_DROP_DURATION,  /* no walltime and no usable time_end - time_start */
    GS_AAIC_DROP_GPUS,      /* nodes or gpus missing or <= 0 */
    GS_AAIC_DROP_WIDE,      /* gpus > 8 per node or nodes > GS_AAIC_MAX_NODES */
    GS_AAIC_DROP_COUNT
};

/* Number of termcodes the log defines (0 ok, 1 fail, 2 walltime exceeded,
 * 3 user cancel, 4 system cancel); stats.termcode[GS_AAIC_TERMCODES]
 * counts anything else, missing included. */
#define GS_AAIC_TERMCODES 5

struct gs_aaic_stats {
    int64_t rows;                 /* data rows read (header and blank lines excluded) */
    int64_t duplicates;           /* exact duplicate records dropped */
    int64_t dropped[GS_AAIC_DROP_COUNT];
    int64_t jobs;                 /* jobs in the trace */
    int64_t ids_renamed;          /* ids that repeated after de-duplication */
    int64_t multi_node;           /* jobs with nodes > 1 (whole nodes) */
    int64_t multi_node_partial;   /* ... of which asked for < 8 GPUs per node */
    int64_t duration_fallback;    /* walltime missing/negative: end - start used */
    int64_t walltime_mismatch;    /* walltime kept, != time_end - time_start */
    int64_t no_limit;             /* walltime_req missing or <= 0: no time_limit */
    int64_t over_limit;           /* duration > walltime_req */
    int64_t wait_fallback;        /* waittime missing/negative: start - submit used */
    int64_t wait_mismatch;        /* waittime kept, != time_start - time_submit */
    int64_t wait_unknown;         /* no observed wait at all */
    int64_t termcode[GS_AAIC_TERMCODES + 1];
    int64_t submit_min;           /* UNIX s of the earliest submit = trace time 0 */
    int64_t span_end;             /* UNIX s of the latest end (submit + wait + duration) */
    double gpu_hours;             /* sum of nodes * gpus * duration, as logged */
    double gpu_hours_alloc;       /* the same with multi-node jobs on whole nodes */
    double req_ratio_p50;         /* median walltime_req / duration (both > 0) */
    struct gs_pctl wait;          /* observed wait, seconds */
};

/* The import: the trace plus what the simulator does not read. */
struct gs_aaic_result {
    struct gs_trace *trace;       /* owned */
    gs_time *observed_wait;       /* owned, one per job; GS_TIME_NONE = unknown */
    int *termcode;                /* owned, one per job; -1 = missing */
    int *nodes;                   /* owned, one per job: AAIC node count */
    struct gs_aaic_stats stats;
};

/* Convert the AAIC CSV text `text` (`len` bytes, need not be NUL-terminated;
 * `name` is used in messages).  On success fills `out` (release with
 * gs_aaic_result_fini) and returns 0.  Malformed input is an error that
 * names the place, e.g. "q.csv:7:40: walltime_req: '9x' is not an
 * integer" (file:line:byte column: header column; "... is out of range"
 * beyond 9e12), or "q.csv:7: row has 12 fields, the header has 13":
 * GS_EINVAL.  GS_ENOMEM on allocation failure.  On failure `out` holds
 * nothing to free. */
int gs_aaic_parse(const char *text, size_t len, const char *name,
                  struct gs_aaic_result *out, struct gs_error *err);

/* Read the file at `path` (gzip when it ends in .gz, "-" = stdin) and
 * convert it as gs_aaic_parse does.  GS_EIO when it cannot be read. */
int gs_aaic_load(const char *path, struct gs_aaic_result *out, struct gs_error *err);

/* gs_aaic_load that reports the bytes read and the records parsed through
 * `prog` (io/ioutil.h; may be NULL). */
struct gs_io_progress;
int gs_aaic_load_progress(const char *path, struct gs_io_progress *prog,
                          struct gs_aaic_result *out, struct gs_error *err);

/* Free what `r` owns; NULL is a no-op.  `r` is left empty. */
void gs_aaic_result_fini(struct gs_aaic_result *r);

/* Write the trace as native CSV: id, submit, duration, gpus, team, user,
 * name, queue, time_limit, then three columns the trace reader ignores:
 * nodes (AAIC node count), termcode and observed_wait (seconds, empty when
 * unknown).  Returns 0 or GS_EIO. */
int gs_aaic_write_csv(FILE *f, const struct gs_aaic_result *r, struct gs_error *err);

/* Write a cluster YAML of `nodes` AAIC nodes (8 GPUs, one NVLink domain,
 * GPU type "aaic-gpu" of 16 GB), with a comment saying what is known and
 * what is assumed.  Returns 0, GS_EINVAL (nodes < 1) or GS_EIO. */
int gs_aaic_write_cluster_yaml(FILE *f, int nodes, struct gs_error *err);

#endif

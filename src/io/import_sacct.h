/* import_sacct.h - Slurm accounting (`sacct --json` or `sacct -P`) into a
 * native trace, so that whatif/compare can replay last month's cluster.
 *
 * Input, detected from the first non-blank byte ('{' = JSON):
 *   - `sacct --json` (Slurm 22.05 field names; {"set","number"} objects of
 *     later versions are read too): jobs[] with job_id, array, name,
 *     account, user, partition, priority, nodes, allocation_nodes,
 *     state.current, time.{submission, start, end, elapsed, limit},
 *     tres.{allocated, requested}.  Steps (nested) are ignored.
 *   - `sacct -P` / `--parsable2` with its header line, columns in any order
 *     (case-insensitive): JobID (or JobIDRaw), Submit, Start, End, Elapsed,
 *     Timelimit, AllocTRES, ReqTRES, NNodes, NodeList, Partition, Account,
 *     User, JobName, State, Priority.  JobID, Submit, Start and one of
 *     End/Elapsed and one of AllocTRES/ReqTRES are required.  Rows of steps
 *     (JobID with a '.': 12.batch, 12.0, 12.extern) are skipped.
 *
 * Conversion: rows of one JobID are the runs of one job (`sacct -D` lists
 * each run of a requeued job; a preempted run ends PREEMPTED or REQUEUED).
 * The job's submit is its earliest Submit, its duration the Elapsed of the
 * last run that started (End - Start when Elapsed is missing), its GPUs
 * that run's gres/gpu from AllocTRES (ReqTRES when nothing was allocated),
 * time_limit the Timelimit (none for UNLIMITED / Partition_Limit), team
 * the Account ("default" when empty), user, name the JobName, queue the
 * Partition.  Earlier runs are lost work: counted (runs_lost, their
 * GPU-seconds).  Submit times are shifted so the first job submits at 0.
 * Rows are dropped, counted by reason with the first place each reason
 * occurred: a job that never started, one still running (no End), an
 * exact duplicate row, a row with the wrong number of fields, a value that
 * does not parse.
 */
#ifndef GS_IO_IMPORT_SACCT_H
#define GS_IO_IMPORT_SACCT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/error.h"
#include "core/base/types.h"
#include "workload/trace.h"

enum gs_sacct_drop {
    GS_SACCT_DROP_NEVER_STARTED, /* no Start: pending, or cancelled before it ran */
    GS_SACCT_DROP_RUNNING,       /* started, no End yet */
    GS_SACCT_DROP_DUPLICATE,     /* the same JobID, Start and End as an earlier row */
    GS_SACCT_DROP_FIELDS,        /* -P row with more or fewer fields than the header */
    GS_SACCT_DROP_VALUE,         /* a field that does not parse (the message says which) */
    GS_SACCT_DROP_COUNT
};

/* Final states of the imported jobs (first word of State). */
enum gs_sacct_state {
    GS_SACCT_COMPLETED, GS_SACCT_CANCELLED, GS_SACCT_FAILED, GS_SACCT_TIMEOUT,
    GS_SACCT_PREEMPTED, GS_SACCT_NODE_FAIL, GS_SACCT_OUT_OF_MEMORY, GS_SACCT_OTHER,
    GS_SACCT_STATE_COUNT
};

struct gs_sacct_stats {
    int64_t rows;             /* data rows (JSON: top-level jobs) read */
    int64_t steps;            /* step rows skipped (-P only) */
    int64_t dropped[GS_SACCT_DROP_COUNT];
    char first_drop[GS_SACCT_DROP_COUNT][160]; /* where each reason first occurred */
    int64_t jobs;             /* jobs written */
    int64_t requeued_jobs;    /* jobs with more than one run */
    int64_t runs_lost;        /* runs before a job's last: preempted / requeued */
    double lost_gpu_s;        /* their GPU-seconds */
    int64_t no_limit;         /* Timelimit UNLIMITED, Partition_Limit or missing */
    int64_t no_account;       /* Account empty: team "default" */
    int64_t from_req_tres;    /* GPUs from ReqTRES (AllocTRES empty) */
    int64_t cpu_only;         /* jobs with 0 GPUs (kept) */
    int64_t multi_node;       /* jobs on more than one node */
    int64_t priority_clamped; /* Priority above 1e9, written as 1e9 */
    int64_t state[GS_SACCT_STATE_COUNT];
    int64_t submit_min;       /* UNIX s of the earliest submit = trace time 0 */
    double gpu_hours;         /* sum of gpus x duration of the jobs */
};

struct gs_sacct_job_extra {
    int64_t start, end;       /* of the last run, seconds since submit_min */
    int64_t first_start;      /* of the first run (observed wait = first_start - submit) */
    int nodes;                /* NNodes of the last run */
    int runs;                 /* runs (1 + requeues) */
    int state;                /* enum gs_sacct_state */
    char *nodelist;           /* owned: node names of the last run, space separated */
};

struct gs_sacct_result {
    struct gs_trace *trace;              /* owned; jobs in (submit, id) order */
    struct gs_sacct_job_extra *extra;    /* owned; one per trace job */
    struct gs_sacct_stats stats;
};

/* Convert `len` bytes of sacct output (`name` in messages).  Fills `out`
 * (release with gs_sacct_result_fini) and returns 0.  Errors that stop the
 * import: no input, JSON that does not parse or has no "jobs" list, a -P
 * header without a required column ("s.txt:1: no JobID column"):
 * GS_EINVAL; GS_ENOMEM.  On failure `out` holds nothing to free. */
int gs_sacct_parse(const char *text, size_t len, const char *name, struct gs_sacct_result *out,
                   struct gs_error *err);

/* Read the file at `path` ("-" = stdin, .gz read directly) and convert it. */
int gs_sacct_load(const char *path, struct gs_sacct_result *out, struct gs_error *err);

/* gs_sacct_load that reports the bytes read and the rows parsed through
 * `prog` (io/ioutil.h; may be NULL). */
struct gs_io_progress;
int gs_sacct_load_progress(const char *path, struct gs_io_progress *prog,
                           struct gs_sacct_result *out, struct gs_error *err);

/* Free what `r` owns; NULL is a no-op. */
void gs_sacct_result_fini(struct gs_sacct_result *r);

/* Write the native trace CSV: id, submit, duration, gpus, team, user,
 * name, queue, priority, time_limit, and columns the simulator ignores:
 * nodes, nodelist, state, runs, observed_wait, start, end (seconds since
 * the first submit).  Returns 0 or GS_EIO. */
int gs_sacct_write_csv(FILE *f, const struct gs_sacct_result *r, struct gs_error *err);

/* Write a cluster YAML of every node named in the jobs' node lists, each
 * with `gpus_per_node` GPUs in one NVLink domain (sacct does not give node
 * sizes: say so in a comment).  Returns the number of jobs that need more
 * GPUs per node than that (>= 0) or GS_EIO. */
int gs_sacct_write_cluster_yaml(FILE *f, const struct gs_sacct_result *r, int gpus_per_node,
                                struct gs_error *err);

/* The distinct node names of the jobs' node lists, sorted (strcmp): the
 * nodes of gs_sacct_write_cluster_yaml, in its order.  *names (owned by
 * the caller, free with gs_sacct_node_names_free) and *count; returns 0 or
 * GS_ENOMEM (then nothing to free). */
int gs_sacct_node_names(const struct gs_sacct_result *r, char ***names, int *count,
                        struct gs_error *err);

/* Free a list of gs_sacct_node_names; NULL is a no-op. */
void gs_sacct_node_names_free(char **names, int count);

#endif

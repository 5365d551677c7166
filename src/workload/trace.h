/* trace.h - a job trace in memory: job specs in trace order plus each job's
 * true duration, which only the simulator reads.
 *
 * The trace owns copies of every string.  Readers (io/trace_csv.c) and the
 * workload generator (sim/gen.c) fill it with gs_trace_add.
 */
#ifndef GS_WORKLOAD_TRACE_H
#define GS_WORKLOAD_TRACE_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/policy/job.h"
#include "core/base/types.h"

struct gs_trace;


/* Create an empty trace; NULL on allocation failure. */
struct gs_trace *gs_trace_create(void);

/* Free the trace and its strings; NULL is a no-op. */
void gs_trace_destroy(struct gs_trace *tr);

/* Append a job with true run time `duration` (>= 0; GS_TIME_NONE when the
 * trace has no durations).  Strings of `spec` are copied.  Duplicate ids are
 * detected by the engine, not here.  Returns the job's index or GS_ENOMEM. */
int gs_trace_add(struct gs_trace *tr, const struct gs_job_spec *spec, gs_time duration);

/* Number of jobs. */
size_t gs_trace_count(const struct gs_trace *tr);

/* Job `i` (borrowed; strings live as long as the trace). */
const struct gs_job_spec *gs_trace_job(const struct gs_trace *tr, size_t i);

/* True duration of job `i`. */
gs_time gs_trace_duration(const struct gs_trace *tr, size_t i);

/* Mutable access for importers that fix fields after adding (e.g. shifting
 * submit times to start at 0). */
struct gs_job_spec *gs_trace_job_mut(struct gs_trace *tr, size_t i);
void gs_trace_set_duration(struct gs_trace *tr, size_t i, gs_time duration);

/* The absolute time of time 0, in UNIX milliseconds: set by the CSV reader
 * when the trace's submit times were ISO-8601 (time 0 is the earliest), so
 * reports can give absolute times again.  GS_TIME_NONE (the default) when
 * the trace used relative seconds.  Node-event files with ISO times are
 * shifted by it too. */
void gs_trace_set_epoch(struct gs_trace *tr, int64_t unix_ms);
int64_t gs_trace_epoch(const struct gs_trace *tr);

/* Where the jobs came from, so errors found after parsing (in the
 * simulator, in the engine) can still say FILE:LINE: the source name
 * (copied) and each job's first line in it.  Returns 0 or GS_ENOMEM. */
int gs_trace_set_source(struct gs_trace *tr, const char *name);
int gs_trace_set_line(struct gs_trace *tr, size_t i, long line);

/* The source and line of job `i`: 1 when both are known, else 0 (*source
 * may still be set, *line is then 0). */
int gs_trace_where(const struct gs_trace *tr, size_t i, const char **source, long *line);

/* Indexes of the jobs sorted by submit time, ties in trace order (a stable
 * order).  Returns a gs_malloc'd array of gs_trace_count() entries (caller
 * frees with gs_free), or NULL on allocation failure / empty trace. */
size_t *gs_trace_order(const struct gs_trace *tr);

#endif

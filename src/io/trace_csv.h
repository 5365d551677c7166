/* trace_csv.h - read and write the native trace format (CSV with a header,
 * DESIGN.md section 3; extended columns in docs/formats.md).
 *
 * Column order is free and unknown columns are ignored.  `submit` is
 * seconds (float) or ISO-8601; ISO times are shifted so the earliest job
 * submits at 0.  Times accept plain seconds or a unit suffix (30m).  Errors
 * name the file, line and column:
 * "t.csv:12: gpus: 'x' is not a GPU count (integer >= 0)".
 * Files ending in .gz are decompressed while reading.  Column conversion is
 * shared with the snapshot reader (io/job_fields.h).
 */
#ifndef GS_IO_TRACE_CSV_H
#define GS_IO_TRACE_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "core/base/error.h"
#include "workload/trace.h"

/* Parse CSV text; `name` is used in messages.  `need_duration` makes a
 * missing duration column/value an error (the simulator needs it).  Returns
 * a trace or NULL with `err` set.  Caller destroys with gs_trace_destroy. */
struct gs_trace *gs_trace_parse_csv(const char *text, size_t len, const char *name,
                                    int need_duration, struct gs_error *err);

/* Read and parse the file at `path` (gzip if it ends in .gz). */
struct gs_trace *gs_trace_load_csv(const char *path, int need_duration,
                                   struct gs_error *err);

/* Write `tr` as CSV with a header (every column the format defines that has
 * a non-default value in some job).  Returns 0 or GS_EIO. */
int gs_trace_write_csv(FILE *f, const struct gs_trace *tr, struct gs_error *err);

#endif

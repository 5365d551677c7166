/* job_fields.h - the trace columns (DESIGN.md section 3, extensions in
 * docs/formats.md): one table that turns a (column, text) pair into a field
 * of a job spec and back.  The CSV trace reader and writer and the snapshot
 * queue reader all go through it, so the formats cannot drift apart.
 */
#ifndef GS_IO_JOB_FIELDS_H
#define GS_IO_JOB_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/policy/job.h"
#include "core/base/types.h"

/* Columns, in the order gs_trace_write_csv writes them. */
enum gs_jcol {
    GS_JCOL_ID,
    GS_JCOL_SUBMIT,
    GS_JCOL_DURATION,
    GS_JCOL_GPUS,
    GS_JCOL_GPU_SHARE,
    GS_JCOL_GPU_MEM_GB,
    GS_JCOL_MIG,
    GS_JCOL_TOPOLOGY,
    GS_JCOL_TEAM,
    GS_JCOL_USER,
    GS_JCOL_NAME,
    GS_JCOL_PRIORITY,
    GS_JCOL_CLASS,
    GS_JCOL_TIME_LIMIT,
    GS_JCOL_CKPT_INTERVAL,
    GS_JCOL_CKPT_COST,
    GS_JCOL_RESTORE_COST,
    GS_JCOL_QUEUE,
    GS_JCOL_GPU_MODEL,
    GS_JCOL_CPU,
    GS_JCOL_HOST_MEM_GB,
    GS_JCOL_MEM_BW,
    GS_JCOL_COUNT
};

/* How a row's submit time was written. */
enum gs_submit_kind { GS_SUBMIT_NONE, GS_SUBMIT_SECONDS, GS_SUBMIT_ISO };

/* One job being read: the spec, its true duration and how submit was
 * written (ISO times are UNIX milliseconds until the reader shifts them).
 * String fields point at the text handed to gs_job_row_set (borrowed). */
struct gs_job_row {
    struct gs_job_spec spec;
    gs_time duration;         /* GS_TIME_NONE = not given */
    int submit_kind;          /* enum gs_submit_kind */
};

/* Reset `r` to the trace defaults (gs_job_spec_init, no duration). */
void gs_job_row_init(struct gs_job_row *r);

/* Column index for a column name (exact, case-sensitive), or GS_ENOENT.
 * `len` bytes of `name` are compared (it need not be NUL-terminated). */
int gs_jcol_find(const char *name, size_t len);

/* Name of column `col` ("id", "gpu_share", ...). */
const char *gs_jcol_name(int col);

/* Set the field of column `col` from `text` (NUL-terminated, already
 * trimmed; borrowed by string fields until the row is used).  Empty text
 * keeps the default, except for id and submit, which must not be empty.
 * Returns 0, or GS_EINVAL with a message "COLUMN: 'TEXT' is not ..." (a string
 * column: "COLUMN: not valid UTF-8 ...") that
 * the caller prefixes with the location. */
int gs_job_row_set(struct gs_job_row *r, int col, const char *text, struct gs_error *err);

/* Checks across the fields of a complete row: a run whose checkpoints
 * (floor((duration - 1) / checkpoint_interval) of checkpoint_cost each) make
 * it longer than the largest time (9e12 s) is refused, since no end time
 * could be computed for it.  Returns 0 or GS_ERANGE "COLUMNS: ..." that the
 * caller prefixes with the location. */
int gs_job_row_check(const struct gs_job_row *r, struct gs_error *err);

/* Offset of the first byte of `text` that is not part of well-formed UTF-8
 * (RFC 3629), or -1 when it all is.  Every string that reaches a JSON
 * report must pass (jansson drops what does not). */
long gs_utf8_invalid_at(const char *text);

/* Whether column `col` holds a string (id, mig, team, user, name, queue,
 * gpu_model); gs_jcol_format copies those unquoted and unbounded writers
 * should write the spec's string directly. */
int gs_jcol_is_string(int col);

/* Whether column `col` of (spec, duration) holds the column's default
 * (what an empty cell would give). */
int gs_jcol_is_default(int col, const struct gs_job_spec *s, gs_time duration);

/* Write column `col` of (spec, duration) into `buf` as text that
 * gs_job_row_set reads back to the same value.  Defaults with no text of
 * their own (no duration, memory -1, restore_cost -1, topology auto, no
 * string) give the empty string.  String columns are copied unquoted.  Returns the length, or
 * a negative value when it does not fit in `size` bytes. */
int gs_jcol_format(int col, const struct gs_job_spec *s, gs_time duration, char *buf,
                   size_t size);

/* Parse an ISO-8601 date-time: YYYY-MM-DD, then optionally 'T' or ' ' and
 * hh:mm[:ss[.fff]], then optionally 'Z' or an offset +hh:mm / +hhmm / +hh.
 * No offset means UTC.  Fractions below a millisecond are dropped.
 * Stores UNIX milliseconds and returns 0, or GS_EINVAL. */
int gs_parse_iso8601(const char *text, int64_t *unix_ms);

/* Format UNIX milliseconds as ISO-8601 UTC: "2017-07-01T12:00:00Z", with
 * ".mmm" before the Z when the milliseconds are not 0.  Returns the length,
 * or GS_ERANGE when `size` is too small. */
int gs_format_iso8601(int64_t unix_ms, char *buf, size_t size);

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
int64_t gs_days_from_civil(int64_t y, int m, int d);

#endif

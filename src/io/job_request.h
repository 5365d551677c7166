/* job_request.h - the body of `POST /v1/jobs` (DESIGN.md section 5) as the
 * client commands build it: the trace columns as keys, each value checked by
 * the trace's own column parser (io/job_fields.h) and written in its
 * canonical form, plus `command` (argv array) and the optional `env`, `cwd`,
 * `stdout` and `stderr`.
 *
 * Canonical values: string columns (id, team, user, name, mig, queue,
 * gpu_model) and the enums (topology, class) are JSON strings; every other
 * column is a JSON number in the trace's unit (GPUs, fraction of a GPU, GB,
 * cores, and seconds for time_limit, checkpoint_interval, checkpoint_cost,
 * restore_cost, duration).  So `--time-limit 4h` becomes "time_limit": 14400.
 * Only the columns given are written; the daemon applies the defaults.
 */
#ifndef GS_IO_JOB_REQUEST_H
#define GS_IO_JOB_REQUEST_H

#include <jansson.h>

#include "core/base/error.h"
#include "core/policy/job.h"
#include "core/base/types.h"

/* Set column `col` (enum gs_jcol) of the request object `req` from the text
 * a user typed (`text`: "8", "4h", "domain", ...).  The text is checked with
 * gs_job_row_set; the value written is its canonical form (see above).
 * Returns 0, GS_EINVAL with a message "COLUMN: 'TEXT' is not ..." (empty text
 * is refused too: an option must say something), or GS_ENOMEM. */
int gs_job_request_set(json_t *req, int col, const char *text, struct gs_error *err);

/* Add every column of `spec` that differs from the trace default to `req`,
 * except submit (the daemon stamps the arrival time) and, when `duration` is
 * GS_TIME_NONE, duration.  `gpus` is always written.  Used by `gpusched
 * replay`.  Returns 0 or GS_ENOMEM / GS_EINVAL (a value that does not format). */
int gs_job_request_from_spec(json_t *req, const struct gs_job_spec *spec, gs_time duration,
                             struct gs_error *err);

/* Set `command` to the argv array argv[0 .. argc-1] (argc >= 1; GS_EINVAL
 * "command: ..." otherwise).  Returns 0, GS_EINVAL or GS_ENOMEM. */
int gs_job_request_command(json_t *req, int argc, char *const *argv, struct gs_error *err);

/* Add one `KEY=VALUE` entry to the `env` object of `req` (created on first
 * use).  GS_EINVAL "env: 'TEXT' is not KEY=VALUE" when KEY is empty, has no
 * '=' or is not a shell name ([A-Za-z_][A-Za-z0-9_]*). */
int gs_job_request_env(json_t *req, const char *assignment, struct gs_error *err);

/* The trace column that the option `name` sets ("gpus", "time-limit",
 * "checkpoint-interval", ...: the column name with '-' for '_'), or
 * GS_ENOENT.  "submit" is not an option (GS_ENOENT). */
int gs_job_request_option_col(const char *name);

/* The option name of column `col` ("time-limit" for time_limit) written
 * into `buf` of `size` bytes (>= 32 is always enough); returns buf. */
const char *gs_job_request_option_name(int col, char *buf, size_t size);

#endif

/* failures_yaml.h - read the failure model file of `sim --failures F.yaml`
 * (docs/failures.md): node_mtbf, repair, seed, distribution, shape.
 * Errors name the file, line and key.
 */
#ifndef GS_IO_FAILURES_YAML_H
#define GS_IO_FAILURES_YAML_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/cluster/failure_model.h"

/* Parse YAML text (named `name` in messages) into `out`.  Required:
 * node_mtbf (a duration > 0) and repair (a duration >= 0); optional: seed
 * (integer >= 0, default 1), distribution (exponential, the default, or
 * weibull) and shape (weibull only, required there, > 0).  Unknown keys,
 * duplicate keys and bad values are GS_EINVAL with "NAME:LINE: KEY: ...".
 * Returns 0 or a negative code; `out` is only written on success. */
int gs_failures_parse_yaml(const char *text, size_t len, const char *name,
                           struct gs_failure_model *out, struct gs_error *err);

/* Read and parse the file at `path` (GS_EIO if it cannot be read). */
int gs_failures_load_yaml(const char *path, struct gs_failure_model *out,
                          struct gs_error *err);

#endif

/* policy_yaml.h - read the policy file (YAML).  Every leaf is handed to
 * gs_policy_set() by its dotted path, so the key table in core/policy.c is
 * the one definition of what is valid.  Errors name the file, line and key;
 * sections that are recognised but not built yet fail with GS_ENOTSUP and
 * "not supported yet".  An empty document yields the defaults.
 */
#ifndef GS_IO_POLICY_YAML_H
#define GS_IO_POLICY_YAML_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/policy/policy.h"

/* Parse YAML text into `out` (initialised here with gs_policy_init).  On
 * error `out` is finalised (owns nothing).  Returns 0 or a negative code. */
int gs_policy_parse_yaml(const char *text, size_t len, const char *name,
                         struct gs_policy *out, struct gs_error *err);

/* Read and parse the file at `path` (GS_EIO if it cannot be read). */
int gs_policy_load_yaml(const char *path, struct gs_policy *out, struct gs_error *err);

#endif

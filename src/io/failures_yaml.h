/* failures_yaml.h - read the failure model file of `sim --failures F.yaml`
 * (docs/failures.md): node_mtbf, gpu_mtbf, repair, seed, distribution, shape.
 * Errors name the file, line and key.
 */
#ifndef GS_IO_FAILURES_YAML_H
#define GS_IO_FAILURES_YAML_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/cluster/cluster.h"
#include "core/cluster/failure_model.h"
#include "core/cluster/node_event.h"

/* What F.yaml holds beside the model: `node_events: PATH`, a log of real
 * node events (the CSV `gen --node-events-out` writes) replayed with the
 * random failures; `events` is the path resolved against the YAML's
 * directory ("" = none), `where` "F.yaml:LINE" of the key (messages). */
struct gs_failures_extra {
    char events[4096];
    char where[4200];
};

/* Parse YAML text (named `name` in messages) into `out`.  Required:
 * node_mtbf (a duration > 0; may be left out when gpu_mtbf is given: no
 * node failures) and repair (a duration >= 0); optional: gpu_mtbf (a
 * duration > 0: each GPU fails on its own too), seed
 * (integer >= 0, default 1), distribution (exponential, the default, or
 * weibull) and shape (weibull only, required there, > 0).  Unknown keys,
 * duplicate keys and bad values are GS_EINVAL with "NAME:LINE: KEY: ...".
 * Returns 0 or a negative code; `out` is only written on success. */
int gs_failures_parse_yaml(const char *text, size_t len, const char *name,
                           struct gs_failure_model *out, struct gs_error *err);

/* Read and parse the file at `path` (GS_EIO if it cannot be read). */
int gs_failures_load_yaml(const char *path, struct gs_failure_model *out,
                          struct gs_error *err);

/* As gs_failures_load_yaml, also reading the node_events key into `ex`
 * (cleared first).  gs_failures_load_yaml and gs_failures_parse_yaml
 * refuse that key (GS_EINVAL naming file, line and key): their callers
 * cannot replay it. */
int gs_failures_load_yaml_ex(const char *path, struct gs_failure_model *out,
                             struct gs_failures_extra *ex, struct gs_error *err);

/* Load the log `ex` names (nothing when none) against cluster `cl`
 * (`iso_origin` as gs_node_events_load) and add its events to `ne`
 * (initialised by the caller, kept sorted by time, ties in order: `ne`'s
 * first).  Errors are the log's own ("e.csv:3: node: ..."), or for a log
 * that cannot be read "F.yaml:LINE: node_events: ...". */
int gs_failures_extra_events(const struct gs_failures_extra *ex, const struct gs_cluster *cl,
                             gs_time iso_origin, struct gs_node_events *ne,
                             struct gs_error *err);

#endif

/* node_events_csv.h - read and write node-event files (docs/formats.md):
 * CSV with a header naming the columns `time,node,state` (any order,
 * optional `gpu`, unknown columns ignored).  `time` is seconds >= 0 or
 * ISO-8601 (shifted by the trace's origin, so both share one clock);
 * `node` a node name of the cluster; `state` down, drain or up; `gpu` a
 * GPU index of that node, empty for the whole node.  Events are sorted by
 * time, ties kept in file order.  Errors name file, line and column:
 * "e.csv:3: node: 'n9' is not a node of the cluster".
 */
#ifndef GS_IO_NODE_EVENTS_CSV_H
#define GS_IO_NODE_EVENTS_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "core/cluster/node_event.h"

/* Parse `len` bytes of CSV text (`name` for messages) against cluster
 * `cl` into `out` (initialised here; free with gs_node_events_fini).
 * `iso_origin`: unix ms that time 0 stands for, GS_TIME_NONE when the
 * trace uses numeric times (then ISO times are an error).  Returns 0 or
 * GS_EINVAL / GS_ENOMEM with `err` set. */
int gs_node_events_parse(const char *text, size_t len, const char *name,
                         const struct gs_cluster *cl, gs_time iso_origin,
                         struct gs_node_events *out, struct gs_error *err);

/* Read the file at `path` and parse it (GS_EIO when it cannot be read). */
int gs_node_events_load(const char *path, const struct gs_cluster *cl, gs_time iso_origin,
                        struct gs_node_events *out, struct gs_error *err);

/* Write `ev` with a header (time in seconds).  Returns 0 or GS_EIO. */
int gs_node_events_write(FILE *f, const struct gs_cluster *cl,
                         const struct gs_node_events *ev, struct gs_error *err);

#endif

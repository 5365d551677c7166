/* frag_html.h - `gpusched frag --html FILE`: the dashboard page
 * (io/dash.h) of a snapshot, with the document embedded (no daemon, no
 * polling), for cmd_frag.c. */
#ifndef GS_CLI_FRAG_HTML_H
#define GS_CLI_FRAG_HTML_H

#include "core/cluster/cluster.h"
#include "io/snapshot_json.h"

/* Run the snapshot's pass as frag_pending does (`idle` sealed and empty,
 * `busy` with the snapshot applied, policy at `policy_path` or defaults)
 * and write the page to `path`: the map of `busy`, the queue in pass order
 * with every job's reason, per-team figures, the snapshot's running jobs
 * by id and its node states.  Returns 0, or 1 after printing an error. */
int frag_html(const char *path, const char *policy_path, const struct gs_cluster *idle,
              const struct gs_cluster *busy, const struct gs_snapshot *snap);

#endif

/* placement.h - the one text form of a placement (the GPUs a start gives
 * a job, node by node): every formatter and parser of it in the daemon,
 * the Slurm backend, the snapshot reader, the reports, the dashboard and
 * the CLI goes through here.
 *
 * Grammar (docs/formats.md, "Placements"):
 *
 *   placement := "" | item { sep item }
 *   sep       := "," | " "+                  (a comma, or one or more spaces)
 *   item      := node ":" gpus | gpus        (bare gpus: more GPUs of the
 *                                             previous item's node)
 *   gpus      := index [ "-" index ]         (a range lo-hi, lo <= hi)
 *   index     := digit { digit }             (0 .. GS_MAX_NODE_GPUS - 1)
 *   node      := 1..GS_NAME_MAX-1 bytes, no "," or " "; the item's last
 *                ":" ends it, so a name may hold ":"
 *
 * The same node may appear in several items (its GPUs add up, the node
 * keeping the place of its first item); a GPU given twice is an error.
 * Every form the project writes is a sentence of this grammar, so any of
 * them parses back to the same GPUs:
 *
 *   GS_PLACEMENT_LIST    "n1:0,n1:1,n2:3"   one item per GPU, ","  (journal,
 *                                            API, GPUSCHED_PLACEMENT, Slurm)
 *   GS_PLACEMENT_WORDS   "n1:0 n1:1 n2:3"   one item per GPU, " "  (jobs.csv)
 *   GS_PLACEMENT_NODES   "n1:0,1 n2:3"      one item per node     (snapshot
 *                                            running[].placement, why, frag)
 *   GS_PLACEMENT_RANGES  "n1:0-1 n2:3"      per node, runs as lo-hi (dashboard)
 *   GS_PLACEMENT_RUNS    "n1:0-1,n2:3"      one item per run, ","  (the CLI's
 *                                            queue NODELIST column)
 *
 * A node name holding "," or " " is written as it is and cannot be read
 * back (the parse names the problem).  Pure functions, no allocation.
 */
#ifndef GS_IO_PLACEMENT_H
#define GS_IO_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/cluster/cluster.h"

enum gs_placement_style {
    GS_PLACEMENT_LIST,
    GS_PLACEMENT_WORDS,
    GS_PLACEMENT_NODES,
    GS_PLACEMENT_RANGES,
    GS_PLACEMENT_RUNS,
};

/* One node of a placement by name: `len` bytes at `name` (not
 * NUL-terminated; borrowed from the parsed text, or the caller's), its GPUs
 * and the byte offset of its first item in the text (0 when formatted). */
struct gs_placement_entry {
    const char *name;
    size_t len;
    uint64_t mask;
    size_t pos;
};

/* Read `text` (NULL reads as "") by the grammar into out[cap], one entry per
 * node in the order of first appearance, names borrowed from `text`.
 * Returns the number of nodes (0 for ""), or GS_EINVAL with `err` naming
 * the byte offset and the problem ("at byte 7: 'x' is not a GPU index"),
 * or GS_ENOSPC when the text names more than `cap` nodes. */
int gs_placement_scan(const char *text, struct gs_placement_entry *out, int cap,
                      struct gs_error *err);

/* gs_placement_scan, then each node looked up in `cl` and its GPUs checked
 * against the node's: parts[cap] gets (node id, mask) in the order of first
 * appearance.  Returns the number of parts, or GS_EINVAL ("no node 'x' in
 * the cluster (at byte 0)", "GPU 9 of node-1 (at byte 7): node-1 has GPUs
 * 0-7"), or GS_ENOSPC as gs_placement_scan. */
int gs_placement_parse(const struct gs_cluster *cl, const char *text,
                       struct gs_alloc_part *parts, int cap, struct gs_error *err);

/* Write the `n` entries in `style` to buf[size] (snprintf's contract:
 * always NUL-terminated when size > 0, truncated when short).  Returns the
 * length the whole text needs, without the NUL. */
size_t gs_placement_format_entries(char *buf, size_t size, const struct gs_placement_entry *e,
                                   int n, int style);

/* The same for parts whose nodes are named by `cl` (an engine allocation:
 * gs_alloc.parts, nparts). */
size_t gs_placement_format(char *buf, size_t size, const struct gs_cluster *cl,
                           const struct gs_alloc_part *parts, int nparts, int style);

#endif

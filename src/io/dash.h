/* dash.h - the operator dashboard (issue 16): one JSON document with what
 * the page draws (the cluster map, the queue in pass order with reasons,
 * the running jobs, per-team use against quota), and the page itself.
 *
 * Two drivers fill a gs_dash_src: `gpusched frag --html` (a snapshot; the
 * document is embedded in the page, no polling) and gpuschedd (`GET /`
 * serves the page, which polls `GET /v1/dashboard`).  docs/dashboard.md
 * describes the document's keys.
 *
 * S_k: the daemon's page sizes k by what waits (the largest GPU count
 * among the pending jobs; `k=N` in the poll chooses another).
 *
 * Map cells, one character per GPU in the node's "cells" string:
 *   f free, p partly used (a shared GPU with room left), b busy,
 *   h held (a stopping job still holds it), d down, n free on a draining node.
 * A node's "jobs" array gives, per GPU, an index into the document's "jobs"
 * table, -1 for none and -2 for busy without a job id (a snapshot's busy
 * list names GPUs, not jobs).
 */
#ifndef GS_IO_DASH_H
#define GS_IO_DASH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cluster/cluster.h"
#include "core/engine/engine.h"
#include "core/base/error.h"

/* Node states as the map shows them. */
enum gs_dash_node { GS_DASH_UP, GS_DASH_DRAIN, GS_DASH_DOWN };

/* Limits on the lists in one document (a page of the queue is explained
 * job by job; the rest of the queue is counted by reason only). */
#define GS_DASH_PAGE_DEFAULT 50
#define GS_DASH_PAGE_MAX 20000

struct gs_dash_src {
    const char *source;             /* "snapshot" or "daemon" */
    const struct gs_cluster *cl;    /* the allocation state the map draws */
    struct gs_engine *eng;          /* jobs; NULL = map only */
    int jobs_before;                /* map and running list use handles < this only
                                       (-1 = all); a snapshot's own pass starts later
                                       handles, which belong to the queue */
    const unsigned char *node_state;/* per node enum gs_dash_node; NULL = all up */
    const uint64_t *gpus_down;      /* per node: GPUs out of service; NULL = none */
    char *const *node_reason;       /* per node: why it is down or quarantined (the
                                       node's "reason"), NULL entries or NULL = none */
    const int *queue;               /* job handles in pass order (borrowed) */
    int nqueue;
    int q_offset, q_limit;          /* the page of the queue given job by job */
    int r_offset, r_limit;          /* the page of the running list */
    json_t *charts;                 /* optional object of SVG strings (borrowed) */
    int k;                          /* S_k's job size: > 0 as chosen; 0 = the cluster's
                                       (largest NVLink domain or metrics.k), or with
                                       k_from_queue the largest GPU count among the
                                       queue's pending jobs when there are any */
    int k_from_queue;
};

/* S_k and the count/topology fragmentation of the cluster's live state for
 * a job size k >= 1 (the same rule as gs_cluster_stats, which has them
 * for the cluster's own k only). */
struct gs_dash_kstats {
    int k;
    int64_t sched, frag_count, frag_topology;
};
void gs_dash_kstats(const struct gs_cluster *cl, int k, struct gs_dash_kstats *out);

/* The k of src's document (see gs_dash_src.k), at least 1. */
int gs_dash_pick_k(const struct gs_dash_src *src);

/* The dashboard document of `src` (new reference), or NULL with `err` set
 * (GS_ENOMEM).  Explaining the queue page runs gs_engine_explain, which is
 * why the engine is not const; nothing observable about the engine changes. */
json_t *gs_dash_json(const struct gs_dash_src *src, struct gs_error *err);

/* The pending jobs among `jobs` (n handles) in the engine's pass order
 * without aging: priority (larger first), then submit time, then handle
 * (docs/architecture.md, "Ordering").  Returns a gs_malloc'd array of
 * *out_n handles (free with gs_free), or NULL on allocation failure.  With
 * `all`, jobs that are not pending are kept too (a snapshot's queue). */
int *gs_dash_pass_order(const struct gs_engine *eng, const int *jobs, int n, int all, int *out_n);

/* Write the page to `f`: `doc` embedded (static page, no polling) when not
 * NULL, else a page that polls `poll_url` (relative, e.g. "v1/dashboard")
 * every `refresh_s` seconds.  Returns 0 or GS_EIO. */
int gs_dash_page_write(FILE *f, const json_t *doc, const char *poll_url, int refresh_s);

/* The page's source (src/io/dash/page.html, embedded at build time). */
extern const char gs_dash_page_html[];

#endif

/* failures.h - failures.c: the random node-failure process shared by `gen
 * --mtbf` (a file of node events made beforehand) and `sim --failures`
 * (drawn inside the run, docs/failures.md).  The draws live here, in the
 * simulator; they reach the engine only as node events
 * (gs_engine_node_set_state), so the live engine and the simulator share
 * one failure model.
 */
#ifndef GS_SIM_FAILURES_H
#define GS_SIM_FAILURES_H

#include <stdint.h>

#include "core/base/error.h"
#include "core/base/types.h"
#include "core/cluster/cluster.h"
#include "core/cluster/failure_model.h"
#include "core/cluster/node_event.h"

/* One node's (or one GPU's) stream of failures: its own generator, seeded
 * from the model's seed and the node's index (and the GPU's), so a unit's
 * failures do not depend on the others or on how far ahead they were
 * drawn. */
struct gs_fail_node {
    uint64_t s[4];       /* struct gs_rng's state (kept opaque here) */
    double next_s;       /* its next event (seconds) */
    int down;            /* 1: that event is the end of a repair */
    int node, gpu;       /* what fails: a node (gpu -1) or one of its GPUs */
};

/* The whole cluster's failure process, drawn in windows of time. */
struct gs_fail_stream {
    struct gs_failure_model m;
    struct gs_fail_node *nodes; /* owned: the node units, then the GPU units */
    int nnodes;                 /* units (nodes, then GPUs with gpu_mtbf_s) */
    gs_time drawn_to;           /* every event before this is drawn */
};

/* Check a model: GS_EINVAL with a message naming the bad field (mtbf > 0,
 * or 0 with gpu_mtbf > 0; gpu_mtbf >= 0; repair >= 0; finite; shape > 0
 * for weibull), else 0. */
int gs_failure_model_check(const struct gs_failure_model *m, struct gs_error *err);

/* Set up the process for `nnodes` nodes (node failures only: the model's
 * gpu_mtbf_s is not used).  Returns 0, GS_EINVAL (bad model, see
 * gs_failure_model_check), GS_ENOMEM.  Free with gs_fail_stream_fini. */
int gs_fail_stream_init(struct gs_fail_stream *s, const struct gs_failure_model *m, int nnodes,
                        struct gs_error *err);

/* The same for cluster `cl`: its nodes (when m->mtbf_s > 0) and, when
 * m->gpu_mtbf_s > 0, each GPU of each node (events with gpu >= 0).  The
 * node units draw exactly what gs_fail_stream_init draws. */
int gs_fail_stream_init_cluster(struct gs_fail_stream *s, const struct gs_failure_model *m,
                                const struct gs_cluster *cl, struct gs_error *err);

/* Free what `s` owns (NULL-safe). */
void gs_fail_stream_fini(struct gs_fail_stream *s);

/* Append to `out` the events (a node down, its repair's end repair_s
 * later, ...) in [s->drawn_to, until), sorted by time (ties in node order),
 * and advance drawn_to.  Successive calls with growing `until` give one
 * list in time order, the same however the time is cut.  Returns 0 or
 * GS_ENOMEM. */
int gs_fail_stream_draw(struct gs_fail_stream *s, gs_time until, struct gs_node_events *out);

/* The same, and then also the ends of the repairs under way at `until`
 * (`gen --mtbf`: a node never stays down past the horizon). */
int gs_fail_stream_close(struct gs_fail_stream *s, gs_time until, struct gs_node_events *out);

/* Time of the earliest event not drawn yet (GS_TIME_INF for no nodes). */
gs_time gs_fail_stream_next(const struct gs_fail_stream *s);

#endif

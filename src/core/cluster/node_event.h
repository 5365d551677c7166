/* node_event.h - node_event.c: a timed change of a node's (or one GPU's) state, as the
 * simulator replays them (`sim --node-events`, docs/formats.md) and `gen
 * --mtbf` writes them.  Plain data shared by io (reader, writer) and sim
 * (replay); the engine's calls are gs_engine_node_set_state and
 * gs_engine_gpu_set_state. */
#ifndef GS_CORE_NODE_EVENT_H
#define GS_CORE_NODE_EVENT_H

#include <stddef.h>

#include "core/base/types.h"

struct gs_node_event {
    gs_time time;
    int node;                /* index in the cluster */
    int gpu;                 /* -1 = the whole node */
    int state;               /* enum gs_node_state (cluster.h) */
};

/* A list of node events in time order (ties: file order). */
struct gs_node_events {
    struct gs_node_event *ev; /* owned */
    size_t n, cap;
};

/* Append one event (the caller keeps time order, or sorts after).
 * Returns 0 or GS_ENOMEM. */
int gs_node_events_append(struct gs_node_events *ev, const struct gs_node_event *e);

/* Sort by time, ties kept in their order (stable). */
void gs_node_events_sort(struct gs_node_events *ev);

/* Free what `ev` owns (NULL-safe); it is empty afterwards. */
void gs_node_events_fini(struct gs_node_events *ev);

#endif

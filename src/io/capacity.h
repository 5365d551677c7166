/* capacity.h - infer a cluster's capacity timeline from a job log.
 *
 * Any log with submit, start, end and size per job (AAIC, sacct) says how
 * many GPUs were in use at every instant, U(t).  That is a lower bound of
 * the capacity; two more observations pin it down (docs/aaic-replay.md,
 * section 3.7):
 *
 *   - Saturation.  While a small "evidence" job - one that would fit on any
 *     node with a free GPU, e.g. a 1-GPU job of a queue without its own
 *     limits - waits longer than `grace` (the driver's dispatch latency),
 *     every node in service is full, so the GPUs in use are the capacity -
 *     unless a job larger than a node waits too (its reservation may hold
 *     GPUs idle: such instants are not evidence), or only one user's jobs
 *     wait (a per-user limit holds them on a free cluster: `min_users`).
 *     Per window of `window` seconds with at least `min_saturated` seconds
 *     of such waiting, the capacity is ceil(Q / node_gpus) nodes (never
 *     below ceil(P99 of U in the window / node_gpus)), Q the
 *     time-weighted `quantile` of U over the waiting instants (a high
 *     quantile: a reservation for a wide job can hold GPUs idle while a
 *     1-GPU job waits, which makes U a little below the capacity; a few
 *     overlapping records make it briefly above).
 *   - Outage.  While jobs wait (longer than `grace`) and nothing runs at
 *     all, for at least `outage_min` seconds, the cluster was stopped:
 *     capacity 0.
 *
 * A window without saturation keeps the capacity of the last saturated
 * window (the first one's for the windows before it), raised to
 * ceil(P99 of U in the window / node_gpus) when usage needs more.  Every
 * window is then raised to the P99 usage of the `hold` windows either
 * side: nodes seen in use a few days before or after were there (this
 * undoes low saturation estimates that come from waits with other causes,
 * and the start of a log, whose first jobs ran beside unlogged ones).
 * Nothing is ever above `max_nodes` (0 = no limit).  The check that the method
 * does not invent capacity: usage above the inferred capacity is summed
 * (GPU-seconds, seconds, largest excess) in the result.
 */
#ifndef GS_IO_CAPACITY_H
#define GS_IO_CAPACITY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/error.h"

/* One job of the log, times in seconds on one clock. */
struct gs_cap_record {
    int64_t submit, start, end; /* start >= submit, end >= start */
    int gpus;                   /* >= 0 */
    int evidence;               /* 1 = a small job that fits on any node */
    int user;                   /* user id >= 0 (per-user limits), -1 = unknown */
};

struct gs_cap_params {
    int node_gpus;          /* GPUs per node (8) */
    int max_nodes;          /* upper limit of the capacity, 0 = none */
    int64_t window;         /* seconds per capacity window (43200) */
    int64_t grace;          /* waits up to this are dispatch latency (60) */
    int64_t min_saturated;  /* seconds of evidence waiting that make a window saturated (1800) */
    int64_t outage_min;     /* idle-while-waiting stretch that is an outage (3600) */
    double quantile;        /* of U over the waiting instants (0.95) */
    int hold;               /* windows either side whose usage bounds a window's
                               capacity from below (6: +-3 days of 12 h) */
    int min_users;          /* users with evidence jobs waiting at an evidence
                               instant (2: one user's jobs may wait for a
                               per-user limit on a free cluster) */
};

/* Capacity `nodes` from `t` until the next step's t. */
struct gs_cap_step {
    int64_t t;
    int nodes;
};

struct gs_cap_result {
    struct gs_cap_step *steps;  /* owned, by time, consecutive values differ */
    int nsteps;
    int64_t t0, t1;             /* the log's first submit and last end */
    int windows, saturated;     /* windows, of which saturated */
    int outages;                /* outage intervals */
    int64_t outage_s;           /* their total length */
    int min_nodes, max_nodes;   /* outside outages */
    double over_gpu_s;          /* usage above the capacity, GPU-seconds */
    int64_t over_s;             /* seconds with usage above the capacity */
    int over_max;               /* largest excess, GPUs */
};

/* The defaults above (node_gpus 8, no max, 12 h windows, 60 s grace,
 * 30 min saturation, 1 h outages, quantile 0.95, 2 users, hold 6). */
void gs_cap_defaults(struct gs_cap_params *p);

/* Infer the capacity of the `n` records (not modified).  Returns 0 and
 * fills `out` (free with gs_cap_result_fini); GS_EINVAL for no records, a
 * record with end < start < submit or negative GPUs, or bad parameters;
 * GS_ENOMEM. */
int gs_cap_infer(const struct gs_cap_record *r, size_t n, const struct gs_cap_params *p,
                 struct gs_cap_result *out, struct gs_error *err);

/* The capacity in nodes at time t (0 before t0 and after t1). */
int gs_cap_at(const struct gs_cap_result *c, int64_t t);

/* Write the capacity as node events (docs/formats.md, `time,node,state`)
 * for a cluster of `nodes` nodes named <prefix>1 .. <prefix><nodes>: at
 * each step the nodes above the capacity are drained (running jobs
 * finish, nothing new starts) and the ones within it are up; times are
 * relative to `origin`.  Returns 0 or GS_EIO. */
int gs_cap_write_node_events(FILE *f, const struct gs_cap_result *c, int nodes,
                             const char *prefix, int64_t origin, struct gs_error *err);

/* The same for nodes named names[0] .. names[nodes - 1] (borrowed): the
 * nodes last in that order are drained first.  Returns 0 or GS_EIO. */
int gs_cap_write_node_events_named(FILE *f, const struct gs_cap_result *c, char *const *names,
                                   int nodes, int64_t origin, struct gs_error *err);

/* Free what `c` owns; NULL is a no-op. */
void gs_cap_result_fini(struct gs_cap_result *c);

#endif

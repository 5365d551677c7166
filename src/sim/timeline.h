/* timeline.h - a bounded record of a simulation over time, for charts:
 * allocated GPUs, S_k and pending jobs as time-weighted means over a fixed
 * number of buckets, plus the continuous windows with S_k >= 1.
 *
 * Buckets cover [t0, t0 + GS_TL_BUCKETS x width).  When a sample falls
 * past the end, neighbouring buckets are merged pairwise and the width
 * doubles, so memory stays fixed whatever the span (a million-job replay
 * included) and each sample costs O(1) amortised.  Windows are kept
 * exactly, up to GS_TL_MAX_WINDOWS (later ones are counted, not kept).
 */
#ifndef GS_SIM_TIMELINE_H
#define GS_SIM_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/base/types.h"
#include "sim/sim.h"

#define GS_TL_BUCKETS 512
#define GS_TL_MAX_WINDOWS 100000

struct gs_timeline {
    int started;
    gs_time t0, width, last, end;
    struct gs_cluster_stats cur;
    int cur_pending;
    int64_t gpus;
    /* integrals per bucket over the time it covers */
    double used_milli_ms[GS_TL_BUCKETS];
    double sched_ms[GS_TL_BUCKETS];
    double pending_ms[GS_TL_BUCKETS];
    double covered_ms[GS_TL_BUCKETS];
    gs_time *win;              /* start, end pairs (owned) */
    size_t nwin, win_cap, win_dropped;
    gs_time win_start;         /* GS_TIME_NONE when S_k < 1 */
};

/* Start an empty timeline (caller storage). */
void gs_timeline_init(struct gs_timeline *tl);

/* Free what it owns; NULL is a no-op. */
void gs_timeline_fini(struct gs_timeline *tl);

/* The state is `t` from t->time until the next tick (gs_sim_opts.on_tick
 * signature through gs_timeline_on_tick).  Returns 0 or GS_ENOMEM. */
int gs_timeline_sample(struct gs_timeline *tl, const struct gs_sim_tick *t);

/* gs_sim_opts.on_tick adapter: `arg` is the timeline. */
void gs_timeline_on_tick(void *arg, const struct gs_sim_tick *t);

/* End the record at `end` (closes the last window). */
void gs_timeline_close(struct gs_timeline *tl, gs_time end);

/* Number of buckets in use and the mean of each series in bucket `i`
 * (NaN-free: 0 when the bucket covers no time). */
int gs_timeline_buckets(const struct gs_timeline *tl);
double gs_timeline_alloc(const struct gs_timeline *tl, int i);   /* share of GPUs */
double gs_timeline_sched(const struct gs_timeline *tl, int i);   /* mean S_k */
double gs_timeline_pending(const struct gs_timeline *tl, int i); /* mean jobs */

#endif

/* metrics.h - the report: DESIGN.md section 4's metrics, by name.
 *
 * Two halves.  gs_metrics accumulates time-weighted cluster figures: the
 * driver calls gs_metrics_sample() with the cluster statistics after every
 * change, and gs_metrics_close() at the end.  gs_summary_build() then combines
 * them with the engine's job records into a gs_summary.
 */
#ifndef GS_CORE_METRICS_H
#define GS_CORE_METRICS_H

#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/diagnose/diagnose.h"
#include "core/engine/engine.h"
#include "core/metrics/preempt_metrics.h"
#include "core/base/stats.h"

struct gs_metrics;

struct gs_team_wait {
    const char *team;          /* owned copy */
    struct gs_pctl wait;
};

struct gs_summary {
    int64_t jobs, completed, killed, cancelled, rejected, unfinished;
    int64_t failed;               /* ended FAILED (live mode, node failures) */
    int64_t backfilled;
    int64_t gpus;
    gs_time span_start, span_end;
    struct gs_pctl wait, jct;
    struct gs_pctl wait_by_size[4];   /* "1", "2-4", "5-8", ">8" */
    struct gs_team_wait *teams;       /* owned, sorted by team name */
    int nteams;
    double util_alloc;
    double util_effective;
    int util_effective_modelled;      /* 0: slow-downs are not modelled */
    double useful_gpu_ms;             /* numerator of util_effective */
    double jobs_per_gpu_day;
    struct {
        int k;
        double mean, share_ge1;
        int64_t windows;
        double win_mean, win_p50, win_p90, win_max;  /* seconds */
    } sched;
    struct {
        double count, topology, memory;  /* time-weighted mean GPUs */
        double mig;                      /* MIG slices unusable, GPU-equivalents */
    } frag;
    struct {
        int64_t n;                    /* completed jobs that had an estimate */
        double ratio_p50, ratio_p90;  /* estimate / actual run time */
        double under_share;           /* share with estimate < actual */
    } estimate;
    struct gs_preempt_summary pre;    /* preemptions, classes, SLO (owned) */
    struct gs_wait_reasons waits;     /* waiting time by reason (diagnose.h) */
    struct gs_queue_stats queue;      /* passes, held back, jobs left untried */
};

/* Create an accumulator; NULL on allocation failure. */
struct gs_metrics *gs_metrics_create(void);

/* Free it; NULL is a no-op. */
void gs_metrics_destroy(struct gs_metrics *m);

/* The cluster looks like `s` from `now` until the next sample.  Samples
 * must come in non-decreasing time.  Returns 0 or GS_ENOMEM. */
int gs_metrics_sample(struct gs_metrics *m, gs_time now, const struct gs_cluster_stats *s);

/* End the accounting at `end` (>= the last sample).  Returns 0 or GS_ENOMEM. */
int gs_metrics_close(struct gs_metrics *m, gs_time end);

/* Build the summary from closed metrics and the engine's jobs.  The span is
 * from the first sample to the close time.  Returns 0 or GS_ENOMEM; free
 * with gs_summary_fini. */
int gs_summary_build(struct gs_summary *out, const struct gs_metrics *m,
                     const struct gs_engine *eng);

/* Free what the summary owns; NULL is a no-op. */
void gs_summary_fini(struct gs_summary *s);

/* Report label of a size class index ("1", "2-4", "5-8", ">8"). */
const char *gs_size_class_name(int cls);

#endif

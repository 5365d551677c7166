/* eta.h - start-time promises: the estimated start recorded when a job is
 * submitted, an upper bound at the 90 % quantile, two naive predictors,
 * and how good each was once the job started (docs/eta.md).
 *
 * The point estimate is gs_engine_explain's est_start (basis reservation,
 * profile, quota; "now" for a job that the submit's pass started or will
 * start next).  The bound is calibrated online: for each size class and
 * basis a window of the last GS_ETA_WINDOW errors (actual start minus
 * estimate) of jobs that already started; bound = estimate + the window's
 * 90 % quantile (nearest rank), never below the estimate.  A class and
 * basis with fewer than GS_ETA_MIN_SAMPLES errors falls back to the
 * class's errors over all bases, then gives no bound.
 *
 * Naive predictors, made at the same instant for the same jobs: "now"
 * (start = submit) and "class median" (submit + the median wait of the
 * last GS_ETA_WINDOW jobs of the same size class that started; submit when
 * none has).
 *
 * Nothing here changes scheduling state: gs_eta_promise reads the engine
 * the way gs_engine_explain does.
 */
#ifndef GS_CORE_ETA_H
#define GS_CORE_ETA_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/types.h"
#include "core/diagnose/diagnose.h"
#include "core/policy/job.h"

#define GS_ETA_WINDOW 512
#define GS_ETA_MIN_SAMPLES 20
#define GS_ETA_BASES (GS_BASIS_QUOTA + 1)

/* A window of the last GS_ETA_WINDOW values, with a cached quantile. */
struct gs_eta_win {
    gs_time v[GS_ETA_WINDOW];
    int n, next;
    int dirty;
    gs_time cached;
};

/* The online calibration: errors per size class and basis, waits per
 * size class.  Plain data; gs_eta_cal_init empties it. */
struct gs_eta_cal {
    struct gs_eta_win err[GS_SIZE_CLASSES][GS_ETA_BASES];
    struct gs_eta_win err_class[GS_SIZE_CLASSES];
    struct gs_eta_win wait[GS_SIZE_CLASSES];
};

/* What was promised to one job at its submit.  Times in ms on the
 * engine's clock; GS_TIME_NONE = none. */
struct gs_eta_rec {
    gs_time submit;
    gs_time est;                /* point estimate, NONE = cannot tell */
    gs_time p90;                /* upper bound at 90 %, NONE = none */
    gs_time naive_median;       /* submit + running class median wait */
    int basis;                  /* enum gs_est_basis */
    int size_class;             /* gs_job_size_class */
    int recorded;               /* the promise was made */
    int observed;               /* its start was fed to the calibration */
};

/* Accuracy of one group of jobs (all, a size class, a basis): jobs with an
 * estimate that started. */
struct gs_eta_group {
    int64_t n;                  /* jobs with an estimate that started */
    int64_t n_bound;            /* of them, with a P90 bound */
    int64_t covered;            /* of those, started at or before the bound */
    double med_abs_s, p90_abs_s; /* |actual - est|, seconds */
    double now_med_abs_s;       /* naive "start now" */
    double class_med_abs_s;     /* naive "running class median wait" */
};

struct gs_eta_stats {
    int64_t jobs;               /* promises recorded */
    int64_t estimated;          /* with a point estimate */
    int64_t unstarted;          /* estimated but never started */
    struct gs_eta_group all;
    struct gs_eta_group by_size[GS_SIZE_CLASSES];
    struct gs_eta_group by_basis[GS_ETA_BASES];
};

/* Empty the calibration `c`. */
void gs_eta_cal_init(struct gs_eta_cal *c);

/* Make the promise for `job` at the engine's current time, just after the
 * pass that saw its submission: the point estimate (explain), the bound
 * and the naive predictor from `c` (its cached quantiles are refreshed).
 * Fills `out` (recorded = 1, observed = 0).  Returns 0, GS_ENOENT (no such
 * job) or GS_ENOMEM. */
int gs_eta_promise(struct gs_engine *eng, int job, struct gs_eta_cal *c,
                   struct gs_eta_rec *out);

/* Feed the first start of a job whose promise `r` was made: its error
 * (when it had an estimate) and its wait.  Sets r->observed; a second call
 * is a no-op. */
void gs_eta_cal_observe(struct gs_eta_cal *c, struct gs_eta_rec *r, gs_time start);

/* The calibrated bound for an estimate `est` of a job of size class `cls`
 * and basis `basis` (GS_TIME_NONE when est is, or too few errors). */
gs_time gs_eta_cal_bound(struct gs_eta_cal *c, int cls, int basis, gs_time est);

/* Accuracy of `n` promises against the first starts `start[i]`
 * (GS_TIME_NONE = never started).  Returns 0 or GS_ENOMEM. */
int gs_eta_stats_build(const struct gs_eta_rec *recs, const gs_time *start, size_t n,
                       struct gs_eta_stats *out);

#endif

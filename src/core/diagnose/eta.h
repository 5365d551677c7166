/* eta.h - start-time promises: the estimated start recorded when a job is
 * submitted, an upper bound at the 90 % quantile, two naive predictors,
 * and how good each was once the job started (docs/eta.md).
 *
 * The engine's estimate ("raw") is gs_engine_explain's est_start (basis
 * reservation, profile, quota; "now" for a job that the submit's pass
 * started or will start next).  It is then calibrated online from the jobs
 * that already started, per size class, basis and bucket of GPUs queued
 * ahead of it (falling back to the class and basis, then to the class over
 * all bases, and to nothing under GS_ETA_MIN_SAMPLES jobs), each over the
 * last GS_ETA_WINDOW such jobs.  The engine's profile honours only the
 * reservations of the jobs ahead, not the other queued work, so its error
 * grows with the queue ahead: the bucket is what lets the calibration
 * learn that.  With H = GS_ETA_HORIZON_MS
 * and the horizon h = raw - submit:
 *   ratio r = (actual - submit + H) / (h + H), kept per key;
 *   candidates for the point: raw; raw + median(actual - raw) ("shift");
 *     submit + max(0, (h + H) x median(r) - H) ("scale"); submit + the
 *     middle of the shortest interval that holds half of the key's
 *     waits ("wait", a naive predictor per key: on the median |error| it
 *     is what a constant wait does best); submit ("now", the naive
 *     predictor); raw + the middle of the shortest half of the errors
 *     actual - raw ("shift mode");
 *   the per-key choice is the candidate whose last GS_ETA_RECENT
 *     |errors| on the key most often came within T, the median |error| of
 *     the last points given to waiting jobs (basis not now; gs_eta_cal's
 *     `err`), ties to the smaller median |error| over the key's window
 *     (scale until there are enough jobs; the smallest median until T has
 *     enough errors): the table's figure is the median over all waiting
 *     jobs, so what counts is how often a candidate brings a job under it;
 *   the point ("calibrated") is that choice, unless one of the two naive
 *     predictors (the class median, then now) brought more than
 *     GS_ETA_SWITCH_MARGIN more of the last GS_ETA_SWITCH waiting jobs
 *     within T than the per-key choice did (windows kerr, nerr, werr): the
 *     switch follows the spells of a bursty cluster over all keys at once;
 *   the bound = submit + max(0, (h + H) x q(r) - H), never below the
 *     point (nearest rank).  q starts at 0.9 and adapts to the coverage
 *     actually reached (adaptive conformal inference, Gibbs and Candes
 *     2021): each started job that had a bound moves the level of its keys
 *     up by GS_ETA_GAMMA x 0.9 when it started after the bound (or as soon
 *     as the bound passed before its start: gs_eta_cal_miss, a censored
 *     miss), down by
 *     GS_ETA_GAMMA x 0.1 when not (kept in [0.5, GS_ETA_LEVEL_MAX]), so that 1 job in 10
 *     misses in the long run even though the errors of the jobs still
 *     waiting are not known yet;
 *   the bound is then widened (never narrowed) by a split-conformal
 *     factor: each started job that had a bound leaves in its key's window
 *     `over` the ratio o = (actual - submit + H) / (b - submit + H) of its
 *     start to that bound b before widening; with f = q_0.9(o) over the
 *     key's last jobs (GS_ETA_MIN_SAMPLES or more), the bound is
 *     submit + max(0, (b - submit + H) x f - H) when f > 1.  The level
 *     alone stops at the largest ratio of the window (q = 1); the factor
 *     reaches past it when the waits outgrow the window (docs/eta.md);
 *   past q = 1 the level goes on rising with the misses (up to
 *     GS_ETA_LEVEL_MAX): the quantiles stay at the window's largest values
 *     and the bound b is then widened once more, to
 *     submit + max(0, (b - submit + H) x (1 + GS_ETA_EXTRA x (q - 1)) - H),
 *     an extrapolation for waits that outgrow everything the windows hold
 *     (a busy quarter whose queue grows: AAIC 2017Q3).
 * The naive predictors are made at the same instant for the same jobs:
 * "now" (start = submit) and "class median" (submit + the median wait of
 * the last GS_ETA_WINDOW jobs of the same size class that started; submit
 * when none has).
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
#define GS_ETA_HORIZON_MS 60000      /* H: 60 s */
#define GS_ETA_CANDIDATES 6          /* raw, shift, scale, wait, now, shift mode */
#define GS_ETA_GAMMA 0.005          /* step of the bound's adaptive level */
#define GS_ETA_BUCKETS 12            /* GPUs queued ahead: 0, 1, 2-3, 4-7, ..., >= 1024 */
#define GS_ETA_OVER_Q 0.9            /* quantile of the bound's conformal widening */
#define GS_ETA_RECENT 16             /* last errors of a key the point's selection counts */
#define GS_ETA_LEVEL_MAX 1.5         /* the adaptive level's ceiling (past 1: extrapolated) */
#define GS_ETA_EXTRA 4.0             /* widening per unit of level past 1 */
#define GS_ETA_SWITCH 128            /* last waiting jobs the switch to a naive predictor counts */
#define GS_ETA_SWITCH_MARGIN 0       /* how many more of them a naive predictor must bring within T */
/* Windows of one key, in the order of gs_eta_cal_win's `w`: shift, ratio,
 * abserr[0..GS_ETA_CANDIDATES), over, wait. */
#define GS_ETA_KEY_WINS (GS_ETA_CANDIDATES + 4)
/* Key ids (gs_eta_cal_win): ahead[cl][b][q], key[cl][b], cls[cl], then
 * the class waits wait[cl] (one window, w = 0, no level). */
#define GS_ETA_NKEYS \
    (GS_SIZE_CLASSES * GS_ETA_BASES * (GS_ETA_BUCKETS + 1) + 2 * GS_SIZE_CLASSES + 1)
/* The last key id, GS_ETA_NKEYS - 1: the errors of the points given to
 * waiting jobs (gs_eta_cal's `err`, w = 0, then kerr, nerr, werr as
 * w = 1..3; no level). */
#define GS_ETA_KEY_ERR (GS_ETA_NKEYS - 1)
/* Key ids a promise's observe changes (gs_eta_cal_keys_of). */
#define GS_ETA_OBS_KEYS 5

/* A window of the last GS_ETA_WINDOW values: in arrival order (v, a
 * ring: the oldest leaves first) and kept sorted (sorted[0..n)), so that
 * a quantile is one lookup and a push one binary search and move. */
struct gs_eta_win {
    gs_time v[GS_ETA_WINDOW];
    gs_time sorted[GS_ETA_WINDOW];
    int n, next;
    int pushed;                 /* values pushed since the owner last zeroed it (the
                                   daemon's journal writes those slots) */
    int shorth_ok;              /* shorth holds the window's shortest-half middle */
    gs_time shorth;
};

/* What the calibration keeps per key (size class and basis, or class):
 * errors actual - raw, ratios (x 1e6), and each candidate's |error|. */
struct gs_eta_key {
    struct gs_eta_win shift, ratio;
    struct gs_eta_win abserr[GS_ETA_CANDIDATES];
    struct gs_eta_win over;     /* (actual - submit + H) / (base bound - submit + H), x 1e6 */
    struct gs_eta_win wait;     /* actual - submit of the key's jobs with an estimate */
    double level;               /* quantile of the bound: 0.9 adapted (below) */
};

/* The online calibration.  Plain data (about 21 MiB); gs_eta_cal_init
 * empties it (every level 0.9). */
struct gs_eta_cal {
    struct gs_eta_key ahead[GS_SIZE_CLASSES][GS_ETA_BASES][GS_ETA_BUCKETS];
    struct gs_eta_key key[GS_SIZE_CLASSES][GS_ETA_BASES];
    struct gs_eta_key cls[GS_SIZE_CLASSES];
    struct gs_eta_win wait[GS_SIZE_CLASSES];
    struct gs_eta_win err;      /* |actual - calibrated point| of the last jobs
                                   whose basis was not "now" (ms): its median is
                                   the threshold of the point's selection */
    /* Of the same jobs (those whose promise kept its naive class median):
     * |actual - the per-key choice|, |actual - the naive class median| and
     * |actual - submit| (naive "now"), for the switch to a naive predictor. */
    struct gs_eta_win kerr, nerr, werr;
};

/* What was promised to one job at its submit.  Times in ms on the
 * engine's clock; GS_TIME_NONE = none. */
struct gs_eta_rec {
    gs_time submit;
    gs_time est;                /* the engine's estimate, NONE = cannot tell */
    gs_time p90;                /* upper bound at 90 %, NONE = none */
    gs_time p90_base;           /* the bound before the conformal widening */
    gs_time naive_median;       /* submit + running class median wait */
    gs_time cal;                /* calibrated point, NONE with est (= est
                                   until the key has enough jobs) */
    gs_time cand[GS_ETA_CANDIDATES]; /* NONE until the key has enough jobs */
    int basis;                  /* enum gs_est_basis */
    int size_class;             /* gs_job_size_class */
    int bucket;                 /* GPUs queued ahead of it (gs_diag ahead_gpus):
                                   0 none, k = 2^(k-1) .. 2^k - 1, the last
                                   bucket and more */
    int chosen;                 /* candidate the point took, -1 = none */
    int recorded;               /* the promise was made */
    int observed;               /* its start was fed to the calibration */
    int missed;                 /* its bound passed before its start and the
                                   calibration was told (gs_eta_cal_miss) */
};

/* Accuracy of one group of jobs (all, a size class, a basis): jobs with an
 * estimate that started. */
struct gs_eta_group {
    int64_t n;                  /* jobs with an estimate that started */
    int64_t n_bound;            /* of them, with a P90 bound */
    int64_t covered;            /* of those, started at or before the bound */
    double med_abs_s, p90_abs_s; /* |actual - est|, seconds */
    double cal_med_abs_s, cal_p90_abs_s; /* |actual - calibrated point| */
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
 * pass that saw its submission: the engine's estimate (explain), the
 * calibrated point and bound and the naive predictor from `c` (read
 * only).  Fills `out` (recorded = 1, observed = 0).
 * Returns 0, GS_ENOENT (no such job) or GS_ENOMEM. */
int gs_eta_promise(struct gs_engine *eng, int job, struct gs_eta_cal *c,
                   struct gs_eta_rec *out);

/* A promise from a diagnosis already made: `d` is gs_engine_explain's
 * answer for a pending job submitted at `submit` asking `gpus`, or NULL
 * for a job that started or will start now (estimate = `now`, basis now).
 * Fills `out` like gs_eta_promise (`c` is only read).  Never fails. */
void gs_eta_promise_of(struct gs_eta_cal *c, gs_time submit, int gpus, gs_time now,
                       const struct gs_diag *d, struct gs_eta_rec *out);

/* The calibration part of a promise: fills r->cal, r->cand, r->chosen
 * and r->p90 from r->submit, r->est, r->basis, r->size_class and
 * r->naive_median (GS_TIME_NONE: no switch to the naive predictors). */
void gs_eta_cal_apply(struct gs_eta_cal *c, struct gs_eta_rec *r);

/* Feed the first start of a job whose promise `r` was made: its error,
 * ratio and candidates' errors (when it had an estimate) and its wait.
 * Sets r->observed; a second call is a no-op. */
void gs_eta_cal_observe(struct gs_eta_cal *c, struct gs_eta_rec *r, gs_time start);

/* Tell the calibration that the bound of promise `r` passed before its
 * job started (a censored miss, learned when the bound passes rather than
 * at the start): the adaptive level of its three keys rises as for a
 * start after the bound, and the start, when it comes, does not move it
 * again.  Sets r->missed; a no-op without a bound, once started or a
 * second time.  The caller must know that the job has not started by
 * the bound: the keys it changes are those of gs_eta_cal_keys_of. */
void gs_eta_cal_miss(struct gs_eta_cal *c, struct gs_eta_rec *r);

/* The keys an observe of `r` changes (key ids as in GS_ETA_NKEYS): its
 * class wait, with an estimate its three keys, and when its basis is not
 * "now" the errors' key GS_ETA_KEY_ERR.  Writes up to GS_ETA_OBS_KEYS ids
 * into `keys`; returns how many. */
int gs_eta_cal_keys_of(const struct gs_eta_rec *r, int keys[GS_ETA_OBS_KEYS]);

/* Window `w` (0 .. GS_ETA_KEY_WINS - 1) of key `key`, or NULL when out of
 * range (a class wait key has only w = 0; GS_ETA_KEY_ERR has err, kerr,
 * nerr, werr as w = 0..3).  Owned by `c`. */
struct gs_eta_win *gs_eta_cal_win(struct gs_eta_cal *c, int key, int w);

/* The adaptive level of key `key`, or NULL (out of range, class wait). */
double *gs_eta_cal_level(struct gs_eta_cal *c, int key);

/* Set window `w` from its ring: `n` values v[0..n) (the window's own
 * v[] may be passed) and the cursor `next`; rebuilds the sorted copy and
 * zeroes `pushed`.  Returns 0, or GS_EINVAL (n outside 0..GS_ETA_WINDOW,
 * next outside 0..GS_ETA_WINDOW - 1, or next != n while not full): `w`
 * is then emptied. */
int gs_eta_win_set(struct gs_eta_win *w, const gs_time *v, int n, int next);

/* Accuracy of `n` promises against the first starts `start[i]`
 * (GS_TIME_NONE = never started).  Returns 0 or GS_ENOMEM. */
int gs_eta_stats_build(const struct gs_eta_rec *recs, const gs_time *start, size_t n,
                       struct gs_eta_stats *out);

#endif

/* loop_eta.h - the daemon's start-time promises (docs/eta.md, section 6):
 * made after the pass that saw a job's submission and journalled
 * (eta_* columns), the promise now of each queued job, the online
 * calibration fed by first starts and the live calibration for /metrics.
 * Engine thread only (loop_eta.c).
 */
#ifndef GS_DAEMON_LOOP_ETA_H
#define GS_DAEMON_LOOP_ETA_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "core/base/error.h"
#include "core/diagnose/eta.h"
#include "io/api_codec.h"

#define GSD_ETA_WINDOW 512    /* started jobs the live calibration covers */

struct gsd_loop;
struct djob;
struct gs_store_job;

/* The live calibration: promises made (and without an estimate), jobs
 * compared since the start, bounds that passed before their job started
 * (censored misses) and the live jobs still waiting past theirs, and over
 * the window of the last compared:
 * their count, the median |first start - calibrated point| (s, -1 when
 * empty), those with a bound and the share started by it (-1 = none). */
struct gsd_eta_cal_now {
    int64_t promises, unknown, compared;
    int64_t missed;           /* censored misses told to the calibration */
    int64_t past_bound;       /* live jobs waiting past their bound (told) */
    int window;
    int64_t with_bound;
    double median_abs_s, p90_coverage;
};

/* Allocate lp->eta (an empty calibration, about 4 MiB).  0 or -1 (out
 * of memory); gsd_eta_close frees it (NULL is fine). */
int gsd_eta_open(struct gsd_loop *lp);
void gsd_eta_close(struct gsd_loop *lp);

/* Job d was submitted in this turn: its promise is made by gsd_eta_turn
 * after the pass.  0 or -1 (out of memory). */
int gsd_eta_submitted(struct gsd_loop *lp, struct djob *d);

/* Tell the calibration the censored misses that are due (gsd_eta_due),
 * then make the promise of every job submitted in this turn (after the
 * pass and its events, before the rows are flushed) and journal it.  A promise that
 * cannot be made (out of memory) is skipped.  0, or -1 with err when the
 * journal write fails. */
int gsd_eta_turn(struct gsd_loop *lp, struct gs_error *err);

/* Arm d's P90-bound timer (lp->timers, GSD_TM_ETA) when its promise can
 * still be missed while it waits: calibrated, with a bound, not told a
 * miss yet, not started.  At a promise and at a restore (a bound that
 * passed while the daemon was down is due at once).  Never fails (out of
 * memory: checked at the next turn). */
void gsd_eta_arm(struct gsd_loop *lp, struct djob *d);

/* d's bound timer fired (gsd_timers_run): flag it for the next turn's
 * check (gsd_eta_turn), which tells the calibration a censored miss, once,
 * when the bound has passed and d has not started, and journals it with
 * the promise (eta_aux) and the keys' levels. */
void gsd_eta_due(struct gsd_loop *lp, struct djob *d);

/* After d's engine record was refreshed: its first start (once the run is
 * confirmed) feeds the calibration and the window. */
void gsd_eta_sync(struct gsd_loop *lp, struct djob *d);

/* Journal what changed in the live calibration since the last call (the
 * window's new entries, table eta_window, and the counters, meta keys
 * eta_*) and in the calibration of new promises (the keys its starts
 * changed: their new ring slots, levels and cursors, tables eta_cal_key
 * and eta_cal_slot), in the turn's transaction.  0, or -1 with err. */
int gsd_eta_save(struct gsd_loop *lp, struct gs_error *err);

/* The live calibration and the calibration of new promises as the
 * journal's last commit left them (at startup, and after a failed
 * commit).  A window, or a calibration, that cannot be read whole starts
 * empty (logged). */
void gsd_eta_load(struct gsd_loop *lp);

/* The promise that would be made now for pending job d from its diagnosis
 * `dg` (NULL: it starts now).  Reads the calibration only. */
void gsd_eta_now(struct gsd_loop *lp, const struct djob *d, const struct gs_diag *dg,
                 struct gs_eta_rec *out);

/* A promise as the job object's, into *out (basis static; NULL when no
 * promise was made).  _row: from a journal row (basis borrowed from it). */
void gsd_eta_api(const struct gs_eta_rec *r, struct gs_api_eta *out);
void gsd_eta_api_row(const struct gs_store_job *row, struct gs_api_eta *out);

/* d's promise at submit into the eta_* fields of its row (borrowed). */
void gsd_eta_row(const struct djob *d, struct gs_store_job *row);

/* A restored job's promise from its row.  With its eta_aux (schema 7 on)
 * its start feeds the calibration as without the restart; without it (a
 * promise journalled by an older daemon), only the window. */
void gsd_eta_restore(struct djob *d, const struct gs_store_job *row);

/* The live calibration now. */
void gsd_eta_calibration(const struct gsd_loop *lp, struct gsd_eta_cal_now *out);

/* Add to each queue item of dashboard document `doc` its promise now
 * ("estimate", with start_in and p90_in: seconds from now) and the one at
 * submit.  Items it cannot decorate (out of memory) stay as they are. */
void gsd_eta_dash(struct gsd_loop *lp, json_t *doc);

/* Its /metrics families (docs/daemon.md) into f. */
void gsd_eta_metrics(FILE *f, const struct gsd_loop *lp);

#endif

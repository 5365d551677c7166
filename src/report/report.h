/* report.h - render simulation results: the summary as JSON (metric names of
 * DESIGN.md section 4) or as a readable table, and the per-job and timeline
 * CSV files of `gpusched sim --out`.
 */
#ifndef GS_REPORT_REPORT_H
#define GS_REPORT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "core/engine/engine.h"
#include "core/metrics/metrics.h"
#include "core/policy/policy.h"
#include "sim/sim.h"

/* The summary as a new JSON object (caller decrefs), or NULL on allocation
 * failure.  `pol` (optional) adds a "policy" object naming the settings. */
json_t *gs_report_summary_json(const struct gs_summary *s, const struct gs_policy *pol);

/* JSON object of one percentile set {n, p50, p90, p99, mean, max}. */
json_t *gs_report_pctl_json(const struct gs_pctl *p);

/* Print the summary as a human-readable table to `f`. */
void gs_report_summary_text(FILE *f, const struct gs_summary *s, const struct gs_policy *pol);

/* Write jobs.csv: id, submit, start, end, wait, gpus, placement (node:gpu
 * list separated by spaces), state, team, class (train|infer), preemptions,
 * lost_gpu_s, checkpoint_gpu_s, restore_gpu_s (work lost to preemption and
 * redone, checkpoint writing, restoring: seconds x gpus x share, exact to
 * the micro-GPU-second, so they add up to the summary's preemption GPU-hours
 * x 3600), wait_reason (gs_engine_wait_dominant's name, "none" when it
 * never waited).  Times in seconds.  Returns 0 or GS_EIO. */
int gs_report_jobs_csv(FILE *f, const struct gs_engine *eng);

/* The same, and when `epoch_ms` (UNIX ms of time 0) is not GS_TIME_NONE -
 * the trace's submit times were ISO-8601 - three more columns at the end:
 * submit_time, start_time, end_time as ISO-8601 UTC (empty when the job
 * never started or ended). */
int gs_report_jobs_csv_at(FILE *f, const struct gs_engine *eng, int64_t epoch_ms);

/* The same, and when `fail` (sim --failures) is not NULL three more
 * columns at the very end: ettr, lost_gpu_s_failure, restarts
 * (report_fail.h; docs/failures.md). */
int gs_report_jobs_csv_fail(FILE *f, const struct gs_engine *eng, int64_t epoch_ms,
                            const struct gs_sim_fail *fail);

/* The same, and when `eta` is not NULL (the simulator's promises, per
 * engine handle, `neta` of them) four more columns at the very end:
 * est_start_at_submit (the engine's estimate), est_start_p90_at_submit
 * (seconds; empty when there is no estimate / no bound),
 * est_basis_at_submit (gs_est_basis_name) and est_start_cal_at_submit (the
 * calibrated point, core/diagnose/eta.h).
 * Returns 0 or GS_EIO. */
int gs_report_jobs_csv_eta(FILE *f, const struct gs_engine *eng, int64_t epoch_ms,
                           const struct gs_eta_rec *eta, size_t neta);

/* summary.json's "eta" object for `n` promises against the engine's first
 * starts (core/diagnose/eta.h), or NULL on allocation failure. */
json_t *gs_report_eta_json(const struct gs_engine *eng, const struct gs_eta_rec *eta,
                           size_t n);

/* Both: the promise columns (when `eta`), then the failure columns (when
 * `fail`), after the common ones.  Returns 0 or GS_EIO. */
int gs_report_jobs_csv_all(FILE *f, const struct gs_engine *eng, int64_t epoch_ms,
                           const struct gs_eta_rec *eta, size_t neta,
                           const struct gs_sim_fail *fail);

/* Timeline writer for gs_sim_opts.on_tick: one CSV row per step:
 * time, allocated GPUs (share-weighted), free GPUs, S_k, fragmented GPUs,
 * pending, running.  Call gs_report_timeline_header first. */
void gs_report_timeline_header(FILE *f);
void gs_report_timeline_row(FILE *f, const struct gs_sim_tick *t);

/* Write a duration for tables: whole seconds below a minute ("45s"),
 * minutes with one decimal below an hour ("12.5m"), else hours with two
 * ("3.25h"). */
void gs_report_fmt_dur(char *buf, size_t n, double sec);

/* Write a seconds value compactly ("12", "0.5", "1234.125"). */
void gs_report_fmt_sec(char *buf, size_t n, double sec);

#endif

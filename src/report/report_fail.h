/* report_fail.h - report_fail.c: what node failures cost (`sim
 * --failures`, docs/failures.md): per-job ETTR, lost work and restarts in
 * jobs.csv, and the summary's `failures` object.
 */
#ifndef GS_REPORT_REPORT_FAIL_H
#define GS_REPORT_REPORT_FAIL_H

#include <jansson.h>
#include <stdio.h>

#include "core/engine/engine.h"
#include "sim/sim.h"

/* A job's effective training time ratio: useful run time (its work when it
 * completed, else the work its checkpoints saved) over the wall time from
 * its first start to its end.  Returns 1 and stores it in `*ettr` for a job
 * that started and ended with a positive wall time, else 0. */
int gs_report_job_ettr(const struct gs_job_info *ji, double *ettr);

/* The summary's `failures` object (new reference, NULL on allocation
 * failure): events (node and GPU failures: the downs drawn and the downs
 * of replayed node events), events_drawn and events_replayed (the two
 * parts), runs_ended, jobs_hit, lost_gpu_s (work
 * lost to failures x GPUs), lost_gpu_s_by_cause {failure, preemption,
 * time_limit (killed jobs' work past their last checkpoint)}, ettr (GPU-time weighted over the jobs that
 * started and ended: sum of gpus x useful / sum of gpus x wall; null when
 * there are none), largest {id, gpus, ettr, restarts} (the first job of
 * the most GPUs that started), by_team {TEAM: {ettr, lost_gpu_s,
 * restarts}} (the same sums over each team's jobs) and held_gpu_s (GPU-s
 * held for restarts under retry.hold, summed over the jobs). */
json_t *gs_report_fail_json(const struct gs_engine *eng, const struct gs_sim_fail *f);

/* jobs.csv's failure columns: ",ettr,lost_gpu_s_failure,restarts" for the
 * header, then ",held_gpu_s" when `eng`'s policy holds (retry.hold > 0),
 * and each job's cells (ettr empty when gs_report_job_ettr has none;
 * held_gpu_s the GPU-seconds held for its restarts). */
void gs_report_fail_csv_header(FILE *out, const struct gs_engine *eng);
void gs_report_fail_csv_row(FILE *out, const struct gs_engine *eng, const struct gs_sim_fail *f,
                            int job, const struct gs_job_info *ji);

/* The HTML report's "Node failures" section: the summary's failures object
 * as two tables (totals and the largest job; per team). */
void gs_report_fail_html(FILE *out, const struct gs_engine *eng, const struct gs_sim_fail *f);

#endif

/* preempt_metrics.h - the preemption and job-class part of the report
 * (issue 5): preemptions and the GPU time they cost, per class and per
 * team; inference SLO attainment; and checkpoint advice from the observed
 * preemption rate.  Built from the engine's job records; part of
 * struct gs_summary (metrics.h) as `pre`.
 *
 * GPU time of a job's runs is split into useful work, work lost to
 * preemption (redone later), checkpoint writing and restoring; all three
 * are outside util_effective (which counts only the kept work of completed
 * jobs).  Run time is work + lost + checkpoint + restore wall time, exact
 * while jobs run at full speed.
 *
 * Checkpoint advice (Young 1974, first order; Daly 2006): a job that
 * checkpoints every I seconds of work at cost C, preempted as a Poisson
 * process with mean time between preemptions M, wastes about
 *   W(I) = C / I + I / (2 M)
 * of its run time (checkpoint overhead, plus on average half an interval
 * lost per preemption), minimised by I* = sqrt(2 C M).  M is measured per
 * class: run time of the class's jobs / their preemptions.  Young/Daly
 * assume preemptions strike at random; gpusched picks victims that lose
 * the least, so a preemption costs a measured share a of the I / 2 the
 * model expects (a = work lost by jobs that checkpoint / sum of their
 * preemptions x I / 2).  With it W(I) = C / I + a I / (2 M) and the
 * calibrated optimum is I_a = sqrt(2 C M / a).  Jobs are judged against
 * I_a (too rarely: I > 2 I_a; too often: I < I_a / 2), and the saving is
 * the sum over jobs that can checkpoint of run GPU-hours x (W(I) - W(I_a)).
 * Valid when C << I << M; restore cost is paid per preemption whatever I is.
 */
#ifndef GS_CORE_PREEMPT_METRICS_H
#define GS_CORE_PREEMPT_METRICS_H

#include <stdint.h>

#include "core/base/stats.h"

struct gs_engine;

/* GPU time of runs by where it went, in GPU-hours. */
struct gs_loss {
    int64_t preemptions;
    double run_gpu_h;         /* all GPU time of runs */
    double lost_gpu_h;        /* work lost to preemption and redone */
    double ckpt_gpu_h;        /* checkpoint writing */
    double restore_gpu_h;     /* restoring after a restart */
};

struct gs_ckpt_advice {
    double mtbp_s;            /* run time between preemptions, 0 = none seen */
    int64_t able, unable;     /* jobs that ran and can / cannot checkpoint */
    int64_t too_rare, right, too_often; /* able jobs: I > 2 I*, in between, I < I* / 2 */
    double cost_s;            /* run-GPU-time-weighted mean C of able jobs */
    double interval_s;        /* ... and mean I */
    double optimal_s;         /* Young/Daly sqrt(2 x cost_s x mtbp_s), 0 = no preemptions */
    double loss_factor;       /* a: measured loss per preemption / (I / 2), 1 = unknown */
    double calibrated_s;      /* sqrt(2 x cost_s x mtbp_s / a) */
    double save_gpu_h;        /* GPU-hours the per-job optimum would save */
    double unable_lost_gpu_h; /* lost by jobs that cannot checkpoint */
};

struct gs_class_summary {
    int64_t jobs;             /* submitted, not rejected */
    int64_t started;
    struct gs_pctl wait;      /* first start - submit, seconds */
    struct gs_loss loss;
    int64_t slo_jobs;         /* jobs the SLO applies to (not cancelled unstarted) */
    int64_t slo_met;          /* of those, started within slo_wait */
    struct gs_ckpt_advice advice;
};

struct gs_team_loss {
    char *team;               /* owned */
    struct gs_loss loss;
};

struct gs_preempt_summary {
    double slo_wait_s;
    struct gs_loss total;
    struct gs_class_summary cls[2];   /* by enum gs_job_class */
    struct gs_team_loss *teams;       /* owned, sorted by name */
    int nteams;
};

/* Fill `out` from the engine's jobs (as of its last call).  Returns 0 or
 * GS_ENOMEM (then `out` owns nothing).  Free with gs_preempt_summary_fini. */
int gs_preempt_summary_build(struct gs_preempt_summary *out, const struct gs_engine *eng);

/* Free what `s` owns; NULL is a no-op. */
void gs_preempt_summary_fini(struct gs_preempt_summary *s);

/* "train" or "infer". */
const char *gs_class_name(int klass);

/* Share of SLO jobs started within slo_wait (1 when there are none). */
double gs_class_slo_share(const struct gs_class_summary *c);

#endif

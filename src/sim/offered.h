/* offered.h - will the queue drain?  The load a trace offers a cluster under
 * a policy's quotas, computed before any replay so a run that can only end
 * with a queue growing for its whole length is flagged at once, with the
 * numbers (`sim`, `compare`, `whatif` print it on stderr).
 *
 * Offered load = the GPU-time the jobs ask for (gpus x share x duration) /
 * (the GPUs that may serve them x the arrival span, first to last submit).
 * Above 1 the backlog grows while jobs arrive, whatever the policy (ratios
 * are only taken when arrivals span GS_OFFERED_STEADY run times).  Per
 * team under a strict quota the same ratio is taken against the quota; a
 * job wider than its team's strict quota can never start.
 */
#ifndef GS_SIM_OFFERED_H
#define GS_SIM_OFFERED_H

#include "core/cluster/cluster.h"
#include "core/policy/policy.h"
#include "workload/trace.h"

#define GS_OFFERED_MAX_TEAMS 8 /* teams reported, the most loaded first */
/* A load ratio means "the queue keeps growing" only when jobs arrive over
 * many run times: the arrival span must be >= 10 x the mean duration (a
 * burst that all arrives at once is a transient, not a trend). */
#define GS_OFFERED_STEADY 10.0

struct gs_offered_team {
    const char *team;       /* borrowed from the policy */
    int quota;              /* GPUs */
    double load;            /* offered GPU-time / (quota x span) */
    double mean_gpus;       /* GPUs asked on average over the span */
    int64_t too_wide;       /* jobs asking for more GPUs than the quota */
};

struct gs_offered {
    double span_s;          /* first to last submit */
    double gpu_hours;       /* asked, all jobs */
    int64_t gpus;           /* the cluster's */
    int steady;             /* arrivals span GS_OFFERED_STEADY mean run times */
    double load;            /* all jobs against all GPUs (0 when span is 0) */
    int64_t quota_gpus;     /* > 0: every job is under a strict quota and the quotas
                             * of the teams that submit add up to fewer GPUs than the
                             * cluster has: at most this many can ever be busy */
    double quota_load;      /* all jobs against quota_gpus */
    int nteams;             /* strict-quota teams over load 1 or with too-wide jobs */
    struct gs_offered_team teams[GS_OFFERED_MAX_TEAMS];
};

/* Fill `out` for trace `tr` on `cl` under `pol` (quotas only when the quota
 * mode is strict).  Pure; never fails. */
void gs_offered_compute(struct gs_offered *out, const struct gs_cluster *cl,
                        const struct gs_policy *pol, const struct gs_trace *tr);

#endif

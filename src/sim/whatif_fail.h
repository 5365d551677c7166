/* whatif_fail.h - `whatif --failures F.yaml` (docs/failures.md, "Advice"):
 * for the jobs that matter (those of the most GPUs in the trace, or those
 * of at least min_gpus), their ETTR and the GPU-hours they lose to node
 * failures against their checkpoint interval (a grid around Young/Daly's
 * sqrt(2 C M), M = node MTBF / the job's nodes) and the number of hot
 * spare nodes (policy spares.nodes, kept for them: spares.min_gpus = the
 * smallest of them), every run with the same failure process, and which
 * change helps them most.
 */
#ifndef GS_SIM_WHATIF_FAIL_H
#define GS_SIM_WHATIF_FAIL_H

#include "core/base/error.h"
#include "core/cluster/cluster.h"
#include "core/policy/policy.h"
#include "sim/sim.h"
#include "workload/trace.h"

#define GS_WFAIL_MAX_TAU 6     /* Young/Daly x 1/4, 1/2, 1, 2, 4 and the current */
#define GS_WFAIL_MAX_SPARES 8

/* One run of the grid: the target jobs' figures. */
struct gs_wfail_cell {
    int ended;                 /* target jobs that started and ended */
    double ettr;               /* GPU-time weighted ETTR of those (-1 = none) */
    double lost_gpu_h;         /* work they lost to node failures, GPU-hours */
    int64_t restarts;          /* their runs ended by node failures */
    double others_wait_h;      /* mean first-start wait of the other jobs that
                                  started (what spares cost them), hours */
};

struct gs_wfail_opts {
    int min_gpus;              /* targets: jobs of >= this many GPUs; 0 = the largest */
    const int *spares;         /* spare-node counts to try (NULL: 0, 1, 2, 4) */
    int nspares;
};

struct gs_wfail {
    int min_gpus;              /* the targets' smallest size */
    int njobs;                 /* target jobs */
    int nodes;                 /* nodes the smallest target spans (its GPUs / the
                                  largest node, rounded up) */
    double ckpt_cost_s, cur_tau_s; /* the first target's C and interval (0 = none) */
    int mixed;                 /* the targets' intervals or costs differ */
    double job_mtbf_s;         /* 1 / (nodes / node MTBF + GPUs / GPU MTBF) */
    double yd_s;               /* sqrt(2 C M) */
    int ntau, yd_col, cur_col; /* columns: intervals (s) ascending */
    double tau_s[GS_WFAIL_MAX_TAU];
    int nsp;                   /* rows: spare counts, as given */
    int spares[GS_WFAIL_MAX_SPARES];
    struct gs_wfail_cell cell[GS_WFAIL_MAX_SPARES][GS_WFAIL_MAX_TAU];
    int expedite;              /* the policy's retry.expedite */
    /* the verdict (gs_wfail_judge): the base is (row of 0 spares, or row 0;
     * the current interval); the best interval at the base row, the best
     * spare count at the current interval, the best cell */
    int base_row, best_col, best_row, best_r, best_c;
};

/* Run the grid: `tr` with the targets' checkpoint interval set to each
 * column's, under `pol` plus spares.nodes = each row's count, with failures
 * `model` (and the node events `ne`, may be NULL) in every run.  Fills
 * `out` and returns 0; GS_EINVAL (message) when no job has GPUs, a target
 * writes checkpoints at no cost (no Young/Daly interval), or a list is too
 * long; the errors of gs_sim_run, naming the run. */
int gs_wfail_run(struct gs_wfail *out, const struct gs_cluster *cl, const struct gs_policy *pol,
                 const struct gs_trace *tr, const struct gs_failure_model *model,
                 const struct gs_node_events *ne, const struct gs_wfail_opts *opts,
                 struct gs_error *err);

/* ETTR gain of cell (r, c) over the base, -1 when either has none. */
double gs_wfail_gain(const struct gs_wfail *w, int r, int c);

#endif

/* whatif.h - fragmentation or shortage?  One trace replayed on variants of
 * a cluster and policy (`gpusched whatif`, docs/diagnosis.md):
 *
 *   actual   the cluster and the first policy as given;
 *   fluid    the same GPUs per GPU type with no node or NVLink-domain
 *            boundaries that matter: nodes of up to 64 GPUs (the node
 *            limit) with one NVLink domain each, all in one multi-node
 *            NVLink domain, every job placed with `topology: any`, and no
 *            slow-down for split placements.  A job fits whenever enough
 *            GPUs of its type are idle: the fragmentation-free bound;
 *   policy   each further policy on the actual cluster, and on the fluid
 *            cluster ("fluid + NAME");
 *   +N nodes the actual cluster plus N nodes shaped like its most common
 *            node, under the first policy.
 *
 * The verdict (whatif_verdict.c, docs/diagnosis.md section 4) weighs two
 * kinds of evidence.  Attribution: the actual run's waiting job-hours split
 * by cause - shortage, fragmentation (count, topology, memory), quota
 * (and partition), and the queue rules (priority: behind a blocked job;
 * reservation).  Counterfactuals: the fluid runs (a bound on what any
 * placement could give under each policy, not a policy), the alternative
 * policies and the added nodes, each compared with the actual run at the
 * p50, p90 and p99, overall and per size class.  Time spent behind a
 * blocked job is the queue rules' only when some alternative policy
 * shortens a tail by GS_WHATIF_HELPS; otherwise it goes to what the jobs
 * ahead waited for (shortage when even the fluid bound keeps half of both
 * tails, fragmentation when the fluid run under the same policy shortens
 * a tail by GS_WHATIF_HELPS).  The cause is the group holding
 * GS_WHATIF_DOMINANT of the resolved job-hours, "mixed" otherwise; a
 * shortage also needs the bound to keep half of both tails.
 * It also reports the seed's boundary cases where complex scheduling is
 * unnecessary.
 */
#ifndef GS_SIM_WHATIF_H
#define GS_SIM_WHATIF_H

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "core/metrics/metrics.h"
#include "core/policy/policy.h"
#include "sim/sim.h"
#include "workload/trace.h"

#define GS_WHATIF_MAX_RUNS 40
#define GS_CDF_POINTS 101          /* quantiles 0, 1, ..., 100 % */

enum gs_whatif_kind { GS_WHATIF_ACTUAL, GS_WHATIF_FLUID, GS_WHATIF_POLICY, GS_WHATIF_NODES };

/* Wait distribution of one run: quantiles per size class (index
 * GS_SIZE_CLASSES = all jobs), in seconds. */
struct gs_wait_cdf {
    int64_t n[GS_SIZE_CLASSES + 1];
    double q[GS_SIZE_CLASSES + 1][GS_CDF_POINTS];
};

struct gs_whatif_run {
    int kind;                      /* enum gs_whatif_kind */
    char name[64];                 /* "actual", "fluid", policy name, "+2 nodes" */
    int added_nodes;
    int64_t gpus;                  /* GPUs of the cluster it ran on */
    struct gs_summary sum;         /* owned */
    struct gs_wait_cdf cdf;
};

/* Thresholds of the verdict (docs/diagnosis.md). */
#define GS_WHATIF_NO_QUEUE_S 300.0 /* p90 below 5 min ... */
#define GS_WHATIF_NO_QUEUE_P99_S 1800.0 /* ... and p99 below 30 min: no queue */
#define GS_WHATIF_SHORTAGE 0.5     /* the best fluid run keeps half the p90 and p99 */
#define GS_WHATIF_HELPS 0.25       /* a run "helps" when it cuts the p90 or p99 by 25 % */
#define GS_WHATIF_DOMINANT 0.6     /* a cause holds 60 % of the resolved job-hours */
#define GS_WHATIF_UNIFORM 0.95     /* one job shape covers 95 % of jobs */

/* The cause of the queue, as `whatif --json` names it in verdict.cause. */
enum gs_whatif_cause {
    GS_CAUSE_NONE,                 /* no queue worth fixing */
    GS_CAUSE_SHORTAGE,
    GS_CAUSE_FRAGMENTATION,
    GS_CAUSE_POLICY,
    GS_CAUSE_QUOTA,
    GS_CAUSE_MIXED,
};

/* The groups waiting time is attributed to. */
enum { GS_GROUP_SHORTAGE, GS_GROUP_FRAG, GS_GROUP_QUOTA, GS_GROUP_POLICY, GS_GROUPS };

enum gs_whatif_call {
    GS_VERDICT_NO_QUEUE,           /* actual p90 below GS_WHATIF_NO_QUEUE_S */
    GS_VERDICT_FRAGMENTATION,      /* scheduling helps; the fluid cluster gains most */
    GS_VERDICT_POLICY,             /* scheduling helps; a queue policy gains most */
    GS_VERDICT_SHORTAGE,           /* even the best fluid run keeps half the p90 */
    GS_VERDICT_UNKNOWN,            /* no fluid run */
};

/* Boundary cases of the seed's table where complex scheduling is not
 * needed (bits). */
enum { GS_BOUND_ONE_NODE = 1, GS_BOUND_UNIFORM = 2, GS_BOUND_INFER_ONLY = 4 };

struct gs_whatif_verdict {
    int call;                      /* enum gs_whatif_call */
    double p90[3], p99[3];         /* actual, fluid, fragmentation part (s) */
    double frag_share90, frag_share99;
    int best_policy;               /* run index, -1 = none */
    double policy_gain90, policy_gain99;     /* actual - best policy (s) */
    double policy_recovered;       /* share of the fragmentation p90 gap */
    int best_fluid;                /* run index of the fluid run with least p90 */
    double best_fluid_share;       /* its p90 / the actual p90 */
    int bounds;                    /* GS_BOUND_* bits */
    int uniform_gpus;              /* the dominant GPU count, its share: */
    double uniform_share;
    int64_t wide_jobs;             /* jobs asking for >= half the cluster's GPUs */
    double util_alloc;             /* the actual run's */
    /* attribution (shares of the actual run's waiting job-hours) */
    int cause;                     /* enum gs_whatif_cause */
    double wait_job_h;             /* all waiting job-hours */
    double share[GS_GROUPS];       /* as the engine attributed them */
    double resolved[GS_GROUPS];    /* after giving "behind a blocked job" its cause */
    double frag_form[3];           /* count, topology, memory (shares of all) */
    double priority_share, reservation_share; /* the two parts of GROUP_POLICY */
    int priority_to;               /* group that time went to */
    /* counterfactuals */
    int policy_helps;              /* some policy cuts the p90 or p99 by HELPS */
    int fluid_helps;               /* the fluid run (same policy) cuts a tail by HELPS */
    int bound_keeps;               /* the best fluid run keeps SHORTAGE of p90 and p99 */
    double best_fluid_share99;     /* best fluid p99 / actual p99 */
    int best_capacity;             /* run index of the best +N nodes run, -1 = none */
    int nrank;                     /* policy and capacity runs, best first: */
    int rank[GS_WHATIF_MAX_RUNS];
};

struct gs_whatif {
    struct gs_whatif_run runs[GS_WHATIF_MAX_RUNS];
    int nruns;
    struct gs_sim_result actual;   /* the actual run, with its engine (owned) */
    struct gs_whatif_verdict v;
    char fluid_note[128];          /* why there is no fluid run, "" if there is */
};

/* Replay `tr` on every variant.  pols[0] is the current policy, pols[1..]
 * the alternatives (names[i] label them); add[0..nadd) are node counts to
 * add.  `opts` (may be NULL) observes the actual run only.  On success
 * fills `out` (free with gs_whatif_fini) and returns 0; errors are those
 * of gs_sim_run, the message naming the variant, or GS_EINVAL for more
 * than GS_WHATIF_MAX_RUNS runs. */
int gs_whatif_run(struct gs_whatif *out, const struct gs_cluster *cl, const struct gs_trace *tr,
                  const struct gs_policy *pols, const char *const *names, int npol,
                  const int *add, int nadd, const struct gs_sim_opts *opts,
                  struct gs_error *err);

/* Free what `w` owns; NULL is a no-op. */
void gs_whatif_fini(struct gs_whatif *w);

/* The fluid cluster of `cl` (see above); NULL with `err` set on failure. */
struct gs_cluster *gs_cluster_fluid(const struct gs_cluster *cl, struct gs_error *err);

/* `cl` plus `n` nodes shaped like its most common node (named added-1,
 * ...), sealed; NULL with `err` set on failure. */
struct gs_cluster *gs_cluster_add_like(const struct gs_cluster *cl, int n,
                                       struct gs_error *err);

/* Draw w->v from the runs of `w` (whatif_verdict.c; called by
 * gs_whatif_run).  Pure; never fails. */
void gs_whatif_judge(struct gs_whatif *w, const struct gs_cluster *cl, const struct gs_trace *tr);

/* The relative gain of run `i` over the actual run at the p90 plus that at
 * the p99 (each (actual - run) / actual, 0 when the actual is 0): the key
 * the fixes are ranked by. */
double gs_whatif_gain(const struct gs_whatif *w, int i);

/* The nodes of the unallocated, sealed `cl` in the order `order` (a
 * permutation of the node indexes: new node i is old node order[i]; names,
 * types, domains, labels and host resources kept; MIG layouts are not
 * copied), sealed with the same S_k size; NULL with `err` set on failure.
 * `gpusched fill` uses it for FGD's random tie order. */
struct gs_cluster *gs_cluster_reordered(const struct gs_cluster *cl, const int *order,
                                        struct gs_error *err);

/* Quantiles of the first-start waits of the engine's jobs. */
void gs_wait_cdf_build(struct gs_wait_cdf *out, const struct gs_engine *eng);

#endif

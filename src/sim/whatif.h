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
 * The verdict compares p90 waits (A = actual, F = fluid under the current
 * policy, B = the best fluid run over all policies, P = the best
 * alternative policy on the actual cluster):
 *   no_queue       A < 5 min;
 *   shortage       B >= 50 % of A: even without fragmentation and with the
 *                  best policy the cluster queues - scheduling cannot help;
 *   fragmentation  otherwise, when A - F >= A - P (placement gains most);
 *   policy         otherwise (the queue rules gain most).
 * It also reports the seed's boundary cases where complex scheduling is
 * unnecessary.
 */
#ifndef GS_SIM_WHATIF_H
#define GS_SIM_WHATIF_H

#include "core/cluster.h"
#include "core/error.h"
#include "core/metrics.h"
#include "core/policy.h"
#include "sim/sim.h"
#include "sim/trace.h"

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
#define GS_WHATIF_NO_QUEUE_S 300.0 /* p90 below 5 min: no queue worth fixing */
#define GS_WHATIF_SHORTAGE 0.5     /* the best fluid run keeps half the p90 */
#define GS_WHATIF_UNIFORM 0.95     /* one job shape covers 95 % of jobs */

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

/* fill.h - FGD's fill experiment (Weng et al., USENIX ATC'23, section 6):
 * how much of a cluster stays unallocated, and how fragmented, as it fills.
 *
 * One run: take every job of the trace, then add copies drawn uniformly
 * with replacement until the next copy would push the GPU request (gpus x
 * share) past `inflate` x the cluster's GPUs (or drop random jobs until it
 * is below, when the trace already asks more); shuffle; place the jobs one
 * by one with no departures and no queue - a job that fits nowhere fails
 * and is dropped.  After every job record, per whole "arrived" percent
 * (GPU request so far, failed jobs included, / capacity, rounded): the
 * unallocated GPU share, FGD's fragmentation (frag.h) w.r.t. the workload's
 * typical shapes (the most frequent distinct shapes covering 95 % of the
 * jobs) as a ratio of the idle share and as an amount of the capacity, and
 * the schedulability S_k.  Several samples at one percent are averaged;
 * a percent with none takes the mean of its +-1 % neighbours.  Creation and
 * deletion times are ignored.  ../shared/traces/RESULTS.md ("Exact FGD
 * setup") and docs/placement.md describe the reproduction.
 *
 * Placement is the engine's gs_place under a strategy (pack, spread, topo,
 * frag), or one of the artifact's baseline score plugins re-implemented
 * here for comparison (random, dotprod, clustering, packing, bestfit, fgd):
 * a 0-100 integer node score, the highest wins, ties go to the smallest
 * node name as in the artifact's patched scheduler (random: a uniformly
 * drawn feasible node with the run's seed).  By default the nodes are
 * first put in a random order per seed (opts.ties, FGD's random node
 * names), and ties of every policy go to the first node of that order.  Jobs without GPUs take
 * host CPU and memory on a node (best fit; spread: most free).
 */
#ifndef GS_SIM_FILL_H
#define GS_SIM_FILL_H

#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "workload/trace.h"

enum gs_fill_policy {
    GS_FILL_ENGINE,       /* gs_place with opts.strategy */
    GS_FILL_RANDOM,       /* random feasible node, random GPU */
    GS_FILL_DOTPROD,      /* Tetris-style alignment of request and free vectors */
    GS_FILL_CLUSTERING,   /* prefer nodes already holding the same GPU-request class */
    GS_FILL_PACKING,      /* partly used GPUs, then partly used nodes, then idle */
    GS_FILL_BESTFIT,      /* least free CPU and GPU left */
    GS_FILL_FGD,          /* the artifact's FGD: quantised frag-decrease score */
};

/* Which node wins a tie (equal scores).  RANDOM: the artifact's protocol -
 * it renames every node with a random prefix per seed and breaks ties by
 * name, i.e. a random node order per seed; here the nodes are permuted
 * with a generator seeded from the run's seed (its own stream: the sampled
 * workload does not change) and ties go to the first node of that order.
 * FILE: the cluster file's order (baselines: the smallest node name). */
enum gs_fill_ties { GS_FILL_TIES_RANDOM, GS_FILL_TIES_FILE };

/* Which jobs define the typical shapes.  ORIGINAL: the trace's own jobs,
 * as the artifact (it builds them before inflating); INFLATED: the run's
 * inflated job list. */
enum gs_fill_typical { GS_FILL_TYPICAL_ORIGINAL, GS_FILL_TYPICAL_INFLATED };

struct gs_fill_opts {
    double inflate;       /* target GPU request / capacity (FGD: 1.3) */
    uint64_t seed;        /* sampling, shuffle and tie-breaking */
    int policy;           /* enum gs_fill_policy */
    int strategy;         /* GS_FILL_ENGINE: enum gs_strategy */
    double sched_weight;  /* frag strategy: S_k weight (place.h) */
    double quantum;       /* frag strategy: score step, milli-GPU (place.h) */
    double coverage;      /* typical shapes: share of jobs covered (0.95) */
    int ties;             /* enum gs_fill_ties (default random) */
    int typical;          /* enum gs_fill_typical (default original) */
    int score_shape;      /* frag strategy: enum gs_frag_score (place.h) */
};

struct gs_fill_point {
    int arrived;          /* GPU request so far, % of capacity */
    double unallocated;   /* % of the GPU capacity not allocated */
    double frag_ratio;    /* fragmented / idle GPU share, % */
    double frag_amount;   /* fragmented GPU share / capacity, % */
    double schedulability; /* S_k: k-GPU jobs that fit at once */
};

struct gs_fill_result {
    int npoints;                  /* points[a] is arrived = a % */
    struct gs_fill_point *points; /* owned */
    int64_t jobs, placed, failed;
    int k;                        /* S_k job size */
    int shapes;                   /* typical shapes used */
};

/* Fill `opts.policy` names; "pack", "spread", "topo", "frag" map to the
 * engine strategies.  Returns 0 and sets *policy / *strategy, or
 * GS_ENOENT. */
int gs_fill_policy_find(const char *name, int *policy, int *strategy);

/* Name of a policy (for reports). */
const char *gs_fill_policy_name(int policy, int strategy);

/* Set the defaults: inflate 1.3, seed 42, engine frag, weight 1, quantum
 * 100, coverage 0.95, random tie order, typical shapes of the original
 * trace, quantum score shape. */
void gs_fill_defaults(struct gs_fill_opts *o);

/* One run on a copy of the sealed cluster `cl` (left untouched).  Returns 0
 * and fills `out` (free with gs_fill_result_fini), GS_EINVAL (no jobs, no
 * GPUs, bad options) or GS_ENOMEM. */
int gs_fill_run(const struct gs_cluster *cl, const struct gs_trace *tr,
                const struct gs_fill_opts *o, struct gs_fill_result *out, struct gs_error *err);

/* Median over `n` runs, point by point (points present in every run);
 * counts are summed.  Returns 0 or GS_ENOMEM. */
int gs_fill_median(const struct gs_fill_result *runs, int n, struct gs_fill_result *out);

/* Free what `r` owns; NULL is a no-op. */
void gs_fill_result_fini(struct gs_fill_result *r);

#endif

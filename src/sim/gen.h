/* gen.h - seeded synthetic workload generator (for examples, tests and
 * benchmarks).
 *
 * Jobs come from a set of job templates (a user running the same job again
 * and again, which is what history-based estimates exploit).  Each template
 * has a GPU count drawn from the size mix, a team, a user, a name and a
 * log-normal run-time distribution around its own median.  Arrivals are a
 * Poisson process whose rate makes the offered load (GPU-seconds asked per
 * second / cluster GPUs) equal to `load`.  Users declare a time limit that
 * over-estimates the run time by a log-normal factor (median 3x), rounded up
 * to 10 minutes.  Same options and seed, same trace, on every machine.
 *
 * Mixed training + inference (issue 5): with infer_share > 0 that share of
 * the jobs are inference jobs (class infer) drawn from their own templates:
 * one GPU or a fraction of one, log-normal run times around infer_median_s
 * (seconds to minutes), priority infer_priority.  Training jobs of a
 * ckpt_share of the training templates checkpoint every ckpt_interval_s of
 * work at ckpt_cost_s.  With infer_share 0 and no checkpoints the trace is
 * the same as without these options.
 */
#ifndef GS_SIM_GEN_H
#define GS_SIM_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "core/cluster/node_event.h"
#include "workload/trace.h"

#define GS_GEN_MAX_SIZES 8

struct gs_gen_opts {
    size_t jobs;
    uint64_t seed;
    double load;                  /* offered load, (0, 10] */
    int teams;                    /* >= 1 */
    int templates;                /* distinct (user, name) job kinds, >= 1 */
    int nsizes;                   /* size mix: GPU counts and weights */
    int sizes[GS_GEN_MAX_SIZES];
    double weights[GS_GEN_MAX_SIZES];
    double median_s[GS_GEN_MAX_SIZES]; /* median run time per size, seconds */
    double sigma;                 /* log-normal sigma within a template */
    double template_sigma;        /* spread of template medians around median_s */
    /* mixed training + inference */
    double infer_share;           /* share of jobs that are inference, [0, 1) */
    double infer_median_s;        /* median run time of an inference job */
    int infer_milli;              /* GPU share of an inference job, 1..1000 */
    int infer_priority;
    double ckpt_interval_s;       /* training checkpoint interval, 0 = none */
    double ckpt_cost_s;
    double ckpt_share;            /* share of training templates that checkpoint */
};

/* Defaults: 1000 jobs, seed 1, load 0.8, 4 teams, 48 templates, size mix
 * 1:50%, 2:25%, 4:10%, 8:15% with medians 30m, 45m, 1h, 3h, sigma 0.6,
 * template spread 0.8; no inference (median 60 s, whole GPU, priority 10
 * when enabled), no checkpoints (cost 60 s, every template when enabled). */
void gs_gen_defaults(struct gs_gen_opts *o);

/* Generate `o->jobs` jobs for cluster `cl` into the empty trace `out`.
 * Sizes larger than the cluster's largest node are dropped from the mix.
 * Returns 0, GS_EINVAL (bad options, message names the option) or
 * GS_ENOMEM. */
int gs_gen_workload(const struct gs_cluster *cl, const struct gs_gen_opts *o,
                    struct gs_trace *out, struct gs_error *err);

/* Random node failures (`gen --mtbf`): each node of `cl` stays up for an
 * exponential time of mean mtbf_s, goes down, and is up again repair_s
 * later, and so on until `horizon`.  Each node draws from its own stream
 * of `seed`, so the list does not depend on the trace's options; same
 * options, same list.  Appends to `out` (sorted by time, ties in node
 * order).  Returns 0, GS_EINVAL (mtbf_s <= 0 or repair_s < 0), GS_ENOMEM. */
struct gs_gen_failure_opts {
    uint64_t seed;
    double mtbf_s, repair_s;
    gs_time horizon;
    double gpu_mtbf_s;        /* > 0: each GPU fails on its own too (gpu events);
                                 then mtbf_s may be 0 (no node failures) */
};
int gs_gen_failures(const struct gs_cluster *cl, const struct gs_gen_failure_opts *o,
                    struct gs_node_events *out, struct gs_error *err);

#endif

/* gen.c - synthetic workload generator (see gen.h for the model). */
#include "sim/gen.h"
#include "core/base/alloc.h"
#include "core/base/rng.h"

#include <math.h>
#include <stdio.h>

struct tmpl {
    int gpus;
    int team, user;
    double mu;                    /* log of the template's median, seconds */
    int infer;                    /* an inference template */
    int ckpt;                     /* its jobs checkpoint */
};

void gs_gen_defaults(struct gs_gen_opts *o)
{
    *o = (struct gs_gen_opts){ 0 };
    o->jobs = 1000;
    o->seed = 1;
    o->load = 0.8;
    o->teams = 4;
    o->templates = 48;
    o->nsizes = 4;
    const int sizes[] = { 1, 2, 4, 8 };
    const double w[] = { 0.50, 0.25, 0.10, 0.15 };
    const double med[] = { 1800, 2700, 3600, 10800 };
    for (int i = 0; i < 4; i++) {
        o->sizes[i] = sizes[i];
        o->weights[i] = w[i];
        o->median_s[i] = med[i];
    }
    o->sigma = 0.6;
    o->template_sigma = 0.8;
    o->infer_median_s = 60;
    o->infer_milli = 1000;
    o->infer_priority = 10;
    o->ckpt_cost_s = 60;
    o->ckpt_share = 1;
}

static double normal(struct gs_rng *r)
{
    /* Box-Muller; u1 in (0, 1] so log is finite */
    double u1 = 1.0 - gs_rng_uniform(r), u2 = gs_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int check_opts(const struct gs_cluster *cl, const struct gs_gen_opts *o,
                      struct gs_error *err)
{
    if (o->jobs == 0 || o->jobs > 100000000)
        return gs_errorf(err, GS_EINVAL, "jobs: must be 1..1e8");
    if (!(o->load > 0 && o->load <= 10))
        return gs_errorf(err, GS_EINVAL, "load: must be in (0, 10]");
    if (o->teams < 1 || o->teams > 1000 || o->templates < 1 || o->templates > 1000000)
        return gs_errorf(err, GS_EINVAL, "teams/templates: out of range");
    if (o->nsizes < 1 || o->nsizes > GS_GEN_MAX_SIZES)
        return gs_errorf(err, GS_EINVAL, "size mix: 1-%d sizes", GS_GEN_MAX_SIZES);
    int usable = 0;
    for (int i = 0; i < o->nsizes; i++) {
        if (o->sizes[i] < 1 || !(o->weights[i] >= 0) || !(o->median_s[i] > 0))
            return gs_errorf(err, GS_EINVAL, "size mix entry %d: bad size, weight or median",
                             i);
        if (o->sizes[i] <= gs_cluster_max_node_gpus(cl) && o->weights[i] > 0)
            usable = 1;
    }
    if (!usable)
        return gs_errorf(err, GS_EINVAL, "size mix: no size fits the cluster's nodes");
    if (!(o->sigma >= 0 && o->sigma < 5) || !(o->template_sigma >= 0 && o->template_sigma < 5))
        return gs_errorf(err, GS_EINVAL, "sigma: must be in [0, 5)");
    if (!(o->infer_share >= 0 && o->infer_share < 1) || !(o->infer_median_s > 0) ||
        o->infer_milli < 1 || o->infer_milli > 1000)
        return gs_errorf(err, GS_EINVAL, "inference: share in [0, 1), median > 0, GPU share "
                                         "in (0, 1]");
    if (!(o->ckpt_interval_s >= 0) || !(o->ckpt_cost_s >= 0) ||
        !(o->ckpt_share >= 0 && o->ckpt_share <= 1))
        return gs_errorf(err, GS_EINVAL, "checkpoints: interval and cost >= 0, share in [0, 1]");
    return 0;
}

static int pick_size(const struct gs_cluster *cl, const struct gs_gen_opts *o,
                     struct gs_rng *r)
{
    double total = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] <= gs_cluster_max_node_gpus(cl))
            total += o->weights[i];
    double u = gs_rng_uniform(r) * total;
    int last = 0;
    for (int i = 0; i < o->nsizes; i++) {
        if (o->sizes[i] > gs_cluster_max_node_gpus(cl) || o->weights[i] <= 0)
            continue;
        last = i;
        if (u < o->weights[i])
            return i;
        u -= o->weights[i];
    }
    return last;
}

/* Build templates; returns the mean GPU-seconds per job E[g * d]. */
static double make_templates(const struct gs_cluster *cl, const struct gs_gen_opts *o,
                             struct gs_rng *r, struct tmpl *t)
{
    double sum = 0;
    for (int i = 0; i < o->templates; i++) {
        int s = pick_size(cl, o, r);
        t[i].gpus = o->sizes[s];
        t[i].team = i % o->teams;
        t[i].user = i;
        t[i].mu = log(o->median_s[s]) + o->template_sigma * normal(r);
        /* golden-ratio stride: a deterministic, well spread ckpt_share */
        double frac = fmod((double)i * 0.6180339887498949, 1.0);
        t[i].ckpt = o->ckpt_interval_s > 0 && frac < o->ckpt_share;
        sum += t[i].gpus * exp(t[i].mu + o->sigma * o->sigma / 2);
    }
    return sum / o->templates;
}

/* Inference templates after the training ones (so the training part of
 * the RNG stream is unchanged); returns their mean GPU-seconds per job. */
static double make_infer(const struct gs_gen_opts *o, struct gs_rng *r, struct tmpl *t, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        t[i].gpus = 1;
        t[i].team = i % o->teams;
        t[i].user = o->templates + i;
        t[i].mu = log(o->infer_median_s) + o->template_sigma * normal(r);
        t[i].infer = 1;
        sum += o->infer_milli / 1000.0 * exp(t[i].mu + o->sigma * o->sigma / 2);
    }
    return sum / n;
}

static int add_job(struct gs_trace *out, size_t i, const struct tmpl *t, double submit,
                   double dur, double limit)
{
    char id[32], team[32], user[32], name[32];
    snprintf(id, sizeof id, "j%zu", i + 1);
    snprintf(team, sizeof team, "team-%c", 'a' + t->team % 26);
    if (t->team >= 26)
        snprintf(team, sizeof team, "team-%d", t->team);
    snprintf(user, sizeof user, "u%d", t->user % 997);
    snprintf(name, sizeof name, "%s%d", t->infer ? "serve" : "job", t->user);
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = id;
    s.submit = gs_time_from_sec(submit);
    s.gpus = t->gpus;
    s.team = team;
    s.user = user;
    s.name = name;
    s.time_limit = gs_time_from_sec(limit);
    return gs_trace_add(out, &s, gs_time_from_sec(dur));
}

/* Class, share, priority and checkpoints of the job just added. */
static void set_class(struct gs_trace *out, size_t i, const struct tmpl *t,
                      const struct gs_gen_opts *o)
{
    struct gs_job_spec *s = gs_trace_job_mut(out, i);
    if (t->infer) {
        s->klass = GS_CLASS_INFER;
        s->milli = o->infer_milli;
        s->priority = o->infer_priority;
    } else if (t->ckpt) {
        s->ckpt_interval = gs_time_from_sec(o->ckpt_interval_s);
        s->ckpt_cost = gs_time_from_sec(o->ckpt_cost_s);
    }
}

/* Pick the next job's template: an inference one with probability
 * infer_share (one extra draw only when inference is on). */
static const struct tmpl *pick_tmpl(const struct gs_gen_opts *o, struct gs_rng *r,
                                    const struct tmpl *t, int ninfer)
{
    if (ninfer > 0 && gs_rng_uniform(r) < o->infer_share)
        return &t[o->templates + (int)gs_rng_below(r, (uint64_t)ninfer)];
    return &t[gs_rng_below(r, (uint64_t)o->templates)];
}

int gs_gen_workload(const struct gs_cluster *cl, const struct gs_gen_opts *o,
                    struct gs_trace *out, struct gs_error *err)
{
    int rc = check_opts(cl, o, err);
    if (rc < 0)
        return rc;
    struct gs_rng r;
    gs_rng_seed(&r, o->seed);
    int ninfer = o->infer_share > 0 ? (o->templates + 3) / 4 : 0;
    struct tmpl *t = gs_calloc((size_t)o->templates + (size_t)ninfer, sizeof *t);
    if (!t)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    double mean_work = make_templates(cl, o, &r, t);
    if (ninfer > 0)
        mean_work = (1 - o->infer_share) * mean_work +
                    o->infer_share * make_infer(o, &r, t + o->templates, ninfer);
    double rate = o->load * (double)gs_cluster_gpu_count(cl) / mean_work; /* jobs/s */
    double now = 0;
    for (size_t i = 0; i < o->jobs && rc == 0; i++) {
        const struct tmpl *tp = pick_tmpl(o, &r, t, ninfer);
        double dur = exp(tp->mu + o->sigma * normal(&r));
        dur = round(dur < 1 ? 1 : dur);
        double over = exp(log(3.0) + 0.6 * normal(&r));
        double limit = ceil(dur * (over < 1.05 ? 1.05 : over) / 600.0) * 600.0;
        if (add_job(out, i, tp, round(now), dur, limit) < 0)
            rc = gs_errorf(err, GS_ENOMEM, "out of memory");
        else
            set_class(out, i, tp, o);
        now += -log(1.0 - gs_rng_uniform(&r)) / rate;
    }
    gs_free(t);
    return rc;
}

/* preempt_metrics.c - preemption, class and checkpoint-advice figures (see
 * preempt_metrics.h for the model). */
#include "core/metrics/preempt_metrics.h"
#include "core/base/alloc.h"
#include "core/engine/engine.h"
#include "core/base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS_PER_H 3600000.0

const char *gs_class_name(int klass)
{
    return klass == GS_CLASS_INFER ? "infer" : "train";
}

double gs_class_slo_share(const struct gs_class_summary *c)
{
    return c->slo_jobs ? (double)c->slo_met / (double)c->slo_jobs : 1.0;
}

static double share(const struct gs_job_info *ji)
{
    return (double)gs_job_info_milli_gpus(ji) / GS_MILLI_GPU;
}

static gs_time run_ms(const struct gs_job_info *ji)
{
    return ji->work + ji->lost + ji->ckpt_wall + ji->restore_wall;
}

static void add_loss(struct gs_loss *l, const struct gs_job_info *ji)
{
    double g = share(ji) / MS_PER_H;
    l->preemptions += ji->preemptions;
    l->run_gpu_h += g * (double)run_ms(ji);
    l->lost_gpu_h += g * (double)ji->lost;
    l->ckpt_gpu_h += g * (double)ji->ckpt_wall;
    l->restore_gpu_h += g * (double)ji->restore_wall;
}

/* Waste fraction of interval I at cost C under MTBP M when a preemption
 * loses a x I / 2 (a = 1: Young/Daly). */
static double waste(double i, double c, double m, double a)
{
    return c / i + a * i / (2 * m);
}

/* Second pass for one class: per-job advice against the class's MTBP. */
static void advise_job(struct gs_ckpt_advice *a, const struct gs_job_info *ji,
                       const struct gs_job_spec *sp, double *wsum)
{
    double gh = share(ji) * (double)run_ms(ji) / MS_PER_H;
    if (sp->ckpt_interval <= 0) {
        a->unable++;
        a->unable_lost_gpu_h += share(ji) * (double)ji->lost / MS_PER_H;
        return;
    }
    a->able++;
    double i = gs_time_to_sec(sp->ckpt_interval), c = gs_time_to_sec(sp->ckpt_cost);
    *wsum += gh;
    a->cost_s += gh * c;
    a->interval_s += gh * i;
    if (a->mtbp_s <= 0 || c <= 0)
        return;
    double f = a->loss_factor, opt = sqrt(2 * c * a->mtbp_s / f);
    double gain = waste(i, c, a->mtbp_s, f) - waste(opt, c, a->mtbp_s, f);
    a->save_gpu_h += gain > 0 ? gh * gain : 0;
    if (i > 2 * opt)
        a->too_rare++;
    else if (i < opt / 2)
        a->too_often++;
    else
        a->right++;
}

/* a per class: work lost by jobs that checkpoint over what Young/Daly
 * expect of their preemptions (half an interval each); 1 when unmeasured,
 * at least 0.01. */
static void loss_factor(struct gs_preempt_summary *out, const struct gs_engine *eng)
{
    double lost[2] = { 0, 0 }, expect[2] = { 0, 0 };
    for (int j = 0; j < gs_engine_job_count(eng); j++) {
        struct gs_job_info ji;
        struct gs_job_spec sp;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue; /* retired */
        gs_engine_job_spec(eng, j, &sp);
        if (sp.ckpt_interval <= 0 || ji.preemptions == 0)
            continue;
        int c = ji.klass == GS_CLASS_INFER;
        lost[c] += (double)ji.lost;
        expect[c] += ji.preemptions * (double)sp.ckpt_interval / 2;
    }
    for (int c = 0; c < 2; c++) {
        double a = expect[c] > 0 ? lost[c] / expect[c] : 1;
        out->cls[c].advice.loss_factor = a < 0.01 ? 0.01 : a;
    }
}

static void advise(struct gs_preempt_summary *out, const struct gs_engine *eng)
{
    double wsum[2] = { 0, 0 }, run_s[2] = { 0, 0 }; /* MTBP wants job run time */
    int n = gs_engine_job_count(eng);
    for (int j = 0; j < n; j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue; /* retired */
        if (ji.runs > 0)
            run_s[ji.klass == GS_CLASS_INFER] += gs_time_to_sec(run_ms(&ji));
    }
    loss_factor(out, eng);
    for (int c = 0; c < 2; c++) {
        int64_t p = out->cls[c].loss.preemptions;
        out->cls[c].advice.mtbp_s = p > 0 ? run_s[c] / (double)p : 0;
    }
    for (int j = 0; j < n; j++) {
        struct gs_job_info ji;
        struct gs_job_spec sp;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue; /* retired */
        gs_engine_job_spec(eng, j, &sp);
        if (ji.runs > 0)
            advise_job(&out->cls[ji.klass == GS_CLASS_INFER].advice, &ji, &sp,
                       &wsum[ji.klass == GS_CLASS_INFER]);
    }
    for (int c = 0; c < 2; c++) {
        struct gs_ckpt_advice *a = &out->cls[c].advice;
        if (wsum[c] > 0) {
            a->cost_s /= wsum[c];
            a->interval_s /= wsum[c];
        }
        a->optimal_s = a->mtbp_s > 0 ? sqrt(2 * a->cost_s * a->mtbp_s) : 0;
        a->calibrated_s = a->optimal_s / sqrt(a->loss_factor);
    }
}

static int find_team(struct gs_preempt_summary *out, const char *team)
{
    for (int t = 0; t < out->nteams; t++)
        if (strcmp(out->teams[t].team, team) == 0)
            return t;
    void *p = gs_realloc(out->teams, (size_t)(out->nteams + 1) * sizeof *out->teams);
    if (!p)
        return GS_ENOMEM;
    out->teams = p;
    struct gs_team_loss *tl = &out->teams[out->nteams];
    memset(tl, 0, sizeof *tl);
    tl->team = gs_strdup(team ? team : "default");
    if (!tl->team)
        return GS_ENOMEM;
    return out->nteams++;
}

static int cmp_team(const void *a, const void *b)
{
    return strcmp(((const struct gs_team_loss *)a)->team, ((const struct gs_team_loss *)b)->team);
}

/* Per-job pass: counts, waits, SLO, losses by class and team. */
static int per_job(struct gs_preempt_summary *out, const struct gs_engine *eng,
                   struct gs_dvec *waits)
{
    gs_time slo = gs_engine_policy(eng)->slo_wait;
    for (int j = 0; j < gs_engine_job_count(eng); j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue; /* retired */
        if (ji.state == GS_JOB_REJECTED)
            continue;
        int c = ji.klass == GS_CLASS_INFER;
        struct gs_class_summary *cs = &out->cls[c];
        cs->jobs++;
        add_loss(&cs->loss, &ji);
        add_loss(&out->total, &ji);
        int t = find_team(out, ji.team);
        if (t < 0)
            return t;
        add_loss(&out->teams[t].loss, &ji);
        int started = ji.first_start != GS_TIME_NONE;
        if (!started && ji.state == GS_JOB_CANCELLED)
            continue;
        cs->slo_jobs++;
        if (!started)
            continue;
        cs->started++;
        cs->slo_met += ji.first_start - ji.submit <= slo;
        if (gs_dvec_push(&waits[c], gs_time_to_sec(ji.first_start - ji.submit)) < 0)
            return GS_ENOMEM;
    }
    return 0;
}

int gs_preempt_summary_build(struct gs_preempt_summary *out, const struct gs_engine *eng)
{
    memset(out, 0, sizeof *out);
    out->slo_wait_s = gs_time_to_sec(gs_engine_policy(eng)->slo_wait);
    struct gs_dvec waits[2] = { { 0 }, { 0 } };
    int rc = per_job(out, eng, waits);
    for (int c = 0; c < 2; c++) {
        gs_pctl_compute(&out->cls[c].wait, waits[c].v, waits[c].n);
        gs_dvec_fini(&waits[c]);
    }
    if (rc < 0) {
        gs_preempt_summary_fini(out);
        return GS_ENOMEM;
    }
    if (out->nteams > 1)
        qsort(out->teams, (size_t)out->nteams, sizeof *out->teams, cmp_team);
    advise(out, eng);
    return 0;
}

void gs_preempt_summary_fini(struct gs_preempt_summary *s)
{
    if (!s)
        return;
    for (int t = 0; t < s->nteams; t++)
        gs_free(s->teams[t].team);
    gs_free(s->teams);
    s->teams = NULL;
    s->nteams = 0;
}

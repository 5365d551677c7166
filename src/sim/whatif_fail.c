/* whatif_fail.c - checkpoint interval x hot spares for the jobs that
 * matter, under one failure process (whatif_fail.h). */
#include "sim/whatif_fail.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The targets: their smallest size, count, and the first one's C and tau. */
static int pick_targets(struct gs_wfail *w, const struct gs_cluster *cl,
                        const struct gs_trace *tr, int min_gpus, struct gs_error *err)
{
    int maxg = 0;
    for (size_t i = 0; i < gs_trace_count(tr); i++)
        if (gs_trace_job(tr, i)->gpus > maxg)
            maxg = gs_trace_job(tr, i)->gpus;
    w->min_gpus = min_gpus > 0 ? min_gpus : maxg;
    const struct gs_job_spec *first = NULL;
    for (size_t i = 0; i < gs_trace_count(tr); i++) {
        const struct gs_job_spec *s = gs_trace_job(tr, i);
        if (s->gpus < w->min_gpus || s->gpus == 0)
            continue;
        w->njobs++;
        if (!first)
            first = s;
        else if (s->ckpt_interval != first->ckpt_interval || s->ckpt_cost != first->ckpt_cost)
            w->mixed = 1;
    }
    if (!first)
        return gs_errorf(err, GS_EINVAL, "whatif --failures: no job of %d GPUs or more",
                         w->min_gpus);
    if (first->ckpt_cost <= 0)
        return gs_errorf(err, GS_EINVAL,
                         "whatif --failures: job %s writes checkpoints at no cost "
                         "(checkpoint_cost 0): Young/Daly's interval needs one",
                         first->id ? first->id : "?");
    int node = gs_cluster_max_node_gpus(cl);
    w->nodes = node > 0 ? (w->min_gpus + node - 1) / node : 1;
    w->ckpt_cost_s = gs_time_to_sec(first->ckpt_cost);
    w->cur_tau_s = gs_time_to_sec(first->ckpt_interval);
    return 0;
}

/* Columns: Young/Daly x 1/4 ... 4 and the current interval (0 = none),
 * ascending, the current one merged into a grid point within 2 %. */
static void build_taus(struct gs_wfail *w, const struct gs_failure_model *m)
{
    static const double f[] = { 0.25, 0.5, 1, 2, 4 };
    /* the job fails when one of its nodes or (gpu_mtbf) of its GPUs does */
    double rate = (m->mtbf_s > 0 ? w->nodes / m->mtbf_s : 0) +
                  (m->gpu_mtbf_s > 0 ? w->min_gpus / m->gpu_mtbf_s : 0);
    w->job_mtbf_s = m->gpu_mtbf_s > 0 ? 1 / rate : m->mtbf_s / w->nodes; /* (as before) */
    w->yd_s = sqrt(2 * w->ckpt_cost_s * w->job_mtbf_s);
    w->ntau = 0;
    int cur_in = 0;
    for (int i = 0; i < 5; i++) {
        double t = round(w->yd_s * f[i]);
        if (fabs(t - w->cur_tau_s) <= 0.02 * t)
            cur_in = 1;
        w->tau_s[w->ntau++] = t;
    }
    if (!cur_in)
        w->tau_s[w->ntau++] = w->cur_tau_s;
    for (int i = 1; i < w->ntau; i++) /* insertion sort */
        for (int k = i; k > 0 && w->tau_s[k - 1] > w->tau_s[k]; k--) {
            double t = w->tau_s[k];
            w->tau_s[k] = w->tau_s[k - 1];
            w->tau_s[k - 1] = t;
        }
    for (int i = 0; i < w->ntau; i++) {
        if (fabs(w->tau_s[i] - round(w->yd_s)) < 0.5)
            w->yd_col = i;
        if (fabs(w->tau_s[i] - w->cur_tau_s) <= 0.02 * w->tau_s[i] ||
            (w->cur_tau_s == 0 && w->tau_s[i] == 0))
            w->cur_col = i;
    }
}

/* `tr` with the targets' checkpoint interval set to tau_s. */
static struct gs_trace *trace_tau(const struct gs_trace *tr, int min_gpus, double tau_s)
{
    struct gs_trace *t = gs_trace_create();
    for (size_t i = 0; t && i < gs_trace_count(tr); i++) {
        struct gs_job_spec s = *gs_trace_job(tr, i);
        if (s.gpus >= min_gpus && s.gpus > 0)
            s.ckpt_interval = gs_time_from_sec(tau_s);
        if (gs_trace_add(t, &s, gs_trace_duration(tr, i)) < 0) {
            gs_trace_destroy(t);
            return NULL;
        }
    }
    return t;
}

/* A job's ETTR (report_fail.h's gs_report_job_ettr: sim may not use the
 * report layer): useful work / wall time since its first start. */
static int job_ettr(const struct gs_job_info *ji, double *ettr)
{
    if (ji->first_start == GS_TIME_NONE || ji->end == GS_TIME_NONE ||
        ji->end <= ji->first_start)
        return 0;
    gs_time useful = ji->state == GS_JOB_DONE ? ji->work : ji->saved;
    *ettr = (double)useful / (double)(ji->end - ji->first_start);
    return 1;
}

/* The targets' figures from one run's engine. */
static void measure(const struct gs_wfail *w, const struct gs_sim_result *r,
                    struct gs_wfail_cell *c)
{
    double useful = 0, wall = 0, lost = 0, wait = 0;
    int64_t nwait = 0;
    memset(c, 0, sizeof *c);
    for (int j = 0; j < gs_engine_job_count(r->engine); j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(r->engine, j, &ji) < 0)
            continue;
        double mg = (double)gs_job_info_milli_gpus(&ji) / GS_MILLI_GPU;
        if (ji.gpus < w->min_gpus || ji.gpus == 0) {
            if (ji.first_start != GS_TIME_NONE) {
                wait += gs_time_to_sec(ji.first_start - ji.submit);
                nwait++;
            }
            continue;
        }
        if ((size_t)j < r->fail->njobs) {
            lost += mg * gs_time_to_sec(r->fail->lost[j]);
            c->restarts += r->fail->restarts[j];
        }
        double e;
        if (job_ettr(&ji, &e)) {
            double wl = gs_time_to_sec(ji.end - ji.first_start);
            useful += mg * e * wl;
            wall += mg * wl;
            c->ended++;
        }
    }
    c->ettr = wall > 0 ? useful / wall : -1;
    c->lost_gpu_h = lost / 3600;
    c->others_wait_h = nwait ? wait / nwait / 3600 : 0;
}

static int run_cell(struct gs_wfail *w, int r, int col, const struct gs_cluster *cl,
                    const struct gs_policy *pol, const struct gs_trace *tr,
                    const struct gs_failure_model *model, const struct gs_node_events *ne,
                    struct gs_error *err)
{
    struct gs_policy p;
    if (gs_policy_copy(&p, pol) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    p.spares_nodes = w->spares[r];
    p.spares_min_gpus = w->min_gpus;
    struct gs_trace *t = trace_tau(tr, w->min_gpus, w->tau_s[col]);
    int rc = t ? 0 : gs_errorf(err, GS_ENOMEM, "out of memory");
    struct gs_sim_opts o = { 0 };
    o.node_events = ne;
    o.failures = model;
    struct gs_sim_result res;
    if (rc == 0 && (rc = gs_sim_run(cl, &p, t, &o, &res, err)) < 0 && err) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        gs_errorf(err, rc, "interval %.0f s, %d spares: %s", w->tau_s[col], w->spares[r], msg);
    }
    if (rc == 0) {
        measure(w, &res, &w->cell[r][col]);
        gs_sim_result_fini(&res);
    }
    gs_trace_destroy(t);
    gs_policy_fini(&p);
    return rc;
}

double gs_wfail_gain(const struct gs_wfail *w, int r, int c)
{
    double b = w->cell[w->base_row][w->cur_col].ettr, x = w->cell[r][c].ettr;
    return b < 0 || x < 0 ? -1 : x - b;
}

/* Best cells: ties go to the earlier (fewer spares; shorter interval at
 * the base row, which the grid sorts ascending). */
static void judge(struct gs_wfail *w)
{
    w->base_row = 0;
    for (int r = 0; r < w->nsp; r++)
        if (w->spares[r] == 0) {
            w->base_row = r;
            break;
        }
    w->best_col = w->cur_col;
    w->best_row = w->base_row;
    w->best_r = w->base_row;
    w->best_c = w->cur_col;
    for (int c = 0; c < w->ntau; c++)
        if (w->cell[w->base_row][c].ettr > w->cell[w->base_row][w->best_col].ettr + 1e-9)
            w->best_col = c;
    for (int r = 0; r < w->nsp; r++)
        if (w->cell[r][w->cur_col].ettr > w->cell[w->best_row][w->cur_col].ettr + 1e-9)
            w->best_row = r;
    for (int r = 0; r < w->nsp; r++)
        for (int c = 0; c < w->ntau; c++)
            if (w->cell[r][c].ettr > w->cell[w->best_r][w->best_c].ettr + 1e-9) {
                w->best_r = r;
                w->best_c = c;
            }
}

int gs_wfail_run(struct gs_wfail *out, const struct gs_cluster *cl, const struct gs_policy *pol,
                 const struct gs_trace *tr, const struct gs_failure_model *model,
                 const struct gs_node_events *ne, const struct gs_wfail_opts *opts,
                 struct gs_error *err)
{
    static const int dflt[] = { 0, 1, 2, 4 };
    memset(out, 0, sizeof *out);
    const int *sp = opts && opts->spares ? opts->spares : dflt;
    int nsp = opts && opts->spares ? opts->nspares : 4;
    if (nsp < 1 || nsp > GS_WFAIL_MAX_SPARES)
        return gs_errorf(err, GS_EINVAL, "whatif --failures: 1 to %d spare counts",
                         GS_WFAIL_MAX_SPARES);
    out->nsp = nsp;
    memcpy(out->spares, sp, (size_t)nsp * sizeof *sp);
    out->expedite = pol->retry_expedite;
    int rc = pick_targets(out, cl, tr, opts ? opts->min_gpus : 0, err);
    if (rc < 0)
        return rc;
    build_taus(out, model);
    for (int r = 0; rc == 0 && r < out->nsp; r++)
        for (int c = 0; rc == 0 && c < out->ntau; c++)
            rc = run_cell(out, r, c, cl, pol, tr, model, ne, err);
    if (rc == 0)
        judge(out);
    return rc;
}

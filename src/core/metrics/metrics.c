/* metrics.c - time-weighted cluster figures and the job-level summary. */
#include "core/metrics/metrics.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdlib.h>
#include <string.h>

struct gs_metrics {
    int started, closed;
    gs_time first, last, end;
    struct gs_cluster_stats cur;
    /* integrals over time, in GPU-ms (or job-ms for sched) */
    double used_milli_ms, sched_ms, ge1_ms, frag_count_ms, frag_topo_ms;
    double frag_mem_ms, frag_mig_ms;
    gs_time window_start;          /* GS_TIME_NONE when S_k < 1 */
    struct gs_dvec windows;        /* lengths in seconds */
};

struct gs_metrics *gs_metrics_create(void)
{
    struct gs_metrics *m = gs_calloc(1, sizeof *m);
    if (m)
        m->window_start = GS_TIME_NONE;
    return m;
}

void gs_metrics_destroy(struct gs_metrics *m)
{
    if (!m)
        return;
    gs_dvec_fini(&m->windows);
    gs_free(m);
}

static void integrate(struct gs_metrics *m, gs_time until)
{
    double dt = (double)(until - m->last);
    if (dt <= 0)
        return;
    m->used_milli_ms += dt * (double)m->cur.used_milli;
    m->sched_ms += dt * (double)m->cur.sched;
    if (m->cur.sched >= 1)
        m->ge1_ms += dt;
    m->frag_count_ms += dt * (double)m->cur.frag_count;
    m->frag_topo_ms += dt * (double)m->cur.frag_topology;
    m->frag_mem_ms += dt * m->cur.frag_memory;
    m->frag_mig_ms += dt * m->cur.frag_mig;
    m->last = until;
}

static int close_window(struct gs_metrics *m, gs_time t)
{
    if (m->window_start == GS_TIME_NONE)
        return 0;
    gs_time len = t - m->window_start;
    m->window_start = GS_TIME_NONE;
    /* a window of no length (S_k >= 1 only at an instant) is not a window */
    return len > 0 ? gs_dvec_push(&m->windows, gs_time_to_sec(len)) : 0;
}

int gs_metrics_sample(struct gs_metrics *m, gs_time now, const struct gs_cluster_stats *s)
{
    if (!m->started) {
        m->started = 1;
        m->first = m->last = now;
    }
    integrate(m, now);
    if (s->sched >= 1 && m->window_start == GS_TIME_NONE)
        m->window_start = now;
    else if (s->sched < 1 && close_window(m, now) < 0)
        return GS_ENOMEM;
    m->cur = *s;
    return 0;
}

int gs_metrics_close(struct gs_metrics *m, gs_time end)
{
    if (!m->started) {
        m->started = 1;
        m->first = m->last = end;
    }
    if (end < m->last)
        end = m->last;
    integrate(m, end);
    m->end = end;
    m->closed = 1;
    return close_window(m, end);
}

const char *gs_size_class_name(int cls)
{
    static const char *const names[] = { "1", "2-4", "5-8", ">8" };
    return cls >= 0 && cls < GS_SIZE_CLASSES ? names[cls] : "?";
}

static void count_state(struct gs_summary *out, const struct gs_job_info *ji)
{
    out->jobs++;
    switch (ji->state) {
    case GS_JOB_DONE: out->completed++; break;
    case GS_JOB_KILLED: out->killed++; break;
    case GS_JOB_CANCELLED: out->cancelled++; break;
    case GS_JOB_REJECTED: out->rejected++; break;
    case GS_JOB_FAILED: out->failed++; break;
    default: out->unfinished++; break;
    }
    if (ji->backfilled)
        out->backfilled++;
}


/* Waits per team, in a table indexed by team string; teams sorted by name. */
static int team_waits(struct gs_summary *out, const struct gs_engine *eng)
{
    int n = gs_engine_job_count(eng);
    struct gs_dvec *per = NULL;
    const char **names = NULL;
    int nt = 0, rc = 0;
    for (int j = 0; j < n && rc == 0; j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue; /* retired */
        if (ji.first_start == GS_TIME_NONE)
            continue;
        int t = 0;
        while (t < nt && strcmp(names[t], ji.team) != 0)
            t++;
        if (t == nt) {
            void *p1 = gs_realloc(per, (size_t)(nt + 1) * sizeof *per);
            if (p1)
                per = p1;
            void *p2 = gs_realloc(names, (size_t)(nt + 1) * sizeof *names);
            if (p2)
                names = p2;
            if (!p1 || !p2) {
                rc = GS_ENOMEM;
                break;
            }
            memset(&per[nt], 0, sizeof per[nt]);
            names[nt++] = ji.team;
        }
        rc = gs_dvec_push(&per[t], gs_time_to_sec(ji.first_start - ji.submit));
    }
    if (rc == 0 && nt > 0) {
        out->teams = gs_calloc((size_t)nt, sizeof *out->teams);
        if (!out->teams)
            rc = GS_ENOMEM;
    }
    for (int t = 0; t < nt; t++) {
        if (rc == 0) {
            out->teams[t].team = gs_strdup(names[t]);
            if (!out->teams[t].team)
                rc = GS_ENOMEM;
            gs_pctl_compute(&out->teams[t].wait, per[t].v, per[t].n);
        }
        gs_dvec_fini(&per[t]);
    }
    if (out->teams)
        out->nteams = nt; /* fini frees whatever names were copied */
    gs_free(per);
    gs_free(names);
    return rc;
}

static int cmp_team(const void *a, const void *b)
{
    return strcmp(((const struct gs_team_wait *)a)->team, ((const struct gs_team_wait *)b)->team);
}

/* Estimate accuracy: estimate / actual for completed jobs with an estimate. */
static int add_estimate(struct gs_dvec *ratios, int64_t *under, const struct gs_job_info *ji)
{
    if (ji->state != GS_JOB_DONE || ji->estimate == GS_TIME_NONE)
        return 0;
    gs_time actual = ji->end - ji->start;
    if (ji->estimate < actual)
        (*under)++;
    return gs_dvec_push(ratios, actual > 0 ? (double)ji->estimate / (double)actual : 1.0);
}

static void estimate_figures(struct gs_summary *out, struct gs_dvec *ratios, int64_t under)
{
    struct gs_pctl p;
    gs_pctl_compute(&p, ratios->v, ratios->n);
    out->estimate.n = p.n;
    out->estimate.ratio_p50 = p.p50;
    out->estimate.ratio_p90 = p.p90;
    out->estimate.under_share = p.n ? (double)under / (double)p.n : 0;
}

/* Useful GPU-ms of a job: the work it keeps (all of it when it completed,
 * what its checkpoints protect otherwise) times its GPU share.  Work lost
 * to preemption, checkpoint and restore time, slow-downs and the work of
 * jobs killed at the runtime cap are not useful. */
static double useful_gpu_ms(const struct gs_job_info *ji)
{
    double share = (double)ji->gpus * ji->milli / GS_MILLI_GPU;
    if (ji->state == GS_JOB_DONE)
        return share * (double)ji->work;
    return 0;
}

static int job_waits(struct gs_summary *out, const struct gs_engine *eng)
{
    struct gs_dvec wait = { 0 }, jct = { 0 }, by[GS_SIZE_CLASSES] = { { 0 } }, ratios = { 0 };
    int64_t under = 0;
    int rc = 0, n = gs_engine_job_count(eng);
    for (int j = 0; j < n && rc == 0; j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue; /* retired */
        count_state(out, &ji);
        out->useful_gpu_ms += useful_gpu_ms(&ji);
        if (ji.first_start != GS_TIME_NONE) {
            double w = gs_time_to_sec(ji.first_start - ji.submit);
            rc = gs_dvec_push(&wait, w);
            if (rc == 0)
                rc = gs_dvec_push(&by[gs_job_size_class(ji.gpus)], w);
        }
        if (rc == 0 && ji.state == GS_JOB_DONE)
            rc = gs_dvec_push(&jct, gs_time_to_sec(ji.end - ji.submit));
        if (rc == 0)
            rc = add_estimate(&ratios, &under, &ji);
    }
    estimate_figures(out, &ratios, under);
    gs_dvec_fini(&ratios);
    gs_pctl_compute(&out->wait, wait.v, wait.n);
    gs_pctl_compute(&out->jct, jct.v, jct.n);
    for (int c = 0; c < GS_SIZE_CLASSES; c++) {
        gs_pctl_compute(&out->wait_by_size[c], by[c].v, by[c].n);
        gs_dvec_fini(&by[c]);
    }
    gs_dvec_fini(&wait);
    gs_dvec_fini(&jct);
    return rc;
}

static void time_figures(struct gs_summary *out, const struct gs_metrics *m)
{
    double span_ms = (double)(m->end - m->first);
    double gpus = (double)out->gpus;
    out->span_start = m->first;
    out->span_end = m->end;
    out->sched.k = m->cur.k;
    if (span_ms <= 0 || gpus <= 0)
        return;
    out->util_alloc = m->used_milli_ms / GS_MILLI_GPU / (gpus * span_ms);
    out->util_effective = out->useful_gpu_ms / (gpus * span_ms);
    out->jobs_per_gpu_day = (double)out->completed / (gpus * span_ms / 86400000.0);
    out->sched.mean = m->sched_ms / span_ms;
    out->sched.share_ge1 = m->ge1_ms / span_ms;
    out->frag.count = m->frag_count_ms / span_ms;
    out->frag.topology = m->frag_topo_ms / span_ms;
    out->frag.memory = m->frag_mem_ms / span_ms;
    out->frag.mig = m->frag_mig_ms / span_ms;
}

static void window_figures(struct gs_summary *out, const struct gs_metrics *m)
{
    size_t n = m->windows.n;
    out->sched.windows = (int64_t)n;
    if (n == 0)
        return;
    double *v = gs_malloc(n * sizeof *v);
    if (!v)
        return;
    memcpy(v, m->windows.v, n * sizeof *v);
    struct gs_pctl p;
    gs_pctl_compute(&p, v, n);
    out->sched.win_mean = p.mean;
    out->sched.win_p50 = p.p50;
    out->sched.win_p90 = p.p90;
    out->sched.win_max = p.max;
    gs_free(v);
}

int gs_summary_build(struct gs_summary *out, const struct gs_metrics *m,
                     const struct gs_engine *eng)
{
    memset(out, 0, sizeof *out);
    out->gpus = gs_cluster_gpu_count(gs_engine_cluster(eng));
    out->util_effective_modelled = 1; /* rate.c: sharing and topology slow-downs */
    int rc = job_waits(out, eng);
    if (rc == 0)
        rc = team_waits(out, eng);
    if (rc == 0)
        rc = gs_preempt_summary_build(&out->pre, eng);
    if (rc < 0) {
        gs_summary_fini(out);
        return GS_ENOMEM;
    }
    if (out->nteams > 1)
        qsort(out->teams, (size_t)out->nteams, sizeof *out->teams, cmp_team);
    time_figures(out, m);
    if (out->sched.k == 0) /* never sampled (an empty trace): the cluster's own k */
        out->sched.k = gs_cluster_stats(gs_engine_cluster(eng)).k;
    window_figures(out, m);
    gs_wait_reasons_build(&out->waits, eng);
    gs_engine_queue_stats(eng, &out->queue);
    return 0;
}

void gs_summary_fini(struct gs_summary *s)
{
    if (!s)
        return;
    for (int t = 0; t < s->nteams; t++)
        gs_free((char *)s->teams[t].team);
    gs_free(s->teams);
    s->teams = NULL;
    s->nteams = 0;
    gs_preempt_summary_fini(&s->pre);
}

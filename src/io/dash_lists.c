/* dash_lists.c - the dashboard document's job lists: who holds each GPU,
 * the queue in pass order with its reasons, the running jobs and the
 * per-team figures (dash.h). */
#include "io/dash_private.h"
#include "io/report_diag.h"
#include "io/ioutil.h"
#include "io/placement.h"
#include "core/base/alloc.h"
#include "core/diagnose/diagnose.h"
#include "core/policy/policy.h"
#include "core/base/stats.h"

#include <stdlib.h>
#include <string.h>

static const char *job_state_name(int st)
{
    static const char *const names[] = { "pending", "running",  "done",     "killed", "cancelled",
                                         "rejected", "starting", "stopping", "failed" };
    return st >= 0 && st < (int)(sizeof names / sizeof names[0]) ? names[st] : "other";
}

static int jobs_limit(const struct gs_dash_src *src)
{
    int n = gs_engine_job_count(src->eng);
    return src->jobs_before >= 0 && src->jobs_before < n ? src->jobs_before : n;
}

/* The jobs holding GPUs below jobs_limit, in handle order (a daemon's
 * handles run into the millions; these are the running few).  Returns the
 * count with *out to gs_free, or GS_ENOMEM. */
static int held_jobs(const struct gs_dash_src *src, int **out)
{
    int n = gs_engine_running_count(src->eng), lim = jobs_limit(src), k = 0;
    *out = gs_malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
    if (!*out)
        return GS_ENOMEM;
    gs_engine_running_list(src->eng, *out, (size_t)n);
    for (int i = 0; i < n; i++)
        if ((*out)[i] < lim)
            (*out)[k++] = (*out)[i];
    return k;
}

static int map_job(struct gs_dash_gpumap *gm, const struct gs_dash_src *src, int job)
{
    struct gs_job_info ji;
    struct gs_alloc a;
    if (gs_engine_job_info(src->eng, job, &ji) < 0 || !gs_dash_holds(ji.state) ||
        gs_engine_job_alloc(src->eng, job, &a) < 0)
        return 0;
    int idx = -2, held = gs_dash_held(ji.state);
    const char *stname = job_state_name(ji.state);
    if (!gs_dash_anonymous(&ji)) {
        idx = (int)json_array_size(gm->table);
        if (json_array_append_new(gm->table, json_pack("{s:s, s:s, s:i, s:s}", "id", ji.id,
                                                       "team", ji.team ? ji.team : "default",
                                                       "gpus", ji.gpus, "state", stname)) < 0)
            return GS_ENOMEM;
    }
    for (int i = 0; i < a.nparts; i++) {
        int first = gs_cluster_node_first_gpu(src->cl, a.parts[i].node);
        if (held)
            gm->held[a.parts[i].node] |= a.parts[i].mask;
        for (uint64_t m = a.parts[i].mask; m; m &= m - 1) {
            int *cell = &gm->job[first + __builtin_ctzll(m)];
            *cell = *cell == -1 ? idx : *cell; /* a shared GPU shows its first job */
        }
    }
    return 0;
}

int gs_dash_gpumap_build(struct gs_dash_gpumap *gm, const struct gs_dash_src *src)
{
    size_t gpus = (size_t)gs_cluster_gpu_count(src->cl), nodes = (size_t)gs_cluster_node_count(src->cl);
    gm->job = gs_malloc((gpus ? gpus : 1) * sizeof *gm->job);
    gm->held = gs_calloc(nodes ? nodes : 1, sizeof *gm->held);
    gm->table = json_array();
    if (!gm->job || !gm->held || !gm->table)
        return GS_ENOMEM;
    for (size_t i = 0; i < gpus; i++)
        gm->job[i] = -1;
    int *held, n = held_jobs(src, &held);
    if (n < 0)
        return GS_ENOMEM;
    for (int i = 0; i < n; i++)
        if (map_job(gm, src, held[i]) < 0) {
            gs_free(held);
            return GS_ENOMEM;
        }
    gs_free(held);
    return 0;
}

void gs_dash_gpumap_fini(struct gs_dash_gpumap *gm)
{
    gs_free(gm->job);
    gs_free(gm->held);
    json_decref(gm->table);
    memset(gm, 0, sizeof *gm);
}

void gs_dash_placement(char *buf, size_t n, const struct gs_engine *eng, int job)
{
    struct gs_alloc a;
    buf[0] = '\0';
    if (gs_engine_job_alloc(eng, job, &a) == 0)
        gs_placement_format(buf, n, gs_engine_cluster(eng), a.parts, a.nparts,
                            GS_PLACEMENT_RANGES);
}

static json_t *queue_item(const struct gs_dash_src *src, int job, gs_time now)
{
    struct gs_job_info ji;
    if (gs_engine_job_info(src->eng, job, &ji) < 0)
        return NULL;
    json_t *o;
    if (ji.state == GS_JOB_PENDING) {
        struct gs_diag d;
        if (gs_engine_explain(src->eng, job, &d) < 0)
            return NULL;
        o = gs_report_diag_json(src->eng, &d);
    } else if (gs_dash_holds(ji.state)) {
        char where[512], detail[600];
        gs_dash_placement(where, sizeof where, src->eng, job);
        snprintf(detail, sizeof detail, "fits now: the scheduler starts it on %s", where);
        o = json_pack("{s:s, s:s, s:s, s:s, s:i}", "id", ji.id, "reason", "none", "detail",
                      detail, "placement", where, "est_in", 0);
    } else {
        o = json_pack("{s:s, s:s, s:s}", "id", ji.id, "reason", job_state_name(ji.state),
                      "detail", ji.state == GS_JOB_REJECTED ? "can never fit this cluster"
                                                            : "no longer queued");
    }
    if (o && (json_object_set_new(o, "team", json_string(ji.team ? ji.team : "default")) < 0 ||
              json_object_set_new(o, "gpus", json_integer(ji.gpus)) < 0 ||
              json_object_set_new(o, "priority", json_integer(ji.priority)) < 0 ||
              json_object_set_new(o, "wait", json_real(gs_time_to_sec(now - ji.submit))) < 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int clamp_page(int *off, int *lim, int total)
{
    *lim = *lim <= 0 ? GS_DASH_PAGE_DEFAULT : *lim > GS_DASH_PAGE_MAX ? GS_DASH_PAGE_MAX : *lim;
    *off = *off < 0 ? 0 : *off > total ? total : *off;
    return *off + *lim < total ? *off + *lim : total;
}

/* "queue": {total, offset, limit, items} and "reasons": {code: jobs}. */
static int queue_json(json_t *doc, const struct gs_dash_src *src, gs_time now)
{
    int off = src->q_offset, lim = src->q_limit, end = clamp_page(&off, &lim, src->nqueue);
    json_t *items = json_array(), *reasons = json_object();
    for (int i = off; items && i < end; i++)
        if (json_array_append_new(items, queue_item(src, src->queue[i], now)) < 0)
            goto fail;
    int count[GS_REASON_COUNT] = { 0 };
    for (int i = 0; i < src->nqueue; i++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(src->eng, src->queue[i], &ji) < 0)
            continue;
        if (ji.state == GS_JOB_PENDING) {
            int r = gs_engine_wait_reason(src->eng, src->queue[i]);
            count[r >= 0 && r < GS_REASON_COUNT ? r : 0]++;
        } else if (gs_dash_holds(ji.state)) {
            count[GS_REASON_NONE]++; /* a snapshot's queue job its pass started */
        }
    }
    for (int r = 0; reasons && r < GS_REASON_COUNT; r++)
        if (count[r])
            json_object_set_new(reasons, gs_reason_name(r), json_integer(count[r]));
    if (!items || !reasons ||
        json_object_set_new(doc, "queue", json_pack("{s:i, s:i, s:i, s:o}", "total",
                                                    src->nqueue, "offset", off, "limit", lim,
                                                    "items", items)) < 0)
        goto fail;
    return json_object_set_new(doc, "reasons", reasons) < 0 ? GS_ENOMEM : 0;
fail:
    json_decref(items);
    json_decref(reasons);
    return GS_ENOMEM;
}

/* ---- running jobs ---------------------------------------------------------- */

struct run_key {
    gs_time start;
    int job;
};

static int cmp_run(const void *a, const void *b)
{
    const struct run_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

static json_t *running_item(const struct gs_dash_src *src, int job, gs_time now)
{
    struct gs_job_info ji;
    char where[512];
    gs_engine_job_info(src->eng, job, &ji);
    const char *stname = job_state_name(ji.state);
    gs_dash_placement(where, sizeof where, src->eng, job);
    json_t *est = ji.estimate == GS_TIME_NONE || ji.estimate <= 0
                      ? json_null() : json_real(gs_time_to_sec(ji.estimate));
    /* ETTR so far: work kept over the time since the first start */
    json_t *ettr = ji.first_start == GS_TIME_NONE || now <= ji.first_start
                       ? json_null()
                       : json_real((double)ji.work / (double)(now - ji.first_start));
    return json_pack("{s:s, s:s, s:i, s:s, s:s, s:f, s:f, s:o, s:o}", "id", ji.id, "team",
                     ji.team ? ji.team : "default", "gpus", ji.gpus, "state", stname,
                     "placement", where, "start",
                     gs_time_to_sec(ji.start), "elapsed", gs_time_to_sec(now - ji.start),
                     "estimate", est, "ettr", ettr);
}

static int running_json(json_t *doc, const struct gs_dash_src *src, gs_time now)
{
    int *held, n = held_jobs(src, &held), nr = 0;
    struct run_key *keys = n >= 0 ? gs_malloc((size_t)(n ? n : 1) * sizeof *keys) : NULL;
    json_t *items = json_array();
    if (!keys || !items) {
        gs_free(held); /* NULL when held_jobs failed */
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(src->eng, held[i], &ji) == 0 && gs_dash_holds(ji.state) &&
            !gs_dash_anonymous(&ji))
            keys[nr++] = (struct run_key){ ji.start, held[i] };
    }
    gs_free(held);
    qsort(keys, (size_t)nr, sizeof *keys, cmp_run);
    int off = src->r_offset, lim = src->r_limit, end = clamp_page(&off, &lim, nr);
    for (int i = off; i < end; i++)
        if (json_array_append_new(items, running_item(src, keys[i].job, now)) < 0)
            goto fail;
    gs_free(keys);
    return json_object_set_new(doc, "running",
                               json_pack("{s:i, s:i, s:i, s:o}", "total", nr, "offset", off,
                                         "limit", lim, "items", items)) < 0 ? GS_ENOMEM : 0;
fail:
    gs_free(keys);
    json_decref(items);
    return GS_ENOMEM;
}

/* ---- teams ------------------------------------------------------------------ */

struct team_acc {
    const char *name;
    double used;              /* GPUs held (shares summed) */
    int running, pending;
    int64_t pending_gpus;
    struct gs_dvec waits;     /* seconds, pending jobs */
};

static struct team_acc *team_of(struct team_acc **t, int *n, int *cap, const char *name)
{
    name = name ? name : "default";
    for (int i = 0; i < *n; i++)
        if (strcmp((*t)[i].name, name) == 0)
            return &(*t)[i];
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        struct team_acc *g = gs_realloc(*t, (size_t)nc * sizeof *g);
        if (!g)
            return NULL;
        *t = g;
        *cap = nc;
    }
    (*t)[*n] = (struct team_acc){ .name = name };
    return &(*t)[(*n)++];
}

static json_t *team_item(struct team_acc *a, const struct gs_policy *pol)
{
    int quota = gs_policy_quota(pol, a->name);
    struct gs_pctl p;
    gs_pctl_compute(&p, a->waits.v, a->waits.n);
    double borrowed = quota >= 0 && a->used > quota ? a->used - quota : 0;
    return json_pack("{s:s, s:f, s:o, s:f, s:i, s:i, s:I, s:f, s:f}", "team", a->name,
                     "gpus", a->used, "quota", quota >= 0 ? json_integer(quota) : json_null(),
                     "borrowed", borrowed, "running", a->running, "pending", a->pending,
                     "pending_gpus", (json_int_t)a->pending_gpus, "wait_p50", p.p50,
                     "wait_max", p.max);
}

/* Holding GPUs: jobs before src->jobs_before; waiting: the queue's jobs
 * (a snapshot's queue job that its pass started still waits in the
 * snapshot). */
static int teams_accumulate(struct team_acc **t, int *nt, int *cap,
                            const struct gs_dash_src *src, gs_time now)
{
    struct gs_job_info ji;
    int *held, n = held_jobs(src, &held);
    if (n < 0)
        return GS_ENOMEM;
    for (int i = 0; i < n; i++) {
        if (gs_engine_job_info(src->eng, held[i], &ji) < 0 || gs_dash_anonymous(&ji) ||
            !gs_dash_holds(ji.state))
            continue;
        struct team_acc *a = team_of(t, nt, cap, ji.team);
        if (!a) {
            gs_free(held);
            return GS_ENOMEM;
        }
        a->running++;
        a->used += (double)ji.gpus * ji.milli / GS_MILLI_GPU;
    }
    gs_free(held);
    for (int i = 0; i < src->nqueue; i++) {
        if (gs_engine_job_info(src->eng, src->queue[i], &ji) < 0)
            continue;
        struct team_acc *a = team_of(t, nt, cap, ji.team);
        if (!a || gs_dvec_push(&a->waits, gs_time_to_sec(now - ji.submit)) < 0)
            return GS_ENOMEM;
        a->pending++;
        a->pending_gpus += ji.gpus;
    }
    return 0;
}

static int teams_json(json_t *doc, const struct gs_dash_src *src, gs_time now)
{
    struct team_acc *t = NULL;
    int nt = 0, cap = 0, st = teams_accumulate(&t, &nt, &cap, src, now);
    json_t *arr = json_array();
    for (int i = 0; st == 0 && arr && i < nt; i++)
        if (json_array_append_new(arr, team_item(&t[i], gs_engine_policy(src->eng))) < 0)
            st = GS_ENOMEM;
    for (int i = 0; i < nt; i++)
        gs_dvec_fini(&t[i].waits);
    gs_free(t);
    if (st == 0 && (!arr || json_object_set_new(doc, "teams", arr) < 0))
        return GS_ENOMEM;
    if (st < 0)
        json_decref(arr);
    return st;
}

int gs_dash_lists_json(json_t *doc, const struct gs_dash_src *src)
{
    gs_time now = gs_engine_now(src->eng);
    if (queue_json(doc, src, now) < 0 || running_json(doc, src, now) < 0 ||
        teams_json(doc, src, now) < 0)
        return GS_ENOMEM;
    return 0;
}

/* ---- pass order --------------------------------------------------------------- */

struct pass_key {
    int priority;
    gs_time submit;
    int job;
};

static int cmp_pass(const void *a, const void *b)
{
    const struct pass_key *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

int *gs_dash_pass_order(const struct gs_engine *eng, const int *jobs, int n, int all, int *out_n)
{
    struct pass_key *k = gs_malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    int *out = gs_malloc((size_t)(n > 0 ? n : 1) * sizeof *out), m = 0;
    if (!k || !out) {
        gs_free(k);
        gs_free(out);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, jobs[i], &ji) == 0 && (all || ji.state == GS_JOB_PENDING))
            k[m++] = (struct pass_key){ ji.priority, ji.submit, jobs[i] };
    }
    qsort(k, (size_t)m, sizeof *k, cmp_pass);
    for (int i = 0; i < m; i++)
        out[i] = k[i].job;
    gs_free(k);
    *out_n = m;
    return out;
}

/* loop_read.c - job objects and documents built on the engine thread: a
 * live job's object (its row as flush_rows writes it plus, when pending,
 * the engine's diagnosis) and the node list, rendered for the published
 * view (view.c); the answers to writes; and what still needs the engine
 * now: explain, dashboard pages after the first, and (GPUSCHEDD_READS=
 * engine, or before the first view) every read, from the committed
 * journal rows as before the view existed.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "io/timefmt.h"
#include "daemon/loop_eta.h"
#include "daemon/gpumap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/diagnose/diagnose.h"
#include "io/frag_json.h"
#include "io/report_diag.h"
#include "daemon/dash_route.h"
#include "daemon/view.h"

char *gsd_error_json(int status, const char *code, const char *field, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct gs_api_error e;
    gs_api_errorf(&e, status, code, field, "%s", msg); /* ASCII only: always valid JSON */
    return gs_api_error_body(&e);
}

void gsd_api_of_row(const struct gsd_loop *lp, const struct gs_store_job *r,
                    struct gs_api_job *j, char *why, size_t n)
{
    *j = (struct gs_api_job){ .id = r->id, .state = r->state, .outcome = r->outcome,
                              .team = r->team, .user = r->user, .gpus = r->gpus,
                              .submit = r->submit, .start = r->start, .end = r->end,
                              .first_start = r->first_start, .placement = r->placement,
                              .attempts = r->attempts, .preemptions = r->preemptions,
                              .lost_gpu_s = r->lost_gpu_s, .exit_code = r->exit_code,
                              .estimated_start = GS_TIME_NONE, .request = r->request,
                              .out_dir = lp->sh.out_dir,
                              .launch_error = r->launch_error };
    gsd_eta_api_row(r, &j->estimate_at_submit);
    j->end_reason = gsd_end_reason(r, why, n);
}

/* The engine's "t=SECONDS s" stamps in a reason text as ISO 8601 (the
 * client adds the relative form: a published text must not go stale). */
static void iso_stamps(char *text, size_t n)
{
    char buf[1024];
    if (strstr(text, "t=") && n <= sizeof buf) {
        gs_timefmt_text(text, -1, buf, n);
        memcpy(text, buf, strlen(buf) + 1);
    }
}

void gsd_iso_member(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    char buf[1024];
    if (s && strstr(s, "t=") && strlen(s) < sizeof buf) {
        snprintf(buf, sizeof buf, "%s", s);
        iso_stamps(buf, sizeof buf);
        json_object_set_new(o, key, json_string(buf));
    }
}

/* The engine's diagnosis `dg` of pending job d into j's reason fields and
 * its promise now. */
static void set_reason(struct gsd_loop *lp, const struct djob *d, const struct gs_diag *dg,
                       struct gs_api_job *j, char *detail, char *unblock, size_t n)
{
    struct gs_eta_rec now;
    gsd_eta_now(lp, d, dg, &now);
    gsd_eta_api(&now, &j->estimate);
    j->reason_code = gs_reason_name(dg->reason);
    gs_report_diag_detail(detail, n, lp->eng, dg);
    gs_report_diag_unblock(unblock, n, lp->eng, dg);
    iso_stamps(detail, n);
    iso_stamps(unblock, n);
    j->reason_detail = detail;
    j->reason_unblock = unblock;
    j->estimated_start = dg->est_start;
    j->spare_rights = gsd_spare_rights(lp, d); /* failstats.c */
}

/* The job object of live job d (its row as flush_rows writes it) with, when
 * pending, the engine's reason; *diag (when diag is not NULL) gets the
 * diagnosis JSON of a pending job (report_diag), else NULL. */
json_t *gsd_djob_json(struct gsd_loop *lp, const struct djob *d, json_t **diag)
{
    char info[512], detail[512], unblock[512];
    struct gs_store_job r;
    struct gs_api_job j;
    struct gs_diag dg;
    char why[160];
    gsd_job_row(d, &r, info, sizeof info);
    gsd_api_of_row(lp, &r, &j, why, sizeof why);
    if (diag)
        *diag = NULL;
    if (d->state == D_PENDING) {
        j.reason_code = "none";
        if (d->handle >= 0 && gs_engine_explain(lp->eng, d->handle, &dg) == 0) {
            set_reason(lp, d, &dg, &j, detail, unblock, sizeof detail);
            if (diag)
                *diag = gs_report_diag_json(lp->eng, &dg);
        }
    }
    return gs_api_job_json(&j);
}

/* The engine's diagnosis of a pending job into j's reason fields. */
static void add_reason(struct gsd_loop *lp, const struct gs_store_job *r, struct gs_api_job *j,
                       char *detail, char *unblock, size_t n)
{
    struct djob *d = gsd_job_by_id(lp, r->id);
    struct gs_diag dg;
    if (!d || d->handle < 0 || gs_engine_explain(lp->eng, d->handle, &dg) < 0) {
        j->reason_code = "none";
        return;
    }
    set_reason(lp, d, &dg, j, detail, unblock, n);
}

static json_t *row_json(struct gsd_loop *lp, const struct gs_store_job *r)
{
    struct gs_api_job j;
    char why[160];
    gsd_api_of_row(lp, r, &j, why, sizeof why);
    char detail[512], unblock[512];
    if (!strcmp(r->state, "pending"))
        add_reason(lp, r, &j, detail, unblock, sizeof detail);
    return gs_api_job_json(&j);
}

struct list_ctx {
    struct gsd_loop *lp;
    json_t *arr;
};

static int on_row(void *arg, const struct gs_store_job *r)
{
    struct list_ctx *x = arg;
    json_t *o = row_json(x->lp, r);
    if (!o || json_array_append_new(x->arr, o) < 0)
        return GS_ENOMEM;
    return 0;
}

static char *dump(json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(o);
    return s;
}

char *gsd_json_text(json_t *o)
{
    return dump(o);
}

struct body_ctx {
    struct gsd_loop *lp;
    char *text;
};

static int on_body_row(void *arg, const struct gs_store_job *r)
{
    struct body_ctx *x = arg;
    x->text = gsd_view_job_text(x->lp, r->id); /* just published: no second explain */
    if (!x->text)
        x->text = dump(row_json(x->lp, r));
    return x->text ? 1 : GS_ENOMEM;
}

char *gsd_job_body(struct gsd_loop *lp, int64_t seq)
{
    struct body_ctx x = { lp, NULL };
    if (gs_store_job_by_seq(lp->st, seq, on_body_row, &x) != 1) {
        free(x.text);
        return NULL;
    }
    return x.text;
}

static void answer_get(struct gsd_loop *lp, struct gsd_cmd *c)
{
    struct list_ctx x = { lp, json_array() };
    int rc = x.arr ? gs_store_job_by_id(lp->st, c->id, on_row, &x) : GS_ENOMEM;
    if (rc == GS_ENOENT) {
        c->status = 404;
        c->body = gsd_error_json(404, "not_found", "id", "no job '%.100s'", c->id);
    } else if (rc < 0) {
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "journal read failed");
    } else {
        c->status = 200;
        c->body = dump(json_incref(json_array_get(x.arr, 0)));
    }
    json_decref(x.arr);
}

struct pend {
    int pos;
    json_t *job;
};

static int by_pos(const void *a, const void *b)
{
    const struct pend *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Queue position of each live job, by its index in lp->live (-1 = not
 * pending); caller frees. */
static int *queue_positions(struct gsd_loop *lp)
{
    int *pos = malloc((lp->nlive + 1) * sizeof *pos);
    int n = gs_engine_queue_list(lp->eng, NULL, 0);
    int *order = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *order);
    if (!pos || !order || n < 0) {
        free(pos);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < lp->nlive; i++)
        pos[i] = -1;
    n = gs_engine_queue_list(lp->eng, order, (size_t)n);
    for (int i = 0; i < n; i++) {
        struct djob *d = gsd_job_of_handle(lp, order[i]);
        if (d)
            pos[d->li] = i;
    }
    free(order);
    return pos;
}

/* Pending jobs move to the end of the list, in the order of the next pass
 * (what `gpusched queue` prints, as squeue does). */
static json_t *queue_order(struct gsd_loop *lp, json_t *arr)
{
    int *pos = queue_positions(lp);
    size_t n = json_array_size(arr), np = 0;
    struct pend *p = calloc(n + 1, sizeof *p);
    json_t *out = json_array();
    if (!pos || !p || !out) {
        free(pos);
        free(p);
        json_decref(out);
        return arr;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *j = json_array_get(arr, i);
        struct djob *d = strcmp(json_string_value(json_object_get(j, "state")), "pending")
                             ? NULL
                             : gsd_job_by_id(lp, json_string_value(json_object_get(j, "id")));
        if (d && d->handle >= 0 && pos[d->li] >= 0)
            p[np++] = (struct pend){ pos[d->li], j };
        else
            json_array_append(out, j);
    }
    qsort(p, np, sizeof *p, by_pos);
    for (size_t i = 0; i < np; i++)
        json_array_append(out, p[i].job);
    free(pos);
    free(p);
    json_decref(arr);
    return out;
}

static void answer_list(struct gsd_loop *lp, struct gsd_cmd *c)
{
    struct list_ctx x = { lp, json_array() };
    int rc = x.arr ? gs_store_jobs_list(lp->st, c->state, c->team, 0, 100000, on_row, &x)
                   : GS_ENOMEM;
    if (rc < 0) {
        json_decref(x.arr);
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "journal read failed");
        return;
    }
    c->status = 200;
    c->body = dump(json_pack("{s:o, s:f}", "jobs", queue_order(lp, x.arr), "now_epoch",
                             (double)lp->last_now / 1000.0));
}

static void answer_explain(struct gsd_loop *lp, struct gsd_cmd *c)
{
    struct djob *d = gsd_job_by_id(lp, c->id);
    struct gs_diag dg;
    if (!d) {
        answer_get(lp, c); /* 404, or the (ended) job without a reason */
        if (c->status == 200) {
            free(c->body);
            c->body = dump(json_pack("{s:s, s:s, s:n}", "id", c->id, "state", "done",
                                     "reason"));
        }
        return;
    }
    c->status = 200;
    if (d->state != D_PENDING || d->handle < 0 ||
        gs_engine_explain(lp->eng, d->handle, &dg) < 0) {
        c->body = dump(json_pack("{s:s, s:s, s:n}", "id", d->id, "state",
                                 gsd_state_name(d->state), "reason"));
        return;
    }
    json_t *o = gs_report_diag_json(lp->eng, &dg);
    struct gs_eta_rec now;
    struct gs_api_eta a, at;
    gsd_eta_now(lp, d, &dg, &now);
    gsd_eta_api(&now, &a);
    gsd_eta_api(&d->eta, &at);
    if (o && (json_object_set_new(o, "state", json_string("pending")) < 0 ||
              json_object_set_new(o, "estimate", gs_api_eta_json(&a)) < 0 ||
              json_object_set_new(o, "estimate_at_submit",
                                  gs_api_eta_json(at.basis ? &at : NULL)) < 0)) {
        json_decref(o);
        o = NULL;
    }
    if (o) {
        gsd_iso_member(o, "detail");
        gsd_iso_member(o, "unblock");
    }
    c->body = dump(o);
}

json_t *gsd_node_json(struct gsd_loop *lp, int n)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    uint64_t idle = gs_cluster_idle_mask(cl, n);
    json_t *doms = json_array();
    for (int d = 0; doms && d < gs_cluster_node_domains(cl, n); d++) {
        uint64_t m = gs_cluster_domain_mask(cl, n, d);
        json_array_append_new(doms, json_pack("{s:i, s:i}", "gpus", __builtin_popcountll(m),
                                              "free", __builtin_popcountll(idle & m)));
    }
    json_t *down = json_array();
    for (int g = 0; down && g < gs_cluster_node_gpus(cl, n); g++)
        if (gs_engine_gpu_state(lp->eng, n, g) != GS_NODE_UP)
            json_array_append_new(
                down, json_pack("{s:i, s:s, s:s*}", "gpu", g, "state",
                                gsd_node_state_name(gs_engine_gpu_state(lp->eng, n, g)),
                                "reason", gsd_gpu_reason(lp, n, g)));
    const char *why = lp->node_reason ? lp->node_reason[n] : NULL;
    return json_pack("{s:s, s:s, s:s*, s:s, s:i, s:i, s:o, s:o}", "name",
                     gs_cluster_node_name(cl, n), "state",
                     gsd_node_state_name(gs_engine_node_state(lp->eng, n)), "reason", why,
                     "gpu_type", gs_cluster_gpu_type_name(cl, gs_cluster_node_gpu_type(cl, n)),
                     "gpus", gs_cluster_node_gpus(cl, n), "free_gpus",
                     __builtin_popcountll(idle), "domains", doms, "gpus_out", down);
}

json_t *gsd_nodes_json(struct gsd_loop *lp)
{
    json_t *arr = json_array();
    for (int n = 0; arr && n < gs_cluster_node_count(gs_engine_cluster(lp->eng)); n++)
        json_array_append_new(arr, gsd_node_json(lp, n));
    return arr;
}

/* The diagnosis of every pending job, in the order of the next pass. */
static json_t *pending_json(struct gsd_loop *lp)
{
    json_t *arr = json_array();
    int n = gs_engine_queue_list(lp->eng, NULL, 0);
    int *q = n > 0 ? malloc((size_t)n * sizeof *q) : NULL;
    int got = q ? gs_engine_queue_list(lp->eng, q, (size_t)n) : 0;
    for (int i = 0; arr && i < got && i < n; i++) {
        struct gs_diag dg;
        if (gs_engine_explain(lp->eng, q[i], &dg) == 0)
            json_array_append_new(arr, gs_report_diag_json(lp->eng, &dg));
    }
    free(q);
    return arr;
}

json_t *gsd_cluster_doc(struct gsd_loop *lp, json_t *pending)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    struct gs_shape_dist *qd = malloc(sizeof *qd);
    json_t *o = NULL;
    if (qd) {
        gs_frag_queue_init(qd);
        for (size_t i = 0; i < lp->nlive; i++) {
            struct gs_job_spec sp;
            const struct djob *d = lp->live[i];
            if (d->state == D_PENDING && d->handle >= 0 &&
                gs_engine_job_spec(lp->eng, d->handle, &sp) == 0)
                gs_frag_queue_add(cl, qd, &sp);
        }
        o = gs_frag_json(cl, lp->last_now, qd);
        free(qd);
    }
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    if (o)
        json_object_set_new(o, "util_alloc",
                            json_real(s.gpus ? (double)s.used_milli / (double)(s.gpus * 1000)
                                             : 0.0));
    if (o) /* gpumap.h: whether CUDA_VISIBLE_DEVICES names distinct physical GPUs */
        json_object_set_new(o, "gpu_mode",
                            json_string(lp->be->host_procs ? gsd_gpumap_mode_name(lp)
                                                                     : lp->be->name));
    double med, sig;
    gsd_latency_get(&lp->start_lat, &med, &sig);
    if (o)
        json_object_set_new(
            o, "start_latency",
            json_pack("{s:I, s:f, s:f, s:f}", "starts", (json_int_t)lp->start_lat.n, "median",
                      med, "sigma", sig, "mean",
                      lp->start_lat.n ? lp->start_lat.sum / (double)lp->start_lat.n : 0.0));
    if (o)
        json_object_set_new(o, "journal", gsd_journal_json(lp));
    if (o && pending)
        json_object_set_new(o, "pending", pending);
    else
        json_decref(pending);
    return o;
}

void gsd_answer(struct gsd_loop *lp, struct gsd_cmd *c)
{
    c->status = 200;
    switch (c->kind) {
    case GSD_GET:
        answer_get(lp, c);
        break;
    case GSD_LIST:
    case GSD_QUEUE: /* only with GPUSCHEDD_READS=engine: the former listing */
        answer_list(lp, c);
        break;
    case GSD_EXPLAIN:
        answer_explain(lp, c);
        break;
    case GSD_NODES:
        c->body = dump(json_pack("{s:o}", "nodes", gsd_nodes_json(lp)));
        break;
    case GSD_CLUSTER:
        c->body = dump(gsd_cluster_doc(lp, pending_json(lp)));
        break;
    case GSD_DASHBOARD:
        c->body = gsd_dash_body(lp, c);
        break;
    case GSD_METRICS:
        c->body = gsd_metrics_text(lp);
        c->content_type = "text/plain; version=0.0.4; charset=utf-8";
        break;
    default:
        c->status = 501;
        c->body = gsd_error_json(501, "not_supported", NULL,
                                 "node drain/resume needs the live engine (not built yet)");
        break;
    }
    if (!c->body && c->status < 400) {
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "out of memory");
    }
}

/* view.c - the published read state (view.h): built on the engine thread
 * after each commit, read by the HTTP threads through a reference.
 *
 * Design
 * ------
 * A view (struct gsd_view) is immutable once published: the engine thread
 * builds a new one after each turn's commit (gsd_view_update, called from
 * loop.c's turn before any command of that turn is answered, so a client
 * reads its own writes) and swaps it in under lp->vmu (publish); a reader
 * takes a reference under vmu (view_get), answers from it without any
 * lock, and drops it (view_unref; the last reference frees it).  The one
 * mutable part, the queue's page rendered on first demand, has its own
 * qmu.
 *
 * What a publish does, in order (gsd_view_update):
 *   1. the job table (fill_jobs, view_jobs.c, vtab.c): only the jobs the
 *      turn touched (vdirty, gsd_view_touch) are rendered again; the
 *      not-pending list by seq and the queue's order are kept sorted
 *      between publishes (the queue re-listed in full only after a node
 *      command, a reload, aging or fifo); a cursor re-diagnoses queued jobs
 *      within a time budget (refresh, budget);
 *   2. /v1/cluster and the dashboard's first page (full_bodies) when
 *      forced, cheap, or due (their cost keeps them under 5 %);
 *   3. /v1/nodes and /metrics at their own cadence (tuned);
 *   4. publish; bodies held back by cost mark the loop to wake
 *      (gsd_view_stale) until they are out.
 *
 * Threads: everything here that takes a struct gsd_loop's fields other than
 * vmu/view and rmu/readers (gsd_view_update, gsd_view_drop,
 * gsd_view_touch, gsd_view_fini, the blobs kept in lp->b_*) is the engine
 * thread's.  gsd_view_answer runs on an HTTP thread (http.c) or the engine
 * thread (a turn's batch); it reads only the view it holds a reference
 * to, lp->reads_on_engine (set before the threads start), and the
 * read-only journal handles (reader_take/reader_give, under rmu) for ended
 * jobs.
 */
#define _GNU_SOURCE
#include "daemon/view.h"
#include "daemon/dash_route.h"
#include "daemon/loop_private.h"
#include "daemon/view_jobs.h"
#include "daemon/vtab.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gsd_view {
    atomic_int refs;
    int64_t gen;
    gs_time now;
    int64_t e0, m0;           /* the engine clock (loop_private.h), for view_now */
    double scale;
    struct gsd_vsnap *jobs;   /* the job table (vtab.h), shared by chunks */
    struct gsd_slots *pre;    /* the not-pending jobs by seq (slots) */
    struct gsd_slots *q;      /* the queue in pass order (slots) */
    struct gsd_blob *nodes, *cluster, *metrics, *dash;
    pthread_mutex_t qmu;      /* guards queue, rendered by its first reader */
    struct gsd_blob *queue;
};

static int64_t mono_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* A body blob from a malloc'd text (freed here). */
static struct gsd_blob *body_blob(char *text)
{
    struct gsd_blob *b = gsd_blob_new(0, 0, 0, NULL, NULL, text);
    free(text);
    return b;
}

static void view_unref(struct gsd_view *v)
{
    if (!v || atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) != 1)
        return;
    gsd_vsnap_free(v->jobs);
    gsd_slots_unref(v->pre);
    gsd_slots_unref(v->q);
    gsd_blob_unref(v->nodes);
    gsd_blob_unref(v->cluster);
    gsd_blob_unref(v->metrics);
    gsd_blob_unref(v->dash);
    gsd_blob_unref(v->queue);
    pthread_mutex_destroy(&v->qmu);
    free(v);
}

static struct gsd_view *view_get(struct gsd_loop *lp)
{
    pthread_mutex_lock(&lp->vmu);
    struct gsd_view *v = lp->view;
    if (v)
        atomic_fetch_add_explicit(&v->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&lp->vmu);
    return v;
}

static const struct gsd_blob *view_at(const struct gsd_view *v, uint32_t slot)
{
    return gsd_vsnap_at(v->jobs, slot);
}

static const struct gsd_blob *view_find(const struct gsd_view *v, const char *id)
{
    int s = v->jobs ? gsd_vsnap_find(v->jobs, id) : -1;
    return s >= 0 ? view_at(v, (uint32_t)s) : NULL;
}

struct sb {
    char *s;
    size_t n, cap;
    int bad;
};

static void sb_add(struct sb *b, const char *s, size_t n)
{
    if (b->bad)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->bad = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

/* A job into a list being written (comma before all but the first). */
static void sb_job(struct sb *b, int *first, const char *text, size_t n)
{
    if (!*first)
        sb_add(b, ",", 1);
    *first = 0;
    sb_add(b, text, n);
}

/* --- building (engine thread) ------------------------------------------ */

/* A node's object with what it was rendered from: rendered again only
 * when its idle GPUs or states change (a node list of 1,024 nodes through
 * jansson costs tens of ms; most turns change a few nodes). */
struct gsd_node_text {
    uint64_t idle, down, drain;
    int state;
    char *text;
};

static void node_sig(struct gsd_loop *lp, int n, struct gsd_node_text *s)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    s->idle = gs_cluster_idle_mask(cl, n);
    s->state = gs_engine_node_state(lp->eng, n);
    s->down = s->drain = 0;
    for (int g = 0; g < gs_cluster_node_gpus(cl, n); g++) {
        int st = gs_engine_gpu_state(lp->eng, n, g);
        s->down |= (uint64_t)(st == GS_NODE_DOWN) << g;
        s->drain |= (uint64_t)(st == GS_NODE_DRAIN) << g;
    }
}

/* {"nodes": [...]} from the per-node texts (`force`: render all). */
static char *nodes_text(struct gsd_loop *lp, int force)
{
    int nn = gs_cluster_node_count(gs_engine_cluster(lp->eng));
    if (!lp->ntext && !(lp->ntext = calloc((size_t)nn + 1, sizeof *lp->ntext)))
        return NULL;
    struct sb out = { 0 };
    sb_add(&out, "{\"nodes\":[", 10);
    for (int n = 0; n < nn; n++) {
        struct gsd_node_text now, *c = &lp->ntext[n];
        node_sig(lp, n, &now);
        const char *text = c->text;
        if (force || !text || now.idle != c->idle || now.down != c->down ||
            now.drain != c->drain || now.state != c->state) {
            char *t = gsd_json_text(gsd_node_json(lp, n));
            if (!t) {
                free(out.s);
                return NULL;
            }
            free(c->text);
            now.text = t;
            *c = now;
            text = t;
        }
        if (n)
            sb_add(&out, ",", 1);
        sb_add(&out, text, strlen(text));
    }
    sb_add(&out, "]}", 2);
    if (out.bad) {
        free(out.s);
        return NULL;
    }
    return out.s;
}

/* Diagnose the queued jobs again from the refresh cursor on, for at most
 * `budget_us`: reasons and estimated starts move with every pass, so the
 * cursor goes round the queue for ever; with a short queue every job is
 * seen every turn. */
static int refresh(struct gsd_loop *lp, struct djob **q, size_t nq, int64_t t0,
                   int64_t budget_us)
{
    for (size_t k = 0; k < nq && lp->lap_left > 0; k++) {
        if (k > 0 && mono_us() - t0 > budget_us)
            break;
        size_t i = lp->rpos++ % nq;
        if (q[i] && gsd_vjobs_render(lp, q[i]) < 0)
            return -1;
        lp->lap_left--;
    }
    return 0;
}

/* Bring the job table up to date (the jobs touched since the last
 * publish), take the queue's order after a turn, refresh part of the queue
 * and give the view its snapshot of the table and lists. */
static int fill_jobs(struct gsd_loop *lp, struct gsd_view *v, int same, int64_t t0,
                     int64_t budget_us)
{
    int changed = 0;
    if (gsd_vjobs_sync(lp, lp->view_force || !lp->view, &changed) < 0)
        return -1;
    if ((!same || !lp->qcache) && gsd_vjobs_order(lp, lp->view_force || !lp->view) < 0)
        return -1; /* a turn ran: the queue's order may have changed */
    size_t nq = lp->nqcache;
    if (changed || lp->view_force)
        lp->lap_left = (int64_t)nq; /* a whole lap after the last change */
    if (refresh(lp, lp->qcache, nq, t0, budget_us) < 0)
        return -1;
    if (gsd_vjobs_take(lp, &v->jobs, &v->pre, &v->q) < 0)
        return -1;
    if (lp->view_check)
        gsd_vjobs_check(lp, v->jobs, v->pre, v->q);
    return 0;
}

/* The cluster document with the queue's kept diagnoses spliced in as its
 * "pending" array (text: 10,000 of them need no jansson round trip). */
static char *cluster_text(struct gsd_loop *lp, struct djob **q, size_t nq)
{
    char *doc = gsd_json_text(gsd_cluster_doc(lp, NULL));
    size_t n = doc ? strlen(doc) : 0;
    if (!doc || n < 2 || doc[n - 1] != '}') {
        free(doc);
        return NULL;
    }
    struct sb out = { 0 };
    int first = 1;
    sb_add(&out, doc, n - 1);
    free(doc);
    sb_add(&out, ",\"pending\":[", 12);
    for (size_t i = 0; i < nq; i++)
        if (q[i]->diag)
            sb_job(&out, &first, q[i]->diag, strlen(q[i]->diag));
    sb_add(&out, "]}", 2);
    if (out.bad) {
        free(out.s);
        return NULL;
    }
    return out.s;
}

/* The bodies rebuilt at their own cadence (or when forced), kept in lp. */
static void full_bodies(struct gsd_loop *lp, struct djob **q, size_t nq)
{
    struct gsd_blob *c = body_blob(cluster_text(lp, q, nq));
    struct gsd_cmd first = { .kind = GSD_DASHBOARD };
    struct gsd_blob *d = body_blob(gsd_dash_body(lp, &first));
    gsd_blob_unref(lp->b_cluster);
    gsd_blob_unref(lp->b_dash);
    lp->b_cluster = c; /* NULL (out of memory): those reads go to the engine */
    lp->b_dash = d;
}

static void publish(struct gsd_loop *lp, struct gsd_view *v)
{
    pthread_mutex_lock(&lp->vmu);
    struct gsd_view *old = lp->view;
    lp->view = v;
    pthread_mutex_unlock(&lp->vmu);
    view_unref(old);
}

/* The refresh budget: 10 % of the time since the last publish, within
 * [0.5, 10] ms. */
static int64_t budget(const struct gsd_loop *lp, int64_t t0)
{
    int64_t b = lp->last_pub_us ? (t0 - lp->last_pub_us) / 10 : 10000;
    return b < 500 ? 500 : b > 10000 ? 10000 : b;
}

/* Bodies that cost less than this are rendered again at every turn's
 * publish (always current: a small cluster's reads see every change). */
#define CHEAP_US 2000

/* A body that costs T to render is rendered again at most every 19 T
 * (under 5 % of the engine thread), at once when forced, and at every
 * turn (`turn`) while it is cheap.  When the kept body is returned although
 * the state `changed`, *behind is set (the loop then publishes again once
 * the body is due). */
static struct gsd_blob *tuned(struct gsd_blob **keep, int64_t *next_us, int64_t *cost,
                              int force, int turn, char *(*make)(struct gsd_loop *, int),
                              struct gsd_loop *lp, int changed, int *behind)
{
    int64_t t0 = mono_us();
    if (*keep && !force && t0 < *next_us && !(turn && *cost < CHEAP_US)) {
        *behind |= changed; /* a change this body does not show yet */
        return gsd_blob_ref(*keep);
    }
    struct gsd_blob *b = body_blob(make(lp, force));
    if (!b)
        return NULL;
    gsd_blob_unref(*keep);
    *keep = b;
    *cost = mono_us() - t0;
    *next_us = t0 + 20 * *cost;
    return gsd_blob_ref(b);
}

static char *metrics_text(struct gsd_loop *lp, int force)
{
    (void)force;
    return gsd_metrics_text(lp);
}

void gsd_view_update(struct gsd_loop *lp, int same)
{
    int64_t t0 = mono_us();
    int force = lp->view_force || !lp->view;
    same = same && lp->view && !force;
    int full = force || t0 >= lp->full_next_us || (!same && lp->full_cost_us < CHEAP_US);
    struct gsd_view *v = calloc(1, sizeof *v);
    int bad = !v;
    if (v) {
        atomic_init(&v->refs, 1);
        pthread_mutex_init(&v->qmu, NULL);
        v->gen = ++lp->view_gen;
        v->now = lp->last_now;
        v->e0 = lp->e0;
        v->m0 = lp->m0;
        v->scale = lp->opts.clock_scale;
    }
    if (!bad)
        bad = fill_jobs(lp, v, same, t0, budget(lp, t0)) < 0;
    int64_t t1 = mono_us();
    if (!bad && full)
        full_bodies(lp, lp->qcache, lp->nqcache);
    int64_t t2 = mono_us();
    /* bodies behind: a change not in the cluster/dashboard bodies or the
     * node list yet; gsd_view_stale keeps the loop waking until they are */
    int behind = !full && (!same || lp->bodies_behind);
    if (!bad) {
        int changed = !same || lp->bodies_behind, kept = 0;
        v->nodes = tuned(&lp->b_nodes, &lp->nodes_next_us, &lp->nodes_cost_us, force,
                         changed, nodes_text, lp, changed, &kept);
        /* /metrics at its cadence only (scrapes are seconds apart), but
         * published once due after a change even if the loop goes idle */
        v->metrics = tuned(&lp->b_metrics, &lp->metrics_next_us, &lp->metrics_cost_us, force,
                           0, metrics_text, lp, changed, &kept);
        behind |= kept;
        v->cluster = gsd_blob_ref(lp->b_cluster);
        v->dash = gsd_blob_ref(lp->b_dash);
        bad = !v->nodes || !v->metrics;
    }
    if (bad) {
        view_unref(v);
        lp->view_force = 1;
        return;
    }
    publish(lp, v);
    lp->bodies_behind = behind;
    int64_t t3 = mono_us();
    lp->last_pub_us = t3;
    gsd_hist_add(&lp->publish_ms, (double)(t3 - t0) / 1e3);
    if (full) {
        lp->view_force = 0;
        lp->full_cost_us = t2 - t1;
        lp->full_next_us = t3 + 19 * (t2 - t1); /* the bodies: under 5 % */
    }
}

int gsd_view_stale(const struct gsd_loop *lp)
{
    return !lp->reads_on_engine && (lp->lap_left > 0 || lp->bodies_behind);
}

void gsd_view_fini(struct gsd_loop *lp)
{
    view_unref(lp->view);
    lp->view = NULL;
    gsd_blob_unref(lp->b_cluster);
    gsd_blob_unref(lp->b_dash);
    lp->b_cluster = lp->b_dash = NULL;
    gsd_blob_unref(lp->b_nodes);
    gsd_blob_unref(lp->b_metrics);
    lp->b_nodes = lp->b_metrics = NULL;
    free(lp->qcache);
    lp->qcache = NULL;
    gsd_vjobs_fini(lp);
    for (int n = 0; lp->ntext && lp->cl && n < gs_cluster_node_count(lp->cl); n++)
        free(lp->ntext[n].text);
    free(lp->ntext);
    lp->ntext = NULL;
    for (int i = 0; i < lp->nreaders; i++)
        gs_store_close(lp->readers[i]);
    lp->nreaders = 0;
}

/* --- answering (any thread) -------------------------------------------- */

/* `],"now_epoch":N}` as jansson writes a real (15 digits, ".0" if whole). */
static void sb_end(struct sb *b, gs_time now)
{
    char num[64];
    int w = snprintf(num, sizeof num, "%.15g", (double)now / 1000.0);
    if (w > 0 && !strpbrk(num, ".e"))
        snprintf(num + w, sizeof num - (size_t)w, ".0");
    sb_add(b, "],\"now_epoch\":", 14);
    sb_add(b, num, strlen(num));
    sb_add(b, "}", 1);
}

static struct gs_store *reader_take(struct gsd_loop *lp)
{
    struct gs_store *st = NULL;
    pthread_mutex_lock(&lp->rmu);
    if (lp->nreaders > 0)
        st = lp->readers[--lp->nreaders];
    pthread_mutex_unlock(&lp->rmu);
    if (!st) {
        struct gs_error err;
        gs_error_clear(&err);
        st = gs_store_open(lp->db_path, 0, 1, &err);
        if (!st)
            gsd_log("read-only journal handle: %s", err.msg);
    }
    return st;
}

static void reader_give(struct gsd_loop *lp, struct gs_store *st)
{
    pthread_mutex_lock(&lp->rmu);
    if (lp->nreaders < (int)(sizeof lp->readers / sizeof lp->readers[0])) {
        lp->readers[lp->nreaders++] = st;
        st = NULL;
    }
    pthread_mutex_unlock(&lp->rmu);
    gs_store_close(st);
}

/* A journal row's job object, without a reason (the row is not live in
 * the view: it has ended, or its commit has not been published yet). */
static char *row_text(const struct gsd_loop *lp, const struct gs_store_job *r)
{
    struct gs_api_job j;
    char why[160];
    gsd_api_of_row(lp, r, &j, why, sizeof why);
    return gsd_json_text(gs_api_job_json(&j));
}

struct get_ctx {
    const struct gsd_loop *lp;
    char *text;
};

static int on_get_row(void *arg, const struct gs_store_job *r)
{
    struct get_ctx *x = arg;
    x->text = row_text(x->lp, r);
    return x->text ? 1 : GS_ENOMEM;
}

char *gsd_view_job_text(struct gsd_loop *lp, const char *id)
{
    struct gsd_view *v = lp->reads_on_engine ? NULL : view_get(lp);
    const struct gsd_blob *b = v ? view_find(v, id) : NULL;
    char *t = b ? strndup(b->data, b->len) : NULL;
    view_unref(v);
    return t;
}

static void answer_get(struct gsd_loop *lp, const struct gsd_view *v, struct gsd_cmd *c)
{
    const struct gsd_blob *b = view_find(v, c->id);
    if (b) {
        c->status = 200;
        c->body = strndup(b->data, b->len);
        return;
    }
    struct gs_store *st = reader_take(lp);
    struct get_ctx g = { lp, NULL };
    int rc = st ? gs_store_job_by_id(st, c->id, on_get_row, &g) : GS_EIO;
    char *text = g.text;
    if (st)
        reader_give(lp, st);
    if (rc == 1) {
        c->status = 200;
        c->body = text;
    } else if (rc == GS_ENOENT) {
        c->status = 404;
        c->body = gsd_error_json(404, "not_found", "id", "no job '%.100s'", c->id);
    } else {
        free(text);
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "journal read failed");
    }
}

static int live_state(const char *s)
{
    return s && (!strcmp(s, "pending") || !strcmp(s, "starting") || !strcmp(s, "running") ||
                 !strcmp(s, "stopping"));
}

static int matches(const struct gsd_blob *b, const char *state, const char *team)
{
    if (team && strcmp(b->team, team) != 0)
        return 0;
    const char *o = gsd_outcome_name(b->outcome);
    return !state || !strcmp(state, gsd_state_name(b->state)) || (o && !strcmp(state, o));
}

/* GET /v1/jobs, one page: every job in submission order (seq), the ended
 * ones from the journal merged with the live ones of the view (not pending:
 * `pre`, pending: the queue sorted by seq, each with its `queue_pos` in the
 * next pass).  At most `limit` jobs after seq `after`; `next` = the seq of
 * the last one written when more may follow.  A job keeps its seq for ever,
 * so pages never repeat or skip a job whatever starts, ends or arrives
 * between them (new jobs come last). */
struct pend {
    int64_t seq;
    uint32_t slot, pos;
};

struct list_ctx {
    const struct gsd_loop *lp;
    const struct gsd_view *v;
    const char *state, *team;
    struct sb out;
    int first;
    size_t pre, pi, npend;    /* next of `pre` and of `pend` to merge */
    struct pend *pend;
    int n, limit;             /* written, at most */
    int rows;                 /* journal rows seen */
    int64_t row_last;         /* seq of the last one */
    int64_t last;             /* seq of the last one written (or passed) */
    int more;                 /* the page is full and another job matched */
};

/* Write blob b (pending: `pos` >= 0, its queue position) if it matches. */
static void list_put(struct list_ctx *x, const struct gsd_blob *b, int64_t pos)
{
    if (!matches(b, x->state, x->team))
        return;
    if (x->n >= x->limit) {
        x->more = 1;
        return;
    }
    if (pos < 0 || b->len == 0 || b->data[b->len - 1] != '}') {
        sb_job(&x->out, &x->first, b->data, b->len);
    } else {
        char tail[48];
        int w = snprintf(tail, sizeof tail, ",\"queue_pos\":%lld}", (long long)pos);
        sb_job(&x->out, &x->first, b->data, b->len - 1);
        sb_add(&x->out, tail, (size_t)w);
    }
    x->n++;
    x->last = b->seq;
}

/* Live jobs (pending or not) before journal seq `seq`, in seq order. */
static void merge_live(struct list_ctx *x, int64_t seq)
{
    const struct gsd_slots *pre = x->v->pre;
    while (!x->more) {
        const struct gsd_blob *a = x->pre < pre->n ? view_at(x->v, pre->s[x->pre]) : NULL;
        const struct pend *q = x->pi < x->npend ? &x->pend[x->pi] : NULL;
        if (a && a->seq < seq && (!q || a->seq < q->seq)) {
            x->pre++;
            list_put(x, a, -1);
        } else if (q && q->seq < seq) {
            x->pi++;
            list_put(x, view_at(x->v, q->slot), q->pos);
        } else {
            break;
        }
    }
}

static int on_list_row(void *arg, const struct gs_store_job *r)
{
    struct list_ctx *x = arg;
    x->rows++;
    x->row_last = r->seq;
    if (view_find(x->v, r->id))
        return 0; /* live in this view: written from it, as of it */
    merge_live(x, r->seq);
    if (x->more)
        return 1; /* stop: the page is full */
    if (x->n >= x->limit) {
        x->more = 1;
        return 1;
    }
    char *text = row_text(x->lp, r);
    if (!text)
        return GS_ENOMEM;
    sb_job(&x->out, &x->first, text, strlen(text));
    free(text);
    x->n++;
    x->last = r->seq;
    return 0;
}

static int pend_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct pend *)a)->seq, y = ((const struct pend *)b)->seq;
    return x < y ? -1 : x > y;
}

/* The view's pending jobs after seq `after`, by seq (NULL + 0 if none). */
static struct pend *pending_by_seq(const struct gsd_view *v, int64_t after, size_t *n)
{
    *n = 0;
    struct pend *p = v->q->n ? malloc(v->q->n * sizeof *p) : NULL;
    if (!p)
        return NULL;
    for (size_t i = 0; i < v->q->n; i++) {
        const struct gsd_blob *b = view_at(v, v->q->s[i]);
        if (b->seq > after)
            p[(*n)++] = (struct pend){ b->seq, v->q->s[i], (uint32_t)i };
    }
    qsort(p, *n, sizeof *p, pend_cmp);
    return p;
}

/* Skip the view's not-pending live jobs up to seq `after`. */
static size_t pre_after(const struct gsd_view *v, int64_t after)
{
    size_t lo = 0, hi = v->pre->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (view_at(v, v->pre->s[mid])->seq <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The engine clock as of the answer (gsd_now's formula, without its side
 * effect), never before the view's own time: a list's `now_epoch` is the
 * time it is answered, not the time of the last commit (which lags by as
 * long as the loop was idle: the TIME of `gpusched queue`). */
static gs_time view_now(const struct gsd_view *v)
{
    gs_time t = v->e0 + (gs_time)llround((double)(gsd_mono_ms() - v->m0) * v->scale);
    return t > v->now ? t : v->now;
}

/* `],"next":"SEQ"` (when more follow) `,"now_epoch":N}`. */
static void list_end(struct list_ctx *x)
{
    if (!x->more) {
        sb_end(&x->out, view_now(x->v));
        return;
    }
    struct sb tail = { 0 };
    sb_end(&tail, view_now(x->v)); /* `],"now_epoch":N}` */
    char num[48];
    int w = snprintf(num, sizeof num, "],\"next\":\"%lld\",", (long long)x->last);
    sb_add(&x->out, num, (size_t)w);
    if (tail.s && tail.n > 2)
        sb_add(&x->out, tail.s + 2, tail.n - 2);
    else
        x->out.bad = 1;
    free(tail.s);
}

static void answer_list(struct gsd_loop *lp, const struct gsd_view *v, struct gsd_cmd *c)
{
    struct list_ctx x = { .lp = lp, .v = v, .state = c->state, .team = c->team, .first = 1,
                          .limit = c->limit > 0 ? c->limit : GSD_LIST_LIMIT, .last = c->after };
    x.pre = pre_after(v, c->after);
    x.pend = pending_by_seq(v, c->after, &x.npend);
    sb_add(&x.out, "{\"jobs\":[", 9);
    int rc = v->q->n && !x.pend ? GS_ENOMEM : 0;
    if (rc == 0 && !live_state(c->state)) {
        struct gs_store *st = reader_take(lp);
        rc = st ? gs_store_jobs_list(st, c->state ? c->state : "done", c->team, c->after,
                                     x.limit + 1, on_list_row, &x)
                : GS_EIO;
        if (st)
            reader_give(lp, st);
        if (rc > 0)
            rc = 0; /* stopped: the page is full */
    }
    if (rc == 0 && !x.more && x.rows == x.limit + 1) {
        /* every row read, some of them live in the view: the journal may
           hold more, so end this page at its last row */
        merge_live(&x, x.row_last + 1);
        x.more = 1;
        x.last = x.row_last;
    }
    merge_live(&x, INT64_MAX);
    list_end(&x);
    free(x.pend);
    if (rc < 0 || x.out.bad) {
        free(x.out.s);
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "journal read failed");
        return;
    }
    c->status = 200;
    c->body = x.out.s;
}

static int pos_cmp(const void *a, const void *b)
{
    uint32_t x = ((const struct pend *)a)->pos, y = ((const struct pend *)b)->pos;
    return x < y ? -1 : x > y;
}

/* GET /v1/queue, one page: the live jobs after seq `after`, at most
 * `limit`, chosen in seq order as GET /v1/jobs pages (the same cursor: a
 * job is on exactly one page whatever starts, ends or arrives between
 * them) and written as the queue reads: the page's jobs holding GPUs by
 * seq, then its pending ones in the order of the next pass, each with its
 * `queue_pos` (a client that pages sorts the pending ones of all pages by
 * it: client_page.c).  NULL when out of memory. */
static char *queue_page(const struct gsd_view *v, int64_t after, int limit)
{
    struct list_ctx x = { .v = v, .first = 1, .limit = limit, .last = after };
    size_t p0 = pre_after(v, after), pi = p0, qi = 0, nt = 0;
    struct pend *pend = pending_by_seq(v, after, &x.npend);
    struct pend *take = pend ? malloc((x.npend + 1) * sizeof *take) : NULL;
    if (v->q->n && (!pend || !take)) {
        free(pend);
        free(take);
        return NULL;
    }
    for (int n = 0;; n++) {
        const struct gsd_blob *a = pi < v->pre->n ? view_at(v, v->pre->s[pi]) : NULL;
        const struct pend *q = qi < x.npend ? &pend[qi] : NULL;
        if (!a && !q)
            break;
        if (n == limit) {
            x.more = 1;
            break;
        }
        if (a && (!q || a->seq < q->seq))
            pi++;
        else
            take[nt++] = pend[qi++];
    }
    sb_add(&x.out, "{\"jobs\":[", 9);
    for (size_t i = p0; i < pi; i++)
        list_put(&x, view_at(v, v->pre->s[i]), -1);
    int64_t last = x.last; /* the cursor: the largest seq on the page */
    if (nt > 0)
        last = take[nt - 1].seq > last ? take[nt - 1].seq : last;
    if (nt > 1)
        qsort(take, nt, sizeof *take, pos_cmp); /* pass order: their places in v->q */
    for (size_t i = 0; i < nt; i++)
        list_put(&x, view_at(v, take[i].slot), take[i].pos);
    x.last = last;
    list_end(&x);
    free(pend);
    free(take);
    if (x.out.bad) {
        free(x.out.s);
        return NULL;
    }
    return x.out.s;
}

/* GET /v1/queue: its first page of the default size is rendered once per
 * view (readers poll it), any other page on demand. */
static void answer_queue(struct gsd_view *v, struct gsd_cmd *c)
{
    int limit = c->limit > 0 ? c->limit : GSD_LIST_LIMIT;
    struct gsd_blob *q = NULL;
    char *body = NULL;
    if (c->after == 0 && limit == GSD_LIST_LIMIT) {
        pthread_mutex_lock(&v->qmu);
        if (!v->queue) {
            char *s = queue_page(v, 0, limit);
            v->queue = s ? body_blob(s) : NULL;
        }
        q = gsd_blob_ref(v->queue);
        pthread_mutex_unlock(&v->qmu);
        body = q ? strndup(q->data, q->len) : NULL;
        gsd_blob_unref(q);
    } else {
        body = queue_page(v, c->after, limit);
    }
    c->status = body ? 200 : 500;
    c->body = body ? body : gsd_error_json(500, "internal", NULL, "out of memory");
}

static void answer_body(struct gsd_cmd *c, const struct gsd_blob *b)
{
    c->status = 200;
    c->body = strndup(b->data, b->len);
}

int gsd_view_answer(struct gsd_loop *lp, struct gsd_cmd *c)
{
    int k = c->kind;
    int first_page = !c->page[0] && !c->page[1] && !c->page[2] && !c->page[3] && !c->page[4];
    if (lp->reads_on_engine)
        return 0;
    if (k != GSD_GET && k != GSD_LIST && k != GSD_QUEUE && k != GSD_NODES &&
        k != GSD_CLUSTER && k != GSD_METRICS && !(k == GSD_DASHBOARD && first_page))
        return 0;
    struct gsd_view *v = view_get(lp);
    if (!v)
        return 0;
    int done = 1;
    switch (k) {
    case GSD_GET: answer_get(lp, v, c); break;
    case GSD_LIST: answer_list(lp, v, c); break;
    case GSD_QUEUE: answer_queue(v, c); break;
    case GSD_NODES: answer_body(c, v->nodes); break;
    case GSD_METRICS:
        answer_body(c, v->metrics);
        c->content_type = "text/plain; version=0.0.4; charset=utf-8";
        break;
    case GSD_CLUSTER:
        if ((done = v->cluster != NULL))
            answer_body(c, v->cluster);
        break;
    default:
        if ((done = v->dash != NULL))
            answer_body(c, v->dash);
        break;
    }
    view_unref(v);
    if (done && !c->body) {
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "out of memory");
    }
    return done;
}

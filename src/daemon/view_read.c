/* view_read.c - the readers' side of the published read state (view.h):
 * GET /v1/jobs/{id}, GET /v1/jobs, /v1/queue, /v1/nodes, /v1/cluster,
 * /metrics and the dashboard's first page answered from the view an HTTP
 * thread holds a reference to (gsd_view_answer), and ended jobs from the
 * read-only journal handles (reader_take/reader_give).
 *
 * Threads: any (an HTTP thread, or the engine thread for a turn's
 * batch).  It touches only the loop's shared part (loop_shared.h: view
 * under vmu, readers under rmu, the fixed db_path, out_dir and
 * reads_on_engine) and the view it holds; it cannot see the engine
 * thread's state (it does not include loop_private.h).
 */
#define _GNU_SOURCE
#include "daemon/loop_shared.h"
#include "daemon/view_jobs.h"
#include "daemon/view_state.h"
#include "daemon/vtab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gsd_blob *gsd_body_blob(char *text)
{
    struct gsd_blob *b = gsd_blob_new(0, 0, 0, NULL, NULL, text);
    free(text);
    return b;
}

void gsd_view_unref(struct gsd_view *v)
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

/* A reference to the published view (NULL before the first), under vmu. */
static struct gsd_view *view_get(struct gsd_loop *lp)
{
    struct gsd_shared *sh = gsd_shared_of(lp);
    pthread_mutex_lock(&sh->vmu);
    struct gsd_view *v = sh->view;
    if (v)
        atomic_fetch_add_explicit(&v->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&sh->vmu);
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

void gsd_sb_add(struct gsd_sb *b, const char *s, size_t n)
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

void gsd_sb_job(struct gsd_sb *b, int *first, const char *text, size_t n)
{
    if (!*first)
        gsd_sb_add(b, ",", 1);
    *first = 0;
    gsd_sb_add(b, text, n);
}

/* `],"now_epoch":N}` as jansson writes a real (15 digits, ".0" if whole). */
static void sb_end(struct gsd_sb *b, gs_time now)
{
    char num[64];
    int w = snprintf(num, sizeof num, "%.15g", (double)now / 1000.0);
    if (w > 0 && !strpbrk(num, ".e"))
        snprintf(num + w, sizeof num - (size_t)w, ".0");
    gsd_sb_add(b, "],\"now_epoch\":", 14);
    gsd_sb_add(b, num, strlen(num));
    gsd_sb_add(b, "}", 1);
}

/* A read-only journal handle: an idle one (under rmu) or a new one; NULL
 * (logged) when the journal cannot be opened. */
static struct gs_store *reader_take(struct gsd_shared *sh)
{
    struct gs_store *st = NULL;
    pthread_mutex_lock(&sh->rmu);
    if (sh->nreaders > 0)
        st = sh->readers[--sh->nreaders];
    pthread_mutex_unlock(&sh->rmu);
    if (!st) {
        struct gs_error err;
        gs_error_clear(&err);
        st = gs_store_open(sh->db_path, 0, 1, &err);
        if (!st)
            gsd_log("read-only journal handle: %s", err.msg);
    }
    return st;
}

/* Give st back to the idle handles (closed when they are full). */
static void reader_give(struct gsd_shared *sh, struct gs_store *st)
{
    pthread_mutex_lock(&sh->rmu);
    if (sh->nreaders < GSD_READERS) {
        sh->readers[sh->nreaders++] = st;
        st = NULL;
    }
    pthread_mutex_unlock(&sh->rmu);
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
    struct gsd_view *v = gsd_shared_of(lp)->reads_on_engine ? NULL : view_get(lp);
    const struct gsd_blob *b = v ? view_find(v, id) : NULL;
    char *t = b ? strndup(b->data, b->len) : NULL;
    gsd_view_unref(v);
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
    struct gs_store *st = reader_take(gsd_shared_of(lp));
    struct get_ctx g = { lp, NULL };
    int rc = st ? gs_store_job_by_id(st, c->id, on_get_row, &g) : GS_EIO;
    char *text = g.text;
    if (st)
        reader_give(gsd_shared_of(lp), st);
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
    struct gsd_sb out;
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
        gsd_sb_job(&x->out, &x->first, b->data, b->len);
    } else {
        char tail[48];
        int w = snprintf(tail, sizeof tail, ",\"queue_pos\":%lld}", (long long)pos);
        gsd_sb_job(&x->out, &x->first, b->data, b->len - 1);
        gsd_sb_add(&x->out, tail, (size_t)w);
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
    gsd_sb_job(&x->out, &x->first, text, strlen(text));
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
    struct gsd_sb tail = { 0 };
    sb_end(&tail, view_now(x->v)); /* `],"now_epoch":N}` */
    char num[48];
    int w = snprintf(num, sizeof num, "],\"next\":\"%lld\",", (long long)x->last);
    gsd_sb_add(&x->out, num, (size_t)w);
    if (tail.s && tail.n > 2)
        gsd_sb_add(&x->out, tail.s + 2, tail.n - 2);
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
    gsd_sb_add(&x.out, "{\"jobs\":[", 9);
    int rc = v->q->n && !x.pend ? GS_ENOMEM : 0;
    if (rc == 0 && !live_state(c->state)) {
        struct gs_store *st = reader_take(gsd_shared_of(lp));
        rc = st ? gs_store_jobs_list(st, c->state ? c->state : "done", c->team, c->after,
                                     x.limit + 1, on_list_row, &x)
                : GS_EIO;
        if (st)
            reader_give(gsd_shared_of(lp), st);
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
    gsd_sb_add(&x.out, "{\"jobs\":[", 9);
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
            v->queue = s ? gsd_body_blob(s) : NULL;
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
    if (gsd_shared_of(lp)->reads_on_engine)
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
    gsd_view_unref(v);
    if (done && !c->body) {
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "out of memory");
    }
    return done;
}

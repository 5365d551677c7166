/* view.c - the published read state (view.h): built on the engine thread
 * after each commit, read by the HTTP threads through a reference.
 *
 * Design
 * ------
 * A view (struct gsd_view) is immutable once published: the engine thread
 * builds a new one after each turn's commit (gsd_view_update, called from
 * loop.c's turn before any command of that turn is answered, so a client
 * reads its own writes) and swaps it in under sh.vmu (publish); a reader
 * takes a reference under vmu (view_get, view_read.c), answers from it
 * without any lock, and drops it (gsd_view_unref; the last reference
 * frees it).  The one
 * mutable part, the queue's page rendered on first demand, has its own
 * qmu.
 *
 * What a publish does, in order (gsd_view_update):
 *   1. the job table (fill_jobs, view_jobs.c, vtab.c): only the jobs the
 *      turn touched (view.dirty, gsd_view_touch) are rendered again; the
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
 * Threads: this file is the engine thread's side (gsd_view_update,
 * gsd_view_drop, gsd_view_touch, gsd_view_fini, the blobs kept in
 * lp->b_*): it sees the whole loop (loop_private.h) and writes the shared
 * part only to swap sh.view under sh.vmu.  The readers' side is
 * view_read.c (gsd_view_answer, gsd_view_job_text), which runs on an HTTP
 * thread or the engine thread (a turn's batch) and includes only
 * loop_shared.h: it reads the view it holds a reference to, the fixed
 * reads_on_engine, db_path and out_dir, and the read-only journal handles
 * (under sh.rmu) for ended jobs.  view_state.h is what the two sides
 * share (struct gsd_view, the text builder, the reference helpers).
 */
#define _GNU_SOURCE
#include "daemon/view.h"
#include "daemon/dash_route.h"
#include "daemon/loop_private.h"
#include "daemon/view_jobs.h"
#include "daemon/view_state.h"
#include "daemon/vtab.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t mono_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
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
    struct gsd_sb out = { 0 };
    gsd_sb_add(&out, "{\"nodes\":[", 10);
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
            gsd_sb_add(&out, ",", 1);
        gsd_sb_add(&out, text, strlen(text));
    }
    gsd_sb_add(&out, "]}", 2);
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
    if (gsd_vjobs_sync(lp, lp->view_force || !lp->sh.view, &changed) < 0)
        return -1;
    if ((!same || !lp->qcache) && gsd_vjobs_order(lp, lp->view_force || !lp->sh.view) < 0)
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
    struct gsd_sb out = { 0 };
    int first = 1;
    gsd_sb_add(&out, doc, n - 1);
    free(doc);
    gsd_sb_add(&out, ",\"pending\":[", 12);
    for (size_t i = 0; i < nq; i++)
        if (q[i]->view.diag)
            gsd_sb_job(&out, &first, q[i]->view.diag, strlen(q[i]->view.diag));
    gsd_sb_add(&out, "]}", 2);
    if (out.bad) {
        free(out.s);
        return NULL;
    }
    return out.s;
}

/* The bodies rebuilt at their own cadence (or when forced), kept in lp. */
static void full_bodies(struct gsd_loop *lp, struct djob **q, size_t nq)
{
    struct gsd_blob *c = gsd_body_blob(cluster_text(lp, q, nq));
    struct gsd_cmd first = { .kind = GSD_DASHBOARD };
    struct gsd_blob *d = gsd_body_blob(gsd_dash_body(lp, &first));
    gsd_blob_unref(lp->b_cluster);
    gsd_blob_unref(lp->b_dash);
    lp->b_cluster = c; /* NULL (out of memory): those reads go to the engine */
    lp->b_dash = d;
}

static void publish(struct gsd_loop *lp, struct gsd_view *v)
{
    pthread_mutex_lock(&lp->sh.vmu);
    struct gsd_view *old = lp->sh.view;
    lp->sh.view = v;
    pthread_mutex_unlock(&lp->sh.vmu);
    gsd_view_unref(old);
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
    struct gsd_blob *b = gsd_body_blob(make(lp, force));
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
    int force = lp->view_force || !lp->sh.view;
    same = same && lp->sh.view && !force;
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
        v->scale = lp->sh.opts.clock_scale;
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
        gsd_view_unref(v);
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
    return !lp->sh.reads_on_engine && (lp->lap_left > 0 || lp->bodies_behind);
}

void gsd_view_fini(struct gsd_loop *lp)
{
    gsd_view_unref(lp->sh.view);
    lp->sh.view = NULL;
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
    for (int i = 0; i < lp->sh.nreaders; i++)
        gs_store_close(lp->sh.readers[i]);
    lp->sh.nreaders = 0;
}

/* view_jobs.c - the live jobs' part of the published view, kept between
 * publishes (view_jobs.h). */
#define _GNU_SOURCE
#include "daemon/view_jobs.h"
#include "daemon/loop_private.h"
#include "daemon/view.h"
#include "daemon/vtab.h"

#include <stdlib.h>
#include <string.h>

/* A not-pending job in the list by seq. */
struct pre_ent {
    int64_t seq;
    uint32_t slot;
};

/* A queued job in the kept order, under its key. */
struct qent {
    struct gs_queue_key k;
    struct djob *d;
};

struct gsd_vbuild {
    struct gsd_vtab *t;
    struct djob **chg;        /* touched since the last publish (NULL: dropped) */
    size_t nchg, capchg;
    struct pre_ent *pre;      /* the not-pending jobs by seq */
    size_t npre, cappre;
    struct gsd_slots *pre_pub, *q_pub;  /* as last taken; pre_pub NULL = changed */
    struct qent *q;           /* the queue in pass order */
    size_t nq, capq;
    int q_full;               /* list it in full at the next order */
    int q_changed;            /* since lp->qcache and q_pub were made */
    gs_time q_until;          /* every key holds until then */
    int rebuild;              /* a failure: rebuild from every live job */
    int64_t checks, diffs;    /* GPUSCHEDD_VIEW_CHECK */
};

static struct gsd_slots *slots_new(size_t n)
{
    struct gsd_slots *l = malloc(sizeof *l + (n + 1) * sizeof l->s[0]);
    if (l) {
        atomic_init(&l->refs, 1);
        l->n = n;
    }
    return l;
}

struct gsd_slots *gsd_slots_ref(struct gsd_slots *l)
{
    if (l)
        atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
    return l;
}

void gsd_slots_unref(struct gsd_slots *l)
{
    if (l && atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
        free(l);
}

static struct gsd_vbuild *vb_get(struct gsd_loop *lp)
{
    if (!lp->vb && (lp->vb = calloc(1, sizeof *lp->vb)))
        lp->vb->rebuild = 1;
    return lp->vb;
}

void gsd_vjob_init(struct gsd_vjob *v)
{
    *v = (struct gsd_vjob){ .slot = -1 };
}

void gsd_vjob_fini(struct gsd_vjob *v)
{
    gsd_blob_unref(v->blob);
    free(v->diag);
    *v = (struct gsd_vjob){ .slot = -1 };
}

void gsd_view_touch(struct gsd_loop *lp, struct djob *d)
{
    struct gsd_vbuild *vb = vb_get(lp);
    if (!vb || d->view.chg)
        return; /* no table yet: the first publish takes every live job */
    if (gsd_grow((void **)&vb->chg, &vb->capchg, vb->nchg + 1, sizeof(struct djob *)) < 0) {
        vb->rebuild = 1;
        return;
    }
    vb->chg[vb->nchg++] = d;
    d->view.chg = vb->nchg;
}

/* The place of seq in the list by seq (first entry not before it). */
static size_t pre_find(const struct gsd_vbuild *vb, int64_t seq)
{
    size_t lo = 0, hi = vb->npre;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (vb->pre[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void pre_remove(struct gsd_vbuild *vb, struct djob *d)
{
    size_t i = pre_find(vb, d->seq);
    if (i < vb->npre && vb->pre[i].seq == d->seq) {
        memmove(vb->pre + i, vb->pre + i + 1, (vb->npre - i - 1) * sizeof *vb->pre);
        vb->npre--;
    }
    d->view.pre = 0;
    gsd_slots_unref(vb->pre_pub);
    vb->pre_pub = NULL;
}

/* The first entry of the order not before key k. */
static size_t q_find(const struct gsd_vbuild *vb, const struct gs_queue_key *k)
{
    size_t lo = 0, hi = vb->nq;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gs_queue_key_cmp(&vb->q[mid].k, k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void q_remove(struct gsd_vbuild *vb, struct djob *d)
{
    size_t i = q_find(vb, &d->view.qk);
    if (i >= vb->nq || vb->q[i].d != d) /* cannot happen: keys are unique */
        for (i = 0; i < vb->nq && vb->q[i].d != d; i++)
            ;
    if (i < vb->nq) {
        memmove(vb->q + i, vb->q + i + 1, (vb->nq - i - 1) * sizeof *vb->q);
        vb->nq--;
    }
    d->view.q = 0;
    vb->q_changed = 1;
}

/* Pending d into the order at its key's place (nothing while the order is
 * to be listed in full anyway). */
static void q_insert(struct gsd_loop *lp, struct gsd_vbuild *vb, struct djob *d)
{
    struct gs_queue_key k;
    if (vb->q_full || d->state != D_PENDING || d->handle < 0)
        return;
    int rc = gs_engine_queue_key(lp->eng, d->handle, &k);
    if (rc == GS_ENOENT)
        return; /* not queued in the engine: not listed */
    if (rc < 0 || gsd_grow((void **)&vb->q, &vb->capq, vb->nq + 1, sizeof *vb->q) < 0) {
        vb->q_full = 1;
        return;
    }
    size_t i = q_find(vb, &k);
    memmove(vb->q + i + 1, vb->q + i, (vb->nq - i) * sizeof *vb->q);
    vb->q[i] = (struct qent){ k, d };
    vb->nq++;
    d->view.q = 1;
    d->view.qk = k;
    vb->q_changed = 1;
    if (k.until < vb->q_until)
        vb->q_until = k.until;
}

void gsd_view_drop(struct gsd_loop *lp, struct djob *d)
{
    struct gsd_vbuild *vb = lp->vb;
    if (!vb)
        return;
    if (d->view.chg)
        vb->chg[d->view.chg - 1] = NULL;
    d->view.chg = 0;
    if (d->view.pre)
        pre_remove(vb, d);
    if (d->view.q)
        q_remove(vb, d);
    if (vb->t && d->view.slot >= 0)
        gsd_vtab_del(vb->t, d->view.slot);
    d->view.slot = -1;
}

/* d's current object into the table, and into or out of the list by seq. */
static int put(struct gsd_vbuild *vb, struct djob *d)
{
    if (gsd_vtab_put(vb->t, &d->view.slot, gsd_blob_ref(d->view.blob)) < 0)
        return -1;
    int want = d->state != D_PENDING;
    if (want && !d->view.pre) {
        if (gsd_grow((void **)&vb->pre, &vb->cappre, vb->npre + 1, sizeof *vb->pre) < 0)
            return -1;
        size_t i = pre_find(vb, d->seq);
        memmove(vb->pre + i + 1, vb->pre + i, (vb->npre - i) * sizeof *vb->pre);
        vb->pre[i] = (struct pre_ent){ d->seq, (uint32_t)d->view.slot };
        vb->npre++;
        d->view.pre = 1;
        gsd_slots_unref(vb->pre_pub);
        vb->pre_pub = NULL;
    } else if (!want && d->view.pre) {
        pre_remove(vb, d);
    }
    return 0;
}

/* Render d again; a pending one's diagnosis text is kept in d->view.diag for
 * the cluster document. */
static int render(struct gsd_loop *lp, struct djob *d)
{
    json_t *diag = NULL;
    char *text = gsd_json_text(gsd_djob_json(lp, d, &diag));
    char *dtext = diag ? gsd_json_text(diag) : NULL;
    struct gsd_blob *b = gsd_blob_new(d->seq, d->state, d->outcome, d->id, d->team, text);
    free(text);
    if (!b) {
        free(dtext);
        return -1;
    }
    gsd_blob_unref(d->view.blob);
    d->view.blob = b;
    free(d->view.diag);
    d->view.diag = dtext;
    d->view.dirty = 0;
    return 0;
}

int gsd_vjobs_render(struct gsd_loop *lp, struct djob *d)
{
    struct gsd_vbuild *vb = lp->vb;
    if (render(lp, d) < 0 || !vb || !vb->t || put(vb, d) < 0) {
        if (vb)
            vb->rebuild = 1;
        return -1;
    }
    return 0;
}

/* Start again from an empty table with every live job touched. */
static int reset(struct gsd_loop *lp, struct gsd_vbuild *vb)
{
    gsd_vtab_free(vb->t);
    vb->t = gsd_vtab_new();
    vb->npre = vb->nchg = 0;
    gsd_slots_unref(vb->pre_pub);
    vb->pre_pub = NULL;
    for (size_t i = 0; i < lp->nlive; i++) {
        lp->live[i]->view.slot = -1;
        lp->live[i]->view.pre = lp->live[i]->view.q = 0;
        lp->live[i]->view.chg = 0;
    }
    vb->nq = 0;
    vb->q_full = 1;
    if (!vb->t ||
        gsd_grow((void **)&vb->chg, &vb->capchg, lp->nlive + 1, sizeof(struct djob *)) < 0)
        return -1;
    for (size_t i = 0; i < lp->nlive; i++) {
        vb->chg[vb->nchg++] = lp->live[i];
        lp->live[i]->view.chg = vb->nchg;
    }
    vb->rebuild = 0;
    return 0;
}

int gsd_vjobs_sync(struct gsd_loop *lp, int all, int *changed)
{
    struct gsd_vbuild *vb = vb_get(lp);
    *changed = 0;
    if (!vb || ((all || vb->rebuild || !vb->t) && reset(lp, vb) < 0)) {
        if (vb)
            vb->rebuild = 1;
        return -1;
    }
    int bad = 0;
    for (size_t i = 0; i < vb->nchg; i++) {
        struct djob *d = vb->chg[i];
        if (!d)
            continue;
        d->view.chg = 0;
        if (bad)
            continue;
        if (d->view.dirty || !d->view.blob) {
            *changed = 1;
            bad = render(lp, d) < 0;
        }
        bad = bad || put(vb, d) < 0;
        if (d->view.q)
            q_remove(vb, d);
        q_insert(lp, vb, d);
    }
    vb->nchg = 0;
    if (bad)
        vb->rebuild = 1;
    return bad ? -1 : 0;
}

/* The order listed afresh by the engine, with the keys of its jobs. */
static int q_list_full(struct gsd_loop *lp, struct gsd_vbuild *vb)
{
    for (size_t i = 0; i < vb->nq; i++)
        vb->q[i].d->view.q = 0;
    vb->nq = 0;
    vb->q_full = 0;
    vb->q_until = GS_TIME_INF;
    vb->q_changed = 1;
    int k = gs_engine_queue_list(lp->eng, NULL, 0);
    size_t cap = (size_t)(k > 0 ? k : 0) + 1;
    int *h = malloc(cap * sizeof *h);
    int got = h ? gs_engine_queue_list(lp->eng, h, cap) : GS_ENOMEM;
    if (got < 0 || gsd_grow((void **)&vb->q, &vb->capq, cap, sizeof *vb->q) < 0) {
        free(h);
        vb->q_full = 1;
        return -1;
    }
    for (int i = 0; i < got && (size_t)i < cap; i++) {
        struct djob *d = gsd_job_of_handle(lp, h[i]);
        if (!d || d->state != D_PENDING || d->view.q)
            continue; /* not a live pending job, or listed twice */
        struct qent *e = &vb->q[vb->nq++];
        *e = (struct qent){ .d = d };
        d->view.q = 1; /* in the order (a drop takes it out) */
        if (gs_engine_queue_key(lp->eng, h[i], &e->k) == 0) {
            d->view.qk = e->k;
            vb->q_until = e->k.until < vb->q_until ? e->k.until : vb->q_until;
        } else { /* no keys (fifo): listed in full every turn */
            d->view.qk = e->k;
            vb->q_full = 1;
        }
    }
    free(h);
    return 0;
}

int gsd_vjobs_order(struct gsd_loop *lp, int all)
{
    struct gsd_vbuild *vb = lp->vb;
    if (!vb)
        return -1;
    if ((all || vb->q_full || gs_engine_now(lp->eng) > vb->q_until) && q_list_full(lp, vb) < 0)
        return -1;
    if (!vb->q_changed && lp->qcache && vb->q_pub)
        return 0;
    struct djob **q = malloc((vb->nq + 1) * sizeof(struct djob *));
    struct gsd_slots *l = q ? slots_new(vb->nq) : NULL;
    if (!l) {
        free(q);
        return -1;
    }
    for (size_t i = 0; i < vb->nq; i++) {
        struct djob *d = vb->q[i].d;
        if (d->view.slot < 0 && gsd_vjobs_render(lp, d) < 0) {
            free(q);
            gsd_slots_unref(l);
            return -1;
        }
        q[i] = d;
        l->s[i] = (uint32_t)d->view.slot;
    }
    free(lp->qcache);
    lp->qcache = q;
    lp->nqcache = vb->nq;
    gsd_slots_unref(vb->q_pub);
    vb->q_pub = l;
    vb->q_changed = 0;
    return 0;
}

int gsd_vjobs_take(struct gsd_loop *lp, struct gsd_vsnap **snap, struct gsd_slots **pre,
                   struct gsd_slots **queue)
{
    struct gsd_vbuild *vb = lp->vb;
    *snap = NULL;
    *pre = *queue = NULL;
    if (!vb || !vb->t)
        return -1;
    if (!vb->pre_pub && (vb->pre_pub = slots_new(vb->npre)))
        for (size_t i = 0; i < vb->npre; i++)
            vb->pre_pub->s[i] = vb->pre[i].slot;
    if (!vb->q_pub)
        vb->q_pub = slots_new(0);
    *snap = vb->pre_pub && vb->q_pub ? gsd_vtab_snap(vb->t) : NULL;
    if (!*snap)
        return -1;
    *pre = gsd_slots_ref(vb->pre_pub);
    *queue = gsd_slots_ref(vb->q_pub);
    return 0;
}

void gsd_vjobs_fini(struct gsd_loop *lp)
{
    struct gsd_vbuild *vb = lp->vb;
    if (!vb)
        return;
    if (lp->view_check)
        gsd_log("view check: %lld publishes checked, %lld differences",
                (long long)vb->checks, (long long)vb->diffs);
    gsd_vtab_free(vb->t);
    gsd_slots_unref(vb->pre_pub);
    gsd_slots_unref(vb->q_pub);
    free(vb->chg);
    free(vb->pre);
    free(vb->q);
    free(vb);
    lp->vb = NULL;
}

/* --- GPUSCHEDD_VIEW_CHECK ---------------------------------------------- */

/* Whether stored text `have` is d's object rendered now, the reason aside
 * and the promise now (reasons and estimated starts move with every pass;
 * the refresh follows them round the queue). */
static int same_object(struct gsd_loop *lp, const struct djob *d, const char *have)
{
    char *text = gsd_json_text(gsd_djob_json(lp, d, NULL)); /* as the view writes it */
    json_t *now = text ? json_loads(text, 0, NULL) : NULL;
    json_error_t je;
    json_t *was = json_loads(have, 0, &je);
    if (!was)
        gsd_log("view check: job %s: the view's object is not JSON (%s at %d): ...%.80s",
                d->id, je.text, je.position,
                have + (je.position > 40 && (size_t)je.position < strlen(have) ? je.position - 40 : 0));
    free(text);
    for (int k = 0; k < 2; k++) { /* the promise now moves with the reason */
        const char *moving = k ? "estimate" : "reason";
        if (now)
            json_object_del(now, moving);
        if (was)
            json_object_del(was, moving);
    }
    int eq = now && was && json_equal(now, was);
    const char *key;
    json_t *val;
    if (!eq && now && was)
        json_object_foreach(now, key, val) {
            json_t *o = json_object_get(was, key);
            if (o && json_equal(o, val))
                continue;
            char *x = o ? json_dumps(o, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) : NULL;
            char *y = json_dumps(val, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
            gsd_log("view check: job %s: \"%s\" is %.200s in the view, %.200s rendered now",
                    d->id, key, x ? x : "missing", y ? y : "?");
            free(x);
            free(y);
        }
    json_decref(now);
    json_decref(was);
    return eq;
}

static int by_seq_job(const void *a, const void *b)
{
    const struct djob *x = *(struct djob *const *)a, *y = *(struct djob *const *)b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The list `l` names the jobs `want[0..n)` in that order. */
static int list_diffs(const struct gsd_vsnap *snap, const struct gsd_slots *l,
                      struct djob **want, size_t n, const char *what)
{
    if (l->n != n) {
        gsd_log("view check: %s lists %zu jobs, a full rebuild %zu", what, l->n, n);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct gsd_blob *b = gsd_vsnap_at(snap, l->s[i]);
        if (!b || strcmp(b->id, want[i]->id) != 0) {
            gsd_log("view check: %s[%zu] is '%s', a full rebuild has '%s'", what, i,
                    b ? b->id : "(empty)", want[i]->id);
            return 1;
        }
    }
    return 0;
}

/* Every live job in the table, found by id, as rendered now. */
static int table_diffs(struct gsd_loop *lp, const struct gsd_vsnap *snap)
{
    int diffs = 0;
    if (gsd_vtab_count(lp->vb->t) != lp->nlive) {
        gsd_log("view check: the table holds %zu jobs, %zu are live",
                gsd_vtab_count(lp->vb->t), lp->nlive);
        diffs++;
    }
    for (size_t i = 0; i < lp->nlive; i++) {
        const struct djob *d = lp->live[i];
        int s = gsd_vsnap_find(snap, d->id);
        const struct gsd_blob *b = s >= 0 ? gsd_vsnap_at(snap, (uint32_t)s) : NULL;
        if (!b || s != d->view.slot || d->view.dirty || b != d->view.blob || !same_object(lp, d, b->data)) {
            if (diffs++ < 5)
                gsd_log("view check: job %s (slot %d, found %d, dirty %d, %s, refs %d, len %zu): "
                        "its object differs from a fresh render", d->id, d->view.slot, s, d->view.dirty,
                        b == d->view.blob ? "its blob" : "another blob",
                        b ? atomic_load(&b->refs) : -1, b ? b->len : 0);
        }
    }
    return diffs;
}

/* The pending jobs in the engine's pass order now (caller frees). */
static struct djob **queue_now(struct gsd_loop *lp, size_t *n)
{
    int k = gs_engine_queue_list(lp->eng, NULL, 0);
    size_t cap = (size_t)(k > 0 ? k : 0) + 1;
    int *h = malloc(cap * sizeof *h);
    struct djob **out = malloc(cap * sizeof(struct djob *));
    int got = h && out ? gs_engine_queue_list(lp->eng, h, cap) : 0;
    *n = 0;
    for (int i = 0; i < got && (size_t)i < cap; i++) {
        struct djob *d = gsd_job_of_handle(lp, h[i]);
        if (d && d->state == D_PENDING)
            out[(*n)++] = d;
    }
    free(h);
    return out;
}

int gsd_vjobs_check(struct gsd_loop *lp, const struct gsd_vsnap *snap,
                    const struct gsd_slots *pre, const struct gsd_slots *queue)
{
    struct djob **np = malloc((lp->nlive + 1) * sizeof(struct djob *));
    size_t nnp = 0, nq = 0;
    struct djob **q = queue_now(lp, &nq);
    if (!np || !q) {
        free(np);
        free(q);
        return 0;
    }
    for (size_t i = 0; i < lp->nlive; i++)
        if (lp->live[i]->state != D_PENDING)
            np[nnp++] = lp->live[i];
    qsort(np, nnp, sizeof(struct djob *), by_seq_job);
    int diffs = table_diffs(lp, snap) + list_diffs(snap, pre, np, nnp, "not-pending") +
                list_diffs(snap, queue, q, nq, "queue");
    if (nnp + nq != lp->nlive) {
        gsd_log("view check: %zu not pending + %zu queued != %zu live", nnp, nq, lp->nlive);
        diffs++;
    }
    free(np);
    free(q);
    lp->vb->checks++;
    lp->vb->diffs += diffs;
    return diffs;
}

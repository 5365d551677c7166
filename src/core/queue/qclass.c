/* qclass.c - equivalence classes of pending jobs (qclass.h).
 *
 * Per GPU count of a plain job, a min-heap of (estimate, job) of the
 * pending plain jobs of that count; bucket 0 lists the jobs that are not
 * plain.  Entries are added when a job joins the queue and dropped lazily:
 * an entry is live while its slot holds the same handle and the job is
 * pending (a job that left and came back may be listed twice, with the
 * same estimate: estimates do not move, gs_qclass_enabled).  When entries
 * outnumber twice the pending jobs, every bucket is rebuilt from its live,
 * distinct entries (amortised O(log n) per join).
 */
#include "core/queue/qclass.h"
#include "core/queue/queue_private.h"
#include "core/base/alloc.h"

#include <stdlib.h>
#include <string.h>

struct qent {
    gs_time dur;
    int job, handle;
};

struct bucket {
    struct qent *e;
    size_t n, cap;
};

struct gs_qclass {
    struct bucket b[GS_QCLASS_MAX_GPUS + 1]; /* 0: not plain (a stack) */
    size_t entries;
    int classes;                /* at the last gs_qclass_doomed */
    /* the estimator the entries were filed under: a new one (set after
     * jobs were filed) makes their estimates stale, so no stop again */
    gs_time (*est_fn)(void *, const struct gs_engine *, int);
    void *est_arg;
    int filed, stale;
    int rep[GS_QCLASS_MAX_GPUS + 1]; /* a pending job of each class, -1 = none */
    int valid;                  /* `sig` and `prefix` hold */
    struct gs_qclass_sig sig;
    int *prefix;
    size_t nprefix, prefix_cap;
};

struct gs_qclass *gs_qclass_create(void)
{
    return gs_calloc(1, sizeof(struct gs_qclass));
}

void gs_qclass_free(struct gs_qclass *c)
{
    if (!c)
        return;
    for (int g = 0; g <= GS_QCLASS_MAX_GPUS; g++)
        gs_free(c->b[g].e);
    gs_free(c->prefix);
    gs_free(c);
}

/* Whether a pending job's estimate may move while it waits: any estimator
 * but the time limit and the simulator's oracle (from_history learns at
 * every end).  The stop then needs codes that do not read the estimate. */
static int est_moves(const struct gs_engine *eng)
{
    const char *est = eng->est.name ? eng->est.name : "";
    return strcmp(est, "user") != 0 && strcmp(est, "oracle") != 0;
}

int gs_qclass_enabled(const struct gs_engine *eng)
{
    const struct gs_policy *p = &eng->pol;
    if (p->preempt_mode != GS_PREEMPT_NONE || p->npartitions > 0)
        return 0;
    for (int k = 0; k < 2; k++)
        if (p->preempt_class[k] != GS_PREEMPT_INHERIT && p->preempt_class[k] != GS_PREEMPT_NONE)
            return 0;
    /* hot spares, held GPUs (retry.hold) and moving estimates: with the
     * unbounded pass only.  A
     * bounded pass that stops ends its segments at other points, and the
     * start-time promises and the continuations by stamps read where the
     * segments end: they would no longer be the bounded pass's of before */
    return p->max_job_test == 0 ||
           (p->spares_nodes == 0 && p->retry_hold == 0 && !est_moves(eng));
}

static int live(const struct gs_engine *eng, const struct qent *q)
{
    if ((size_t)q->job >= eng->njobs)
        return 0;
    const struct job *j = &eng->jobs[q->job];
    return j->handle == q->handle && j->state == GS_JOB_PENDING;
}

static void sift_up(struct bucket *b, size_t i)
{
    struct qent x = b->e[i];
    while (i > 0 && b->e[(i - 1) / 2].dur > x.dur) {
        b->e[i] = b->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    b->e[i] = x;
}

static void sift_down(struct bucket *b, size_t i)
{
    struct qent x = b->e[i];
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= b->n)
            break;
        if (k + 1 < b->n && b->e[k + 1].dur < b->e[k].dur)
            k++;
        if (b->e[k].dur >= x.dur)
            break;
        b->e[i] = b->e[k];
        i = k;
    }
    b->e[i] = x;
}

static int cmp_ent(const void *pa, const void *pb)
{
    const struct qent *a = pa, *b = pb;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    return (a->handle > b->handle) - (a->handle < b->handle);
}

/* Keep the live, distinct entries of every bucket; re-heapify. */
static void rebuild(struct gs_qclass *c, const struct gs_engine *eng)
{
    c->entries = 0;
    for (int g = 0; g <= GS_QCLASS_MAX_GPUS; g++) {
        struct bucket *b = &c->b[g];
        size_t out = 0;
        for (size_t i = 0; i < b->n; i++)
            if (live(eng, &b->e[i]))
                b->e[out++] = b->e[i];
        if (out > 1)
            qsort(b->e, out, sizeof *b->e, cmp_ent);
        size_t u = 0;
        for (size_t i = 0; i < out; i++)
            if (u == 0 || cmp_ent(&b->e[u - 1], &b->e[i]) != 0)
                b->e[u++] = b->e[i];
        b->n = u;
        if (g > 0)
            for (size_t i = u / 2; i-- > 0;)
                sift_down(b, i);
        c->entries += u;
    }
}

int gs_qclass_note(struct gs_qclass *c, const struct gs_engine *eng, int job, gs_time dur)
{
    const struct job *j = &eng->jobs[job];
    /* a spare user (it may restart on the hot spares) or a job with GPUs
     * held for it (retry.hold) is not plain: the
     * pass memo leaves it out (queue.c) */
    int g = gs_qclass_of(eng, j);
    if (!c->filed) {
        c->est_fn = eng->est.estimate;
        c->est_arg = eng->est.arg;
        c->filed = 1;
    }
    c->stale |= c->est_fn != eng->est.estimate || c->est_arg != eng->est.arg;
    struct bucket *b = &c->b[g];
    if (gs_grow((void **)&b->e, &b->cap, b->n + 1, sizeof *b->e))
        return GS_ENOMEM;
    b->e[b->n] = (struct qent){ dur, job, j->handle };
    b->n++;
    if (g > 0)
        sift_up(b, b->n - 1);
    if (++c->entries > 2 * eng->npending + 64)
        rebuild(c, eng);
    return 0;
}

/* Drop dead entries off the top of bucket `g`; whether a live one is left. */
static int top_live(struct gs_qclass *c, const struct gs_engine *eng, int g)
{
    struct bucket *b = &c->b[g];
    while (b->n > 0 && !live(eng, &b->e[g > 0 ? 0 : b->n - 1])) {
        c->entries--;
        if (g == 0) {
            b->n--;
            continue;
        }
        b->e[0] = b->e[--b->n];
        if (b->n > 0)
            sift_down(b, 0);
    }
    return b->n > 0;
}

/* The memo of queue.c refuses a plain job of `g` GPUs and estimate `dur`
 * (memo_doomed's rule); *res: by `resources` (some count up to g does not
 * fit the idle GPUs) before any `reservation` refusal. */
static int memo_refuses(const gs_time *live_m, const gs_time *view_m, int g, gs_time dur,
                        int *res)
{
    for (int k = 1; k <= g; k++) {
        if (live_m[k] == 0) {
            *res = 1;
            return 1;
        }
        if (view_m[k] != GS_TIME_INF && view_m[k] <= dur)
            return 1;
    }
    return 0;
}

/* Whether the memo refuses every plain job of `g` GPUs with one code
 * whatever its estimate: some count up to g does not fit the idle GPUs,
 * and no smaller count before it has a `reservation` entry (which would
 * give a long job `reservation` and let a short one on). */
static int memo_refuses_any(const gs_time *live_m, const gs_time *view_m, int g)
{
    for (int k = 1; k <= g; k++) {
        if (live_m[k] == 0)
            return 1;
        if (view_m[k] != GS_TIME_INF)
            return 0;
    }
    return 0;
}

int gs_qclass_has(struct gs_qclass *c, const struct gs_engine *eng, int g)
{
    return top_live(c, eng, g);
}

void gs_qclass_set_reason(const struct gs_qclass *c, struct gs_engine *eng, int g,
                          uint32_t cycle, int reason)
{
    const struct bucket *b = &c->b[g];
    for (size_t i = 0; i < b->n; i++)
        if (live(eng, &b->e[i]) && gs_queue_job(eng, b->e[i].job)->tried_cycle != cycle)
            gs_queue_job(eng, b->e[i].job)->reason = (int8_t)reason;
}

void gs_qclass_reps(struct gs_qclass *c, const struct gs_engine *eng, int *rep)
{
    rep[0] = -1;
    c->classes = top_live(c, eng, 0);
    for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++) {
        rep[g] = top_live(c, eng, g) ? c->b[g].e[0].job : -1;
        c->classes += rep[g] >= 0;
    }
}

/* The memo as the codes beyond the stop read it: a job of any size stops
 * reading at the first count that does not fit the idle GPUs (k0), so the
 * entries past k0 never decide a code and are left out of the signature. */
static void sig_memo(struct gs_qclass_sig *sig, const struct gs_engine *eng,
                     const gs_time *live_m, const gs_time *view_m)
{
    int k0 = GS_QCLASS_MAX_GPUS + 1;
    if (eng->pol.max_job_test != 0) { /* bounded: the whole memo, as before (enabled) */
        memcpy(sig->live, live_m, sizeof sig->live);
        memcpy(sig->view, view_m, sizeof sig->view);
        return;
    }
    for (int k = 1; k <= GS_QCLASS_MAX_GPUS && k0 > GS_QCLASS_MAX_GPUS; k++)
        if (live_m[k] == 0)
            k0 = k;
    for (int k = 0; k <= GS_QCLASS_MAX_GPUS; k++) {
        sig->live[k] = k <= k0 ? live_m[k] : GS_TIME_INF;
        sig->view[k] = k <= k0 ? view_m[k] : GS_TIME_INF;
    }
}

int gs_qclass_doomed(struct gs_qclass *c, const struct gs_engine *eng, int behind,
                     const gs_time *live_m, const gs_time *view_m, struct gs_qclass_sig *sig)
{
    memset(sig, 0, sizeof *sig);
    if (c->stale || (c->filed && (c->est_fn != eng->est.estimate || c->est_arg != eng->est.arg)))
        return 0;
    sig->mode = behind ? 1 : 2;
    int classes = 0, nonplain = top_live(c, eng, 0), moves = est_moves(eng);
    for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++) {
        c->rep[g] = -1;
        if (!top_live(c, eng, g))
            continue;
        c->rep[g] = c->b[g].e[0].job;
        classes++;
        if (behind)
            continue;
        int res = 0;
        if (moves ? !memo_refuses_any(live_m, view_m, g)
                  : !memo_refuses(live_m, view_m, g, c->b[g].e[0].dur, &res))
            return 0;
        for (int k = 1; k <= g; k++) /* any job of this class may wait for resources */
            sig->cl_dep |= live_m[k] == 0;
    }
    c->classes = classes + nonplain;
    if (!behind && nonplain)
        return 0; /* a job the memo does not cover could start */
    if (!behind)
        sig_memo(sig, eng, live_m, view_m);
    return 1;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

void gs_qclass_sig_finish(struct gs_qclass *c, struct gs_engine *eng, struct gs_qclass_sig *sig)
{
    uint64_t h = (uint64_t)eng->pol.quota_mode;
    for (size_t t = 0; t < eng->teams_cap; t++) { /* a team without quota always passes */
        if (eng->team_quota[t] < 0)
            continue;
        h = mix(h, (uint64_t)t);
        h = mix(h, (uint64_t)(int64_t)eng->team_quota[t]);
        h = mix(h, (uint64_t)eng->team_milli[t]);
    }
    sig->quota = h;
    if (sig->cl_dep) /* the code of a class is the code of any of its jobs */
        for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++)
            if (c->rep[g] >= 0)
                sig->code[g] = (int8_t)eng->hooks.plain_code(eng, c->rep[g]);
}

int gs_qclass_same(const struct gs_qclass *c, const struct gs_qclass_sig *sig)
{
    const struct gs_qclass_sig *a = &c->sig;
    return c->valid && a->mode == sig->mode && a->cl_dep == sig->cl_dep &&
           a->quota == sig->quota && memcmp(a->live, sig->live, sizeof a->live) == 0 &&
           memcmp(a->view, sig->view, sizeof a->view) == 0 &&
           memcmp(a->code, sig->code, sizeof a->code) == 0;
}

int gs_qclass_establish(struct gs_qclass *c, const struct gs_qclass_sig *sig, const int *prefix,
                        size_t n)
{
    c->valid = 0;
    if (gs_grow((void **)&c->prefix, &c->prefix_cap, n + 1, sizeof *c->prefix))
        return GS_ENOMEM;
    if (n)
        memcpy(c->prefix, prefix, n * sizeof *prefix);
    c->nprefix = n;
    c->sig = *sig;
    c->valid = 1;
    return 0;
}

void gs_qclass_invalidate(struct gs_qclass *c)
{
    if (c)
        c->valid = 0;
}

const int *gs_qclass_prefix(const struct gs_qclass *c, size_t *n)
{
    *n = c->valid ? c->nprefix : 0;
    return c->prefix;
}

int gs_qclass_count(const struct gs_qclass *c)
{
    return c ? c->classes : 0;
}

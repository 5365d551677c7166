/* queue_estidx.c - plain classes indexed by estimate (queue_estidx.h).
 *
 * Groups live in one array, found by an open-addressing map from (class,
 * user, name, team); each class lists its groups.  A group is a min-heap
 * of (rank, job, handle): rank = the time limit (none: GS_TIME_INF) under
 * from_history, the estimate at filing under user and oracle.  An entry
 * is live while its slot holds the same handle and the job is pending;
 * dead ones are dropped off a heap's top when read, and when entries
 * outnumber twice the pending jobs every heap keeps only its live,
 * distinct entries (amortised O(log n) per join).  A class with more than
 * GROUPS_MAX groups answers "unknown" (its query would cost too much).
 */
#include "core/queue/queue_estidx.h"
#include "core/queue/qclass.h"
#include "core/base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define GROUPS_MAX 256 /* per class */

enum { MODE_NONE, MODE_FIXED, MODE_HISTORY, MODE_OFF };

struct ent {
    gs_time rank;
    int job, handle;
};

struct grp {
    int user, name, team;       /* history: the job fields its keys read; fixed: 0 */
    int g;
    struct ent *e;
    size_t n, cap;
};

struct gs_qest {
    int mode;
    gs_time (*est_fn)(void *, const struct gs_engine *, int); /* filed under */
    void *est_arg;
    struct grp *grp;
    size_t ngrp, grp_cap;
    int *map;                   /* group index + 1, 0 = empty; map_cap a power of two */
    size_t map_cap;
    int *cls[GS_QCLASS_MAX_GPUS + 1]; /* per class: its group indices */
    size_t ncls[GS_QCLASS_MAX_GPUS + 1], cls_cap[GS_QCLASS_MAX_GPUS + 1];
    int over[GS_QCLASS_MAX_GPUS + 1]; /* more than GROUPS_MAX groups */
    size_t entries;
};

struct gs_qest *gs_qest_create(void)
{
    return gs_calloc(1, sizeof(struct gs_qest));
}

void gs_qest_free(struct gs_qest *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->ngrp; i++)
        gs_free(x->grp[i].e);
    gs_free(x->grp);
    gs_free(x->map);
    for (int g = 0; g <= GS_QCLASS_MAX_GPUS; g++)
        gs_free(x->cls[g]);
    gs_free(x);
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static int same(const struct grp *a, const struct grp *b)
{
    return a->user == b->user && a->name == b->name && a->team == b->team && a->g == b->g;
}

static size_t slot_of(const struct gs_qest *x, const struct grp *k)
{
    size_t mask = x->map_cap - 1;
    uint64_t h = mix(((uint64_t)(uint32_t)k->user << 32) ^ (uint64_t)(uint32_t)k->name);
    h = mix(h ^ ((uint64_t)(uint32_t)k->team << 8) ^ (uint64_t)k->g);
    size_t i = (size_t)h & mask;
    while (x->map[i] && !same(&x->grp[x->map[i] - 1], k))
        i = (i + 1) & mask;
    return i;
}

static int rehash(struct gs_qest *x)
{
    size_t cap = x->map_cap ? 2 * x->map_cap : 64;
    int *m = gs_calloc(cap, sizeof *m);
    if (!m)
        return GS_ENOMEM;
    gs_free(x->map);
    x->map = m;
    x->map_cap = cap;
    for (size_t k = 0; k < x->ngrp; k++)
        x->map[slot_of(x, &x->grp[k])] = (int)k + 1;
    return 0;
}

/* The group of `k` (its fields set, no entries), created when new; NULL on
 * allocation failure or when the class has too many groups (then marked). */
static struct grp *group(struct gs_qest *x, const struct grp *k)
{
    int g = k->g;
    if ((x->ngrp + 1) * 2 > x->map_cap && rehash(x) < 0)
        return NULL;
    size_t i = slot_of(x, k);
    if (x->map[i])
        return &x->grp[x->map[i] - 1];
    if (x->ncls[g] >= GROUPS_MAX) {
        x->over[g] = 1;
        return NULL;
    }
    if (gs_grow((void **)&x->grp, &x->grp_cap, x->ngrp + 1, sizeof *x->grp) ||
        gs_grow((void **)&x->cls[g], &x->cls_cap[g], x->ncls[g] + 1, sizeof *x->cls[g]))
        return NULL;
    x->grp[x->ngrp] = *k;
    x->cls[g][x->ncls[g]++] = (int)x->ngrp;
    x->map[i] = (int)++x->ngrp;
    return &x->grp[x->ngrp - 1];
}

static void sift_up(struct grp *b, size_t i)
{
    struct ent v = b->e[i];
    while (i > 0 && b->e[(i - 1) / 2].rank > v.rank) {
        b->e[i] = b->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    b->e[i] = v;
}

static void sift_down(struct grp *b, size_t i)
{
    struct ent v = b->e[i];
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= b->n)
            break;
        if (k + 1 < b->n && b->e[k + 1].rank < b->e[k].rank)
            k++;
        if (b->e[k].rank >= v.rank)
            break;
        b->e[i] = b->e[k];
        i = k;
    }
    b->e[i] = v;
}

static int live(const struct gs_engine *eng, const struct ent *e)
{
    if ((size_t)e->job >= eng->njobs)
        return 0;
    const struct job *j = &eng->jobs[e->job];
    return j->handle == e->handle && j->state == GS_JOB_PENDING;
}

static int cmp_ent(const void *pa, const void *pb)
{
    const struct ent *a = pa, *b = pb;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    return (a->handle > b->handle) - (a->handle < b->handle);
}

/* Keep the live, distinct entries of every group; re-heapify. */
static void rebuild(struct gs_qest *x, const struct gs_engine *eng)
{
    x->entries = 0;
    for (size_t k = 0; k < x->ngrp; k++) {
        struct grp *b = &x->grp[k];
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
        for (size_t i = u / 2; i-- > 0;)
            sift_down(b, i);
        x->entries += u;
    }
}

/* The estimators whose structure the index knows (see the header). */
static int mode_of(const struct gs_engine *eng)
{
    const char *n = eng->est.name ? eng->est.name : "";
    if (strcmp(n, "user") == 0 || strcmp(n, "oracle") == 0)
        return MODE_FIXED;
    return strcmp(n, "from_history") == 0 ? MODE_HISTORY : MODE_OFF;
}

int gs_qest_note(struct gs_qest *x, const struct gs_engine *eng, int job, gs_time dur)
{
    const struct job *j = &eng->jobs[job];
    int g = gs_qclass_of(eng, j);
    if (x->mode == MODE_NONE) {
        x->mode = mode_of(eng);
        x->est_fn = eng->est.estimate;
        x->est_arg = eng->est.arg;
    }
    if (x->est_fn != eng->est.estimate || x->est_arg != eng->est.arg)
        x->mode = MODE_OFF; /* a new estimator: what was filed is stale */
    if (g == 0 || x->mode == MODE_OFF)
        return 0;
    struct grp k = { 0, 0, 0, g, NULL, 0, 0 };
    gs_time rank = dur;
    if (x->mode == MODE_HISTORY) {
        k.user = j->user;
        k.name = j->name;
        k.team = j->team;
        rank = j->time_limit > 0 ? j->time_limit : GS_TIME_INF;
    }
    struct grp *b = group(x, &k);
    if (!b && x->over[g])
        return 0; /* the class answers unknown from now on */
    if (!b || gs_grow((void **)&b->e, &b->cap, b->n + 1, sizeof *b->e)) {
        x->mode = MODE_OFF; /* a job not filed: the index would be wrong */
        return GS_ENOMEM;
    }
    b->e[b->n++] = (struct ent){ rank, job, j->handle };
    sift_up(b, b->n - 1);
    if (++x->entries > 2 * eng->npending + 64)
        rebuild(x, eng);
    return 0;
}

/* Drop dead entries off the top of `b`; whether a live one is left. */
static int top_live(struct gs_qest *x, const struct gs_engine *eng, struct grp *b)
{
    while (b->n > 0 && !live(eng, &b->e[0])) {
        x->entries--;
        b->e[0] = b->e[--b->n];
        if (b->n > 0)
            sift_down(b, 0);
    }
    return b->n > 0;
}

int gs_qest_min(struct gs_qest *x, const struct gs_engine *eng, int g, gs_time *out)
{
    if (g < 1 || g > GS_QCLASS_MAX_GPUS || x->over[g] || x->mode == MODE_NONE ||
        x->mode == MODE_OFF || x->est_fn != eng->est.estimate || x->est_arg != eng->est.arg)
        return 0;
    gs_time m = GS_TIME_INF;
    for (size_t i = 0; i < x->ncls[g]; i++) {
        struct grp *b = &x->grp[x->cls[g][i]];
        if (!top_live(x, eng, b))
            continue;
        gs_time e = gs_eng_estimate(eng, b->e[0].job);
        if (e == GS_TIME_NONE)
            e = GS_TIME_INF;
        if (e < m)
            m = e;
    }
    *out = m;
    return 1;
}

/* vtab.c - the view's job table in copy-on-write chunks (vtab.h). */
#include "daemon/vtab.h"

#include <stdlib.h>
#include <string.h>

#define VCH 64                /* entries per chunk */
#define TOMB UINTPTR_MAX      /* index: a deleted entry */

/* 64 entries: blob pointers (each a reference) or index entries (0 =
 * empty, TOMB, else slot + 1). */
struct chunk {
    atomic_int refs;
    int blobs;
    union {
        struct gsd_blob *b[VCH];
        uintptr_t x[VCH];
    } u;
};

/* A chunked array; a NULL chunk reads as zeros. */
struct carr {
    struct chunk **c;
    size_t nc;
    int blobs;
};

struct gsd_vtab {
    struct carr jobs, idx;    /* slot -> blob; hash -> slot + 1 */
    size_t icap, iused, itomb;
    size_t nslots, count;     /* slots ever used; filled ones */
    int *free;                /* freed slots, reused first */
    size_t nfree, capfree;
};

struct gsd_vsnap {
    size_t njc, nic, icap;
    struct chunk **jc, **ic;  /* into the allocation */
};

uint64_t gsd_vtab_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

struct gsd_blob *gsd_blob_new(int64_t seq, int state, int outcome, const char *id,
                              const char *team, const char *text)
{
    if (!text)
        return NULL;
    size_t lt = strlen(text), li = id ? strlen(id) : 0, lm = team ? strlen(team) : 0;
    struct gsd_blob *b = malloc(sizeof *b + lt + li + lm + 3);
    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->seq = seq;
    b->hash = gsd_vtab_hash(id ? id : "");
    b->state = state;
    b->outcome = outcome;
    b->len = lt;
    memcpy(b->data, text, lt + 1);
    char *p = b->data + lt + 1;
    memcpy(p, id ? id : "", li + 1);
    b->id = p;
    p += li + 1;
    memcpy(p, team ? team : "", lm + 1);
    b->team = p;
    return b;
}

struct gsd_blob *gsd_blob_ref(struct gsd_blob *b)
{
    if (b)
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    return b;
}

void gsd_blob_unref(struct gsd_blob *b)
{
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        free(b);
}

static void chunk_unref(struct chunk *c)
{
    if (!c || atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (int i = 0; c->blobs && i < VCH; i++)
        gsd_blob_unref(c->u.b[i]);
    free(c);
}

static uintptr_t chunks_get(struct chunk *const *c, size_t nc, size_t i)
{
    const struct chunk *k = i / VCH < nc ? c[i / VCH] : NULL;
    return k ? k->u.x[i % VCH] : 0;
}

static struct gsd_blob *chunks_blob(struct chunk *const *c, size_t nc, size_t i)
{
    const struct chunk *k = i / VCH < nc ? c[i / VCH] : NULL;
    return k ? k->u.b[i % VCH] : NULL;
}

/* The chunk of entry i, ours alone (grown, allocated or copied), or NULL
 * out of memory. */
static struct chunk *writable(struct carr *a, size_t i)
{
    size_t k = i / VCH;
    if (k >= a->nc) {
        size_t nc = a->nc ? a->nc : 4;
        while (nc <= k)
            nc *= 2;
        struct chunk **p = realloc(a->c, nc * sizeof(struct chunk *));
        if (!p)
            return NULL;
        memset(p + a->nc, 0, (nc - a->nc) * sizeof(struct chunk *));
        a->c = p;
        a->nc = nc;
    }
    struct chunk *c = a->c[k];
    if (c && atomic_load_explicit(&c->refs, memory_order_acquire) == 1)
        return c;
    struct chunk *n = c ? malloc(sizeof *n) : calloc(1, sizeof *n);
    if (!n)
        return NULL;
    if (c) { /* a snapshot holds c: copy it */
        n->u = c->u;
        for (int j = 0; a->blobs && j < VCH; j++)
            gsd_blob_ref(n->u.b[j]);
        chunk_unref(c);
    }
    atomic_init(&n->refs, 1);
    n->blobs = a->blobs;
    a->c[k] = n;
    return n;
}

/* Set index entry i to v; *old gets the former value. */
static int carr_set(struct carr *a, size_t i, uintptr_t v, uintptr_t *old)
{
    struct chunk *c = writable(a, i);
    if (!c)
        return -1;
    *old = c->u.x[i % VCH];
    c->u.x[i % VCH] = v;
    return 0;
}

/* Set slot i to blob b; *old gets the former blob (a reference the caller
 * now holds). */
static int carr_set_blob(struct carr *a, size_t i, struct gsd_blob *b, struct gsd_blob **old)
{
    struct chunk *c = writable(a, i);
    if (!c)
        return -1;
    *old = c->u.b[i % VCH];
    c->u.b[i % VCH] = b;
    return 0;
}

static void carr_fini(struct carr *a)
{
    for (size_t k = 0; k < a->nc; k++)
        chunk_unref(a->c[k]);
    free(a->c);
    a->c = NULL;
    a->nc = 0;
}

struct gsd_vtab *gsd_vtab_new(void)
{
    struct gsd_vtab *t = calloc(1, sizeof *t);
    if (t) {
        t->jobs.blobs = 1;
        t->icap = VCH;
    }
    return t;
}

void gsd_vtab_free(struct gsd_vtab *t)
{
    if (!t)
        return;
    carr_fini(&t->jobs);
    carr_fini(&t->idx);
    free(t->free);
    free(t);
}

static const struct gsd_blob *job_at(const struct gsd_vtab *t, size_t slot)
{
    return chunks_blob(t->jobs.c, t->jobs.nc, slot);
}

const struct gsd_blob *gsd_vtab_at(const struct gsd_vtab *t, int slot)
{
    return slot < 0 ? NULL : job_at(t, (size_t)slot);
}

size_t gsd_vtab_count(const struct gsd_vtab *t)
{
    return t->count;
}

/* An index entry for `slot` of hash h (a free place: empty or tombstone). */
static int idx_insert(struct gsd_vtab *t, struct carr *x, uint64_t h, size_t slot)
{
    size_t k = h & (t->icap - 1);
    uintptr_t e;
    while ((e = chunks_get(x->c, x->nc, k)) != 0 && e != TOMB)
        k = (k + 1) & (t->icap - 1);
    if (carr_set(x, k, slot + 1, &e) < 0)
        return -1;
    t->itomb -= e == TOMB;
    t->iused++;
    return 0;
}

/* A fresh index with room for `need` entries at a quarter's load. */
static int idx_rebuild(struct gsd_vtab *t, size_t need)
{
    size_t cap = VCH, ocap = t->icap, oused = t->iused, otomb = t->itomb;
    while (cap < 4 * need)
        cap *= 2;
    struct carr x = { 0 };
    t->icap = cap;
    t->iused = t->itomb = 0;
    for (size_t s = 0; s < t->nslots; s++) {
        const struct gsd_blob *b = job_at(t, s);
        if (b && idx_insert(t, &x, b->hash, s) < 0) {
            carr_fini(&x);
            t->icap = ocap;
            t->iused = oused;
            t->itomb = otomb;
            return -1;
        }
    }
    carr_fini(&t->idx);
    t->idx = x;
    return 0;
}

static int new_slot(struct gsd_vtab *t)
{
    if (t->nfree > 0)
        return t->free[--t->nfree];
    return (int)t->nslots++;
}

static void free_slot(struct gsd_vtab *t, int slot)
{
    if (t->nfree == t->capfree) {
        size_t cap = t->capfree ? 2 * t->capfree : 64;
        int *p = realloc(t->free, cap * sizeof *p);
        if (!p)
            return; /* the slot stays unused: harmless */
        t->free = p;
        t->capfree = cap;
    }
    t->free[t->nfree++] = slot;
}

int gsd_vtab_put(struct gsd_vtab *t, int *slot, struct gsd_blob *b)
{
    struct gsd_blob *old = NULL;
    if (*slot >= 0) {
        if (carr_set_blob(&t->jobs, (size_t)*slot, b, &old) < 0) {
            gsd_blob_unref(b);
            return -1;
        }
        gsd_blob_unref(old);
        return 0;
    }
    if (2 * (t->iused + t->itomb + 1) > t->icap && idx_rebuild(t, t->iused + 1) < 0) {
        gsd_blob_unref(b);
        return -1;
    }
    int s = new_slot(t);
    if (carr_set_blob(&t->jobs, (size_t)s, b, &old) < 0) {
        free_slot(t, s);
        gsd_blob_unref(b);
        return -1;
    }
    t->count++;
    if (idx_insert(t, &t->idx, b->hash, (size_t)s) < 0) {
        gsd_vtab_del(t, s);
        return -1;
    }
    *slot = s;
    return 0;
}

void gsd_vtab_del(struct gsd_vtab *t, int slot)
{
    const struct gsd_blob *b = gsd_vtab_at(t, slot);
    if (!b)
        return;
    uintptr_t e, x;
    for (size_t k = b->hash & (t->icap - 1), n = 0; n < t->icap;
         k = (k + 1) & (t->icap - 1), n++) {
        if ((e = chunks_get(t->idx.c, t->idx.nc, k)) == 0)
            break; /* not indexed (an insert that failed) */
        if (e == (uintptr_t)slot + 1) {
            if (carr_set(&t->idx, k, TOMB, &x) == 0) {
                t->iused--;
                t->itomb++;
            } /* else out of memory: the entry stays, its slot reads empty */
            break;
        }
    }
    struct gsd_blob *old;
    if (carr_set_blob(&t->jobs, (size_t)slot, NULL, &old) < 0)
        return;
    gsd_blob_unref(old);
    t->count--;
    free_slot(t, slot);
}

struct gsd_vsnap *gsd_vtab_snap(struct gsd_vtab *t)
{
    size_t nj = (t->nslots + VCH - 1) / VCH, ni = t->icap / VCH;
    nj = nj < t->jobs.nc ? nj : t->jobs.nc;
    ni = ni < t->idx.nc ? ni : t->idx.nc;
    struct gsd_vsnap *s = malloc(sizeof *s + (nj + ni + 1) * sizeof(struct chunk *));
    if (!s)
        return NULL;
    s->jc = (struct chunk **)(s + 1);
    s->ic = s->jc + nj;
    s->njc = nj;
    s->nic = ni;
    s->icap = t->icap;
    for (size_t k = 0; k < nj; k++)
        if ((s->jc[k] = t->jobs.c[k]))
            atomic_fetch_add_explicit(&s->jc[k]->refs, 1, memory_order_relaxed);
    for (size_t k = 0; k < ni; k++)
        if ((s->ic[k] = t->idx.c[k]))
            atomic_fetch_add_explicit(&s->ic[k]->refs, 1, memory_order_relaxed);
    return s;
}

void gsd_vsnap_free(struct gsd_vsnap *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < s->njc; k++)
        chunk_unref(s->jc[k]);
    for (size_t k = 0; k < s->nic; k++)
        chunk_unref(s->ic[k]);
    free(s);
}

const struct gsd_blob *gsd_vsnap_at(const struct gsd_vsnap *s, uint32_t slot)
{
    return chunks_blob(s->jc, s->njc, slot);
}

int gsd_vsnap_find(const struct gsd_vsnap *s, const char *id)
{
    uint64_t h = gsd_vtab_hash(id);
    size_t k = h & (s->icap - 1);
    for (size_t n = 0; n < s->icap; n++, k = (k + 1) & (s->icap - 1)) {
        uintptr_t e = chunks_get(s->ic, s->nic, k);
        if (e == 0)
            return -1;
        const struct gsd_blob *b = e == TOMB ? NULL : gsd_vsnap_at(s, (uint32_t)(e - 1));
        if (b && b->hash == h && !strcmp(b->id, id))
            return (int)(e - 1);
    }
    return -1;
}

/* shapes.c - recent job shapes and their distribution (see shapes.h).
 *
 * The window is a ring buffer of shapes plus an open-addressing hash table
 * (linear probing, backward-shift deletion) of distinct shapes with their
 * counts, so a push is O(1) expected even for million-job traces. */
#include "core/place/shapes.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdlib.h>
#include <string.h>

struct entry {
    struct gs_shape s;
    int count;              /* 0 = empty slot */
};

struct gs_shape_window {
    struct gs_shape *ring;
    int cap, n, head;       /* ring: n shapes, oldest at head */
    struct entry *tab;
    uint32_t mask;          /* table size - 1 (a power of two >= 2 cap) */
};

static int cmp64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

int gs_shape_cmp(const struct gs_shape *a, const struct gs_shape *b)
{
    int c;
    if ((c = cmp64(a->gpus, b->gpus)) || (c = cmp64(a->milli, b->milli)) ||
        (c = cmp64(a->mem_mib, b->mem_mib)) || (c = cmp64(a->cpu_milli, b->cpu_milli)) ||
        (c = cmp64(a->host_mem_mib, b->host_mem_mib)) ||
        (c = cmp64(a->gpu_type, b->gpu_type)) || (c = cmp64(a->topology, b->topology)) ||
        (c = cmp64(a->mig, b->mig)))
        return c;
    return (a->gpu_types > b->gpu_types) - (a->gpu_types < b->gpu_types);
}

static uint32_t shape_hash(const struct gs_shape *s)
{
    uint64_t h = 1469598103934665603ULL;
    const int64_t f[] = { s->gpus, s->milli, s->mem_mib, s->cpu_milli, s->host_mem_mib,
                          s->gpu_type, (int64_t)s->gpu_types, s->topology, s->mig };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        h ^= (uint64_t)f[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return (uint32_t)h;
}

struct gs_shape_window *gs_shape_window_create(int cap)
{
    if (cap < 1 || cap > (1 << 24))
        return NULL;
    struct gs_shape_window *w = gs_calloc(1, sizeof *w);
    if (!w)
        return NULL;
    uint32_t size = 16;
    while (size < 2u * (uint32_t)cap)
        size *= 2;
    w->cap = cap;
    w->mask = size - 1;
    w->ring = gs_calloc((size_t)cap, sizeof *w->ring);
    w->tab = gs_calloc(size, sizeof *w->tab);
    if (!w->ring || !w->tab) {
        gs_shape_window_destroy(w);
        return NULL;
    }
    return w;
}

void gs_shape_window_destroy(struct gs_shape_window *w)
{
    if (!w)
        return;
    gs_free(w->ring);
    gs_free(w->tab);
    gs_free(w);
}

static uint32_t find_slot(const struct gs_shape_window *w, const struct gs_shape *s)
{
    uint32_t i = shape_hash(s) & w->mask;
    while (w->tab[i].count > 0 && gs_shape_cmp(&w->tab[i].s, s) != 0)
        i = (i + 1) & w->mask;
    return i;
}

/* Remove slot i (count reached 0) and shift the probe chain back. */
static void delete_slot(struct gs_shape_window *w, uint32_t i)
{
    uint32_t j = i;
    w->tab[i].count = 0;
    for (;;) {
        j = (j + 1) & w->mask;
        if (w->tab[j].count == 0)
            return;
        uint32_t home = shape_hash(&w->tab[j].s) & w->mask;
        /* move j into the hole i when its home is not in (i, j] cyclically */
        int in_range = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            w->tab[i] = w->tab[j];
            w->tab[j].count = 0;
            i = j;
        }
    }
}

int gs_shape_window_push(struct gs_shape_window *w, const struct gs_shape *s)
{
    struct gs_shape key = *s;
    key.p = 0;
    if (w->n == w->cap) {
        struct gs_shape *old = &w->ring[w->head];
        uint32_t i = find_slot(w, old);
        if (--w->tab[i].count == 0)
            delete_slot(w, i);
        w->ring[w->head] = key;
        w->head = (w->head + 1) % w->cap;
    } else {
        w->ring[(w->head + w->n) % w->cap] = key;
        w->n++;
    }
    uint32_t i = find_slot(w, &key);
    if (w->tab[i].count == 0)
        w->tab[i].s = key;
    w->tab[i].count++;
    return 0;
}

int gs_shape_window_count(const struct gs_shape_window *w)
{
    return w->n;
}

/* Whether entry a ranks before entry b: larger count, then shape order. */
static int ranks_before(int ca, const struct gs_shape *a, int cb, const struct gs_shape *b)
{
    if (ca != cb)
        return ca > cb;
    return gs_shape_cmp(a, b) < 0;
}

/* Keep shapes in rank order until they cover `coverage` of `total`. */
static void finish_dist(struct gs_shape_dist *out, const int *counts, double total,
                        double coverage)
{
    double kept = 0;
    int n = 0;
    while (n < out->n && (n == 0 || kept < coverage * total)) {
        kept += counts[n];
        n++;
    }
    out->n = n;
    for (int i = 0; i < n; i++)
        out->s[i].p = counts[i] / kept;
}

/* Insert (c, s) into the rank-ordered list of at most GS_SHAPES_MAX. */
static void insert_ranked(struct gs_shape_dist *out, int *counts, int c,
                          const struct gs_shape *s)
{
    int pos = out->n;
    while (pos > 0 && ranks_before(c, s, counts[pos - 1], &out->s[pos - 1]))
        pos--;
    if (pos >= GS_SHAPES_MAX)
        return;
    int last = out->n < GS_SHAPES_MAX ? out->n : GS_SHAPES_MAX - 1;
    for (int k = last; k > pos; k--) {
        out->s[k] = out->s[k - 1];
        counts[k] = counts[k - 1];
    }
    out->s[pos] = *s;
    counts[pos] = c;
    if (out->n < GS_SHAPES_MAX)
        out->n++;
}

void gs_shape_window_dist(const struct gs_shape_window *w, double coverage,
                          struct gs_shape_dist *out)
{
    int counts[GS_SHAPES_MAX];
    out->n = 0;
    for (uint32_t i = 0; i <= w->mask; i++)
        if (w->tab[i].count > 0)
            insert_ranked(out, counts, w->tab[i].count, &w->tab[i].s);
    finish_dist(out, counts, w->n, coverage);
}

static int cmp_shape_q(const void *a, const void *b)
{
    return gs_shape_cmp(a, b);
}

int gs_shape_dist_build(const struct gs_shape *shapes, int n, double coverage,
                        struct gs_shape_dist *out)
{
    out->n = 0;
    if (n <= 0)
        return 0;
    struct gs_shape *v = gs_malloc((size_t)n * sizeof *v);
    if (!v)
        return GS_ENOMEM;
    memcpy(v, shapes, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_shape_q);
    int counts[GS_SHAPES_MAX];
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && gs_shape_cmp(&v[i], &v[j]) == 0)
            j++;
        insert_ranked(out, counts, j - i, &v[i]);
        i = j;
    }
    gs_free(v);
    finish_dist(out, counts, n, coverage);
    return 0;
}

void gs_shape_dist_add_distinct(struct gs_shape_dist *d, const struct gs_shape *s)
{
    for (int k = 0; k < d->n; k++)
        if (gs_shape_cmp(&d->s[k], s) == 0)
            return;
    if (d->n < GS_SHAPES_MAX)
        d->s[d->n++] = *s;
}

void gs_shape_dist_equal_weights(struct gs_shape_dist *d)
{
    for (int k = 0; k < d->n; k++)
        d->s[k].p = 1.0 / d->n;
}

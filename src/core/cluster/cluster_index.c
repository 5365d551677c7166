/* cluster_index.c - NVLink domains bucketed by their idle GPU count.
 *
 * Placement of a job that fits one domain is the hot path of every
 * simulation: scanning all nodes costs O(nodes) per decision (about 36 us on
 * 1,024 nodes).  The index keeps, for each idle count c = 0..64, the set of
 * domains with exactly c idle GPUs as a bitmap in global domain order (node
 * order, then domain order), updated whenever a node's idle mask changes.
 * Best fit for g GPUs is then the first non-empty bucket c >= g, and inside
 * it the first domain whose node has the fewest idle GPUs - the same choice,
 * with the same ties, as the linear scan in place.c (tests compare both).
 */
#include "core/base/alloc.h"
#include "core/cluster/cluster_private.h"

#include <assert.h>
#include <string.h>

#define NBUCKETS (GS_MAX_NODE_GPUS + 1)

struct gs_dom_index {
    int ndoms;
    size_t words;               /* 64-bit words per bucket */
    int *dom_base;              /* per node: global index of its domain 0 */
    int *dom_node;              /* per domain: its node */
    uint8_t *cnt;               /* per domain: idle GPUs */
    uint64_t *bits;             /* NBUCKETS x words */
    int nonempty[NBUCKETS];     /* domains per bucket */
    int single;                 /* every node has one domain */
};

static void set_bit(struct gs_dom_index *x, int c, int d, int on)
{
    assert(d >= 0 && d < x->ndoms);
    size_t i = (size_t)d;
    uint64_t *w = &x->bits[(size_t)c * x->words + i / 64];
    uint64_t b = 1ULL << (i % 64);
    if (on) {
        *w |= b;
        x->nonempty[c]++;
    } else {
        *w &= ~b;
        x->nonempty[c]--;
    }
}

void gs_dom_index_destroy(struct gs_dom_index *x)
{
    if (!x)
        return;
    gs_free(x->dom_base);
    gs_free(x->dom_node);
    gs_free(x->cnt);
    gs_free(x->bits);
    gs_free(x);
}

struct gs_dom_index *gs_dom_index_create(const struct gs_cluster *cl)
{
    struct gs_dom_index *x = gs_calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->dom_base = gs_calloc(cl->nnodes ? cl->nnodes : 1, sizeof *x->dom_base);
    int nd = 0;
    x->single = 1;
    for (size_t n = 0; x->dom_base && n < cl->nnodes; n++) {
        x->dom_base[n] = nd;
        nd += cl->nodes[n].ndom;
        if (cl->nodes[n].ndom > 1)
            x->single = 0;
    }
    x->ndoms = nd;
    x->words = (size_t)(nd + 63) / 64;
    x->dom_node = gs_calloc(nd ? (size_t)nd : 1, sizeof *x->dom_node);
    x->cnt = gs_calloc(nd ? (size_t)nd : 1, sizeof *x->cnt);
    x->bits = gs_calloc(NBUCKETS * (x->words ? x->words : 1), sizeof *x->bits);
    if (!x->dom_base || !x->dom_node || !x->cnt || !x->bits) {
        gs_dom_index_destroy(x);
        return NULL;
    }
    for (size_t n = 0; n < cl->nnodes; n++) {
        for (int d = 0; d < cl->nodes[n].ndom; d++) {
            int g = x->dom_base[n] + d;
            x->dom_node[g] = (int)n;
            x->cnt[g] = (uint8_t)__builtin_popcountll(cl->nodes[n].idle & cl->nodes[n].dom_mask[d]);
            set_bit(x, x->cnt[g], g, 1);
        }
    }
    return x;
}

static void *dup(const void *src, size_t bytes)
{
    void *p = gs_malloc(bytes);
    if (p)
        memcpy(p, src, bytes);
    return p;
}

struct gs_dom_index *gs_dom_index_clone(const struct gs_dom_index *src, size_t nnodes)
{
    struct gs_dom_index *x = gs_calloc(1, sizeof *x);
    if (!x)
        return NULL;
    *x = *src;
    size_t nd = src->ndoms ? (size_t)src->ndoms : 1;
    x->dom_base = dup(src->dom_base, (nnodes ? nnodes : 1) * sizeof *x->dom_base);
    x->dom_node = dup(src->dom_node, nd * sizeof *x->dom_node);
    x->cnt = dup(src->cnt, nd * sizeof *x->cnt);
    x->bits = dup(src->bits, NBUCKETS * (src->words ? src->words : 1) * sizeof *x->bits);
    if (!x->dom_base || !x->dom_node || !x->cnt || !x->bits) {
        gs_dom_index_destroy(x);
        return NULL;
    }
    return x;
}

void gs_dom_index_update(struct gs_dom_index *x, const struct gs_cluster *cl, int node)
{
    const struct node *n = &cl->nodes[node];
    for (int d = 0; d < n->ndom; d++) {
        int g = x->dom_base[node] + d;
        int now = __builtin_popcountll(n->idle & n->dom_mask[d]);
        if (now == x->cnt[g])
            continue;
        set_bit(x, x->cnt[g], g, 0);
        set_bit(x, now, g, 1);
        x->cnt[g] = (uint8_t)now;
    }
}

int gs_dom_index_check(const struct gs_dom_index *x, const struct gs_cluster *cl)
{
    for (size_t n = 0; n < cl->nnodes; n++)
        for (int d = 0; d < cl->nodes[n].ndom; d++) {
            int g = x->dom_base[n] + d;
            int c = __builtin_popcountll(cl->nodes[n].idle & cl->nodes[n].dom_mask[d]);
            if (c != x->cnt[g] ||
                !(x->bits[(size_t)c * x->words + (size_t)g / 64] >> (g % 64) & 1))
                return GS_ESTATE;
        }
    return 0;
}

/* First domain at or after `from` in bucket c, or -1. */
static int next_in_bucket(const struct gs_dom_index *x, int c, int from)
{
    const uint64_t *w = x->bits + (size_t)c * x->words;
    size_t i = (size_t)from / 64;
    if (i >= x->words)
        return -1;
    uint64_t m = w[i] & (~0ULL << (from % 64));
    while (!m) {
        if (++i >= x->words)
            return -1;
        m = w[i];
    }
    return (int)(i * 64) + __builtin_ctzll(m);
}

/* Best fit: the fullest domain that still holds g idle GPUs, then the node
 * with the fewest idle GPUs, then node and domain order. */
static int best_pack(const struct gs_dom_index *x, const struct gs_cluster *cl, int g)
{
    for (int c = g; c < NBUCKETS; c++) {
        if (!x->nonempty[c])
            continue;
        int best = -1, best_idle = 1 << 30;
        for (int d = next_in_bucket(x, c, 0); d >= 0; d = next_in_bucket(x, c, d + 1)) {
            int idle = __builtin_popcountll(cl->nodes[x->dom_node[d]].idle);
            if (idle < best_idle) {
                best = d;
                best_idle = idle;
                if (idle == c)
                    break; /* a node cannot have fewer idle GPUs than its domain */
            }
        }
        return best;
    }
    return -1;
}

int gs_dom_index_best(const struct gs_dom_index *x, const struct gs_cluster *cl, int g,
                      int spread, int *node, uint64_t *dmask)
{
    int d = -1;
    if (g < 1 || g > GS_MAX_NODE_GPUS)
        return GS_ENOSPC;
    if (!spread) {
        d = best_pack(x, cl, g);
    } else if (x->single) {
        /* most idle node first: with one domain per node, the top bucket */
        for (int c = NBUCKETS - 1; c >= g && d < 0; c--)
            if (x->nonempty[c])
                d = next_in_bucket(x, c, 0);
    } else {
        return GS_ENOTSUP;
    }
    if (d < 0)
        return GS_ENOSPC;
    *node = x->dom_node[d];
    *dmask = cl->nodes[*node].dom_mask[d - x->dom_base[*node]];
    return 0;
}

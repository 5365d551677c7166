/* profile.c - availability profile: per-GPU free times plus reservations. */
#include "core/place/profile.h"
#include "core/base/alloc.h"
#include "core/policy/policy.h"

#include <stdlib.h>
#include <string.h>

#define IDLE INT64_MIN

struct res {
    gs_time start, end;
    size_t off;
    int n;
};

struct gs_profile {
    int nnodes;
    int64_t ngpus;
    int *first;                  /* per node: global index of GPU 0 */
    gs_time *free_at;            /* per global GPU; IDLE when nothing runs */
    struct res *res;
    size_t nres, res_cap;
    struct gs_alloc_part *parts;
    size_t nparts, parts_cap;
    uint64_t *resv_any;          /* per node: GPUs held by some reservation */
    int *node_head;              /* per node: first reservation part on it, -1 */
    int *part_next;              /* per part: next part on the same node */
    int *part_res;               /* per part: its reservation */
    size_t link_cap;
    gs_time *sorted;             /* per GPU: free times sorted within each domain */
    uint8_t *dirty;              /* per node: `sorted` needs refreshing */
    uint64_t *view;              /* scratch, per node */
    gs_time *times;              /* scratch candidate times */
    size_t times_cap;
};

struct gs_profile *gs_profile_create(const struct gs_cluster *cl)
{
    struct gs_profile *p = gs_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nnodes = gs_cluster_node_count(cl);
    p->ngpus = gs_cluster_gpu_count(cl);
    p->free_at = gs_malloc((size_t)p->ngpus * sizeof *p->free_at);
    p->resv_any = gs_calloc((size_t)p->nnodes, sizeof *p->resv_any);
    p->view = gs_calloc((size_t)p->nnodes, sizeof *p->view);
    p->first = gs_calloc((size_t)p->nnodes, sizeof *p->first);
    p->node_head = gs_malloc((size_t)p->nnodes * sizeof *p->node_head);
    p->sorted = gs_malloc((size_t)p->ngpus * sizeof *p->sorted);
    p->dirty = gs_malloc((size_t)p->nnodes);
    if (!p->free_at || !p->resv_any || !p->view || !p->first || !p->node_head ||
        !p->sorted || !p->dirty) {
        gs_profile_destroy(p);
        return NULL;
    }
    for (int64_t i = 0; i < p->ngpus; i++)
        p->free_at[i] = IDLE;
    for (int n = 0; n < p->nnodes; n++) {
        p->first[n] = gs_cluster_node_first_gpu(cl, n);
        p->node_head[n] = -1;
        p->dirty[n] = 1;
    }
    return p;
}

void gs_profile_destroy(struct gs_profile *p)
{
    if (!p)
        return;
    gs_free(p->free_at);
    gs_free(p->res);
    gs_free(p->parts);
    gs_free(p->resv_any);
    gs_free(p->view);
    gs_free(p->times);
    gs_free(p->first);
    gs_free(p->node_head);
    gs_free(p->part_next);
    gs_free(p->part_res);
    gs_free(p->sorted);
    gs_free(p->dirty);
    gs_free(p);
}


void gs_profile_occupy(struct gs_profile *p, const struct gs_alloc *a, gs_time until)
{
    for (int i = 0; i < a->nparts; i++) {
        gs_time *f = p->free_at + p->first[a->parts[i].node];
        p->dirty[a->parts[i].node] = 1;
        for (uint64_t m = a->parts[i].mask; m; m &= m - 1) {
            int g = __builtin_ctzll(m);
            if (f[g] == IDLE || f[g] < until)
                f[g] = until;
        }
    }
}

void gs_profile_vacate(struct gs_profile *p, const struct gs_cluster *cl,
                       const struct gs_alloc *a)
{
    for (int i = 0; i < a->nparts; i++) {
        int node = a->parts[i].node;
        uint64_t idle = gs_cluster_idle_mask(cl, node);
        p->dirty[node] = 1;
        for (uint64_t m = a->parts[i].mask & idle; m; m &= m - 1)
            p->free_at[p->first[node] + __builtin_ctzll(m)] = IDLE;
    }
}

void gs_profile_clear(struct gs_profile *p)
{
    for (size_t i = 0; i < p->nparts; i++) {
        p->resv_any[p->parts[i].node] = 0;
        p->node_head[p->parts[i].node] = -1;
    }
    p->nres = 0;
    p->nparts = 0;
}

int gs_profile_reservations(const struct gs_profile *p)
{
    return (int)p->nres;
}

int gs_profile_reserve(struct gs_profile *p, const struct gs_alloc *a, gs_time start,
                       gs_time end)
{
    size_t need = p->nparts + (size_t)a->nparts, cap = p->link_cap;
    if (gs_grow((void **)&p->res, &p->res_cap, p->nres + 1, sizeof *p->res) ||
        gs_grow((void **)&p->parts, &p->parts_cap, need, sizeof *p->parts) ||
        gs_grow((void **)&p->part_next, &cap, need, sizeof *p->part_next))
        return GS_ENOMEM;
    cap = p->link_cap;
    if (gs_grow((void **)&p->part_res, &cap, need, sizeof *p->part_res))
        return GS_ENOMEM;
    p->link_cap = cap;
    struct res *r = &p->res[p->nres++];
    r->start = start;
    r->end = end;
    r->off = p->nparts;
    r->n = a->nparts;
    for (int i = 0; i < a->nparts; i++) {
        int node = a->parts[i].node;
        p->parts[p->nparts] = a->parts[i];
        p->part_res[p->nparts] = (int)p->nres - 1;
        p->part_next[p->nparts] = p->node_head[node];
        p->node_head[node] = (int)p->nparts++;
        p->resv_any[node] |= a->parts[i].mask;
    }
    return 0;
}

/* Expected free time of a GPU as seen at `now`. */
static gs_time eff_free(gs_time f, gs_time now)
{
    if (f == IDLE)
        return now;
    return f <= now ? now + 1 : f;
}

/* Reservation `r` holds its GPUs during [t, t+dur).  A zero-length
 * reservation still counts at its instant, so "reservations starting before
 * t+dur" is exactly the set that overlaps a window beginning at now. */
static int overlaps(const struct res *r, gs_time t, gs_time dur)
{
    return r->start < gs_time_add(t, dur) && (r->end > t || r->start >= t);
}

/* GPUs of `node` held by reservations overlapping [t, t+dur). */
static uint64_t reserved_mask(const struct gs_profile *p, int node, gs_time t, gs_time dur)
{
    uint64_t m = 0;
    for (int k = p->node_head[node]; k >= 0; k = p->part_next[k])
        if (overlaps(&p->res[p->part_res[k]], t, dur))
            m |= p->parts[k].mask;
    return m;
}

void gs_profile_view_now(const struct gs_profile *p, const struct gs_cluster *cl, gs_time now,
                         gs_time dur, uint64_t *view)
{
    for (int n = 0; n < p->nnodes; n++)
        view[n] = gs_cluster_idle_mask(cl, n) & ~reserved_mask(p, n, now, dur);
}

uint64_t gs_profile_reserved_in(const struct gs_profile *p, int node, gs_time now,
                                gs_time dur)
{
    return reserved_mask(p, node, now, dur);
}

uint64_t gs_profile_reserved_mask(const struct gs_profile *p, int node)
{
    return p->resv_any[node];
}

/* Mask of the GPUs of `dmask` on `node` usable over [t, t+dur). */
static uint64_t usable(const struct gs_profile *p, int node, uint64_t dmask, gs_time now,
                       gs_time t, gs_time dur)
{
    const gs_time *f = p->free_at + p->first[node];
    uint64_t m = 0;
    for (uint64_t b = dmask; b; b &= b - 1) {
        int g = __builtin_ctzll(b);
        if (eff_free(f[g], now) <= t)
            m |= 1ULL << g;
    }
    return m & ~reserved_mask(p, node, t, dur);
}

static int cmp_time(const void *a, const void *b)
{
    gs_time x = *(const gs_time *)a, y = *(const gs_time *)b;
    return (x > y) - (x < y);
}

static void sort_times(gs_time *t, int n)
{
    for (int i = 1; i < n; i++) {
        gs_time v = t[i];
        int j = i;
        while (j > 0 && t[j - 1] > v) {
            t[j] = t[j - 1];
            j--;
        }
        t[j] = v;
    }
}

/* Candidate start times for GPUs in `dmask` of `node`: their free times and
 * the ends of reservations on them, sorted.  Returns how many (<= 128). */
static int domain_times(const struct gs_profile *p, int node, uint64_t dmask, gs_time now,
                        gs_time *t)
{
    int n = 0;
    const gs_time *f = p->free_at + p->first[node];
    for (uint64_t b = dmask; b; b &= b - 1)
        t[n++] = eff_free(f[__builtin_ctzll(b)], now);
    for (int k = p->node_head[node]; k >= 0 && n < 128; k = p->part_next[k]) {
        const struct res *r = &p->res[p->part_res[k]];
        if ((p->parts[k].mask & dmask) && r->end > now && r->end != GS_TIME_INF)
            t[n++] = r->end;
    }
    sort_times(t, n);
    return n;
}

/* Refresh the per-domain sorted free times of `node`. */
static void refresh_sorted(struct gs_profile *p, const struct gs_cluster *cl, int node)
{
    if (!p->dirty[node])
        return;
    for (int d = 0; d < gs_cluster_node_domains(cl, node); d++) {
        uint64_t dm = gs_cluster_domain_mask(cl, node, d);
        int lo = __builtin_ctzll(dm), n = __builtin_popcountll(dm);
        gs_time *seg = p->sorted + p->first[node] + lo;
        for (int i = 0; i < n; i++)
            seg[i] = p->free_at[p->first[node] + lo + i];
        sort_times(seg, n);
    }
    p->dirty[node] = 0;
}

/* Fast path for a domain no reservation touches: the g-th smallest free
 * time.  Returns the start and the number of GPUs usable then. */
static gs_time domain_fast(struct gs_profile *p, const struct gs_cluster *cl, int node,
                           uint64_t dmask, int g, gs_time now, int *avail)
{
    refresh_sorted(p, cl, node);
    int lo = __builtin_ctzll(dmask), n = __builtin_popcountll(dmask);
    const gs_time *seg = p->sorted + p->first[node] + lo;
    gs_time t = eff_free(seg[g - 1], now);
    if (t == GS_TIME_INF)
        return t;
    int k = g;
    while (k < n && eff_free(seg[k], now) <= t)
        k++;
    *avail = k;
    return t;
}

/* Earliest time the domain `dmask` of `node` has `g` usable GPUs for `dur`;
 * GS_TIME_INF if never.  *got receives the usable mask at that time. */
static gs_time domain_earliest(const struct gs_profile *p, int node, uint64_t dmask, int g,
                               gs_time now, gs_time dur, uint64_t *got)
{
    gs_time t[192];
    int n = domain_times(p, node, dmask, now, t);
    for (int i = 0; i < n; i++) {
        if (t[i] == GS_TIME_INF)
            break;
        if (i > 0 && t[i] == t[i - 1])
            continue;
        uint64_t m = usable(p, node, dmask, now, t[i], dur);
        if (__builtin_popcountll(m) >= g) {
            *got = m;
            return t[i];
        }
    }
    return GS_TIME_INF;
}

/* Jobs that fit one NVLink domain: the domain that can start them first
 * (ties by the strategy's fit, gs_place_fit: best fit under pack, topo and
 * frag, most room under spread, then node order). */
static int earliest_domain(struct gs_profile *p, const struct gs_cluster *cl, gs_time now,
                           const struct gs_request *req, int strategy, gs_time dur,
                           gs_time *start, struct gs_alloc *out)
{
    int fit = gs_place_fit(strategy);
    int g = req->gpus, best_node = -1;
    gs_time best_t = GS_TIME_INF;
    int best_score = 0;
    uint64_t best_dm = 0, best_got = 0;
    for (int n = 0; n < p->nnodes; n++) {
        if (gs_cluster_node_gpus(cl, n) < g ||
            (req->gpu_type >= 0 && gs_cluster_node_gpu_type(cl, n) != req->gpu_type) ||
            (req->nodes_allowed && !req->nodes_allowed[n]) ||
            (req->mem_mib > 0 &&
             gs_cluster_gpu_type_mem(cl, gs_cluster_node_gpu_type(cl, n)) < req->mem_mib))
            continue;
        for (int d = 0; d < gs_cluster_node_domains(cl, n); d++) {
            uint64_t dm = gs_cluster_domain_mask(cl, n, d), got = 0;
            if (__builtin_popcountll(dm) < g)
                continue;
            int avail = 0;
            gs_time t;
            if (p->resv_any[n] & dm) {
                t = domain_earliest(p, n, dm, g, now, dur, &got);
                avail = __builtin_popcountll(got);
            } else {
                t = domain_fast(p, cl, n, dm, g, now, &avail);
                got = 0; /* computed below if chosen */
            }
            if (t == GS_TIME_INF || t > best_t)
                continue;
            int room = avail - g;
            int score = fit == GS_PLACE_FIT_WORST   ? -room
                        : fit == GS_PLACE_FIT_FIRST ? 0 /* node order */
                                                    : room;
            if (t < best_t || (t == best_t && score < best_score)) {
                best_t = t;
                best_score = score;
                best_node = n;
                best_dm = dm;
                best_got = got; /* 0 on the fast path: computed below */
            }
        }
    }
    if (best_node < 0)
        return GS_ENOSPC;
    if (!best_got)
        best_got = usable(p, best_node, best_dm, now, best_t, dur);
    uint64_t best_mask = gs_place_take_low(best_got, g);
    out->nparts = 1;
    out->parts[0].node = best_node;
    out->parts[0].mask = best_mask;
    out->milli = req->milli;
    out->mem_mib = 0;
    *start = best_t;
    return 0;
}

/* Sorted distinct candidate times from every GPU's free time and every
 * reservation end, skipping the first `skip_below` - 1 GPUs' times (fewer
 * GPUs than the job needs can never be enough).  Returns the count or
 * GS_ENOMEM. */
static int generic_times(struct gs_profile *p, gs_time now, int need)
{
    size_t n = 0, cap = (size_t)p->ngpus + p->nres + 1;
    if (gs_grow((void **)&p->times, &p->times_cap, cap, sizeof *p->times))
        return GS_ENOMEM;
    for (int64_t i = 0; i < p->ngpus; i++)
        p->times[n++] = eff_free(p->free_at[i], now);
    qsort(p->times, n, sizeof *p->times, cmp_time);
    /* the job cannot start before `need` GPUs are free at all */
    gs_time first = need <= (int)n ? p->times[need - 1] : GS_TIME_INF;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (p->times[i] >= first && p->times[i] != GS_TIME_INF &&
            (k == 0 || p->times[k - 1] != p->times[i]))
            p->times[k++] = p->times[i];
    for (size_t i = 0; i < p->nres; i++)
        if (p->res[i].end > first && p->res[i].end != GS_TIME_INF)
            p->times[k++] = p->res[i].end;
    qsort(p->times, k, sizeof *p->times, cmp_time);
    return (int)k;
}

/* Any other shape: try each candidate time with the full placement rule. */
static int earliest_generic(struct gs_profile *p, const struct gs_cluster *cl, gs_time now,
                            const struct gs_request *req, int strategy, gs_time dur,
                            gs_time *start, struct gs_alloc *out)
{
    int nt = generic_times(p, now, req->gpus);
    if (nt < 0)
        return nt;
    for (int i = 0; i < nt; i++) {
        gs_time t = p->times[i];
        if (i > 0 && t == p->times[i - 1])
            continue;
        for (int n = 0; n < p->nnodes; n++)
            p->view[n] = usable(p, n, gs_cluster_full_view(cl)[n], now, t, dur);
        if (gs_place(cl, p->view, req, strategy, out, NULL) == 0) {
            *start = t;
            return 0;
        }
    }
    return GS_ENOSPC;
}

int gs_profile_earliest(struct gs_profile *p, const struct gs_cluster *cl, gs_time now,
                        const struct gs_request *req, int strategy, gs_time dur,
                        gs_time *start, struct gs_alloc *out)
{
    if (req->gpus < 1)
        return GS_ENOSPC;
    if (gs_place_topology(cl, req) == GS_TOPO_DOMAIN)
        return earliest_domain(p, cl, now, req, strategy, dur, start, out);
    return earliest_generic(p, cl, now, req, strategy, dur, start, out);
}

gs_time gs_profile_free_at(const struct gs_profile *p, int node, int gpu)
{
    return p->free_at[p->first[node] + gpu];
}

gs_time gs_profile_next_free(const struct gs_profile *p, gs_time now)
{
    gs_time t = GS_TIME_INF;
    for (int64_t g = 0; g < p->ngpus; g++) {
        gs_time f = p->free_at[g];
        if (f == IDLE)
            continue;
        if (f <= now)
            return now;
        if (f < t)
            t = f;
    }
    return t;
}

/* frag.c - expected fragmentation w.r.t. job shapes (see frag.h). */
#include "core/place/frag.h"
#include "core/base/alloc.h"
#include "core/policy/policy.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

static int pc(uint64_t x)
{
    return __builtin_popcountll(x);
}

void gs_frag_node_load(const struct gs_cluster *cl, int node, const uint64_t *view,
                       struct gs_frag_node *st)
{
    int n = gs_cluster_node_gpus(cl, node);
    uint64_t mig = gs_cluster_mig_mask(cl, node);
    int64_t cpu = gs_cluster_node_cpu(cl, node);
    st->ngpus = n;
    st->type = gs_cluster_node_gpu_type(cl, node);
    st->cap = n ? gs_cluster_gpu_type_mem(cl, st->type) : 0;
    st->ndom = gs_cluster_node_domains(cl, node);
    st->maxdom = gs_cluster_max_domain(cl);
    st->maxnode = gs_cluster_max_node_gpus(cl);
    for (int d = 0; d < st->ndom; d++)
        st->dom[d] = gs_cluster_domain_mask(cl, node, d);
    st->whole = (view ? view[node] : gs_cluster_idle_mask(cl, node)) & ~mig;
    uint64_t part = view ? 0 : gs_cluster_shared_masks(cl)[node];
    for (int g = 0; g < n; g++) {
        if (st->whole >> g & 1) {
            st->free_milli[g] = GS_MILLI_GPU;
            st->free_mem[g] = st->cap;
        } else if (part >> g & 1) {
            st->free_milli[g] = GS_MILLI_GPU - gs_cluster_gpu_used_milli(cl, node, g);
            st->free_mem[g] = st->cap - gs_cluster_gpu_used_mem(cl, node, g);
        } else { /* full, or MIG: nothing for the measure */
            st->free_milli[g] = 0;
            st->free_mem[g] = 0;
        }
    }
    if (view)
        st->cpu_free = cpu ? cpu : INT64_MAX;
    else
        st->cpu_free = cpu ? cpu - gs_cluster_node_cpu_used(cl, node) : INT64_MAX;
}

/* Whether shape m may use a GPU of `type` at all. */
static int type_ok(const struct gs_shape *m, int type)
{
    if (m->gpu_type >= 0 && m->gpu_type != type)
        return 0;
    return !m->gpu_types || (type >= 0 && type < 64 && (m->gpu_types >> type & 1));
}

/* GPUs of the node that shape m could use, one by one. */
static uint64_t usable(const struct gs_frag_node *st, const struct gs_shape *m, int64_t cap)
{
    int64_t need = m->mem_mib >= 0 ? m->mem_mib : cap * m->milli / GS_MILLI_GPU;
    if (m->milli >= GS_MILLI_GPU)
        return need <= cap ? st->whole : 0;
    uint64_t u = 0;
    for (int g = 0; g < st->ngpus; g++)
        if (st->free_milli[g] >= m->milli && st->free_mem[g] >= need)
            u |= 1ULL << g;
    return u;
}

static int64_t total_free(const struct gs_frag_node *st)
{
    int64_t s = 0;
    for (int g = 0; g < st->ngpus; g++)
        s += st->free_milli[g];
    return s;
}

static int64_t sum_free(const struct gs_frag_node *st, uint64_t mask)
{
    int64_t s = 0;
    for (; mask; mask &= mask - 1)
        s += st->free_milli[__builtin_ctzll(mask)];
    return s;
}

/* The whole-domain rule of cluster.h (gs_cluster_take_whole_domains) on
 * the usable GPUs `u`: whole usable domains no larger than what is still
 * needed, then the rest inside one domain. */
static int whole_domains_fit(const struct gs_frag_node *st, uint64_t u, int g)
{
    uint64_t take = 0;
    for (int d = 0; d < st->ndom && g > 0; d++)
        if ((u & st->dom[d]) == st->dom[d] && pc(st->dom[d]) <= g) {
            take |= st->dom[d];
            g -= pc(st->dom[d]);
        }
    if (g == 0)
        return 1;
    for (int d = 0; d < st->ndom; d++)
        if (pc(u & ~take & st->dom[d]) >= g)
            return 1;
    return 0;
}

/* The GPUs of `u` that can serve shape m under the topology rule, 0 when
 * m cannot run on the node. */
static uint64_t serving(const struct gs_frag_node *st, const struct gs_shape *m, uint64_t u)
{
    int g = m->gpus, topo = m->topology;
    if (g > st->ngpus) {
        /* a job larger than any node takes whole usable nodes; one that
         * fits a larger node never uses this one */
        if (g <= st->maxnode || topo == GS_TOPO_DOMAIN || topo == GS_TOPO_NODE)
            return 0;
        return st->ngpus > 0 && pc(u) == st->ngpus ? u : 0;
    }
    if (pc(u) < g)
        return 0;
    if (topo == GS_TOPO_AUTO && g <= st->maxdom)
        topo = GS_TOPO_DOMAIN;
    if (topo == GS_TOPO_NODE || topo == GS_TOPO_ANY || st->ndom <= 1)
        return u;
    if (topo == GS_TOPO_AUTO)
        return whole_domains_fit(st, u, g) ? u : 0;
    if (g > st->maxdom)
        return 0;
    uint64_t host = 0;
    for (int d = 0; d < st->ndom; d++) {
        uint64_t ud = u & st->dom[d];
        if (pc(ud) >= g)
            host |= ud;
    }
    return host;
}

/* frag_n(m) given the node's total free share. */
static int64_t shape_frag(const struct gs_frag_node *st, const struct gs_shape *m, int64_t total)
{
    if (total == 0 || m->mig)
        return 0;
    if (m->gpus == 0 || !type_ok(m, st->type) || m->cpu_milli > st->cpu_free)
        return total;
    uint64_t u = usable(st, m, st->cap);
    uint64_t serve = serving(st, m, u);
    if (!serve)
        return total;
    if (m->milli >= GS_MILLI_GPU)
        return total - (int64_t)GS_MILLI_GPU * pc(serve);
    return total - sum_free(st, serve);
}

int64_t gs_frag_node_shape(const struct gs_cluster *cl, int node, const struct gs_frag_node *st,
                           const struct gs_shape *m)
{
    (void)cl;
    (void)node;
    return shape_frag(st, m, total_free(st));
}

double gs_frag_node_score(const struct gs_cluster *cl, int node, const struct gs_frag_node *st,
                          const struct gs_shape_dist *d)
{
    (void)cl;
    (void)node;
    int64_t total = total_free(st);
    double f = 0;
    if (total == 0)
        return 0;
    for (int i = 0; i < d->n; i++)
        if (!d->s[i].mig)
            f += d->s[i].p * (double)shape_frag(st, &d->s[i], total);
    return f;
}

void gs_frag_cluster(const struct gs_cluster *cl, const struct gs_shape_dist *d,
                     struct gs_frag_total *out)
{
    struct gs_frag_node st;
    out->frag_milli = 0;
    out->free_milli = 0;
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        if (gs_cluster_node_gpus(cl, n) == 0)
            continue;
        gs_frag_node_load(cl, n, NULL, &st);
        out->free_milli += total_free(&st);
        out->frag_milli += gs_frag_node_score(cl, n, &st, d);
    }
}

/* Whether some non-MIG single-GPU shape of d fits GPU g of the node. */
static int gpu_serves(const struct gs_frag_node *st, int g, int type, int64_t cap,
                      const struct gs_shape_dist *d)
{
    for (int i = 0; d && i < d->n; i++) {
        const struct gs_shape *m = &d->s[i];
        int64_t need = m->mem_mib >= 0 ? m->mem_mib : cap * m->milli / GS_MILLI_GPU;
        if (!m->mig && m->gpus == 1 && type_ok(m, type) && m->cpu_milli <= st->cpu_free &&
            m->milli <= st->free_milli[g] && need <= st->free_mem[g])
            return 1;
    }
    return 0;
}

double gs_frag_memory(const struct gs_cluster *cl, const struct gs_shape_dist *d)
{
    struct gs_frag_node st;
    double frag = 0;
    if (gs_cluster_stats(cl).shared_gpus == 0)
        return 0;
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        int ng = gs_cluster_node_gpus(cl, n);
        uint64_t busy = ~gs_cluster_idle_mask(cl, n) & ~gs_cluster_mig_mask(cl, n) &
                        (ng >= 64 ? ~0ULL : (1ULL << ng) - 1);
        if (!busy)
            continue;
        int type = gs_cluster_node_gpu_type(cl, n), loaded = 0;
        int64_t cap = gs_cluster_gpu_type_mem(cl, type);
        for (; busy; busy &= busy - 1) {
            int g = __builtin_ctzll(busy);
            if (gs_cluster_gpu_used_milli(cl, n, g) >= GS_MILLI_GPU ||
                gs_cluster_gpu_used_mem(cl, n, g) >= cap)
                continue; /* whole GPUs, or no memory left */
            if (!loaded++)
                gs_frag_node_load(cl, n, NULL, &st);
            if (!gpu_serves(&st, g, type, cap, d))
                frag += (double)st.free_mem[g] / (double)cap;
        }
    }
    return frag;
}

static int mig_wanted(const struct gs_shape_dist *d, int profile)
{
    for (int i = 0; d && i < d->n; i++)
        if (d->s[i].mig && d->s[i].mig - 1 == profile)
            return 1;
    return 0;
}

double gs_frag_mig(const struct gs_cluster *cl, const struct gs_shape_dist *d)
{
    int64_t slices = 0;
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        uint64_t mig = gs_cluster_mig_mask(cl, n);
        int model = mig ? gs_cluster_gpu_type_mig(cl, gs_cluster_node_gpu_type(cl, n)) : -1;
        for (; mig; mig &= mig - 1) {
            unsigned busy;
            const struct gs_mig_layout *l =
                gs_cluster_gpu_mig(cl, n, __builtin_ctzll(mig), &busy);
            for (int i = 0; i < l->n; i++)
                if (!(busy >> i & 1) && !mig_wanted(d, l->prof[i]))
                    slices += gs_mig_layout_compute(model, l, 1u << i);
        }
    }
    return (double)slices / GS_MIG_COMPUTE;
}

void gs_frag_parse_models(const struct gs_cluster *cl, const char *model, int *type,
                          uint64_t *mask)
{
    *type = -1;
    *mask = 0;
    if (!model || !*model)
        return;
    if (!strchr(model, '|')) {
        int t = gs_cluster_find_gpu_type(cl, model);
        *type = t >= 0 ? t : -2;
        return;
    }
    char name[GS_NAME_MAX];
    for (const char *p = model; *p;) {
        size_t n = strcspn(p, "|");
        if (n > 0 && n < sizeof name) {
            memcpy(name, p, n);
            name[n] = '\0';
            int t = gs_cluster_find_gpu_type(cl, name);
            if (t >= 0 && t < 64)
                *mask |= 1ULL << t;
        }
        p += n;
        if (*p == '|')
            p++;
    }
    if (!*mask)
        *type = -2;
}

void gs_frag_shape_of_spec(const struct gs_cluster *cl, const struct gs_job_spec *s,
                           int exclusive, struct gs_shape *out)
{
    memset(out, 0, sizeof *out);
    out->gpus = s->gpus;
    out->milli = s->milli;
    out->mem_mib = s->mem_mib;
    out->cpu_milli = s->cpu_milli;
    out->host_mem_mib = s->host_mem_mib;
    out->topology = s->topology;
    gs_frag_parse_models(cl, s->gpu_model, &out->gpu_type, &out->gpu_types);
    out->mig = s->mig && *s->mig ? gs_mig_profile_find(s->mig) + 1 : 0;
    if (out->mig < 0)
        out->mig = 0;
    if (exclusive && !out->mig && out->milli < GS_MILLI_GPU) {
        out->milli = GS_MILLI_GPU;
        out->mem_mib = -1;
    }
    out->p = 1;
}

double gs_frag_node_simple(const struct gs_frag_node *st, const struct gs_shape_dist *d)
{
    double p = 0;
    for (int i = 0; i < d->n; i++) {
        const struct gs_shape *m = &d->s[i];
        int64_t need = m->mem_mib >= 0 ? m->mem_mib : st->cap * m->milli / GS_MILLI_GPU;
        if (m->gpus == 1 && !m->mig && m->milli <= GS_MILLI_GPU && need <= st->cap &&
            type_ok(m, st->type) && m->cpu_milli <= st->cpu_free)
            p += m->p;
    }
    return p;
}

int gs_frag_cache_init(struct gs_frag_cache *c, int nodes)
{
    size_t n = nodes > 0 ? (size_t)nodes : 1;
    c->n = nodes;
    c->valid = 0;
    c->f = gs_calloc(n, sizeof *c->f);
    c->simple = gs_calloc(n, sizeof *c->simple);
    c->ver = gs_calloc(n, sizeof *c->ver);
    if (!c->f || !c->simple || !c->ver) {
        gs_frag_cache_fini(c);
        return GS_ENOMEM;
    }
    return 0;
}

void gs_frag_cache_fini(struct gs_frag_cache *c)
{
    gs_free(c->f);
    gs_free(c->simple);
    gs_free(c->ver);
    c->f = NULL;
    c->simple = NULL;
    c->ver = NULL;
    c->valid = 0;
}

void gs_frag_cache_invalidate(struct gs_frag_cache *c)
{
    c->valid = 0;
}

void gs_frag_cache_refresh(struct gs_frag_cache *c, const struct gs_cluster *cl,
                           const struct gs_shape_dist *d)
{
    const uint32_t *ver = gs_cluster_node_versions(cl);
    for (int n = 0; n < c->n; n++)
        if (!c->valid || c->ver[n] != ver[n])
            gs_frag_cache_node(c, cl, n, d);
    c->valid = 1;
}

void gs_frag_cache_node(struct gs_frag_cache *c, const struct gs_cluster *cl, int node,
                        const struct gs_shape_dist *d)
{
    struct gs_frag_node st;
    gs_frag_node_load(cl, node, NULL, &st);
    c->f[node] = gs_frag_node_score(cl, node, &st, d);
    c->simple[node] = gs_frag_node_simple(&st, d);
    c->ver[node] = gs_cluster_node_versions(cl)[node];
}

/* place.c - placement under the topology rule with pack/spread scoring.
 *
 * Every placement is a choice among candidate units (an NVLink domain, a
 * node, a GPU for shared jobs).  The strategy turns a candidate into a score
 * (lower is better); the first candidate in node order wins ties, and GPUs
 * inside a unit are taken lowest index first.
 */
#include "core/place.h"
#include "core/policy.h"

#include <limits.h>
#include <stddef.h>

struct ctx {
    const struct gs_cluster *cl;
    const uint64_t *view;         /* NULL = live state */
    const struct gs_request *req;
    int strategy;
    struct gs_alloc *out;
};

static int pc(uint64_t x)
{
    return __builtin_popcountll(x);
}

static uint64_t take_low(uint64_t m, int n)
{
    uint64_t r = 0;
    while (n-- > 0 && m) {
        uint64_t b = m & -m;
        r |= b;
        m &= ~b;
    }
    return r;
}

static uint64_t idle_of(const struct ctx *c, int node)
{
    uint64_t m = c->view ? c->view[node] : gs_cluster_idle_mask(c->cl, node);
    return c->req->blocked ? m & ~c->req->blocked[node] : m;
}

/* GPU type and host resources allow `node` at all. */
static int node_ok(const struct ctx *c, int node)
{
    const struct gs_request *r = c->req;
    if (r->gpu_type >= 0 && gs_cluster_node_gpu_type(c->cl, node) != r->gpu_type)
        return 0;
    if (r->nodes_allowed && !r->nodes_allowed[node])
        return 0;
    if (r->mem_mib > 0 &&
        gs_cluster_gpu_type_mem(c->cl, gs_cluster_node_gpu_type(c->cl, node)) < r->mem_mib)
        return 0; /* the job needs more memory per GPU than this node's GPUs have */
    int64_t cpu = gs_cluster_node_cpu(c->cl, node), mem = gs_cluster_node_mem(c->cl, node);
    int64_t cpu_used = c->view ? 0 : gs_cluster_node_cpu_used(c->cl, node);
    int64_t mem_used = c->view ? 0 : gs_cluster_node_mem_used(c->cl, node);
    if (cpu && cpu_used + r->cpu_milli > cpu)
        return 0;
    if (mem && mem_used + r->host_mem_mib > mem)
        return 0;
    return 1;
}

/* Score of giving `gpus` GPUs from a unit with `unit_idle` idle GPUs on a
 * node with `node_idle` idle GPUs.  pack: best fit, fewest idle GPUs left in
 * the unit, then on the node.  spread: most idle node first, then unit. */
static int64_t score(int strategy, int gpus, int unit_idle, int node_idle)
{
    if (strategy == GS_PLACE_SPREAD)
        return -((int64_t)node_idle * 1024 + unit_idle);
    return (int64_t)(unit_idle - gpus) * 1024 + (node_idle - gpus);
}

static void emit_one(struct ctx *c, int node, uint64_t mask)
{
    c->out->nparts = 1;
    c->out->parts[0].node = node;
    c->out->parts[0].mask = mask;
}

/* All GPUs inside one NVLink domain. */
static int place_domain(struct ctx *c)
{
    int gpus = c->req->gpus, best_node = -1;
    uint64_t best_mask = 0;
    int64_t best = INT64_MAX;
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        uint64_t idle = idle_of(c, n);
        int ni = pc(idle);
        if (ni < gpus || !node_ok(c, n))
            continue;
        for (int d = 0; d < gs_cluster_node_domains(c->cl, n); d++) {
            uint64_t free_d = idle & gs_cluster_domain_mask(c->cl, n, d);
            int f = pc(free_d);
            if (f < gpus)
                continue;
            int64_t s = score(c->strategy, gpus, f, ni);
            if (s < best) {
                best = s;
                best_node = n;
                best_mask = take_low(free_d, gpus);
            }
        }
    }
    if (best_node < 0)
        return GS_ENOSPC;
    emit_one(c, best_node, best_mask);
    return 0;
}

/* A mask of `gpus` GPUs on `node` under the requested rule, or 0. */
static uint64_t node_take(const struct ctx *c, int node, uint64_t idle, int whole_domains)
{
    int gpus = c->req->gpus;
    if (pc(idle) < gpus)
        return 0;
    if (whole_domains)
        return gs_cluster_take_whole_domains(c->cl, node, idle, gpus);
    /* topology: node or any - still prefer the best-fitting single domain */
    uint64_t best = 0;
    int best_f = INT_MAX;
    for (int d = 0; d < gs_cluster_node_domains(c->cl, node); d++) {
        uint64_t fd = idle & gs_cluster_domain_mask(c->cl, node, d);
        if (pc(fd) >= gpus && pc(fd) < best_f) {
            best_f = pc(fd);
            best = take_low(fd, gpus);
        }
    }
    return best ? best : take_low(idle, gpus);
}

/* All GPUs on one node. */
static int place_node(struct ctx *c, int whole_domains)
{
    int best_node = -1;
    uint64_t best_mask = 0;
    int64_t best = INT64_MAX;
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        uint64_t idle = idle_of(c, n);
        if (pc(idle) < c->req->gpus || !node_ok(c, n))
            continue;
        uint64_t m = node_take(c, n, idle, whole_domains);
        if (!m)
            continue;
        int64_t s = score(c->strategy, c->req->gpus, pc(idle), pc(idle));
        if (s < best) {
            best = s;
            best_node = n;
            best_mask = m;
        }
    }
    if (best_node < 0)
        return GS_ENOSPC;
    emit_one(c, best_node, best_mask);
    return 0;
}

static int in_alloc(const struct gs_alloc *a, int node)
{
    for (int i = 0; i < a->nparts; i++)
        if (a->parts[i].node == node)
            return 1;
    return 0;
}

/* Place the remainder `r` (smaller than a node) on a node not yet in
 * c->out, under the domain or whole-domain rule; appends one part. */
static int place_remainder(struct ctx *c, int r, int rule_any)
{
    int best_node = -1;
    uint64_t best_mask = 0;
    int64_t best = INT64_MAX;
    int maxdom = gs_cluster_max_domain(c->cl);
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        uint64_t idle = idle_of(c, n);
        int ni = pc(idle);
        if (ni < r || in_alloc(c->out, n) || !node_ok(c, n))
            continue;
        uint64_t m = 0;
        int unit = ni;
        if (!rule_any && r <= maxdom) {
            for (int d = 0; d < gs_cluster_node_domains(c->cl, n); d++) {
                uint64_t fd = idle & gs_cluster_domain_mask(c->cl, n, d);
                if (pc(fd) >= r && (!m || pc(fd) < unit)) {
                    unit = pc(fd);
                    m = take_low(fd, r);
                }
            }
        } else if (!rule_any) {
            m = gs_cluster_take_whole_domains(c->cl, n, idle, r);
        } else {
            m = take_low(idle, r);
        }
        if (!m)
            continue;
        int64_t s = score(c->strategy, r, unit, ni);
        if (s < best) {
            best = s;
            best_node = n;
            best_mask = m;
        }
    }
    if (best_node < 0)
        return GS_ENOSPC;
    c->out->parts[c->out->nparts].node = best_node;
    c->out->parts[c->out->nparts].mask = best_mask;
    c->out->nparts++;
    return 0;
}

/* Larger than a node: whole idle nodes in node order, then the remainder. */
static int place_multi(struct ctx *c)
{
    int remaining = c->req->gpus;
    c->out->nparts = 0;
    for (int n = 0; n < gs_cluster_node_count(c->cl) && remaining > 0; n++) {
        int g = gs_cluster_node_gpus(c->cl, n);
        uint64_t idle = idle_of(c, n);
        if (g == 0 || g > remaining || pc(idle) != g || !node_ok(c, n))
            continue;
        if (c->out->nparts >= c->out->cap)
            return GS_ENOSPC;
        c->out->parts[c->out->nparts].node = n;
        c->out->parts[c->out->nparts].mask = idle;
        c->out->nparts++;
        remaining -= g;
    }
    if (remaining > 0 && (c->out->nparts >= c->out->cap ||
                          place_remainder(c, remaining, 0) < 0))
        return GS_ENOSPC;
    return 0;
}

/* topology: any - one node if possible, else the most idle nodes first. */
static int place_any(struct ctx *c)
{
    int gpus = c->req->gpus;
    if (gpus <= gs_cluster_max_domain(c->cl) && place_domain(c) == 0)
        return 0;
    if (gpus <= gs_cluster_max_node_gpus(c->cl) && place_node(c, 0) == 0)
        return 0;
    int remaining = gpus;
    c->out->nparts = 0;
    while (remaining > 0 && c->out->nparts < c->out->cap) {
        int best = -1, best_idle = 0;
        for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
            int ni = pc(idle_of(c, n));
            if (ni > best_idle && !in_alloc(c->out, n) && node_ok(c, n)) {
                best = n;
                best_idle = ni;
            }
        }
        if (best < 0)
            return GS_ENOSPC;
        int take = best_idle < remaining ? best_idle : remaining;
        c->out->parts[c->out->nparts].node = best;
        c->out->parts[c->out->nparts].mask = take_low(idle_of(c, best), take);
        c->out->nparts++;
        remaining -= take;
    }
    return remaining > 0 ? GS_ENOSPC : 0;
}

/* A fraction of one GPU: the GPU whose free share fits best (pack) or is
 * largest (spread).  With a view, only GPUs idle in the view count, as if
 * empty. */
static int place_shared(struct ctx *c)
{
    const struct gs_request *r = c->req;
    int best_node = -1, best_gpu = -1;
    int64_t best = INT64_MAX, best_mem = 0;
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        if (!node_ok(c, n))
            continue;
        int64_t cap = gs_cluster_gpu_type_mem(c->cl, gs_cluster_node_gpu_type(c->cl, n));
        int64_t need = r->mem_mib >= 0 ? r->mem_mib : cap * r->milli / GS_MILLI_GPU;
        uint64_t idle = idle_of(c, n);
        int ni = pc(idle);
        for (int g = 0; g < gs_cluster_node_gpus(c->cl, n); g++) {
            int view_idle = (int)((idle >> g) & 1);
            if (c->view && !view_idle)
                continue;
            if (r->blocked && ((r->blocked[n] >> g) & 1))
                continue;
            int fm = GS_MILLI_GPU - (c->view ? 0 : gs_cluster_gpu_used_milli(c->cl, n, g));
            int64_t fmem = cap - (c->view ? 0 : gs_cluster_gpu_used_mem(c->cl, n, g));
            if (fm < r->milli || fmem < need)
                continue;
            int64_t s = c->strategy == GS_PLACE_SPREAD
                            ? -((int64_t)fm * 1024 + ni)
                            : (int64_t)(fm - r->milli) * 1024 + ni;
            if (s < best) {
                best = s;
                best_node = n;
                best_gpu = g;
                best_mem = need;
            }
        }
    }
    if (best_node < 0)
        return GS_ENOSPC;
    emit_one(c, best_node, 1ULL << best_gpu);
    c->out->mem_mib = best_mem;
    return 0;
}

static int check_request(const struct gs_request *r, const struct gs_alloc *out,
                         struct gs_error *err)
{
    if (r->gpus < 1)
        return gs_errorf(err, GS_EINVAL, "placement needs at least one GPU");
    if (r->milli < 1 || r->milli > GS_MILLI_GPU)
        return gs_errorf(err, GS_EINVAL, "GPU share must be in (0, 1]");
    if (r->milli < GS_MILLI_GPU && r->gpus != 1)
        return gs_errorf(err, GS_EINVAL, "a fractional GPU share needs gpus = 1");
    if (!out || out->cap < 1 || !out->parts)
        return gs_errorf(err, GS_EINVAL, "no room for the placement result");
    return 0;
}

int gs_place(const struct gs_cluster *cl, const uint64_t *view,
             const struct gs_request *req, int strategy, struct gs_alloc *out,
             struct gs_error *err)
{
    int rc = check_request(req, out, err);
    if (rc < 0)
        return rc;
    if (strategy != GS_PLACE_PACK && strategy != GS_PLACE_SPREAD)
        return gs_errorf(err, GS_ENOTSUP, "placement strategy %s: not supported yet",
                         gs_policy_strategy_name(strategy));
    struct ctx c = { cl, view, req, strategy, out };
    out->nparts = 0;
    out->milli = req->milli;
    out->mem_mib = 0;
    out->cpu_milli = req->cpu_milli;
    out->host_mem_mib = req->host_mem_mib;
    if (req->milli < GS_MILLI_GPU)
        rc = place_shared(&c);
    else if (req->topology == GS_TOPO_ANY)
        rc = place_any(&c);
    else if (req->topology == GS_TOPO_NODE)
        rc = place_node(&c, 0);
    else if (req->gpus <= gs_cluster_max_domain(cl))
        rc = place_domain(&c);
    else if (req->topology == GS_TOPO_DOMAIN)
        rc = GS_ENOSPC;
    else if (req->gpus <= gs_cluster_max_node_gpus(cl))
        rc = place_node(&c, 1);
    else
        rc = place_multi(&c);
    if (rc < 0) {
        out->nparts = 0;
        return gs_errorf(err, rc, "no placement for %d GPU(s) now", req->gpus);
    }
    return 0;
}

int gs_place_topology(const struct gs_cluster *cl, const struct gs_request *req)
{
    if (req->topology == GS_TOPO_AUTO && req->gpus <= gs_cluster_max_domain(cl))
        return GS_TOPO_DOMAIN;
    return req->topology;
}

int gs_place_possible(const struct gs_cluster *cl, const struct gs_request *req,
                      struct gs_alloc *scratch)
{
    return gs_place(cl, gs_cluster_full_view(cl), req, GS_PLACE_PACK, scratch, NULL) == 0;
}

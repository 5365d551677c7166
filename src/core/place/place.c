/* place.c - placement under the topology rule: candidate enumeration and
 * the strategy registry; each strategy is an ops table in its own file
 * (place_private.h), MIG requests go to place_mig.c.
 *
 * Every placement is a choice among candidate units (an NVLink domain, a
 * node, a GPU for shared jobs).  The strategy turns a candidate into a score
 * (lower is better); the first candidate in node order wins ties, and GPUs
 * inside a unit are taken lowest index first.
 */
#include "core/place/place_private.h"

#include <limits.h>
#include <stddef.h>

#define DEFAULT_SCHED_WEIGHT 1.0
#define DEFAULT_QUANTUM 100.0

/* The registry: every row of GS_PLACE_STRATEGIES (policy.h), indexed by
 * its enum value. */
#define OPS_ROW(id, name) [GS_PLACE_##id] = &gs_place_##name##_ops,
static const struct gs_place_ops *const strategies[GS_PLACE_COUNT] = {
    GS_PLACE_STRATEGIES(OPS_ROW)
};
#undef OPS_ROW

const struct gs_place_ops *gs_place_ops_of(int strategy)
{
    return strategy >= 0 && strategy < GS_PLACE_COUNT ? strategies[strategy] : NULL;
}

int gs_place_fit(int strategy)
{
    const struct gs_place_ops *ops = gs_place_ops_of(strategy);
    return ops ? ops->fit : GS_PLACE_FIT_BEST;
}

static int pc(uint64_t x)
{
    return __builtin_popcountll(x);
}

uint64_t gs_place_take_low(uint64_t m, int n)
{
    uint64_t r = 0;
    while (n-- > 0 && m) {
        uint64_t b = m & -m;
        r |= b;
        m &= ~b;
    }
    return r;
}

#define take_low gs_place_take_low
#define idle_of gs_pl_idle
#define node_ok gs_pl_node_ok

/* GPU type and host resources allow `node` at all. */
int gs_pl_node_ok(const struct gs_pctx *c, int node)
{
    if (c->plain)
        return 1;
    const struct gs_request *r = c->req;
    int type = gs_cluster_node_gpu_type(c->cl, node);
    if (r->gpu_type >= 0 && type != r->gpu_type)
        return 0;
    if (r->gpu_types && (type < 0 || type >= 64 || !(r->gpu_types >> type & 1)))
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

/* The strategy's score of a whole-GPU candidate (gs_place_ops). */
static struct gs_pscore score(struct gs_pctx *c, int node, uint64_t take, int unit_idle,
                              int node_idle)
{
    return c->ops->score_whole(c, node, take, unit_idle, node_idle);
}

/* Whether the strategy rules node `n` out against `best` (gs_place_ops). */
static int pruned(const struct gs_pctx *c, int n, struct gs_pscore best)
{
    return c->ops->prune && c->ops->prune(c, n, best);
}

static void emit_one(struct gs_pctx *c, int node, uint64_t mask)
{
    c->out->nparts = 0;
    gs_pl_add_part(c, node, mask);
}

/* The allocation is the best candidate of a scan alone, or GS_ENOSPC. */
static int emit_best(struct gs_pctx *c, const struct gs_pl_best *b)
{
    if (b->node < 0)
        return GS_ENOSPC;
    emit_one(c, b->node, b->mask);
    return 0;
}

/* Whether no later candidate can beat `s` (the strategy's scores are never
 * below 0), so a scan may stop: ties go to the earlier candidate anyway. */
static int unbeatable(const struct gs_pctx *c, struct gs_pscore s)
{
    return c->ops->zero_floor && s.a == 0 && s.b == 0;
}

/* place_domain for the strategies ranked by their fit alone (pack, spread,
 * first_fit): the scores of place_pack.c, place_spread.c and
 * place_first_fit.c in plain integers, which keeps the scan of a large
 * cluster within a few microseconds. */
static int place_domain_int(struct gs_pctx *c)
{
    int gpus = c->req->gpus, best_node = -1, nn = gs_cluster_node_count(c->cl);
    int spread = c->ops->fit == GS_PLACE_FIT_WORST, first = c->ops->fit == GS_PLACE_FIT_FIRST;
    uint64_t best_mask = 0;
    int64_t best = INT64_MAX;
    const uint8_t *ndom = c->ndom;
    for (int n = 0; n < nn && (spread || best != 0); n++) {
        uint64_t idle = idle_of(c, n);
        int ni = pc(idle);
        if (ni < gpus || !node_ok(c, n))
            continue;
        for (int d = 0; d < ndom[n]; d++) {
            uint64_t free_d = ndom[n] == 1 ? idle : idle & gs_cluster_domain_mask(c->cl, n, d);
            int f = ndom[n] == 1 ? ni : pc(free_d);
            if (f < gpus)
                continue;
            int64_t s = spread  ? -((int64_t)ni * 1024 + f)
                        : first ? 0
                                : (int64_t)(f - gpus) * 1024 + (ni - gpus);
            if (s < best) {
                best = s;
                best_node = n;
                best_mask = free_d;
            }
        }
    }
    if (best_node < 0)
        return GS_ENOSPC;
    emit_one(c, best_node, take_low(best_mask, gpus));
    return 0;
}

/* pack/spread (ops->indexed) on the live state with no per-node
 * constraint: the cluster's domain index answers without scanning every
 * node. */
static int indexed(const struct gs_pctx *c)
{
    const struct gs_request *r = c->req;
    return !c->view && !r->blocked && !r->nodes_allowed && r->gpu_type < 0 && !r->gpu_types &&
           r->mem_mib <= 0 && r->cpu_milli == 0 && r->host_mem_mib == 0 &&
           c->ops->indexed;
}

/* All GPUs inside one NVLink domain. */
static int place_domain(struct gs_pctx *c)
{
    if (indexed(c)) {
        int node;
        uint64_t dm;
        int rc = gs_cluster_best_domain(c->cl, c->req->gpus,
                                        c->ops->fit == GS_PLACE_FIT_WORST, &node, &dm);
        if (rc == 0)
            emit_one(c, node, take_low(gs_cluster_idle_mask(c->cl, node) & dm, c->req->gpus));
        if (rc != GS_ENOTSUP)
            return rc;
    }
    if (c->ops->domain_int)
        return place_domain_int(c);
    int gpus = c->req->gpus, nn = gs_cluster_node_count(c->cl);
    struct gs_pl_best best = { GS_PSCORE_WORST, -1, 0 };
    for (int n = 0; n < nn && !unbeatable(c, best.s); n++) {
        uint64_t idle = idle_of(c, n);
        int ni = pc(idle);
        if (ni < gpus || pruned(c, n, best.s) || !node_ok(c, n))
            continue;
        for (int d = 0; d < c->ndom[n]; d++) {
            uint64_t free_d = c->ndom[n] == 1 ? idle : idle & gs_cluster_domain_mask(c->cl, n, d);
            int f = c->ndom[n] == 1 ? ni : pc(free_d);
            if (f < gpus)
                continue;
            uint64_t take = take_low(free_d, gpus);
            gs_pl_consider(&best, score(c, n, take, f, ni), n, take);
        }
    }
    return emit_best(c, &best);
}

/* A mask of `gpus` GPUs on `node` under the requested rule, or 0. */
static uint64_t node_take(const struct gs_pctx *c, int node, uint64_t idle, int whole_domains)
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
static int place_node(struct gs_pctx *c, int whole_domains)
{
    struct gs_pl_best best = { GS_PSCORE_WORST, -1, 0 };
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        uint64_t idle = idle_of(c, n);
        if (pc(idle) < c->req->gpus || pruned(c, n, best.s) || !node_ok(c, n))
            continue;
        uint64_t m = node_take(c, n, idle, whole_domains);
        if (m)
            gs_pl_consider(&best, score(c, n, m, pc(idle), pc(idle)), n, m);
    }
    return emit_best(c, &best);
}

int gs_pl_in_alloc(const struct gs_alloc *a, int node)
{
    for (int i = 0; i < a->nparts; i++)
        if (a->parts[i].node == node)
            return 1;
    return 0;
}

/* Place the remainder `r` (smaller than a node) on a node not yet in
 * c->out, under the domain or whole-domain rule; appends one part. */
static int place_remainder(struct gs_pctx *c, int r, int rule_any)
{
    struct gs_pl_best best = { GS_PSCORE_WORST, -1, 0 };
    int maxdom = gs_cluster_max_domain(c->cl);
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        uint64_t idle = idle_of(c, n);
        int ni = pc(idle);
        if (ni < r || gs_pl_in_alloc(c->out, n) || !node_ok(c, n))
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
        if (m)
            gs_pl_consider(&best, score(c, n, m, unit, ni), n, m);
    }
    if (best.node < 0)
        return GS_ENOSPC;
    gs_pl_add_part(c, best.node, best.mask);
    return 0;
}

/* Larger than a node: whole idle nodes in node order, then the remainder. */
static int place_multi(struct gs_pctx *c)
{
    if (c->ops->place_multi)
        return c->ops->place_multi(c);
    int remaining = c->req->gpus;
    c->out->nparts = 0;
    for (int n = 0; n < gs_cluster_node_count(c->cl) && remaining > 0; n++) {
        int g = gs_cluster_node_gpus(c->cl, n);
        uint64_t idle = idle_of(c, n);
        if (g == 0 || g > remaining || pc(idle) != g || !node_ok(c, n))
            continue;
        if (c->out->nparts >= c->out->cap)
            return GS_ENOSPC;
        gs_pl_add_part(c, n, idle);
        remaining -= g;
    }
    if (remaining > 0 && (c->out->nparts >= c->out->cap ||
                          place_remainder(c, remaining, 0) < 0))
        return GS_ENOSPC;
    return 0;
}

/* topology: any - one node if possible, else the most idle nodes first. */
static int place_any(struct gs_pctx *c)
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
            if (ni > best_idle && !gs_pl_in_alloc(c->out, n) && node_ok(c, n)) {
                best = n;
                best_idle = ni;
            }
        }
        if (best < 0)
            return GS_ENOSPC;
        int take = best_idle < remaining ? best_idle : remaining;
        gs_pl_add_part(c, best, take_low(idle_of(c, best), take));
        remaining -= take;
    }
    return remaining > 0 ? GS_ENOSPC : 0;
}

int64_t gs_pl_shared_mem(const struct gs_pctx *c, int node)
{
    int64_t cap = gs_cluster_gpu_type_mem(c->cl, gs_cluster_node_gpu_type(c->cl, node));
    return c->req->mem_mib >= 0 ? c->req->mem_mib : cap * c->req->milli / GS_MILLI_GPU;
}

/* GPUs of node `n` worth scoring for a shared job, from the sets in
 * `which`: SH_PART every partly used GPU (fully used ones never fit);
 * SH_IDLE of the idle GPUs the lowest of each NVLink domain (idle GPUs of
 * one domain are interchangeable and the lowest wins ties).  With a view
 * only GPUs idle in it count, as if empty. */
enum { SH_PART = GS_SH_PART, SH_IDLE = GS_SH_IDLE };

static uint64_t shared_candidates(const struct gs_pctx *c, const uint64_t *part, int n,
                                  uint64_t idle, int which)
{
    uint64_t pick = (which & SH_PART) && !c->view ? part[n] : 0;
    if (c->req->blocked)
        pick &= ~c->req->blocked[n];
    if (!(which & SH_IDLE))
        return pick;
    if (c->ndom[n] == 1)
        return pick | (idle & -idle);
    for (int d = 0; d < c->ndom[n]; d++) {
        uint64_t fd = idle & gs_cluster_domain_mask(c->cl, n, d);
        pick |= fd & -fd;
    }
    return pick;
}

struct shared_best {
    int node, gpu;
    int64_t mem;
    struct gs_pscore s;
};

/* Score the candidates of the sets `which` on every allowed node. */
static void scan_shared(struct gs_pctx *c, int which, struct shared_best *b)
{
    const struct gs_request *r = c->req;
    const uint64_t *part = gs_cluster_shared_masks(c->cl);
    int nn = gs_cluster_node_count(c->cl), type = -1;
    int64_t cap = 0, need = 0;
    for (int n = 0; n < nn && !unbeatable(c, b->s); n++) {
        uint64_t idle = idle_of(c, n);
        uint64_t m = shared_candidates(c, part, n, idle, which);
        if (!m || pruned(c, n, b->s) || !node_ok(c, n))
            continue;
        if (gs_cluster_node_gpu_type(c->cl, n) != type) {
            type = gs_cluster_node_gpu_type(c->cl, n);
            cap = gs_cluster_gpu_type_mem(c->cl, type);
            need = gs_pl_shared_mem(c, n);
        }
        int ni = pc(idle);
        for (; m; m &= m - 1) {
            int g = __builtin_ctzll(m), is_idle = (int)(idle >> g & 1);
            int fm = GS_MILLI_GPU - (is_idle ? 0 : gs_cluster_gpu_used_milli(c->cl, n, g));
            if (fm < r->milli)
                continue;
            int64_t fmem = cap - (is_idle ? 0 : gs_cluster_gpu_used_mem(c->cl, n, g));
            if (fmem < need)
                continue;
            struct gs_pscore s = c->ops->score_shared(c, n, g, fm, ni);
            if (gs_pscore_less(s, b->s)) {
                b->s = s;
                b->node = n;
                b->gpu = g;
                b->mem = need;
            }
        }
    }
}

/* spread's first choice for a shared job from the domain index: the lowest
 * idle GPU of the most idle node (first in node order) - what
 * scan_shared(SH_IDLE) finds, as every idle GPU has the whole share free.
 * Returns 0 when the index cannot answer (then scan). */
static int spread_idle_indexed(struct gs_pctx *c, struct shared_best *b)
{
    int node = -1;
    uint64_t dm = 0;
    if (c->ops->fit != GS_PLACE_FIT_WORST)
        return 0;
    int rc = indexed(c) ? gs_cluster_best_domain(c->cl, 1, 1, &node, &dm) : GS_ENOTSUP;
    if (rc == GS_ENOTSUP)
        return 0;
    if (rc != 0 || !(idle_of(c, node) & dm))
        return 1; /* no idle GPU anywhere */
    b->node = node;
    b->gpu = __builtin_ctzll(idle_of(c, node) & dm);
    b->mem = gs_pl_shared_mem(c, node);
    return 1;
}

/* A fraction of one GPU: the GPU whose free share fits best (pack) or is
 * largest (spread).  GPUs in MIG mode never take shared jobs.  pack and
 * topo rank every fitting partly used GPU before any idle one (pack: less
 * free share; topo: no unit lost, no idle GPU broken) and spread every idle
 * GPU before a partly used one, so the second set (ops->shared) is scanned
 * only when the first has no fit; frag and first_fit scan both at once. */
static int place_shared(struct gs_pctx *c)
{
    struct shared_best b = { -1, -1, 0, GS_PSCORE_WORST };
    const unsigned char *sets = c->ops->shared;
    if (!(sets[0] == SH_IDLE && spread_idle_indexed(c, &b)))
        scan_shared(c, sets[0], &b);
    if (b.node < 0 && sets[1])
        scan_shared(c, sets[1], &b);
    if (b.node < 0)
        return GS_ENOSPC;
    emit_one(c, b.node, 1ULL << b.gpu);
    c->out->mem_mib = b.mem;
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
    if (r->mig && (r->gpus != 1 || r->mig < 0 || r->mig > gs_mig_profile_count()))
        return gs_errorf(err, GS_EINVAL, "a MIG request takes one instance of a known profile");
    if (!out || out->cap < 1 || !out->parts)
        return gs_errorf(err, GS_EINVAL, "no room for the placement result");
    return 0;
}

static void setup(struct gs_pctx *c, const struct gs_cluster *cl, const uint64_t *view,
                  const struct gs_request *req, const struct gs_place_ops *ops,
                  struct gs_alloc *out)
{
    c->cl = cl;
    c->view = view;
    c->req = req;
    c->ops = ops;
    c->out = out;
    struct gs_cluster_stats st = gs_cluster_stats(cl);
    c->k = st.k;
    c->idle_arr = view ? view : gs_cluster_idle_masks(cl);
    c->ndom = gs_cluster_domain_counts(cl);
    c->mask_mig = view && st.mig_gpus > 0;
    c->plain = req->gpu_type < 0 && !req->gpu_types && !req->nodes_allowed &&
               req->mem_mib <= 0 && req->cpu_milli == 0 && req->host_mem_mib == 0;
    c->weight = req->ctx ? req->ctx->sched_weight : DEFAULT_SCHED_WEIGHT;
    c->quantum = req->ctx ? req->ctx->quantum : DEFAULT_QUANTUM;
    c->score_shape = req->ctx ? req->ctx->score_shape : GS_FRAG_SCORE_QUANTUM;
    c->mig_reconfigure = req->ctx ? req->ctx->mig_reconfigure : GS_MIG_NEVER;
    c->shapes = req->ctx ? req->ctx->shapes : NULL;
    c->fnode = -1;
    c->node_frag = NULL;
    c->node_simple = NULL;
    if (ops->setup)
        ops->setup(c);
    out->nparts = 0;
    out->milli = req->milli;
    out->mem_mib = 0;
    out->cpu_milli = req->cpu_milli;
    out->host_mem_mib = req->host_mem_mib;
    out->mig_slot = 0;
    out->mig_reconf = 0;
}

/* The topology rule: which enumeration a whole-GPU request goes through. */
static int place_whole(struct gs_pctx *c)
{
    const struct gs_request *req = c->req;
    if (req->topology == GS_TOPO_ANY)
        return place_any(c);
    if (req->topology == GS_TOPO_NODE)
        return place_node(c, 0);
    if (req->gpus <= gs_cluster_max_domain(c->cl))
        return place_domain(c);
    if (req->topology == GS_TOPO_DOMAIN)
        return GS_ENOSPC;
    if (req->gpus <= gs_cluster_max_node_gpus(c->cl))
        return place_node(c, 1);
    return place_multi(c);
}

int gs_place(const struct gs_cluster *cl, const uint64_t *view,
             const struct gs_request *req, int strategy, struct gs_alloc *out,
             struct gs_error *err)
{
    int rc = check_request(req, out, err);
    if (rc < 0)
        return rc;
    const struct gs_place_ops *ops = gs_place_ops_of(strategy);
    if (!ops)
        return gs_errorf(err, GS_ENOTSUP, "placement strategy %d: unknown", strategy);
    struct gs_pctx c;
    setup(&c, cl, view, req, ops, out);
    if (req->mig)
        rc = gs_place_mig(&c);
    else if (req->milli < GS_MILLI_GPU)
        rc = place_shared(&c);
    else
        rc = place_whole(&c);
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

/* preempt.c - preemption: which running jobs to stop so that a waiting job
 * can start (docs/preemption.md).
 *
 * Who may preempt whom.  A running job is a candidate victim of waiting
 * job W when its preemption mode (partition, else class, else policy) is
 * not `none`, it is not already draining, its current run is at least
 * preemption.min_runtime old, and one of these rights holds:
 *   priority   W.priority >= V.priority + preemption.priority_gap (> 0);
 *   quota      W's team stays within its queue.quota and V's team holds
 *              more than its quota (borrowed GPUs; preemption.quota_reclaim);
 *   partition  W's quota partition stays within its quota and V's quota
 *              partition is over its own (it borrowed; the owner reclaims);
 *   over cap   preemption.over_cap: preempt, V has run past the cap, and W
 *              was never preempted past its own cap (else two jobs that
 *              both outrun their caps would preempt each other in turn,
 *              for ever, under `immediate`).
 *
 * Cost.  A victim costs the GPU time it loses: GPUs x (work since its last
 * completed checkpoint + its restore cost).  Under `checkpoint` with a
 * grace period a victim that can finish a checkpoint within the grace
 * (and faster than the work it would lose) drains instead: it costs GPUs x
 * (checkpoint time + restore) and stops when saved.
 *
 * Selection.  The waiting job's topology rule fixes the unit its GPUs must
 * come from: one NVLink domain (a job that fits a domain), one node (the
 * whole-domain rule, or `topology: node`), or the cluster (larger jobs and
 * `any`).  For each domain or node, a branch-and-bound search over the
 * victims there (one item per whole-GPU victim, one per shared GPU whose
 * users are all candidates) finds the cheapest set that, with the idle
 * GPUs, satisfies the rule; the cheapest unit wins (ties: fewer GPUs
 * preempted, then node order).  The cluster-wide case is greedy (cheapest
 * per GPU first until placement succeeds, then drops what is not needed).
 * A fractional job searches, per GPU, the cheapest users to stop.  Nothing
 * is preempted when no victim set would let the job start.  GPUs held by a
 * backfill reservation are neither taken nor freed.
 */
#include "core/preempt/preempt_private.h"
#include "core/base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 24          /* per unit: the cheapest this many are searched */
#define DFS_BUDGET 20000      /* search nodes per unit before settling */
#define MAX_GPU_ITEMS 12      /* fractional waiter: users of one GPU searched */

enum rule { RULE_DOMAIN, RULE_NODE, RULE_WHOLE, RULE_CLUSTER };

struct best {
    int found;
    int64_t cost;
    int gpus;
    int node;
    uint64_t scope;           /* the GPUs of the node the job may use */
    uint64_t items;           /* bit per item of `set` */
    struct item set[MAX_ITEMS];
    int nset;
};

struct unit {
    const struct gs_engine *eng;
    int node, g, rule;
    uint64_t scope;           /* domain mask (RULE_DOMAIN) or every GPU */
    const struct item *items;
    int n;
    uint64_t suffix[MAX_ITEMS + 1];
    long budget;
    struct best *best;
};

static int pc(uint64_t x) { return __builtin_popcountll(x); }

static int64_t mul_sat(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* --- who may preempt whom -------------------------------------------- */

struct rights {
    int team_within;          /* W's team stays within its quota */
    int part_within;          /* W's quota partition stays within its quota */
};

static void waiter_rights(const struct gs_engine *eng, int w, struct rights *r)
{
    const struct job *j = &eng->jobs[w];
    int q = eng->team_quota[j->team];
    int64_t need = (int64_t)j->gpus * j->milli;
    r->team_within = eng->pol.quota_reclaim && q >= 0 &&
                     eng->team_milli[j->team] + need <= (int64_t)q * GS_MILLI_GPU;
    r->part_within = gs_eng_part_within(eng, w);
}

/* Progress (docs/preemption.md, "Progress").  Two jobs that last preempted
 * each other (each one's pre_by is the other) do not go on: a preemption
 * may be answered once, not again, whatever rights they hold against each
 * other (priority one way, quota the other).  And under over_cap: preempt
 * a job preempted past its own cap (capped) may not preempt a job that is
 * not capped: that job could preempt it again once it passes its cap, and
 * a group of jobs would stop each other in turn for ever (over cap one
 * way, priority the other). */
static int blocked_pair(const struct gs_engine *eng, int w, int v)
{
    const struct job *jw = &eng->jobs[w], *jv = &eng->jobs[v];
    if (jw->capped && !jv->capped && eng->pol.over_cap == GS_OVER_CAP_PREEMPT)
        return 1;
    const int *pre_by = eng->pre->pre_by;
    return pre_by[w] == jv->handle + 1 && pre_by[v] == jw->handle + 1;
}

static int has_right(const struct gs_engine *eng, int w, int v, const struct rights *r,
                     gs_time now)
{
    const struct job *jw = &eng->jobs[w], *jv = &eng->jobs[v];
    if (blocked_pair(eng, w, v))
        return 0;
    int gap = eng->pol.priority_gap;
    if (eng->pol.over_cap == GS_OVER_CAP_PREEMPT && jv->deadline <= now && !jw->capped)
        return 1;
    if (gap > 0 && (int64_t)jw->priority >= (int64_t)jv->priority + gap)
        return 1;
    int qv = eng->team_quota[jv->team];
    if (r->team_within && jv->team != jw->team && qv >= 0 &&
        eng->team_milli[jv->team] > (int64_t)qv * GS_MILLI_GPU)
        return 1;
    return r->part_within && jv->part != jw->part && gs_eng_part_over(eng, v);
}

/* Fill `c` with what preempting running job `v` at `now` costs.  With
 * `drain`, a victim under `checkpoint` may save within the grace period. */
static void cost_of(const struct gs_engine *eng, int v, gs_time now, int drain, struct cand *c)
{
    const struct job *j = &eng->jobs[v];
    struct gs_progress pr = eng->prog[j->run_pos];
    gs_progress_advance(&pr, now);
    gs_time lose = gs_progress_at_risk(&pr);
    c->job = v;
    c->save_at = GS_TIME_NONE;
    if (drain && eng->pol.grace > 0 && gs_eng_part_job_mode(eng, v) == GS_PREEMPT_CHECKPOINT) {
        gs_time s = gs_progress_save_time(&pr);
        if (s != GS_TIME_NONE && s <= eng->pol.grace && s < lose) {
            lose = s;
            c->save_at = gs_time_add(now, s);
        }
    }
    gs_time restore = j->restore_cost >= 0 ? j->restore_cost : eng->pol.restore_cost;
    c->cost = mul_sat((int64_t)j->gpus * j->milli, add_sat(lose, restore));
}

/* Candidates for waiter `w` into pre->cand; returns their number or
 * GS_ENOMEM.  Also notes when a too-young candidate comes of age. */
static int build_cands(struct gs_engine *eng, int w, gs_time now, int drain)
{
    struct gs_preempt *pre = eng->pre;
    if (gs_grow((void **)&pre->cand, &pre->cand_cap, eng->nrunning + 1, sizeof *pre->cand))
        return GS_ENOMEM;
    struct rights r;
    waiter_rights(eng, w, &r);
    int n = 0;
    for (size_t i = 0; i < eng->nrunning; i++) {
        int v = eng->running[i];
        const struct job *jv = &eng->jobs[v];
        if (jv->gpus == 0 || pre->draining[v] || jv->state != GS_JOB_RUNNING ||
            gs_eng_part_job_mode(eng, v) == GS_PREEMPT_NONE ||
            !has_right(eng, w, v, &r, now))
            continue;
        if (now - jv->start < eng->pol.min_runtime) {
            gs_time t = gs_time_add(jv->start, eng->pol.min_runtime);
            if (t < pre->young_wake)
                pre->young_wake = t;
            continue;
        }
        cost_of(eng, v, now, drain, &pre->cand[n++]);
    }
    return n;
}

/* Group the candidates' allocations by node: ent_sorted[node_first[n] ..
 * node_first[n + 1]) are the parts on node n.  Returns 0 or GS_ENOMEM. */
static int group_by_node(struct gs_engine *eng, int ncand)
{
    struct gs_preempt *pre = eng->pre;
    int nn = gs_cluster_node_count(eng->cl);
    size_t ne = 0;
    for (int c = 0; c < ncand; c++)
        ne += eng->jobs[pre->cand[c].job].nparts;
    size_t cap = pre->ent_cap;
    if (gs_grow((void **)&pre->ent, &cap, ne + 1, sizeof *pre->ent))
        return GS_ENOMEM;
    if (gs_grow((void **)&pre->ent_sorted, &pre->ent_cap, ne + 1, sizeof *pre->ent_sorted))
        return GS_ENOMEM;
    memset(pre->node_first, 0, ((size_t)nn + 1) * sizeof *pre->node_first);
    size_t k = 0;
    for (int c = 0; c < ncand; c++) {
        const struct job *j = &eng->jobs[pre->cand[c].job];
        for (int p = 0; p < j->nparts; p++) {
            const struct gs_alloc_part *pt = &eng->parts[j->parts_off + p];
            pre->ent[k++] = (struct entry){ c, pt->node, pt->mask };
            pre->node_first[pt->node + 1]++;
        }
    }
    for (int n = 0; n < nn; n++)
        pre->node_first[n + 1] += pre->node_first[n];
    int *fill = pre->node_first; /* reuse as cursors, then shift back */
    for (size_t i = 0; i < k; i++)
        pre->ent_sorted[fill[pre->ent[i].node]++] = pre->ent[i];
    for (int n = nn; n > 0; n--)
        fill[n] = fill[n - 1];
    fill[0] = 0;
    return 0;
}

/* --- the per-node items ---------------------------------------------- */

static int cmp_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return (x->mask > y->mask) - (x->mask < y->mask);
}

/* Items of node `n` (whole-GPU victims; shared GPUs whose users are all
 * candidates), GPUs held by reservations left out, cheapest first, at most
 * MAX_ITEMS.  Returns the count or GS_ENOMEM. */
static int node_items(struct gs_engine *eng, int n, uint64_t reserved)
{
    struct gs_preempt *pre = eng->pre;
    int first = pre->node_first[n], last = pre->node_first[n + 1], ni = 0;
    if (gs_grow((void **)&pre->items, &pre->items_cap, (size_t)(last - first) + 1,
                sizeof *pre->items))
        return GS_ENOMEM;
    uint64_t shared_seen = 0;
    for (int e = first; e < last; e++) {
        const struct entry *en = &pre->ent_sorted[e];
        const struct job *j = &eng->jobs[pre->cand[en->cand].job];
        if (en->mask & reserved)
            continue;
        if (j->milli == GS_MILLI_GPU) {
            pre->items[ni++] = (struct item){ en->mask, pre->cand[en->cand].cost, j->gpus, e, 1 };
            continue;
        }
        if (shared_seen & en->mask)
            continue;
        shared_seen |= en->mask;
        struct item it = { en->mask, 0, 0, -1, 0 };
        for (int f = e; f < last; f++) {
            const struct entry *o = &pre->ent_sorted[f];
            if (o->mask == en->mask && eng->jobs[pre->cand[o->cand].job].milli < GS_MILLI_GPU) {
                it.cost = add_sat(it.cost, pre->cand[o->cand].cost);
                it.gpus++;
            }
        }
        int gpu = __builtin_ctzll(en->mask);
        if (it.gpus == gs_cluster_gpu_users(eng->cl, n, gpu))
            pre->items[ni++] = it;
    }
    qsort(pre->items, (size_t)ni, sizeof *pre->items, cmp_item);
    return ni < MAX_ITEMS ? ni : MAX_ITEMS;
}

/* --- branch and bound within one unit --------------------------------- */

static int fits(const struct unit *u, uint64_t free)
{
    switch (u->rule) {
    case RULE_DOMAIN: return pc(free & u->scope) >= u->g;
    case RULE_NODE: return pc(free) >= u->g;
    default: return gs_cluster_take_whole_domains(u->eng->cl, u->node, free, u->g) != 0;
    }
}

static int better(const struct best *b, int64_t cost, int gpus)
{
    return !b->found || cost < b->cost || (cost == b->cost && gpus < b->gpus);
}

static void record(struct unit *u, int64_t cost, int gpus, uint64_t set)
{
    struct best *b = u->best;
    b->found = 1;
    b->cost = cost;
    b->gpus = gpus;
    b->node = u->node;
    b->scope = u->scope;
    b->nset = 0;
    for (int k = 0; k < u->n; k++)
        if (set & (1ULL << k))
            b->set[b->nset++] = u->items[k];
}

static void dfs(struct unit *u, int i, uint64_t free, int64_t cost, int gpus, uint64_t set)
{
    if (u->budget-- <= 0)
        return;
    if (fits(u, free)) {
        if (better(u->best, cost, gpus))
            record(u, cost, gpus, set);
        return;
    }
    for (int k = i; k < u->n; k++) {
        const struct item *it = &u->items[k];
        int64_t c = add_sat(cost, it->cost);
        if (u->best->found && c > u->best->cost)
            break; /* items are sorted by cost: the rest cost more */
        if (!fits(u, free | u->suffix[k]))
            return; /* even every remaining item is not enough */
        if (!(it->mask & u->scope) || !better(u->best, c, gpus + it->gpus))
            continue;
        dfs(u, k + 1, free | it->mask, c, gpus + it->gpus, set | 1ULL << k);
    }
}

static void search_unit(struct unit *u, uint64_t idle)
{
    if (u->n == 0 || (u->best->found && u->items[0].cost > u->best->cost))
        return;
    u->suffix[u->n] = 0;
    for (int k = u->n - 1; k >= 0; k--)
        u->suffix[k] = u->suffix[k + 1] | u->items[k].mask;
    if (!fits(u, idle | u->suffix[0]))
        return;
    u->budget = DFS_BUDGET;
    dfs(u, 0, idle, 0, 0, 0);
}

/* Whether node `n` can host the request at all (type, partition). */
static int node_ok(const struct gs_engine *eng, const struct gs_request *req, int n)
{
    if (req->gpu_type >= 0 && gs_cluster_node_gpu_type(eng->cl, n) != req->gpu_type)
        return 0;
    return !req->nodes_allowed || req->nodes_allowed[n];
}

/* Best unit-scope victim set over every node; 0 or GS_ENOMEM. */
static int search_nodes(struct gs_engine *eng, const struct gs_request *req, int rule,
                        struct best *b)
{
    struct gs_preempt *pre = eng->pre;
    int nn = gs_cluster_node_count(eng->cl);
    int has_res = gs_profile_reservations(eng->profile) > 0;
    for (int n = 0; n < nn; n++) {
        if (pre->node_first[n] == pre->node_first[n + 1] || !node_ok(eng, req, n))
            continue;
        uint64_t reserved = has_res ? gs_profile_reserved_mask(eng->profile, n) : 0;
        int ni = node_items(eng, n, reserved);
        if (ni < 0)
            return ni;
        uint64_t idle = gs_cluster_idle_mask(eng->cl, n) & ~reserved;
        struct unit u = { eng, n, req->gpus, rule, ~0ULL, pre->items, ni, { 0 }, 0, b };
        if (rule != RULE_DOMAIN) {
            search_unit(&u, idle);
            continue;
        }
        for (int d = 0; d < gs_cluster_node_domains(eng->cl, n); d++) {
            u.scope = gs_cluster_domain_mask(eng->cl, n, d);
            if (pc(u.scope) >= req->gpus)
                search_unit(&u, idle);
        }
    }
    return 0;
}

/* --- the cluster-wide case (jobs larger than a node, topology any) ---- */

/* Cost per GPU, compared exactly in integers: quotient first, then the
 * remainders as fractions r1 / g1 vs r2 / g2 (r < g, so the cross products
 * cannot overflow). */
static int64_t per_gpu_cmp(const struct gs_engine *eng, const struct cand *x,
                           const struct cand *y)
{
    int64_t gx = eng->jobs[x->job].gpus > 0 ? eng->jobs[x->job].gpus : 1;
    int64_t gy = eng->jobs[y->job].gpus > 0 ? eng->jobs[y->job].gpus : 1;
    int64_t qx = x->cost / gx, qy = y->cost / gy;
    if (qx != qy)
        return qx < qy ? -1 : 1;
    int64_t fx = (x->cost % gx) * gy, fy = (y->cost % gy) * gx;
    if (fx != fy)
        return fx < fy ? -1 : 1;
    return eng->jobs[x->job].handle - eng->jobs[y->job].handle; /* the earlier job */
}

/* Insertion-sort the victims list by cost per GPU (short lists). */
static void sort_per_gpu(const struct gs_engine *eng, int *v, size_t n)
{
    const struct cand *c = eng->pre->cand;
    for (size_t i = 1; i < n; i++) {
        int x = v[i];
        size_t k = i;
        while (k > 0 && per_gpu_cmp(eng, &c[x], &c[v[k - 1]]) < 0) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = x;
    }
}

/* A victim plan for one waiting job: built by plan() (the searches below),
 * read by execute() within the same call; its arrays are the preemption
 * state's storage (vic_buf, view_buf, alloc_buf), so nothing of it
 * outlives the call that built it. */
struct vplan {
    int *v;                       /* victims: job handles (candidate indexes
                                     while search_cluster works) */
    size_t n;
    uint64_t *view;               /* start view: GPUs the waiter may take */
    struct gs_alloc *a;           /* placement storage */
    int node;                     /* the unit's node, -1 = cluster-wide */
};

/* pl->view: the idle GPUs (less reserved ones) and the GPUs of the
 * candidates in list[0..n) whose `keep` flag is set (NULL = all). */
static void cluster_view(struct gs_engine *eng, struct vplan *pl, const int *list, size_t n,
                         const char *keep)
{
    struct gs_preempt *pre = eng->pre;
    int nn = gs_cluster_node_count(eng->cl), has_res = gs_profile_reservations(eng->profile);
    for (int node = 0; node < nn; node++)
        pl->view[node] = gs_cluster_idle_mask(eng->cl, node) &
                         ~(has_res ? gs_profile_reserved_mask(eng->profile, node) : 0);
    for (size_t i = 0; i < n; i++) {
        if (keep && !keep[i])
            continue;
        const struct job *j = &eng->jobs[pre->cand[list[i]].job];
        for (int p = 0; p < j->nparts; p++)
            pl->view[eng->parts[j->parts_off + p].node] |= eng->parts[j->parts_off + p].mask;
    }
}

static int place_view(struct gs_engine *eng, struct vplan *pl, const struct gs_request *req)
{
    return gs_place(eng->cl, pl->view, req, eng->pol.strategy, pl->a, NULL) == 0;
}

/* Whole-GPU candidates not touching reserved GPUs into pl->v (as candidate
 * indexes), cheapest per GPU first. */
static void cluster_list(struct gs_engine *eng, struct vplan *pl, int ncand)
{
    struct gs_preempt *pre = eng->pre;
    int has_res = gs_profile_reservations(eng->profile) > 0;
    pl->n = 0;
    for (int c = 0; c < ncand; c++) {
        const struct job *j = &eng->jobs[pre->cand[c].job];
        int ok = j->milli == GS_MILLI_GPU;
        for (int p = 0; ok && has_res && p < j->nparts; p++) {
            const struct gs_alloc_part *pt = &eng->parts[j->parts_off + p];
            ok = !(gs_profile_reserved_mask(eng->profile, pt->node) & pt->mask);
        }
        if (ok)
            pl->v[pl->n++] = c;
    }
    sort_per_gpu(eng, pl->v, pl->n);
}

/* Greedy: add victims until the job places, then drop those it does not
 * need (most expensive first).  Leaves job handles in pl->v and the start
 * view in pl->view; returns 1 when found, 0 when not, GS_ENOMEM. */
static int search_cluster(struct gs_engine *eng, struct vplan *pl, const struct gs_request *req,
                          int ncand)
{
    struct gs_preempt *pre = eng->pre;
    cluster_list(eng, pl, ncand);
    size_t k = 0, n = pl->n;
    int ok = 0;
    while (!ok && k < n) {
        cluster_view(eng, pl, pl->v, ++k, NULL);
        ok = place_view(eng, pl, req);
    }
    if (!ok)
        return 0;
    char *keep = gs_malloc(k);
    if (!keep)
        return GS_ENOMEM;
    memset(keep, 1, k);
    for (size_t i = k; i-- > 0;) {
        keep[i] = 0;
        cluster_view(eng, pl, pl->v, k, keep);
        if (!place_view(eng, pl, req))
            keep[i] = 1;
    }
    cluster_view(eng, pl, pl->v, k, keep);
    size_t out = 0;
    for (size_t i = 0; i < k; i++)
        if (keep[i])
            pl->v[out++] = pre->cand[pl->v[i]].job;
    pl->n = out;
    gs_free(keep);
    return 1;
}

/* --- a fractional waiter: free enough of one GPU ---------------------- */

struct gpu_pick {
    int found, node, gpu;
    int64_t cost;
    int nvict;
    int ent[MAX_GPU_ITEMS];       /* entries (ent_sorted) of the victims */
};

/* Cheapest users of GPU `g` of node `n` to stop so that `req` fits there. */
static void search_gpu(struct gs_engine *eng, const struct gs_request *req, int n, int g,
                       struct gpu_pick *best)
{
    struct gs_preempt *pre = eng->pre;
    int64_t cap = gs_cluster_gpu_type_mem(eng->cl, gs_cluster_node_gpu_type(eng->cl, n));
    int64_t need = req->mem_mib >= 0 ? req->mem_mib : cap * req->milli / GS_MILLI_GPU;
    int used = gs_cluster_gpu_used_milli(eng->cl, n, g);
    int64_t umem = gs_cluster_gpu_used_mem(eng->cl, n, g);
    int e[MAX_GPU_ITEMS], ne = 0;
    for (int i = pre->node_first[n]; i < pre->node_first[n + 1] && ne < MAX_GPU_ITEMS; i++)
        if (pre->ent_sorted[i].mask & (1ULL << g))
            e[ne++] = i;
    for (uint32_t s = 1; s < (1u << ne); s++) {
        int64_t cost = 0, fmem = 0;
        int fm = 0, cnt = 0;
        for (int k = 0; k < ne; k++) {
            if (!(s & (1u << k)))
                continue;
            const struct cand *c = &pre->cand[pre->ent_sorted[e[k]].cand];
            cost = add_sat(cost, c->cost);
            fm += eng->jobs[c->job].milli;
            fmem += eng->jobs[c->job].alloc_mem;
            cnt++;
        }
        if (used - fm > GS_MILLI_GPU - req->milli || umem - fmem > cap - need)
            continue;
        if (best->found && (cost > best->cost || (cost == best->cost && cnt >= best->nvict)))
            continue;
        *best = (struct gpu_pick){ 1, n, g, cost, 0, { 0 } };
        for (int k = 0; k < ne; k++)
            if (s & (1u << k))
                best->ent[best->nvict++] = e[k];
    }
}

/* Leaves the victims in pl->v and the start view (that one GPU) in
 * pl->view; returns 1 when found, else 0. */
static int search_shared(struct gs_engine *eng, struct vplan *pl, const struct gs_request *req)
{
    struct gs_preempt *pre = eng->pre;
    int nn = gs_cluster_node_count(eng->cl), has_res = gs_profile_reservations(eng->profile);
    struct gpu_pick best = { 0 };
    for (int n = 0; n < nn; n++) {
        if (pre->node_first[n] == pre->node_first[n + 1] || !node_ok(eng, req, n))
            continue;
        uint64_t reserved = has_res ? gs_profile_reserved_mask(eng->profile, n) : 0;
        for (int g = 0; g < gs_cluster_node_gpus(eng->cl, n); g++)
            if (!(reserved & (1ULL << g)))
                search_gpu(eng, req, n, g, &best);
    }
    if (!best.found)
        return 0;
    memset(pl->view, 0, (size_t)nn * sizeof *pl->view);
    pl->view[best.node] = 1ULL << best.gpu;
    pl->n = 0;
    for (int k = 0; k < best.nvict; k++)
        pl->v[pl->n++] = pre->cand[pre->ent_sorted[best.ent[k]].cand].job;
    return 1;
}

/* --- choosing and executing ------------------------------------------- */

/* Victims (job handles) and the start view of a unit-scope result, into
 * `pl`. */
static void unit_victims(struct gs_engine *eng, struct vplan *pl, const struct best *b)
{
    struct gs_preempt *pre = eng->pre;
    int nn = gs_cluster_node_count(eng->cl), n = b->node;
    uint64_t freed = 0;
    pl->n = 0;
    for (int k = 0; k < b->nset; k++) {
        const struct item *it = &b->set[k];
        freed |= it->mask;
        if (it->first >= 0) {
            pl->v[pl->n++] = pre->cand[pre->ent_sorted[it->first].cand].job;
            continue;
        }
        for (int e = pre->node_first[n]; e < pre->node_first[n + 1]; e++) {
            int v = pre->cand[pre->ent_sorted[e].cand].job;
            if (pre->ent_sorted[e].mask == it->mask && eng->jobs[v].milli < GS_MILLI_GPU)
                pl->v[pl->n++] = v;
        }
    }
    uint64_t reserved = gs_profile_reservations(eng->profile) > 0
                            ? gs_profile_reserved_mask(eng->profile, n)
                            : 0;
    memset(pl->view, 0, (size_t)nn * sizeof *pl->view);
    pl->view[n] = ((gs_cluster_idle_mask(eng->cl, n) & ~reserved) | freed) & b->scope;
}

static int pick_rule(const struct gs_engine *eng, const struct gs_request *req)
{
    int t = gs_place_topology(eng->cl, req);
    int maxnode = gs_cluster_max_node_gpus(eng->cl);
    if (t == GS_TOPO_DOMAIN && req->gpus <= gs_cluster_max_domain(eng->cl))
        return RULE_DOMAIN;
    if (t == GS_TOPO_NODE && req->gpus <= maxnode)
        return RULE_NODE;
    if (t == GS_TOPO_AUTO && req->gpus <= maxnode)
        return RULE_WHOLE;
    return RULE_CLUSTER;
}

static int has_hold(const struct gs_preempt *pre, int job)
{
    for (size_t i = 0; i < pre->nholds; i++)
        if (pre->holds[i].waiter == job)
            return 1;
    return 0;
}

/* Stop (or drain) the victims of plan `pl` and start `w`, or hold GPUs for
 * it while victims checkpoint.  Returns 0 (started), 1 (waiting for
 * drains), GS_ENOSPC (the plan does not place: nothing changed) or
 * GS_ENOMEM. */
static int execute(struct gs_engine *eng, struct vplan *pl, int w, gs_time now,
                   const struct gs_request *req, int drain)
{
    size_t n = pl->n, ndrain = 0;
    if (n == 0 || !place_view(eng, pl, req))
        return GS_ENOSPC;
    for (size_t i = 0; drain && i < n; i++) {
        struct cand c;
        cost_of(eng, pl->v[i], now, 1, &c);
        ndrain += c.save_at != GS_TIME_NONE;
    }
    if (gs_eng_drain_requeue_reserve(eng, n) < 0 || gs_eng_drain_reserve(eng, ndrain) < 0 ||
        gs_eng_reserve_pools(eng, gs_cluster_node_count(eng->cl)) < 0)
        return GS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        eng->pre->pre_by[pl->v[i]] = eng->jobs[w].handle + 1; /* blocked_pair */
        struct cand c = { 0 };
        if (ndrain)
            cost_of(eng, pl->v[i], now, 1, &c);
        if (ndrain && c.save_at != GS_TIME_NONE)
            gs_eng_drain_start(eng, pl->v[i], w, now);
        else
            gs_eng_drain_requeue(eng, pl->v[i], now);
    }
    if (ndrain) {
        gs_eng_drain_hold_start(eng, w, pl->node, pl->view[pl->node]);
        return 1;
    }
    int rc = gs_eng_try_start(eng, w, now, pl->view, 0, pl->a);
    return rc == GS_ENOSPC ? 1 : rc; /* GPUs changed hands either way */
}

static int find_victims(struct gs_engine *eng, struct vplan *pl, const struct gs_request *req,
                        int rule, int ncand)
{
    if (req->milli < GS_MILLI_GPU)
        return search_shared(eng, pl, req);
    if (rule == RULE_CLUSTER)
        return search_cluster(eng, pl, req, ncand);
    struct best b;
    b.found = 0;
    int rc = search_nodes(eng, req, rule, &b);
    if (rc < 0 || !b.found)
        return rc < 0 ? rc : 0;
    unit_victims(eng, pl, &b);
    pl->node = b.node;
    return 1;
}

/* Choose victims for `job` at `now` without changing anything: 1 with the
 * victims, the start view and the unit's node (-1 for the cluster-wide
 * case) in `pl`, 0 when preemption cannot help, GS_ENOMEM.  `pl` is
 * pointed at the preemption state's storage here. */
static int plan(struct gs_engine *eng, struct vplan *pl, int job, gs_time now,
                const struct gs_request *req, int drain)
{
    struct gs_preempt *pre = eng->pre;
    int rule = pick_rule(eng, req);
    int nc = build_cands(eng, job, now, drain);
    if (nc <= 0)
        return nc;
    if (gs_grow((void **)&pre->vic_buf, &pre->vic_cap, eng->nrunning + 1,
                sizeof *pre->vic_buf) ||
        group_by_node(eng, nc) < 0)
        return GS_ENOMEM;
    *pl = (struct vplan){ pre->vic_buf, 0, pre->view_buf, &pre->alloc_buf, -1 };
    return find_victims(eng, pl, req, rule, nc);
}

static int may_try(const struct gs_engine *eng, int job)
{
    const struct gs_preempt *pre = eng->pre;
    return pre && pre->active && eng->jobs[job].gpus > 0 && eng->nrunning > 0 &&
           gs_eng_may_preempt(eng) && !has_hold(pre, job);
}

int gs_eng_preempt_plan(struct gs_engine *eng, int job, gs_time now, const int **victims)
{
    if (!may_try(eng, job))
        return 0;
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    int drain = pick_rule(eng, &req) != RULE_CLUSTER && req.milli == GS_MILLI_GPU;
    struct vplan pl;
    int found = plan(eng, &pl, job, now, &req, drain);
    if (found <= 0)
        return found;
    *victims = pl.v;
    return (int)pl.n;
}

int64_t gs_eng_preempt_victim_cost(const struct gs_engine *eng, int job, gs_time now)
{
    struct cand c;
    cost_of(eng, job, now, 0, &c);
    return c.cost;
}

void gs_eng_preempt_note(struct gs_engine *eng, int job, gs_time now)
{
    if (eng->pre && eng->pre->active && eng->jobs[job].gpus > 0)
        (void)build_cands(eng, job, now, 0); /* notes young_wake; out of memory: none */
}

int gs_eng_preempt_try(struct gs_engine *eng, int job, gs_time now)
{
    if (!may_try(eng, job))
        return GS_ENOSPC;
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    int drain = pick_rule(eng, &req) != RULE_CLUSTER && req.milli == GS_MILLI_GPU;
    struct vplan pl;
    int found = plan(eng, &pl, job, now, &req, drain);
    if (found <= 0)
        return found < 0 ? found : GS_ENOSPC;
    return execute(eng, &pl, job, now, &req, drain);
}

/* hooks.grow: the pre_by table follows the job table. */
static int victim_grow(struct gs_engine *eng, size_t cap)
{
    struct gs_preempt *pre = eng->pre;
    return gs_eng_slot_table_grow((void **)&pre->pre_by, &pre->pre_by_cap, cap,
                                  sizeof *pre->pre_by);
}

/* GS_HOOK_ADDED: a new job in the slot was preempted by no one. */
static void victim_added(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    eng->pre->pre_by[job] = 0;
}

void gs_eng_preempt_victim_hooks(struct gs_eng_hooks *h)
{
    gs_eng_hook_add(h, GS_HOOK_ADDED, victim_added);
    gs_eng_hook_grow_add(h, victim_grow);
}

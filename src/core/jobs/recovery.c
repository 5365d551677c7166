/* recovery.c - retry.hold (docs/failures.md, "Recovery policies"): when a
 * node failure ends a run under expedited requeue, the GPUs the job used
 * on its other nodes are held for it, as Slurm 25.11's expedited requeue
 * holds the surviving nodes, for at most retry.hold.
 *
 * A hold is taken from the cluster in the engine's name (as nodes.c takes
 * GPUs out of service): a whole-GPU allocation no job owns, so no other
 * job's placement, backfill view, reservation or preemption plan is
 * offered it, and the availability profile plans it busy until the bound.
 * To the held job alone the GPUs count as free: gs_eng_try_start gives
 * them back to the cluster for the one placement and takes them again
 * when it does not fit.  The hold ends when the job starts (on whatever
 * GPUs the placement chose, the held ones being free to it), when the
 * bound passes (the step at that instant frees them before its pass), when
 * the job is cancelled, and for the GPUs that leave service (drain, down).
 * Each held GPU-ms is the job's held_gpu_ms: what the hold cost the others.
 *
 * Only runs of whole GPUs are held (a shared or MIG run is not); a run
 * ended by gs_engine_run_lost is not a node failure and holds nothing.
 */
#include "core/jobs/jobs.h"
#include "core/base/alloc.h"

#include <string.h>

struct rhold {
    int job;                    /* slot; its job is pending with rheld set */
    gs_time from, until;        /* taken at, held until (the bound) */
    struct gs_alloc_part *parts; /* owned: the held GPUs, one part a node */
    int nparts;
};

struct gs_eng_rholds {
    struct rhold *h;
    size_t n, cap;
    uint64_t *view;             /* per node: a view with the held GPUs in it */
    struct gs_alloc_part one;   /* scratch of one-part allocations */
};

int gs_eng_rhold_init(struct gs_engine *eng)
{
    if (eng->pol.retry_hold <= 0 || !eng->pol.retry_expedite)
        return 0;
    int n = gs_cluster_node_count(eng->cl);
    eng->rholds = gs_calloc(1, sizeof *eng->rholds);
    if (eng->rholds)
        eng->rholds->view = gs_calloc((size_t)(n > 0 ? n : 1), sizeof *eng->rholds->view);
    if (!eng->rholds || !eng->rholds->view) {
        gs_eng_rhold_fini(eng->rholds);
        eng->rholds = NULL;
        return GS_ENOMEM;
    }
    return 0;
}

void gs_eng_rhold_fini(struct gs_eng_rholds *rh)
{
    if (!rh)
        return;
    for (size_t i = 0; i < rh->n; i++)
        gs_free(rh->h[i].parts);
    gs_free(rh->h);
    gs_free(rh->view);
    gs_free(rh);
}

static struct gs_alloc whole(struct gs_alloc_part *parts, int n)
{
    struct gs_alloc a;
    memset(&a, 0, sizeof a);
    a.nparts = a.cap = n;
    a.parts = parts;
    a.milli = GS_MILLI_GPU;
    return a;
}

static struct rhold *find(const struct gs_engine *eng, int job)
{
    struct gs_eng_rholds *rh = eng->rholds;
    for (size_t i = 0; rh && i < rh->n; i++)
        if (rh->h[i].job == job)
            return &rh->h[i];
    return NULL;
}

/* Give `mask` of part `p` back: to the cluster and, with `plan`, the
 * profile; the job is charged for the time it was held. */
static void give_back(struct gs_engine *eng, struct rhold *h, struct gs_alloc_part *p,
                      uint64_t mask, gs_time now, int plan)
{
    if (!mask)
        return;
    struct gs_eng_rholds *rh = eng->rholds;
    rh->one.node = p->node;
    rh->one.mask = mask;
    struct gs_alloc a = whole(&rh->one, 1);
    gs_cluster_release(eng->cl, &a, NULL);
    if (plan)
        gs_profile_vacate(eng->profile, eng->cl, &a);
    eng->jobs[h->job].held_gpu_ms += (int64_t)__builtin_popcountll(mask) * (now - h->from);
    p->mask &= ~mask;
    eng->releases++; /* GPUs changed hands: a blocked pass looks again */
    eng->pass_blocked = 0;
}

static void drop(struct gs_engine *eng, struct rhold *h, gs_time now)
{
    struct gs_eng_rholds *rh = eng->rholds;
    for (int i = 0; i < h->nparts; i++)
        give_back(eng, h, &h->parts[i], h->parts[i].mask, now, 1);
    eng->jobs[h->job].rheld = 0;
    gs_free(h->parts);
    *h = rh->h[--rh->n];
}

/* The GPUs of `job`'s last run that survive the failure of `down` on
 * `node`: in service and idle now.  Into `out` (room for its parts);
 * returns the parts kept. */
static int survivors(const struct gs_engine *eng, const struct job *j, int node, uint64_t down,
                     struct gs_alloc_part *out)
{
    struct gs_alloc a;
    gs_eng_job_alloc(eng, j, &a);
    int n = 0;
    for (int i = 0; i < a.nparts; i++) {
        int nd = a.parts[i].node;
        uint64_t m = a.parts[i].mask & gs_cluster_idle_mask(eng->cl, nd);
        if (nd == node)
            m &= ~down;
        if (gs_engine_node_state(eng, nd) != GS_NODE_UP)
            m = 0;
        for (uint64_t b = m; b; b &= b - 1)
            if (gs_engine_gpu_state(eng, nd, __builtin_ctzll(b)) != GS_NODE_UP)
                m &= ~(b & -b);
        if (m)
            out[n++] = (struct gs_alloc_part){ .node = nd, .mask = m };
    }
    return n;
}

int gs_eng_rhold_begin(struct gs_engine *eng, int job, gs_time now, int node, uint64_t down)
{
    struct gs_eng_rholds *rh = eng->rholds;
    struct job *j = &eng->jobs[job];
    if (!rh || j->state != GS_JOB_PENDING || j->rheld || j->alloc_milli != GS_MILLI_GPU ||
        j->mig_slot || j->nparts == 0)
        return 0;
    struct gs_alloc_part *parts = gs_malloc((size_t)j->nparts * sizeof *parts);
    if (!parts || gs_grow((void **)&rh->h, &rh->cap, rh->n + 1, sizeof *rh->h)) {
        gs_free(parts);
        return GS_ENOMEM;
    }
    int n = survivors(eng, j, node, down, parts);
    if (n == 0) {
        gs_free(parts);
        return 0;
    }
    struct gs_alloc a = whole(parts, n);
    if (gs_cluster_alloc(eng->cl, &a, NULL) < 0) { /* idle a moment ago: cannot fail */
        gs_free(parts);
        return 0;
    }
    gs_time until = gs_time_add(now, eng->pol.retry_hold);
    gs_profile_occupy(eng->profile, &a, until);
    rh->h[rh->n++] = (struct rhold){ job, now, until, parts, n };
    j->rheld = 1;
    eng->releases++;
    eng->pass_blocked = 0;
    return 0;
}

/* Take the hold's GPUs (given to the cluster for a placement) again. */
static void retake(struct gs_engine *eng, const struct rhold *h, int plan)
{
    struct gs_alloc a = whole(h->parts, h->nparts);
    int rc = gs_cluster_alloc(eng->cl, &a, NULL);
    (void)rc; /* nothing took them meanwhile */
    if (plan)
        gs_profile_occupy(eng->profile, &a, h->until);
}

int gs_eng_rhold_try_start(struct gs_engine *eng, int job, gs_time now, const uint64_t *view,
                           int backfilled, struct gs_alloc *a)
{
    struct rhold *h = find(eng, job);
    struct gs_eng_rholds *rh = eng->rholds;
    struct gs_request req; /* before the release: a held node is no hot spare */
    gs_eng_request(eng, job, &req);
    struct gs_alloc held = whole(h->parts, h->nparts);
    gs_cluster_release(eng->cl, &held, NULL);
    const uint64_t *v = view;
    if (view) {
        memcpy(rh->view, view, (size_t)gs_cluster_node_count(eng->cl) * sizeof *rh->view);
        for (int i = 0; i < h->nparts; i++)
            rh->view[h->parts[i].node] |= h->parts[i].mask;
        v = rh->view;
    }
    int rc = gs_place(eng->cl, v, &req, eng->pol.strategy, a, NULL);
    if (rc < 0) {
        retake(eng, h, 0);
        return rc;
    }
    gs_profile_vacate(eng->profile, eng->cl, &held);
    rc = gs_eng_start_placed(eng, job, now, backfilled, a);
    if (rc < 0) {
        retake(eng, h, 1);
        return rc;
    }
    /* started: the hold ends (its GPUs are the cluster's or the job's now) */
    int64_t g = 0;
    for (int i = 0; i < h->nparts; i++)
        g += __builtin_popcountll(h->parts[i].mask);
    eng->jobs[job].held_gpu_ms += g * (now - h->from);
    eng->jobs[job].rheld = 0;
    gs_free(h->parts);
    *h = rh->h[--rh->n];
    return 0;
}

void gs_eng_rhold_expire(struct gs_engine *eng, gs_time now, int job)
{
    struct gs_eng_rholds *rh = eng->rholds;
    for (size_t i = rh ? rh->n : 0; i-- > 0;) /* downward: drop moves the last into i */
        if (i < rh->n && (rh->h[i].until <= now || rh->h[i].job == job))
            drop(eng, &rh->h[i], now);
}

void gs_eng_rhold_node(struct gs_engine *eng, gs_time now, int node, uint64_t mask)
{
    struct gs_eng_rholds *rh = eng->rholds;
    for (size_t i = rh ? rh->n : 0; i-- > 0;) {
        if (i >= rh->n)
            continue;
        struct rhold *h = &rh->h[i];
        int left = 0;
        for (int k = 0; k < h->nparts; k++) {
            if (h->parts[k].node == node)
                give_back(eng, h, &h->parts[k], h->parts[k].mask & mask, now, 1);
            if (h->parts[k].mask) /* keep only parts with GPUs left */
                h->parts[left++] = h->parts[k];
        }
        h->nparts = left;
        if (!left)
            drop(eng, h, now);
    }
}

gs_time gs_eng_rhold_next(const struct gs_engine *eng)
{
    const struct gs_eng_rholds *rh = eng->rholds;
    gs_time t = GS_TIME_INF;
    for (size_t i = 0; rh && i < rh->n; i++)
        if (rh->h[i].until < t)
            t = rh->h[i].until;
    return t;
}

uint64_t gs_eng_rhold_mask(const struct gs_engine *eng, int node)
{
    const struct gs_eng_rholds *rh = eng->rholds;
    uint64_t m = 0;
    for (size_t i = 0; rh && i < rh->n; i++)
        for (int k = 0; k < rh->h[i].nparts; k++)
            if (rh->h[i].parts[k].node == node)
                m |= rh->h[i].parts[k].mask;
    return m;
}

int gs_eng_rhold_check(const struct gs_engine *eng, struct gs_error *err)
{
    const struct gs_eng_rholds *rh = eng->rholds;
    size_t marked = 0;
    for (size_t i = 0; i < eng->njobs; i++)
        marked += eng->jobs[i].rheld != 0;
    if (marked != (rh ? rh->n : 0))
        return gs_errorf(err, GS_ESTATE, "%zu jobs marked held, %zu holds", marked,
                         rh ? rh->n : 0);
    for (size_t i = 0; rh && i < rh->n; i++) {
        const struct job *j = &eng->jobs[rh->h[i].job];
        if (!j->rheld || j->state != GS_JOB_PENDING)
            return gs_errorf(err, GS_ESTATE, "GPUs held for job %s, which is not pending",
                             gs_strtab_name(eng->ids, rh->h[i].job));
        for (int k = 0; k < rh->h[i].nparts; k++)
            if (rh->h[i].parts[k].mask & gs_eng_nodes_out(eng, rh->h[i].parts[k].node))
                return gs_errorf(err, GS_ESTATE, "GPUs held for job %s are out of service",
                                 gs_strtab_name(eng->ids, rh->h[i].job));
    }
    return 0;
}

/* diagnose_why.c - gs_engine_explain: every code that holds for a pending
 * job, the numbers behind each, what would unblock it, and an estimated
 * start with its basis.
 *
 * The estimate comes from the availability profile (profile.c): the job's
 * earliest start if running jobs end by their duration estimates and the
 * reservations the last pass made for jobs ahead are honoured.  A job that
 * holds a reservation starts at its reservation.  A job behind a blocked
 * head without backfill starts no earlier than that head; one held by its
 * quota no earlier than its team's running jobs free enough of the quota.
 */
#include "core/diagnose/diagnose_private.h"
#include "core/queue/queue_private.h"

#include <string.h>

static int popc(uint64_t x)
{
    return __builtin_popcountll(x);
}

static void request_fields(const struct gs_engine *eng, const struct gs_request *req,
                           struct gs_diag *d)
{
    d->gpus = req->gpus;
    d->milli = req->milli;
    d->mem_mib = req->mem_mib > 0 ? req->mem_mib : 0;
    d->rule = req->gpus > 0 ? gs_place_topology(eng->cl, req) : GS_TOPO_ANY;
    d->partitioned = req->nodes_allowed != NULL;
}

/* Resource figures and the resource code (NONE when it fits now). */
static int resources(struct gs_engine *eng, const struct gs_request *req, struct gs_diag *d)
{
    struct gs_diag_state *ds = eng->diag;
    struct gs_cluster_stats st = gs_cluster_stats(eng->cl);
    d->cluster_free_gpus = st.idle_gpus;
    if (req->gpus == 0)
        return GS_REASON_SHORTAGE;
    struct diag_figs f, any;
    gs_diag_gather(eng->cl, req, 1, 1, &f);
    gs_diag_gather(eng->cl, req, 1, 0, &any);
    d->free_gpus = f.free;
    d->best_node = f.best_node;
    d->best_node_free = f.best_node_free;
    if (f.best_node >= 0) {
        uint64_t idle = gs_cluster_idle_mask(eng->cl, f.best_node);
        d->best_node_ndom = gs_cluster_node_domains(eng->cl, f.best_node);
        for (int i = 0; i < d->best_node_ndom; i++)
            d->best_node_dom_free[i] =
                popc(idle & gs_cluster_domain_mask(eng->cl, f.best_node, i));
    }
    d->best_dom_node = f.best_dom_node;
    d->best_dom_free = f.best_dom_free;
    d->whole_nodes_free = f.whole_nodes;
    d->whole_nodes_gpus = f.whole_gpus;
    d->rest_free = f.rest_max;
    if (req->milli < GS_MILLI_GPU)
        return gs_diag_shared(eng->cl, req, 1, d);
    d->mem_any_gpus = any.free;
    d->mem_ok_gpus = f.free;
    if (f.free < req->gpus && any.free >= req->gpus)
        return GS_REASON_MEMORY_FRAG;
    return gs_diag_decide(eng->cl, req, &f, &ds->scratch);
}

/* Idle GPUs outside the partition, and whether the job fits ignoring it. */
static int partition_figures(struct gs_engine *eng, const struct gs_request *req,
                             struct gs_diag *d)
{
    struct gs_request all = *req;
    all.nodes_allowed = NULL;
    struct diag_figs f;
    gs_diag_gather(eng->cl, &all, 0, 1, &f);
    d->outside_free_gpus = f.free - d->free_gpus;
    if (req->gpus == 0)
        return 0;
    if (req->milli < GS_MILLI_GPU)
        return gs_diag_shared(eng->cl, &all, 0, NULL) == GS_REASON_NONE;
    return gs_diag_decide(eng->cl, &all, &f, &eng->diag->scratch) == GS_REASON_NONE;
}

/* Whether pending slot `a` is ahead of `b` in the queue pass's order (the
 * order's own rule, queue_private.h). */
static int ahead_of(const struct gs_engine *eng, int a, int b, gs_time now)
{
    return gs_queue_ahead(eng, &eng->jobs[a], &eng->jobs[b], now);
}

static void priority_figures(const struct gs_engine *eng, int job, struct gs_diag *d)
{
    d->blocker = -1;
    for (size_t i = eng->phead; i < eng->ptail; i++) {
        int o = gs_eng_queued(eng, i);
        if (o < 0)
            continue;
        const struct job *oj = &eng->jobs[o];
        if (o == job || !ahead_of(eng, o, job, eng->now))
            continue;
        d->ahead_jobs++;
        d->ahead_gpus += oj->gpus;
        if (gs_queue_job(eng, o)->reason == GS_WAIT_RESOURCES &&
            (d->blocker < 0 || ahead_of(eng, o, d->blocker, eng->now)))
            d->blocker = o;
    }
}

static void quota_figures(const struct gs_engine *eng, int job, struct gs_diag *d)
{
    const struct job *j = &eng->jobs[job];
    d->quota_gpus = eng->team_quota[j->team];
    d->team_used_gpus = (double)eng->team_milli[j->team] / GS_MILLI_GPU;
}

/* The reservation notes of the last pass (they name handles), or NULL. */
static const struct res_note *note_of(const struct gs_engine *eng, int job)
{
    const struct gs_diag_state *ds = eng->diag;
    if (ds->notes_stamp != ds->stamp)
        return NULL;
    for (int i = 0; i < ds->nnotes; i++)
        if (ds->notes[i].job == gs_eng_handle(eng, job))
            return &ds->notes[i];
    return NULL;
}

/* Reserved idle GPUs, the earliest reservation holder, and whether the
 * job fits the idle GPUs that no reservation overlapping its run holds. */
static int reservation_figures(struct gs_engine *eng, const struct gs_request *req,
                               gs_time dur, struct gs_diag *d)
{
    struct gs_diag_state *ds = eng->diag;
    d->holder = -1;
    d->holder_start = GS_TIME_NONE;
    for (int n = 0; n < gs_cluster_node_count(eng->cl); n++)
        d->reserved_idle_gpus +=
            popc(gs_cluster_idle_mask(eng->cl, n) & gs_profile_reserved_mask(eng->profile, n));
    if (ds->notes_stamp == ds->stamp) {
        for (int i = 0; i < ds->nnotes; i++) {
            if (d->holder < 0 || ds->notes[i].start < d->holder_start) {
                d->holder = ds->notes[i].job;
                d->holder_start = ds->notes[i].start;
            }
        }
    }
    if (d->reserved_idle_gpus == 0 || req->gpus == 0)
        return 1;
    gs_profile_view_now(eng->profile, eng->cl, eng->now, dur, ds->view);
    return gs_place(eng->cl, ds->view, req, eng->pol.strategy, &ds->scratch, NULL) == 0;
}

/* Dominant code: the first gate of the queue pass that holds. */
static int dominant(int reason, const struct gs_diag *d, int res)
{
    if (d->codes & (1u << GS_REASON_QUOTA))
        return GS_REASON_QUOTA;
    if (reason == GS_WAIT_PARTITION)
        return GS_REASON_PARTITION;
    if (reason == GS_WAIT_PRIORITY || reason == GS_WAIT_NONE)
        return GS_REASON_PRIORITY;
    if (res != GS_REASON_NONE)
        return res;
    if (d->codes & (1u << GS_REASON_RESERVATION))
        return GS_REASON_RESERVATION;
    return GS_REASON_NONE;
}


/* Earliest start of `job` by the profile; GS_TIME_INF when it cannot be
 * planned.  Returns 0 or GS_ENOMEM. */
static int earliest(struct gs_engine *eng, int job, gs_time *out)
{
    const struct res_note *nt = note_of(eng, job);
    *out = GS_TIME_INF;
    if (nt) {
        *out = nt->start;
        return 0;
    }
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    if (req.gpus == 0)
        return 0;
    gs_time dur = gs_eng_estimate(eng, job), t;
    int rc = gs_profile_earliest(eng->profile, eng->cl, eng->now, &req, eng->pol.strategy,
                                 dur == GS_TIME_NONE ? GS_TIME_INF : dur, &t,
                                 &eng->diag->scratch);
    if (rc == GS_ENOMEM)
        return rc;
    if (rc == 0)
        *out = t;
    return 0;
}

/* When the team's running jobs, ending by their estimates, free enough of
 * its quota for `job`; GS_TIME_INF when some end is unknown. */
static gs_time quota_time(const struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    int64_t over = eng->team_milli[j->team] + (int64_t)j->gpus * j->milli -
                   (int64_t)eng->team_quota[j->team] * GS_MILLI_GPU;
    if (eng->team_quota[j->team] < 0 || over <= 0)
        return eng->now;
    gs_time best = GS_TIME_INF;
    for (size_t a = 0; a < eng->nrunning; a++) {
        const struct job *r = &eng->jobs[eng->running[a]];
        if (r->team != j->team || r->estimate == GS_TIME_NONE)
            continue;
        gs_time t = gs_time_add(r->start, r->estimate), freed = 0;
        t = t > eng->now ? t : eng->now + 1;
        if (t >= best)
            continue;
        for (size_t b = 0; b < eng->nrunning; b++) {
            const struct job *q = &eng->jobs[eng->running[b]];
            if (q->team == j->team && q->estimate != GS_TIME_NONE &&
                gs_time_add(q->start, q->estimate) <= t)
                freed += (gs_time)q->gpus * q->milli;
        }
        if (freed >= over)
            best = t;
    }
    return best;
}

static int estimate(struct gs_engine *eng, int job, struct gs_diag *d)
{
    d->est_start = GS_TIME_NONE;
    d->est_basis = GS_BASIS_UNKNOWN;
    if (d->reason == GS_REASON_NONE) {
        d->est_start = eng->now;
        d->est_basis = GS_BASIS_NOW;
        return 0;
    }
    gs_time t, tb;
    int basis = note_of(eng, job) ? GS_BASIS_RESERVATION : GS_BASIS_PROFILE;
    if (earliest(eng, job, &t) < 0)
        return GS_ENOMEM;
    if (d->reason == GS_REASON_PRIORITY && d->blocker >= 0) {
        /* not before the blocked job ahead of it starts */
        if (earliest(eng, d->blocker, &tb) < 0)
            return GS_ENOMEM;
        t = tb > t ? tb : t;
    }
    if (d->codes & (1u << GS_REASON_QUOTA)) {
        gs_time tq = quota_time(eng, job);
        if (tq != GS_TIME_INF && tq > t && t != GS_TIME_INF)
            basis = GS_BASIS_QUOTA;
        t = tq > t ? tq : t;
    }
    if (t != GS_TIME_INF) {
        d->est_start = t;
        d->est_basis = basis;
    }
    return 0;
}

/* Busy GPUs to free on the best node for whole idle domains covering the
 * job (the multi-domain rule): the domains with most idle GPUs first. */
static int64_t whole_domain_gap(const struct gs_engine *eng, const struct gs_diag *d)
{
    int used[GS_MAX_NODE_DOMAINS] = { 0 }, covered = 0;
    int64_t gap = 0;
    while (covered < d->gpus) {
        int best = -1;
        for (int i = 0; i < d->best_node_ndom; i++)
            if (!used[i] && (best < 0 || d->best_node_dom_free[i] > d->best_node_dom_free[best]))
                best = i;
        if (best < 0)
            break;
        used[best] = 1;
        int size = popc(gs_cluster_domain_mask(eng->cl, d->best_node, best));
        covered += size;
        gap += size - d->best_node_dom_free[best];
    }
    return gap;
}

/* Multi-node rule: GPUs to free so that whole idle nodes cover the job,
 * taking the nodes with the most idle GPUs first (nodes of the size of the
 * largest node; at most 256 of them are considered). */
static int64_t multi_gap(const struct gs_engine *eng, const struct gs_diag *d)
{
    enum { TOP = 256 };
    int top[TOP], ntop = 0, size = gs_cluster_max_node_gpus(eng->cl);
    int need = (d->gpus + size - 1) / size;
    need = need > TOP ? TOP : need;
    for (int n = 0; n < gs_cluster_node_count(eng->cl); n++) {
        if (gs_cluster_node_gpus(eng->cl, n) != size)
            continue;
        int idle = popc(gs_cluster_idle_mask(eng->cl, n)), i = ntop < need ? ntop++ : need;
        while (i > 0 && top[i - 1] < idle) {
            if (i < need)
                top[i] = top[i - 1];
            i--;
        }
        if (i < need)
            top[i] = idle;
    }
    int64_t gap = 0;
    for (int i = 0; i < ntop; i++)
        gap += size - top[i];
    return gap;
}

static void unblock(const struct gs_engine *eng, struct gs_diag *d)
{
    int multi = d->gpus > gs_cluster_max_node_gpus(eng->cl);
    switch (d->reason) {
    case GS_REASON_SHORTAGE:
        d->unblock_gpus = d->gpus - d->free_gpus;
        break;
    case GS_REASON_COUNT_FRAG:
        d->unblock_gpus = multi ? multi_gap(eng, d) : d->gpus - d->best_node_free;
        d->unblock_node = multi ? -1 : d->best_node;
        break;
    case GS_REASON_TOPOLOGY_FRAG:
        if (d->rule == GS_TOPO_DOMAIN) {
            d->unblock_gpus = d->gpus - d->best_dom_free;
            d->unblock_node = d->best_dom_node;
        } else if (!multi && d->best_node >= 0) {
            d->unblock_gpus = whole_domain_gap(eng, d);
            d->unblock_node = d->best_node;
        }
        break;
    case GS_REASON_MEMORY_FRAG:
        d->unblock_gpus = d->milli < GS_MILLI_GPU ? 1 : d->gpus - d->mem_ok_gpus;
        break;
    case GS_REASON_PRIORITY:
        d->unblock_gpus = d->ahead_gpus;
        break;
    case GS_REASON_QUOTA: { /* the team must release what exceeds its quota */
        double over = d->team_used_gpus + d->gpus * (d->milli / (double)GS_MILLI_GPU) -
                      d->quota_gpus;
        d->unblock_gpus = (int64_t)over + ((double)(int64_t)over < over);
        break;
    }
    default:
        break;
    }
    if (d->unblock_gpus < 0)
        d->unblock_gpus = 0;
}

/* gs_engine_explain of slot `job`. */
static int explain_slot(struct gs_engine *eng, int job, struct gs_diag *d)
{
    int8_t reason = gs_queue_job(eng, job)->reason; /* the last pass's (queue.c) */
    memset(d, 0, sizeof *d);
    d->job = gs_eng_handle(eng, job);
    d->best_node = d->best_dom_node = d->unblock_node = -1;
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    request_fields(eng, &req, d);
    gs_time dur = gs_eng_estimate(eng, job);
    d->est_duration = dur;
    int res = resources(eng, &req, d);
    if (res != GS_REASON_NONE)
        d->codes |= 1u << res;
    if (req.nodes_allowed && res != GS_REASON_NONE && partition_figures(eng, &req, d))
        res = GS_REASON_PARTITION;
    if (res == GS_REASON_PARTITION || reason == GS_WAIT_PARTITION)
        d->codes |= 1u << GS_REASON_PARTITION;
    quota_figures(eng, job, d);
    if (!gs_queue_quota_ok(eng, job))
        d->codes |= 1u << GS_REASON_QUOTA;
    priority_figures(eng, job, d);
    if (reason == GS_WAIT_PRIORITY || reason == GS_WAIT_NONE)
        d->codes |= 1u << GS_REASON_PRIORITY;
    if (!reservation_figures(eng, &req, dur == GS_TIME_NONE ? GS_TIME_INF : dur, d) &&
        res == GS_REASON_NONE)
        d->codes |= 1u << GS_REASON_RESERVATION;
    d->reason = dominant(reason, d, res);
    unblock(eng, d);
    int rc = estimate(eng, job, d);
    if (d->blocker >= 0)
        d->blocker = gs_eng_handle(eng, d->blocker); /* a slot until here */
    return rc;
}

int gs_engine_explain(struct gs_engine *eng, int handle, struct gs_diag *d)
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return GS_ENOENT;
    if (eng->jobs[job].state != GS_JOB_PENDING)
        return GS_ESTATE;
    return explain_slot(eng, job, d);
}

int gs_engine_probe(struct gs_engine *eng, const struct gs_job_spec *spec, struct gs_diag *d,
                    const struct gs_alloc **alloc, struct gs_error *err)
{
    *alloc = NULL;
    int rc = gs_engine_possible(eng, spec, err);
    if (rc <= 0)
        return rc;
    struct job tmp;
    if (gs_eng_probe_fill(eng, spec, &tmp) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int job = (int)eng->njobs; /* past every slot: no job, index or table sees it */
    /* no pass has tried it: the resources decide, unless a job ranked
     * ahead is blocked and nothing may pass it (no backfill) */
    eng->jobs[job] = tmp;
    *gs_queue_job(eng, job) = (struct gs_qjob){ .reason = GS_WAIT_RESOURCES };
    eng->probe_slot = job; /* the estimator finds it by its handle */
    rc = explain_slot(eng, job, d);
    if (rc == 0 && d->blocker >= 0 && gs_policy_backfill_mode(&eng->pol) == GS_BACKFILL_NONE) {
        gs_queue_job(eng, job)->reason = GS_WAIT_PRIORITY;
        rc = explain_slot(eng, job, d);
    }
    if (rc < 0) {
        eng->probe_slot = -1;
        return gs_errorf(err, rc, "out of memory");
    }
    struct gs_diag_state *ds = eng->diag;
    ds->scratch.nparts = 0;
    if (d->reason == GS_REASON_NONE && tmp.gpus > 0) {
        struct gs_request req;
        gs_eng_request(eng, job, &req);
        gs_profile_view_now(eng->profile, eng->cl, eng->now,
                            d->est_duration == GS_TIME_NONE ? GS_TIME_INF : d->est_duration,
                            ds->view);
        if (gs_place(eng->cl, ds->view, &req, eng->pol.strategy, &ds->scratch, NULL) == 0)
            *alloc = &ds->scratch;
    }
    eng->probe_slot = -1;
    d->job = -1;
    return 1;
}

/* jobs.c - the job table and the run primitives: add, request, try-start,
 * start-placed, mark-running, stop-running, compact (the queue array and
 * the parts pool), with job validation and emitting decisions.  The facade
 * (create, destroy, step, next_wakeup, and the driver's submit, cancel and
 * finish on these primitives) is src/core/engine/facade.c; queue ordering
 * lives in queue/; placement in place/. */
#include "core/jobs/jobs.h"
#include "core/jobs/engine_place.h"
#include "core/place/frag.h"
#include "core/base/alloc.h"
#include "core/base/satmath.h"

#include <string.h>

void gs_engine_set_observer(struct gs_engine *eng, gs_observer_fn fn, void *arg)
{
    eng->observer = fn;
    eng->observer_arg = arg;
}

void gs_engine_set_latency(struct gs_engine *eng, gs_latency_fn fn, void *arg)
{
    eng->latency = fn;
    eng->latency_arg = arg;
}

void gs_engine_set_estimator(struct gs_engine *eng, const struct gs_estimator *est)
{
    eng->est = *est;
}

void gs_eng_emit(struct gs_engine *eng, const struct gs_event *ev)
{
    if (ev->kind == GS_EV_RESERVE)
        gs_eng_hooks_run(eng, GS_HOOK_RESERVED, ev->job, ev->until);
    else
        eng->decisions++;
    if (eng->observer) {
        struct gs_event pub = *ev;
        pub.job = gs_eng_handle(eng, ev->job);
        eng->observer(eng->observer_arg, &pub);
    }
}

gs_time gs_eng_estimate(const struct gs_engine *eng, int job)
{
    return eng->est.estimate ? eng->est.estimate(eng->est.arg, eng, gs_eng_handle(eng, job))
                             : GS_TIME_NONE;
}

int gs_eng_find(const struct gs_engine *eng, int handle, struct gs_error *err)
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return gs_errorf(err, GS_ENOENT, "no job with handle %d (never submitted, or retired)",
                         handle);
    return job;
}

/* Non-negative fields of a spec, by trace column name. */
static int check_nonneg(const struct gs_job_spec *s, struct gs_error *err)
{
    const struct {
        const char *name;
        int64_t v;
        int64_t min;
    } f[] = {
        { "time_limit", s->time_limit, 0 },
        { "checkpoint_interval", s->ckpt_interval, 0 },
        { "checkpoint_cost", s->ckpt_cost, 0 },
        { "restore_cost", s->restore_cost, -1 },
        { "cpu", s->cpu_milli, 0 },
        { "host_mem_gb", s->host_mem_mib, 0 },
        { "gpu_mem_gb", s->mem_mib, -1 },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v < f[i].min)
            return gs_errorf(err, GS_EINVAL, "job %s: %s must be >= 0", s->id, f[i].name);
    return 0;
}

int gs_eng_check_spec(const struct gs_job_spec *s, gs_time now, struct gs_error *err)
{
    if (!s->id || !*s->id)
        return gs_errorf(err, GS_EINVAL, "id: missing");
    if (s->submit > now)
        return gs_errorf(err, GS_EINVAL, "job %s: submit is in the future", s->id);
    if (s->gpus < 0 || s->gpus > 1 << 20)
        return gs_errorf(err, GS_EINVAL, "job %s: gpus must be >= 0", s->id);
    if (s->milli < 1 || s->milli > GS_MILLI_GPU)
        return gs_errorf(err, GS_EINVAL, "job %s: gpu_share must be in (0, 1]", s->id);
    if (s->milli < GS_MILLI_GPU && s->gpus > 1)
        return gs_errorf(err, GS_EINVAL, "job %s: gpu_share < 1 needs gpus = 1", s->id);
    if (s->topology < GS_TOPO_AUTO || s->topology > GS_TOPO_ANY)
        return gs_errorf(err, GS_EINVAL, "job %s: bad topology", s->id);
    if (s->klass != GS_CLASS_TRAIN && s->klass != GS_CLASS_INFER)
        return gs_errorf(err, GS_EINVAL, "job %s: class must be train or infer", s->id);
    if (s->mig && *s->mig && gs_mig_profile_find(s->mig) < 0)
        return gs_errorf(err, GS_EINVAL, "job %s: mig: unknown profile '%.20s'", s->id, s->mig);
    if (s->mig && *s->mig && s->gpus != 1)
        return gs_errorf(err, GS_EINVAL, "job %s: a MIG job takes gpus = 1", s->id);
    if (s->mem_bw < 0 || s->mem_bw > 1000)
        return gs_errorf(err, GS_EINVAL, "job %s: mem_bw must be in (0, 1]", s->id);
    return check_nonneg(s, err);
}

/* Intern an optional string with a default; returns id or GS_ENOMEM. */
static int intern_or(struct gs_engine *eng, const char *s, const char *dflt)
{
    return gs_strtab_intern(eng->strs, s && *s ? s : dflt);
}

/* Per-string-id team tables: GPUs held and the quota (resolved by name,
 * so a team first seen late still gets its quota). */
int gs_eng_grow_teams(struct gs_engine *eng, int team)
{
    size_t old = eng->teams_cap, need = (size_t)gs_strtab_count(eng->strs);
    if (need > old) {
        size_t ncap = old ? old : 8;
        while (ncap < need)
            ncap *= 2;
        int64_t *m = gs_realloc(eng->team_milli, ncap * sizeof *m);
        if (!m)
            return GS_ENOMEM;
        eng->team_milli = m;
        int *q = gs_realloc(eng->team_quota, ncap * sizeof *q);
        if (!q)
            return GS_ENOMEM;
        eng->team_quota = q;
        for (size_t i = old; i < ncap; i++) {
            eng->team_milli[i] = 0;
            eng->team_quota[i] = -1;
        }
        eng->teams_cap = ncap;
    }
    eng->hooks.team_quota(eng, team, gs_policy_quota(&eng->pol, gs_strtab_name(eng->strs, team)));
    return 0;
}

/* The request part of a job record from `s` (no strings interned). */
static void fill_request(const struct gs_engine *eng, struct job *j, const struct gs_job_spec *s)
{
    memset(j, 0, sizeof *j);
    j->submit = s->submit;
    j->first_start = j->start = j->end = GS_TIME_NONE;
    j->estimate = GS_TIME_NONE;
    j->deadline = GS_TIME_INF;
    j->time_limit = s->time_limit;
    j->ckpt_interval = s->ckpt_interval;
    j->ckpt_cost = s->ckpt_cost;
    j->restore_cost = s->restore_cost;
    j->mem_mib = s->mem_mib;
    j->cpu_milli = s->cpu_milli;
    j->host_mem_mib = s->host_mem_mib;
    j->gpus = s->gpus;
    j->milli = s->milli;
    j->priority = s->priority;
    j->topology = (uint8_t)(s->topology != GS_TOPO_AUTO ? s->topology : eng->pol.topology);
    j->klass = (uint8_t)s->klass;
    j->state = GS_JOB_PENDING;
    j->run_pos = -1;
    j->last_ckpt = j->stop_at = GS_TIME_NONE;
    j->exit_code = -1;
    j->stop_reason = -1;
    /* -2: no such type, never fits; "A|B" allows several types */
    gs_frag_parse_models(eng->cl, s->gpu_model, &j->gpu_type, &j->gpu_types);
    j->mig = (uint8_t)(s->mig && *s->mig ? gs_mig_profile_find(s->mig) + 1 : 0);
    j->mem_bw = (int16_t)(s->mem_bw > 0 ? s->mem_bw : 500);
    j->gpu_next = -1;
}

static int fill_job(struct gs_engine *eng, struct job *j, const struct gs_job_spec *s)
{
    fill_request(eng, j, s);
    j->team = intern_or(eng, s->team, "default");
    j->user = intern_or(eng, s->user, "-");
    j->name = intern_or(eng, s->name, "-");
    j->queue = intern_or(eng, s->queue, "");
    if (j->team < 0 || j->user < 0 || j->name < 0 || j->queue < 0)
        return GS_ENOMEM;
    return gs_eng_grow_teams(eng, j->team);
}

/* gs_eng_request of a job record (in eng->jobs or not). */
static void request_of(const struct gs_engine *eng, const struct job *j, struct gs_request *req)
{
    req->gpus = j->gpus;
    req->milli = j->milli;
    req->mem_mib = j->mem_mib;
    req->topology = j->topology;
    req->gpu_type = j->gpu_type;
    req->cpu_milli = j->cpu_milli;
    req->host_mem_mib = j->host_mem_mib;
    req->nodes_allowed = gs_eng_spare_nodes(eng, j, eng->hooks.part_nodes(eng, j->part));
    req->gpu_types = j->gpu_types;
    req->mig = j->mig;
    req->ctx = gs_eng_place_ctx(eng);
    if (j->mig) {
        req->gpus = 1;
        req->milli = GS_MILLI_GPU;
    } else if (eng->pol.sharing == GS_SHARING_EXCLUSIVE && req->milli < GS_MILLI_GPU) {
        req->milli = GS_MILLI_GPU; /* a fractional job still takes a whole GPU alone */
        req->mem_mib = -1;
    }
    req->blocked = NULL;
}

void gs_eng_request(const struct gs_engine *eng, int job, struct gs_request *req)
{
    request_of(eng, &eng->jobs[job], req);
}

int gs_eng_job_possible(struct gs_engine *eng, const struct job *j)
{
    if (j->gpus == 0)
        return 1;
    if (j->gpu_type == -2)
        return 0;
    struct gs_request req;
    request_of(eng, j, &req);
    req.nodes_allowed = eng->hooks.part_nodes(eng, j->part); /* the spares too: could it ever fit */
    /* the answer depends on the request's shape only: remember it for the
     * common unconstrained whole-GPU shapes (a full-cluster scan each) */
    int plain = req.milli == GS_MILLI_GPU && req.gpus <= GS_MAX_NODE_GPUS && !req.mig &&
                req.gpu_type < 0 && !req.gpu_types && !req.nodes_allowed && req.mem_mib <= 0 &&
                req.cpu_milli == 0 && req.host_mem_mib == 0;
    int8_t *memo = plain ? &eng->possible[req.topology][req.gpus] : NULL;
    if (memo && *memo)
        return *memo > 0;
    int ok = gs_place_possible(eng->cl, &req, &eng->possible_buf);
    if (memo)
        *memo = ok ? 1 : -1;
    return ok;
}

int gs_eng_probe_fill(struct gs_engine *eng, const struct gs_job_spec *s, struct job *j)
{
    fill_request(eng, j, s);
    j->submit = eng->now;
    j->handle = GS_PROBE_HANDLE; /* no job's: no reservation note or queue entry is its */
    j->team = intern_or(eng, s->team, "default");
    j->user = intern_or(eng, NULL, "-"); /* not interned: a probe adds no names */
    j->name = intern_or(eng, NULL, "-");
    j->queue = intern_or(eng, NULL, "");
    if (j->team < 0 || j->user < 0 || j->name < 0 || j->queue < 0 || gs_eng_grow_teams(eng, j->team))
        return GS_ENOMEM;
    eng->hooks.part_pick(eng, j, s->queue);
    return gs_eng_jobs_reserve(eng, eng->njobs + 1);
}

int gs_engine_possible(struct gs_engine *eng, const struct gs_job_spec *spec,
                       struct gs_error *err)
{
    int rc = gs_eng_check_spec(spec, spec->submit, err);
    if (rc < 0)
        return rc;
    struct job j;
    fill_request(eng, &j, spec);
    int part = eng->hooks.part_pick(eng, &j, spec->queue);
    if (part == 0 && gs_eng_job_possible(eng, &j))
        return 1;
    struct gs_request req;
    request_of(eng, &j, &req);
    gs_eng_refusal(eng, spec, part < 0 ? NULL : &req, j.part, err);
    return 0;
}

/* Add a job record from `s`; returns its slot or a negative code.  The id
 * table gives the slot (a free one, or the next new one: it never gives
 * more than one past the ids it holds, for which jobs[] has room), so
 * nothing changes when an allocation fails half way. */
int gs_eng_add_job(struct gs_engine *eng, const struct gs_job_spec *s, struct gs_error *err)
{
    if (gs_strtab_find(eng->ids, s->id) >= 0)
        return gs_errorf(err, GS_EEXIST, "job %s: id already used", s->id);
    if (eng->nhandles == INT32_MAX)
        return gs_errorf(err, GS_ENOMEM, "job %s: job handles exhausted", s->id);
    struct job tmp;
    size_t ids = (size_t)gs_strtab_count(eng->ids);
    if (gs_eng_jobs_reserve(eng, ids + 1) < 0 ||
        gs_intmap_reserve(eng->moved, gs_intmap_count(eng->moved) + 1) < 0 ||
        fill_job(eng, &tmp, s) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int job = gs_strtab_intern(eng->ids, s->id);
    if (job < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    tmp.handle = eng->nhandles++;
    if (tmp.handle != job)
        gs_intmap_put(eng->moved, tmp.handle, job); /* room reserved above */
    if ((size_t)job == eng->njobs)
        eng->njobs++;
    eng->jobs[job] = tmp;
    gs_eng_hooks_run(eng, GS_HOOK_ADDED, job, eng->now);
    return job;
}

int gs_eng_jobs_reserve(struct gs_engine *eng, size_t n)
{
    if (gs_grow((void **)&eng->jobs, &eng->jobs_cap, n, sizeof *eng->jobs))
        return GS_ENOMEM;
    for (int i = 0; i < eng->hooks.ngrow; i++)
        if (eng->hooks.grow[i](eng, eng->jobs_cap) < 0)
            return GS_ENOMEM;
    return 0;
}

void gs_eng_leave_pending(struct gs_engine *eng, int job)
{
    (void)job;
    eng->npending--;
    eng->pending_gone++;
}

void gs_eng_compact_pending(struct gs_engine *eng)
{
    while (eng->phead < eng->ptail && eng->pending_gone > 0 &&
           gs_eng_queued(eng, eng->phead) < 0) {
        eng->phead++;
        eng->pending_gone--;
    }
    /* dead entries behind the front are dropped once they are a quarter of
     * the queue (amortised O(1) per departure; passes skip the others) */
    if (eng->pending_gone * 4 > eng->npending + 64 || eng->phead * 2 > eng->pending_cap) {
        eng->pending_epoch++;
        size_t out = 0;
        for (size_t i = eng->phead; i < eng->ptail; i++) {
            int job = gs_eng_queued(eng, i);
            if (job >= 0) {
                eng->jobs[job].qpos = (uint32_t)out;
                eng->pending[out++] = job;
            }
        }
        eng->phead = 0;
        eng->ptail = out;
        eng->pending_gone = 0;
    }
    if (eng->phead == eng->ptail && eng->ptail > 0) {
        eng->phead = eng->ptail = 0;
        eng->pending_epoch++;
    }
}

void gs_eng_job_alloc(const struct gs_engine *eng, const struct job *j, struct gs_alloc *a)
{
    a->nparts = j->nparts;
    a->cap = j->nparts;
    a->parts = eng->parts ? eng->parts + j->parts_off : NULL; /* CPU-only jobs alone: no pool */
    a->milli = j->alloc_milli;
    a->mem_mib = j->alloc_mem;
    a->cpu_milli = j->cpu_milli;
    a->host_mem_mib = j->host_mem_mib;
    a->mig_slot = j->mig_slot;
    a->mig_reconf = 0;
}

/* The driver's start latency of the start being decided for `job` (a
 * slot): what its latency source answers for (handle, run), 0 for a
 * negative answer or without a source (gs_engine_set_latency). */
static gs_time start_latency(const struct gs_engine *eng, int job)
{
    if (!eng->latency)
        return 0;
    gs_time v = eng->latency(eng->latency_arg, eng, gs_eng_handle(eng, job), eng->jobs[job].runs);
    return v > 0 ? v : 0;
}

/* Record a placement that has been taken from the cluster (or an empty one
 * for a CPU-only job) and make the job running.  Pools were grown before.
 * With a start latency `lat` > 0 the job really starts at now + lat (its
 * `start`): it holds the resources from now and does no work until then. */
void gs_eng_mark_running(struct gs_engine *eng, int job, gs_time now, gs_time lat,
                         const struct gs_alloc *a)
{
    struct job *j = &eng->jobs[job];
    j->parts_off = (uint32_t)eng->nparts;
    j->nparts = (uint16_t)a->nparts;
    j->alloc_mem = a->mem_mib;
    j->alloc_milli = a->milli;
    j->mig_slot = (uint8_t)a->mig_slot;
    if (a->nparts > 0) /* a CPU-only job has none, and eng->parts may be NULL */
        memcpy(eng->parts + eng->nparts, a->parts, (size_t)a->nparts * sizeof *a->parts);
    eng->nparts += (size_t)a->nparts;
    j->run_pos = (int)eng->nrunning;
    eng->running[eng->nrunning] = job;
    gs_time restore = 0;
    if (j->runs > 0)
        restore = j->restore_cost >= 0 ? j->restore_cost : eng->pol.restore_cost;
    if (a->mig_reconf)
        restore += eng->pol.mig_drain_cost; /* repartitioning the MIG GPU first */
    gs_progress_start(&eng->prog[eng->nrunning], gs_time_add(now, lat), j->saved,
                      j->ckpt_interval, j->ckpt_cost, restore, GS_RATE_FULL);
    eng->nrunning++;
    j->runs++;
    j->state = GS_JOB_RUNNING; /* no wait reason now: queue_slots.c's GS_HOOK_STARTED */
    j->start = gs_time_add(now, lat); /* saturates at the end of time */
    if (j->first_start == GS_TIME_NONE)
        j->first_start = j->start;
    j->estimate = gs_eng_estimate(eng, job);
    gs_time until =
        j->estimate == GS_TIME_NONE ? GS_TIME_INF : gs_time_add(j->start, j->estimate);
    gs_profile_occupy(eng->profile, a, until);
    gs_eng_watch_overrun(eng, job);
    j->deadline = gs_eng_deadline(eng, job);
    gs_eng_hooks_run(eng, GS_HOOK_STARTED, job, now);
    gs_eng_place_started(eng, job);
}

void gs_eng_compact_parts(struct gs_engine *eng)
{
    if (eng->parts_dead * 2 <= eng->nparts + eng->njobs + 64)
        return;
    size_t live = eng->nparts - eng->parts_dead, cap = 2 * live + 64;
    struct gs_alloc_part *p = gs_malloc(cap * sizeof *p);
    if (!p)
        return; /* it stays larger than it needs to be */
    size_t out = 0;
    for (size_t s = 0; s < eng->njobs; s++) {
        struct job *j = &eng->jobs[s];
        if (j->handle < 0 || j->nparts == 0)
            continue;
        memcpy(p + out, eng->parts + j->parts_off, (size_t)j->nparts * sizeof *p);
        j->parts_off = (uint32_t)out;
        out += j->nparts;
    }
    gs_free(eng->parts);
    eng->parts = p;
    eng->parts_cap = cap;
    eng->nparts = out;
    eng->parts_dead = 0;
}

int gs_eng_reserve_pools(struct gs_engine *eng, int nparts)
{
    if (gs_grow((void **)&eng->parts, &eng->parts_cap, eng->nparts + (size_t)nparts,
                sizeof *eng->parts) ||
        gs_grow((void **)&eng->running, &eng->running_cap, eng->nrunning + 1,
                sizeof *eng->running) ||
        gs_grow((void **)&eng->prog, &eng->prog_cap, eng->nrunning + 1, sizeof *eng->prog) ||
        gs_grow((void **)&eng->dl, &eng->dl_cap, eng->ndl + 2, sizeof *eng->dl) ||
        gs_grow((void **)&eng->expect, &eng->expect_cap, eng->nexpect + 1,
                sizeof *eng->expect))
        return GS_ENOMEM;
    return 0;
}

int gs_eng_try_start(struct gs_engine *eng, int job, gs_time now, const uint64_t *view,
                     int backfilled, struct gs_alloc *a)
{
    a->nparts = 0;
    if (eng->jobs[job].rheld) /* GPUs held for it (retry.hold): free to it alone */
        return gs_eng_rhold_try_start(eng, job, now, view, backfilled, a);
    if (eng->jobs[job].gpus > 0) {
        struct gs_request req;
        gs_eng_request(eng, job, &req);
        int rc = gs_place(eng->cl, view, &req, eng->pol.strategy, a, NULL);
        if (rc < 0)
            return rc;
    }
    return gs_eng_start_placed(eng, job, now, backfilled, a);
}

int gs_eng_start_placed(struct gs_engine *eng, int job, gs_time now, int backfilled,
                        const struct gs_alloc *a)
{
    struct job *j = &eng->jobs[job];
    if (gs_eng_reserve_pools(eng, a->nparts) < 0)
        return GS_ENOMEM;
    if (a->nparts > 0 && gs_cluster_alloc(eng->cl, a, NULL) < 0)
        return GS_ENOSPC;
    gs_eng_leave_pending(eng, job);
    gs_eng_mark_running(eng, job, now, start_latency(eng, job), a);
    j->backfilled = (uint8_t)backfilled;
    int rate = gs_eng_rate(eng, job);
    if (rate != GS_RATE_FULL)
        gs_progress_set_rate(&eng->prog[j->run_pos], now, rate);
    gs_eng_lifecycle_started(eng, job);
    struct gs_event ev = { GS_EV_START, now, job, a, j->deadline, backfilled };
    gs_eng_emit(eng, &ev);
    gs_eng_update_rates(eng, now, a);
    return 0;
}

void gs_eng_stop_running(struct gs_engine *eng, int job, gs_time now, int state)
{
    struct job *j = &eng->jobs[job];
    struct gs_alloc a;
    gs_eng_place_stopped(eng, job);
    gs_eng_job_alloc(eng, j, &a);
    if (a.nparts > 0) {
        gs_cluster_release(eng->cl, &a, NULL);
        gs_profile_vacate(eng->profile, eng->cl, &a);
        gs_eng_nodes_released(eng, &a);
    }
    int pos = j->run_pos;
    struct gs_progress *pr = &eng->prog[pos];
    /* a stopping job's work was frozen when it was told to stop */
    gs_progress_advance(pr, j->state == GS_JOB_STOPPING ? j->stop_at : now);
    j->ckpt_wall += pr->ckpt_wall;
    j->restore_wall += pr->restore_wall;
    j->work = gs_progress_work(pr);
    j->saved = gs_progress_saved(pr);
    int last = eng->running[--eng->nrunning];
    eng->running[pos] = last;
    eng->prog[pos] = eng->prog[eng->nrunning];
    eng->jobs[last].run_pos = pos;
    j->run_pos = -1;
    j->state = (uint8_t)state;
    j->end = now;
    eng->releases++;
    gs_eng_hooks_run(eng, GS_HOOK_STOPPED, job, now);
    if (a.nparts > 0)
        gs_eng_update_rates(eng, now, &a);
}

int gs_eng_check_time(struct gs_engine *eng, gs_time now, struct gs_error *err)
{
    if (eng->now != GS_TIME_NONE && now < eng->now)
        return gs_errorf(err, GS_EINVAL, "time went backwards (%lld < %lld ms)",
                         (long long)now, (long long)eng->now);
    eng->now = now;
    return 0;
}

/* engine_check.c - gs_engine_check: every invariant of the engine
 * (engine.h).  It reads every subsystem's private state, which is why it
 * sits above all of them in src/core/check/. */
#include "core/engine/engine_private.h"
#include "core/preempt/preempt_private.h"
#include "core/queue/queue_private.h"
#include "core/base/alloc.h"

#include <string.h>

/* Job states against the engine's counters and the running set. */
static int check_jobs(const struct gs_engine *eng, struct gs_error *err)
{
    size_t pending = 0, holding = 0, starting = 0, stopping = 0;
    for (size_t h = 0; h < eng->njobs; h++) {
        const struct job *j = &eng->jobs[h];
        if (gs_eng_slot_free(eng, (int)h))
            continue;
        int st = j->state;
        pending += st == GS_JOB_PENDING;
        starting += st == GS_JOB_STARTING;
        stopping += st == GS_JOB_STOPPING;
        if (gs_job_state_holds(st)) {
            holding++;
            if (j->run_pos < 0 || (size_t)j->run_pos >= eng->nrunning ||
                eng->running[j->run_pos] != (int)h)
                return gs_errorf(err, GS_ESTATE, "job %zu holds GPUs outside the running set",
                                 h);
        } else if (j->run_pos >= 0) {
            return gs_errorf(err, GS_ESTATE, "job %zu (state %d) is in the running set", h, st);
        }
    }
    if (pending != eng->npending || holding != eng->nrunning || starting != eng->nstarting ||
        stopping != eng->nstopping)
        return gs_errorf(err, GS_ESTATE,
                         "counts drifted: pending %zu/%zu running %zu/%zu starting %zu/%zu "
                         "stopping %zu/%zu",
                         pending, eng->npending, holding, eng->nrunning, starting,
                         eng->nstarting, stopping, eng->nstopping);
    return 0;
}

/* One slot against the id table and the handle map. */
static int check_slot(const struct gs_engine *eng, int slot, size_t *moved,
                      struct gs_error *err)
{
    const struct job *j = &eng->jobs[slot];
    const char *id = gs_strtab_name(eng->ids, slot);
    if (j->handle < 0) {
        if (id)
            return gs_errorf(err, GS_ESTATE, "free slot %d still holds id %s", slot, id);
        if (!gs_job_state_terminal(j->state) || j->run_pos >= 0)
            return gs_errorf(err, GS_ESTATE, "free slot %d is not a retired job", slot);
        return 0;
    }
    if (!id || gs_strtab_find(eng->ids, id) != slot)
        return gs_errorf(err, GS_ESTATE, "slot %d: its id does not lead back to it", slot);
    if (j->handle >= eng->nhandles || gs_eng_slot(eng, j->handle) != slot)
        return gs_errorf(err, GS_ESTATE, "job %s: handle %d does not lead to slot %d", id,
                         j->handle, slot);
    if (j->nparts > 0 && (size_t)j->parts_off + j->nparts > eng->nparts)
        return gs_errorf(err, GS_ESTATE, "job %s: its GPUs lie outside the parts pool", id);
    *moved += j->handle != slot;
    return 0;
}

/* The preemption modules' per-slot tables (preempt_private.h) cover the
 * slots in use (the job table may be larger after a failed growth: the
 * next gs_eng_jobs_reserve grows them first), and only a job on its GPUs
 * drains. */
static int check_slot_tables(const struct gs_engine *eng, struct gs_error *err)
{
    const struct gs_preempt *pre = eng->pre;
    if (!pre)
        return 0;
    if (pre->draining_cap < eng->njobs || pre->pre_by_cap < eng->njobs)
        return gs_errorf(err, GS_ESTATE, "per-slot tables (%zu draining, %zu pre_by) short "
                         "of the %zu slots in use", pre->draining_cap, pre->pre_by_cap,
                         eng->njobs);
    for (size_t s = 0; s < eng->njobs; s++)
        if (pre->draining[s] && !gs_job_state_holds(eng->jobs[s].state))
            return gs_errorf(err, GS_ESTATE, "slot %zu drains but holds no GPUs", s);
    if (gs_queue_slots_check(eng, err) < 0)
        return GS_ESTATE;
    return gs_eng_diag_slots_check(eng, err);
}

/* Slots, handles and ids: every slot below the high-water mark is a live
 * job found by its handle and its id, or free (its id removed); the map
 * holds exactly the live jobs whose handle is not their slot; the
 * preemption state names no free slot. */
static int check_slots(const struct gs_engine *eng, struct gs_error *err)
{
    if ((size_t)gs_strtab_count(eng->ids) != eng->njobs || eng->njobs > eng->jobs_cap ||
        eng->njobs > (size_t)eng->nhandles)
        return gs_errorf(err, GS_ESTATE, "%zu slots, %d ids, %d handles", eng->njobs,
                         gs_strtab_count(eng->ids), eng->nhandles);
    size_t moved = 0, live = 0;
    for (size_t h = 0; h < eng->njobs; h++) {
        int rc = check_slot(eng, (int)h, &moved, err);
        if (rc < 0)
            return rc;
        live += !gs_eng_slot_free(eng, (int)h);
    }
    if (live != (size_t)gs_strtab_live(eng->ids) || moved != gs_intmap_count(eng->moved))
        return gs_errorf(err, GS_ESTATE, "%zu live slots (%d ids), %zu moved (map %zu)", live,
                         gs_strtab_live(eng->ids), moved, gs_intmap_count(eng->moved));
    const struct gs_preempt *pre = eng->pre;
    for (size_t i = 0; pre && i < pre->ndrains; i++)
        if (gs_eng_slot_free(eng, pre->drains[i].waiter) ||
            (pre->drains[i].victim >= 0 && gs_eng_slot_free(eng, pre->drains[i].victim)))
            return gs_errorf(err, GS_ESTATE, "drain %zu names a free slot", i);
    for (size_t i = 0; pre && i < pre->nholds; i++)
        if (gs_eng_slot_free(eng, pre->holds[i].waiter))
            return gs_errorf(err, GS_ESTATE, "hold %zu names a free slot", i);
    return check_slot_tables(eng, err);
}

/* Every pending job is queued exactly once; no queued entry holds GPUs. */
static int check_queue(const struct gs_engine *eng, struct gs_error *err)
{
    /* a live entry is one at its job's own qpos, so no job has two: the
     * live count equal to the pending count means each is queued once */
    size_t live = 0;
    for (size_t i = eng->phead; i < eng->ptail; i++) {
        int job = eng->pending[i];
        if (job < 0 || (size_t)job >= eng->njobs)
            return gs_errorf(err, GS_ESTATE, "queue entry %zu: bad handle %d", i, job);
        live += gs_eng_queued(eng, i) >= 0;
    }
    if (live != eng->npending)
        return gs_errorf(err, GS_ESTATE, "%zu pending jobs, %zu queued", eng->npending, live);
    return 0;
}

/* Team usage is the sum over the jobs holding GPUs. */
static int check_teams(const struct gs_engine *eng, struct gs_error *err)
{
    int64_t *sum = gs_calloc(eng->teams_cap + 1, sizeof *sum);
    if (!sum)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    for (size_t i = 0; i < eng->nrunning; i++) {
        const struct job *j = &eng->jobs[eng->running[i]];
        sum[j->team] += (int64_t)j->gpus * j->milli;
    }
    int rc = 0;
    for (size_t t = 0; rc == 0 && t < eng->teams_cap; t++)
        if (sum[t] != eng->team_milli[t])
            rc = gs_errorf(err, GS_ESTATE, "team %s: usage %lld, its jobs hold %lld",
                           gs_strtab_name(eng->strs, (int)t), (long long)eng->team_milli[t],
                           (long long)sum[t]);
    gs_free(sum);
    return rc;
}

/* Add `milli` to the GPUs of (node, mask) in `use` (global GPU index). */
static void add_use(const struct gs_cluster *cl, int32_t *use, int node, uint64_t mask,
                    int milli)
{
    int first = gs_cluster_node_first_gpu(cl, node);
    for (; mask; mask &= mask - 1)
        use[first + __builtin_ctzll(mask)] += milli;
}

/* What the engine knows it gave on each GPU: jobs, GPUs held for waiters
 * (drain.c), GPUs out of service (nodes.c). */
static void engine_use(const struct gs_engine *eng, int32_t *use, int32_t *owners)
{
    for (size_t i = 0; i < eng->nrunning; i++) {
        const struct job *j = &eng->jobs[eng->running[i]];
        struct gs_alloc a;
        gs_eng_job_alloc(eng, j, &a);
        for (int p = 0; p < a.nparts; p++) {
            add_use(eng->cl, use, a.parts[p].node, a.parts[p].mask, a.milli);
            add_use(eng->cl, owners, a.parts[p].node, a.parts[p].mask, 1);
        }
    }
    for (size_t i = 0; eng->pre && i < eng->pre->nholds; i++) {
        const struct hold *h = &eng->pre->holds[i];
        add_use(eng->cl, use, h->node, h->held, GS_MILLI_GPU);
        add_use(eng->cl, owners, h->node, h->held, 1);
    }
    for (int n = 0; n < gs_cluster_node_count(eng->cl); n++) {
        add_use(eng->cl, use, n, gs_eng_nodes_out(eng, n), GS_MILLI_GPU);
        add_use(eng->cl, owners, n, gs_eng_nodes_out(eng, n), 1);
        /* held for a restart (retry.hold): one more owner, so a held GPU
           that a job or another hold also has is given twice */
        add_use(eng->cl, use, n, gs_eng_rhold_mask(eng, n), GS_MILLI_GPU);
        add_use(eng->cl, owners, n, gs_eng_rhold_mask(eng, n), 1);
    }
}

/* One GPU: the engine's owners against the cluster and the profile. */
static int check_gpu(const struct gs_engine *eng, int n, int g, int32_t use, int32_t owners,
                     struct gs_error *err)
{
    const char *name = gs_cluster_node_name(eng->cl, n);
    if ((gs_cluster_mig_mask(eng->cl, n) >> g) & 1)
        return 0; /* instances: the cluster's own check covers them */
    if (use > GS_MILLI_GPU)
        return gs_errorf(err, GS_ESTATE, "%s:%d given %d milli-GPU (%d owners)", name, g, use,
                         owners);
    if (use != gs_cluster_gpu_used_milli(eng->cl, n, g))
        return gs_errorf(err, GS_ESTATE, "%s:%d: engine gave %d milli-GPU, cluster has %d",
                         name, g, use, gs_cluster_gpu_used_milli(eng->cl, n, g));
    if (owners > 0 && gs_profile_free_at(eng->profile, n, g) == GS_TIME_NONE)
        return gs_errorf(err, GS_ESTATE, "%s:%d is held but the profile plans it free", name,
                         g);
    if (owners == 0 && gs_profile_free_at(eng->profile, n, g) != GS_TIME_NONE)
        return gs_errorf(err, GS_ESTATE, "%s:%d is idle but the profile plans it busy", name,
                         g);
    return 0;
}

static int check_gpus(const struct gs_engine *eng, struct gs_error *err)
{
    size_t ngpus = (size_t)gs_cluster_gpu_count(eng->cl);
    int32_t *use = gs_calloc(2 * ngpus + 1, sizeof *use);
    if (!use)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int32_t *owners = use + ngpus;
    engine_use(eng, use, owners);
    int rc = 0;
    for (int n = 0; rc == 0 && n < gs_cluster_node_count(eng->cl); n++) {
        int first = gs_cluster_node_first_gpu(eng->cl, n);
        for (int g = 0; rc == 0 && g < gs_cluster_node_gpus(eng->cl, n); g++)
            rc = check_gpu(eng, n, g, use[first + g], owners[first + g], err);
    }
    gs_free(use);
    return rc;
}

int gs_engine_check(const struct gs_engine *eng, struct gs_error *err)
{
    int rc = gs_cluster_check(eng->cl, err);
    if (rc == 0)
        rc = check_slots(eng, err);
    if (rc == 0)
        rc = check_jobs(eng, err);
    if (rc == 0)
        rc = check_queue(eng, err);
    if (rc == 0)
        rc = check_teams(eng, err);
    if (rc == 0)
        rc = check_gpus(eng, err);
    if (rc == 0)
        rc = gs_eng_rhold_check(eng, err);
    return rc == GS_ENOMEM ? rc : rc < 0 ? GS_ESTATE : 0;
}

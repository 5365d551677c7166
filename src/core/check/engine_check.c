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
        if (gs_eng_retired(eng, (int)h))
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
        rc = check_jobs(eng, err);
    if (rc == 0)
        rc = check_queue(eng, err);
    if (rc == 0)
        rc = check_teams(eng, err);
    if (rc == 0)
        rc = check_gpus(eng, err);
    return rc == GS_ENOMEM ? rc : rc < 0 ? GS_ESTATE : 0;
}

int gs_engine_retire(struct gs_engine *eng, int job, struct gs_error *err)
{
    if (job < 0 || (size_t)job >= eng->njobs || eng->jobs[job].retired)
        return gs_errorf(err, GS_ENOENT, "no job with handle %d", job);
    if (!gs_job_state_terminal(eng->jobs[job].state))
        return gs_errorf(err, GS_ESTATE, "job %s has not ended",
                         gs_strtab_name(eng->ids, job));
    eng->jobs[job].retired = 1;
    return 0;
}

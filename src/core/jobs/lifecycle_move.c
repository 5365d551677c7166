/* lifecycle_move.c - gs_engine_move_gpus: the engine's view of a job's GPUs
 * follows what the driver reports it really got (engine.h).
 *
 * Every move names one node of one job.  The call first checks them all,
 * then gives back every old GPU set, then takes every new one, so jobs that
 * swapped GPUs on a node move in one call; when a new set cannot be taken
 * the new sets taken so far are given back and the old ones taken again
 * (they were free a moment ago), leaving the engine as it was.
 */
#include "core/jobs/jobs.h"
#include "core/jobs/engine_place.h"

#include <string.h>

/* The part of job j on `node`, or -1. */
static int part_of(const struct gs_engine *eng, const struct job *j, int node)
{
    for (int k = 0; k < j->nparts; k++)
        if (eng->parts[j->parts_off + k].node == node)
            return k;
    return -1;
}

static int check_move(const struct gs_engine *eng, const struct gs_gpu_move *mv, size_t i,
                      struct gs_error *err)
{
    const struct gs_gpu_move *m = &mv[i];
    if (m->job < 0 || (size_t)m->job >= eng->njobs)
        return gs_errorf(err, GS_ENOENT, "no job with handle %d", m->job);
    const struct job *j = &eng->jobs[m->job];
    const char *id = gs_strtab_name(eng->ids, m->job);
    if (!gs_job_state_holds(j->state))
        return gs_errorf(err, GS_ESTATE, "job %s holds no GPUs", id);
    if (j->alloc_milli != GS_MILLI_GPU || j->mig_slot)
        return gs_errorf(err, GS_EINVAL, "job %s: only whole-GPU allocations move", id);
    if (m->node < 0 || m->node >= gs_cluster_node_count(eng->cl))
        return gs_errorf(err, GS_EINVAL, "job %s: no node %d", id, m->node);
    int g = gs_cluster_node_gpus(eng->cl, m->node);
    if (g < 64 && (m->mask >> g) != 0)
        return gs_errorf(err, GS_EINVAL, "job %s: GPU beyond the %d of node %s", id, g,
                         gs_cluster_node_name(eng->cl, m->node));
    int k = part_of(eng, j, m->node);
    if (k < 0)
        return gs_errorf(err, GS_EINVAL, "job %s has no GPUs on node %s", id,
                         gs_cluster_node_name(eng->cl, m->node));
    if (__builtin_popcountll(eng->parts[j->parts_off + k].mask) != __builtin_popcountll(m->mask))
        return gs_errorf(err, GS_EINVAL, "job %s: %d GPUs on node %s, not %d", id,
                         __builtin_popcountll(eng->parts[j->parts_off + k].mask),
                         gs_cluster_node_name(eng->cl, m->node),
                         __builtin_popcountll(m->mask));
    for (size_t o = 0; o < i; o++)
        if (mv[o].job == m->job && mv[o].node == m->node)
            return gs_errorf(err, GS_EINVAL, "job %s: node %s moved twice", id,
                             gs_cluster_node_name(eng->cl, m->node));
    return 0;
}

/* One node's part of job `job` with `mask`, host resources left alone. */
static struct gs_alloc one_part(const struct gs_engine *eng, int job, struct gs_alloc_part *p,
                                int node, uint64_t mask)
{
    const struct job *j = &eng->jobs[job];
    p->node = node;
    p->mask = mask;
    struct gs_alloc a = { 1, 1, p, j->alloc_milli, j->alloc_mem, 0, 0, 0, 0 };
    return a;
}

static uint64_t old_mask(const struct gs_engine *eng, const struct gs_gpu_move *m)
{
    const struct job *j = &eng->jobs[m->job];
    return eng->parts[j->parts_off + part_of(eng, j, m->node)].mask;
}

/* Take (take = 1) or give back the old (which = 0) or new (1) sets of
 * moves [0, n).  Taking stops at the first that does not fit: its index,
 * or n when all did. */
static size_t apply_sets(struct gs_engine *eng, const struct gs_gpu_move *mv, size_t n, int which,
                         int take)
{
    for (size_t i = 0; i < n; i++) {
        struct gs_alloc_part p;
        uint64_t mask = which ? mv[i].mask : old_mask(eng, &mv[i]);
        struct gs_alloc a = one_part(eng, mv[i].job, &p, mv[i].node, mask);
        if (!take) {
            gs_cluster_release(eng->cl, &a, NULL);
            gs_profile_vacate(eng->profile, eng->cl, &a);
        } else if (gs_cluster_alloc(eng->cl, &a, NULL) < 0) {
            return i;
        }
    }
    return n;
}

/* When job j's GPUs are planned busy until (as gs_eng_mark_running and
 * gs_engine_started plan them). */
static gs_time busy_until(const struct job *j)
{
    if (j->state == GS_JOB_STOPPING || j->estimate == GS_TIME_NONE)
        return GS_TIME_INF;
    return gs_time_add(j->start, j->estimate);
}

int gs_engine_move_gpus(struct gs_engine *eng, gs_time now, const struct gs_gpu_move *mv,
                        size_t n, struct gs_error *err)
{
    int rc;
    for (size_t i = 0; i < n; i++)
        if ((rc = check_move(eng, mv, i, err)) < 0)
            return rc;
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    apply_sets(eng, mv, n, 0, 0);
    size_t got = apply_sets(eng, mv, n, 1, 1);
    if (got < n) {
        apply_sets(eng, mv, got, 1, 0);
        apply_sets(eng, mv, n, 0, 1); /* free a moment ago: cannot fail */
        for (size_t i = 0; i < n; i++) {
            struct gs_alloc_part p;
            struct gs_alloc a = one_part(eng, mv[i].job, &p, mv[i].node, old_mask(eng, &mv[i]));
            gs_profile_occupy(eng->profile, &a, busy_until(&eng->jobs[mv[i].job]));
        }
        return gs_errorf(err, GS_ENOSPC, "job %s: GPUs %#llx of node %s are not free",
                         gs_strtab_name(eng->ids, mv[got].job), (unsigned long long)mv[got].mask,
                         gs_cluster_node_name(eng->cl, mv[got].node));
    }
    for (size_t i = 0; i < n; i++) {
        const struct gs_gpu_move *m = &mv[i];
        struct job *j = &eng->jobs[m->job];
        struct gs_alloc_part *part = &eng->parts[j->parts_off + part_of(eng, j, m->node)];
        struct gs_alloc_part p;
        struct gs_alloc old = one_part(eng, m->job, &p, m->node, part->mask);
        part->mask = m->mask;
        struct gs_alloc_part q;
        struct gs_alloc now_a = one_part(eng, m->job, &q, m->node, m->mask);
        gs_profile_occupy(eng->profile, &now_a, busy_until(j));
        gs_eng_place_stopped(eng, m->job); /* whole GPUs: the index's version only */
        gs_eng_place_started(eng, m->job);
        gs_eng_nodes_released(eng, &old); /* out-of-service GPUs it left */
    }
    eng->releases++; /* GPUs changed hands: a blocked pass looks again */
    eng->pass_blocked = 0;
    return 0;
}

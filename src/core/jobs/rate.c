/* rate.c - how fast a running job progresses on its GPUs: the slow-down
 * model (docs/placement.md, "Interference and topology slow-down").
 *
 * rate = topology factor x product over co-runners of the interference
 * factor, in per mille of full speed (at least 1).
 *
 * Topology: a multi-GPU job runs at full speed on its natural unit - one
 * NVLink domain when it fits the largest domain, one node when it fits the
 * largest node, whole nodes otherwise.  Placed across domains of one node
 * when one domain would have held it, it runs at placement.slowdown.pcie
 * (default 0.7); across nodes when one node would have held it, at
 * placement.slowdown.network (default 0.5).  Only `topology: any` (or
 * `node` for a domain-sized job) allows such placements.
 *
 * Interference: jobs sharing a GPU (a fraction of it each, time-sliced or
 * MPS) slow each other: each co-runner o multiplies a job's rate by
 *   1 - (1 - placement.slowdown.corunner) * bw(o) / 0.5
 * where bw(o) is o's memory-bandwidth intensity in (0, 1] (trace column
 * mem_bw, default 0.5, so the default factor is exactly `corunner`, 0.85),
 * floored at 0.05.  MIG instances are isolated: no interference.  A job
 * alone on a GPU, or holding whole GPUs, is not slowed.
 */
#include "core/jobs/jobs.h"
#include "core/jobs/engine_place.h"

#include <math.h>

#define MIN_FACTOR 0.05

/* Topology factor of a job's current allocation. */
static double topo_factor(const struct gs_engine *eng, const struct job *j)
{
    if (j->gpus <= 1 || j->nparts == 0)
        return 1.0;
    const struct gs_alloc_part *parts = &eng->parts[j->parts_off];
    if (j->nparts > 1)
        return j->gpus <= gs_cluster_max_node_gpus(eng->cl) ? eng->pol.slow_network : 1.0;
    if (j->gpus > gs_cluster_max_domain(eng->cl))
        return 1.0;
    int domains = 0;
    for (int d = 0; d < gs_cluster_node_domains(eng->cl, parts[0].node); d++)
        domains += (parts[0].mask & gs_cluster_domain_mask(eng->cl, parts[0].node, d)) != 0;
    return domains > 1 ? eng->pol.slow_pcie : 1.0;
}

/* Interference factor of `job` from the other jobs on its shared GPU. */
static double share_factor(const struct gs_engine *eng, int job, const struct job *j)
{
    if (j->nparts != 1 || j->mig_slot || j->alloc_milli >= GS_MILLI_GPU)
        return 1.0;
    const struct gs_alloc_part *p = &eng->parts[j->parts_off];
    int64_t gi = gs_cluster_node_first_gpu(eng->cl, p->node) + __builtin_ctzll(p->mask);
    double f = 1.0, loss = 1.0 - eng->pol.slow_corunner;
    for (int o = gs_eng_place_first(eng, gi); o >= 0; o = gs_eng_place_next(eng, o)) {
        if (o == job)
            continue;
        double c = 1.0 - loss * (eng->jobs[o].mem_bw / 500.0);
        f *= c < MIN_FACTOR ? MIN_FACTOR : c;
    }
    return f;
}

int gs_eng_rate(const struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    if (j->state != GS_JOB_RUNNING)
        return GS_RATE_FULL;
    double r = topo_factor(eng, j) * share_factor(eng, job, j);
    long v = lround(r * GS_RATE_FULL);
    return v < 1 ? 1 : v > GS_RATE_FULL ? GS_RATE_FULL : (int)v;
}

/* Recompute the rate of every running job on global GPU `gi`. */
static void update_gpu(struct gs_engine *eng, gs_time now, int64_t gi)
{
    for (int o = gs_eng_place_first(eng, gi); o >= 0; o = gs_eng_place_next(eng, o)) {
        const struct job *j = &eng->jobs[o];
        if (j->state != GS_JOB_RUNNING || j->run_pos < 0)
            continue;
        struct gs_progress *pr = &eng->prog[j->run_pos];
        int rate = gs_eng_rate(eng, o);
        if (rate == pr->rate)
            continue;
        gs_progress_set_rate(pr, now, rate);
        struct gs_event ev = { .kind = GS_EV_RATE, .time = now, .job = o,
                               .until = GS_TIME_NONE };
        gs_eng_emit(eng, &ev);
    }
}

void gs_eng_update_rates(struct gs_engine *eng, gs_time now, const struct gs_alloc *a)
{
    if (a->mig_slot || a->milli >= GS_MILLI_GPU)
        return; /* whole GPUs and MIG instances have no co-runners */
    for (int i = 0; i < a->nparts; i++) {
        int64_t first = gs_cluster_node_first_gpu(eng->cl, a->parts[i].node);
        for (uint64_t m = a->parts[i].mask; m; m &= m - 1)
            update_gpu(eng, now, first + __builtin_ctzll(m));
    }
}

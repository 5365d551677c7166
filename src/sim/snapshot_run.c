/* snapshot_run.c - one scheduling pass over a cluster snapshot. */
#include "sim/snapshot_run.h"
#include "core/base/alloc.h"
#include "sim/latency.h"

#include <stdio.h>
#include <string.h>

/* Restore GPU `g` of `node` as a running job using what `busy` shows on it. */
static int restore_gpu(struct gs_engine *eng, const struct gs_cluster *busy, int node, int g,
                       gs_time now, int state, struct gs_error *err)
{
    static const char *const kinds[] = { "busy", "drain", "down" };
    static const char *const teams[] = { "(busy)", "(drain)", "(down)" };
    char id[GS_NAME_MAX + 32];
    snprintf(id, sizeof id, "%s:%s:%d", kinds[state], gs_cluster_node_name(busy, node), g);
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = id;
    s.submit = now;
    s.gpus = 1;
    s.milli = gs_cluster_gpu_used_milli(busy, node, g);
    s.mem_mib = gs_cluster_gpu_used_mem(busy, node, g);
    s.team = teams[state];
    struct gs_job_info info;
    memset(&info, 0, sizeof info);
    info.state = GS_JOB_RUNNING;
    info.submit = info.first_start = info.start = now;
    info.end = info.estimate = GS_TIME_NONE;
    struct gs_alloc_part part = { node, 1ULL << g };
    struct gs_alloc a;
    memset(&a, 0, sizeof a);
    a.nparts = a.cap = 1;
    a.parts = &part;
    a.milli = s.milli;
    a.mem_mib = s.mem_mib;
    int rc = gs_engine_restore_job(eng, &s, &info, &a, err);
    return rc < 0 ? rc : 0;
}

static int restore_busy(struct gs_engine *eng, const struct gs_cluster *busy, gs_time now,
                        const uint8_t *node_state, struct gs_error *err)
{
    const struct gs_cluster *held = gs_engine_cluster(eng);
    for (int n = 0; n < gs_cluster_node_count(busy); n++) {
        int state = node_state && node_state[n] <= GS_NODE_DOWN ? node_state[n] : GS_NODE_UP;
        for (int g = 0; g < gs_cluster_node_gpus(busy, n); g++) {
            if (gs_cluster_gpu_used_milli(busy, n, g) <= 0 ||
                gs_cluster_gpu_used_milli(held, n, g) > 0)
                continue;
            int rc = restore_gpu(eng, busy, n, g, now, state, err);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

static int submit_queue(struct gs_engine *eng, const struct gs_trace *queue, gs_time now,
                        struct gs_error *err)
{
    size_t n = gs_trace_count(queue);
    if (n == 0)
        return 0;
    size_t *order = gs_trace_order(queue);
    if (!order)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct gs_job_spec *s = gs_trace_job(queue, order[i]);
        if (s->submit > now)
            rc = gs_errorf(err, GS_EINVAL, "job %s: submitted after the snapshot time", s->id);
        else if ((rc = gs_engine_submit(eng, now, s, err)) > 0)
            rc = 0;
    }
    gs_free(order);
    return rc < 0 ? rc : 0;
}

/* The snapshot's running jobs, with their own ids and ends. */
static int restore_running(struct gs_engine *eng, const struct gs_snapshot_jobs *run,
                           struct gs_error *err)
{
    for (size_t i = 0; run && run->jobs && i < gs_trace_count(run->jobs); i++) {
        struct gs_job_spec s = *gs_trace_job(run->jobs, i);
        struct gs_job_info info;
        memset(&info, 0, sizeof info);
        info.state = GS_JOB_RUNNING;
        info.submit = s.submit;
        info.first_start = info.start = run->start[i];
        info.end = GS_TIME_NONE;
        info.estimate = s.time_limit > 0 ? s.time_limit : GS_TIME_NONE;
        info.runs = 1;
        int rc = gs_engine_restore_job(eng, &s, &info, &run->allocs[i], err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

struct gs_engine *gs_snapshot_run(const struct gs_cluster *idle, const struct gs_cluster *busy,
                                  const struct gs_policy *pol, const struct gs_trace *queue,
                                  gs_time now, int *first_queued, struct gs_error *err)
{
    return gs_snapshot_run_jobs(idle, busy, pol, queue, now, NULL, first_queued, err);
}

struct gs_engine *gs_snapshot_run_jobs(const struct gs_cluster *idle,
                                       const struct gs_cluster *busy,
                                       const struct gs_policy *pol,
                                       const struct gs_trace *queue, gs_time now,
                                       const struct gs_snapshot_jobs *run, int *first_queued,
                                       struct gs_error *err)
{
    struct gs_engine *eng = gs_engine_create(idle, pol, err);
    if (!eng)
        return NULL;
    gs_latency_attach(eng);
    int rc = restore_running(eng, run, err);
    if (rc == 0)
        rc = restore_busy(eng, busy, now, run ? run->node_state : NULL, err);
    *first_queued = gs_engine_job_count(eng);
    if (rc == 0)
        rc = submit_queue(eng, queue, now, err);
    if (rc == 0 && (rc = gs_engine_step(eng, now, err)) > 0)
        rc = 0;
    if (rc < 0) {
        gs_engine_destroy(eng);
        return NULL;
    }
    return eng;
}

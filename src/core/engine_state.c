/* engine_state.c - restoring a saved engine state, job by job. */
#include "core/engine_private.h"
#include "core/alloc.h"

static int restore_running(struct gs_engine *eng, int job, const struct gs_job_info *info,
                           const struct gs_alloc *alloc)
{
    struct job *j = &eng->jobs[job];
    struct gs_alloc a = *alloc;
    a.milli = alloc->milli > 0 ? alloc->milli : j->milli; /* MIG, exclusive: as taken */
    a.mig_reconf = 0;
    a.cpu_milli = j->cpu_milli;
    a.host_mem_mib = j->host_mem_mib;
    if (a.nparts > 0)
        gs_cluster_alloc(eng->cl, &a, NULL); /* checked by the caller */
    gs_eng_leave_pending(eng, job);
    gs_eng_mark_running(eng, job, info->start, 0, &a);
    return 0;
}

int gs_engine_restore_job(struct gs_engine *eng, const struct gs_job_spec *spec,
                          const struct gs_job_info *info, const struct gs_alloc *alloc,
                          struct gs_error *err)
{
    gs_time now = info->end != GS_TIME_NONE ? info->end : info->start;
    if (now == GS_TIME_NONE || now < spec->submit)
        now = spec->submit;
    int rc = gs_eng_check_spec(spec, now, err);
    if (rc < 0)
        return rc;
    if (gs_engine_job_find(eng, spec->id) >= 0)
        return gs_errorf(err, GS_EEXIST, "job %s: id already used", spec->id);
    int running = info->state == GS_JOB_RUNNING;
    if (running) {
        if (!alloc || info->start == GS_TIME_NONE)
            return gs_errorf(err, GS_EINVAL, "job %s: running without GPUs", spec->id);
        struct gs_alloc a = *alloc;
        a.milli = alloc->milli > 0 ? alloc->milli : spec->milli;
        a.mig_reconf = 0;
        if (spec->gpus > 0 && gs_cluster_can_alloc(eng->cl, &a, err) < 0)
            return err ? err->code : GS_ENOSPC;
        if (gs_eng_reserve_pools(eng, a.nparts) < 0)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
    }
    if (gs_grow((void **)&eng->pending, &eng->pending_cap, eng->ptail + 1,
                sizeof *eng->pending))
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int job = gs_eng_add_job(eng, spec, err);
    if (job < 0)
        return job;
    struct job *j = &eng->jobs[job];
    gs_eng_part_assign(eng, job); /* no partition: it runs unconstrained */
    eng->pending[eng->ptail++] = job; /* every job enters via the queue */
    eng->npending++;
    if (running) {
        restore_running(eng, job, info, alloc);
    } else if (info->state != GS_JOB_PENDING) {
        j->state = (uint8_t)info->state;
        gs_eng_leave_pending(eng, job);
        if (info->state == GS_JOB_DONE && eng->est.observe)
            eng->est.observe(eng->est.arg, eng, job, info->end - info->start);
    }
    j->submit = info->submit;
    j->first_start = info->first_start;
    j->start = info->start;
    j->end = info->end;
    j->estimate = info->estimate;
    j->backfilled = (uint8_t)info->backfilled;
    gs_eng_compact_pending(eng);
    return job;
}

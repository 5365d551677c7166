/* engine_state.c - restoring a saved engine state, job by job. */
#include "core/jobs/jobs.h"
#include "core/base/alloc.h"

/* Replay the current run of a job that holds GPUs from its start: the
 * progress arithmetic from the work it began with (info->run_base), with
 * the restore cost a restart pays, as the original engine did. */
static void replay_run(struct gs_engine *eng, int job, const struct gs_job_info *info)
{
    struct job *j = &eng->jobs[job];
    struct gs_progress *pr = &eng->prog[j->run_pos];
    gs_time restore = 0;
    if (info->runs > 1)
        restore = j->restore_cost >= 0 ? j->restore_cost : eng->pol.restore_cost;
    gs_progress_start(pr, info->start, info->run_base, j->ckpt_interval, j->ckpt_cost, restore,
                      pr->rate);
    j->saved = info->run_base;
    if (info->last_ckpt != GS_TIME_NONE && info->last_ckpt >= info->start &&
        info->saved > info->run_base)
        gs_progress_mark_saved(pr, info->last_ckpt); /* a reported checkpoint */
    if (info->state == GS_JOB_STOPPING) {
        gs_progress_advance(pr, info->stop_at);
        j->state = GS_JOB_STOPPING;
        j->stop_reason = (int16_t)info->stop_reason;
        j->stop_at = info->stop_at;
        eng->nstopping++;
        struct gs_alloc a;
        gs_eng_job_alloc(eng, j, &a);
        if (a.nparts > 0)
            gs_profile_occupy(eng->profile, &a, GS_TIME_INF);
    } else if (info->state == GS_JOB_STARTING) {
        j->state = GS_JOB_STARTING;
        eng->nstarting++;
    }
}

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
    replay_run(eng, job, info);
    return 0;
}

static int check_info(const struct gs_job_spec *spec, const struct gs_job_info *info,
                      struct gs_error *err)
{
    if (info->state < GS_JOB_PENDING || info->state > GS_JOB_FAILED)
        return gs_errorf(err, GS_EINVAL, "job %s: bad state %d", spec->id, info->state);
    if (info->state == GS_JOB_STOPPING &&
        (info->stop_reason != GS_JOB_PENDING && info->stop_reason != GS_JOB_CANCELLED &&
         info->stop_reason != GS_JOB_KILLED && info->stop_reason != GS_JOB_FAILED))
        return gs_errorf(err, GS_EINVAL, "job %s: stopping without a stop reason", spec->id);
    if (info->state == GS_JOB_STOPPING && info->stop_at < info->start)
        return gs_errorf(err, GS_EINVAL, "job %s: stop_at before start", spec->id);
    return 0;
}

/* The job's history: runs, work, losses, checkpoints, outcome. */
static void restore_history(struct job *j, const struct gs_job_info *info)
{
    j->submit = info->submit;
    j->first_start = info->first_start;
    j->start = info->start;
    j->end = info->end;
    j->estimate = info->estimate;
    j->backfilled = (uint8_t)info->backfilled;
    j->runs = info->runs;
    j->preemptions = info->preemptions;
    j->lost = info->lost;
    j->attempts = info->attempts;
    j->failures = (uint8_t)(info->failures < 0 ? 0 : info->failures > 255 ? 255 : info->failures);
    j->exit_code = (int16_t)info->exit_code;
    j->last_ckpt = info->last_ckpt;
    j->front = (uint8_t)(info->state == GS_JOB_PENDING && info->front);
    j->recover = (uint8_t)(info->state == GS_JOB_PENDING && info->recover);
    /* a hold (retry.hold) is not restored: the restarted job waits without
       one (docs/failures.md); what earlier holds cost is kept */
    j->held_gpu_ms = info->held_gpu_ms > 0 ? info->held_gpu_ms : 0;
    j->capped = (uint8_t)(info->capped != 0);
    j->timed_out = (uint8_t)(info->timed_out != 0);
    if (j->run_pos < 0) { /* not holding GPUs: the totals are the history */
        j->work = info->work;
        j->saved = info->saved;
        j->ckpt_wall = info->ckpt_wall;
        j->restore_wall = info->restore_wall;
    } else {
        j->work = info->run_base;
        j->ckpt_wall = info->past_ckpt_wall;
        j->restore_wall = info->past_restore_wall;
    }
}

int gs_engine_restore_job(struct gs_engine *eng, const struct gs_job_spec *spec,
                          const struct gs_job_info *info, const struct gs_alloc *alloc,
                          struct gs_error *err)
{
    gs_time now = info->end != GS_TIME_NONE ? info->end : info->start;
    if (now == GS_TIME_NONE || now < spec->submit)
        now = spec->submit;
    int rc = gs_eng_check_spec(spec, now, err);
    if (rc < 0 || (rc = check_info(spec, info, err)) < 0)
        return rc;
    if (gs_engine_job_find(eng, spec->id) >= 0)
        return gs_errorf(err, GS_EEXIST, "job %s: id already used", spec->id);
    int running = gs_job_state_holds(info->state);
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
    gs_eng_queue_append(eng, job); /* every job enters via the queue */
    eng->npending++;
    if (running) {
        restore_running(eng, job, info, alloc);
    } else if (info->state != GS_JOB_PENDING) {
        j->state = (uint8_t)info->state;
        gs_eng_leave_pending(eng, job);
        if (info->state == GS_JOB_DONE && eng->est.observe)
            eng->est.observe(eng->est.arg, eng, gs_eng_handle(eng, job),
                             info->end - info->start);
    }
    restore_history(j, info);
    if (info->qstamp != 0 && info->qstamp > INT64_MIN) { /* its journalled place */
        j->qstamp = info->qstamp;
        int64_t n = info->qstamp < 0 ? -info->qstamp : info->qstamp;
        if (n > eng->qstamps)
            eng->qstamps = n;
    }
    gs_eng_compact_pending(eng);
    return gs_eng_handle(eng, job);
}

int gs_engine_restore_queue(struct gs_engine *eng, const int *handles, size_t n,
                            struct gs_error *err)
{
    /* the array holds every pending job (and maybe dead entries), so it has
       room for the n given */
    if (n != eng->npending)
        return gs_errorf(err, GS_EINVAL, "queue order: %zu jobs given, %zu pending", n,
                         eng->npending);
    unsigned char *seen = gs_calloc(eng->njobs + 1, 1);
    if (!seen)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int job = gs_eng_slot(eng, handles[i]);
        if (job < 0 || eng->jobs[job].state != GS_JOB_PENDING || seen[job]++) {
            gs_free(seen);
            return gs_errorf(err, GS_EINVAL,
                             "queue order: entry %zu (%d) is not pending or given twice", i,
                             handles[i]);
        }
    }
    gs_free(seen);
    for (size_t i = 0; i < n; i++) {
        int job = gs_eng_slot(eng, handles[i]);
        eng->pending[i] = job;
        eng->jobs[job].qpos = (uint32_t)i;
    }
    eng->phead = 0;
    eng->ptail = n;
    eng->pending_gone = 0;
    eng->pending_epoch++; /* entries moved: the kept queue order rescans */
    return 0;
}

/* engine_query.c - read-only views of the engine and state restore. */
#include "core/jobs/jobs.h"
#include "core/base/alloc.h"

#include <stdlib.h>
#include <string.h>

const struct gs_cluster *gs_engine_cluster(const struct gs_engine *eng) { return eng->cl; }
const struct gs_policy *gs_engine_policy(const struct gs_engine *eng) { return &eng->pol; }
int gs_engine_job_count(const struct gs_engine *eng) { return eng->nhandles; }
int gs_engine_slot_count(const struct gs_engine *eng) { return (int)eng->njobs; }
int gs_engine_held_count(const struct gs_engine *eng) { return gs_strtab_live(eng->ids); }

int gs_engine_slot_handle(const struct gs_engine *eng, int slot)
{
    return slot >= 0 && (size_t)slot < eng->njobs ? eng->jobs[slot].handle : -1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int gs_engine_running_list(const struct gs_engine *eng, int *out, size_t cap)
{
    if (cap < eng->nrunning)
        return (int)eng->nrunning;
    for (size_t i = 0; i < eng->nrunning; i++)
        out[i] = eng->jobs[eng->running[i]].handle;
    if (eng->nrunning > 1)
        qsort(out, eng->nrunning, sizeof *out, cmp_int);
    return (int)eng->nrunning;
}
int gs_engine_pending_count(const struct gs_engine *eng) { return (int)eng->npending; }
int gs_engine_running_count(const struct gs_engine *eng) { return (int)eng->nrunning; }
gs_time gs_engine_now(const struct gs_engine *eng) { return eng->now; }

int gs_engine_job_find(const struct gs_engine *eng, const char *id)
{
    int job = gs_strtab_find(eng->ids, id);
    return job >= 0 ? gs_eng_handle(eng, job) : GS_ENOENT;
}

static const char *str(const struct gs_engine *eng, int id)
{
    return gs_strtab_name(eng->strs, id);
}

int gs_engine_job_info(const struct gs_engine *eng, int handle, struct gs_job_info *out)
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return GS_ENOENT;
    const struct job *j = &eng->jobs[job];
    out->id = gs_strtab_name(eng->ids, job);
    out->team = str(eng, j->team);
    out->user = str(eng, j->user);
    out->name = str(eng, j->name);
    out->queue = str(eng, j->queue);
    out->state = j->state;
    out->gpus = j->gpus;
    out->milli = j->milli;
    out->priority = j->priority;
    out->klass = j->klass;
    out->submit = j->submit;
    out->first_start = j->first_start;
    out->start = j->start;
    out->end = j->end;
    out->time_limit = j->time_limit;
    out->estimate = j->estimate;
    out->backfilled = j->backfilled;
    out->runs = j->runs;
    out->work = j->work;
    out->lost = j->lost;
    out->ckpt_wall = j->ckpt_wall;
    out->restore_wall = j->restore_wall;
    out->preemptions = j->preemptions;
    out->exit_code = j->exit_code;
    out->attempts = j->attempts;
    out->failures = j->failures;
    out->last_ckpt = j->last_ckpt;
    out->stop_reason = j->state == GS_JOB_STOPPING ? j->stop_reason : -1;
    out->stop_at = j->state == GS_JOB_STOPPING ? j->stop_at : GS_TIME_NONE;
    out->saved = j->saved;
    out->front = j->front;
    out->capped = j->capped;
    out->timed_out = j->timed_out;
    out->recover = j->recover;
    out->held = j->rheld;
    out->held_gpu_ms = j->held_gpu_ms;
    out->qstamp = j->qstamp;
    out->run_base = j->saved;
    out->past_ckpt_wall = j->ckpt_wall;
    out->past_restore_wall = j->restore_wall;
    if (j->run_pos >= 0) {
        /* include the current run, as of the engine's last call (a stopping
         * job's work was frozen when it was told to stop; a starting job
         * has not begun) */
        struct gs_progress pr = eng->prog[j->run_pos];
        if (j->state == GS_JOB_RUNNING)
            gs_progress_advance(&pr, eng->now);
        out->saved = gs_progress_saved(&pr);
        out->run_base = pr.run_start / 1000; /* work units -> ms (progress.h) */
        out->work = gs_progress_work(&pr);
        out->ckpt_wall += pr.ckpt_wall;
        out->restore_wall += pr.restore_wall;
    }
    return 0;
}

int gs_engine_job_eta(const struct gs_engine *eng, int handle, gs_time total_ms, gs_time *end)
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0 || eng->jobs[job].run_pos < 0)
        return GS_ESTATE;
    *end = gs_progress_eta(&eng->prog[eng->jobs[job].run_pos], total_ms);
    return 0;
}

struct gs_progress *gs_eng_progress(struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    return j->run_pos >= 0 ? &eng->prog[j->run_pos] : NULL;
}

int gs_engine_job_spec(const struct gs_engine *eng, int handle, struct gs_job_spec *out)
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return GS_ENOENT;
    const struct job *j = &eng->jobs[job];
    gs_job_spec_init(out);
    out->id = gs_strtab_name(eng->ids, job);
    out->submit = j->submit;
    out->gpus = j->gpus;
    out->milli = j->milli;
    out->mem_mib = j->mem_mib;
    out->topology = j->topology;
    out->priority = j->priority;
    out->klass = j->klass;
    out->team = str(eng, j->team);
    out->user = str(eng, j->user);
    out->name = str(eng, j->name);
    out->queue = str(eng, j->queue);
    out->gpu_model = j->gpu_type >= 0 ? gs_cluster_gpu_type_name(eng->cl, j->gpu_type) : NULL;
    out->time_limit = j->time_limit;
    out->ckpt_interval = j->ckpt_interval;
    out->ckpt_cost = j->ckpt_cost;
    out->restore_cost = j->restore_cost;
    out->cpu_milli = j->cpu_milli;
    out->host_mem_mib = j->host_mem_mib;
    return 0;
}

int gs_engine_job_alloc(const struct gs_engine *eng, int handle, struct gs_alloc *out)
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return GS_ENOENT;
    const struct job *j = &eng->jobs[job];
    if (j->first_start == GS_TIME_NONE)
        return GS_ESTATE;
    out->nparts = j->nparts;
    out->cap = j->nparts;
    out->parts = eng->parts ? eng->parts + j->parts_off : NULL; /* no GPU job yet: no pool */
    out->milli = j->alloc_milli > 0 ? j->alloc_milli : j->milli;
    out->mem_mib = j->alloc_mem;
    out->cpu_milli = j->cpu_milli;
    out->host_mem_mib = j->host_mem_mib;
    out->mig_slot = j->mig_slot;
    out->mig_reconf = 0;
    return 0;
}

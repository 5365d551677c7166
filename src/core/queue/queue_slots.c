/* queue_slots.c - the queue modules' per-slot table (struct gs_qjob,
 * queue_private.h): each job's coarse wait reason, its entry in the kept
 * order and the pass cycles that tried it, kept beside the job table
 * rather than in struct job.  Like the preemption modules' tables
 * (preempt_state.c) it grows with the job table (hooks.grow, called by
 * gs_eng_jobs_reserve), a new job's entry is zeroed (GS_HOOK_ADDED), and it
 * is freed with the queue state (gs_queue_state_free).  The floor's events
 * that used to write these fields in struct job now reach them here:
 * joining the queue array clears the cycles (GS_HOOK_QUEUED), a start
 * clears the wait reason (GS_HOOK_STARTED) and a requeue makes it
 * `resources` (GS_HOOK_STOPPED into PENDING). */
#include "core/queue/queue_private.h"

/* hooks.grow: the table follows the job table (the queue state is made
 * with the first slot, so it exists whenever a job does). */
static int qslots_grow(struct gs_engine *eng, size_t cap)
{
    struct gs_qstate *q = gs_queue_state(eng);
    if (!q)
        return GS_ENOMEM;
    return gs_eng_slot_table_grow((void **)&q->jobs, &q->jobs_cap, cap, sizeof *q->jobs);
}

/* GS_HOOK_ADDED: a new job in the slot is in no list, tried by no pass,
 * with no wait reason yet. */
static void qslots_added(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    *gs_queue_job(eng, job) = (struct gs_qjob){ 0 };
}

/* GS_HOOK_QUEUED: new to the queue array, no pass of the current cycle
 * has tried it (a job requeued to the front keeps its cycles). */
static void qslots_queued(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    struct gs_qjob *qj = gs_queue_job(eng, job);
    qj->tried_cycle = qj->keep_cycle = 0;
}

/* GS_HOOK_STARTED: a job on its GPUs waits for nothing. */
static void qslots_started(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    gs_queue_job(eng, job)->reason = GS_WAIT_NONE;
}

/* GS_HOOK_STOPPED: a run that ended in the queue (a requeue: preempted,
 * failed with a retry left) waits for resources until a pass says more. */
static void qslots_stopped(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    if (eng->jobs[job].state == GS_JOB_PENDING)
        gs_queue_job(eng, job)->reason = GS_WAIT_RESOURCES;
}

void gs_queue_slot_hooks(struct gs_eng_hooks *h)
{
    gs_eng_hook_grow_add(h, qslots_grow);
    gs_eng_hook_add(h, GS_HOOK_ADDED, qslots_added);
    gs_eng_hook_add(h, GS_HOOK_QUEUED, qslots_queued);
    gs_eng_hook_add(h, GS_HOOK_STARTED, qslots_started);
    gs_eng_hook_add(h, GS_HOOK_STOPPED, qslots_stopped);
}

int gs_queue_slots_check(const struct gs_engine *eng, struct gs_error *err)
{
    const struct gs_qstate *q = eng->q;
    if (eng->njobs == 0)
        return 0;
    if (!q || q->jobs_cap < eng->njobs)
        return gs_errorf(err, GS_ESTATE, "queue per-slot table (%zu) short of the %zu "
                         "slots in use", q ? q->jobs_cap : 0, eng->njobs);
    for (size_t s = 0; s < eng->njobs; s++)
        if (gs_job_state_holds(eng->jobs[s].state) && q->jobs[s].reason != GS_WAIT_NONE)
            return gs_errorf(err, GS_ESTATE, "slot %zu holds GPUs with wait reason %d", s,
                             q->jobs[s].reason);
    return 0;
}

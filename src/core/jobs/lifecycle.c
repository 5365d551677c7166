/* lifecycle.c - a job's life: pending -> starting -> running -> stopping
 * -> done, below the policies (queue, preemption, caps call into it).
 *
 *            submit            START decided           started()
 *   (new) ---------> PENDING ----------------> STARTING ----------> RUNNING
 *                      ^  ^                       |                 |  |
 *                      |  +--- launch_failed() ---+  (retry left)   |  |
 *                      |       node down (retry left) --------------+  |
 *                      |                                                |
 *                      |   stop decided (KILL, PREEMPT, CANCEL, DRAIN end)
 *                      |                                                v
 *                      +------- exited() [target requeue] --------- STOPPING
 *                                                                       |
 *            DONE (exit 0) / FAILED (exit != 0, no retry left) /        |
 *            KILLED / CANCELLED  <----- exited() [target] --------------+
 *
 * Off live mode (the simulator) a START is confirmed at once (the job goes
 * straight to RUNNING) and a stop takes effect at once, so no job is ever
 * STARTING or STOPPING and every schedule is what it was before live mode.
 *
 * In live mode a STARTING or STOPPING job holds its GPUs: it stays in the
 * running set (run_pos >= 0), its team and partition usage count, and the
 * availability profile plans its GPUs busy (a stopping job's until further
 * notice).  It is never a preemption candidate, and while any job is
 * stopping no new preemption is planned (its victims' GPUs are not free yet;
 * planning again would pick more victims for the same waiter).
 *
 * A stopping job's work is frozen when it is told to stop: what it does
 * between the order and its exit is not credited (a checkpoint it reports
 * meanwhile is: gs_engine_checkpointed).
 */
#include "core/jobs/jobs.h"
#include "core/base/alloc.h"

#include <string.h>

void gs_engine_set_live(struct gs_engine *eng, int live)
{
    eng->live = live != 0;
}

static const char *job_id(const struct gs_engine *eng, int job)
{
    return gs_strtab_name(eng->ids, job);
}

static void emit(struct gs_engine *eng, int kind, gs_time now, int job)
{
    struct gs_event ev = { kind, now, job, NULL, GS_TIME_NONE, 0 };
    gs_eng_emit(eng, &ev);
}

void gs_eng_lifecycle_started(struct gs_engine *eng, int job)
{
    struct job *j = &eng->jobs[job];
    j->attempts++;
    j->front = 0;
    j->recover = 0;
    if (eng->live) {
        j->state = GS_JOB_STARTING;
        eng->nstarting++;
    }
}

int gs_eng_may_preempt(const struct gs_engine *eng)
{
    return !eng->live || eng->nstopping == 0;
}

/* Move the run's snapshot to `now` without progress: the time between a
 * START decision and the launch (or its failure) does no work. */
static void shift_progress(struct gs_progress *pr, gs_time now)
{
    if (now <= pr->t)
        return;
    if (pr->phase != GS_PHASE_COMPUTE)
        pr->phase_end = gs_time_add(pr->phase_end, now - pr->t);
    pr->t = now;
}

/* Room for one more queue entry at the back, or at the front (FIFO order
 * is the array's order). */
static int grow_pending(struct gs_engine *eng)
{
    if (eng->ptail == eng->pending_cap && eng->phead > 0)
        gs_eng_compact_pending(eng);
    return gs_grow((void **)&eng->pending, &eng->pending_cap, eng->ptail + 2,
                   sizeof *eng->pending)
               ? GS_ENOMEM
               : 0;
}

static void enqueue(struct gs_engine *eng, int job, int front)
{
    if (!front) {
        gs_eng_queue_append(eng, job);
    } else {
        if (eng->phead == 0) { /* shift the array by one, entries' positions too */
            memmove(eng->pending + 1, eng->pending, eng->ptail * sizeof *eng->pending);
            eng->ptail++;
            eng->phead++;
            for (size_t i = eng->ptail - 1; i >= 1; i--) { /* descending: a job may
                                                              have two entries */
                struct job *o = &eng->jobs[eng->pending[i]];
                if (o->qpos == i - 1)
                    o->qpos = (uint32_t)i;
            }
        }
        eng->pending[--eng->phead] = job;
        eng->jobs[job].qpos = (uint32_t)eng->phead;
        eng->jobs[job].qstamp = -++eng->qstamps;
        eng->pending_epoch++; /* not at the tail: the queue order rescans */
    }
    eng->npending++;
    eng->pass_blocked = 0; /* the queue changed ahead of where the pass stopped */
}

/* Off the GPUs and back in the queue, losing the work since the last
 * checkpoint (the progress model's requeue; docs/preemption.md). */
static void requeue(struct gs_engine *eng, int job, gs_time now, int front)
{
    struct job *j = &eng->jobs[job];
    gs_eng_stop_running(eng, job, now, GS_JOB_PENDING);
    j->lost += j->work - j->saved;
    j->work = j->saved;
    j->end = GS_TIME_NONE; /* no longer draining: drain.c's GS_HOOK_STOPPED;
                              its wait reason is resources: queue_slots.c's */
    j->front = (uint8_t)front;
    enqueue(eng, job, front);
}

/* Carry out a stop that was decided (off live mode: now; in live mode:
 * when the driver confirms it). */
static void carry_out(struct gs_engine *eng, int job, gs_time now, int target)
{
    if (target == GS_JOB_PENDING) {
        if (eng->jobs[job].deadline <= now)
            eng->jobs[job].capped = 1;
        requeue(eng, job, now, 0);
        eng->jobs[job].preemptions++;
    } else {
        gs_eng_stop_running(eng, job, now, target);
    }
}

int gs_eng_stop_job(struct gs_engine *eng, int job, gs_time now, int target, int ev_kind)
{
    struct job *j = &eng->jobs[job];
    if (!eng->live) {
        carry_out(eng, job, now, target);
        emit(eng, ev_kind, now, job);
        return 0;
    }
    if (j->state == GS_JOB_STOPPING) { /* already told; a cancel wins */
        if (target == GS_JOB_CANCELLED)
            j->stop_reason = GS_JOB_CANCELLED;
        emit(eng, ev_kind, now, job);
        return 0;
    }
    struct gs_progress *pr = &eng->prog[j->run_pos];
    if (j->state == GS_JOB_STARTING) {
        eng->nstarting--;
        shift_progress(pr, now);
    }
    gs_progress_advance(pr, now);
    j->state = GS_JOB_STOPPING;
    j->stop_reason = (int16_t)target;
    j->stop_at = now;
    eng->nstopping++;
    struct gs_alloc a;
    gs_eng_job_alloc(eng, j, &a);
    if (a.nparts > 0)
        gs_profile_occupy(eng->profile, &a, GS_TIME_INF); /* busy until confirmed */
    emit(eng, ev_kind, now, job);
    return 0;
}

int gs_eng_fail_run(struct gs_engine *eng, int job, gs_time now, int why)
{
    struct job *j = &eng->jobs[job];
    int bit = why ? GS_RETRY_LAUNCH_FAILURE : GS_RETRY_NODE_FAILURE;
    if (grow_pending(eng) < 0)
        return GS_ENOMEM;
    if (j->state == GS_JOB_STOPPING) { /* its processes are gone: the stop is done */
        eng->nstopping--;
        carry_out(eng, job, now, j->stop_reason);
        j->stop_reason = -1;
        emit(eng, GS_EV_FAIL, now, job);
        return 0;
    }
    if (j->failures < UINT8_MAX)
        j->failures++;
    if (j->state == GS_JOB_STARTING) {
        eng->nstarting--;
        shift_progress(&eng->prog[j->run_pos], now);
    }
    j->state = GS_JOB_RUNNING; /* stop_running's view of a job that held GPUs */
    int retry = (gs_policy_retry_on(&eng->pol) & bit) &&
                j->failures < eng->pol.retry_max_attempts;
    if (retry) {
        requeue(eng, job, now, why != 0 || eng->pol.retry_expedite);
        j->recover = (uint8_t)(why == 0 || j->recover); /* hot spares (spares.c) */
        if (why) { /* nothing ran: the failed launch is not a run */
            j->runs--;
            if (j->runs == 0)
                j->first_start = GS_TIME_NONE;
        }
    } else {
        gs_eng_stop_running(eng, job, now, GS_JOB_FAILED);
    }
    emit(eng, GS_EV_FAIL, now, job);
    return 0;
}

int gs_engine_started(struct gs_engine *eng, gs_time now, int handle, struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err), rc;
    if (job < 0)
        return job;
    struct job *j = &eng->jobs[job];
    if (j->state != GS_JOB_STARTING)
        return gs_errorf(err, GS_ESTATE, "job %s is not starting", job_id(eng, job));
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    if (gs_eng_reserve_pools(eng, 0) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    struct gs_progress *pr = &eng->prog[j->run_pos];
    shift_progress(pr, now);
    j->state = GS_JOB_RUNNING;
    eng->nstarting--;
    /* the run starts now: its start, runtime cap and overrun watch follow
     * (the entries of the decided start go stale) */
    if (j->first_start == j->start)
        j->first_start = now;
    j->start = now;
    j->deadline = gs_eng_deadline(eng, job);
    gs_eng_watch_overrun(eng, job);
    int rate = gs_eng_rate(eng, job);
    if (rate != pr->rate)
        gs_progress_set_rate(pr, now, rate);
    if (j->estimate != GS_TIME_NONE) { /* plan its end from the real start */
        struct gs_alloc a;
        gs_eng_job_alloc(eng, j, &a);
        if (a.nparts > 0)
            gs_profile_occupy(eng->profile, &a, gs_time_add(now, j->estimate));
    }
    return 0;
}

int gs_engine_launch_failed(struct gs_engine *eng, gs_time now, int handle, struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err), rc;
    if (job < 0)
        return job;
    int st = eng->jobs[job].state;
    if (st != GS_JOB_STARTING && st != GS_JOB_STOPPING)
        return gs_errorf(err, GS_ESTATE, "job %s is not starting", job_id(eng, job));
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    if (gs_eng_fail_run(eng, job, now, 1) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

int gs_engine_run_lost(struct gs_engine *eng, gs_time now, int handle, struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err), rc;
    if (job < 0)
        return job;
    if (!gs_job_state_holds(eng->jobs[job].state))
        return gs_errorf(err, GS_ESTATE, "job %s is not running", job_id(eng, job));
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    if (gs_eng_fail_run(eng, job, now, 0) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

int gs_engine_launch_deferred(struct gs_engine *eng, gs_time now, int handle,
                              struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err), rc;
    if (job < 0)
        return job;
    struct job *j = &eng->jobs[job];
    if (j->state == GS_JOB_STOPPING) /* the stop is confirmed: nothing ran */
        return gs_engine_launch_failed(eng, now, handle, err);
    if (j->state != GS_JOB_STARTING)
        return gs_errorf(err, GS_ESTATE, "job %s is not starting", job_id(eng, job));
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    if (grow_pending(eng) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    eng->nstarting--;
    shift_progress(&eng->prog[j->run_pos], now);
    j->state = GS_JOB_RUNNING; /* stop_running's view of a job that held GPUs */
    requeue(eng, job, now, 1);
    j->attempts--; /* not an attempt of the job's: the same one is made again */
    j->runs--;     /* and nothing ran */
    if (j->runs == 0)
        j->first_start = GS_TIME_NONE;
    return 0;
}

/* A running job ended on its own with `code`. */
static void ended(struct gs_engine *eng, int job, gs_time now, int code)
{
    struct job *j = &eng->jobs[job];
    gs_eng_stop_running(eng, job, now, code == 0 ? GS_JOB_DONE : GS_JOB_FAILED);
    if (code == 0 && eng->est.observe)
        eng->est.observe(eng->est.arg, eng, gs_eng_handle(eng, job), now - j->start);
    emit(eng, GS_EV_FINISH, now, job);
}

int gs_engine_exited(struct gs_engine *eng, gs_time now, int handle, int exit_code,
                     struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err), rc;
    if (job < 0)
        return job;
    struct job *j = &eng->jobs[job];
    if (!gs_job_state_holds(j->state))
        return gs_errorf(err, GS_ESTATE, "job %s is not running", job_id(eng, job));
    if (exit_code < 0 || exit_code > 255 + 128)
        return gs_errorf(err, GS_EINVAL, "job %s: exit code %d out of range", job_id(eng, job),
                         exit_code);
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    if (j->state == GS_JOB_STOPPING) {
        int target = j->stop_reason;
        if (target == GS_JOB_PENDING && grow_pending(eng) < 0)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        eng->nstopping--;
        carry_out(eng, job, now, target);
        j->stop_reason = -1;
        j->exit_code = (int16_t)exit_code;
        return 0;
    }
    if (j->state == GS_JOB_STARTING) { /* it ran and ended before the confirmation */
        shift_progress(&eng->prog[j->run_pos], now);
        j->state = GS_JOB_RUNNING;
        eng->nstarting--;
    }
    j->exit_code = (int16_t)exit_code;
    if (exit_code != 0 && eng->hooks.draining(eng, job)) {
        /* told to checkpoint and stop (GS_EV_DRAIN), it stopped before the
         * grace ended: the preemption is carried out now */
        if (grow_pending(eng) < 0)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        gs_eng_hooks_run(eng, GS_HOOK_DRAIN_DUE, job, now); /* its waiter starts at the next step */
        carry_out(eng, job, now, GS_JOB_PENDING);
        emit(eng, GS_EV_PREEMPT, now, job);
        return 0;
    }
    ended(eng, job, now, exit_code);
    return 0;
}

int gs_engine_checkpointed(struct gs_engine *eng, gs_time now, int handle, struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err), rc;
    if (job < 0)
        return job;
    struct job *j = &eng->jobs[job];
    if (j->state != GS_JOB_RUNNING && j->state != GS_JOB_STOPPING)
        return gs_errorf(err, GS_ESTATE, "job %s is not running", job_id(eng, job));
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    struct gs_progress *pr = &eng->prog[j->run_pos];
    gs_progress_mark_saved(pr, j->state == GS_JOB_STOPPING ? j->stop_at : now);
    j->last_ckpt = now;
    return 0;
}

int gs_engine_retire(struct gs_engine *eng, int handle, struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err);
    if (job < 0)
        return job;
    struct job *j = &eng->jobs[job];
    if (!gs_job_state_terminal(j->state))
        return gs_errorf(err, GS_ESTATE, "job %s has not ended", job_id(eng, job));
    gs_eng_hooks_run(eng, GS_HOOK_RETIRED, job, eng->now);
    if (handle != job)
        gs_intmap_del(eng->moved, handle);
    gs_strtab_remove(eng->ids, job); /* the id is free again; the slot goes to the next job */
    j->handle = -1;
    eng->parts_dead += j->nparts;
    j->nparts = 0;
    gs_eng_compact_parts(eng);
    return 0;
}

/* loop_jobs.c - the engine thread's job bookkeeping: engine decisions turned
 * into backend actions and journal rows, ended supervisors turned into
 * engine calls, and the restart path (journal -> engine, backend
 * reconciled).
 *
 * The engine runs in live mode (engine.h): a START leaves the job starting
 * until the launch is confirmed (gs_engine_started, in the turn after the
 * launch), a stop leaves it stopping with its GPUs held until its
 * supervisor reports every process gone (gs_engine_exited).  The daemon's
 * job state is the engine's; terminal jobs are written and retired from the
 * engine, so its memory follows the live jobs.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/log.h"
#include "daemon/loop_log.h"
#include "daemon/loop_eta.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/base/alloc.h"
#include "daemon/view.h"
#include "io/api_codec.h"
#include "io/placement.h"


const char *gsd_state_name(int s)
{
    static const char *const n[] = { "pending", "starting", "running", "stopping", "done" };
    return s >= 0 && s <= D_DONE ? n[s] : "done";
}

const char *gsd_outcome_name(int o)
{
    static const char *const n[] = { NULL, "completed", "failed", "cancelled", "killed",
                                     "rejected", "timeout" };
    return o > 0 && o <= O_TIMEOUT ? n[o] : NULL;
}

int gsd_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

struct djob *gsd_job_new(struct gsd_loop *lp, int64_t seq, const char *id, const char *team,
                         const char *user, int gpus)
{
    if (gsd_grow((void **)&lp->live, &lp->caplive, lp->nlive + 1, sizeof(struct djob *)) < 0)
        return NULL;
    struct djob *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->seq = seq;
    d->handle = -1;
    d->id = strdup(id);
    d->team = strdup(team ? team : "default");
    d->user = strdup(user ? user : "-");
    d->gpus = gpus;
    d->milli = 1000;
    d->submit = d->real_end = d->decided = GS_TIME_NONE;
    d->ji.state = GS_JOB_PENDING;
    d->ji.first_start = d->ji.start = d->ji.end = d->ji.last_ckpt = GS_TIME_NONE;
    d->ji.exit_code = -1;
    d->ji.stop_reason = -1;
    d->proc.pidfd = -1;
    gsd_vjob_init(&d->view);
    d->kill_tm = (struct gsd_timer){ .kind = GSD_TM_KILL, .arg = d };
    d->retry_tm = (struct gsd_timer){ .kind = GSD_TM_RETRY, .arg = d };
    d->eta_tm = (struct gsd_timer){ .kind = GSD_TM_ETA, .arg = d };
    d->li = lp->nlive;
    lp->live[lp->nlive++] = d;
    return d;
}

int gsd_job_index(struct gsd_loop *lp, struct djob *d, int handle)
{
    if (handle < 0 || gs_intmap_put(lp->byh, handle, (int)d->li) < 0)
        return -1;
    d->handle = handle;
    return 0;
}

struct djob *gsd_job_of_handle(struct gsd_loop *lp, int h)
{
    int i = gs_intmap_get(lp->byh, h);
    return i >= 0 ? lp->live[i] : NULL;
}

struct djob *gsd_job_by_id(struct gsd_loop *lp, const char *id)
{
    int h = gs_engine_job_find(lp->eng, id);
    struct djob *d = h >= 0 ? gsd_job_of_handle(lp, h) : NULL;
    if (d)
        return d;
    for (size_t i = 0; i < lp->nlive; i++) /* live jobs the engine no longer holds */
        if (lp->live[i]->handle < 0 && !strcmp(lp->live[i]->id, id))
            return lp->live[i];
    return NULL;
}

void gsd_job_dirty(struct gsd_loop *lp, struct djob *d)
{
    d->dirty = 1;
    gsd_jl_add(lp, GSD_JL_DIRTY, d);
}

int gsd_job_placement(struct gsd_loop *lp, const struct djob *d, struct gs_alloc_part *out,
                      int cap)
{
    struct gs_job_info ji;
    struct gs_alloc a;
    if (d->handle >= 0 && gs_engine_job_info(lp->eng, d->handle, &ji) == 0 &&
        gs_job_state_holds(ji.state) && gs_engine_job_alloc(lp->eng, d->handle, &a) == 0) {
        if (a.nparts > cap)
            return -1;
        if (a.nparts > 0)
            memcpy(out, a.parts, (size_t)a.nparts * sizeof *out);
        return a.nparts;
    }
    int n = gs_placement_parse(gs_engine_cluster(lp->eng), d->placement, out, cap, NULL);
    return n < 0 ? -1 : n;
}


/* "node-1:0,node-1:1" of an allocation (io/placement.h, LIST); NULL on
 * ENOMEM. */
static char *placement_text(const struct gs_cluster *cl, const struct gs_alloc *a)
{
    size_t len = gs_placement_format(NULL, 0, cl, a->parts, a->nparts, GS_PLACEMENT_LIST);
    char *s = malloc(len + 1);
    if (s)
        gs_placement_format(s, len + 1, cl, a->parts, a->nparts, GS_PLACEMENT_LIST);
    return s;
}

void gsd_observer(void *arg, const struct gs_event *ev)
{
    struct gsd_loop *lp = arg;
    if (lp->trace)
        gsd_logl(GSD_LOG_DEBUG, "event %d job %d at %lld until %lld", ev->kind, ev->job,
                 (long long)ev->time, (long long)ev->until);
    if (ev->kind == GS_EV_RESERVE) { /* the first of each wait goes to the history */
        struct djob *d = gsd_job_of_handle(lp, ev->job);
        if (!d || d->reserve_noted)
            return;
        d->reserve_noted = 1;
    }
    if (ev->kind == GS_EV_RATE)
        return;
    if (gsd_grow((void **)&lp->evs, &lp->capev, lp->nev + 1, sizeof *lp->evs) < 0) {
        lp->oom = 1;
        return;
    }
    struct devent *e = &lp->evs[lp->nev++];
    *e = (struct devent){ ev->kind, ev->job, ev->time, ev->until, NULL, 0, 0 };
    if (ev->kind == GS_EV_START && ev->alloc) {
        e->milli = ev->alloc->milli;
        e->mem_mib = ev->alloc->mem_mib;
        e->placement = placement_text(gs_engine_cluster(lp->eng), ev->alloc);
        if (!e->placement)
            lp->oom = 1;
    }
}

/* The daemon state and outcome of an engine job state. */
static void map_state(int st, int timed_out, int *state, int *outcome)
{
    *outcome = O_NONE;
    switch (st) {
    case GS_JOB_PENDING: *state = D_PENDING; return;
    case GS_JOB_STARTING: *state = D_STARTING; return;
    case GS_JOB_RUNNING: *state = D_RUNNING; return;
    case GS_JOB_STOPPING: *state = D_STOPPING; return;
    default: break;
    }
    *state = D_DONE;
    *outcome = st == GS_JOB_DONE        ? O_COMPLETED
               : st == GS_JOB_KILLED    ? (timed_out ? O_TIMEOUT : O_KILLED)
               : st == GS_JOB_CANCELLED ? O_CANCELLED
               : st == GS_JOB_REJECTED  ? O_REJECTED
                                        : O_FAILED;
}

void gsd_job_sync(struct gsd_loop *lp, struct djob *d)
{
    struct gs_job_info ji;
    if (d->handle < 0 || gs_engine_job_info(lp->eng, d->handle, &ji) < 0)
        return;
    int was = d->state;
    gsd_fail_account(lp, &d->ji, &ji); /* lost work, restarts, ends: failstats.c */
    d->ji = ji;
    map_state(ji.state, ji.timed_out, &d->state, &d->outcome);
    gsd_log_job_end(lp, d, was);
    gsd_job_dirty(lp, d);
    gsd_eta_sync(lp, d);
}

/* Tell the job's processes to stop: TERM now, KILL after kill_wait.  A job
 * decided but not launched yet has none: its stop is confirmed at once. */
static void stop_procs(struct gsd_loop *lp, struct djob *d, gs_time now)
{
    if (d->proc.pid > 0) {
        if (gsd_be_signal(lp, &d->proc, GSD_SIG_TERM) < 0) {
            gsd_job_exited(lp, d);
            lp->again = 1;
        }
        gsd_kill_arm(lp, d);
        return;
    }
    if (d->launch_wanted) {
        d->launch_wanted = 0;
        gs_engine_launch_failed(lp->eng, now, d->handle, NULL); /* confirms the stop */
    }
}

static void on_start(struct gsd_loop *lp, struct djob *d, struct devent *e)
{
    free(d->placement);
    d->placement = e->placement;
    e->placement = NULL;
    d->alloc_milli = e->milli;
    d->alloc_mem = e->mem_mib;
    d->reserve_noted = 0;
    if (d->ji.first_start == GS_TIME_NONE)
        gsd_hist_add(&lp->wait_s, (double)(e->time - d->submit) / 1000.0);
    d->launch_wanted = 1;
    gsd_jl_add(lp, GSD_JL_LAUNCH, d);
    d->decided = e->time;
}

static const char *event_name(int kind)
{
    static const char *const n[] = {
        [GS_EV_START] = "start", [GS_EV_KILL] = "kill", [GS_EV_CANCEL] = "cancel",
        [GS_EV_REJECT] = "reject", [GS_EV_PREEMPT] = "preempt", [GS_EV_DRAIN] = "drain",
        [GS_EV_FAIL] = "fail", [GS_EV_RESERVE] = "reserve",
    };
    return kind >= 0 && kind < (int)(sizeof n / sizeof n[0]) ? n[kind] : NULL;
}

static void apply_event(struct gsd_loop *lp, struct djob *d, struct devent *e, gs_time now)
{
    if (e->kind == GS_EV_START)
        on_start(lp, d, e);
    else if (e->kind == GS_EV_PREEMPT)
        lp->preemptions++;
    else if (e->kind == GS_EV_DRAIN && d->proc.pid > 0)
        gsd_be_signal(lp, &d->proc, GSD_SIG_CHECKPOINT);
    gsd_job_sync(lp, d);
    if ((e->kind == GS_EV_PREEMPT || e->kind == GS_EV_KILL || e->kind == GS_EV_CANCEL) &&
        d->state == D_STOPPING) {
        d->stop_turn = lp->turns;
        stop_procs(lp, d, now);
    }
    const char *name = event_name(e->kind);
    if (name) {
        char detail[96] = "";
        char t[40];
        if (e->kind == GS_EV_START)
            snprintf(detail, sizeof detail, "attempt %d on %.60s", d->ji.attempts,
                     d->placement ? d->placement : "");
        else if (e->kind == GS_EV_RESERVE)
            snprintf(detail, sizeof detail, "planned start %s",
                     gs_api_rfc3339(e->until, t, sizeof t));
        gs_store_event(lp->st, e->time, d->seq, name, detail[0] ? detail : NULL, NULL);
    }
    gsd_job_sync(lp, d);
    gsd_log_job_event(lp, d, e->kind);
    if (e->kind == GS_EV_FAIL && d->state == D_PENDING) { /* no processes to wait for */
        char detail[64];
        snprintf(detail, sizeof detail, "after attempt %d", d->ji.attempts);
        gs_store_event(lp->st, e->time, d->seq, "requeue", detail, NULL);
    }
}

int gsd_events_apply(struct gsd_loop *lp, gs_time now)
{
    /* engine calls made here may add events: walk by index */
    for (size_t i = 0; i < lp->nev && !lp->oom; i++) {
        struct devent e = lp->evs[i];
        lp->evs[i].placement = NULL;
        struct djob *d = gsd_job_of_handle(lp, e.job);
        if (d)
            apply_event(lp, d, &e, now);
        free(e.placement);
    }
    lp->nev = 0;
    return lp->oom ? -1 : 0;
}

void gsd_rundir(struct gsd_loop *lp, const struct djob *d, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%lld-%d", lp->sh.run_dir, (long long)d->seq, d->ji.attempts);
}

/* A failed launch on d's nodes' side: a failure of each of its nodes
 * (quarantine.c).  0, or -1 when the journal refuses or out of memory. */
static int note_start(struct gsd_loop *lp, gs_time now, struct djob *d)
{
    int cap = gs_cluster_node_count(gs_engine_cluster(lp->eng));
    struct gs_alloc_part *parts = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *parts);
    if (!parts)
        return -1;
    int n = gsd_job_placement(lp, d, parts, cap);
    int rc = n > 0 ? gsd_quar_note_start(lp, now, d->id, parts, n) : 0;
    free(parts);
    return rc;
}

/* Confirm last turn's launches to the engine; a failed launch that is
 * its node's is a failure of the node (quarantine.c).  0, or -1 when the
 * journal refuses. */
static int confirm_launches(struct gsd_loop *lp, gs_time now)
{
    struct gs_error err;
    int rc = 0;
    size_t n;
    struct djob **v = gsd_jl_take(lp, GSD_JL_CONFIRM, &n); /* in lp->live's order */
    for (size_t i = 0; i < n; i++) {
        struct djob *d = v[i];
        if (d->launched && d->ji.state == GS_JOB_STARTING) {
            if (gs_engine_started(lp->eng, now, d->handle, &err) < 0)
                gsd_log("job %s: start not confirmed: %s", d->id, err.msg);
            else if (d->decided != GS_TIME_NONE)
                gsd_latency_add(lp, (double)(now - d->decided) / 1000.0);
            d->decided = GS_TIME_NONE;
            gsd_job_sync(lp, d);
        } else if (d->launch_deferred) { /* the daemon's failure: back to pending */
            if (gs_engine_launch_deferred(lp->eng, now, d->handle, &err) < 0)
                gsd_log("job %s: launch not deferred: %s", d->id, err.msg);
            gs_store_event(lp->st, now, d->seq, "launch_deferred",
                           d->launch_why >= 0 ? gsd_launch_fail_name[d->launch_why] : NULL,
                           NULL);
            gsd_job_sync(lp, d);
            d->decided = GS_TIME_NONE;
        } else if (d->launch_error) {
            lp->backend_errors++;
            if (d->launch_node &&
                (gs_store_event(lp->st, now, d->seq, "launch_failed", d->launch_msg, NULL) < 0 ||
                 note_start(lp, now, d) < 0))
                rc = -1;
            d->launch_node = 0;
            gs_engine_launch_failed(lp->eng, now, d->handle, NULL);
            gsd_job_sync(lp, d);
            d->decided = GS_TIME_NONE;
        }
        d->launched = d->launch_error = d->launch_deferred = 0;
    }
    free(v);
    return rc;
}

/* Whether another victim preempted in the same turn as d still has
 * processes.  Victims of one preemption are confirmed together: were one
 * confirmed alone, its requeued job could take back the GPUs it just freed
 * (the waiter needs the others' too) and be preempted again. */
static int group_busy(const struct gsd_loop *lp, const struct djob *d)
{
    for (size_t i = 0; i < lp->nlive; i++) {
        const struct djob *o = lp->live[i];
        if (o != d && o->stop_turn == d->stop_turn && o->ji.state == GS_JOB_STOPPING &&
            o->proc.pid > 0)
            return 1;
    }
    return 0;
}

static void confirm_exit(struct gsd_loop *lp, struct djob *d, int code, gs_time now)
{
    struct gs_error err;
    gs_error_clear(&err);
    int rc = code < 0 ? gs_engine_launch_failed(lp->eng, now, d->handle, &err)
                      : gs_engine_exited(lp->eng, now, d->handle, code > 255 ? 255 : code, &err);
    if (rc < 0)
        gsd_log("job %s: exit %d not taken: %s", d->id, code, err.msg);
    gsd_job_sync(lp, d);
    if (d->state == D_PENDING) {
        char detail[64];
        snprintf(detail, sizeof detail, "after attempt %d", d->ji.attempts);
        gs_store_event(lp->st, now, d->seq, "requeue", detail, NULL);
    }
}

/* The attempt ended without an exit status (code -1): its supervisor
 * vanished, with its job (a cgroup-wide SIGKILL of daemon and jobs) or
 * alone (the job's recorded processes were then ended by the backend's
 * read_exit); or it ended with `code` after a SIGTERM that the daemon did
 * not send (it sends one only to jobs it is stopping): systemd's
 * KillMode=control-group stopping the whole unit.  Not the job's failure: the engine
 * requeues it under the retry policy as a failure of the system
 * (gs_engine_run_lost); journalled as a "lost" event. */
static void lost_run(struct gsd_loop *lp, struct djob *d, gs_time now, int code)
{
    int sup = (int)d->proc.pid, attempt = d->ji.attempts;
    gsd_be_release(lp, d);
    d->proc = (struct gsd_proc){ 0, 0, -1 };
    gsd_timer_cancel(&lp->timers, &d->kill_tm);
    char detail[200];
    if (code < 0)
        snprintf(detail, sizeof detail,
                 "attempt %d: supervisor %d vanished without an exit status; a system "
                 "failure, not the job's", attempt, sup);
    else
        snprintf(detail, sizeof detail,
                 "attempt %d: stopped by a SIGTERM the daemon did not send (exit %d; a stop "
                 "of the whole service?); a system failure, not the job's", attempt, code);
    gs_store_event(lp->st, now, d->seq, "lost", detail, NULL);
    struct gs_error err;
    gs_error_clear(&err);
    if (gs_engine_run_lost(lp->eng, now, d->handle, &err) < 0)
        gsd_log("job %s: lost attempt not taken: %s", d->id, err.msg);
    gsd_job_sync(lp, d);
    gsd_log("job %s: %s; %s", d->id, detail,
            d->ji.state == GS_JOB_PENDING ? "requeued" : "failed (no retry left)");
}

/* The attempt's processes are gone: tell the engine (code -1 = the
 * supervisor never got the go: the launch did not happen, launch it now;
 * -2 = the backend's launch failed: the engine re-plans). */
static void collect_exit(struct gsd_loop *lp, struct djob *d, gs_time now)
{
    int code;
    int64_t end_ms;
    d->real_end = now;
    int rc = gsd_be_read_exit(lp, d, &code, &end_ms);
    if (rc == GS_EIO) { /* the daemon is out of descriptors: read it again soon */
        gsd_job_exited(lp, d);
        gsd_retry_arm(lp, d, 100);
        return;
    }
    if (rc < 0) {
        code = 137; /* the supervisor died without a word: killed with its job */
        lp->backend_errors++;
        if (d->ji.state != GS_JOB_STOPPING) { /* a stop is confirmed as before */
            lost_run(lp, d, now, -1);
            return;
        }
    } else if (d->ji.state != GS_JOB_STOPPING && code >= 0 && gsd_be_told_by_others(lp, d)) {
        /* not being stopped, yet told to stop (local: RUNDIR/exit's mark) */
        lost_run(lp, d, now, code);
        return;
    } else {
        gs_time end = gsd_wall_to_engine(lp, end_ms); /* e.g. while the daemon was down */
        if (end < d->ji.start)
            end = d->ji.start; /* a wall step back since: no end before its start */
        if (end < now)
            d->real_end = end;
    }
    gsd_be_release(lp, d);
    d->proc = (struct gsd_proc){ 0, 0, -1 };
    gsd_timer_cancel(&lp->timers, &d->kill_tm);
    char detail[64];
    snprintf(detail, sizeof detail, "exit %d", code);
    gs_store_event(lp->st, now, d->seq, "end", detail, NULL);
    if (code == -1 && d->ji.state == GS_JOB_STARTING) {
        d->launch_wanted = 1; /* never launched (a restart found it waiting): launch now */
        gsd_jl_add(lp, GSD_JL_LAUNCH, d);
        gsd_job_dirty(lp, d);
        gsd_log("job %s: attempt %d was decided but not launched; launching it now", d->id,
                d->ji.attempts);
        return;
    }
    if (code == -2) { /* the backend's launch failed (slurm: not running by its deadline) */
        lp->backend_errors++;
        gs_store_event(lp->st, now, d->seq, "launch_failed", NULL, NULL);
    }
    if (d->stop_turn > 0 && d->ji.state == GS_JOB_STOPPING &&
        d->ji.stop_reason == GS_JOB_PENDING && group_busy(lp, d)) {
        d->held = 1;
        d->held_code = code;
        gsd_jl_add(lp, GSD_JL_HELD, d);
        return;
    }
    confirm_exit(lp, d, code, now);
}

int gsd_exits_apply(struct gsd_loop *lp, gs_time now)
{
    if (confirm_launches(lp, now) < 0)
        return -1;
    size_t n;
    struct djob **v = gsd_jl_take(lp, GSD_JL_EXITED, &n); /* in lp->live's order */
    for (size_t i = 0; i < n; i++) {
        struct djob *d = v[i];
        if (d->exited && gsd_retry_due(d, gsd_mono_ms())) {
            d->exited = 0;
            gsd_timer_cancel(&lp->timers, &d->retry_tm);
            collect_exit(lp, d, now);
        } else if (d->exited) {
            gsd_jl_add(lp, GSD_JL_EXITED, d); /* read again once its retry is due */
        }
    }
    free(v);
    v = gsd_jl_take(lp, GSD_JL_HELD, &n);
    for (size_t i = 0; i < n; i++) {
        struct djob *d = v[i];
        if (d->held && !group_busy(lp, d)) {
            d->held = 0;
            confirm_exit(lp, d, d->held_code, now);
        } else if (d->held) {
            gsd_jl_add(lp, GSD_JL_HELD, d);
        }
    }
    free(v);
    return 0;
}


/* The SIGKILL after a stop's SIGTERM; a signal that fails means the
 * processes are gone: collect the end now. */
static void kill_now(struct gsd_loop *lp, struct djob *d)
{
    if (gsd_be_signal(lp, &d->proc, GSD_SIG_KILL) < 0) {
        gsd_job_exited(lp, d);
        lp->again = 1;
    }
}

void gsd_kill_arm(struct gsd_loop *lp, struct djob *d)
{
    if (gsd_timer_add(&lp->timers, &d->kill_tm, gsd_mono_ms() + (int64_t)lp->sh.opts.kill_wait) < 0)
        kill_now(lp, d); /* no memory for the timer: no grace rather than no kill */
}

void gsd_retry_arm(struct gsd_loop *lp, struct djob *d, int64_t ms)
{
    if (gsd_timer_add(&lp->timers, &d->retry_tm, gsd_mono_ms() + ms) < 0)
        lp->again = 1; /* no memory for the timer: retried at the next turn */
}

int gsd_retry_due(const struct djob *d, int64_t mono)
{
    return !gsd_timer_armed(&d->retry_tm) || d->retry_tm.at <= mono;
}

void gsd_job_timers_off(struct gsd_loop *lp, struct djob *d)
{
    gsd_timer_cancel(&lp->timers, &d->kill_tm);
    gsd_timer_cancel(&lp->timers, &d->retry_tm);
    gsd_timer_cancel(&lp->timers, &d->eta_tm);
}

void gsd_timers_run(struct gsd_loop *lp)
{
    int64_t mono = gsd_mono_ms();
    for (struct gsd_timer *t; (t = gsd_timer_pop_due(&lp->timers, mono));)
        if (t->kind == GSD_TM_KILL)
            kill_now(lp, t->arg);
        else if (t->kind == GSD_TM_ETA)
            gsd_eta_due(lp, t->arg);
    /* a due GSD_TM_RETRY needs nothing more: disarmed, its job is due */
}

void gsd_count_done(struct gsd_loop *lp, const char *team, int outcome, int64_t n)
{
    for (size_t i = 0; i < lp->ndone; i++)
        if (lp->done[i].outcome == outcome && !strcmp(lp->done[i].team, team)) {
            lp->done[i].n += n;
            lp->done[i].kept += n;
            return;
        }
    if (gsd_grow((void **)&lp->done, &lp->capdone, lp->ndone + 1, sizeof *lp->done) < 0)
        return;
    char *t = strdup(team);
    if (t)
        lp->done[lp->ndone++] = (struct gsd_team_count){ t, outcome, n, n };
}

static void free_job(struct gsd_loop *lp, size_t i)
{
    struct djob *d = lp->live[i];
    if (d->handle >= 0)
        gs_intmap_del(lp->byh, d->handle);
    struct djob *last = lp->live[--lp->nlive];
    lp->live[i] = last;
    last->li = i;
    if (last != d && last->handle >= 0)
        gs_intmap_put(lp->byh, last->handle, (int)i); /* replaces: never allocates */
    gsd_view_drop(lp, d);
    gsd_job_timers_off(lp, d);
    gsd_jl_forget(lp, d);
    gsd_vjob_fini(&d->view);
    free(d->id);
    free(d->team);
    free(d->user);
    free(d->request);
    free(d->placement);
    gsd_bkjob_fini(&d->bk);
    free(d->launch_msg);
    free(d);
}

void gsd_jobs_drop_all(struct gsd_loop *lp)
{
    gsd_launch_drain(lp); /* no launch in flight refers to a job dropped here */
    while (lp->nlive > 0) {
        struct djob *d = lp->live[lp->nlive - 1];
        if (d->proc.pidfd >= 0)
            close(d->proc.pidfd); /* leaves the epoll set with it */
        free_job(lp, lp->nlive - 1);
    }
    for (size_t i = 0; i < lp->nev; i++)
        free(lp->evs[i].placement);
    lp->nev = 0;
}

void gsd_job_row(const struct djob *d, struct gs_store_job *r, char *info, size_t n)
{
    gsd_info_format(&d->ji, info, n);
    const struct gs_job_info *ji = &d->ji;
    *r = (struct gs_store_job){
        .seq = d->seq, .id = d->id, .team = d->team, .user = d->user, .gpus = d->gpus,
        .submit = d->submit, .state = gsd_state_name(d->state),
        .outcome = gsd_outcome_name(d->outcome), .first_start = ji->first_start,
        .start = ji->first_start == GS_TIME_NONE ? GS_TIME_NONE : ji->start,
        .end = d->state == D_DONE && d->real_end != GS_TIME_NONE ? d->real_end : ji->end,
        .last_ckpt = ji->last_ckpt, .attempts = ji->attempts,
        .runs = ji->runs, .preemptions = ji->preemptions, .work = ji->work,
        .lost = ji->lost,
        .lost_gpu_s = (double)ji->lost * (double)gs_job_info_milli_gpus(ji) / 1e6,
        .exit_code = ji->exit_code, .placement = d->placement, .sup_pid = d->proc.pid,
        .sup_start = d->proc.start, .stop = ji->stop_reason, .alloc_milli = d->alloc_milli,
        .alloc_mem = d->alloc_mem, .engine = info, .request = d->request,
        .launch_error = d->launch_msg };
    gsd_eta_row(d, r);
}

/* Journal d's row; 1 when d ended and was freed (live[d->li] is then the
 * job that was last in lp->live), 0 when kept, -1 on a journal error. */
static int flush_row(struct gsd_loop *lp, struct djob *d, struct gs_error *err)
{
    d->dirty = 0;
    d->view.dirty = 1;
    gsd_view_touch(lp, d);
    char info[512];
    struct gs_store_job r;
    gsd_job_row(d, &r, info, sizeof info);
    if (gs_store_job_update(lp->st, &r, err) < 0)
        return -1;
    if (d->state == D_DONE && d->proc.pid == 0 && !d->launching) {
        gsd_count_done(lp, d->team, d->outcome, 1);
        if (d->handle >= 0)
            gs_engine_retire(lp->eng, d->handle, NULL);
        free_job(lp, d->li);
        return 1;
    }
    return 0;
}

/* The rows are written in the order of the scan over lp->live this walk
 * replaces: by place, and when a freed job's place is taken by the last
 * live job (free_job swaps it in), that job next if its row changed too
 * (it is then the list's last, the highest place).  So the journal's rows
 * and the engine's retirements come in the same order as before. */
int gsd_flush_rows(struct gsd_loop *lp, struct gs_error *err)
{
    if (lp->engine_check && gsd_jl_check_one(lp, GSD_JL_DIRTY) < 0) {
        gsd_logl(GSD_LOG_ERR, "dirty list check in turn %lld failed", (long long)lp->turns);
        abort(); /* a changed row not listed would never be journalled: a daemon bug */
    }
    size_t n, lo = 0, hi;
    struct djob **v = gsd_jl_take(lp, GSD_JL_DIRTY, &n);
    int rc = 0;
    for (hi = n; lo < hi && rc >= 0;) {
        struct djob *d = v[lo];
        if (!d->dirty) {
            lo++;
            continue;
        }
        size_t at = d->li;
        rc = flush_row(lp, d, err);
        if (rc == 1 && at < lp->nlive && lo + 1 < hi && v[hi - 1] == lp->live[at])
            v[lo] = v[--hi]; /* the job swapped into the freed place: it comes next */
        else
            lo++;
    }
    for (; lo < hi; lo++) /* a journal error: the rows not written stay listed */
        if (v[lo]->dirty)
            gsd_jl_add(lp, GSD_JL_DIRTY, v[lo]);
    free(v);
    return rc < 0 ? -1 : 0;
}

/* d's pidfd is readable: its supervisor has ended. */
static void on_pidfd(struct gsd_loop *lp, struct gsd_handler *h, uint32_t events)
{
    (void)events;
    struct djob *d = (struct djob *)(void *)((char *)h - offsetof(struct djob, on_exit));
    gsd_job_exited(lp, d);
    epoll_ctl(lp->epfd, EPOLL_CTL_DEL, d->proc.pidfd, NULL);
}

void gsd_watch(struct gsd_loop *lp, struct djob *d)
{
    d->on_exit.fn = on_pidfd;
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = &d->on_exit };
    if (d->proc.pidfd < 0 || epoll_ctl(lp->epfd, EPOLL_CTL_ADD, d->proc.pidfd, &e) < 0) {
        gsd_job_exited(lp, d); /* cannot watch it: look now (and again via exit file) */
        lp->again = 1;
    }
}

/* backend_local.c - the local backend's ops table (backend.h): each
 * attempt runs under a supervisor on this host (backend.c's primitives).
 * Launches are described by the loop (struct gsd_lreq, loop_launch.c) and
 * carried out by this backend's launcher threads (launcher.h; its state
 * c->state), so `launch` is NULL and submit / collect / drain take them;
 * the rest reads an attempt's end, signals it, and finds it again after a
 * restart.  It sees the loop only through struct gsd_bctx and struct
 * gsd_bjob.
 */
#define _GNU_SOURCE
#include "daemon/backend.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/launcher.h"
#include "daemon/reap.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int local_open(struct gsd_bctx *c)
{
    if (c->opts->virtual_users)
        gsd_log("--virtual-users: a job whose user has no account on this host runs as the "
                "daemon's own account (uid %d); for tests and demos only", (int)geteuid());
    return 0; /* the GPU map (gpumap.h) is opened by the loop next */
}

static int local_signal(struct gsd_bctx *c, const struct gsd_proc *p, int how)
{
    (void)c;
    return gsd_backend_signal(p, how);
}

/* A launch that failed before the job's program ran (supervise.c wrote
 * RUNDIR/error): logged, journalled as a launch_failed event with the
 * reason and kept as the job's launch_error (its row, the job object). */
static void launch_error(struct gsd_bctx *c, struct gsd_bjob *d, const char *dir)
{
    char path[4200], msg[512];
    snprintf(path, sizeof path, "%s/error", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    size_t n = fread(msg, 1, sizeof msg - 1, f);
    fclose(f);
    msg[n] = '\0';
    gsd_log("job %s: launch failed: %s", d->id, msg);
    c->call->event(c->loop, c->call->now(c->loop, GSD_NOW_CLOCK), d->seq, "launch_failed", msg);
    c->call->launch_msg(c->loop, d, msg);
}

/* The attempt's end.  A supervisor gone without its exit file (killed)
 * leaves the job's processes behind: those it recorded are ended here,
 * before the engine hears of the end and offers the GPUs again (reap.h). */
static int local_read_exit(struct gsd_bctx *c, struct gsd_bjob *d, int *code, int64_t *end_ms)
{
    char dir[4096];
    c->call->rundir(c->loop, d, dir, sizeof dir);
    int rc = gsd_backend_read_exit(dir, code, end_ms);
    if (rc == 0) {
        launch_error(c, d, dir);
        return 0;
    }
    if (rc == GS_EIO || d->proc->pid <= 0) /* out of descriptors: later; no supervisor */
        return rc;
    int n = gsd_reap_lost(dir, 2000);
    gsd_log("job %s: supervisor %d lost without an exit file; ended %d of the job's "
            "processes it had recorded", d->id, (int)d->proc->pid, n);
    return rc;
}

/* RUNDIR/exit's mark: a SIGTERM the daemon did not send reached it. */
static int local_told(struct gsd_bctx *c, struct gsd_bjob *d)
{
    char dir[4096];
    c->call->rundir(c->loop, d, dir, sizeof dir);
    return gsd_backend_exit_told(dir);
}

static void local_release(struct gsd_bctx *c, struct gsd_bjob *d)
{
    (void)c;
    gsd_backend_release(d->proc);
}

/* Find the attempt's supervisor: re-adopt it, or see that it ended (the
 * first turn collects its exit), or that the launch never happened (then
 * the decision stands: it is launched again after the first commit). */
void gsd_backend_not_launched(struct gsd_bctx *c, struct gsd_bjob *d)
{
    *d->proc = (struct gsd_proc){ 0, 0, -1 };
    if (d->state == GS_JOB_STARTING) {
        c->call->report(c->loop, d, GSD_BR_RELAUNCH);
        gsd_log("job %s: attempt %d was decided but not launched; launching it now", d->id,
                d->attempt);
    } else {
        c->call->report(c->loop, d, GSD_BR_UNLAUNCHED); /* a stop of a job that never ran */
    }
}

static void local_reconcile(struct gsd_bctx *c, struct gsd_bjob *d)
{
    if (!gs_job_state_holds(d->state))
        return;
    char dir[4096];
    c->call->rundir(c->loop, d, dir, sizeof dir);
    int code;
    int64_t end;
    int found = d->proc->pid > 0 || gsd_backend_read_sup(dir, d->proc) == 0;
    if (!found || (gsd_backend_read_exit(dir, &code, &end) == 0 && code == -1)) {
        gsd_backend_not_launched(c, d);
        return;
    }
    c->call->report(c->loop, d, GSD_BR_DIRTY);
    if (gsd_backend_adopt(d->proc) < 0) {
        d->proc->pidfd = -1;
        c->call->report(c->loop, d, GSD_BR_EXITED); /* collected with its exit file */
        return;
    }
    c->call->report(c->loop, d, GSD_BR_WATCH);
    char go[4200];
    snprintf(go, sizeof go, "%s/go", dir);
    /* without RUNDIR/go it may still be waiting for a go byte that will never
     * come: it will exit as "never launched" and the attempt is made again */
    if (d->state == GS_JOB_STARTING && access(go, F_OK) == 0)
        c->call->report(c->loop, d, GSD_BR_LAUNCHED); /* confirmed in the first turn */
    if (d->state == GS_JOB_STOPPING) { /* the stop goes on */
        gsd_backend_signal(d->proc, GSD_SIG_TERM);
        c->call->report(c->loop, d, GSD_BR_KILL_ARM);
    }
    gsd_log("job %s: re-adopted supervisor %d", d->id, (int)d->proc->pid);
}

/* ---- launches: the launcher threads (launcher.h) ---- */

static int local_start(struct gsd_bctx *c)
{
    if (c->state)
        return 0;
    c->state = gsd_launcher_start(c->wake_fd);
    return c->state ? 0 : -1;
}

static void local_submit(struct gsd_bctx *c, struct gsd_lreq *list)
{
    if (list)
        gsd_launcher_submit(c->state, list);
}

static void local_collect(struct gsd_bctx *c)
{
    if (!c->state)
        return;
    for (struct gsd_lreq *r = gsd_launcher_take(c->state), *next; r; r = next) {
        next = r->next;
        c->call->launch_done(c->loop, r);
        gsd_lreq_free(r);
    }
}

static void local_drain(struct gsd_bctx *c)
{
    if (!c->state)
        return;
    gsd_launcher_quiesce(c->state);
    local_collect(c);
}

static int local_in_flight(struct gsd_bctx *c)
{
    return c->state ? gsd_launcher_in_flight(c->state) : 0;
}

static void local_stop(struct gsd_bctx *c)
{
    gsd_launcher_stop(c->state); /* NULL is fine */
    c->state = NULL;
}

const struct gsd_backend_ops gsd_backend_local = {
    .name = "local", .host_procs = 1, .open = local_open, .launch = NULL,
    .start = local_start, .submit = local_submit, .collect = local_collect,
    .drain = local_drain, .in_flight = local_in_flight, .stop = local_stop,
    .signal = local_signal, .reconcile = local_reconcile, .read_exit = local_read_exit,
    .told_by_others = local_told, .release = local_release, .close = local_stop,
};

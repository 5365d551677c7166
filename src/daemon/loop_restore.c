/* loop_restore.c - rebuilding the engine from the journal.
 *
 * Only the rows that are not done are read (the jobs_live partial index), so
 * restart costs what is live, not every job ever seen; done jobs are
 * answered from the journal.  Each live row is restored into a fresh engine
 * with gs_engine_restore_job (pending, or running on its recorded GPUs) and
 * reconciled with the backend:
 *   - starting with no supervisor recorded: RUNDIR/sup tells whether the
 *     launch happened; if not, the job goes back to the queue (the crash
 *     fell between "decided" and "launched");
 *   - a supervisor that is still the same process is re-adopted (pidfd);
 *   - one that is gone left RUNDIR/exit: the real exit code and end time are
 *     collected in the first turn.
 * The same path rebuilds the engine under a new policy on SIGHUP (no
 * reconciliation: the live jobs are already known).
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"

#include <stdlib.h>
#include <string.h>

/* Parse "node:gpu,..." into a (per-node mask) allocation.  0 or -1. */
static int parse_placement(const struct gs_cluster *cl, const char *text,
                           struct gs_alloc_part *parts, int cap, struct gs_alloc *a)
{
    a->nparts = 0;
    a->cap = cap;
    a->parts = parts;
    char name[GS_NAME_MAX + 1];
    for (const char *p = text; p && *p;) {
        const char *colon = strchr(p, ':');
        if (!colon || colon - p > GS_NAME_MAX)
            return -1;
        memcpy(name, p, (size_t)(colon - p));
        name[colon - p] = '\0';
        int node = gs_cluster_find_node(cl, name);
        int g = atoi(colon + 1);
        if (node < 0 || g < 0 || g >= GS_MAX_NODE_GPUS)
            return -1;
        int k = 0;
        while (k < a->nparts && parts[k].node != node)
            k++;
        if (k == a->nparts) {
            if (k == cap)
                return -1;
            parts[a->nparts++] = (struct gs_alloc_part){ node, 0 };
        }
        parts[k].mask |= 1ull << g;
        p = strchr(colon, ',');
        if (p)
            p++;
    }
    return 0;
}

/* The engine state a live job is restored in (engine adapter: simulator
 * semantics, see loop_jobs.c): -1 = not in the engine. */
static int engine_state(const struct djob *d)
{
    if (d->state == D_PENDING)
        return GS_JOB_PENDING;
    if (d->state == D_STOPPING)
        return d->stop == GS_STOP_REQUEUE ? GS_JOB_PENDING : -1;
    return GS_JOB_RUNNING;
}

/* Restore job d into lp->eng; returns its new handle, -2 when it is not in
 * the engine (a stop that ends it), -1 on error. */
static int restore_engine(struct gsd_loop *lp, struct djob *d, const char *request)
{
    int st = engine_state(d);
    if (st < 0)
        return -2;
    struct gs_api_submit s;
    struct gs_api_error ae;
    if (gs_api_submit_decode(request, strlen(request), &s, &ae) < 0) {
        gsd_log("job %s: journal request unreadable: %s", d->id, ae.message);
        return -1;
    }
    struct gs_error err;
    gs_error_clear(&err);
    int rc = gs_api_submit_set_id(&s, d->id);
    s.row.spec.submit = d->submit;
    struct gs_job_info ji = { .state = st, .submit = d->submit, .first_start = d->first_start,
                              .start = st == GS_JOB_RUNNING ? d->start : GS_TIME_NONE,
                              .end = GS_TIME_NONE, .estimate = GS_TIME_NONE,
                              .runs = d->runs, .work = d->work, .lost = d->lost,
                              .preemptions = d->preemptions };
    struct gs_alloc_part parts[64];
    struct gs_alloc a = { 0 };
    if (rc == 0 && st == GS_JOB_RUNNING &&
        parse_placement(lp->cl, d->placement, parts, 64, &a) < 0)
        rc = gs_errorf(&err, GS_EINVAL, "bad placement '%s'", d->placement);
    a.milli = d->alloc_milli;
    a.mem_mib = d->alloc_mem;
    int h = rc < 0 ? rc : gs_engine_restore_job(lp->eng, &s.row.spec, &ji,
                                                 st == GS_JOB_RUNNING ? &a : NULL, &err);
    d->milli = s.row.spec.milli;
    gs_api_submit_fini(&s);
    if (h < 0) {
        gsd_log("job %s: cannot restore: %s", d->id, err.msg);
        return -1;
    }
    return h;
}

/* Find the attempt's supervisor: re-adopt it, or see that it ended. */
static void reconcile(struct gsd_loop *lp, struct djob *d)
{
    if (d->state == D_PENDING)
        return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%lld-%d", lp->run_dir, (long long)d->seq, d->attempts);
    if (d->proc.pid <= 0 && gsd_backend_read_sup(dir, &d->proc) < 0) {
        /* decided, never launched: back to the queue */
        d->proc = (struct gsd_proc){ 0, 0, -1 };
        if (d->state == D_STOPPING && d->stop != GS_STOP_REQUEUE)
            d->state = D_DONE, d->outcome = d->stop == GS_STOP_CANCELLED ? O_CANCELLED
                                                                       : O_KILLED;
        else
            d->state = D_PENDING;
        d->stop = GS_STOP_NONE;
        d->dirty = 1;
        gsd_log("job %s: attempt %d was decided but not launched; requeued", d->id,
                d->attempts);
        return;
    }
    int code;
    int64_t end;
    if (gsd_backend_read_exit(dir, &code, &end) == 0 && code == -1) {
        d->proc = (struct gsd_proc){ 0, 0, -1 }; /* it never got the go */
        d->state = d->state == D_STOPPING && d->stop != GS_STOP_REQUEUE ? D_DONE : D_PENDING;
        d->dirty = 1;
        return;
    }
    if (gsd_backend_adopt(&d->proc) == 0) {
        gsd_watch(lp, d);
        if (d->state == D_STARTING)
            d->state = D_RUNNING;
        if (d->state == D_STOPPING) { /* the stop goes on */
            gsd_backend_signal(&d->proc, GSD_SIG_TERM);
            d->kill_at = gsd_mono_ms() + (int64_t)lp->opts.kill_wait;
        }
        gsd_log("job %s: re-adopted supervisor %d", d->id, (int)d->proc.pid);
    } else {
        d->proc.pidfd = -1;
        d->exited = 1; /* collected with its exit file in the first turn */
        if (d->state == D_STARTING)
            d->state = D_RUNNING;
    }
    d->dirty = 1;
}

struct restore_ctx {
    struct gsd_loop *lp;
    int *handles;             /* reload: new handle per live[] index */
    int failed;
};
static void from_row(struct djob *d, const struct gs_store_job *r)
{
    static const char *const names[] = { "pending", "starting", "running", "stopping",
                                         "done" };
    for (int s = 0; s <= D_DONE; s++)
        if (!strcmp(r->state, names[s]))
            d->state = s;
    d->submit = r->submit;
    d->first_start = r->first_start;
    d->start = r->start;
    d->end = r->end;
    d->last_ckpt = r->last_ckpt;
    d->attempts = r->attempts;
    d->runs = r->runs;
    d->preemptions = r->preemptions;
    d->work = r->work;
    d->lost = r->lost;
    d->lost_gpu_s = r->lost_gpu_s;
    d->exit_code = r->exit_code;
    d->placement = r->placement ? strdup(r->placement) : NULL;
    d->proc = (struct gsd_proc){ (pid_t)r->sup_pid, r->sup_start, -1 };
    d->stop = r->stop;
    d->alloc_milli = r->alloc_milli;
    d->alloc_mem = r->alloc_mem;
}

static int on_live_row(void *arg, const struct gs_store_job *r)
{
    struct restore_ctx *x = arg;
    struct djob *d = gsd_job_new(x->lp, r->seq, r->id, r->team, r->user, r->gpus);
    if (!d)
        return x->failed = 1;
    from_row(d, r);
    reconcile(x->lp, d);
    if (d->state == D_DONE)
        return 0;
    int h = restore_engine(x->lp, d, r->request);
    if (h == -1 || (h >= 0 && gsd_job_index(x->lp, d, h) < 0))
        return x->failed = 1;
    return 0;
}

static int on_reload_row(void *arg, const struct gs_store_job *r)
{
    struct restore_ctx *x = arg;
    for (size_t i = 0; i < x->lp->nlive; i++)
        if (x->lp->live[i]->seq == r->seq) {
            x->handles[i] = restore_engine(x->lp, x->lp->live[i], r->request);
            return x->handles[i] == -1 ? (x->failed = 1) : 0;
        }
    return 0;
}

int gsd_restore_all(struct gsd_loop *lp, int startup)
{
    struct restore_ctx x = { lp, NULL, 0 };
    if (startup) {
        int rc = gs_store_jobs_live(lp->st, on_live_row, &x);
        if (rc < 0 || x.failed) {
            gsd_log("restore from the journal failed");
            return -1;
        }
        gsd_log("restored %zu live jobs from the journal", lp->nlive);
        return 0;
    }
    x.handles = malloc((lp->nlive + 1) * sizeof *x.handles);
    if (!x.handles)
        return -1;
    for (size_t i = 0; i < lp->nlive; i++)
        x.handles[i] = -2;
    int rc = gs_store_jobs_live(lp->st, on_reload_row, &x);
    if (rc == 0 && !x.failed) {
        for (size_t i = 0; i < lp->nbyh; i++)
            lp->byh[i] = NULL;
        for (size_t i = 0; i < lp->nlive && rc == 0; i++) {
            lp->live[i]->handle = -1;
            if (x.handles[i] >= 0)
                rc = gsd_job_index(lp, lp->live[i], x.handles[i]);
        }
    }
    free(x.handles);
    return rc < 0 || x.failed ? -1 : 0;
}

int gsd_engine_create(struct gsd_loop *lp, const struct gs_policy *pol)
{
    struct gs_error err;
    gs_error_clear(&err);
    lp->eng = gs_engine_create(lp->cl, pol, &err);
    if (!lp->eng) {
        gsd_log("engine: %s", err.msg);
        return -1;
    }
    gs_engine_set_observer(lp->eng, gsd_observer, lp);
    return 0;
}

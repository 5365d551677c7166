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
#include "daemon/loop_eta.h"
#include "io/placement.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The engine record's numbers, in a fixed order (the journal's "engine"
 * column: "v1 N N ..."), then `capped`, which records written before it
 * existed lack (read as 0), then `timed_out`, `front` and `recover` (the
 * right to the hot spares; docs/failures.md) likewise, then `qstamp` (the
 * job's place in the fifo queue; 0 when absent: a new one). */
#define INFO_FIELDS(X)                                                                     \
    X(state) X(submit) X(first_start) X(start) X(end) X(time_limit) X(estimate)            \
    X(backfilled) X(runs) X(work) X(lost) X(ckpt_wall) X(restore_wall) X(preemptions)      \
    X(exit_code) X(attempts) X(failures) X(last_ckpt) X(stop_reason) X(stop_at) X(saved)   \
    X(run_base) X(past_ckpt_wall) X(past_restore_wall)

int gsd_info_format(const struct gs_job_info *ji, char *buf, size_t n)
{
    size_t w = (size_t)snprintf(buf, n, "v1");
#define X(f) if (w < n) w += (size_t)snprintf(buf + w, n - w, " %lld", (long long)ji->f);
    INFO_FIELDS(X)
#undef X
    if (w < n)
        w += (size_t)snprintf(buf + w, n - w, " %d %d %d %d %lld", ji->capped, ji->timed_out,
                              ji->front, ji->recover, (long long)ji->qstamp);
    return w < n ? 0 : -1;
}

int gsd_info_parse(const char *text, struct gs_job_info *ji)
{
    if (!text || strncmp(text, "v1", 2) != 0)
        return -1;
    const char *p = text + 2;
    char *end;
#define X(f)                                                                               \
    {                                                                                      \
        long long v = strtoll(p, &end, 10);                                                \
        if (end == p)                                                                      \
            return -1;                                                                     \
        ji->f = (__typeof__(ji->f))v;                                                      \
        p = end;                                                                           \
    }
    INFO_FIELDS(X)
#undef X
    int *flags[] = { &ji->capped, &ji->timed_out, &ji->front, &ji->recover };
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) { /* absent: 0 */
        long long v = strtoll(p, &end, 10);
        *flags[i] = end != p && v != 0;
        p = end;
    }
    long long q = strtoll(p, &end, 10);
    ji->qstamp = end != p && q > LLONG_MIN && q < LLONG_MAX ? q : 0;
    return 0;
}

/* Restore job d (its record in d->ji) into lp->eng; returns the new
 * handle or -1 with the reason in why (n bytes). */
static int restore_engine(struct gsd_loop *lp, struct djob *d, const char *request, char *why,
                          size_t n)
{
    struct gs_api_submit s;
    struct gs_api_error ae;
    if (gs_api_submit_decode(request, strlen(request), &s, &ae) < 0) {
        snprintf(why, n, "journal request unreadable: %.160s", ae.message);
        gsd_log("job %s: %s", d->id, why);
        return -1;
    }
    struct gs_error err;
    gs_error_clear(&err);
    int rc = gs_api_submit_set_id(&s, d->id);
    s.row.spec.submit = d->submit;
    struct gs_alloc_part parts[64];
    struct gs_alloc a = { .parts = parts, .cap = 64 };
    int holds = gs_job_state_holds(d->ji.state);
    struct gs_error perr;
    if (rc == 0 && holds &&
        (a.nparts = gs_placement_parse(lp->cl, d->placement, parts, 64, &perr)) < 0)
        rc = gs_errorf(&err, GS_EINVAL, "bad placement '%.60s': %s",
                       d->placement ? d->placement : "", perr.msg);
    a.milli = d->alloc_milli;
    a.mem_mib = d->alloc_mem;
    int h = rc < 0 ? rc
                   : gs_engine_restore_job(lp->eng, &s.row.spec, &d->ji, holds ? &a : NULL, &err);
    d->milli = s.row.spec.milli;
    gs_api_submit_fini(&s);
    if (h < 0) {
        snprintf(why, n, "%s", err.msg);
        gsd_log("job %s: cannot restore: %s", d->id, err.msg);
        return -1;
    }
    return h;
}

struct restore_ctx {
    struct gsd_loop *lp;
    int *handles;             /* reload: new handle per live[] index */
    int failed;
};
static int from_row(struct djob *d, const struct gs_store_job *r)
{
    d->submit = r->submit;
    if (gsd_info_parse(r->engine, &d->ji) < 0) { /* never updated: pending */
        d->ji.state = GS_JOB_PENDING;
        d->ji.submit = r->submit;
    }
    d->placement = r->placement ? strdup(r->placement) : NULL;
    d->launch_msg = r->launch_error ? strdup(r->launch_error) : NULL;
    d->proc = (struct gsd_proc){ (pid_t)r->sup_pid, r->sup_start, -1 };
    d->alloc_milli = r->alloc_milli;
    d->alloc_mem = r->alloc_mem;
    d->request = r->request ? strdup(r->request) : NULL;
    gsd_eta_restore(d, r);
    return (r->placement && !d->placement) || (r->request && !d->request) ? -1 : 0;
}

static int on_live_row(void *arg, const struct gs_store_job *r)
{
    struct restore_ctx *x = arg;
    struct djob *d = gsd_job_new(x->lp, r->seq, r->id, r->team, r->user, r->gpus);
    if (!d)
        return x->failed = 1;
    if (from_row(d, r) < 0)
        return x->failed = 1;
    char why[200];
    int h = restore_engine(x->lp, d, r->request, why, sizeof why);
    if (h < 0) /* kept out of the engine until the operator decides (conflict.c) */
        return gsd_conflict_hold(x->lp, d, why) < 0 ? (x->failed = 1) : 0;
    if (gsd_job_index(x->lp, d, h) < 0)
        return x->failed = 1;
    gsd_job_sync(x->lp, d);
    gsd_be_reconcile(x->lp, d);
    gsd_eta_arm(x->lp, d); /* a bound still to pass, or passed while down */
    return 0;
}

static int on_reload_row(void *arg, const struct gs_store_job *r)
{
    struct restore_ctx *x = arg;
    for (size_t i = 0; i < x->lp->nlive; i++)
        if (x->lp->live[i]->seq == r->seq) {
            struct djob *d = x->lp->live[i];
            struct gs_job_info keep = d->ji;
            if (gsd_info_parse(r->engine, &d->ji) < 0)
                return x->failed = 1;
            char why[200];
            x->handles[i] = restore_engine(x->lp, d, r->request, why, sizeof why);
            d->ji = keep;
            return x->handles[i] == -1 ? (x->failed = 1) : 0;
        }
    return 0;
}

/* A completed job of the journal: restored as done into the engine, which
 * feeds its run time to the estimator, then retired at once. */
static int on_completed_row(void *arg, const struct gs_store_job *r)
{
    struct gsd_loop *lp = arg;
    struct gs_job_info ji = { 0 };
    struct gs_api_submit s;
    struct gs_api_error ae;
    if (gsd_info_parse(r->engine, &ji) < 0 || ji.state != GS_JOB_DONE ||
        gs_api_submit_decode(r->request, strlen(r->request), &s, &ae) < 0)
        return 0; /* no engine record: nothing to learn from */
    struct gs_error err;
    gs_error_clear(&err);
    int h = gs_api_submit_set_id(&s, r->id);
    s.row.spec.submit = r->submit;
    if (h == 0)
        h = gs_engine_restore_job(lp->eng, &s.row.spec, &ji, NULL, &err);
    gs_api_submit_fini(&s);
    if (h >= 0) {
        gs_engine_retire(lp->eng, h, NULL);
        lp->fed++;
    } else
        gsd_log("job %s: run time not learned again: %s", r->id, err.msg);
    return 0;
}

/* Teach a fresh engine's duration estimator (queue.duration_estimate:
 * from_history) the run times of every job that completed, in the order it
 * first learned them, so that its estimates are those before the restart
 * (or the reload). */
static int feed_history(struct gsd_loop *lp)
{
    if (gs_engine_policy(lp->eng)->estimate != GS_EST_HISTORY)
        return 0;
    lp->fed = 0;
    if (gs_store_jobs_completed(lp->st, on_completed_row, lp) < 0) {
        gsd_log("journal: completed jobs unreadable");
        return -1;
    }
    if (lp->fed > 0)
        gsd_log("the duration estimator learned %lld completed jobs' run times again",
                (long long)lp->fed);
    return 0;
}

int gsd_restore_all(struct gsd_loop *lp, int startup)
{
    if (gsd_restore_nodes(lp) < 0 || feed_history(lp) < 0)
        return -1;
    struct restore_ctx x = { lp, NULL, 0 };
    if (startup) {
        int rc = gs_store_jobs_live(lp->st, on_live_row, &x);
        if (rc < 0 || x.failed) {
            gsd_log("restore from the journal failed");
            return -1;
        }
        gsd_log("restored %zu live jobs from the journal", lp->nlive);
        gsd_conflicts_report(lp);
        gsd_restore_fifo_order(lp); /* recover.c; on failure: submission order */
        return 0;
    }
    x.handles = malloc((lp->nlive + 1) * sizeof *x.handles);
    if (!x.handles)
        return -1;
    for (size_t i = 0; i < lp->nlive; i++)
        x.handles[i] = -2;
    int rc = gs_store_jobs_live(lp->st, on_reload_row, &x);
    if (rc == 0 && !x.failed) {
        for (size_t i = 0; i < lp->nlive; i++) /* the old engine's handles */
            if (lp->live[i]->handle >= 0)
                gs_intmap_del(lp->byh, lp->live[i]->handle);
        for (size_t i = 0; i < lp->nlive && rc == 0; i++) {
            lp->live[i]->handle = -1;
            if (x.handles[i] >= 0)
                rc = gsd_job_index(lp, lp->live[i], x.handles[i]);
        }
    }
    free(x.handles);
    if (rc == 0 && !x.failed)
        gsd_restore_fifo_order(lp); /* recover.c */
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
    gs_engine_set_live(lp->eng, 1);
    if (pol->start_latency > 0) /* no latency source: the launches' delay is real */
        gsd_log("policy: start_latency.* is the simulator's model; ignored here (the "
                "measured latency is in /metrics, docs/daemon.md \"Start latency\")");
    return 0;
}

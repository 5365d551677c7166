/* loop_backend.c - the loop's side of the backend interface (backend.h):
 * the calls a backend makes back (struct gsd_bcalls: every change to a live
 * job that is not the backend's own is made here, on the engine thread),
 * the view of a job a backend is given (struct gsd_bjob), and the wrappers
 * through which the rest of the loop reaches the backend's ops table.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/gpumap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gsd_bjob_of(struct djob *d, struct gsd_bjob *b)
{
    *b = (struct gsd_bjob){ .job = d, .seq = d->seq, .id = d->id, .user = d->user,
                            .attempt = d->ji.attempts, .state = d->ji.state,
                            .handle = d->handle, .exited = d->exited,
                            .placement = d->placement, .proc = &d->proc, .bk = &d->bk };
}

/* ---- the calls (struct gsd_bcalls) ---- */

static gs_time c_now(void *loop, int which)
{
    struct gsd_loop *lp = loop;
    return which == GSD_NOW_TURN ? lp->last_now : gsd_now(lp);
}

static int c_placement(void *loop, const struct gsd_bjob *b, struct gs_alloc_part *out, int cap)
{
    return gsd_job_placement(loop, b->job, out, cap);
}

static int c_request(void *loop, const struct gsd_bjob *b, struct gs_api_submit *s,
                     struct gs_error *err)
{
    return gsd_launch_request(loop, b->job, s, err);
}

static void c_rundir(void *loop, const struct gsd_bjob *b, char *buf, size_t n)
{
    gsd_rundir(loop, b->job, buf, n);
}

static char *c_out_name(void *loop, const struct gsd_bjob *b, const char *sfx, char *buf,
                        size_t n)
{
    return gsd_out_name(loop, b->id, b->attempt, sfx, buf, n);
}

static int c_job_at(void *loop, size_t i, struct gsd_bjob *b)
{
    struct gsd_loop *lp = loop;
    if (i >= lp->nlive)
        return 0;
    gsd_bjob_of(lp->live[i], b);
    return 1;
}

static void c_report(void *loop, struct gsd_bjob *b, int what)
{
    struct gsd_loop *lp = loop;
    struct djob *d = b ? b->job : NULL;
    if (!d && what != GSD_BR_WAKE)
        return;
    switch (what) {
    case GSD_BR_DIRTY: gsd_job_dirty(lp, d); break;
    case GSD_BR_LAUNCHED:
        d->launched = 1;
        gsd_jl_add(lp, GSD_JL_CONFIRM, d);
        break;
    case GSD_BR_EXITED: gsd_job_exited(lp, d); break;
    case GSD_BR_RELAUNCH:
        d->launch_wanted = 1;
        gsd_jl_add(lp, GSD_JL_LAUNCH, d);
        break;
    case GSD_BR_UNLAUNCHED:
        d->launch_error = 1;
        gsd_jl_add(lp, GSD_JL_CONFIRM, d);
        break;
    case GSD_BR_FORGOTTEN: d->exited = d->launched = 0; break;
    case GSD_BR_WATCH: gsd_watch(lp, d); break;
    case GSD_BR_KILL_ARM: gsd_kill_arm(lp, d); break;
    case GSD_BR_WAKE: lp->again = 1; break;
    default: break;
    }
}

static void c_event(void *loop, gs_time now, int64_t seq, const char *kind, const char *detail)
{
    struct gsd_loop *lp = loop;
    gs_store_event(lp->st, now, seq, kind, detail, NULL);
}

static void c_launch_msg(void *loop, struct gsd_bjob *b, const char *msg)
{
    struct djob *d = b->job;
    char *keep = strdup(msg);
    if (!keep)
        return;
    free(d->launch_msg);
    d->launch_msg = keep;
    gsd_job_dirty(loop, d);
}

static void c_lost_launch(void *loop, struct gsd_bjob *b, gs_time now, const char *node)
{
    struct gsd_loop *lp = loop;
    struct djob *d = b->job;
    struct gs_error err;
    gs_error_clear(&err);
    lp->backend_errors++;
    if (gs_engine_launch_failed(lp->eng, now, d->handle, &err) < 0)
        gsd_log("job %s: failed launch not taken: %s", d->id, err.msg);
    gs_store_event(lp->st, now, d->seq, "launch_failed", node, NULL);
    gsd_job_sync(lp, d);
}

static int c_node_state(void *loop, gs_time now, int node, int want, struct gs_error *err)
{
    struct gsd_loop *lp = loop;
    const char *name = gs_cluster_node_name(gs_engine_cluster(lp->eng), node);
    char key[GS_NAME_MAX + 16];
    int64_t api = GS_NODE_UP;
    snprintf(key, sizeof key, "node_state:%s", name);
    gs_store_meta_get(lp->st, key, &api);
    int st = want == GS_NODE_UP && api != GS_NODE_UP ? (int)api : want;
    int rc = gs_engine_node_set_state(lp->eng, now, node, st, err);
    if (rc < 0)
        return rc;
    if (st == GS_NODE_DOWN) { /* failstats.c: the runs it ended are node failures */
        gsd_fail_node_down(lp, 0);
        gsd_fail_sync_all(lp);
    }
    static const char *const ev[] = { "node_up", "node_drain", "node_down" };
    gs_store_event(lp->st, now, 0, ev[st], name, NULL);
    return 0;
}

static int c_move_gpus(void *loop, gs_time now, const struct gs_gpu_move *mv, size_t n,
                       struct gs_error *err)
{
    struct gsd_loop *lp = loop;
    return gs_engine_move_gpus(lp->eng, now, mv, n, err);
}

static void c_set_placement(void *loop, struct gsd_bjob *b, char *placement)
{
    struct djob *d = b->job;
    free(d->placement);
    d->placement = placement;
    b->placement = placement;
    gsd_job_dirty(loop, d);
}

static const struct gsd_bcalls calls = {
    .now = c_now, .placement = c_placement, .request = c_request, .rundir = c_rundir,
    .out_name = c_out_name, .job_at = c_job_at, .report = c_report, .event = c_event,
    .launch_msg = c_launch_msg, .lost_launch = c_lost_launch, .node_state = c_node_state,
    .move_gpus = c_move_gpus, .set_placement = c_set_placement,
    .launch_done = gsd_launch_done,
};

/* ---- the loop's way to the ops table ---- */

int gsd_be_open(struct gsd_loop *lp)
{
    lp->bctx = (struct gsd_bctx){ .opts = &lp->sh.opts, .cl = lp->cl, .call = &calls,
                                  .loop = lp, .errors = lp->bctx.errors,
                                  .gpu_mismatches = lp->bctx.gpu_mismatches };
    if (lp->be->open(&lp->bctx) < 0)
        return -1;
    return lp->be->host_procs ? gsd_gpumap_open(lp, lp->cl) : 0;
}

int gsd_be_launch(struct gsd_loop *lp, struct djob *d, struct gs_error *err)
{
    struct gsd_bjob b;
    gsd_bjob_of(d, &b);
    return lp->be->launch(&lp->bctx, &b, err);
}

int gsd_be_signal(struct gsd_loop *lp, const struct gsd_proc *p, int how)
{
    return lp->be->signal(&lp->bctx, p, how);
}

void gsd_be_reconcile(struct gsd_loop *lp, struct djob *d)
{
    struct gsd_bjob b;
    gsd_bjob_of(d, &b);
    lp->be->reconcile(&lp->bctx, &b);
}

int gsd_be_read_exit(struct gsd_loop *lp, struct djob *d, int *code, int64_t *end_ms)
{
    struct gsd_bjob b;
    gsd_bjob_of(d, &b);
    return lp->be->read_exit(&lp->bctx, &b, code, end_ms);
}

int gsd_be_told_by_others(struct gsd_loop *lp, struct djob *d)
{
    if (!lp->be->told_by_others)
        return 0;
    struct gsd_bjob b;
    gsd_bjob_of(d, &b);
    return lp->be->told_by_others(&lp->bctx, &b);
}

void gsd_be_release(struct gsd_loop *lp, struct djob *d)
{
    struct gsd_bjob b;
    gsd_bjob_of(d, &b);
    lp->be->release(&lp->bctx, &b);
}

void gsd_be_release_proc(struct gsd_loop *lp, struct gsd_proc *p)
{
    struct gsd_bjob b = { .proc = p };
    lp->be->release(&lp->bctx, &b);
}

void gsd_be_poll(struct gsd_loop *lp)
{
    if (lp->be->poll)
        lp->be->poll(&lp->bctx);
}

int gsd_be_apply(struct gsd_loop *lp, gs_time now)
{
    return lp->be->apply ? lp->be->apply(&lp->bctx, now) : 0;
}

void gsd_be_close(struct gsd_loop *lp)
{
    if (lp->be && lp->be->close)
        lp->be->close(&lp->bctx);
}

int gsd_be_start(struct gsd_loop *lp)
{
    lp->bctx.wake_fd = lp->sh.efd;
    return lp->be->start ? lp->be->start(&lp->bctx) : 0;
}

void gsd_be_submit(struct gsd_loop *lp, struct gsd_lreq *list)
{
    lp->be->submit(&lp->bctx, list);
}

void gsd_be_collect(struct gsd_loop *lp)
{
    if (lp->be->collect)
        lp->be->collect(&lp->bctx);
}

void gsd_be_drain(struct gsd_loop *lp)
{
    if (lp->be->drain)
        lp->be->drain(&lp->bctx);
}

int gsd_be_in_flight(struct gsd_loop *lp)
{
    return lp->be->in_flight ? lp->be->in_flight(&lp->bctx) : 0;
}

void gsd_be_stop(struct gsd_loop *lp)
{
    if (lp->be && lp->be->stop)
        lp->be->stop(&lp->bctx);
}

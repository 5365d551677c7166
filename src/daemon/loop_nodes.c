/* loop_nodes.c - node and GPU states set through the admin API (drain,
 * resume, down), journalled and restored, and the attempts a `down` ends.
 *
 * The engine's `down` ends the runs on the node at once (engine.h: the jobs
 * are requeued under the progress model, or failed once retry.max_attempts
 * is reached), as for a machine that died.  With the local backend the
 * processes are still alive here: their supervisors are sent SIGKILL for
 * their groups and kept as orphans (no longer the job's attempt: the job
 * may start again elsewhere in the same turn) until they are gone.  Other
 * backends refuse `down` (409): the execution system must end the runs
 * itself, and its node state reaches the engine as a node event.
 *
 * Journal: meta node_state:NAME and gpu_state:NAME:G (enum gs_node_state;
 * gpu_states = 1 once any GPU was set alone), an event per command
 * (node_drain and node_down with detail "NAME: REASON", the reason empty
 * when none was given; node_resume with "NAME"; the GPU forms add "/gpuG"
 * to the name).  A restart takes the reason of a drained or down node or
 * GPU from its last such event.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/loop_log.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

const char *gsd_node_state_name(int st)
{
    return st == GS_NODE_DRAIN ? "drain" : st == GS_NODE_DOWN ? "down" : "up";
}

/* The attempt of d is over for the engine: kill what is left of it and
 * forget it (it is reaped by gsd_orphans_reap). */
static void orphan(struct gsd_loop *lp, struct djob *d, gs_time now)
{
    if (d->proc.pidfd >= 0)
        epoll_ctl(lp->epfd, EPOLL_CTL_DEL, d->proc.pidfd, NULL);
    gsd_be_signal(lp, &d->proc, GSD_SIG_KILL);
    struct gsd_proc *o = realloc(lp->orphans, (lp->norphans + 1) * sizeof *o);
    if (o) {
        lp->orphans = o;
        lp->orphans[lp->norphans++] = d->proc;
    } else {
        gsd_be_release_proc(lp, &d->proc);
    }
    gs_store_event(lp->st, now, d->seq, "kill", "its node went down", NULL);
    d->proc = (struct gsd_proc){ 0, 0, -1 };
    gsd_timer_cancel(&lp->timers, &d->kill_tm);
    d->exited = d->held = 0;
    d->launch_wanted = d->launched = 0;
    gsd_job_dirty(lp, d);
}

void gsd_orphans_reap(struct gsd_loop *lp)
{
    for (size_t i = 0; i < lp->norphans;) {
        struct gsd_proc *p = &lp->orphans[i];
        struct pollfd pf = { .fd = p->pidfd, .events = POLLIN };
        int gone = p->pidfd >= 0 ? poll(&pf, 1, 0) == 1 : gsd_be_signal(lp, p, GSD_SIG_KILL) < 0;
        if (!gone) {
            i++;
            continue;
        }
        gsd_be_release_proc(lp, p);
        lp->orphans[i] = lp->orphans[--lp->norphans];
    }
}

/* Jobs whose run the last node command ended: their processes go. */
static void end_runs(struct gsd_loop *lp, gs_time now)
{
    for (size_t i = 0; i < lp->nlive; i++) {
        struct djob *d = lp->live[i];
        if (d->handle < 0)
            continue;
        gsd_job_sync(lp, d);
        if (gs_job_state_holds(d->ji.state))
            continue;
        d->launch_wanted = 0; /* decided, not launched: nothing to start now */
        if (d->proc.pid > 0 && lp->be->host_procs)
            orphan(lp, d, now);
    }
}

static void set_reason(struct gsd_loop *lp, int node, const char *reason)
{
    free(lp->node_reason[node]);
    lp->node_reason[node] = reason ? strdup(reason) : NULL;
}

/* The reason slot of GPU g of node n (NULL when out of range or memory). */
static char **gpu_slot(struct gsd_loop *lp, int n, int g)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    if (!lp->gpu_reason || g < 0 || g >= gs_cluster_node_gpus(cl, n))
        return NULL;
    if (!lp->gpu_reason[n])
        lp->gpu_reason[n] = calloc((size_t)gs_cluster_node_gpus(cl, n), sizeof(char *));
    return lp->gpu_reason[n] ? &lp->gpu_reason[n][g] : NULL;
}

static void set_gpu_reason(struct gsd_loop *lp, int n, int g, const char *reason)
{
    char **slot = gpu_slot(lp, n, g);
    if (!slot)
        return;
    free(*slot);
    *slot = reason ? strdup(reason) : NULL;
}

const char *gsd_gpu_reason(const struct gsd_loop *lp, int n, int g)
{
    return lp->gpu_reason && lp->gpu_reason[n] && g >= 0 &&
                   g < gs_cluster_node_gpus(gs_engine_cluster(lp->eng), n)
               ? lp->gpu_reason[n][g]
               : NULL;
}

static int journal(struct gsd_loop *lp, gs_time now, const struct gsd_cmd *c, int st)
{
    static const char *const ev[] = { [GS_NODE_UP] = "node_resume",
                                      [GS_NODE_DRAIN] = "node_drain",
                                      [GS_NODE_DOWN] = "node_down" };
    char key[GS_NAME_MAX + 32], detail[GS_NAME_MAX + 256];
    int w = c->gpu >= 0 ? snprintf(detail, sizeof detail, "%s/gpu%d", c->id, c->gpu)
                        : snprintf(detail, sizeof detail, "%s", c->id);
    if (st != GS_NODE_UP && w > 0 && (size_t)w < sizeof detail)
        snprintf(detail + w, sizeof detail - (size_t)w, ": %.200s", c->reason ? c->reason : "");
    if (c->gpu >= 0)
        snprintf(key, sizeof key, "gpu_state:%s:%d", c->id, c->gpu);
    else
        snprintf(key, sizeof key, "node_state:%s", c->id);
    int rc = gs_store_event(lp->st, now, 0, ev[st], detail, NULL);
    if (rc == 0)
        rc = gs_store_meta_set(lp->st, key, st, NULL);
    if (rc == 0 && c->gpu >= 0)
        rc = gs_store_meta_set(lp->st, "gpu_states", 1, NULL);
    return rc;
}

int gsd_apply_node(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    int node = gs_cluster_find_node(cl, c->id);
    struct gs_error err;
    gs_error_clear(&err);
    if (node < 0 || (c->gpu >= 0 && c->gpu >= gs_cluster_node_gpus(cl, node))) {
        c->status = 404;
        c->body = node < 0 ? gsd_error_json(404, "not_found", "name", "no node '%.100s'", c->id)
                           : gsd_error_json(404, "not_found", "gpu", "node '%.100s' has no GPU %d",
                                            c->id, c->gpu);
        return 0;
    }
    int st = c->kind == GSD_NODE_DRAIN ? GS_NODE_DRAIN
             : c->kind == GSD_NODE_DOWN ? GS_NODE_DOWN : GS_NODE_UP;
    if (st == GS_NODE_DOWN && !lp->be->host_procs) {
        /* Only the local backend can end a node's runs here; under Slurm
         * the requeued jobs would run again while Slurm still runs them.
         * Slurm's own down (scontrol) kills them and reaches the engine as
         * a node event (backend_slurm.c). */
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "name",
                                 "node '%.100s': with this backend set the node down in "
                                 "the execution system (Slurm: scontrol update "
                                 "nodename=%.100s state=down reason=...); gpuschedd follows it",
                                 c->id, c->id);
        return 0;
    }
    if (st == GS_NODE_UP && c->gpu < 0 && /* quarantine.c: it may stay drained */
        (st = gsd_quar_resume_state(lp, node, gs_engine_node_state(lp->eng, node))) < 0)
        return -1;
    int was = c->gpu >= 0 ? gs_engine_gpu_state(lp->eng, node, c->gpu)
                          : gs_engine_node_state(lp->eng, node);
    if (st == GS_NODE_DOWN && was != GS_NODE_DOWN)
        gsd_fail_node_down(lp, c->gpu >= 0); /* failstats.c: until fail_ctx = 0 */
    int rc = c->gpu >= 0 ? gs_engine_gpu_set_state(lp->eng, now, node, c->gpu, st, &err)
                         : gs_engine_node_set_state(lp->eng, now, node, st, &err);
    if (rc < 0) {
        lp->fail_ctx = 0;
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "name", "%s", err.msg);
        return 0;
    }
    if (st == GS_NODE_DOWN)
        end_runs(lp, now);
    lp->fail_ctx = 0;
    const char *why = st == GS_NODE_UP ? NULL : c->reason ? c->reason : "";
    if (c->gpu < 0)
        set_reason(lp, node, why);
    else
        set_gpu_reason(lp, node, c->gpu, why);
    if (journal(lp, now, c, st) < 0 ||
        (st == GS_NODE_DOWN && c->gpu < 0 && gsd_quar_note_down(lp, node, now, c->reason) < 0))
        return -1;
    if (c->gpu < 0)
        gsd_quar_keep_reason(lp, node);
    gsd_log_node(lp, c->id, c->gpu, st, why);
    lp->view_force = 1;
    c->status = 200;
    c->kind = GSD_NODES; /* answered with the node list after the commit */
    return 0;
}

/* The reason of the last drain or down (event `kind`) of `name` (a node,
 * or "NODE/gpuG") from its journal event, "" when it has none. */
static char *restore_reason(struct gsd_loop *lp, const char *kind, const char *name)
{
    char prefix[GS_NAME_MAX + 32], detail[512];
    snprintf(prefix, sizeof prefix, "%s: ", name);
    if (gs_store_event_last(lp->st, kind, prefix, detail, sizeof detail) == 0)
        return strdup(detail + strlen(prefix));
    return strdup("");
}

static const char *state_event(int st)
{
    return st == GS_NODE_DOWN ? "node_down" : "node_drain";
}

/* GPU g of node n from meta gpu_state:NAME:G, with its reason. */
static int restore_gpu(struct gsd_loop *lp, gs_time now, int n, int g)
{
    char key[GS_NAME_MAX + 32];
    const char *name = gs_cluster_node_name(gs_engine_cluster(lp->eng), n);
    int64_t st;
    snprintf(key, sizeof key, "gpu_state:%s:%d", name, g);
    if (gs_store_meta_get(lp->st, key, &st) != 0 || st == GS_NODE_UP)
        return 0;
    if (gs_engine_gpu_set_state(lp->eng, now, n, g, (int)st, NULL) < 0)
        return -1;
    char **slot = gpu_slot(lp, n, g);
    snprintf(key, sizeof key, "%s/gpu%d", name, g);
    if (slot && !*slot)
        *slot = restore_reason(lp, state_event((int)st), key);
    return 0;
}

int gsd_restore_nodes(struct gsd_loop *lp)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    int nn = gs_cluster_node_count(cl);
    if (!lp->node_reason && !(lp->node_reason = calloc((size_t)nn + 1, sizeof(char *))))
        return -1;
    if (!lp->gpu_reason && !(lp->gpu_reason = calloc((size_t)nn + 1, sizeof(char **))))
        return -1;
    gs_time now = gsd_now(lp);
    int64_t st, gpus = 0;
    gs_store_meta_get(lp->st, "gpu_states", &gpus);
    for (int n = 0; n < nn; n++) {
        char key[GS_NAME_MAX + 32];
        const char *name = gs_cluster_node_name(cl, n);
        snprintf(key, sizeof key, "node_state:%s", name);
        if (gs_store_meta_get(lp->st, key, &st) == 0 && st != GS_NODE_UP &&
            gs_engine_node_set_state(lp->eng, now, n, (int)st, NULL) < 0)
            return -1;
        int ns = gs_engine_node_state(lp->eng, n);
        if (ns != GS_NODE_UP && !lp->node_reason[n])
            lp->node_reason[n] = restore_reason(lp, state_event(ns), name);
        gsd_quar_restore(lp, n);
        for (int g = 0; gpus && g < gs_cluster_node_gpus(cl, n); g++)
            if (restore_gpu(lp, now, n, g) < 0)
                return -1;
    }
    return 0;
}

void gsd_nodes_fini(struct gsd_loop *lp)
{
    const struct gs_cluster *cl = lp->cl;
    for (int n = 0; lp->node_reason && cl && n < gs_cluster_node_count(cl); n++)
        free(lp->node_reason[n]);
    free(lp->node_reason);
    lp->node_reason = NULL;
    for (int n = 0; lp->gpu_reason && cl && n < gs_cluster_node_count(cl); n++) {
        for (int g = 0; lp->gpu_reason[n] && g < gs_cluster_node_gpus(cl, n); g++)
            free(lp->gpu_reason[n][g]);
        free(lp->gpu_reason[n]);
    }
    free(lp->gpu_reason);
    lp->gpu_reason = NULL;
    gsd_quar_fini(lp);
    for (size_t i = 0; i < lp->norphans; i++)
        gsd_be_release_proc(lp, &lp->orphans[i]);
    free(lp->orphans);
    lp->orphans = NULL;
    lp->norphans = 0;
}

/* loop_launch.c - starting an attempt (the local backend's through the
 * launcher threads, a backend's own `launch` op otherwise): the job's
 * request is read back from the journal (the engine does not keep
 * commands), its environment built (CUDA_VISIBLE_DEVICES = the GPU indices
 * on its first node, GPUSCHED_JOB_ID, GPUSCHED_SERVER, GPUSCHED_PLACEMENT)
 * and its supervisor forked after the commit that recorded the decision,
 * by the launcher thread (launcher.h): a turn's launches are handed over
 * as one batch and their results collected at the start of a later turn.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/gpumap.h"
#include "daemon/launcher.h"
#include "daemon/runas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Names the scheduler sets: a request's own value is dropped (the API
 * refuses them too; this is the backstop for journal records). */
static int reserved(const char *kv)
{
    return !strncmp(kv, "CUDA_VISIBLE_DEVICES=", 21) || !strncmp(kv, "NVIDIA_VISIBLE_DEVICES=", 23) ||
           !strncmp(kv, "GPUSCHED_", 9);
}

/* The first node of d's placement and its GPUs; 0 when it has none. */
static int first_part(struct gsd_loop *lp, const struct djob *d, struct gs_alloc_part *first)
{
    int cap = gs_cluster_node_count(lp->cl);
    struct gs_alloc_part *parts = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *parts);
    int n = parts ? gsd_job_placement(lp, d, parts, cap) : -1;
    if (n > 0)
        *first = parts[0];
    free(parts);
    return n > 0;
}

/* The job's environment: the request's env, then the GPUSCHED ones (the
 * supervisor adds USER, LOGNAME, HOME, SHELL, PATH: runas.h); never the
 * daemon's own. */
static char **launch_env(struct gsd_loop *lp, const struct djob *d,
                         const struct gs_api_submit *s, char *bufs[4])
{
    char **env = calloc((size_t)s->nenv + 5, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (int i = 0; i < s->nenv; i++)
        if (!reserved(s->env[i]))
            env[k++] = s->env[i];
    const char *pl = d->placement ? d->placement : "";
    size_t cap = strlen(pl) + 64;
    for (int i = 0; i < 4; i++)
        bufs[i] = malloc(cap + strlen(lp->sh.opts.server_url) + strlen(d->id));
    if (!bufs[0] || !bufs[1] || !bufs[2] || !bufs[3])
        return env;
    /* CUDA_VISIBLE_DEVICES: the host indices of the first node's GPUs (the
     * engine's allocation, gsd_job_placement) */
    struct gs_alloc_part first;
    size_t w = (size_t)sprintf(bufs[0], "CUDA_VISIBLE_DEVICES=");
    if (first_part(lp, d, &first))
        for (uint64_t m = first.mask; m; m &= m - 1)
            w += (size_t)sprintf(bufs[0] + w, "%s%d", w > 21 ? "," : "",
                                 gsd_gpumap_index(lp, first.node, __builtin_ctzll(m)));
    sprintf(bufs[1], "GPUSCHED_JOB_ID=%s", d->id);
    sprintf(bufs[2], "GPUSCHED_SERVER=%s", lp->sh.opts.server_url);
    sprintf(bufs[3], "GPUSCHED_PLACEMENT=%s", pl);
    for (int i = 0; i < 4; i++)
        env[k++] = bufs[i];
    return env;
}

static int get_request(void *arg, const struct gs_store_job *j)
{
    *(char **)arg = strdup(j->request);
    return 1;
}

int gsd_launch_request(struct gsd_loop *lp, const struct djob *d, struct gs_api_submit *s,
                       struct gs_error *err)
{
    char *req = NULL;
    if (gs_store_job_by_seq(lp->st, d->seq, get_request, &req) != 1 || !req)
        return gs_errorf(err, GS_EIO, "job %s: no request in the journal", d->id);
    struct gs_api_error ae;
    int rc = gs_api_submit_decode(req, strlen(req), s, &ae);
    free(req);
    if (rc < 0)
        return gs_errorf(err, GS_EINVAL, "job %s: %s", d->id, ae.message);
    return 0;
}

/* The launch of d's decided attempt, built on the engine thread (the
 * request is read back from the journal): NULL with err and
 * d->launch_why (-1 = the job's own failure: a request that does not
 * decode; else the daemon's, retried). */
static struct gsd_lreq *prepare(struct gsd_loop *lp, struct djob *d, struct gs_error *err)
{
    struct gsd_lreq *r = calloc(1, sizeof *r);
    d->launch_why = GSD_LF_FORK; /* out of memory here: the daemon's failure */
    if (!r)
        return gs_errorf(err, GS_ENOMEM, "out of memory"), NULL;
    int rc = gsd_launch_request(lp, d, &r->s, err);
    if (rc < 0) { /* unreadable journal: retried; a request that does not decode: the job's */
        d->launch_why = rc == GS_EIO ? GSD_LF_REQUEST : -1;
        free(r);
        return NULL;
    }
    char dir[4096];
    gsd_rundir(lp, d, dir, sizeof dir);
    r->rundir = strdup(dir);
    char path[4096];
    r->out = strdup(gsd_out_name(lp, d->id, d->ji.attempts, "out", path, sizeof path));
    r->err = strdup(gsd_out_name(lp, d->id, d->ji.attempts, "err", path, sizeof path));
    r->user = strdup(lp->sh.opts.virtual_users && !gsd_runas_exists(d->user) ? "-" : d->user);
    r->env = launch_env(lp, d, &r->s, r->bufs);
    if (!r->rundir || !r->out || !r->err || !r->user || !r->env || !r->bufs[3]) {
        gsd_lreq_free(r);
        return gs_errorf(err, GS_ENOMEM, "out of memory"), NULL;
    }
    r->l = (struct gsd_launch){ .supervisor = lp->sh.opts.supervisor, .rundir = r->rundir,
                                .argv = r->s.argv, .envp = r->env, .cwd = r->s.cwd,
                                .out = r->s.out ? r->s.out : r->out,
                                .err = r->s.err ? r->s.err : r->err, .out_own = !r->s.out,
                                .err_own = !r->s.err, .user = r->user,
                                .fsize = lp->file_limit };
    r->job = d;
    r->attempt = d->ji.attempts;
    return r;
}

/* A launch failed for the daemon's own reasons (descriptors, processes,
 * memory, its state directory): not the job's failure.  The engine puts the
 * job back as pending next turn, its GPUs released and no attempt charged
 * (gs_engine_launch_deferred), and no pass runs (so nothing is decided that
 * could not be launched) until a back-off of 100 ms, doubling with each
 * round of failures in a row up to 10 s, has passed; counted by reason in
 * /metrics. */
static void defer(struct gsd_loop *lp, struct djob *d, const struct gs_error *err)
{
    int64_t mono = gsd_mono_ms();
    if (mono >= lp->launch_hold_until) { /* a new round */
        int64_t wait = 100;
        for (int k = 0; k < lp->launch_streak && wait < 10000; k++)
            wait *= 2;
        lp->launch_hold_until = mono + (wait > 10000 ? 10000 : wait);
        lp->launch_streak++;
    }
    d->retries++;
    d->launch_deferred = 1;
    gsd_jl_add(lp, GSD_JL_CONFIRM, d);
    lp->launch_failures[d->launch_why]++;
    gsd_job_dirty(lp, d);
    lp->again = 1;
    gsd_log("job %s: launch failed on the daemon's side (%s: %s); retry %d in %lld ms, "
            "pending meanwhile", d->id, gsd_launch_fail_name[d->launch_why], err->msg,
            d->retries, (long long)(lp->launch_hold_until - mono));
}

int gsd_launch_held(struct gsd_loop *lp)
{
    /* back-pressure: while more launches wait than the threads can start
     * in a few rounds, decided jobs would hold GPUs without running; the
     * pass runs again when results come back (the eventfd wakes the loop) */
    if (gsd_be_in_flight(lp) >= 4 * GSD_LAUNCHER_THREADS)
        return 1;
    if (lp->launch_hold_until > gsd_mono_ms())
        return 1;
    lp->launch_hold_until = 0; /* over: this pass runs */
    return 0;
}

/* A launch that did not happen: retried when the daemon is to blame,
 * else reported to the engine next turn. */
static void launch_failed(struct gsd_loop *lp, struct djob *d, const struct gs_error *err)
{
    d->proc = (struct gsd_proc){ 0, 0, -1 };
    if (lp->be->host_procs && d->launch_why >= 0) {
        defer(lp, d, err);
        return;
    }
    gsd_log("job %s: launch failed: %s", d->id, err->msg);
    d->launch_error = 1; /* the engine hears of it next turn */
    gsd_jl_add(lp, GSD_JL_CONFIRM, d);
    gsd_job_dirty(lp, d);
    lp->again = 1;
}

/* A supervisor whose job no longer wants it (stopped, its node down, the
 * attempt re-planned while it was being launched): it goes (SIGKILL to its
 * job's group) and is reaped with the orphans (loop_nodes.c). */
static void discard(struct gsd_loop *lp, struct gsd_proc *p)
{
    gsd_be_signal(lp, p, GSD_SIG_KILL);
    struct gsd_proc *o = realloc(lp->orphans, (lp->norphans + 1) * sizeof *o);
    if (o) {
        lp->orphans = o;
        lp->orphans[lp->norphans++] = *p;
    } else {
        gsd_be_release_proc(lp, p);
    }
}

void gsd_launch_done(void *loop, struct gsd_lreq *r)
{
    struct gsd_loop *lp = loop;
    struct djob *d = r->job;
    gsd_hist_add(&lp->launch_ms, r->ms);
    int wanted = d->launching == r->attempt + 1 && d->ji.attempts == r->attempt;
    d->launching = 0;
    d->launch_why = r->why;
    if (r->rc < 0) {
        if (wanted && d->state == D_STARTING)
            launch_failed(lp, d, &r->error);
        else if (wanted) { /* a stop asked meanwhile: confirmed now */
            d->launch_error = 1;
            gsd_jl_add(lp, GSD_JL_CONFIRM, d);
            lp->again = 1;
        }
        gsd_job_dirty(lp, d);
        return;
    }
    if (!wanted || (d->state != D_STARTING && d->state != D_STOPPING)) {
        discard(lp, &r->proc);
        gsd_job_dirty(lp, d);
        lp->again = 1; /* a new decision of it may wait for this one's end */
        return;
    }
    d->proc = r->proc;
    d->retries = 0;
    lp->launch_streak = 0;
    d->launched = 1; /* confirmed (gs_engine_started) next turn */
    gsd_jl_add(lp, GSD_JL_CONFIRM, d);
    gsd_watch(lp, d);
    if (d->state == D_STOPPING) { /* cancelled or preempted while launching */
        if (gsd_be_signal(lp, &d->proc, GSD_SIG_TERM) < 0)
            gsd_job_exited(lp, d);
        gsd_kill_arm(lp, d);
    }
    gsd_job_dirty(lp, d);
    lp->again = 1; /* confirm and journal the supervisor's pid at once */
}

void gsd_launch_collect(struct gsd_loop *lp)
{
    gsd_be_collect(lp); /* each done launch comes back to gsd_launch_done */
}

void gsd_launch_drain(struct gsd_loop *lp)
{
    gsd_be_drain(lp);
}

/* A backend with its own launch op (slurm: one sbatch per job), on the
 * engine thread. */
static void launch_now(struct gsd_loop *lp, struct djob *d)
{
    struct gs_error err;
    gs_error_clear(&err);
    if (gsd_be_launch(lp, d, &err) < 0) {
        launch_failed(lp, d, &err);
        return;
    }
    d->retries = 0;
    gsd_job_dirty(lp, d);
    lp->again = 1;
}

/* Whether node `node` is in d's placement. */
static int on_node(struct gsd_loop *lp, const struct djob *d, int node)
{
    int cap = gs_cluster_node_count(lp->cl), on = 0;
    struct gs_alloc_part *parts = node >= 0 ? malloc((size_t)cap * sizeof *parts) : NULL;
    int n = parts ? gsd_job_placement(lp, d, parts, cap) : 0;
    for (int i = 0; i < n; i++)
        on |= parts[i].node == node;
    free(parts);
    return on;
}

/* Test hook (tests/cli/daemon_quarantine.t): GPUSCHEDD_TEST_NODE_START_FAIL
 * = NODE makes every launch of an attempt placed on NODE fail on the
 * node's side (as a GPU that does not come up would), before anything is
 * forked: a failed start charged to the node (quarantine.c), the job
 * requeued under retry.on launch_failure.  1 when it failed d's launch. */
static int node_start_fails(struct gsd_loop *lp, struct djob *d)
{
    const char *node = getenv("GPUSCHEDD_TEST_NODE_START_FAIL");
    if (!node || !*node || !on_node(lp, d, gs_cluster_find_node(lp->cl, node)))
        return 0;
    struct gs_error err;
    gs_errorf(&err, GS_EIO, "node %s: the job's GPUs did not come up "
                            "(GPUSCHEDD_TEST_NODE_START_FAIL)", node);
    d->launch_why = -1;
    d->launch_node = 1;
    launch_failed(lp, d, &err);
    char *keep = strdup(err.msg);
    if (keep) {
        free(d->launch_msg);
        d->launch_msg = keep;
    }
    return 1;
}

void gsd_launch_pending(struct gsd_loop *lp)
{
    int64_t mono = gsd_mono_ms();
    struct gsd_lreq *batch = NULL, **tail = &batch;
    size_t n;
    struct djob **want = gsd_jl_take(lp, GSD_JL_LAUNCH, &n); /* in lp->live's order */
    for (size_t i = 0; i < n; i++) {
        struct djob *d = want[i];
        if (!d->launch_wanted)
            continue;
        if (d->proc.pid > 0 || d->launching || d->state != D_STARTING ||
            !gsd_retry_due(d, mono)) {
            gsd_jl_add(lp, GSD_JL_LAUNCH, d); /* still wanted: a later turn */
            continue;
        }
        d->launch_wanted = 0;
        gsd_timer_cancel(&lp->timers, &d->retry_tm);
        d->launch_why = -1;
        d->launch_node = 0;
        if (gsd_test_crash == GSD_CRASH_BEFORE_LAUNCH)
            _exit(99);
        if (node_start_fails(lp, d))
            continue;
        if (lp->be->launch) {
            launch_now(lp, d);
            continue;
        }
        struct gs_error err;
        gs_error_clear(&err);
        struct gsd_lreq *r = prepare(lp, d, &err);
        if (!r) {
            launch_failed(lp, d, &err);
            continue;
        }
        d->launching = r->attempt + 1;
        *tail = r;
        tail = &r->next;
    }
    free(want);
    if (batch)
        gsd_be_submit(lp, batch); /* the turn's launches, at once */
}

int64_t gsd_launch_next_retry(const struct gsd_loop *lp)
{
    return lp->launch_hold_until; /* the pass held back by defer() */
}

/* loop_launch.c - starting an attempt on the local backend: the job's
 * request is read back from the journal (the engine does not keep
 * commands), its environment built (CUDA_VISIBLE_DEVICES = the GPU indices
 * on its first node, GPUSCHED_JOB_ID, GPUSCHED_SERVER, GPUSCHED_PLACEMENT)
 * and its supervisor forked after the commit that recorded the decision.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/gpumap.h"
#include "daemon/reap.h"
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
    const char *colon = strchr(pl, ':');
    size_t nl = colon ? (size_t)(colon - pl) : 0;
    size_t cap = strlen(pl) + 64;
    for (int i = 0; i < 4; i++)
        bufs[i] = malloc(cap + strlen(lp->opts.server_url) + strlen(d->id));
    if (!bufs[0] || !bufs[1] || !bufs[2] || !bufs[3])
        return env;
    /* CUDA_VISIBLE_DEVICES: the host indices of the first node's GPUs */
    char first[GS_NAME_MAX + 1];
    snprintf(first, sizeof first, "%.*s", (int)(nl < GS_NAME_MAX ? nl : GS_NAME_MAX), pl);
    int node = gs_cluster_find_node(lp->cl, first);
    size_t w = (size_t)sprintf(bufs[0], "CUDA_VISIBLE_DEVICES=");
    for (const char *p = pl; *p;) {
        const char *c = strchr(p, ':'), *comma = strchr(p, ',');
        if (!c || (size_t)(c - p) != nl || strncmp(p, pl, nl) != 0)
            break;
        w += (size_t)sprintf(bufs[0] + w, "%s%d", w > 21 ? "," : "",
                             gsd_gpumap_index(lp, node, (int)strtol(c + 1, NULL, 10)));
        p = comma ? comma + 1 : c + strlen(c);
    }
    sprintf(bufs[1], "GPUSCHED_JOB_ID=%s", d->id);
    sprintf(bufs[2], "GPUSCHED_SERVER=%s", lp->opts.server_url);
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

static int launch(struct gsd_loop *lp, struct djob *d, struct gs_error *err)
{
    struct gs_api_submit s;
    memset(&s, 0, sizeof s);
    int rc = gsd_launch_request(lp, d, &s, err);
    if (rc < 0) /* unreadable journal: retried; a request that does not decode: the job's */
        return d->launch_why = rc == GS_EIO ? GSD_LF_REQUEST : -1, rc;
    char dir[4096], out[4096], errp[4096], *bufs[4] = { 0 };
    gsd_rundir(lp, d, dir, sizeof dir);
    gsd_out_name(lp, d->id, d->ji.attempts, "out", out, sizeof out);
    gsd_out_name(lp, d->id, d->ji.attempts, "err", errp, sizeof errp);
    char **env = launch_env(lp, d, &s, bufs);
    struct gsd_launch l = { .self = lp->opts.self, .rundir = dir, .argv = s.argv,
                            .envp = env, .cwd = s.cwd, .out = s.out ? s.out : out,
                            .err = s.err ? s.err : errp, .out_own = !s.out,
                            .err_own = !s.err, .user = d->user,
                            .fsize = lp->file_limit };
    if (lp->opts.virtual_users && !gsd_runas_exists(d->user))
        l.user = "-";
    d->launch_why = GSD_LF_FORK; /* out of memory here: the daemon's failure too */
    rc = env ? gsd_backend_launch(&l, &d->proc, &d->launch_why, err)
             : gs_errorf(err, GS_ENOMEM, "out of memory");
    free(env);
    for (int i = 0; i < 4; i++)
        free(bufs[i]);
    gs_api_submit_fini(&s);
    if (rc == 0) {
        d->launched = 1; /* confirmed (gs_engine_started) next turn */
        gsd_watch(lp, d);
    }
    return rc;
}

/* A launch failed for the daemon's own reasons (descriptors, processes,
 * memory, its state directory): not the job's failure.  The job keeps its
 * decision and GPUs (state starting) and is launched again after a
 * back-off of 100 ms doubling to 10 s; counted by reason in /metrics. */
static void retry_later(struct gsd_loop *lp, struct djob *d, const struct gs_error *err)
{
    int64_t wait = 100;
    for (int k = 0; k < d->retries && wait < 10000; k++)
        wait *= 2;
    wait = wait > 10000 ? 10000 : wait;
    d->retries++;
    d->retry_at = gsd_mono_ms() + wait;
    d->launch_wanted = 1;
    lp->launch_failures[d->launch_why]++;
    gsd_log("job %s: launch failed on the daemon's side (%s: %s); retry %d in %lld ms", d->id,
            gsd_launch_fail_name[d->launch_why], err->msg, d->retries, (long long)wait);
}

void gsd_launch_pending(struct gsd_loop *lp)
{
    int64_t mono = gsd_mono_ms();
    for (size_t i = 0; i < lp->nlive; i++) {
        struct djob *d = lp->live[i];
        if (!d->launch_wanted || d->proc.pid > 0 || d->state != D_STARTING ||
            d->retry_at > mono)
            continue;
        d->launch_wanted = 0;
        d->retry_at = 0;
        d->launch_why = -1;
        struct gs_error err;
        gs_error_clear(&err);
        if (gsd_test_crash == GSD_CRASH_BEFORE_LAUNCH)
            _exit(99);
        if (lp->be->launch(lp, d, &err) < 0) {
            d->proc = (struct gsd_proc){ 0, 0, -1 };
            if (lp->be == &gsd_backend_local && d->launch_why >= 0) {
                retry_later(lp, d, &err);
                continue;
            }
            gsd_log("job %s: launch failed: %s", d->id, err.msg);
            d->launch_error = 1; /* the engine hears of it next turn */
        } else {
            d->retries = 0;
        }
        gsd_job_dirty(lp, d);
        lp->again = 1; /* confirm and journal the supervisor's pid at once */
    }
}

int64_t gsd_launch_next_retry(const struct gsd_loop *lp)
{
    int64_t best = 0;
    for (size_t i = 0; i < lp->nlive; i++) {
        const struct djob *d = lp->live[i];
        if (d->retry_at > 0 && ((d->launch_wanted && d->state == D_STARTING) || d->exited) &&
            (best == 0 || d->retry_at < best))
            best = d->retry_at;
    }
    return best;
}

/* The local backend's table (backend.h): supervisors on this host. */
static int local_open(struct gsd_loop *lp)
{
    if (lp->opts.virtual_users)
        gsd_log("--virtual-users: a job whose user has no account on this host runs as the "
                "daemon's own account (uid %d); for tests and demos only", (int)geteuid());
    return gsd_gpumap_open(lp, lp->cl);
}

static int local_signal(struct gsd_loop *lp, struct djob *d, int how)
{
    (void)lp;
    return gsd_backend_signal(&d->proc, how);
}

/* A launch that failed before the job's program ran (supervise.c wrote
 * RUNDIR/error): logged and journalled as a launch_failed event with the
 * reason. */
static void launch_error(struct gsd_loop *lp, const struct djob *d, const char *dir)
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
    gs_store_event(lp->st, gsd_now(lp), d->seq, "launch_failed", msg, NULL);
}

/* The attempt's end.  A supervisor gone without its exit file (killed)
 * leaves the job's processes behind: those it recorded are ended here,
 * before the engine hears of the end and offers the GPUs again (reap.h). */
static int local_read_exit(struct gsd_loop *lp, struct djob *d, int *code, int64_t *end_ms)
{
    char dir[4096];
    gsd_rundir(lp, d, dir, sizeof dir);
    int rc = gsd_backend_read_exit(dir, code, end_ms);
    if (rc == 0) {
        launch_error(lp, d, dir);
        return 0;
    }
    if (rc == GS_EIO || d->proc.pid <= 0) /* out of descriptors: later; no supervisor */
        return rc;
    int n = gsd_reap_lost(dir, 2000);
    gsd_log("job %s: supervisor %d lost without an exit file; ended %d of the job's "
            "processes it had recorded", d->id, (int)d->proc.pid, n);
    return rc;
}

static void local_release(struct gsd_loop *lp, struct djob *d)
{
    (void)lp;
    gsd_backend_release(&d->proc);
}

const struct gsd_backend_ops gsd_backend_local = {
    .name = "local", .open = local_open, .launch = launch, .signal = local_signal,
    .reconcile = gsd_local_reconcile, .read_exit = local_read_exit, .release = local_release,
};

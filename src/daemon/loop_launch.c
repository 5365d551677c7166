/* loop_launch.c - starting an attempt on the local backend: the job's
 * request is read back from the journal (the engine does not keep
 * commands), its environment built (CUDA_VISIBLE_DEVICES = the GPU indices
 * on its first node, GPUSCHED_JOB_ID, GPUSCHED_SERVER, GPUSCHED_PLACEMENT)
 * and its supervisor forked after the commit that recorded the decision.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The launch's environment: ours, the job's env, then the GPUSCHED ones. */
static char **launch_env(struct gsd_loop *lp, const struct djob *d,
                         const struct gs_api_submit *s, char *bufs[4])
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + (size_t)s->nenv + 5, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) != 0 &&
            strncmp(environ[i], "GPUSCHED_", 9) != 0)
            env[k++] = environ[i];
    for (int i = 0; i < s->nenv; i++)
        env[k++] = s->env[i];
    const char *pl = d->placement ? d->placement : "";
    const char *colon = strchr(pl, ':');
    size_t nl = colon ? (size_t)(colon - pl) : 0;
    size_t cap = strlen(pl) + 64;
    for (int i = 0; i < 4; i++)
        bufs[i] = malloc(cap + strlen(lp->opts.server_url) + strlen(d->id));
    if (!bufs[0] || !bufs[1] || !bufs[2] || !bufs[3])
        return env;
    /* CUDA_VISIBLE_DEVICES: the GPU indices of the first node */
    size_t w = (size_t)sprintf(bufs[0], "CUDA_VISIBLE_DEVICES=");
    for (const char *p = pl; *p;) {
        const char *c = strchr(p, ':'), *comma = strchr(p, ',');
        if (!c || (size_t)(c - p) != nl || strncmp(p, pl, nl) != 0)
            break;
        w += (size_t)sprintf(bufs[0] + w, "%s%d", w > 21 ? "," : "", (int)strtol(c + 1, NULL, 10));
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
    if (rc < 0)
        return rc;
    char dir[4096], out[4096], errp[4096], *bufs[4] = { 0 };
    gsd_rundir(lp, d, dir, sizeof dir);
    snprintf(out, sizeof out, "%s/%lld.out", lp->out_dir, (long long)d->seq);
    snprintf(errp, sizeof errp, "%s/%lld.err", lp->out_dir, (long long)d->seq);
    char **env = launch_env(lp, d, &s, bufs);
    struct gsd_launch l = { lp->opts.self, dir, s.argv, env, s.cwd, s.out ? s.out : out,
                            s.err ? s.err : errp, lp->file_limit };
    rc = env ? gsd_backend_launch(&l, &d->proc, err) : gs_errorf(err, GS_ENOMEM, "ENOMEM");
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

void gsd_launch_pending(struct gsd_loop *lp)
{
    for (size_t i = 0; i < lp->nlive; i++) {
        struct djob *d = lp->live[i];
        if (!d->launch_wanted || d->proc.pid > 0 || d->state != D_STARTING)
            continue;
        d->launch_wanted = 0;
        struct gs_error err;
        gs_error_clear(&err);
        if (gsd_test_crash == GSD_CRASH_BEFORE_LAUNCH)
            _exit(99);
        if (lp->be->launch(lp, d, &err) < 0) {
            gsd_log("job %s: launch failed: %s", d->id, err.msg);
            d->proc = (struct gsd_proc){ 0, 0, -1 };
            d->launch_error = 1; /* the engine hears of it next turn */
        }
        gsd_job_dirty(lp, d);
        lp->again = 1; /* confirm and journal the supervisor's pid at once */
    }
}

/* The local backend's table (backend.h): supervisors on this host. */
static int local_open(struct gsd_loop *lp)
{
    (void)lp;
    return 0;
}

static int local_signal(struct gsd_loop *lp, struct djob *d, int how)
{
    (void)lp;
    return gsd_backend_signal(&d->proc, how);
}

static int local_read_exit(struct gsd_loop *lp, struct djob *d, int *code, int64_t *end_ms)
{
    char dir[4096];
    gsd_rundir(lp, d, dir, sizeof dir);
    return gsd_backend_read_exit(dir, code, end_ms);
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

/* loop_jobs.c - the engine thread's job bookkeeping: engine decisions turned
 * into backend actions and journal rows, ended supervisors turned into
 * engine calls, and the restart path (journal -> engine, backend
 * reconciled).
 *
 * Engine adapter: the engine in src/core confirms every START at once and
 * releases a stopped job's GPUs at once (simulator semantics).  The daemon
 * keeps the job's own state (starting, stopping) here and defers a new
 * attempt of a job until the processes of its previous attempt are gone.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/alloc.h"

extern char **environ;

const char *gsd_state_name(int s)
{
    static const char *const n[] = { "pending", "starting", "running", "stopping", "done" };
    return s >= 0 && s <= D_DONE ? n[s] : "done";
}

const char *gsd_outcome_name(int o)
{
    static const char *const n[] = { NULL, "completed", "failed", "cancelled", "killed",
                                     "rejected" };
    return o > 0 && o <= O_REJECTED ? n[o] : NULL;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
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
    if (grow((void **)&lp->live, &lp->caplive, lp->nlive + 1, sizeof *lp->live) < 0)
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
    d->submit = d->first_start = d->start = d->end = d->last_ckpt = GS_TIME_NONE;
    d->exit_code = -1;
    d->proc.pidfd = -1;
    lp->live[lp->nlive++] = d;
    return d;
}

int gsd_job_index(struct gsd_loop *lp, struct djob *d, int handle)
{
    size_t need = (size_t)handle + 1;
    if (grow((void **)&lp->byh, &lp->capbyh, need, sizeof *lp->byh) < 0)
        return -1;
    for (; lp->nbyh < need; lp->nbyh++)
        lp->byh[lp->nbyh] = NULL;
    lp->byh[handle] = d;
    d->handle = handle;
    return 0;
}

struct djob *gsd_job_by_id(struct gsd_loop *lp, const char *id)
{
    int h = gs_engine_job_find(lp->eng, id);
    if (h >= 0 && (size_t)h < lp->nbyh && lp->byh[h])
        return lp->byh[h];
    for (size_t i = 0; i < lp->nlive; i++) /* live jobs the engine no longer holds */
        if (lp->live[i]->handle < 0 && !strcmp(lp->live[i]->id, id))
            return lp->live[i];
    return NULL;
}

void gsd_job_dirty(struct gsd_loop *lp, struct djob *d)
{
    (void)lp;
    d->dirty = 1;
}

static struct djob *of_handle(struct gsd_loop *lp, int h)
{
    return h >= 0 && (size_t)h < lp->nbyh ? lp->byh[h] : NULL;
}

/* "node-1:0,node-1:1" of an allocation; NULL on ENOMEM. */
static char *placement_text(const struct gs_cluster *cl, const struct gs_alloc *a)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int p = 0; p < a->nparts; p++)
        for (int g = 0; g < GS_MAX_NODE_GPUS; g++) {
            if (!(a->parts[p].mask >> g & 1))
                continue;
            const char *name = gs_cluster_node_name(cl, a->parts[p].node);
            size_t need = len + strlen(name) + 8;
            if (need > cap) {
                char *t = realloc(s, cap = 2 * need);
                if (!t) {
                    free(s);
                    return NULL;
                }
                s = t;
            }
            len += (size_t)snprintf(s + len, cap - len, "%s%s:%d", len ? "," : "", name, g);
        }
    return s;
}

void gsd_observer(void *arg, const struct gs_event *ev)
{
    struct gsd_loop *lp = arg;
    if (ev->kind == GS_EV_RESERVE || ev->kind == GS_EV_RATE)
        return;
    if (grow((void **)&lp->evs, &lp->capev, lp->nev + 1, sizeof *lp->evs) < 0) {
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

/* Copy the engine's figures of the job into its row. */
static void sync_engine(struct gsd_loop *lp, struct djob *d)
{
    struct gs_job_info ji;
    if (d->handle < 0 || gs_engine_job_info(lp->eng, d->handle, &ji) < 0)
        return;
    double old = d->lost_gpu_s;
    d->runs = ji.runs;
    d->preemptions = ji.preemptions;
    d->work = ji.work;
    d->lost = ji.lost;
    d->lost_gpu_s = (double)ji.lost / 1000.0 * (double)gs_job_info_milli_gpus(&ji) / 1000.0;
    if (d->lost_gpu_s > old)
        lp->lost_gpu_s += d->lost_gpu_s - old;
}

static void end_job(struct djob *d, int outcome, gs_time end)
{
    d->state = D_DONE;
    d->outcome = outcome;
    d->end = end;
    d->launch_wanted = 0;
}

/* Stop the job's processes (TERM now, KILL after kill_wait) or, when it has
 * none, settle it at once.  `stop` says what it becomes. */
static void stop_job(struct gsd_loop *lp, struct djob *d, int stop, gs_time now)
{
    d->stop = stop;
    if (d->proc.pid > 0) {
        d->state = D_STOPPING;
        if (gsd_backend_signal(&d->proc, GSD_SIG_TERM) < 0)
            d->exited = 1, lp->again = 1;
        d->kill_at = gsd_mono_ms() + (int64_t)lp->opts.kill_wait;
        return;
    }
    d->launch_wanted = 0;
    if (stop == GS_STOP_REQUEUE)
        d->state = D_PENDING;
    else
        end_job(d, stop == GS_STOP_CANCELLED ? O_CANCELLED
                   : stop == GS_STOP_KILLED  ? O_KILLED
                                             : O_FAILED,
                now);
}

static void on_start(struct gsd_loop *lp, struct djob *d, struct devent *e)
{
    d->attempts++;
    free(d->placement);
    d->placement = e->placement;
    e->placement = NULL;
    d->alloc_milli = e->milli;
    d->alloc_mem = e->mem_mib;
    d->start = e->time;
    if (d->first_start == GS_TIME_NONE) {
        d->first_start = e->time;
        gsd_hist_add(&lp->wait_s, (double)(e->time - d->submit) / 1000.0);
    }
    d->launch_wanted = 1;
    if (d->proc.pid > 0)
        d->stop = GS_STOP_REQUEUE; /* the new attempt waits for the old one */
    else
        d->state = D_STARTING;
    char detail[96];
    snprintf(detail, sizeof detail, "attempt %d", d->attempts);
    gs_store_event(lp->st, e->time, d->seq, "start", detail, NULL);
}

int gsd_events_apply(struct gsd_loop *lp, gs_time now)
{
    if (lp->oom)
        return -1;
    for (size_t i = 0; i < lp->nev; i++) {
        struct devent *e = &lp->evs[i];
        struct djob *d = of_handle(lp, e->job);
        if (!d)
            continue;
        switch (e->kind) {
        case GS_EV_START:
            on_start(lp, d, e);
            break;
        case GS_EV_PREEMPT:
            lp->preemptions++;
            stop_job(lp, d, GS_STOP_REQUEUE, now);
            gs_store_event(lp->st, e->time, d->seq, "preempt", NULL, NULL);
            break;
        case GS_EV_KILL:
            stop_job(lp, d, GS_STOP_KILLED, now);
            gs_store_event(lp->st, e->time, d->seq, "kill", "runtime cap", NULL);
            break;
        case GS_EV_CANCEL:
            stop_job(lp, d, GS_STOP_CANCELLED, now);
            gs_store_event(lp->st, e->time, d->seq, "cancel", NULL, NULL);
            break;
        case GS_EV_REJECT:
            end_job(d, O_REJECTED, e->time);
            break;
        case GS_EV_DRAIN:
            if (d->proc.pid > 0)
                gsd_backend_signal(&d->proc, GSD_SIG_CHECKPOINT);
            gs_store_event(lp->st, e->time, d->seq, "drain", "checkpoint now", NULL);
            break;
        default:
            break;
        }
        sync_engine(lp, d);
        gsd_job_dirty(lp, d);
        free(e->placement);
    }
    lp->nev = 0;
    return 0;
}

static void rundir_of(struct gsd_loop *lp, const struct djob *d, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%lld-%d", lp->run_dir, (long long)d->seq, d->attempts);
}

/* The attempt's processes are gone with `code` at engine time `end`. */
static void job_exited(struct gsd_loop *lp, struct djob *d, int code, gs_time end,
                       gs_time now)
{
    struct gs_job_info ji;
    int in_engine = d->handle >= 0 && gs_engine_job_info(lp->eng, d->handle, &ji) == 0;
    if (in_engine && ji.state == GS_JOB_RUNNING && d->state != D_STOPPING)
        gs_engine_finish(lp->eng, now, d->handle, NULL);
    d->exit_code = code < 0 ? 127 : code;
    if (d->state != D_STOPPING) {
        end_job(d, code == 0 ? O_COMPLETED : O_FAILED, end);
    } else if (d->stop == GS_STOP_REQUEUE) {
        d->state = d->launch_wanted ? D_STARTING : D_PENDING;
    } else {
        end_job(d, d->stop == GS_STOP_CANCELLED ? O_CANCELLED
                   : d->stop == GS_STOP_KILLED  ? O_KILLED
                                                : O_FAILED,
                end);
    }
    d->stop = GS_STOP_NONE;
    char detail[64];
    snprintf(detail, sizeof detail, "exit %d", code);
    gs_store_event(lp->st, end, d->seq, "end", detail, NULL);
    sync_engine(lp, d);
    gsd_job_dirty(lp, d);
}

int gsd_exits_apply(struct gsd_loop *lp, gs_time now)
{
    for (size_t i = 0; i < lp->nlive; i++) {
        struct djob *d = lp->live[i];
        if (!d->exited)
            continue;
        d->exited = 0;
        char dir[4096];
        rundir_of(lp, d, dir, sizeof dir);
        int code;
        int64_t end_ms;
        gs_time end = now;
        if (gsd_backend_read_exit(dir, &code, &end_ms) == 0) {
            end = gsd_wall_to_engine(lp, end_ms);
            if (end > now)
                end = now;
        } else {
            code = 137; /* the supervisor died without a word: killed with its job */
            lp->backend_errors++;
        }
        gsd_backend_release(&d->proc);
        d->proc = (struct gsd_proc){ 0, 0, -1 };
        d->kill_at = 0;
        job_exited(lp, d, code, end, now);
    }
    return 0;
}

void gsd_kill_timers(struct gsd_loop *lp)
{
    int64_t mono = gsd_mono_ms();
    for (size_t i = 0; i < lp->nlive; i++) {
        struct djob *d = lp->live[i];
        if (d->kill_at > 0 && d->kill_at <= mono) {
            d->kill_at = 0;
            if (gsd_backend_signal(&d->proc, GSD_SIG_KILL) < 0) {
                d->exited = 1;
                lp->again = 1;
            }
        }
    }
}

void gsd_count_done(struct gsd_loop *lp, const char *team, int outcome, int64_t n)
{
    for (size_t i = 0; i < lp->ndone; i++)
        if (lp->done[i].outcome == outcome && !strcmp(lp->done[i].team, team)) {
            lp->done[i].n += n;
            return;
        }
    if (grow((void **)&lp->done, &lp->capdone, lp->ndone + 1, sizeof *lp->done) < 0)
        return;
    char *t = strdup(team);
    if (t)
        lp->done[lp->ndone++] = (struct gsd_team_count){ t, outcome, n };
}

static void free_job(struct gsd_loop *lp, size_t i)
{
    struct djob *d = lp->live[i];
    if (d->handle >= 0 && (size_t)d->handle < lp->nbyh)
        lp->byh[d->handle] = NULL;
    lp->live[i] = lp->live[--lp->nlive];
    free(d->id);
    free(d->team);
    free(d->user);
    free(d->placement);
    free(d);
}

int gsd_flush_rows(struct gsd_loop *lp, struct gs_error *err)
{
    for (size_t i = 0; i < lp->nlive;) {
        struct djob *d = lp->live[i];
        if (!d->dirty) {
            i++;
            continue;
        }
        d->dirty = 0;
        struct gs_store_job r = {
            .seq = d->seq, .state = gsd_state_name(d->state),
            .outcome = gsd_outcome_name(d->outcome), .first_start = d->first_start,
            .start = d->start, .end = d->end, .last_ckpt = d->last_ckpt,
            .attempts = d->attempts, .runs = d->runs, .preemptions = d->preemptions,
            .work = d->work, .lost = d->lost, .lost_gpu_s = d->lost_gpu_s,
            .exit_code = d->exit_code, .placement = d->placement, .sup_pid = d->proc.pid,
            .sup_start = d->proc.start, .stop = d->stop, .alloc_milli = d->alloc_milli,
            .alloc_mem = d->alloc_mem };
        if (gs_store_job_update(lp->st, &r, err) < 0)
            return -1;
        if (d->state == D_DONE && d->proc.pid == 0) {
            gsd_count_done(lp, d->team, d->outcome, 1);
            free_job(lp, i);
            continue;
        }
        i++;
    }
    return 0;
}

void gsd_watch(struct gsd_loop *lp, struct djob *d)
{
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = d };
    if (d->proc.pidfd < 0 || epoll_ctl(lp->epfd, EPOLL_CTL_ADD, d->proc.pidfd, &e) < 0) {
        d->exited = 1; /* cannot watch it: look now (and again via exit file) */
        lp->again = 1;
    }
}

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
        if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) &&
            strncmp(environ[i], "GPUSCHED_", 9))
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
        if (!c || (size_t)(c - p) != nl || strncmp(p, pl, nl))
            break;
        w += (size_t)sprintf(bufs[0] + w, "%s%d", w > 21 ? "," : "", atoi(c + 1));
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

static int launch(struct gsd_loop *lp, struct djob *d, struct gs_error *err)
{
    char *req = NULL;
    if (gs_store_job_by_seq(lp->st, d->seq, get_request, &req) != 1 || !req)
        return gs_errorf(err, GS_EIO, "job %s: no request in the journal", d->id);
    struct gs_api_submit s;
    struct gs_api_error ae;
    int rc = gs_api_submit_decode(req, strlen(req), &s, &ae);
    free(req);
    if (rc < 0)
        return gs_errorf(err, GS_EINVAL, "job %s: %s", d->id, ae.message);
    char dir[4096], out[4096], errp[4096], *bufs[4] = { 0 };
    rundir_of(lp, d, dir, sizeof dir);
    snprintf(out, sizeof out, "%s/%lld.out", lp->out_dir, (long long)d->seq);
    snprintf(errp, sizeof errp, "%s/%lld.err", lp->out_dir, (long long)d->seq);
    char **env = launch_env(lp, d, &s, bufs);
    struct gsd_launch l = { lp->opts.self, dir, s.argv, env, s.cwd, s.out ? s.out : out,
                            s.err ? s.err : errp };
    rc = env ? gsd_backend_launch(&l, &d->proc, err) : gs_errorf(err, GS_ENOMEM, "ENOMEM");
    free(env);
    for (int i = 0; i < 4; i++)
        free(bufs[i]);
    gs_api_submit_fini(&s);
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
        if (launch(lp, d, &err) < 0) {
            gsd_log("job %s: launch failed: %s", d->id, err.msg);
            lp->backend_errors++;
            d->proc = (struct gsd_proc){ 0, 0, -1 };
            d->exited = 1; /* no exit file: collected as a failed start */
        } else {
            d->state = D_RUNNING;
            gsd_watch(lp, d);
        }
        gsd_job_dirty(lp, d);
        lp->again = 1; /* journal the supervisor's pid at once */
    }
}

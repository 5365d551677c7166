/* loop.c - the engine thread: one epoll loop woken by commands (eventfd),
 * signals (signalfd), ended supervisors (pidfds) and timeouts (the engine's
 * next wakeup, SIGKILL deadlines).  Each turn applies every queued command,
 * collects ended jobs, runs one scheduling pass and writes all of it in one
 * journal transaction (group commit); only then are the HTTP threads
 * answered and the decided launches carried out (intent before action).
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/launcher.h"
#include "daemon/loop_eta.h"
#include "daemon/dash_route.h"
#include "daemon/lockfile.h"
#include "daemon/view.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/log.h"
#include "io/cluster_yaml.h"
#include "io/names.h"
#include "io/policy_yaml.h"

void gsd_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gsd_logv(GSD_LOG_INFO, fmt, ap); /* log.c */
    va_end(ap);
}

static int64_t clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int64_t gsd_mono_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

/* A wall-clock instant (e.g. a supervisor's end time) as engine time: how
 * long ago it was by the wall clock now, back from the engine's now.  Only
 * a step of the wall clock between that instant and now can skew it, and
 * never past now. */
gs_time gsd_wall_to_engine(struct gsd_loop *lp, int64_t wall_ms)
{
    gs_time now = gsd_now(lp);
    int64_t ago = clock_ms(CLOCK_REALTIME) - wall_ms;
    if (ago <= 0)
        return now;
    return now - (gs_time)llround((double)ago * lp->opts.clock_scale);
}

/* Engine time runs on CLOCK_MONOTONIC from the anchor set in clock_setup:
 * a step of the wall clock neither lengthens nor shortens a run. */
gs_time gsd_now(struct gsd_loop *lp)
{
    gs_time t = lp->e0 + (gs_time)llround((double)(gsd_mono_ms() - lp->m0) *
                                          lp->opts.clock_scale);
    if (t < lp->last_now)
        t = lp->last_now; /* never back (a restore anchored past the clock) */
    lp->last_now = t;
    return t;
}

/* Write the clock's anchor (clock_e0, clock_w0, clock_scale_micro) in the
 * open transaction; 0 or the store's error. */
int gsd_clock_save(struct gsd_loop *lp, struct gs_error *err)
{
    int rc = gs_store_meta_set(lp->st, "clock_e0", lp->e0, err);
    if (rc == 0)
        rc = gs_store_meta_set(lp->st, "clock_w0", lp->w0, err);
    if (rc == 0)
        rc = gs_store_meta_set(lp->st, "clock_scale_micro",
                               (int64_t)llround(lp->opts.clock_scale * 1e6), err);
    return rc;
}

/* Anchor the engine clock (once per start): it continues the journal's
 * from the last committed turn by the wall time since then (the one span
 * no monotonic clock of ours saw; a step of the wall clock while the
 * daemon was down is the only thing that can skew it, and engine time
 * never goes back), then runs on CLOCK_MONOTONIC. */
static int clock_setup(struct gsd_loop *lp, struct gs_error *err)
{
    int64_t e0, w0, scale_u, last = 0, last_wall;
    int64_t wall = clock_ms(CLOCK_REALTIME);
    if (gs_store_meta_get(lp->st, "clock_scale_micro", &scale_u) < 0)
        scale_u = (int64_t)llround(lp->opts.clock_scale * 1e6);
    gs_store_meta_get(lp->st, "last_now", &last);
    if (last > 0 && gs_store_meta_get(lp->st, "last_wall", &last_wall) == 0) {
        lp->e0 = last + (int64_t)llround((double)(wall - last_wall) * (double)scale_u / 1e6);
    } else if (gs_store_meta_get(lp->st, "clock_e0", &e0) == 0 &&
               gs_store_meta_get(lp->st, "clock_w0", &w0) == 0) {
        lp->e0 = e0 + (int64_t)llround((double)(wall - w0) * (double)scale_u / 1e6);
    } else {
        lp->e0 = wall;
    }
    if (lp->e0 < last)
        lp->e0 = last;
    lp->w0 = wall;
    lp->m0 = gsd_mono_ms();
    lp->last_now = lp->e0;
    if (gs_store_meta_get(lp->st, "next_id", &lp->next_id) < 0)
        lp->next_id = 1;
    int rc = gs_store_begin(lp->st, err);
    if (rc == 0)
        rc = gsd_clock_save(lp, err);
    if (rc == 0)
        rc = gs_store_commit(lp->st, err);
    return rc;
}

/* gpuschedd's defaults for the keys the policy file left unset: time
 * limits are enforced (the simulator's engine leaves them advisory). */
static void gsd_policy_defaults(struct gs_policy *p)
{
    if (p->time_limit_mode < 0)
        p->time_limit_mode = 1;
}

static char *path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

static int make_dirs(struct gsd_loop *lp)
{
    lp->db_path = path_join(lp->opts.state, "journal.db");
    lp->run_dir = path_join(lp->opts.state, "run");
    lp->out_dir = lp->opts.output_dir ? strdup(lp->opts.output_dir)
                                      : path_join(lp->opts.state, "output");
    if (!lp->db_path || !lp->run_dir || !lp->out_dir)
        return -1;
    /* 0700: the journal holds every request's environment (issue 21);
     * chmod too, for a directory made by an older version */
    const char *dirs[] = { lp->opts.state, lp->run_dir, lp->out_dir };
    for (int i = 0; i < 3; i++)
        if ((mkdir(dirs[i], 0700) < 0 && errno != EEXIST) || chmod(dirs[i], 0700) < 0) {
            fprintf(stderr, "gpuschedd: %s: %s\n", dirs[i], strerror(errno));
            return -1;
        }
    return 0;
}

/* The journal and its -wal/-shm are 0600 (main sets umask 077 for new
 * ones; this fixes files an older version made).  0 or GS_EIO. */
static int journal_private(struct gsd_loop *lp, struct gs_error *err)
{
    static const char *const suffix[] = { "", "-wal", "-shm" };
    char path[4200];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", lp->db_path, suffix[i]);
        if (chmod(path, 0600) < 0 && (i == 0 || errno != ENOENT))
            return gs_errorf(err, GS_EIO, "%s: chmod 0600: %s", path, strerror(errno));
    }
    return 0;
}

static void metrics_init(struct gsd_loop *lp)
{
    static const double pass[] = { 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000 };
    static const double commit[] = { 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 1000 };
    static const double wait[] = { 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400, 43200,
                                   86400 };
    gsd_hist_init(&lp->pass_ms, pass, (int)(sizeof pass / sizeof pass[0]));
    gsd_hist_init(&lp->commit_ms, commit, (int)(sizeof commit / sizeof commit[0]));
    gsd_hist_init(&lp->wait_s, wait, (int)(sizeof wait / sizeof wait[0]));
    gsd_hist_init(&lp->publish_ms, pass, (int)(sizeof pass / sizeof pass[0]));
    gsd_hist_init(&lp->launch_ms, pass, (int)(sizeof pass / sizeof pass[0]));
    static const double lat[] = { 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
                                  10, 30, 60 };
    gsd_hist_init(&lp->start_lat_s, lat, (int)(sizeof lat / sizeof lat[0]));
}

static void on_done_count(void *arg, const char *team, const char *outcome, int64_t n)
{
    struct gsd_loop *lp = arg;
    for (int o = O_COMPLETED; o <= O_TIMEOUT; o++)
        if (outcome && !strcmp(outcome, gsd_outcome_name(o)))
            gsd_count_done(lp, team, o, n);
}

static int setup_fds(struct gsd_loop *lp)
{
    lp->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    lp->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    lp->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (lp->efd < 0 || lp->sfd < 0 || lp->epfd < 0)
        return -1;
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = &lp->efd };
    if (epoll_ctl(lp->epfd, EPOLL_CTL_ADD, lp->efd, &e) < 0)
        return -1;
    e.data.ptr = &lp->sfd;
    return epoll_ctl(lp->epfd, EPOLL_CTL_ADD, lp->sfd, &e);
}

struct gsd_loop *gsd_loop_create(const struct gsd_opts *opts, int *status)
{
    *status = GSD_EXIT_FATAL;
    struct gsd_loop *lp = calloc(1, sizeof *lp);
    if (!lp)
        return NULL;
    lp->opts = *opts;
    lp->efd = lp->sfd = lp->epfd = -1;
    const char *trace = getenv("GPUSCHEDD_TRACE");
    lp->trace = (trace && !strcmp(trace, "1")) || gsd_log_enabled(GSD_LOG_DEBUG);
    const char *reads = getenv("GPUSCHEDD_READS");
    lp->reads_on_engine = reads && !strcmp(reads, "engine");
    const char *check = getenv("GPUSCHEDD_VIEW_CHECK");
    lp->view_check = check && !strcmp(check, "1");
    const char *echeck = getenv("GPUSCHEDD_ENGINE_CHECK");
    lp->engine_check = echeck && !strcmp(echeck, "1");
    lp->be = opts->backend && !strcmp(opts->backend, "slurm") ? &gsd_backend_slurm
                                                              : &gsd_backend_local;
    pthread_mutex_init(&lp->mu, NULL);
    pthread_cond_init(&lp->cv, NULL);
    pthread_mutex_init(&lp->vmu, NULL);
    pthread_mutex_init(&lp->rmu, NULL);
    metrics_init(lp);
    lp->byh = gs_intmap_create();
    gsd_eta_open(lp);
    gs_policy_init(&lp->pol);
    struct gs_error err;
    gs_error_clear(&err);
    if (!lp->byh || !lp->eta || make_dirs(lp) < 0 || setup_fds(lp) < 0) {
        fprintf(stderr, "gpuschedd: setup: %s\n", strerror(errno));
        goto fail;
    }
    lp->cl = gs_cluster_load_yaml(opts->cluster, &err);
    if (!lp->cl)
        goto fail_msg;
    if (opts->policy) {
        gs_policy_fini(&lp->pol);
        if (gs_policy_load_yaml(opts->policy, &lp->pol, &err) < 0)
            goto fail_msg;
    }
    gsd_policy_defaults(&lp->pol);
    if (gsd_journal_open(lp, status) < 0)
        goto fail;
    if (journal_private(lp, &err) < 0)
        goto fail_msg;
    if (clock_setup(lp, &err) < 0) {
        if (!gs_store_failure(lp->st))
            goto fail_msg;
        gs_store_rollback(lp->st); /* a full disk: start and serve reads anyway */
        lp->clock_unsaved = 1;
        gsd_outage_mark(lp, err.msg);
    }
    gsd_disk_setup(lp);
    gsd_fail_load(lp);
    gsd_eta_load(lp);
    if (gs_store_done_counts(lp->st, on_done_count, lp) < 0) {
        fprintf(stderr, "gpuschedd: journal %s: the done jobs cannot be counted\n",
                lp->db_path);
        goto fail;
    }
    return lp;
fail_msg:
    fprintf(stderr, "gpuschedd: %s\n", err.msg);
fail:
    if (lp->st && gsd_journal_checked(lp) < 0) /* damage explains the failure */
        *status = GSD_EXIT_DAMAGED;
    gsd_loop_destroy(lp);
    return NULL;
}

int gsd_loop_restore(struct gsd_loop *lp)
{
    int rc = lp->be->open(lp) < 0 || gsd_engine_create(lp, &lp->pol) < 0 ||
                     gsd_restore_all(lp, 1) < 0
                 ? -1
                 : 0;
    if (rc < 0) /* damage explains a failed restore too */
        return gsd_journal_checked(lp) < 0 ? -2 : -1;
    atomic_store(&lp->ready, 1); /* the first turn waits for quick_check */
    lp->again = 1;
    return 0;
}

int gsd_loop_ready(struct gsd_loop *lp)
{
    return atomic_load(&lp->ready);
}

void gsd_call(struct gsd_loop *lp, struct gsd_cmd *c)
{
    c->done = 0;
    c->next = NULL;
    pthread_mutex_lock(&lp->mu);
    if (lp->closing) {
        pthread_mutex_unlock(&lp->mu);
        c->status = 503;
        c->body = gsd_error_json(503, "stopping", NULL, "the daemon is stopping");
        return;
    }
    if (lp->tail)
        lp->tail->next = c;
    else
        lp->head = c;
    lp->tail = c;
    pthread_mutex_unlock(&lp->mu);
    uint64_t one = 1;
    if (write(lp->efd, &one, sizeof one) < 0) {
        /* the counter is full: the loop is awake anyway */
    }
    pthread_mutex_lock(&lp->mu);
    while (!c->done)
        pthread_cond_wait(&lp->cv, &lp->mu);
    pthread_mutex_unlock(&lp->mu);
}

/* New job id for a request without one: the next free decimal number. */
static int fresh_id(struct gsd_loop *lp, char *buf, size_t n)
{
    for (;;) {
        snprintf(buf, n, "%lld", (long long)lp->next_id++);
        if (gs_engine_job_find(lp->eng, buf) < 0 &&
            gs_store_job_by_id(lp->st, buf, NULL, NULL) == GS_ENOENT)
            return 0;
    }
}

static int found_seq(void *arg, const struct gs_store_job *j)
{
    *(int64_t *)arg = j->seq;
    return 1;
}

/* 400/409 for an engine refusal, naming the field the message starts with. */
static void engine_refusal(struct gsd_cmd *c, const struct gs_error *err)
{
    char field[64] = "";
    const char *colon = strchr(err->msg, ':');
    const char *p = strstr(err->msg, "job ");
    if (colon && (size_t)(colon - err->msg) < sizeof field) {
        memcpy(field, err->msg, (size_t)(colon - err->msg));
        field[colon - err->msg] = '\0';
        if (strchr(field, ' ') && p == err->msg) /* "job X: field ..." */
            sscanf(colon + 1, " %63[a-z_]", field);
    }
    int status = err->code == GS_EEXIST ? 409 : 400;
    c->status = status;
    c->body = gsd_error_json(status, status == 409 ? "conflict" : "invalid",
                             status == 409 ? "id" : field, "%s", err->msg);
}

/* What an Idempotency-Key lookup found: the row's seq, and whether its
 * request is the one now submitted (and, for a key journaled before keys
 * had owners, whether the row's team and user are the submitter's). */
struct idem_hit {
    int64_t seq;
    int same;
    const struct gs_api_submit *sub;
    int legacy;
};

static int idem_found(void *arg, const struct gs_store_job *j)
{
    struct idem_hit *h = arg;
    const struct gs_job_spec *sp = &h->sub->row.spec;
    json_t *old = j->request ? json_loads(j->request, 0, NULL) : NULL;
    h->seq = j->seq;
    h->same = old && json_equal(old, h->sub->json);
    json_decref(old);
    if (h->legacy && (strcmp(j->team, sp->team ? sp->team : "default") != 0 ||
                      strcmp(j->user, sp->user ? sp->user : "-") != 0))
        return 0; /* an old key of someone else's: not this submitter's */
    return 1;
}

/* Whether c's Idempotency-Key was used before by the same owner: 0 no
 * (*scoped = the key to journal, "OWNER\x1fKEY", or NULL without a key),
 * 1 yes with the same request (c answered 200, *seq = the job), 1 with c
 * answered 422 when the request differs, -1 out of memory.  Keys
 * journaled before keys had owners (no \x1f) belong to their row's team
 * and user. */
static int idem_seen(struct gsd_loop *lp, struct gsd_cmd *c, char **scoped, int64_t *seq)
{
    *scoped = NULL;
    if (!c->idem)
        return 0;
    const char *owner = c->idem_owner ? c->idem_owner : "";
    size_t n = strlen(owner) + strlen(c->idem) + 2;
    if (!(*scoped = malloc(n)))
        return -1;
    snprintf(*scoped, n, "%s\x1f%s", owner, c->idem);
    struct idem_hit h = { .sub = c->sub };
    int found = gs_store_job_by_idem(lp->st, *scoped, idem_found, &h) == 1;
    if (!found) {
        h.legacy = 1;
        found = gs_store_job_by_idem(lp->st, c->idem, idem_found, &h) == 1;
    }
    if (!found)
        return 0;
    *seq = h.seq;
    c->status = h.same ? 200 : 422;
    if (!h.same)
        c->body = gsd_error_json(422, "idempotency_conflict", "Idempotency-Key",
                                 "this Idempotency-Key was used for a different request");
    return 1;
}

static int apply_submit(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    struct gs_api_submit *s = c->sub;
    struct gs_error err;
    gs_error_clear(&err);
    if (c->test_only)
        return gsd_probe_answer(lp, c, now); /* answered; nothing journaled */
    char *idem = NULL;
    int seen = idem_seen(lp, c, &idem, seq);
    if (seen != 0) {
        free(idem);
        return seen < 0 ? -1 : 1; /* 200 the same job, or 422 answered */
    }
    if (gsd_admit_check(lp, c, now)) {
        free(idem);
        return 0; /* 400: it could never run here */
    }
    char idbuf[32];
    if (!s->has_id && (fresh_id(lp, idbuf, sizeof idbuf) < 0 ||
                       gs_api_submit_set_id(s, idbuf) < 0))
        return -1;
    if (gs_store_job_by_id(lp->st, s->row.spec.id, NULL, NULL) != GS_ENOENT) {
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "id", "job id '%.100s' already exists",
                                 s->row.spec.id);
        free(idem);
        return 0;
    }
    s->row.spec.submit = now;
    int h = gs_engine_submit(lp->eng, now, &s->row.spec, &err);
    if (h < 0) {
        engine_refusal(c, &err);
        return 0;
    }
    const struct gs_job_spec *sp = &s->row.spec;
    char *req = json_dumps(s->json, JSON_COMPACT);
    struct gs_store_job row = { .id = sp->id, .idem = idem,
                                .team = sp->team ? sp->team : "default",
                                .user = sp->user ? sp->user : "-", .gpus = sp->gpus,
                                .request = req, .state = "pending", .submit = now };
    int rc = req ? gs_store_job_insert(lp->st, &row, seq, &err) : GS_ENOMEM;
    free(idem);
    struct djob *d = rc < 0 ? NULL : gsd_job_new(lp, *seq, sp->id, row.team, row.user, sp->gpus);
    if (!d || gsd_job_index(lp, d, h) < 0) {
        free(req);
        return -1; /* the engine has it but the journal does not: fatal */
    }
    d->request = req;
    d->milli = sp->milli;
    d->submit = now;
    gsd_job_sync(lp, d);
    if (gsd_eta_submitted(lp, d) < 0)
        return -1;
    lp->submits++;
    c->status = 201;
    return 1;
}

/* The live job named by c->id that c may act on; answers c otherwise. */
static struct djob *target(struct gsd_loop *lp, struct gsd_cmd *c)
{
    struct djob *d = gsd_job_by_id(lp, c->id);
    if (!d || d->state == D_DONE) {
        int64_t seq;
        int found = gs_store_job_by_id(lp->st, c->id, found_seq, &seq) == 1;
        c->status = found ? 409 : 404;
        c->body = found ? gsd_error_json(409, "conflict", "id", "job '%.100s' has ended",
                                         c->id)
                        : gsd_error_json(404, "not_found", "id", "no job '%.100s'", c->id);
        return NULL;
    }
    if (c->team_only && strcmp(c->team_only, d->team) != 0) {
        c->status = 403;
        c->body = gsd_error_json(403, "forbidden", "team",
                                 "job '%.100s' belongs to team '%.60s'", c->id, d->team);
        return NULL;
    }
    return d;
}

static int apply_cancel(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    int held = lp->nconflicts ? gsd_conflict_cancel(lp, now, c, seq) : -2;
    if (held != -2)
        return held;
    struct djob *d = target(lp, c);
    if (!d)
        return 0;
    *seq = d->seq;
    c->status = 200;
    struct gs_error err;
    if (d->ji.state == GS_JOB_STOPPING && d->ji.stop_reason == GS_JOB_CANCELLED)
        return 1; /* already being cancelled */
    if (gs_engine_cancel(lp->eng, now, d->handle, &err) < 0) {
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "id", "%s", err.msg);
        return 0;
    }
    gsd_job_sync(lp, d);
    return 1;
}

static int apply_checkpoint(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    struct djob *d = target(lp, c);
    if (!d)
        return 0;
    struct gs_error err;
    if (gs_engine_checkpointed(lp->eng, now, d->handle, &err) < 0) {
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "id", "job '%.100s' is not running", c->id);
        return 0;
    }
    gsd_job_sync(lp, d);
    gs_store_event(lp->st, now, d->seq, "checkpoint", NULL, NULL);
    *seq = d->seq;
    c->status = 200;
    return 1;
}

/* Apply one write command inside the turn's transaction.  Returns 1 when
 * the answer is job `*seq`'s object, 0 when c is answered, -1 = fatal. */
static int apply(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    switch (c->kind) {
    case GSD_SUBMIT:
        return apply_submit(lp, now, c, seq);
    case GSD_CANCEL:
        return apply_cancel(lp, now, c, seq);
    case GSD_CHECKPOINT:
        return apply_checkpoint(lp, now, c, seq);
    case GSD_NODE_DRAIN:
    case GSD_NODE_RESUME:
    case GSD_NODE_DOWN:
        return gsd_apply_node(lp, now, c);
    default:
        return 0;
    }
}

static int is_write(int kind)
{
    return kind == GSD_SUBMIT || kind == GSD_CANCEL || kind == GSD_CHECKPOINT ||
           kind == GSD_NODE_DRAIN || kind == GSD_NODE_RESUME || kind == GSD_NODE_DOWN;
}

#define MAX_BATCH 4096

static int pass(struct gsd_loop *lp, gs_time now, struct gs_error *err)
{
    if (gsd_launch_held(lp)) /* launches fail on the daemon's side, or the launcher
                                threads are saturated: decide nothing yet */
        return 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = gs_engine_step(lp->eng, now, err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    gsd_hist_add(&lp->pass_ms, (double)(b.tv_sec - a.tv_sec) * 1e3 +
                                   (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    return rc < 0 ? rc : 0;
}

/* Detach up to MAX_BATCH queued commands; *more = some are left. */
static struct gsd_cmd *take_batch(struct gsd_loop *lp, int *more)
{
    pthread_mutex_lock(&lp->mu);
    struct gsd_cmd *cmds = lp->head, *last = NULL;
    int taken = 0;
    for (struct gsd_cmd *c = cmds; c && taken < MAX_BATCH; c = c->next, taken++)
        last = c;
    lp->head = last ? last->next : NULL;
    if (!lp->head)
        lp->tail = NULL;
    if (last)
        last->next = NULL;
    *more = lp->head != NULL;
    pthread_mutex_unlock(&lp->mu);
    return cmds;
}

/* Wake the HTTP threads of `cmds`; those without an answer get a 500. */
static void release_batch(struct gsd_loop *lp, struct gsd_cmd *cmds)
{
    pthread_mutex_lock(&lp->mu);
    for (struct gsd_cmd *c = cmds; c;) {
        struct gsd_cmd *next = c->next; /* c belongs to its thread once done */
        if (!c->body) {
            c->status = 500;
            c->body = gsd_error_json(500, "internal", NULL, "the daemon is stopping");
        }
        c->done = 1;
        c = next;
    }
    pthread_cond_broadcast(&lp->cv);
    pthread_mutex_unlock(&lp->mu);
}

static int commit(struct gsd_loop *lp, struct gs_error *err)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    if (gs_store_commit(lp->st, err) < 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    gsd_hist_add(&lp->commit_ms, (double)(b.tv_sec - a.tv_sec) * 1e3 +
                                     (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    return 0;
}

/* One turn; returns 0, or -1 on a fatal error (journal or engine). */
/* GPUSCHEDD_ENGINE_CHECK=1 (a debug switch; the daemon's tests set it):
 * every engine invariant after each turn's commit.  A broken one is a bug
 * whose next decision cannot be trusted: logged, then abort() (a core
 * file, and the test that met it fails). */
static void engine_check(struct gsd_loop *lp)
{
    struct gs_error err;
    if (!lp->engine_check || gs_engine_check(lp->eng, &err) == 0)
        return;
    gsd_logl(GSD_LOG_ERR, "engine check after turn %lld: %s", (long long)lp->turns, err.msg);
    abort();
}

static int turn(struct gsd_loop *lp)
{
    static int64_t seqs[MAX_BATCH];
    int more, i = 0;
    struct gsd_cmd *c, *cmds = take_batch(lp, &more);
    struct gs_error err;
    gs_error_clear(&err);
    gs_time now = gsd_now(lp);
    lp->again = more;
    lp->turns++;
    gsd_launch_collect(lp); /* what the launcher thread has done since */
    if (lp->outage && !gsd_outage_probe(lp)) { /* writes refused, reads served */
        gsd_outage_answer(lp, cmds, is_write);
        release_batch(lp, cmds);
        return 0;
    }
    if (gs_store_begin(lp->st, &err) < 0)
        goto fatal;
    for (c = cmds; c; c = c->next, i++) {
        seqs[i] = 0;
        if (is_write(c->kind) && !gsd_floor_refuse(lp, c) && apply(lp, now, c, &seqs[i]) < 0)
            goto fatal_rollback;
    }
    gsd_orphans_reap(lp);
    if ((lp->be->apply && lp->be->apply(lp, now) < 0) || gsd_exits_apply(lp, now) < 0 ||
        pass(lp, now, &err) < 0 ||
        gsd_events_apply(lp, now) < 0 || gsd_eta_turn(lp, &err) < 0 ||
        gsd_flush_rows(lp, &err) < 0 || gsd_fail_save(lp, &err) < 0 ||
        gsd_eta_save(lp, &err) < 0 ||
        gsd_retain_turn(lp, now, &err) < 0 ||
        gs_store_meta_set(lp->st, "last_now", now, &err) < 0 ||
        gs_store_meta_set(lp->st, "last_wall", clock_ms(CLOCK_REALTIME), &err) < 0 ||
        gs_store_meta_set(lp->st, "next_id", lp->next_id, &err) < 0)
        goto fatal_rollback;
    if (commit(lp, &err) < 0)
        goto fatal;
    engine_check(lp);
    if (!lp->reads_on_engine)
        gsd_view_update(lp, 0); /* before any answer: read-your-writes */
    i = 0;
    for (c = cmds; c; c = c->next, i++) {
        if (is_write(c->kind) && seqs[i] > 0 && !c->body)
            c->body = gsd_job_body(lp, seqs[i]);
        else if (!c->body && !gsd_view_answer(lp, c))
            gsd_answer(lp, c);
    }
    release_batch(lp, cmds);
    gsd_retain_after_commit(lp);
    gsd_launch_pending(lp);
    return 0;
fatal_rollback:
    gs_store_rollback(lp->st);
fatal:
    if (gsd_outage_begin(lp, err.msg[0] ? err.msg : "a journal write failed")) {
        gsd_outage_answer(lp, cmds, is_write);
        release_batch(lp, cmds);
        return 0;
    }
    gsd_logl(GSD_LOG_ERR, "fatal: %s", err.msg[0] ? err.msg : "journal or engine failure");
    release_batch(lp, cmds);
    return -1;
}

/* Milliseconds until the next timed work, -1 = none. */
static int timeout_ms(struct gsd_loop *lp)
{
    lp->refresh_only = 0;
    if (lp->again)
        return 0;
    if (lp->outage) /* no passes in an outage: the next probe */
        return gsd_outage_timeout(lp);
    int64_t best = -1;
    gs_time now = lp->last_now;
    gs_time wake = gs_engine_next_wakeup(lp->eng, now);
    if (wake != GS_TIME_INF) {
        double d = (double)(wake - now) / lp->opts.clock_scale;
        best = d < 0 ? 0 : (int64_t)ceil(d);
    }
    int64_t mono = gsd_mono_ms();
    for (size_t i = 0; i < lp->nlive; i++) {
        int64_t k = lp->live[i]->kill_at;
        if (k > 0 && (best < 0 || k - mono < best))
            best = k - mono < 0 ? 0 : k - mono;
    }
    int64_t r = gsd_launch_next_retry(lp); /* a launch retried after the daemon's failure */
    if (r > 0 && (best < 0 || r - mono < best))
        best = r - mono < 0 ? 0 : r - mono;
    if (lp->be->poll && (best < 0 || lp->next_poll - mono < best))
        best = lp->next_poll - mono < 0 ? 0 : lp->next_poll - mono;
    if (best > 60000 || best < 0)
        best = 60000; /* a periodic turn keeps the clock and metrics fresh */
    best = gsd_dash_timeout(lp, (int)best);
    lp->refresh_only = gsd_view_stale(lp) && best > 50;
    return lp->refresh_only ? 50 : (int)best; /* go on diagnosing the queue */
}

static void on_signal(struct gsd_loop *lp)
{
    struct signalfd_siginfo si;
    while (read(lp->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGHUP)
            lp->reload = 1;
        else
            lp->stop = 1;
    }
}

static void reload_policy(struct gsd_loop *lp)
{
    lp->reload = 0;
    struct gs_policy pol;
    struct gs_error err;
    gs_error_clear(&err);
    if (!lp->opts.policy) {
        gsd_log("SIGHUP: no --policy file; nothing to reload");
        return;
    }
    if (gs_policy_load_yaml(lp->opts.policy, &pol, &err) < 0) {
        gsd_log("SIGHUP: policy refused, keeping the old one: %s", err.msg);
        return;
    }
    gsd_policy_defaults(&pol);
    struct gs_engine *old = lp->eng;
    lp->eng = NULL;
    if (gsd_engine_create(lp, &pol) < 0 || gsd_restore_all(lp, 0) < 0) {
        gsd_log("SIGHUP: the new policy cannot hold the live jobs; keeping the old one");
        gs_engine_destroy(lp->eng);
        lp->eng = old;
        gs_policy_fini(&pol);
        return;
    }
    gs_engine_destroy(old);
    gs_policy_fini(&lp->pol);
    lp->pol = pol;
    lp->again = 1;
    lp->view_force = 1;
    gsd_log("SIGHUP: policy %s reloaded", lp->opts.policy);
}

static int loop_body(struct gsd_loop *lp)
{
    while (!lp->stop) {
        struct epoll_event ev[64];
        int n = epoll_wait(lp->epfd, ev, 64, timeout_ms(lp));
        if (n < 0 && errno != EINTR) {
            gsd_log("epoll: %s", strerror(errno));
            return 1;
        }
        for (int i = 0; i < n; i++) {
            void *p = ev[i].data.ptr;
            if (p == &lp->efd) {
                uint64_t v;
                if (read(lp->efd, &v, sizeof v) < 0 && errno != EAGAIN)
                    gsd_log("eventfd: %s", strerror(errno));
            } else if (p == &lp->sfd) {
                on_signal(lp);
            } else {
                struct djob *d = p;
                d->exited = 1;
                epoll_ctl(lp->epfd, EPOLL_CTL_DEL, d->proc.pidfd, NULL);
            }
        }
        if (n == 0 && lp->refresh_only) { /* only the view's refresh was due */
            gsd_view_update(lp, 1);
            continue;
        }
        gsd_kill_timers(lp);
        if (lp->be->poll && gsd_mono_ms() >= lp->next_poll) {
            lp->be->poll(lp);
            lp->next_poll = gsd_mono_ms() + lp->opts.slurm_poll_ms;
        }
        if (turn(lp) < 0)
            return 1;
        gsd_dash_tick(lp);
        if (lp->reload)
            reload_policy(lp);
    }
    return 0;
}

int gsd_loop_run(struct gsd_loop *lp)
{
    if (gsd_journal_checked(lp) < 0) /* before the first write */
        return GSD_EXIT_DAMAGED;
    if (lp->be == &gsd_backend_local && !(lp->lch = gsd_launcher_start(lp->efd))) {
        gsd_log("fatal: the launcher thread: %s", strerror(errno));
        return 1;
    }
    int rc = loop_body(lp);
    gsd_launch_drain(lp); /* what is being launched is recorded (RUNDIR/sup) */
    gsd_launcher_stop(lp->lch);
    lp->lch = NULL;
    if (rc == 0)
        gsd_log("stopping; running jobs keep running and are re-adopted at the next start");
    return rc;
}

void gsd_loop_close(struct gsd_loop *lp)
{
    pthread_mutex_lock(&lp->mu);
    lp->closing = 1;
    for (struct gsd_cmd *c = lp->head; c; c = c->next) {
        c->status = 503;
        c->body = gsd_error_json(503, "stopping", NULL, "the daemon is stopping");
        c->done = 1;
    }
    lp->head = lp->tail = NULL;
    pthread_cond_broadcast(&lp->cv);
    pthread_mutex_unlock(&lp->mu);
}

void gsd_loop_destroy(struct gsd_loop *lp)
{
    if (!lp)
        return;
    gsd_launcher_stop(lp->lch);
    lp->lch = NULL;
    if (lp->be && lp->be->close)
        lp->be->close(lp);
    for (size_t i = 0; i < lp->nlive; i++) {
        struct djob *d = lp->live[i];
        if (d->proc.pidfd >= 0)
            close(d->proc.pidfd);
        gsd_blob_unref(d->blob);
        free(d->diag);
        free(d->id);
        free(d->team);
        free(d->user);
        free(d->request);
        free(d->placement);
        free(d->bk_actual);
        free(d->launch_msg);
        free(d);
    }
    gsd_view_fini(lp);
    gsd_nodes_fini(lp);
    gsd_conflicts_fini(lp);
    for (size_t i = 0; i < lp->nev; i++)
        free(lp->evs[i].placement);
    for (size_t i = 0; i < lp->ndone; i++)
        free(lp->done[i].team);
    free(lp->done);
    free(lp->evs);
    free(lp->live);
    gs_intmap_destroy(lp->byh);
    gsd_dash_free(lp);
    gsd_eta_close(lp);
    gs_engine_destroy(lp->eng);
    gs_store_close(lp->st);
    gs_cluster_destroy(lp->cl);
    gs_policy_fini(&lp->pol);
    if (lp->efd >= 0)
        close(lp->efd);
    if (lp->sfd >= 0)
        close(lp->sfd);
    if (lp->epfd >= 0)
        close(lp->epfd);
    free(lp->purged);
    for (size_t i = 0; i < lp->npurged_out; i++)
        free(lp->purged_out[i]);
    free(lp->purged_out);
    free(lp->db_path);
    free(lp->gpu_offset);
    free(lp->run_dir);
    free(lp->out_dir);
    pthread_mutex_destroy(&lp->mu);
    pthread_cond_destroy(&lp->cv);
    pthread_mutex_destroy(&lp->vmu);
    pthread_mutex_destroy(&lp->rmu);
    free(lp);
}

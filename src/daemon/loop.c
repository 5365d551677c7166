/* loop.c - the engine thread's event loop and its turn.
 *
 * Design
 * ------
 * One thread (main, after gsd_loop_restore) owns the engine, the journal's
 * write handle, the backend and every live job (struct djob).  It sleeps in
 * epoll_wait on three kinds of descriptor, each registered with a handler
 * (struct gsd_handler, epoll's data.ptr; loop_body calls h->fn):
 *   - the eventfd (on_cmd): an HTTP thread queued a command (gsd_call), or
 *     a launcher thread finished launches (launcher.h);
 *   - the signalfd (on_signal): SIGTERM/SIGINT stop, SIGHUP reloads;
 *   - each watched supervisor's pidfd (on_pidfd, loop_jobs.c): its job's
 *     processes are gone; the job goes on the exited list.
 * The sleep ends at the earliest of: the engine's next wakeup (runtime
 * caps, time limits, grace ends, aging), the timer heap's next deadline
 * (lp->timers, timers.h: each job's SIGKILL after --kill-wait and its
 * launch/exit-read retry), the launch back-off (loop_launch.c), the Slurm
 * poll, the dashboard's sample, the view's refresh (50 ms while a lap of
 * diagnoses is unfinished) and a minute (timeout_ms).  Nothing scans every
 * live job to find what is due: deadlines are timers, flags are lists.
 *
 * After a wake (loop_body): due timers are run (a SIGKILL is sent), the
 * Slurm poll if due, then one turn, the dashboard tick and a pending
 * reload.  A wake for the view's refresh alone publishes again and sleeps.
 *
 * A turn (turn), in this order:
 *   1. take up to MAX_BATCH queued commands (group commit);
 *   2. collect the launcher threads' results (gsd_launch_collect);
 *   3. in an outage: probe, else answer writes 507/503 and stop here;
 *   4. begin the journal transaction; apply each write command
 *      (loop_cmds.c, loop_nodes.c);
 *   5. reap orphans, the backend's apply (Slurm), then the exits: last
 *      turn's launches confirmed to the engine (confirm list), ended
 *      supervisors collected (exited list) and held preemption victims
 *      confirmed (held list), each list walked in lp->live's order
 *      (loop_jlist.c, loop_jobs.c);
 *   6. one scheduling pass (gs_engine_step), unless launches are held;
 *   7. the engine's events become rows, events and backend actions
 *      (gsd_events_apply); ETA, failure counters, retention, clock meta;
 *   8. commit; GPUSCHEDD_ENGINE_CHECK=1 checks the engine and the job
 *      lists; publish the view (before any answer: read-your-writes);
 *   9. answer the batch, wake the HTTP threads;
 *  10. after the commit (intent before action): purged files removed, the
 *      decided launches handed to the launcher threads (launch list).
 * A failed write rolls the turn back and enters the journal outage
 * (diskguard.c); any other failure is fatal.
 *
 * Threads and shared fields (docs/daemon.md, "Threads and what each may
 * touch").  The rule: a field of struct gsd_loop or struct djob belongs to
 * the engine thread unless listed here; another thread touches only these,
 * and only as said:
 *   - mu, cv, head, tail, closing: the command queue (gsd_call,
 *     gsd_loop_close, take_batch, release_batch), under mu; a command's
 *     answer belongs to the engine thread until c->done is set under mu;
 *   - ready, outage_pub, nconflict_pub: atomics, written here, read by any;
 *   - view (under vmu): the published view, a reference taken by readers;
 *     what it points to is immutable once published (view.c);
 *   - readers[], nreaders (under rmu): the HTTP threads' journal handles;
 *   - efd: written by the HTTP and launcher threads (a wake), read here;
 *   - opts, db_path, cl (read only after create).
 * The launcher threads hold a request's djob pointer and never dereference
 * it (launcher.h).
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
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

#define MAX_BATCH 4096 /* commands a turn takes at most */

static int64_t clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
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
    return now - (gs_time)llround((double)ago * lp->sh.opts.clock_scale);
}

/* Engine time runs on CLOCK_MONOTONIC from the anchor set in clock_setup:
 * a step of the wall clock neither lengthens nor shortens a run. */
gs_time gsd_now(struct gsd_loop *lp)
{
    gs_time t = lp->e0 + (gs_time)llround((double)(gsd_mono_ms() - lp->m0) *
                                          lp->sh.opts.clock_scale);
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
                               (int64_t)llround(lp->sh.opts.clock_scale * 1e6), err);
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
        scale_u = (int64_t)llround(lp->sh.opts.clock_scale * 1e6);
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
    lp->sh.db_path = path_join(lp->sh.opts.state, "journal.db");
    lp->sh.run_dir = lp->sh.opts.run_dir ? strdup(lp->sh.opts.run_dir)
                                         : path_join(lp->sh.opts.state, "run");
    lp->sh.out_dir = lp->sh.opts.output_dir ? strdup(lp->sh.opts.output_dir)
                                      : path_join(lp->sh.opts.state, "output");
    if (!lp->sh.db_path || !lp->sh.run_dir || !lp->sh.out_dir)
        return -1;
    /* 0700: the journal holds every request's environment (issue 21);
     * chmod too, for a directory made by an older version */
    const char *dirs[] = { lp->sh.opts.state, lp->sh.run_dir, lp->sh.out_dir };
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
        snprintf(path, sizeof path, "%s%s", lp->sh.db_path, suffix[i]);
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

/* The commands' eventfd (also the launcher threads' reports): drain its
 * counter; the turn that follows takes what arrived. */
static void on_cmd(struct gsd_loop *lp, struct gsd_handler *h, uint32_t events)
{
    (void)h, (void)events;
    uint64_t v;
    if (read(lp->sh.efd, &v, sizeof v) < 0 && errno != EAGAIN)
        gsd_log("eventfd: %s", strerror(errno));
}

static void on_signal(struct gsd_loop *lp, struct gsd_handler *h, uint32_t events)
{
    (void)h, (void)events;
    struct signalfd_siginfo si;
    while (read(lp->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGHUP)
            lp->reload = 1;
        else
            lp->stop = 1;
    }
}

static int setup_fds(struct gsd_loop *lp)
{
    lp->sh.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    lp->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    lp->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (lp->sh.efd < 0 || lp->sfd < 0 || lp->epfd < 0)
        return -1;
    lp->on_cmd.fn = on_cmd;
    lp->on_sig.fn = on_signal;
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = &lp->on_cmd };
    if (epoll_ctl(lp->epfd, EPOLL_CTL_ADD, lp->sh.efd, &e) < 0)
        return -1;
    e.data.ptr = &lp->on_sig;
    return epoll_ctl(lp->epfd, EPOLL_CTL_ADD, lp->sfd, &e);
}

struct gsd_loop *gsd_loop_create(const struct gsd_opts *opts, int *status)
{
    *status = GSD_EXIT_FATAL;
    struct gsd_loop *lp = calloc(1, sizeof *lp);
    if (!lp)
        return NULL;
    lp->sh.opts = *opts;
    lp->sh.efd = lp->sfd = lp->epfd = -1;
    const char *trace = getenv("GPUSCHEDD_TRACE");
    lp->trace = (trace && !strcmp(trace, "1")) || gsd_log_enabled(GSD_LOG_DEBUG);
    const char *reads = getenv("GPUSCHEDD_READS");
    lp->sh.reads_on_engine = reads && !strcmp(reads, "engine");
    const char *check = getenv("GPUSCHEDD_VIEW_CHECK");
    lp->view_check = check && !strcmp(check, "1");
    const char *echeck = getenv("GPUSCHEDD_ENGINE_CHECK");
    lp->engine_check = echeck && !strcmp(echeck, "1");
    lp->be = opts->backend && !strcmp(opts->backend, "slurm") ? &gsd_backend_slurm
                                                              : &gsd_backend_local;
    pthread_mutex_init(&lp->sh.mu, NULL);
    pthread_cond_init(&lp->sh.cv, NULL);
    pthread_mutex_init(&lp->sh.vmu, NULL);
    pthread_mutex_init(&lp->sh.rmu, NULL);
    metrics_init(lp);
    lp->byh = gs_intmap_create();
    lp->seqs = calloc(MAX_BATCH, sizeof *lp->seqs);
    gsd_eta_open(lp);
    gs_policy_init(&lp->pol);
    struct gs_error err;
    gs_error_clear(&err);
    if (!lp->byh || !lp->seqs || !lp->eta || make_dirs(lp) < 0 || setup_fds(lp) < 0) {
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
                lp->sh.db_path);
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
    int rc = gsd_be_open(lp) < 0 || gsd_engine_create(lp, &lp->pol) < 0 ||
                     gsd_restore_all(lp, 1) < 0
                 ? -1
                 : 0;
    if (rc < 0) /* damage explains a failed restore too */
        return gsd_journal_checked(lp) < 0 ? -2 : -1;
    atomic_store(&lp->sh.ready, 1); /* the first turn waits for quick_check */
    lp->again = 1;
    return 0;
}

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
    pthread_mutex_lock(&lp->sh.mu);
    struct gsd_cmd *cmds = lp->sh.head, *last = NULL;
    int taken = 0;
    for (struct gsd_cmd *c = cmds; c && taken < MAX_BATCH; c = c->next, taken++)
        last = c;
    lp->sh.head = last ? last->next : NULL;
    if (!lp->sh.head)
        lp->sh.tail = NULL;
    if (last)
        last->next = NULL;
    *more = lp->sh.head != NULL;
    pthread_mutex_unlock(&lp->sh.mu);
    return cmds;
}

/* Wake the HTTP threads of `cmds`; those without an answer get a 500. */
static void release_batch(struct gsd_loop *lp, struct gsd_cmd *cmds)
{
    pthread_mutex_lock(&lp->sh.mu);
    for (struct gsd_cmd *c = cmds; c;) {
        struct gsd_cmd *next = c->next; /* c belongs to its thread once done */
        if (!c->body) {
            c->status = 500;
            c->body = gsd_error_json(500, "internal", NULL, "the daemon is stopping");
        }
        c->done = 1;
        c = next;
    }
    pthread_cond_broadcast(&lp->sh.cv);
    pthread_mutex_unlock(&lp->sh.mu);
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
    if (!lp->engine_check)
        return;
    if (gsd_jl_check(lp) < 0) { /* a flag set without its list: a daemon bug */
        gsd_logl(GSD_LOG_ERR, "job list check after turn %lld failed", (long long)lp->turns);
        abort();
    }
    if (gs_engine_check(lp->eng, &err) == 0)
        return;
    gsd_logl(GSD_LOG_ERR, "engine check after turn %lld: %s", (long long)lp->turns, err.msg);
    abort();
}

static int turn(struct gsd_loop *lp)
{
    int64_t *seqs = lp->seqs; /* MAX_BATCH, allocated with the loop */
    int more, i = 0;
    struct gsd_cmd *c, *cmds = take_batch(lp, &more);
    struct gs_error err;
    gs_error_clear(&err);
    gs_time now = gsd_now(lp);
    lp->again = more;
    lp->turns++;
    gsd_launch_collect(lp); /* what the launcher thread has done since */
    if (lp->outage && !gsd_outage_probe(lp)) { /* writes refused, reads served */
        gsd_outage_answer(lp, cmds, gsd_cmd_is_write);
        release_batch(lp, cmds);
        return 0;
    }
    if (gs_store_begin(lp->st, &err) < 0)
        goto fatal;
    for (c = cmds; c; c = c->next, i++) {
        seqs[i] = 0;
        if (gsd_cmd_is_write(c->kind) && !gsd_floor_refuse(lp, c) && gsd_cmd_apply(lp, now, c, &seqs[i]) < 0)
            goto fatal_rollback;
    }
    gsd_orphans_reap(lp);
    if (gsd_be_apply(lp, now) < 0 || gsd_exits_apply(lp, now) < 0 ||
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
    if (!lp->sh.reads_on_engine)
        gsd_view_update(lp, 0); /* before any answer: read-your-writes */
    i = 0;
    for (c = cmds; c; c = c->next, i++) {
        if (gsd_cmd_is_write(c->kind) && seqs[i] > 0 && !c->body)
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
        gsd_outage_answer(lp, cmds, gsd_cmd_is_write);
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
        double d = (double)(wake - now) / lp->sh.opts.clock_scale;
        best = d < 0 ? 0 : (int64_t)ceil(d);
    }
    int64_t mono = gsd_mono_ms();
    int64_t k = gsd_timer_next(&lp->timers); /* SIGKILLs, the jobs' retries */
    if (k >= 0 && (best < 0 || k - mono < best))
        best = k - mono < 0 ? 0 : k - mono;
    int64_t r = gsd_launch_next_retry(lp); /* the pass held after the daemon's failure */
    if (r > 0 && (best < 0 || r - mono < best))
        best = r - mono < 0 ? 0 : r - mono;
    int64_t next_poll = lp->bctx.next_poll;
    if (lp->be->poll && (best < 0 || next_poll - mono < best))
        best = next_poll - mono < 0 ? 0 : next_poll - mono;
    if (best > 60000 || best < 0)
        best = 60000; /* a periodic turn keeps the clock and metrics fresh */
    best = gsd_dash_timeout(lp, (int)best);
    lp->refresh_only = gsd_view_stale(lp) && best > 50;
    return lp->refresh_only ? 50 : (int)best; /* go on diagnosing the queue */
}

static void reload_policy(struct gsd_loop *lp)
{
    lp->reload = 0;
    struct gs_policy pol;
    struct gs_error err;
    gs_error_clear(&err);
    if (!lp->sh.opts.policy) {
        gsd_log("SIGHUP: no --policy file; nothing to reload");
        return;
    }
    if (gs_policy_load_yaml(lp->sh.opts.policy, &pol, &err) < 0) {
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
    gsd_log("SIGHUP: policy %s reloaded", lp->sh.opts.policy);
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
        for (int i = 0; i < n; i++) { /* registered handlers: on_cmd, on_signal, on_pidfd */
            struct gsd_handler *h = ev[i].data.ptr;
            h->fn(lp, h, ev[i].events);
        }
        if (n == 0 && lp->refresh_only) { /* only the view's refresh was due */
            gsd_view_update(lp, 1);
            continue;
        }
        gsd_timers_run(lp);
        if (lp->be->poll && gsd_mono_ms() >= lp->bctx.next_poll) {
            gsd_be_poll(lp);
            lp->bctx.next_poll = gsd_mono_ms() + lp->sh.opts.slurm_poll_ms;
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
    if (gsd_be_start(lp) < 0) {
        gsd_log("fatal: the launcher thread: %s", strerror(errno));
        return 1;
    }
    int rc = loop_body(lp);
    gsd_launch_drain(lp); /* what is being launched is recorded (RUNDIR/sup) */
    gsd_be_stop(lp);
    if (rc == 0)
        gsd_log("stopping; running jobs keep running and are re-adopted at the next start");
    return rc;
}

void gsd_loop_close(struct gsd_loop *lp)
{
    pthread_mutex_lock(&lp->sh.mu);
    lp->sh.closing = 1;
    for (struct gsd_cmd *c = lp->sh.head; c; c = c->next) {
        c->status = 503;
        c->body = gsd_error_json(503, "stopping", NULL, "the daemon is stopping");
        c->done = 1;
    }
    lp->sh.head = lp->sh.tail = NULL;
    pthread_cond_broadcast(&lp->sh.cv);
    pthread_mutex_unlock(&lp->sh.mu);
}

void gsd_loop_destroy(struct gsd_loop *lp)
{
    if (!lp)
        return;
    gsd_be_stop(lp);
    gsd_be_close(lp);
    gsd_timers_fini(&lp->timers); /* before the jobs that hold its timers */
    gsd_jl_fini(lp);
    for (size_t i = 0; i < lp->nlive; i++) {
        struct djob *d = lp->live[i];
        if (d->proc.pidfd >= 0)
            close(d->proc.pidfd);
        gsd_vjob_fini(&d->view);
        free(d->id);
        free(d->team);
        free(d->user);
        free(d->request);
        free(d->placement);
        gsd_bkjob_fini(&d->bk);
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
    if (lp->sh.efd >= 0)
        close(lp->sh.efd);
    if (lp->sfd >= 0)
        close(lp->sfd);
    if (lp->epfd >= 0)
        close(lp->epfd);
    free(lp->purged);
    free(lp->seqs);
    for (size_t i = 0; i < lp->npurged_out; i++)
        free(lp->purged_out[i]);
    free(lp->purged_out);
    free(lp->sh.db_path);
    free(lp->gpu_offset);
    free(lp->sh.run_dir);
    free(lp->sh.out_dir);
    pthread_mutex_destroy(&lp->sh.mu);
    pthread_cond_destroy(&lp->sh.cv);
    pthread_mutex_destroy(&lp->sh.vmu);
    pthread_mutex_destroy(&lp->sh.rmu);
    free(lp);
}

/* backend.h - the backend interface (below: struct gsd_backend_ops, the
 * context struct gsd_bctx a backend is given, the job view struct
 * gsd_bjob, the calls back struct gsd_bcalls) and the local backend's
 * process primitives (backend.c).
 *
 * The local backend: each attempt of a job runs under its own
 * small supervisor process (`gpuschedd --supervise`, supervise.c) in its
 * own session, so it outlives the daemon.  The supervisor starts the job in
 * its own process group, forwards the daemon's signals to that group and,
 * once every process of the group is gone, writes RUNDIR/exit with the real
 * exit code and end time.  The daemon records the supervisor's pid and
 * start time (RUNDIR/sup, then the journal) and watches it with a pidfd; a
 * restarted daemon re-adopts it by pid + start time.
 *
 * Launch protocol (no double start after a crash): the daemon forks the
 * supervisor, writes RUNDIR/sup, then writes one byte to a pipe; a
 * supervisor whose pipe closes without that byte writes "exit" as not
 * launched and runs nothing.
 */
#ifndef GS_DAEMON_BACKEND_H
#define GS_DAEMON_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/error.h"
#include "core/base/types.h"
#include "core/cluster/cluster.h"

/* How to stop or warn a job (what the supervisor sends its group). */
enum gsd_signal { GSD_SIG_TERM, GSD_SIG_CHECKPOINT, GSD_SIG_KILL };

struct gsd_launch {
    const char *supervisor;   /* the supervisor program (gsd_opts.supervisor) */
    const char *rundir;       /* created here; must not exist yet */
    char *const *argv;        /* the job's command */
    char *const *envp;        /* the job's variables (request + scheduler's), written
                                 to RUNDIR/env for the supervisor (runas.h) */
    const char *cwd;          /* NULL = the user's home */
    const char *out, *err;    /* output files */
    int out_own, err_own;     /* 1 = the daemon's output directory (opened as root,
                                 chowned to the user), 0 = the request's (opened as
                                 the user) */
    const char *user;         /* the job's user ("-" = the daemon's own) */
    int64_t fsize;            /* RLIMIT_FSIZE of the supervisor and job, bytes; 0 = none */
};

/* Test hook (tests/cli/daemon_crash.t): the daemon dies with _exit(99) at
 * this point of every launch: GSD_CRASH_BEFORE_LAUNCH after the decision's
 * commit, GSD_CRASH_BEFORE_GO after the fork and RUNDIR/sup, before the go
 * byte.  Set from GPUSCHEDD_TEST_CRASH=before_launch|before_go. */
enum gsd_crash { GSD_CRASH_NONE, GSD_CRASH_BEFORE_LAUNCH, GSD_CRASH_BEFORE_GO };
extern int gsd_test_crash;

/* A running supervisor. */
struct gsd_proc {
    pid_t pid;
    int64_t start;            /* /proc start time (clock ticks since boot) */
    int pidfd;                /* readable when it exits; -1 = none */
};

/* Why a launch failed on the daemon's side (the job is not to blame: it is
 * retried with back-off; /metrics gpusched_launch_failures_total{reason}). */
enum gsd_launch_fail { GSD_LF_RUNDIR, GSD_LF_ENV, GSD_LF_PIPE, GSD_LF_FORK, GSD_LF_PIDFD,
                       GSD_LF_SUP, GSD_LF_REQUEST, GSD_LF_N };
/* "rundir", "env", "pipe", "fork", "pidfd", "sup", "request". */
extern const char *const gsd_launch_fail_name[GSD_LF_N];

/* Start an attempt.  Returns 0 with *p filled, or GS_EIO with err and *why
 * (enum gsd_launch_fail) set. */
int gsd_backend_launch(const struct gsd_launch *l, struct gsd_proc *p, int *why,
                       struct gs_error *err);

/* Send `how` to the supervisor if it is still the same process.  0, or
 * GS_ENOENT when it is gone. */
int gsd_backend_signal(const struct gsd_proc *p, int how);

/* Re-adopt a supervisor by pid and start time: 0 with p->pidfd set, or
 * GS_ENOENT when it is gone (or the pid now names another process). */
int gsd_backend_adopt(struct gsd_proc *p);

/* Read RUNDIR/sup: 0 with pid and start set, GS_ENOENT when absent. */
int gsd_backend_read_sup(const char *rundir, struct gsd_proc *p);

/* Read RUNDIR/exit: 0 with *code (0..255, 128+signal; -1 = never
 * launched) and *end_ms (wall-clock UNIX ms), GS_ENOENT when absent,
 * GS_EIO when this process is out of descriptors (try again later). */
int gsd_backend_read_exit(const char *rundir, int *code, int64_t *end_ms);

/* Whether RUNDIR/exit says the supervisor was told to stop (a SIGTERM or
 * SIGINT reached it: its " T" mark).  1 or 0 (also when unreadable). */
int gsd_backend_exit_told(const char *rundir);

/* Reap the supervisor if it is our child and close its pidfd. */
void gsd_backend_release(struct gsd_proc *p);

/* Start time of process `pid` from /proc, or -1. */
int64_t gsd_proc_start_time(pid_t pid);

/* ---- the backend interface the engine loop drives ----------------------
 *
 * One ops table per backend (gsd_loop.be).  A backend never sees the loop:
 * it gets a context (struct gsd_bctx: the options, the cluster, its own
 * state, and the calls back into the loop, struct gsd_bcalls) and, per
 * call, a view of one live job (struct gsd_bjob: what it may read, and
 * pointers to the two things it owns, the attempt and its per-job state).
 * Everything else it would change (a start confirmed, an end to collect, a
 * launch again) it reports (gsd_bcalls.report) and the loop does.  The log
 * and the monotonic clock are the ground floor's (log.h).  A job's attempt
 * is named by its gsd_proc: for the local backend the supervisor, for
 * slurm proc.pid = the Slurm job id (journalled as sup_pid), start 0,
 * pidfd -1.  Every function runs on the engine thread. */

/* A backend's own state of a live job (beside the loop's job, zero for a
 * new job): read and written by the backend alone (the Slurm backend's;
 * the local backend keeps none), freed with gsd_bkjob_fini. */
struct gsd_bkjob {
    int64_t deadline;         /* slurm: monotonic ms by which it must run */
    int running;              /* slurm: seen running */
    int code;                 /* slurm: exit code read at the end */
    int64_t end_ms;
    char *actual;             /* slurm: GPUs Slurm gave, not yet followed by the engine */
    int waits;                /* slurm: `actual` waits for another job's GPUs (logged) */
};

/* Free what b holds (a job being freed); b is left zero (backend.c). */
void gsd_bkjob_fini(struct gsd_bkjob *b);

/* A live job as a backend sees it, filled by the loop for one call (or one
 * step of gsd_bcalls.job_at): the strings are the loop's, valid during the
 * call; proc and bk point into the loop's job and are the backend's to
 * write.  For an orphaned supervisor (no job) job is NULL, bk NULL. */
struct gsd_bjob {
    void *job;                /* the loop's job: opaque, handed back in calls */
    int64_t seq;              /* its journal sequence (events) */
    const char *id, *user;    /* its id; its user (runas.h) */
    int attempt;              /* the attempt's number (gs_job_info.attempts) */
    int state;                /* the engine's state of it (GS_JOB_*) */
    int handle;               /* its engine handle (struct gs_gpu_move.job) */
    int exited;               /* its end is reported, not yet collected */
    const char *placement;    /* the attempt's placement as journalled, NULL = none
                                 (the structure: gsd_bcalls.placement) */
    struct gsd_proc *proc;    /* the attempt (pid 0 = none): the backend's */
    struct gsd_bkjob *bk;     /* the backend's own state of the job */
};

/* What a backend reports of a job (gsd_bcalls.report). */
enum gsd_breport {
    GSD_BR_DIRTY,             /* its row changed (proc, placement): journal it */
    GSD_BR_LAUNCHED,          /* its attempt runs: confirm the start next turn */
    GSD_BR_EXITED,            /* its attempt ended: collect the end (read_exit) */
    GSD_BR_RELAUNCH,          /* its decided attempt never launched: launch it again */
    GSD_BR_UNLAUNCHED,        /* a stop of an attempt that never ran: confirm it */
    GSD_BR_FORGOTTEN,         /* the attempt is gone (its node died): nothing to
                                 confirm or collect of it any more */
    GSD_BR_WATCH,             /* local: watch proc->pidfd for its end */
    GSD_BR_KILL_ARM,          /* a stop's SIGTERM went: SIGKILL after --kill-wait */
    GSD_BR_WAKE,              /* run another turn at once (job may be NULL) */
};

/* Which engine time gsd_bcalls.now gives. */
enum gsd_bclock { GSD_NOW_CLOCK, GSD_NOW_TURN };

struct gs_api_submit;
struct gs_gpu_move;
struct gsd_lreq;

/* The loop's side, called by backends with ctx->loop (loop_backend.c).
 * Errors are negative GS_E* with err filled. */
struct gsd_bcalls {
    /* Engine time: the clock now (GSD_NOW_CLOCK) or the current turn's. */
    gs_time (*now)(void *loop, int which);
    /* Job b's current placement as parts (node id, mask) in out[cap]: the
     * engine's allocation while it holds the GPUs, else b->placement read
     * by io/placement.h.  The number of parts, or -1. */
    int (*placement)(void *loop, const struct gsd_bjob *b, struct gs_alloc_part *out, int cap);
    /* Job b's request, read back from the journal and decoded into *s (the
     * caller frees it with gs_api_submit_fini): 0, GS_EIO (unreadable) or
     * GS_EINVAL (does not decode). */
    int (*request)(void *loop, const struct gsd_bjob *b, struct gs_api_submit *s,
                   struct gs_error *err);
    /* Job b's run directory of its attempt into buf. */
    void (*rundir)(void *loop, const struct gsd_bjob *b, char *buf, size_t n);
    /* The default output file of b's attempt with suffix sfx ("out",
     * "err") into buf; returns buf. */
    char *(*out_name)(void *loop, const struct gsd_bjob *b, const char *sfx, char *buf,
                      size_t n);
    /* Fill *b with live job number i (0, 1, ...; no order): 1, or 0 past
     * the last.  Reports made while walking never add or drop live jobs. */
    int (*job_at)(void *loop, size_t i, struct gsd_bjob *b);
    /* Tell the loop `what` (enum gsd_breport) of job b. */
    void (*report)(void *loop, struct gsd_bjob *b, int what);
    /* Journal an event of job `seq` (0 = none) at engine time now. */
    void (*event)(void *loop, gs_time now, int64_t seq, const char *kind, const char *detail);
    /* Keep msg as why b's last launch failed (its row, the job object). */
    void (*launch_msg)(void *loop, struct gsd_bjob *b, const char *msg);
    /* b's attempt never ran because its node went down (slurm): the
     * engine hears a failed launch (it goes back ahead of its peers),
     * journalled as launch_failed with detail `node`; counted as an error. */
    void (*lost_launch)(void *loop, struct gsd_bjob *b, gs_time now, const char *node);
    /* The execution system reports node `node` in state `want` (GS_NODE_*):
     * the engine follows (an UP node stays as the API last set it), with
     * its journal event and failure counts.  0, or negative with err. */
    int (*node_state)(void *loop, gs_time now, int node, int want, struct gs_error *err);
    /* Move GPUs in the engine's view (gs_engine_move_gpus): 0 or negative. */
    int (*move_gpus)(void *loop, gs_time now, const struct gs_gpu_move *mv, size_t n,
                     struct gs_error *err);
    /* b's placement is `placement` from now on (ownership moves; "gpus_moved"
     * is the backend's to journal). */
    void (*set_placement)(void *loop, struct gsd_bjob *b, char *placement);
    /* A launch handed over with ops.submit is done (r->rc, r->why, r->proc,
     * r->error; r->job is the loop's job): the loop takes the supervisor
     * (watch, confirm) or the failure (retry, report).  r stays the
     * backend's (freed after the call). */
    void (*launch_done)(void *loop, struct gsd_lreq *r);
};

struct gsd_opts;

/* What the loop hands a backend (gsd_loop.bctx): set up before open. */
struct gsd_bctx {
    const struct gsd_opts *opts;  /* the daemon's options (read only) */
    const struct gs_cluster *cl;  /* the cluster file's nodes (read only) */
    const struct gsd_bcalls *call;
    void *loop;               /* the first argument of every call */
    void *state;              /* the backend's own (set by open/start, freed by close) */
    int wake_fd;              /* the loop's eventfd: 8 bytes written wake it (any thread) */
    /* written by the backend, read by the loop */
    int64_t next_poll;        /* monotonic ms of the next poll */
    int64_t errors;           /* backend errors (gpusched_backend_errors_total) */
    int64_t gpu_mismatches;   /* Slurm gave other GPUs than decided */
};

struct gsd_backend_ops {
    const char *name;
    /* Attempts are processes on this host (supervisors): the loop's
     * launcher threads start them (launch is NULL), a node command may end
     * them, and their leftovers are reaped as orphans. */
    int host_procs;
    /* Check the backend against the cluster file at start: 0, or -1 after
     * logging every difference. */
    int (*open)(struct gsd_bctx *c);
    /* Start the decided attempt of b (its decision is journalled).  0 with
     * *b->proc set (it reports GSD_BR_LAUNCHED once it runs), or a negative
     * GS_E* with err (the loop reports a failed launch).  NULL: the backend
     * takes launch descriptions (struct gsd_lreq, launcher.h, built by the
     * loop) with submit instead, and reports them with launch_done. */
    int (*launch)(struct gsd_bctx *c, struct gsd_bjob *b, struct gs_error *err);
    /* Begin taking launches (local: the launcher threads), after the
     * journal's check: 0, or -1 with errno. NULL = nothing to start. */
    int (*start)(struct gsd_bctx *c);
    /* Hand a turn's launch descriptions over at once (ownership moves;
     * NULL list is fine).  Only where launch is NULL. */
    void (*submit)(struct gsd_bctx *c, struct gsd_lreq *list);
    /* Report every launch done since the last call (gsd_bcalls.launch_done),
     * in the order handed over; at the start of each turn. */
    void (*collect)(struct gsd_bctx *c);
    /* Wait until every launch handed over is done, then collect them. */
    void (*drain)(struct gsd_bctx *c);
    /* Launches handed over and not yet collected (the loop's back-pressure). */
    int (*in_flight)(struct gsd_bctx *c);
    /* Stop taking launches: those under way finish, those still queued are
     * never launched (a restart launches them from the journal).  Again is
     * fine. */
    void (*stop)(struct gsd_bctx *c);
    /* Send `how` (enum gsd_signal) to the attempt p: 0, or GS_ENOENT when
     * it is gone (the loop then collects its end). */
    int (*signal)(struct gsd_bctx *c, const struct gsd_proc *p, int how);
    /* Restart: find the journalled attempt of a job holding GPUs and report
     * what it is (launched, exited, to launch again, never ran). */
    void (*reconcile)(struct gsd_bctx *c, struct gsd_bjob *b);
    /* The ended attempt's exit code (0..255, 128+signal; -1 = never launched:
     * launch it again; -2 = the launch failed: the engine re-plans)
     * and end (wall-clock UNIX ms): 0, GS_ENOENT when unknown, GS_EIO when
     * it cannot be read now (try again). */
    int (*read_exit)(struct gsd_bctx *c, struct gsd_bjob *b, int *code, int64_t *end_ms);
    /* Whether the ended attempt was told to stop by someone else than the
     * daemon (local: RUNDIR/exit's mark); NULL = never. */
    int (*told_by_others)(struct gsd_bctx *c, struct gsd_bjob *b);
    /* Forget the ended attempt (close what watches it); b->bk may be NULL
     * (an orphaned supervisor). */
    void (*release)(struct gsd_bctx *c, struct gsd_bjob *b);
    /* Batched read of the backend's state (NULL = events come by fd):
     * reports jobs launched / exited.  Called every poll_ms. */
    void (*poll)(struct gsd_bctx *c);
    /* Inside the turn's transaction, before ends are collected: hand what
     * the last poll saw of the nodes to the engine.  0, or -1 = fatal. */
    int (*apply)(struct gsd_bctx *c, gs_time now);
    void (*close)(struct gsd_bctx *c);
};

/* At a restart, for either backend: the decided attempt `d` was never
 * launched.  Clears d->proc and reports GSD_BR_RELAUNCH (a starting job:
 * it is launched again, with a log line) or GSD_BR_UNLAUNCHED (a stop of an
 * attempt that never ran: confirmed).  Cannot fail. */
void gsd_backend_not_launched(struct gsd_bctx *c, struct gsd_bjob *d);

extern const struct gsd_backend_ops gsd_backend_local;  /* backend_local.c */
extern const struct gsd_backend_ops gsd_backend_slurm;  /* backend_slurm.c */

#endif

/* backend.h - the local backend: each attempt of a job runs under its own
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

#include <stdint.h>
#include <sys/types.h>

#include "core/base/error.h"
#include "core/base/types.h"

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

/* The backend interface the engine loop drives (one table per backend;
 * gsd_loop.be).  A job's attempt is named by djob.proc: for the local
 * backend the supervisor, for slurm proc.pid = the Slurm job id (journalled
 * as sup_pid), start 0, pidfd -1.  Every function runs on the engine
 * thread. */
struct gsd_loop;
struct djob;

/* A backend's own state of a live job (struct djob's member `bk`, zero
 * for a new job): read and written by the backend alone (the Slurm
 * backend's; the local backend keeps none), freed with gsd_bkjob_fini. */
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

struct gsd_backend_ops {
    const char *name;
    /* Check the backend against the cluster file at start: 0, or -1 after
     * logging every difference. */
    int (*open)(struct gsd_loop *lp);
    /* Start the decided attempt of d (its decision is journalled).  0 with
     * d->proc set (the backend sets d->launched once it runs), or a
     * negative GS_E* with err (the loop reports a failed launch). */
    int (*launch)(struct gsd_loop *lp, struct djob *d, struct gs_error *err);
    /* Send `how` (enum gsd_signal) to the attempt: 0, or GS_ENOENT when it
     * is gone (the loop then collects its end). */
    int (*signal)(struct gsd_loop *lp, struct djob *d, int how);
    /* Restart: find the journalled attempt of a job holding GPUs and set
     * launch_wanted / launched / launch_error / exited accordingly. */
    void (*reconcile)(struct gsd_loop *lp, struct djob *d);
    /* The ended attempt's exit code (0..255, 128+signal; -1 = never launched:
     * launch it again; -2 = the launch failed: the engine re-plans)
     * and end (wall-clock UNIX ms): 0, or GS_ENOENT when unknown. */
    int (*read_exit)(struct gsd_loop *lp, struct djob *d, int *code, int64_t *end_ms);
    /* Forget the ended attempt (close what watches it). */
    void (*release)(struct gsd_loop *lp, struct djob *d);
    /* Batched read of the backend's state (NULL = events come by fd):
     * marks jobs launched / exited.  Called every poll_ms. */
    void (*poll)(struct gsd_loop *lp);
    /* Inside the turn's transaction, before ends are collected: hand what
     * the last poll saw of the nodes to the engine.  0, or -1 = fatal. */
    int (*apply)(struct gsd_loop *lp, gs_time now);
    void (*close)(struct gsd_loop *lp);
};

extern const struct gsd_backend_ops gsd_backend_local;  /* loop_launch.c */
extern const struct gsd_backend_ops gsd_backend_slurm;  /* backend_slurm.c */

#endif

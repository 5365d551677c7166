/* loop_private.h - the engine thread's state (struct gsd_loop after its
 * shared part) and the engine thread's functions, for the daemon's files
 * that run on the engine thread.  Everything declared here belongs to the
 * engine thread alone: no other thread reads or writes a field of struct
 * gsd_loop other than those of its first member, `sh` (struct
 * gsd_shared, loop_shared.h, with its locking rule), nor calls a function
 * declared here.  Files that run only on other threads include
 * loop_shared.h instead.
 */
#ifndef GS_DAEMON_LOOP_PRIVATE_H
#define GS_DAEMON_LOOP_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "core/cluster/cluster.h"
#include "core/engine/engine.h"
#include "core/diagnose/eta.h"
#include "core/base/intmap.h"
#include "core/policy/policy.h"
#include "daemon/backend.h"
#include "daemon/daemon.h"
#include "daemon/loop_shared.h"
#include "daemon/timers.h"
#include "daemon/view_jobs.h"
#include "io/store.h"

struct gsd_loop;

/* An epoll registration: epoll_event.data.ptr points at one, and the loop
 * calls its fn with the ready events (loop.c, loop_body).  The loop owns
 * two (commands' eventfd, signalfd); each watched supervisor one (its
 * pidfd, in struct djob). */
struct gsd_handler {
    void (*fn)(struct gsd_loop *lp, struct gsd_handler *h, uint32_t events);
};

/* The job lists of loop_jlist.c (struct gsd_jlist below). */
enum { GSD_JL_EXITED, GSD_JL_HELD, GSD_JL_CONFIRM, GSD_JL_LAUNCH, GSD_JL_DIRTY, GSD_JL_ETA,
       GSD_JL_N };

enum dstate { D_PENDING, D_STARTING, D_RUNNING, D_STOPPING, D_DONE };
enum doutcome { O_NONE, O_COMPLETED, O_FAILED, O_CANCELLED, O_KILLED, O_REJECTED, O_TIMEOUT };

/* A live job: what the engine does not keep (the attempt's processes) plus
 * a copy of the engine's record, journalled with the row. */
struct djob {
    int64_t seq;
    int handle;               /* engine handle, -1 when not in the engine */
    size_t li;                /* its index in gsd_loop.live */
    char *id, *team, *user;
    char *request;            /* the submit body as journaled (job object), NULL */
    int reserve_noted;        /* its reservation in this wait is in the events */
    int gpus, milli;
    gs_time submit;
    int state, outcome;       /* enum dstate / doutcome, from the engine's state */
    struct gs_job_info ji;    /* the engine's record (numbers only) */
    char *placement;
    int alloc_milli;          /* share and memory per GPU of the attempt */
    int64_t alloc_mem;
    struct gsd_proc proc;     /* pid 0 = no supervisor */
    int launch_wanted;        /* START decided; launch after the commit */
    int launched;             /* launched after the last commit: confirm it */
    int launching;            /* 1 + the attempt handed to the launcher thread and not
                                 yet collected (launcher.h), 0 = none */
    int launch_error;         /* the launch failed: tell the engine */
    int launch_deferred;      /* the launch failed for the daemon's own reasons: the
                                 engine puts it back as pending next turn */
    int exited;               /* its pidfd fired: collect the end (gsd_job_exited) */
    struct gsd_handler on_exit; /* its pidfd's epoll handler (gsd_watch) */
    struct gsd_timer kill_tm; /* armed: the SIGKILL's deadline (lp->timers) */
    struct gsd_timer retry_tm; /* armed: no launch try (or read of the exit file)
                                 before its deadline, after a failure of the
                                 daemon's own (loop_launch.c); not armed = none */
    int retries;              /* such failures in a row */
    int launch_why;           /* enum gsd_launch_fail of the last one, -1 = the job's */
    int launch_node;          /* the failed launch is its node's (quarantine.c counts it) */
    char *launch_msg;         /* why the last launch of its command failed, NULL */
    struct gsd_bkjob bk;      /* the backend's own state of the job (backend.h) */
    int64_t stop_turn;        /* turn that ordered its preemption (victims of one
                                 decision are confirmed together) */
    int held, held_code;      /* exited, confirmation held for its group */
    gs_time real_end;         /* when its processes really ended (the supervisor's
                                 record; the engine hears of it later), or NONE */
    gs_time decided;          /* engine time of the START decision not yet
                                 confirmed running, or NONE */
    size_t jl[GSD_JL_N];           /* 1 + its place in lp->jl[k], 0 = not in it (loop_jlist.c) */
    int dirty;                /* its row changed: journal it (gsd_job_dirty, listed) */
    struct gsd_vjob view;     /* the view's own state of the job (view_jobs.h) */
    struct gs_eta_rec eta;    /* its start-time promise at submit (loop_eta.c) */
    int eta_restored;         /* that promise was read back from the journal */
    struct gsd_timer eta_tm;  /* armed: its promise's P90 bound, still to pass
                                 before it starts (loop_eta.c, censored misses) */
    int eta_due;              /* eta_tm fired: the turn checks the miss (GSD_JL_ETA) */
};

/* loop_jlist.c: the jobs a turn acts on, by flag (exited; held; launched,
 * launch_error or launch_deferred; launch_wanted). */
struct gsd_jlist {
    struct djob **v;
    size_t n, cap;
    int all;                  /* an add failed (out of memory): the next walk takes
                                 every live job */
};

/* A decision copied out of the observer (alloc borrowed only there). */
struct devent {
    int kind, job;
    gs_time time, until;
    char *placement;          /* START */
    int milli;                /* START: the allocation's share, memory */
    int64_t mem_mib;
};

/* Decision-to-running latency of the confirmed starts, engine seconds:
 * the moments of ln(latency) (a lognormal's median is exp(mean), its sigma
 * the standard deviation), as start_latency.median / .sigma of the policy
 * (docs/daemon.md, "Start latency"). */
struct gsd_latency {
    int64_t n;
    double ln_sum, ln2_sum, sum;
};

/* Fixed-bucket histogram for /metrics. */
#define GSD_HIST_MAX 16
struct gsd_hist {
    int n;
    double le[GSD_HIST_MAX];
    int64_t count[GSD_HIST_MAX + 1]; /* last = +Inf */
    double sum;
    int64_t total;
};

struct gsd_team_count {
    char *team;
    int outcome;
    int64_t n;
    int64_t kept;             /* of them, still in the journal (retention purges) */
};

/* failstats.c: the cost of failures and preemption (issue 26). */
enum gsd_loss { GSD_LOSS_PREEMPTION, GSD_LOSS_NODE_FAILURE, GSD_LOSS_TIME_LIMIT, GSD_LOSS_OTHER,
                GSD_LOSS_N };
struct gsd_failstats {
    double lost_gpu_s[GSD_LOSS_N];  /* work lost, GPU-seconds, by cause */
    int64_t restarts[GSD_LOSS_N];   /* runs requeued, by cause (no time_limit) */
    int64_t node_failures[2];       /* down: nodes, single GPUs */
    double useful_gpu_s, wall_gpu_s; /* ended jobs: ETTR = useful / wall */
    int64_t ended_jobs;
    int dirty;                      /* changed since gsd_fail_save */
};

struct gsd_loop {
    struct gsd_shared sh;     /* first: the part other threads touch (loop_shared.h) */
    struct gs_cluster *cl;
    struct gs_policy pol;
    struct gs_engine *eng;
    struct gs_store *st;
    struct gs_intmap *byh;    /* engine handle -> index in live[] (a map: handles
                                 are never reused, so an array by handle would
                                 grow with every job ever submitted) */
    struct djob **live;       /* every live job, no order (for scans) */
    size_t nlive, caplive;
    struct devent *evs;
    size_t nev, capev;
    int oom;
    int trace;                /* GPUSCHEDD_TRACE=1: log every engine event */
    const struct gsd_backend_ops *be; /* reached through gsd_be_* (loop_backend.c) */
    struct gsd_bctx bctx;     /* what the backend is given: its state, next_poll,
                                 its own error and GPU mismatch counts */
    int sfd, epfd;            /* signalfd; the epoll set (sh.efd is in it too) */
    struct gsd_handler on_cmd, on_sig; /* efd's and sfd's epoll handlers */
    int64_t *seqs;            /* turn(): the job of each command of the batch */
    int again;                /* run another turn at once */
    struct gsd_timers timers; /* the live jobs' deadlines (timers.h, GSD_TM_*) */
    struct gsd_jlist jl[GSD_JL_N]; /* the live jobs with a flag to act on (loop_jlist.c) */
    int stop, reload;
    /* clock: engine ms = e0 + (monotonic ms - m0) * scale, anchored once at
       start (and restore) with w0 = the wall clock then (loop.c clock_setup) */
    int64_t e0, w0, m0;
    gs_time last_now;
    int64_t next_id;
    /* metrics */
    struct gsd_hist pass_ms, commit_ms, wait_s, start_lat_s;
    struct gsd_latency start_lat;
    int64_t preemptions, backend_errors, submits, turns;
    struct gsd_team_count *done;
    size_t ndone, capdone;
    struct gs_dash_series *dash;  /* the dashboard's history (dash_route.c) */
    /* the published read state (view.c; sh.view under sh.vmu) */
    int64_t view_gen;
    int64_t full_next_us;     /* monotonic us before which /v1/cluster and the
                                 dashboard page are not rebuilt (unless forced) */
    int64_t last_pub_us;      /* monotonic us of the last publish */
    size_t rpos;              /* refresh cursor into the queue */
    int64_t lap_left;         /* queued jobs to diagnose again since the last change */
    int refresh_only;         /* the loop's sleep ends for the view's refresh only */
    int bodies_behind;        /* a change is not yet in /v1/cluster, the dashboard page
                                 or /v1/nodes (their rebuild was held back by cost):
                                 the loop wakes to publish them once due */
    int64_t fed;              /* loop_restore.c: completed jobs fed to the estimator */
    int view_force;           /* refresh everything at the next publish */
    struct gsd_blob *b_cluster, *b_dash;  /* kept between views */
    struct gsd_blob *b_nodes, *b_metrics;
    int64_t nodes_next_us, metrics_next_us;
    int64_t nodes_cost_us, metrics_cost_us, full_cost_us;  /* their last render */
    struct djob **qcache;     /* the queue as of the last turn's publish */
    size_t nqcache;
    struct gsd_hist publish_ms;
    struct gsd_hist launch_ms;    /* one launch on the launcher thread */
    struct gsd_node_text *ntext;  /* per node: its object as last rendered (view.c) */
    struct gsd_vbuild *vb;    /* view.c: the job table kept between publishes */
    int view_check;           /* GPUSCHEDD_VIEW_CHECK=1: check each publish (view.c) */
    int engine_check;         /* GPUSCHEDD_ENGINE_CHECK=1: gs_engine_check each turn (loop.c) */
    /* loop_nodes.c */
    char **node_reason;       /* per node: why it is drained or down (NULL when up) */
    char ***gpu_reason;       /* per node, per GPU: the same for a GPU set alone */
    struct gsd_quar *quar;    /* quarantine.c: recent failures per node */
    struct gsd_proc *orphans; /* supervisors of runs a `down` ended, dying */
    size_t norphans;
    /* diskguard.c */
    int64_t file_limit;       /* RLIMIT_FSIZE of each job, bytes (0 = none) */
    int outage;               /* the journal cannot commit: 1 disk full, 2 error */
    char outage_why[GS_ERROR_MSG_MAX];
    int64_t outage_since;     /* wall s */
    int64_t outage_next, outage_backoff; /* monotonic ms of the next probe; ms */
    int64_t outage_ended;     /* monotonic ms the last outage ended */
    int64_t outage_refused, writes_refused, outages;
    int clock_unsaved;        /* clock_setup could not write: the probe does */
    int64_t floor_turn, floor_free; /* the turn of the last statvfs, its bytes */
    /* check.c: the quick_check after the restore */
    int qc_rc;                /* 1 not run yet, 0 ok (or said), -1 damaged (qc_what) */
    char qc_what[400];
    /* retain.c */
    int64_t retain_next;      /* monotonic ms of the next purge (0 = the first turn) */
    int64_t *purged;          /* seqs purged in this turn, files removed after commit */
    char **purged_out;        /* their ID.ATTEMPT output names, removed with them */
    size_t npurged_out, cappurged_out;
    size_t npurged, cappurged;
    int64_t purged_total;
    /* conflict.c */
    struct gsd_conflict *conflicts;
    size_t nconflicts, capconflicts;
    /* gpumap.c */
    int gpu_mode;             /* enum gsd_gpu_mode: PHYSICAL or VIRTUAL once open */
    int *gpu_offset;          /* physical: per node, its first host GPU index */
    int64_t launch_failures[GSD_LF_N]; /* the daemon's own launch failures, by reason */
    /* failstats.c */
    struct gsd_failstats fail;
    int fail_ctx;             /* a node or GPU is going down: failures are node failures */
    int64_t launch_hold_until; /* monotonic ms before which no pass runs: launches fail
                                  on the daemon's side (loop_launch.c), 0 = none */
    int launch_streak;        /* back-off rounds in a row (reset by a launch) */
    struct gsd_eta *eta;      /* loop_eta.c: start-time promises and their calibration */
};
_Static_assert(offsetof(struct gsd_loop, sh) == 0, "gsd_shared_of: sh comes first");
struct gsd_conflict;
struct gsd_launcher;

struct gsd_blob;
struct gsd_view;
struct gsd_node_text;
struct gsd_vbuild;

/* loop_jlist.c.  Add d to list k (GSD_JL_*) after setting its flag; a job
 * already there is not added twice (out of memory: the list's next walk
 * takes every live job). */
void gsd_jl_add(struct gsd_loop *lp, int k, struct djob *d);
/* d's supervisor has ended (or must be looked at): d->exited = 1, listed. */
void gsd_job_exited(struct gsd_loop *lp, struct djob *d);
/* Take d out of every list (before it is freed). */
void gsd_jl_forget(struct gsd_loop *lp, struct djob *d);
/* Detach list k as an array (malloc'd: free() it; NULL when empty) of its
 * jobs in the order of lp->live, *n set; the list is empty after.  The
 * walker checks each job's flag and adds again those it leaves flagged. */
struct djob **gsd_jl_take(struct gsd_loop *lp, int k, size_t *n);
/* Every live job with a list's flag set is in it: 0, or -1 after logging
 * the first one missing (GPUSCHEDD_ENGINE_CHECK=1, after each turn). */
int gsd_jl_check(struct gsd_loop *lp);
/* The same for list k alone (gsd_flush_rows checks GSD_JL_DIRTY before
 * its walk): 0, or -1 after logging the first job missing. */
int gsd_jl_check_one(struct gsd_loop *lp, int k);
void gsd_jl_fini(struct gsd_loop *lp);

/* loop_cmds.c: apply write command c (gsd_cmd_is_write) inside the turn's
 * transaction at engine time `now`.  Returns 1 when the answer is job
 * *seq's object (rendered after the commit), 0 when c is answered, -1 =
 * fatal (the engine and the journal disagree, or out of memory). */
int gsd_cmd_apply(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq);
/* Whether commands of `kind` (GSD_*) write: submit, cancel, checkpoint, node
 * drain/resume/down. */
int gsd_cmd_is_write(int kind);

/* loop.c */
gs_time gsd_now(struct gsd_loop *lp);

/* Write the engine clock's anchor (meta clock_e0, clock_w0,
 * clock_scale_micro) in the open journal transaction; 0 or the store's
 * error in err (loop.c). */
int gsd_clock_save(struct gsd_loop *lp, struct gs_error *err);
gs_time gsd_wall_to_engine(struct gsd_loop *lp, int64_t wall_ms);

/* metrics.c: the Prometheus text helpers every /metrics writer shares: a
 * label value with \, " and newline escaped, and a family's # HELP and
 * # TYPE lines. */
void gsd_metrics_label(FILE *f, const char *v);
void gsd_metrics_head(FILE *f, const char *name, const char *type, const char *help);

/* metrics.c: record one start latency (engine seconds); its median and
 * sigma (0, 0 before any). */
void gsd_latency_add(struct gsd_loop *lp, double seconds);
void gsd_latency_get(const struct gsd_latency *l, double *median, double *sigma);

/* loop_jobs.c */
/* Grow `*arr` (element size `elem`, from malloc: free it with free())
 * to hold at least `need` elements, doubling `*cap` from 64.  Returns 0,
 * or -1 when out of memory (arr left unchanged). */
int gsd_grow(void **arr, size_t *cap, size_t need, size_t elem);

struct djob *gsd_job_new(struct gsd_loop *lp, int64_t seq, const char *id, const char *team,
                         const char *user, int gpus);
int gsd_job_index(struct gsd_loop *lp, struct djob *d, int handle);
struct djob *gsd_job_by_id(struct gsd_loop *lp, const char *id);
/* The live job of engine handle `h`, or NULL. */
struct djob *gsd_job_of_handle(struct gsd_loop *lp, int h);
/* d's row changed: d->dirty = 1 and d joins the list gsd_flush_rows walks
 * (every writer of a row field calls it, never sets the flag alone). */
void gsd_job_dirty(struct gsd_loop *lp, struct djob *d);
/* The GPUs of job d's current placement as parts (node id, mask) in out[cap]:
 * the engine's allocation itself while the engine holds the job's GPUs (the
 * decision travels as a structure, no text in between), else d->placement
 * read by the codec (io/placement.h).  Returns the number of parts (0 for
 * none), or -1 when the text does not parse or names over `cap` nodes. */
int gsd_job_placement(struct gsd_loop *lp, const struct djob *d, struct gs_alloc_part *out,
                      int cap);
void gsd_observer(void *arg, const struct gs_event *ev);
int gsd_events_apply(struct gsd_loop *lp, gs_time now);
int gsd_exits_apply(struct gsd_loop *lp, gs_time now);
void gsd_job_sync(struct gsd_loop *lp, struct djob *d);
int gsd_info_format(const struct gs_job_info *ji, char *buf, size_t n);
int gsd_info_parse(const char *text, struct gs_job_info *ji);
/* The kinds of the live jobs' timers (struct gsd_timer.kind, arg = the job). */
enum { GSD_TM_KILL, GSD_TM_RETRY, GSD_TM_ETA };
/* Arm d's SIGKILL at --kill-wait from now (a stop has sent SIGTERM); when
 * the timer cannot be armed (out of memory) the SIGKILL goes at once. */
void gsd_kill_arm(struct gsd_loop *lp, struct djob *d);
/* Disarm d's timers (its processes are gone, or it is freed). */
void gsd_job_timers_off(struct gsd_loop *lp, struct djob *d);
/* Hold d's next launch try or exit read back for `ms` (retry_tm). */
void gsd_retry_arm(struct gsd_loop *lp, struct djob *d, int64_t ms);
/* Whether d's retry hold is over at monotonic `mono` (or none was set). */
int gsd_retry_due(const struct djob *d, int64_t mono);
/* Carry out the timers due now: a due SIGKILL is sent (a job whose signal
 * fails is collected at once); a due retry only wakes the loop (the turn
 * after this finds it due); a due P90 bound flags its job for the turn's
 * censored-miss check (gsd_eta_due).  Replaces the scan of every live job. */
void gsd_timers_run(struct gsd_loop *lp);
int gsd_flush_rows(struct gsd_loop *lp, struct gs_error *err);
/* Hand the decided launches over (local: to the launcher thread, as one
 * batch; slurm: carried out here); after the turn's commit. */
void gsd_launch_pending(struct gsd_loop *lp);
/* Take the launches the launcher thread has carried out: a supervisor is
 * watched and confirmed next turn, a failure retried or reported (at the
 * start of each turn). */
void gsd_launch_collect(struct gsd_loop *lp);
/* Wait for every launch handed over, then collect them (before the live
 * jobs are dropped). */
void gsd_launch_drain(struct gsd_loop *lp);
/* Monotonic ms at which the pass held back by a launch failure of the
 * daemon's own may run again (loop_launch.c), 0 = none (the jobs' own
 * retries are timers: lp->timers). */
int64_t gsd_launch_next_retry(const struct gsd_loop *lp);
/* Whether passes are held back: launches fail on the daemon's side and
 * their back-off has not ended (once it has, the hold is cleared: the pass
 * about to run ends it), or 4 launches per launcher thread are still under
 * way (loop_launch.c). */
int gsd_launch_held(struct gsd_loop *lp);
void gsd_watch(struct gsd_loop *lp, struct djob *d);
void gsd_rundir(struct gsd_loop *lp, const struct djob *d, char *buf, size_t n);
/* loop_backend.c: the loop's side of the backend interface (backend.h).
 * The rest of the loop reaches the backend only through these. */
/* Fill *b with the backend's view of job d (pointers into d). */
void gsd_bjob_of(struct djob *d, struct gsd_bjob *b);
/* Set up lp->bctx and open the backend (then the local GPU map): 0 or -1. */
int gsd_be_open(struct gsd_loop *lp);
/* be->launch of d's decided attempt (backends with a launch op). */
int gsd_be_launch(struct gsd_loop *lp, struct djob *d, struct gs_error *err);
/* be->signal of attempt p (a job's d->proc, or an orphan): 0 or GS_ENOENT. */
int gsd_be_signal(struct gsd_loop *lp, const struct gsd_proc *p, int how);
/* be->reconcile of restored job d. */
void gsd_be_reconcile(struct gsd_loop *lp, struct djob *d);
/* be->read_exit of d's ended attempt. */
int gsd_be_read_exit(struct gsd_loop *lp, struct djob *d, int *code, int64_t *end_ms);
/* be->told_by_others of d's ended attempt (0 when the backend has none). */
int gsd_be_told_by_others(struct gsd_loop *lp, struct djob *d);
/* be->release of d's ended attempt; of an orphaned supervisor p. */
void gsd_be_release(struct gsd_loop *lp, struct djob *d);
void gsd_be_release_proc(struct gsd_loop *lp, struct gsd_proc *p);
/* be->start (with lp->sh.efd as the wake fd; 0 when none), be->submit,
 * be->collect, be->drain, be->in_flight (0 when none), be->stop. */
int gsd_be_start(struct gsd_loop *lp);
void gsd_be_submit(struct gsd_loop *lp, struct gsd_lreq *list);
void gsd_be_collect(struct gsd_loop *lp);
void gsd_be_drain(struct gsd_loop *lp);
int gsd_be_in_flight(struct gsd_loop *lp);
void gsd_be_stop(struct gsd_loop *lp);
/* gsd_bcalls.launch_done (loop_launch.c): a launch the backend carried
 * out (struct gsd_lreq) is taken: a supervisor is watched and confirmed
 * next turn, a failure retried or reported. */
void gsd_launch_done(void *loop, struct gsd_lreq *r);
/* be->poll, be->apply (0 when the backend has none), be->close. */
void gsd_be_poll(struct gsd_loop *lp);
int gsd_be_apply(struct gsd_loop *lp, gs_time now);
void gsd_be_close(struct gsd_loop *lp);

/* Refusal at the door (loop_admit.c): when the engine could never run c's
 * job on this cluster (gs_engine_possible), answer c 400 "never_runs" with
 * the field to blame and return 1; else 0 (c untouched). */
int gsd_admit_check(struct gsd_loop *lp, struct gsd_cmd *c, gs_time now);

/* POST /v1/jobs?test_only=1 (loop_admit.c): answer c 200 with where and
 * when the job would start were it submitted now (gs_engine_probe), or
 * 400 as a refusal at the door; nothing is journaled.  Returns 0 (c is
 * answered). */
int gsd_probe_answer(struct gsd_loop *lp, struct gsd_cmd *c, gs_time now);

int gsd_launch_request(struct gsd_loop *lp, const struct djob *d, struct gs_api_submit *s,
                       struct gs_error *err);
int gsd_restore_all(struct gsd_loop *lp, int reconcile);
int gsd_engine_create(struct gsd_loop *lp, const struct gs_policy *pol);
void gsd_count_done(struct gsd_loop *lp, const char *team, int outcome, int64_t n);
/* Metrics label sets (metrics_teams.c, docs/daemon.md "Metrics"): a purged
 * ended job of `team` with `outcome` (an outcome name) leaves the journal;
 * once a team has no ended job left there, no live job and no quota, its
 * gpusched_jobs_ended_total series are dropped. */
void gsd_count_purged(struct gsd_loop *lp, const char *team, const char *outcome);
/* The team label to export for `team`: itself while fewer than the cap of
 * label sets (GSD_METRICS_TEAMS_MAX, GPUSCHEDD_METRICS_TEAMS for tests) are
 * taken by earlier teams of `seen[0..*nseen)` (updated), else "(other)". */
#define GSD_METRICS_TEAMS_MAX 500
const char *gsd_team_label(const char *team, const char **seen, size_t *nseen, size_t cap);
/* The cap in force. */
size_t gsd_metrics_teams_cap(void);
/* Forget every live job and pending engine event (diskguard.c's rebuild
 * after a failed commit): pidfds closed, view entries dropped; the
 * processes run on and are found again by the restore. */
void gsd_jobs_drop_all(struct gsd_loop *lp);
void gsd_job_row(const struct djob *d, struct gs_store_job *r, char *info, size_t n);

/* check.c: open lp->st with the damage checks (a missing or empty journal
 * where jobs have been, quick_check).  0, or -1 after saying why on
 * stderr with *status the exit status (lockfile.h). */
int gsd_journal_open(struct gsd_loop *lp, int *status);
/* Run the journal's quick_check once (after the restore, before the
 * first turn): 0 when sound (or already said damaged), -1 after saying
 * it is damaged. */
int gsd_journal_checked(struct gsd_loop *lp);

/* diskguard.c */
/* Free bytes for an unprivileged writer on path's filesystem, -1 = unknown. */
int64_t gsd_disk_free(const char *path);
/* Resolve the per-job file cap (lp->file_limit) from the options. */
void gsd_disk_setup(struct gsd_loop *lp);
/* Enter (or stay in) the journal outage for `why` (no rebuild). */
void gsd_outage_mark(struct gsd_loop *lp, const char *why);
/* After a failed turn (its transaction not committed): 1 when the journal
 * failed, then the turn is rolled back, the engine and the live jobs
 * rebuilt from the last commit and the outage entered; 0 = fatal. */
int gsd_outage_begin(struct gsd_loop *lp, const char *why);
/* In an outage, at a turn: 1 when a probe commit succeeded (the outage is
 * over: run the turn), 0 while it goes on. */
int gsd_outage_probe(struct gsd_loop *lp);
/* Milliseconds until the next probe (the loop's sleep in an outage). */
int gsd_outage_timeout(const struct gsd_loop *lp);
/* Answer a batch in an outage: writes 507/503, reads as usual. */
void gsd_outage_answer(struct gsd_loop *lp, struct gsd_cmd *cmds, int (*is_write)(int));
/* A submit while the journal's filesystem is under the floor: answered
 * 507, returns 1; else 0. */
int gsd_floor_refuse(struct gsd_loop *lp, struct gsd_cmd *c);
/* /v1/cluster's "journal": writable, outage, free bytes, floor, cap,
 * conflicts (new reference). */
json_t *gsd_journal_json(struct gsd_loop *lp);


/* conflict.c: live rows that cannot be restored, held out of the engine */
/* Hold job d (the last made by gsd_job_new, not in the engine) as a
 * conflict for `why`; d is freed.  0 or -1 (out of memory). */
int gsd_conflict_hold(struct gsd_loop *lp, struct djob *d, const char *why);
/* Log the held conflicts and publish their count (after restore). */
void gsd_conflicts_report(struct gsd_loop *lp);
/* Cancel c->id if it is a held conflict: ends its row (in the turn's
 * transaction) and kills its job.  -2 when c->id is no conflict; else as
 * the turn's apply (1 = answer with job *seq, 0 = answered, -1 = fatal). */
int gsd_conflict_cancel(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq);
/* The held conflicts as [{id, team, reason}] (new reference). */
json_t *gsd_conflicts_json(const struct gsd_loop *lp);
void gsd_conflicts_fini(struct gsd_loop *lp);

/* retain.c: purge ended jobs older than --retain, in the turn's
 * transaction (0, or -1 with err: the turn fails); their files after the
 * commit. */
int gsd_retain_turn(struct gsd_loop *lp, gs_time now, struct gs_error *err);
void gsd_retain_after_commit(struct gsd_loop *lp);

/* loop_nodes.c */
const char *gsd_node_state_name(int st);

/* Why GPU g of node n was drained or taken down alone (the --reason of its
 * last drain/down, "" when none was given), or NULL (borrowed). */
const char *gsd_gpu_reason(const struct gsd_loop *lp, int n, int g);
int gsd_apply_node(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c);
int gsd_restore_nodes(struct gsd_loop *lp);
void gsd_orphans_reap(struct gsd_loop *lp);
void gsd_nodes_fini(struct gsd_loop *lp);

/* quarantine.c (docs/failures.md, "Quarantine"): a node taken down (or
 * failing starts, gsd_quar_note_start)
 * quarantine.failures times within quarantine.window is quarantined; the
 * resume that ends its last repair leaves it drained, with a reason naming
 * the failures, and only a resume of the drained node releases it. */
/* Record a down of node `node` at `now` (reason may be NULL); at the
 * threshold the node is quarantined (its reason, a journal event and meta
 * quarantine:NAME = 1).  Returns 0, or -1 when the journal refuses. */
int gsd_quar_note_down(struct gsd_loop *lp, int node, gs_time now, const char *reason);
/* A failed start of job `job` whose launch failed on its nodes' side (the
 * node's fault, not the job's nor the daemon's): a failure of each node of
 * its placement parts[n] (gsd_job_placement) at `now`; a node it
 * quarantines is drained at once.  Returns 0, or -1 when the journal
 * refuses. */
int gsd_quar_note_start(struct gsd_loop *lp, gs_time now, const char *job,
                        const struct gs_alloc_part *parts, int n);
/* The state a resume of node `node` (now in state `cur`) gives: DRAIN for a
 * quarantined node coming back from down, UP otherwise; a resume of a
 * quarantined drained node releases it (history forgotten, meta cleared).
 * Returns the state, or -1 when the journal refuses. */
int gsd_quar_resume_state(struct gsd_loop *lp, int node, int cur);
/* Set node_reason of a quarantined node to its quarantine text (after the
 * command that changed its state). */
void gsd_quar_keep_reason(struct gsd_loop *lp, int node);
/* Restore the quarantine of `node` from the journal (meta and its last
 * node_quarantine event). */
void gsd_quar_restore(struct gsd_loop *lp, int node);
/* /metrics: gpusched_node_quarantined{node} = 1 per quarantined node and
 * gpusched_nodes_quarantined, their count. */
void gsd_quar_metrics(FILE *f, struct gsd_loop *lp);
int gsd_quar_is(const struct gsd_loop *lp, int node);
void gsd_quar_fini(struct gsd_loop *lp);

/* failstats.c (docs/metrics.md, "Live metrics") */
extern const char *const gsd_loss_name[GSD_LOSS_N];
/* Count what changed between a job's last engine record `old` and `cur`
 * (lost work, restarts, its end), called by gsd_job_sync. */
void gsd_fail_account(struct gsd_loop *lp, const struct gs_job_info *old,
                      const struct gs_job_info *cur);
/* A node (gpu_only 0) or a GPU goes down: count it, and attribute the
 * failures synced until the caller sets lp->fail_ctx = 0 to it. */
void gsd_fail_node_down(struct gsd_loop *lp, int gpu_only);
/* Sync every live job as hit by a node failure (after the engine took a
 * node down whose jobs are not synced at once: backend_slurm.c). */
void gsd_fail_sync_all(struct gsd_loop *lp);
/* Write the counters to the journal's meta table in the turn's transaction
 * when they changed: 0, or -1 with err.  Load them back (restart, the
 * rebuild after an outage); absent keys read as 0. */
int gsd_fail_save(struct gsd_loop *lp, struct gs_error *err);
void gsd_fail_load(struct gsd_loop *lp);
/* GPU-seconds of useful work and of wall time since their first start of
 * the running jobs (their ETTR is useful / wall). */
void gsd_fail_ettr_running(struct gsd_loop *lp, double *useful, double *wall);
/* The dashboard's "failures" object: lost_gpu_s {cause}, restarts {cause},
 * node_failures {node, gpu}, ettr {running, ended, ended_jobs} (null when
 * no job counts).  New reference, NULL when out of memory. */
json_t *gsd_fail_json(struct gsd_loop *lp);

/* recover.c.  Whether pending job d holds the right to the hot spares
 * (requeued by a node failure, not started since, at least
 * spares.min_gpus GPUs; docs/failures.md): the engine's rule, on the engine
 * thread. */
int gsd_spare_rights(const struct gsd_loop *lp, const struct djob *d);

/* After a restore under the fifo order: put the pending jobs back in the
 * order they held (their engine records' queue stamps: expedited ones
 * ahead, the latest first, then the others in the order they entered the
 * queue).  0, or -1 (out of memory, or the engine refused the order:
 * the order stays submission order). */
int gsd_restore_fifo_order(struct gsd_loop *lp);

/* metrics_alert.c: the series to alert on (docs/metrics.md, "Live
 * metrics"), written into /metrics by gsd_metrics_text. */
void gsd_metrics_alert(FILE *f, struct gsd_loop *lp);

/* loop_read.c: the engine's "t=SECONDS s" stamps in string member `key`
 * of object o rewritten as ISO 8601 UTC (a missing or stamp-free member is
 * left as it is; on allocation failure too). */
void gsd_iso_member(json_t *o, const char *key);

/* loop_read.c */
void gsd_answer(struct gsd_loop *lp, struct gsd_cmd *c);
char *gsd_job_body(struct gsd_loop *lp, int64_t seq);
void gsd_hist_init(struct gsd_hist *h, const double *le, int n);
void gsd_hist_add(struct gsd_hist *h, double v);
char *gsd_metrics_text(struct gsd_loop *lp);
json_t *gsd_djob_json(struct gsd_loop *lp, const struct djob *d, json_t **diag);
json_t *gsd_node_json(struct gsd_loop *lp, int n);
json_t *gsd_nodes_json(struct gsd_loop *lp);
json_t *gsd_cluster_doc(struct gsd_loop *lp, json_t *pending);

#endif

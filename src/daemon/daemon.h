/* daemon.h - gpuschedd's shared types: the options, the command an HTTP
 * thread hands to the engine thread, and the entry points of the parts
 * (loop.c: the engine thread; http.c: the API; backend.c: the local backend;
 * supervise.c: the per-job supervisor; metrics.c: /metrics).
 *
 * Threads: one engine thread owns the engine, the journal and the backend;
 * libmicrohttpd threads parse, validate and authenticate, then hand a
 * write (and the few reads that need the engine now) over with gsd_call
 * and block until the engine thread has committed the turn that applied
 * it; other reads are answered from the view the engine thread publishes
 * after each commit (view.h) and from read-only journal handles.  Nothing
 * else is shared.
 */
#ifndef GS_DAEMON_DAEMON_H
#define GS_DAEMON_DAEMON_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/types.h"
#include "io/api_codec.h"

struct gsd_opts {
    const char *cluster, *policy, *state, *listen, *backend, *tokens;
    const char *socket;       /* --socket PATH; "" = none (docs/security.md) */
    int trust_loopback;       /* --trust-loopback: token-less loopback TCP = admin */
    const char *allow_origin[8], *server_name[8]; /* --allow-origin, --server-name */
    int n_allow_origin, n_server_name;
    double clock_scale;
    int sync_full;            /* 1 = synchronous=FULL (default) */
    gs_time kill_wait;        /* ms between SIGTERM and SIGKILL */
    const char *supervisor;   /* the supervisor program: gpuschedd-supervise beside
                                 this binary, else this binary (--supervise) */
    const char *server_url;   /* http://HOST:PORT, for GPUSCHED_SERVER */
    /* --backend slurm settings (docs/slurm-backend.md) */
    const char *slurm_partition, *slurm_account, *slurm_qos;
    const char *slurm_gpus;   /* auto | types | counts */
    int slurm_poll_ms;        /* batched read interval */
    int slurm_deadline_ms;    /* released job must run within this */
    /* durability under faults (docs/operations.md) */
    int init;                 /* --init: a missing/empty journal may start anew */
    int state_used;           /* the state dir has held a daemon (its lock file was there) */
    int64_t min_free;         /* --min-free-mb in bytes: submits get 507 below it */
    const char *output_dir;   /* --output-dir, NULL = STATE/output */
    const char *run_dir;      /* --run-dir, NULL = STATE/run */
    int64_t file_limit;       /* --job-file-limit in bytes, 0 = none ... */
    int file_limit_pct;       /* ... or this % of the output filesystem (when > 0) */
    int64_t retain_ms;        /* --retain: ended jobs older (wall ms) are purged; 0 = never */
    /* local backend (gpumap.h, runas.h) */
    int gpu_mode;             /* enum gsd_gpu_mode: --local-gpus / --virtual-gpus */
    int local_gpus;           /* --local-gpus N, -1 = not given */
    int virtual_users;        /* --virtual-users: a job whose user has no account here
                                 runs as the daemon's own (tests, demos) */
};

enum gsd_cmd_kind {
    GSD_SUBMIT,
    GSD_GET,          /* one job */
    GSD_LIST,
    GSD_CANCEL,
    GSD_CHECKPOINT,
    GSD_EXPLAIN,
    GSD_NODES,
    GSD_NODE_DRAIN,
    GSD_NODE_RESUME,
    GSD_CLUSTER,
    GSD_METRICS,
    GSD_DASHBOARD,    /* GET /v1/dashboard (dash_route.h) */
    GSD_QUEUE,        /* GET /v1/queue: the live jobs (view.h) */
    GSD_NODE_DOWN,    /* POST /v1/nodes/{name}/down (admin; reason) */
    GSD_HISTORY,      /* GET /v1/jobs/{id}/events (view_history.c) */
};

/* One request handed to the engine thread.  Inputs are borrowed from the
 * HTTP thread, which waits; the engine thread fills status and body (a
 * malloc'ed string the HTTP thread frees) and sets done. */
struct gsd_cmd {
    int kind;
    struct gs_api_submit *sub;    /* SUBMIT */
    const char *idem;             /* SUBMIT: Idempotency-Key or NULL */
    const char *idem_owner;       /* SUBMIT: "user/team" the key belongs to */
    int test_only;                /* SUBMIT: answer where and when, submit nothing */
    const char *id;               /* job id / node name */
    const char *team_only;        /* act only on this team's jobs (submit token) */
    const char *state, *team;     /* LIST filters, NULL = any */
    const char *reason;           /* NODE_DOWN: why (from the body), may be NULL */
    int gpu;                      /* NODE_*: one GPU of the node, -1 = the node */
    int page[5];                  /* DASHBOARD: q_offset, q_limit, r_offset, r_limit, k */
    int limit;                    /* LIST: at most this many jobs (0 = GSD_LIST_LIMIT) */
    int64_t after;                /* LIST: after this seq (the `next` cursor), 0 = all */
    int status;
    char *body;
    const char *content_type;     /* NULL = application/json */
    int done;
    struct gsd_cmd *next;
};

/* GET /v1/jobs/{c->id}/events (view_history.c): answer c (status, body)
 * on the calling thread from a read-only journal handle of its own;
 * c->limit / c->after page the events. */
struct gsd_loop;
void gsd_history_answer(const struct gsd_loop *lp, struct gsd_cmd *c);

/* GET /v1/jobs paging: `limit` by default and at most (docs/daemon.md). */
#define GSD_LIST_LIMIT 1000
#define GSD_LIST_LIMIT_MAX 10000

struct gsd_loop;

/* Create the engine thread's state: load cluster and policy, open the
 * journal under opts->state.  NULL after printing the error to stderr,
 * with *status the exit status to give (lockfile.h: GSD_EXIT_DAMAGED for
 * a refused journal, else GSD_EXIT_FATAL). */
struct gsd_loop *gsd_loop_create(const struct gsd_opts *opts, int *status);

/* `gpuschedd --check STATE` (store_check.c): print the journal's health;
 * returns the exit status (0 healthy, GSD_EXIT_DAMAGED, 2 usage). */
int gsd_check_main(int argc, char **argv);

/* Parse --retain N[s|m|h|d] into o->retain_ms (retain.c): 0 or 2 after
 * saying what is wrong. */
int gsd_retain_opt(struct gsd_opts *o, const char *arg);

/* Parse --min-free-mb / --job-file-limit (`name`) into opts (diskguard.c).
 * 0, or 2 after saying what is wrong on stderr. */
int gsd_disk_opt(struct gsd_opts *o, const char *name, const char *arg);

/* Rebuild the engine from the journal and reconcile with the backend
 * (re-adopt running jobs, collect those that ended meanwhile).  0, or -1
 * after printing the error, -2 when it failed and the journal's
 * quick_check then found damage (exit status GSD_EXIT_DAMAGED). */
int gsd_loop_restore(struct gsd_loop *lp);

/* Run the loop until SIGTERM/SIGINT (blocked by the caller in every
 * thread).  Returns 0 on a clean stop, 1 on a fatal error,
 * GSD_EXIT_DAMAGED when the journal's quick_check, which the first turn
 * waits for, found damage (nothing was written). */
int gsd_loop_run(struct gsd_loop *lp);

/* Whether the journal is replayed and the backend reconciled. */
int gsd_loop_ready(struct gsd_loop *lp);

/* /readyz's text once ready (any thread): "ready\n" and a line for each
 * degradation (journal outage, jobs held in conflict; loop_shared.c). */
void gsd_loop_health(struct gsd_loop *lp, char *buf, size_t n);

/* Hand `c` to the engine thread and wait until it is answered (any
 * thread).  */
void gsd_call(struct gsd_loop *lp, struct gsd_cmd *c);

/* Answer every queued and future command 503 (after gsd_loop_run). */
void gsd_loop_close(struct gsd_loop *lp);

/* Free everything; NULL is a no-op. */
void gsd_loop_destroy(struct gsd_loop *lp);

/* Start the HTTP servers: on the bound TCP socket `tcp_fd` (whose address
 * is listen_host:port) and on the listening Unix socket `unix_fd` (-1 =
 * none); identity and door settings from `o` (tokens, trust_loopback,
 * allow_origin, server_name).  NULL after printing why. */
struct gsd_http;
struct gsd_http *gsd_http_start(int tcp_fd, int unix_fd, const char *listen_host, int port,
                                struct gsd_loop *lp, const struct gsd_opts *o);
void gsd_http_stop(struct gsd_http *h);

/* Supervisor mode (`gpuschedd --supervise ...`); see supervise.c. */
int gsd_supervise_main(int argc, char **argv);

/* Close every descriptor from 3 up except `keep` (-1 = none): two
 * close_range calls (one per side of `keep`), or a loop over 3..1023 where
 * the kernel lacks close_range.  Async-signal-safe (a vfork'd child calls
 * it); no errors: a descriptor that cannot be closed is left. */
void gsd_close_fds_except(int keep);

/* Per-job error string for a status: "invalid" etc. are in api_codec. */
char *gsd_error_json(int status, const char *code, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif

/* store.h - the daemon's journal: one SQLite file in WAL mode, the only code
 * that includes sqlite3.h.
 *
 * The jobs table holds one row per job ever accepted (its request body and
 * its current job-object fields); the events table is the append-only log
 * of what the daemon decided and saw.  The daemon opens one transaction per
 * loop turn (gs_store_begin .. gs_store_commit: group commit) and writes the
 * intent of an action (a row in state "starting" with attempt n) before it
 * acts.  Restart reads only the rows that are not done (a partial index), so
 * its cost follows the live jobs, not every job ever seen.
 *
 * Schema version in PRAGMA user_version; gs_store_open migrates older files
 * forward (docs/daemon.md lists the schema).  A store handle is used by one
 * thread at a time; readers open their own handles (WAL lets them read the
 * last committed state while the writer works).
 */
#ifndef GS_IO_STORE_H
#define GS_IO_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/types.h"

struct gs_store;

/* Current schema version (user_version). */
#define GS_STORE_SCHEMA 7

/* What a stopping job becomes once its processes are gone. */
enum gs_store_stop {
    GS_STOP_NONE,
    GS_STOP_REQUEUE,
    GS_STOP_CANCELLED,
    GS_STOP_KILLED,
    GS_STOP_FAILED,
};

/* One job row.  Times in engine ms (GS_TIME_NONE = NULL); strings borrowed
 * (from the caller on writes, from SQLite during a callback on reads). */
struct gs_store_job {
    int64_t seq;              /* rowid, assigned by gs_store_job_insert */
    const char *id, *idem, *team, *user;
    int gpus;
    const char *request;      /* the submit body (JSON) */
    const char *state;        /* pending|starting|running|stopping|done */
    const char *outcome;      /* NULL until done */
    gs_time submit, first_start, start, end, last_ckpt;
    int attempts, runs, preemptions;
    gs_time work, lost;       /* ms of work credited / lost (engine figures) */
    double lost_gpu_s;
    int exit_code;            /* -1 = none */
    const char *placement;    /* "node:gpu,..." or NULL */
    int64_t sup_pid, sup_start; /* the attempt's supervisor; 0 = not launched */
    int stop;                 /* enum gs_store_stop */
    int alloc_milli;          /* the attempt's share and memory per GPU */
    int64_t alloc_mem;
    const char *engine;       /* the engine's record of the job (restore), NULL */
    const char *launch_error; /* why the last launch of its command failed
                                 ("exec PROG: No such file or directory"), NULL */
    /* the start-time promise made at submit (docs/eta.md; read only: written
       by gs_store_job_set_eta): the engine's estimate, the calibrated point,
       the P90 bound (NONE = none) and the basis (NULL = no promise) */
    gs_time eta_est, eta_cal, eta_p90;
    const char *eta_basis;
    const char *eta_aux;      /* what the calibration needs of that promise when
                                 the job starts (loop_eta.c's text), NULL */
};

/* Called once per row; strings valid during the call.  A non-zero return
 * stops the iteration and is returned by the iterating call. */
typedef int (*gs_store_job_fn)(void *arg, const struct gs_store_job *j);

/* Open (creating and migrating as needed) the journal at `path`.  `full`:
 * synchronous=FULL (1) or NORMAL (0).  `readonly` opens an existing file
 * for reading only (no migration).  Returns NULL with err (GS_EIO; GS_EINVAL
 * for a file that is refused: from a newer version, or damaged: SQLite's
 * "file is not a database" / "malformed"). */
struct gs_store *gs_store_open(const char *path, int full, int readonly, struct gs_error *err);

/* Whether a write call failed since the last gs_store_begin: 0 = none,
 * 1 = the disk is full (SQLITE_FULL: the daemon answers 507), 2 = another
 * error (I/O, ...: 503). */
int gs_store_failure(const struct gs_store *st);

/* PRAGMA quick_check: 0 when SQLite says "ok"; GS_EINVAL with what it
 * says (at most 8 problems, "; "-joined, truncated to n) otherwise. */
int gs_store_quick_check(struct gs_store *st, char *buf, size_t n);

/* Close; NULL is a no-op. */
void gs_store_close(struct gs_store *st);

/* Open / commit / roll back the turn's transaction.  0 or GS_EIO. */
int gs_store_begin(struct gs_store *st, struct gs_error *err);
int gs_store_commit(struct gs_store *st, struct gs_error *err);
void gs_store_rollback(struct gs_store *st);

/* Integer settings (clock origin, id counter).  get returns 0 and sets
 * *val, GS_ENOENT when absent, GS_EIO. */
int gs_store_meta_get(struct gs_store *st, const char *key, int64_t *val);
int gs_store_meta_set(struct gs_store *st, const char *key, int64_t val, struct gs_error *err);

/* Insert a new job (j->seq ignored); sets *seq.  GS_EEXIST when the id or
 * the idempotency key is taken, GS_EIO. */
int gs_store_job_insert(struct gs_store *st, const struct gs_store_job *j, int64_t *seq,
                        struct gs_error *err);

/* Rewrite the dynamic fields (state .. stop) of row j->seq.  0 or GS_EIO. */
int gs_store_job_update(struct gs_store *st, const struct gs_store_job *j,
                        struct gs_error *err);

/* Record the start-time promise made at the submit of row `seq` (times
 * NONE = NULL; basis and aux borrowed, NULL = none).  0 or GS_EIO. */
int gs_store_job_set_eta(struct gs_store *st, int64_t seq, gs_time est, gs_time cal,
                         gs_time p90, const char *basis, const char *aux,
                         struct gs_error *err);

/* Append to the event log. 0 or GS_EIO. */
int gs_store_event(struct gs_store *st, gs_time t, int64_t job, const char *kind,
                   const char *detail, struct gs_error *err);

/* The row with this id / idempotency key / seq: calls fn once and returns
 * its result, or GS_ENOENT, GS_EIO. */
int gs_store_job_by_id(struct gs_store *st, const char *id, gs_store_job_fn fn, void *arg);
int gs_store_job_by_idem(struct gs_store *st, const char *key, gs_store_job_fn fn, void *arg);
int gs_store_job_by_seq(struct gs_store *st, int64_t seq, gs_store_job_fn fn, void *arg);

/* Every row not done, in seq order.  0, fn's non-zero result, or GS_EIO. */
int gs_store_jobs_live(struct gs_store *st, gs_store_job_fn fn, void *arg);

/* Rows in seq order after `after` (0 = from the start), at most `limit`,
 * filtered by state and team when those are not NULL. */
int gs_store_jobs_list(struct gs_store *st, const char *state, const char *team,
                       int64_t after, int limit, gs_store_job_fn fn, void *arg);

/* One event of a job: its seq in the log, engine time, kind and detail
 * (NULL = none); strings valid during the call.  Non-zero stops. */
typedef int (*gs_store_event_fn)(void *arg, int64_t seq, gs_time t, const char *kind,
                                 const char *detail);

/* Job `job`'s (seq) events after event seq `after`, oldest first, at most
 * `limit`, through fn.  0, fn's non-zero return, or GS_EIO. */
int gs_store_job_events(struct gs_store *st, int64_t job, int64_t after, int limit,
                        gs_store_event_fn fn, void *arg);

/* The detail of the latest event of `kind` whose detail starts with
 * `prefix`, into buf (truncated to n).  0, GS_ENOENT, GS_EIO. */
int gs_store_event_last(struct gs_store *st, const char *kind, const char *prefix, char *buf,
                        size_t n);

/* Every completed job (outcome "completed") in the order its end was
 * recorded (its last "end" event), for re-teaching the duration estimator
 * after a restart.  0, fn's non-zero result, or GS_EIO. */
int gs_store_jobs_completed(struct gs_store *st, gs_store_job_fn fn, void *arg);

/* Done jobs counted by (team, outcome): fn(arg, team, outcome, n). */
int gs_store_done_counts(struct gs_store *st,
                         void (*fn)(void *arg, const char *team, const char *outcome,
                                    int64_t n),
                         void *arg);

/* The dashboard's history (io/dash_series.h), kept across restarts in the
 * tables dash_samples and dash_waits (schema step 2). */
struct gs_store_sample {
    gs_time t;                /* engine ms: one sample per time */
    double util;
    int64_t sched, frag_count, frag_topology;
    double frag_memory;
    int pending, k;
};
typedef void (*gs_store_sample_fn)(void *arg, const struct gs_store_sample *s);
typedef void (*gs_store_wait_fn)(void *arg, gs_time start, gs_time wait, int gpus);

/* Add (or replace, at the same time) one sample and keep the newest `keep`
 * (>= 1).  0 or GS_EIO (err). */
int gs_store_sample_add(struct gs_store *st, const struct gs_store_sample *s, int keep,
                        struct gs_error *err);
/* Add the queue wait of a job that started at `start` and keep the newest
 * `keep` (>= 1).  0 or GS_EIO (err). */
int gs_store_wait_add(struct gs_store *st, gs_time start, gs_time wait, int gpus, int keep,
                      struct gs_error *err);
/* Every sample (oldest first) to `sample`, then every wait (oldest first)
 * to `wait`.  0 or GS_EIO. */
int gs_store_history(struct gs_store *st, gs_store_sample_fn sample, gs_store_wait_fn wait,
                     void *arg);



/* The daemon's ETA calibration window (loop_eta.c; table eta_window,
 * schema step 6): slot `slot` (0 .. window - 1) holds one started job's
 * |first start - promised start| (ms) and whether it had a P90 bound and
 * started by it (-1 no bound, 0 after it, 1 by it).  Set replaces the
 * slot's row.  0 or GS_EIO (err names the table). */
int gs_store_eta_slot_set(struct gs_store *st, int slot, gs_time abserr, int bound,
                          struct gs_error *err);
typedef void (*gs_store_eta_fn)(void *arg, int slot, gs_time abserr, int bound);
/* Every slot of the window, in slot order, to fn.  0 or GS_EIO. */
int gs_store_eta_window(struct gs_store *st, gs_store_eta_fn fn, void *arg);

/* The calibration that shapes new promises (loop_eta.c; tables
 * eta_cal_key and eta_cal_slot, schema step 7): per key, its adaptive
 * level and the cursors of its windows (text, the caller's format); per
 * window `win`, ring slot `slot` holds value `v`.  Set replaces the row.
 * 0 or GS_EIO (err names the table). */
int gs_store_eta_cal_key_set(struct gs_store *st, int key, double level, const char *cursors,
                             struct gs_error *err);
int gs_store_eta_cal_slot_set(struct gs_store *st, int win, int slot, gs_time v,
                              struct gs_error *err);
typedef void (*gs_store_eta_key_fn)(void *arg, int key, double level, const char *cursors);
typedef void (*gs_store_eta_slot_fn)(void *arg, int win, int slot, gs_time v);
/* Every key row to key_fn, then every slot row to slot_fn (strings valid
 * during the call).  0 or GS_EIO. */
int gs_store_eta_cal_load(struct gs_store *st, gs_store_eta_key_fn key_fn,
                          gs_store_eta_slot_fn slot_fn, void *arg);

/* Retention: delete the done rows whose end is before `before` (engine
 * ms), the first `limit` in seq order, and their events; fn (may be NULL)
 * sees each row first (its files are the caller's).  Returns the number of
 * rows deleted, or GS_EIO.  Live rows are never deleted. */
int gs_store_purge_ended(struct gs_store *st, gs_time before, int limit,
                         gs_store_job_fn fn, void *arg, struct gs_error *err);

/* store_check.c: health and copies of a journal file, each on a
 * connection of its own (so they run beside a live daemon: WAL lets a
 * reader see the last commit). */

/* A journal's health (gpuschedd --check). */
struct gs_store_health {
    int64_t size;             /* bytes of the main file (-1 = missing) */
    int schema;               /* user_version */
    int ok;                   /* quick_check said "ok" and the tables read */
    char check[400];          /* quick_check's words, or why it could not run */
    int64_t jobs[6];          /* pending, starting, running, stopping, done, other */
    int64_t last_seq;         /* highest job seq (0 = none) */
    int64_t last_event;       /* highest event seq */
};

/* Fill *h for the journal at `path` (read-only; never creates it).
 * 0 when healthy; GS_EINVAL when damaged, empty or missing (h->check
 * says what); GS_EIO when it cannot be read at all (err). */
int gs_store_health_of(const char *path, struct gs_store_health *h, struct gs_error *err);

/* Copy the journal at `src` to `dest` with SQLite's online backup API
 * (a consistent snapshot of the last commit, taken beside a live writer;
 * dest is written as DEST.tmp, fsynced and renamed).  *jobs = rows copied.
 * 0, GS_EIO or GS_EEXIST (dest exists) with err. */
int gs_store_backup(const char *src, const char *dest, int64_t *jobs, struct gs_error *err);

#endif

/* store.c - the SQLite journal (see store.h; schema in docs/daemon.md). */
#include "io/store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schema steps: migrations[v] takes a file from user_version v to v + 1. */
static const char *const migrations[GS_STORE_SCHEMA] = {
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE jobs("
    " seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, idem TEXT UNIQUE,"
    " team TEXT NOT NULL, user TEXT NOT NULL, gpus INTEGER NOT NULL,"
    " request TEXT NOT NULL, state TEXT NOT NULL, outcome TEXT,"
    " submit_ms INTEGER NOT NULL, first_start_ms INTEGER, start_ms INTEGER,"
    " end_ms INTEGER, ckpt_ms INTEGER, attempts INTEGER NOT NULL DEFAULT 0,"
    " runs INTEGER NOT NULL DEFAULT 0, preemptions INTEGER NOT NULL DEFAULT 0,"
    " work_ms INTEGER NOT NULL DEFAULT 0, lost_ms INTEGER NOT NULL DEFAULT 0,"
    " lost_gpu_s REAL NOT NULL DEFAULT 0, exit_code INTEGER, placement TEXT,"
    " sup_pid INTEGER, sup_start INTEGER, stop INTEGER NOT NULL DEFAULT 0,"
    " alloc_milli INTEGER NOT NULL DEFAULT 0, alloc_mem INTEGER NOT NULL DEFAULT 0,"
    " engine TEXT);"
    "CREATE INDEX jobs_live ON jobs(seq) WHERE state <> 'done';"
    "CREATE INDEX jobs_team ON jobs(team, seq);"
    "CREATE TABLE events(seq INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL,"
    " job INTEGER, kind TEXT NOT NULL, detail TEXT);",
    /* 1 -> 2: the dashboard's history (gs_store_sample_add), bounded by its callers */
    "CREATE TABLE dash_samples(t_ms INTEGER PRIMARY KEY, util REAL NOT NULL,"
    " sched INTEGER NOT NULL, frag_count INTEGER NOT NULL, frag_topology INTEGER NOT NULL,"
    " frag_memory REAL NOT NULL, pending INTEGER NOT NULL, k INTEGER NOT NULL);"
    "CREATE TABLE dash_waits(seq INTEGER PRIMARY KEY, start_ms INTEGER NOT NULL,"
    " wait_ms INTEGER NOT NULL, gpus INTEGER NOT NULL);",
    /* 2 -> 3: a job's events in order (GET /v1/jobs/ID/events) */
    "CREATE INDEX events_job ON events(job, seq);",
    /* 3 -> 4: why the last launch of the job's command failed (exec's errno) */
    "ALTER TABLE jobs ADD COLUMN launch_error TEXT;",
    /* 4 -> 5: the start-time promise at submit (docs/eta.md, section 6) */
    "ALTER TABLE jobs ADD COLUMN eta_est_ms INTEGER;"
    "ALTER TABLE jobs ADD COLUMN eta_cal_ms INTEGER;"
    "ALTER TABLE jobs ADD COLUMN eta_p90_ms INTEGER;"
    "ALTER TABLE jobs ADD COLUMN eta_basis TEXT;",
    /* 5 -> 6: the daemon's ETA calibration window (docs/eta.md, section 6);
       its counters are meta keys eta_* */
    "CREATE TABLE eta_window(slot INTEGER PRIMARY KEY, abserr_ms INTEGER NOT NULL,"
    " bound INTEGER NOT NULL);",
    /* 6 -> 7: the calibration that shapes new promises (docs/eta.md,
       section 6), and what it needs of a journalled promise */
    "CREATE TABLE eta_cal_key(key INTEGER PRIMARY KEY, level REAL NOT NULL,"
    " cursors TEXT NOT NULL);"
    "CREATE TABLE eta_cal_slot(win INTEGER NOT NULL, slot INTEGER NOT NULL,"
    " v INTEGER NOT NULL, PRIMARY KEY(win, slot)) WITHOUT ROWID;"
    "ALTER TABLE jobs ADD COLUMN eta_aux TEXT;",
};

enum {
    Q_BEGIN, Q_COMMIT, Q_ROLLBACK, Q_META_GET, Q_META_SET, Q_INSERT, Q_UPDATE, Q_EVENT,
    Q_BY_ID, Q_BY_IDEM, Q_BY_SEQ, Q_LIVE, Q_LIST, Q_DONE_COUNTS, Q_COMPLETED, Q_EVENT_LAST,
    Q_ENDED_BEFORE, Q_PURGE_EVENTS, Q_PURGE_JOB, Q_JOB_EVENTS, Q_ETA_SET, Q_ETA_SLOT, Q_ETA_KEY, Q_ETA_CSLOT,
    Q_COUNT
};

#define JOB_COLS                                                                           \
    "seq, id, idem, team, user, gpus, request, state, outcome, submit_ms, first_start_ms," \
    " start_ms, end_ms, ckpt_ms, attempts, runs, preemptions, work_ms, lost_ms,"           \
    " lost_gpu_s, exit_code, placement, sup_pid, sup_start, stop, alloc_milli, alloc_mem,"  \
    " engine, launch_error, eta_est_ms, eta_cal_ms, eta_p90_ms, eta_basis, eta_aux"

static const char *const sql[Q_COUNT] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    [Q_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [Q_META_SET] = "INSERT INTO meta(key, value) VALUES(?1, ?2)"
                   " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [Q_INSERT] = "INSERT INTO jobs(id, idem, team, user, gpus, request, state, submit_ms)"
                 " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [Q_UPDATE] = "UPDATE jobs SET state = ?2, outcome = ?3, first_start_ms = ?4,"
                 " start_ms = ?5, end_ms = ?6, ckpt_ms = ?7, attempts = ?8, runs = ?9,"
                 " preemptions = ?10, work_ms = ?11, lost_ms = ?12, lost_gpu_s = ?13,"
                 " exit_code = ?14, placement = ?15, sup_pid = ?16, sup_start = ?17,"
                 " stop = ?18, alloc_milli = ?19, alloc_mem = ?20, engine = ?21,"
                 " launch_error = ?22 WHERE seq = ?1",
    [Q_EVENT] = "INSERT INTO events(time_ms, job, kind, detail) VALUES(?1, ?2, ?3, ?4)",
    [Q_JOB_EVENTS] = "SELECT seq, time_ms, kind, detail FROM events WHERE job = ?1 AND seq > ?2"
                     " ORDER BY seq LIMIT ?3",
    [Q_BY_ID] = "SELECT " JOB_COLS " FROM jobs WHERE id = ?1",
    [Q_BY_IDEM] = "SELECT " JOB_COLS " FROM jobs WHERE idem = ?1",
    [Q_BY_SEQ] = "SELECT " JOB_COLS " FROM jobs WHERE seq = ?1",
    [Q_LIVE] = "SELECT " JOB_COLS " FROM jobs WHERE state <> 'done' ORDER BY seq",
    [Q_LIST] = "SELECT " JOB_COLS " FROM jobs WHERE seq > ?1"
               " AND (?2 IS NULL OR state = ?2 OR (?2 IN ('completed','failed','cancelled',"
               "'killed','rejected','timeout') AND outcome = ?2)) AND (?3 IS NULL OR team = ?3)"
               " ORDER BY seq LIMIT ?4",
    [Q_DONE_COUNTS] = "SELECT team, outcome, count(*) FROM jobs WHERE state = 'done'"
                      " GROUP BY team, outcome",
    /* a job's last 'end' event is written just before the engine learns
       its run time (loop_jobs.c collect_exit), so their order is the
       estimator's */
    [Q_COMPLETED] = "SELECT " JOB_COLS " FROM jobs JOIN (SELECT job, max(seq) AS last"
                    " FROM events WHERE kind = 'end' GROUP BY job) ON job = jobs.seq"
                    " WHERE state = 'done' AND outcome = 'completed' ORDER BY last",
    [Q_EVENT_LAST] = "SELECT detail FROM events WHERE kind = ?1"
                     " AND substr(detail, 1, length(?2)) = ?2 ORDER BY seq DESC LIMIT 1",
    [Q_ENDED_BEFORE] = "SELECT " JOB_COLS " FROM jobs WHERE state = 'done' AND end_ms < ?1"
                       " ORDER BY seq LIMIT ?2",
    /* the same rows as Q_ENDED_BEFORE (one transaction): one scan of the
       events (no index on events.job) per purge, not one per job */
    [Q_PURGE_EVENTS] = "DELETE FROM events WHERE job IN (SELECT seq FROM jobs WHERE"
                       " state = 'done' AND end_ms < ?1 ORDER BY seq LIMIT ?2)",
    [Q_PURGE_JOB] = "DELETE FROM jobs WHERE seq IN (SELECT seq FROM jobs WHERE"
                    " state = 'done' AND end_ms < ?1 ORDER BY seq LIMIT ?2)",
    [Q_ETA_SET] = "UPDATE jobs SET eta_est_ms = ?2, eta_cal_ms = ?3, eta_p90_ms = ?4,"
                  " eta_basis = ?5, eta_aux = ?6 WHERE seq = ?1",
    [Q_ETA_SLOT] = "INSERT OR REPLACE INTO eta_window(slot, abserr_ms, bound) VALUES(?1, ?2, ?3)",
    [Q_ETA_KEY] = "INSERT OR REPLACE INTO eta_cal_key(key, level, cursors) VALUES(?1, ?2, ?3)",
    [Q_ETA_CSLOT] = "INSERT OR REPLACE INTO eta_cal_slot(win, slot, v) VALUES(?1, ?2, ?3)",
};

struct gs_store {
    sqlite3 *db;
    sqlite3_stmt *q[Q_COUNT];
    int failed;               /* since the last begin: 0, 1 = disk full, 2 = other error */
};

/* SQLite's message, with the system's reason where SQLite has one (its
 * "unable to open database file" does not say that descriptors ran out). */
static void db_reason(sqlite3 *db, char *buf, size_t n)
{
    int os = db ? sqlite3_system_errno(db) : 0;
    if (os)
        snprintf(buf, n, "%s (%s)", sqlite3_errmsg(db), strerror(os));
    else
        snprintf(buf, n, "%s", db ? sqlite3_errmsg(db) : "cannot open");
}

/* GS_EINVAL for a damaged file (the journal is refused), else GS_EIO. */
static int db_error(struct gs_store *st, struct gs_error *err, const char *what)
{
    int code = sqlite3_errcode(st->db);
    char why[256];
    st->failed = code == SQLITE_FULL ? 1 : 2;
    db_reason(st->db, why, sizeof why);
    return gs_errorf(err, code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? GS_EINVAL : GS_EIO,
                     "journal: %s: %s", what, why);
}

/* The prepared statement `i`, reset and unbound; NULL on failure. */
static sqlite3_stmt *stmt(struct gs_store *st, int i)
{
    if (!st->q[i] && sqlite3_prepare_v3(st->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                                        &st->q[i], NULL) != SQLITE_OK)
        return NULL;
    sqlite3_reset(st->q[i]);
    sqlite3_clear_bindings(st->q[i]);
    return st->q[i];
}

static int exec1(struct gs_store *st, int i, struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, i);
    if (!s || sqlite3_step(s) != SQLITE_DONE)
        return db_error(st, err, sql[i]);
    sqlite3_reset(s);
    return 0;
}

static int migrate(struct gs_store *st, struct gs_error *err)
{
    sqlite3_stmt *s;
    int v = 0;
    if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
        return db_error(st, err, "user_version");
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (v > GS_STORE_SCHEMA)
        return gs_errorf(err, GS_EINVAL, "journal: schema %d is newer than this daemon (%d)",
                         v, GS_STORE_SCHEMA);
    for (; v < GS_STORE_SCHEMA; v++) {
        char set[64];
        snprintf(set, sizeof set, "PRAGMA user_version = %d", v + 1);
        if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(st->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(st->db, set, NULL, NULL, NULL) != SQLITE_OK) {
            int rc = db_error(st, err, "migration");
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
        if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
            return db_error(st, err, "migration commit");
    }
    return 0;
}

struct gs_store *gs_store_open(const char *path, int full, int readonly, struct gs_error *err)
{
    struct gs_store *st = calloc(1, sizeof *st);
    if (!st) {
        gs_errorf(err, GS_ENOMEM, "out of memory");
        return NULL;
    }
    int flags = readonly ? SQLITE_OPEN_READONLY
                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        char why[256];
        db_reason(st->db, why, sizeof why);
        gs_errorf(err, GS_EIO, "journal %s: %s", path, why);
        gs_store_close(st);
        return NULL;
    }
    sqlite3_busy_timeout(st->db, 5000);
    if (!readonly) {
        /* keep -wal and -shm when closing: a restart on a full disk then
           needs no new file to read the journal (docs/operations.md) */
        int persist = 1;
        sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    }
    char pragmas[160];
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s;",
             full ? "FULL" : "NORMAL");
    if (!readonly && (sqlite3_exec(st->db, pragmas, NULL, NULL, NULL) != SQLITE_OK ||
                      migrate(st, err) < 0)) {
        if (!err || err->code == GS_OK)
            db_error(st, err, path);
        gs_store_close(st);
        return NULL;
    }
    return st;
}

void gs_store_close(struct gs_store *st)
{
    if (!st)
        return;
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(st->q[i]);
    sqlite3_close(st->db);
    free(st);
}

int gs_store_begin(struct gs_store *st, struct gs_error *err)
{
    st->failed = 0;
    return exec1(st, Q_BEGIN, err);
}

int gs_store_commit(struct gs_store *st, struct gs_error *err)
{
    return exec1(st, Q_COMMIT, err);
}

void gs_store_rollback(struct gs_store *st)
{
    int failed = st->failed; /* SQLite may have rolled back already: not news */
    if (!sqlite3_get_autocommit(st->db))
        exec1(st, Q_ROLLBACK, NULL);
    st->failed = failed;
}

int gs_store_meta_get(struct gs_store *st, const char *key, int64_t *val)
{
    sqlite3_stmt *s = stmt(st, Q_META_GET);
    if (!s)
        return GS_EIO;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *val = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? GS_ENOENT : GS_EIO;
}

int gs_store_meta_set(struct gs_store *st, const char *key, int64_t val, struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_META_SET);
    if (!s)
        return db_error(st, err, "meta");
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, val);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "meta");
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}

static void bind_time(sqlite3_stmt *s, int i, gs_time t)
{
    if (t == GS_TIME_NONE)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_int64(s, i, t);
}

int gs_store_job_insert(struct gs_store *st, const struct gs_store_job *j, int64_t *seq,
                        struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_INSERT);
    if (!s)
        return db_error(st, err, "insert");
    bind_text(s, 1, j->id);
    bind_text(s, 2, j->idem);
    bind_text(s, 3, j->team);
    bind_text(s, 4, j->user);
    sqlite3_bind_int(s, 5, j->gpus);
    bind_text(s, 6, j->request);
    bind_text(s, 7, j->state);
    sqlite3_bind_int64(s, 8, j->submit);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_CONSTRAINT)
        return gs_errorf(err, GS_EEXIST, "job id '%s' already exists", j->id);
    if (rc != SQLITE_DONE)
        return db_error(st, err, "insert");
    *seq = sqlite3_last_insert_rowid(st->db);
    return 0;
}

int gs_store_job_update(struct gs_store *st, const struct gs_store_job *j,
                        struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_UPDATE);
    if (!s)
        return db_error(st, err, "update");
    sqlite3_bind_int64(s, 1, j->seq);
    bind_text(s, 2, j->state);
    bind_text(s, 3, j->outcome);
    bind_time(s, 4, j->first_start);
    bind_time(s, 5, j->start);
    bind_time(s, 6, j->end);
    bind_time(s, 7, j->last_ckpt);
    sqlite3_bind_int(s, 8, j->attempts);
    sqlite3_bind_int(s, 9, j->runs);
    sqlite3_bind_int(s, 10, j->preemptions);
    sqlite3_bind_int64(s, 11, j->work);
    sqlite3_bind_int64(s, 12, j->lost);
    sqlite3_bind_double(s, 13, j->lost_gpu_s);
    if (j->exit_code >= 0)
        sqlite3_bind_int(s, 14, j->exit_code);
    else
        sqlite3_bind_null(s, 14);
    bind_text(s, 15, j->placement);
    if (j->sup_pid > 0) {
        sqlite3_bind_int64(s, 16, j->sup_pid);
        sqlite3_bind_int64(s, 17, j->sup_start);
    }
    sqlite3_bind_int(s, 18, j->stop);
    sqlite3_bind_int(s, 19, j->alloc_milli);
    sqlite3_bind_int64(s, 20, j->alloc_mem);
    bind_text(s, 21, j->engine);
    bind_text(s, 22, j->launch_error);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "update");
}

int gs_store_job_set_eta(struct gs_store *st, int64_t seq, gs_time est, gs_time cal,
                         gs_time p90, const char *basis, const char *aux,
                         struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_ETA_SET);
    if (!s)
        return db_error(st, err, "estimate");
    sqlite3_bind_int64(s, 1, seq);
    bind_time(s, 2, est);
    bind_time(s, 3, cal);
    bind_time(s, 4, p90);
    bind_text(s, 5, basis);
    bind_text(s, 6, aux);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "estimate");
}

int gs_store_event(struct gs_store *st, gs_time t, int64_t job, const char *kind,
                   const char *detail, struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_EVENT);
    if (!s)
        return db_error(st, err, "event");
    sqlite3_bind_int64(s, 1, t);
    if (job > 0)
        sqlite3_bind_int64(s, 2, job);
    bind_text(s, 3, kind);
    bind_text(s, 4, detail);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "event");
}

static gs_time col_time(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? GS_TIME_NONE
                                                    : sqlite3_column_int64(s, i);
}

static const char *col_text(sqlite3_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(s, i);
}

static void read_row(sqlite3_stmt *s, struct gs_store_job *j)
{
    j->seq = sqlite3_column_int64(s, 0);
    j->id = col_text(s, 1);
    j->idem = col_text(s, 2);
    j->team = col_text(s, 3);
    j->user = col_text(s, 4);
    j->gpus = sqlite3_column_int(s, 5);
    j->request = col_text(s, 6);
    j->state = col_text(s, 7);
    j->outcome = col_text(s, 8);
    j->submit = col_time(s, 9);
    j->first_start = col_time(s, 10);
    j->start = col_time(s, 11);
    j->end = col_time(s, 12);
    j->last_ckpt = col_time(s, 13);
    j->attempts = sqlite3_column_int(s, 14);
    j->runs = sqlite3_column_int(s, 15);
    j->preemptions = sqlite3_column_int(s, 16);
    j->work = sqlite3_column_int64(s, 17);
    j->lost = sqlite3_column_int64(s, 18);
    j->lost_gpu_s = sqlite3_column_double(s, 19);
    j->exit_code = sqlite3_column_type(s, 20) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 20);
    j->placement = col_text(s, 21);
    j->sup_pid = sqlite3_column_int64(s, 22);
    j->sup_start = sqlite3_column_int64(s, 23);
    j->stop = sqlite3_column_int(s, 24);
    j->alloc_milli = sqlite3_column_int(s, 25);
    j->alloc_mem = sqlite3_column_int64(s, 26);
    j->engine = col_text(s, 27);
    j->launch_error = col_text(s, 28);
    j->eta_est = col_time(s, 29);
    j->eta_cal = col_time(s, 30);
    j->eta_p90 = col_time(s, 31);
    j->eta_basis = col_text(s, 32);
    j->eta_aux = col_text(s, 33);
}

/* Step `s` to the end, calling fn per row.  Returns 0, fn's result, or
 * GS_EIO; `none` is returned when there was no row. */
static int each_row(sqlite3_stmt *s, gs_store_job_fn fn, void *arg, int none)
{
    int rc, n = 0, out = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct gs_store_job j;
        read_row(s, &j);
        n++;
        out = fn ? fn(arg, &j) : 1;
        if (out)
            break;
    }
    sqlite3_reset(s);
    if (out)
        return out;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return GS_EIO;
    return n ? 0 : none;
}

static int by_key(struct gs_store *st, int q, const char *key, gs_store_job_fn fn, void *arg)
{
    sqlite3_stmt *s = stmt(st, q);
    if (!s)
        return GS_EIO;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    return each_row(s, fn, arg, GS_ENOENT);
}

int gs_store_job_by_id(struct gs_store *st, const char *id, gs_store_job_fn fn, void *arg)
{
    return by_key(st, Q_BY_ID, id, fn, arg);
}

int gs_store_job_by_idem(struct gs_store *st, const char *key, gs_store_job_fn fn, void *arg)
{
    return by_key(st, Q_BY_IDEM, key, fn, arg);
}

int gs_store_job_by_seq(struct gs_store *st, int64_t seq, gs_store_job_fn fn, void *arg)
{
    sqlite3_stmt *s = stmt(st, Q_BY_SEQ);
    if (!s)
        return GS_EIO;
    sqlite3_bind_int64(s, 1, seq);
    return each_row(s, fn, arg, GS_ENOENT);
}

int gs_store_jobs_live(struct gs_store *st, gs_store_job_fn fn, void *arg)
{
    sqlite3_stmt *s = stmt(st, Q_LIVE);
    return s ? each_row(s, fn, arg, 0) : GS_EIO;
}

int gs_store_jobs_list(struct gs_store *st, const char *state, const char *team,
                       int64_t after, int limit, gs_store_job_fn fn, void *arg)
{
    sqlite3_stmt *s = stmt(st, Q_LIST);
    if (!s)
        return GS_EIO;
    sqlite3_bind_int64(s, 1, after);
    bind_text(s, 2, state);
    bind_text(s, 3, team);
    sqlite3_bind_int(s, 4, limit);
    return each_row(s, fn, arg, 0);
}

int gs_store_event_last(struct gs_store *st, const char *kind, const char *prefix, char *buf,
                        size_t n)
{
    sqlite3_stmt *s = stmt(st, Q_EVENT_LAST);
    if (!s || n == 0)
        return GS_EIO;
    sqlite3_bind_text(s, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, prefix, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    const unsigned char *d = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
    if (d)
        snprintf(buf, n, "%s", (const char *)d);
    sqlite3_reset(s);
    return d ? 0 : rc == SQLITE_ROW || rc == SQLITE_DONE ? GS_ENOENT : GS_EIO;
}

int gs_store_job_events(struct gs_store *st, int64_t job, int64_t after, int limit,
                        gs_store_event_fn fn, void *arg)
{
    sqlite3_stmt *s = stmt(st, Q_JOB_EVENTS);
    if (!s)
        return GS_EIO;
    sqlite3_bind_int64(s, 1, job);
    sqlite3_bind_int64(s, 2, after);
    sqlite3_bind_int(s, 3, limit);
    int rc, out = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        out = fn(arg, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), col_text(s, 2),
                 col_text(s, 3));
        if (out)
            break;
    }
    sqlite3_reset(s);
    return out ? out : rc == SQLITE_DONE ? 0 : GS_EIO;
}

int gs_store_jobs_completed(struct gs_store *st, gs_store_job_fn fn, void *arg)
{
    sqlite3_stmt *s = stmt(st, Q_COMPLETED);
    return s ? each_row(s, fn, arg, 0) : GS_EIO;
}

int gs_store_done_counts(struct gs_store *st,
                         void (*fn)(void *arg, const char *team, const char *outcome,
                                    int64_t n),
                         void *arg)
{
    sqlite3_stmt *s = stmt(st, Q_DONE_COUNTS);
    if (!s)
        return GS_EIO;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        fn(arg, col_text(s, 0), col_text(s, 1), sqlite3_column_int64(s, 2));
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : GS_EIO;
}

int gs_store_failure(const struct gs_store *st)
{
    return st->failed;
}

int gs_store_quick_check(struct gs_store *st, char *buf, size_t n)
{
    sqlite3_stmt *s;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(st->db, "PRAGMA quick_check(8)", -1, &s, NULL) != SQLITE_OK) {
        snprintf(buf, n, "%s", sqlite3_errmsg(st->db));
        return GS_EINVAL;
    }
    size_t w = 0;
    int rc, ok = 0, rows = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        ok = rows++ == 0 && t && !strcmp(t, "ok");
        if (w < n)
            w += (size_t)snprintf(buf + w, n - w, "%s%s", w ? "; " : "", t ? t : "?");
    }
    if (rc != SQLITE_DONE) {
        if (w < n)
            snprintf(buf + w, n - w, "%s%s", w ? "; " : "", sqlite3_errmsg(st->db));
        ok = 0;
    }
    sqlite3_finalize(s);
    return ok && rows == 1 ? 0 : GS_EINVAL;
}

int gs_store_purge_ended(struct gs_store *st, gs_time before, int limit,
                         gs_store_job_fn fn, void *arg, struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_ENDED_BEFORE);
    if (!s)
        return db_error(st, err, "purge");
    sqlite3_bind_int64(s, 1, before);
    sqlite3_bind_int(s, 2, limit);
    int rc = each_row(s, fn, arg, 0);
    if (rc < 0)
        return db_error(st, err, "purge");
    for (int q = Q_PURGE_EVENTS; q <= Q_PURGE_JOB; q++) {
        s = stmt(st, q);
        if (!s)
            return db_error(st, err, "purge");
        sqlite3_bind_int64(s, 1, before);
        sqlite3_bind_int(s, 2, limit);
        rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE)
            return db_error(st, err, "purge");
    }
    return sqlite3_changes(st->db);
}

/* ---- the dashboard's history ------------------------------------------------ */

/* Run `sql` with the int64 parameters v[0..n-1] bound (no rows).  0 or GS_EIO. */
static int exec_ints(struct gs_store *st, const char *sql_text, const int64_t *v, int n,
                     struct gs_error *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, sql_text, -1, &s, NULL) != SQLITE_OK)
        return db_error(st, err, "dashboard history");
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(s, i + 1, v[i]);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "dashboard history");
}

int gs_store_sample_add(struct gs_store *st, const struct gs_store_sample *x, int keep,
                        struct gs_error *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO dash_samples(t_ms, util, sched,"
                           " frag_count, frag_topology, frag_memory, pending, k)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", -1, &s, NULL) != SQLITE_OK)
        return db_error(st, err, "dashboard history");
    sqlite3_bind_int64(s, 1, x->t);
    sqlite3_bind_double(s, 2, x->util);
    sqlite3_bind_int64(s, 3, x->sched);
    sqlite3_bind_int64(s, 4, x->frag_count);
    sqlite3_bind_int64(s, 5, x->frag_topology);
    sqlite3_bind_double(s, 6, x->frag_memory);
    sqlite3_bind_int(s, 7, x->pending);
    sqlite3_bind_int(s, 8, x->k);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return db_error(st, err, "dashboard history");
    int64_t k = keep;
    return exec_ints(st, "DELETE FROM dash_samples WHERE t_ms < (SELECT t_ms FROM dash_samples"
                         " ORDER BY t_ms DESC LIMIT 1 OFFSET ?1 - 1)", &k, 1, err);
}

int gs_store_wait_add(struct gs_store *st, gs_time start, gs_time wait, int gpus, int keep,
                      struct gs_error *err)
{
    int64_t v[3] = { start, wait, gpus }, k = keep;
    if (exec_ints(st, "INSERT INTO dash_waits(start_ms, wait_ms, gpus) VALUES(?1, ?2, ?3)", v,
                  3, err) < 0)
        return GS_EIO;
    return exec_ints(st, "DELETE FROM dash_waits WHERE seq <= (SELECT max(seq) FROM dash_waits)"
                         " - ?1", &k, 1, err);
}

int gs_store_history(struct gs_store *st, gs_store_sample_fn sample, gs_store_wait_fn wait,
                     void *arg)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, "SELECT t_ms, util, sched, frag_count, frag_topology,"
                           " frag_memory, pending, k FROM dash_samples ORDER BY t_ms", -1, &s,
                           NULL) != SQLITE_OK)
        return GS_EIO;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct gs_store_sample x = {
            sqlite3_column_int64(s, 0), sqlite3_column_double(s, 1), sqlite3_column_int64(s, 2),
            sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4), sqlite3_column_double(s, 5),
            sqlite3_column_int(s, 6), sqlite3_column_int(s, 7)
        };
        sample(arg, &x);
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE || sqlite3_prepare_v2(st->db, "SELECT start_ms, wait_ms, gpus FROM"
                                                " dash_waits ORDER BY seq", -1, &s,
                                                NULL) != SQLITE_OK)
        return GS_EIO;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        wait(arg, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
             sqlite3_column_int(s, 2));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : GS_EIO;
}

int gs_store_eta_slot_set(struct gs_store *st, int slot, gs_time abserr, int bound,
                          struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_ETA_SLOT);
    if (!s)
        return db_error(st, err, "eta window");
    sqlite3_bind_int(s, 1, slot);
    sqlite3_bind_int64(s, 2, abserr);
    sqlite3_bind_int(s, 3, bound);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "eta window");
}

int gs_store_eta_window(struct gs_store *st, gs_store_eta_fn fn, void *arg)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, "SELECT slot, abserr_ms, bound FROM eta_window ORDER BY slot",
                           -1, &s, NULL) != SQLITE_OK)
        return GS_EIO;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        fn(arg, sqlite3_column_int(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : GS_EIO;
}

int gs_store_eta_cal_key_set(struct gs_store *st, int key, double level, const char *cursors,
                             struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_ETA_KEY);
    if (!s)
        return db_error(st, err, "eta_cal_key");
    sqlite3_bind_int(s, 1, key);
    sqlite3_bind_double(s, 2, level);
    bind_text(s, 3, cursors);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "eta_cal_key");
}

int gs_store_eta_cal_slot_set(struct gs_store *st, int win, int slot, gs_time v,
                              struct gs_error *err)
{
    sqlite3_stmt *s = stmt(st, Q_ETA_CSLOT);
    if (!s)
        return db_error(st, err, "eta_cal_slot");
    sqlite3_bind_int(s, 1, win);
    sqlite3_bind_int(s, 2, slot);
    sqlite3_bind_int64(s, 3, v);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : db_error(st, err, "eta_cal_slot");
}

int gs_store_eta_cal_load(struct gs_store *st, gs_store_eta_key_fn key_fn,
                          gs_store_eta_slot_fn slot_fn, void *arg)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, "SELECT key, level, cursors FROM eta_cal_key ORDER BY key",
                           -1, &s, NULL) != SQLITE_OK)
        return GS_EIO;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        key_fn(arg, sqlite3_column_int(s, 0), sqlite3_column_double(s, 1), col_text(s, 2));
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE || sqlite3_prepare_v2(st->db, "SELECT win, slot, v FROM eta_cal_slot"
                                                " ORDER BY win, slot", -1, &s,
                                                NULL) != SQLITE_OK)
        return GS_EIO;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        slot_fn(arg, sqlite3_column_int(s, 0), sqlite3_column_int(s, 1),
                sqlite3_column_int64(s, 2));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : GS_EIO;
}

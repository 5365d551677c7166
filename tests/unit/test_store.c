/* test_store.c - the SQLite journal (io/store.c) on a real file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/store.h"

#include <sqlite3.h>

static char dir[64], path[96];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gsstoreXXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/j.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[128];
    const char *sfx[] = { "", "-wal", "-shm" };
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", path, sfx[i]);
        unlink(p);
    }
    rmdir(dir);
    return 0;
}

static struct gs_store *open_rw(void)
{
    struct gs_error err = { 0 };
    struct gs_store *st = gs_store_open(path, 1, 0, &err);
    if (!st)
        fail_msg("open: %s", err.msg);
    return st;
}

static struct gs_store_job job(const char *id, const char *idem)
{
    return (struct gs_store_job){ .id = id, .idem = idem, .team = "a", .user = "u", .gpus = 2,
                                  .request = "{\"command\":[\"true\"]}", .state = "pending",
                                  .submit = 1000 };
}

struct seen {
    int n;
    char ids[8][16];
    char state[16];
    int64_t seq;
    int exit_code, attempts;
    gs_time end;
    char placement[64];
};

static int collect(void *arg, const struct gs_store_job *j)
{
    struct seen *s = arg;
    if (s->n < 8)
        snprintf(s->ids[s->n], sizeof s->ids[0], "%s", j->id);
    s->n++;
    snprintf(s->state, sizeof s->state, "%s", j->state);
    s->seq = j->seq;
    s->exit_code = j->exit_code;
    s->attempts = j->attempts;
    s->end = j->end;
    snprintf(s->placement, sizeof s->placement, "%s", j->placement ? j->placement : "-");
    return 0;
}

static void test_insert_update_live(void **state)
{
    (void)state;
    struct gs_store *st = open_rw();
    struct gs_error err;
    int64_t s1, s2, s3;
    assert_int_equal(gs_store_begin(st, &err), 0);
    struct gs_store_job a = job("a", "k1"), b = job("b", NULL), c = job("c", NULL);
    assert_int_equal(gs_store_job_insert(st, &a, &s1, &err), 0);
    assert_int_equal(gs_store_job_insert(st, &b, &s2, &err), 0);
    assert_int_equal(gs_store_job_insert(st, &c, &s3, &err), 0);
    assert_int_equal(gs_store_job_insert(st, &a, &s3, &err), GS_EEXIST); /* same id */
    struct gs_store_job dup = job("z", "k1");
    assert_int_equal(gs_store_job_insert(st, &dup, &s3, &err), GS_EEXIST); /* same key */
    assert_true(s1 < s2);
    /* b ends: done rows leave the live set */
    b.seq = s2;
    b.state = "done";
    b.outcome = "failed";
    b.exit_code = 7;
    b.attempts = 1;
    b.end = 5000;
    b.first_start = b.start = 2000;
    b.last_ckpt = GS_TIME_NONE;
    b.placement = "node-1:0,node-1:1";
    assert_int_equal(gs_store_job_update(st, &b, &err), 0);
    assert_int_equal(gs_store_commit(st, &err), 0);
    struct seen live = { 0 };
    assert_int_equal(gs_store_jobs_live(st, collect, &live), 0);
    assert_int_equal(live.n, 2);
    assert_string_equal(live.ids[0], "a");
    assert_string_equal(live.ids[1], "c");
    struct seen one = { 0 };
    assert_int_equal(gs_store_job_by_id(st, "b", collect, &one), 0);
    assert_string_equal(one.state, "done");
    assert_int_equal(one.exit_code, 7);
    assert_int_equal(one.end, 5000);
    assert_string_equal(one.placement, "node-1:0,node-1:1");
    assert_int_equal(gs_store_job_by_id(st, "nope", collect, &one), GS_ENOENT);
    struct seen byk = { 0 };
    assert_int_equal(gs_store_job_by_idem(st, "k1", collect, &byk), 0);
    assert_int_equal(byk.seq, s1);
    struct seen failed = { 0 };
    assert_int_equal(gs_store_jobs_list(st, "failed", NULL, 0, 10, collect, &failed), 0);
    assert_int_equal(failed.n, 1);
    struct seen after = { 0 };
    assert_int_equal(gs_store_jobs_list(st, NULL, "a", s1, 10, collect, &after), 0);
    assert_int_equal(after.n, 2); /* b and c, after a's seq */
    gs_store_close(st);
}

/* Completed jobs come in the order of their last "end" event, not of
 * submission: x (seq 1) ends after y (seq 2), and x's earlier attempt's end
 * does not count; a failed job (z) is left out. */
static void test_completed_order_and_event_last(void **state)
{
    (void)state;
    struct gs_store *st = open_rw();
    struct gs_error err;
    int64_t sx, sy, sz;
    assert_int_equal(gs_store_begin(st, &err), 0);
    struct gs_store_job x = job("x", NULL), y = job("y", NULL), z = job("z", NULL);
    assert_int_equal(gs_store_job_insert(st, &x, &sx, &err), 0);
    assert_int_equal(gs_store_job_insert(st, &y, &sy, &err), 0);
    assert_int_equal(gs_store_job_insert(st, &z, &sz, &err), 0);
    assert_int_equal(gs_store_event(st, 2000, sx, "end", "exit 143", &err), 0); /* preempted */
    assert_int_equal(gs_store_event(st, 3000, sy, "end", "exit 0", &err), 0);
    assert_int_equal(gs_store_event(st, 3500, sz, "end", "exit 1", &err), 0);
    assert_int_equal(gs_store_event(st, 4000, sx, "end", "exit 0", &err), 0);
    assert_int_equal(gs_store_event(st, 4100, 0, "node_down", "node-1: fan", &err), 0);
    assert_int_equal(gs_store_event(st, 4200, 0, "node_down", "node-10: psu", &err), 0);
    assert_int_equal(gs_store_event(st, 4300, 0, "node_down", "node-1: fan again", &err), 0);
    struct gs_store_job *rows[3] = { &x, &y, &z };
    int64_t seqs[3] = { sx, sy, sz };
    for (int i = 0; i < 3; i++) {
        rows[i]->seq = seqs[i];
        rows[i]->state = "done";
        rows[i]->outcome = i == 2 ? "failed" : "completed";
        rows[i]->first_start = rows[i]->start = 1500;
        rows[i]->end = 4000;
        rows[i]->last_ckpt = GS_TIME_NONE;
        rows[i]->exit_code = i == 2;
        assert_int_equal(gs_store_job_update(st, rows[i], &err), 0);
    }
    assert_int_equal(gs_store_commit(st, &err), 0);
    struct seen done = { 0 };
    assert_int_equal(gs_store_jobs_completed(st, collect, &done), 0);
    assert_int_equal(done.n, 2);
    assert_string_equal(done.ids[0], "y");
    assert_string_equal(done.ids[1], "x");
    char buf[64];
    assert_int_equal(gs_store_event_last(st, "node_down", "node-1: ", buf, sizeof buf), 0);
    assert_string_equal(buf, "node-1: fan again"); /* the latest; node-10 does not match */
    assert_int_equal(gs_store_event_last(st, "node_down", "node-2: ", buf, sizeof buf),
                     GS_ENOENT);
    gs_store_close(st);
}

static void test_rollback_and_reopen(void **state)
{
    (void)state;
    struct gs_store *st = open_rw();
    struct gs_error err;
    int64_t s;
    assert_int_equal(gs_store_begin(st, &err), 0);
    struct gs_store_job a = job("kept", NULL), b = job("lost", NULL);
    assert_int_equal(gs_store_job_insert(st, &a, &s, &err), 0);
    assert_int_equal(gs_store_meta_set(st, "next_id", 9, &err), 0);
    assert_int_equal(gs_store_commit(st, &err), 0);
    assert_int_equal(gs_store_begin(st, &err), 0);
    assert_int_equal(gs_store_job_insert(st, &b, &s, &err), 0);
    gs_store_rollback(st);
    gs_store_close(st);
    /* a second handle (what a restarted daemon opens) sees the commit only */
    st = open_rw();
    struct seen live = { 0 };
    assert_int_equal(gs_store_jobs_live(st, collect, &live), 0);
    assert_int_equal(live.n, 1);
    assert_string_equal(live.ids[0], "kept");
    int64_t v;
    assert_int_equal(gs_store_meta_get(st, "next_id", &v), 0);
    assert_int_equal(v, 9);
    assert_int_equal(gs_store_meta_get(st, "absent", &v), GS_ENOENT);
    gs_store_close(st);
}

static void test_schema_version(void **state)
{
    (void)state;
    struct gs_store *st = open_rw();
    gs_store_close(st);
    /* a file from a newer daemon is refused */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'PRAGMA user_version = %d' 2>/dev/null", path,
             GS_STORE_SCHEMA + 1);
    if (system(cmd) != 0)
        skip();
    struct gs_error err = { 0 };
    assert_null(gs_store_open(path, 1, 0, &err));
    assert_int_equal(err.code, GS_EINVAL);
    assert_non_null(strstr(err.msg, "newer"));
}

/* The v1 schema exactly as the daemon of GS_STORE_SCHEMA 1 created it
 * (store.c's migrations[0] then; frozen here, not taken from store.c, so a
 * change to the first step cannot pass unnoticed). */
#define V1_DDL \
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);" \
    "CREATE TABLE jobs(" \
    " seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, idem TEXT UNIQUE," \
    " team TEXT NOT NULL, user TEXT NOT NULL, gpus INTEGER NOT NULL," \
    " request TEXT NOT NULL, state TEXT NOT NULL, outcome TEXT," \
    " submit_ms INTEGER NOT NULL, first_start_ms INTEGER, start_ms INTEGER," \
    " end_ms INTEGER, ckpt_ms INTEGER, attempts INTEGER NOT NULL DEFAULT 0," \
    " runs INTEGER NOT NULL DEFAULT 0, preemptions INTEGER NOT NULL DEFAULT 0," \
    " work_ms INTEGER NOT NULL DEFAULT 0, lost_ms INTEGER NOT NULL DEFAULT 0," \
    " lost_gpu_s REAL NOT NULL DEFAULT 0, exit_code INTEGER, placement TEXT," \
    " sup_pid INTEGER, sup_start INTEGER, stop INTEGER NOT NULL DEFAULT 0," \
    " alloc_milli INTEGER NOT NULL DEFAULT 0, alloc_mem INTEGER NOT NULL DEFAULT 0," \
    " engine TEXT);" \
    "CREATE INDEX jobs_live ON jobs(seq) WHERE state <> 'done';" \
    "CREATE INDEX jobs_team ON jobs(team, seq);" \
    "CREATE TABLE events(seq INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL," \
    " job INTEGER, kind TEXT NOT NULL, detail TEXT);"

/* Write the journal file at `path` with `sql` (an old schema and rows). */
static void make_journal(const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* The v1 schema with one job row and a meta key. */
static const char v1_sql[] = V1_DDL
    "INSERT INTO jobs(id, team, user, gpus, request, state, submit_ms)"
    " VALUES('old1', 'a', 'u', 2, '{}', 'pending', 500);"
    "INSERT INTO meta VALUES('next_id', 7);"
    "PRAGMA user_version = 1;";

struct hist {
    int ns, nw;
    gs_time t[8], start[8];
    int k[8], gpus[8];
};

static void on_sample(void *arg, const struct gs_store_sample *x)
{
    struct hist *h = arg;
    if (h->ns < 8) {
        h->t[h->ns] = x->t;
        h->k[h->ns] = x->k;
    }
    h->ns++;
}

static void on_wait(void *arg, gs_time start, gs_time wait, int gpus)
{
    struct hist *h = arg;
    (void)wait;
    if (h->nw < 8) {
        h->start[h->nw] = start;
        h->gpus[h->nw] = gpus;
    }
    h->nw++;
}

/* A v1 journal opens, migrates (its rows kept) and then keeps the
 * dashboard's history, bounded: 5 samples with keep 3 leave the newest 3
 * (t = 3000, 4000, 5000); 4 waits with keep 2 the last 2. */
static void test_v1_migrates_history(void **state)
{
    (void)state;
    make_journal(v1_sql);
    struct gs_store *st = open_rw();
    struct seen s = { 0 };
    assert_int_equal(gs_store_job_by_id(st, "old1", collect, &s), 0);
    assert_string_equal(s.state, "pending");
    int64_t v = 0;
    assert_int_equal(gs_store_meta_get(st, "next_id", &v), 0);
    assert_int_equal(v, 7);
    struct gs_error err = { 0 };
    assert_int_equal(gs_store_begin(st, &err), 0);
    for (int i = 1; i <= 5; i++) {
        struct gs_store_sample x = { .t = 1000 * i, .util = 0.1 * i, .sched = i, .k = 4 + i };
        assert_int_equal(gs_store_sample_add(st, &x, 3, &err), 0);
    }
    for (int i = 1; i <= 4; i++)
        assert_int_equal(gs_store_wait_add(st, 100 * i, 10, i, 2, &err), 0);
    assert_int_equal(gs_store_commit(st, &err), 0);
    gs_store_close(st);
    st = open_rw(); /* a second open: nothing to migrate, the history is there */
    struct hist h = { 0 };
    assert_int_equal(gs_store_history(st, on_sample, on_wait, &h), 0);
    assert_int_equal(h.ns, 3);
    assert_int_equal(h.t[0], 3000);
    assert_int_equal(h.t[2], 5000);
    assert_int_equal(h.k[2], 9);
    assert_int_equal(h.nw, 2);
    assert_int_equal(h.start[0], 300);
    assert_int_equal(h.gpus[1], 4);
    gs_store_close(st);
}

struct evs {
    int n;
    int64_t seq[4];
    char kinds[64];
};

static int on_ev(void *arg, int64_t seq, gs_time t, const char *kind, const char *detail)
{
    struct evs *e = arg;
    (void)t;
    (void)detail;
    if (e->n < 4)
        e->seq[e->n] = seq;
    e->n++;
    strncat(e->kinds, kind, sizeof e->kinds - strlen(e->kinds) - 2);
    strcat(e->kinds, " ");
    return 0;
}

/* A schema 1 journal (V1_DDL) opens, migrates, and its events read by job. */
static void test_migrate_v1(void **state)
{
    (void)state;
    make_journal(V1_DDL "INSERT INTO jobs(id, team, user, gpus, request, state, submit_ms)"
                        " VALUES('a', 't', 'u', 1, '{}', 'pending', 5);"
                        "INSERT INTO events(time_ms, job, kind) VALUES(6, 1, 'start'),"
                        " (7, NULL, 'node_down'), (8, 1, 'end');"
                        "PRAGMA user_version = 1;");
    struct gs_store *st = open_rw();
    struct evs e = { 0 };
    assert_int_equal(gs_store_job_events(st, 1, 0, 10, on_ev, &e), 0);
    assert_int_equal(e.n, 2); /* the node's event (job NULL) is not the job's */
    assert_string_equal(e.kinds, "start end ");
    assert_int_equal(e.seq[0], 1);
    assert_int_equal(e.seq[1], 3);
    struct evs f = { 0 }; /* paged: after the first, at most 1 */
    assert_int_equal(gs_store_job_events(st, 1, 1, 1, on_ev, &f), 0);
    assert_string_equal(f.kinds, "end ");
    gs_store_close(st);
    sqlite3 *db;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name ="
                                            " 'events_job'", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 1); /* the migration made the index */
    sqlite3_finalize(q);
    sqlite3_close(db);
}

static void test_bad_path(void **state)
{
    (void)state;
    struct gs_error err = { 0 };
    assert_null(gs_store_open("/nonexistent/dir/j.db", 1, 0, &err));
    assert_int_equal(err.code, GS_EIO);
}

/* The v1 schema as main's daemon created it (migrations[0] of schema 1),
 * with one ended job, then opened by this store: migrated to the current
 * schema, the job intact, launch_error NULL; a launch_error written is
 * read back after a reopen. */
static const char v1_schema[] = V1_DDL
    "INSERT INTO jobs(id, team, user, gpus, request, state, outcome, submit_ms, attempts,"
    " exit_code) VALUES('old', 'a', 'u', 2, '{}', 'done', 'failed', 1000, 1, 127);"
    "PRAGMA user_version = 1;";

struct got {
    char id[16], outcome[16], launch_error[128];
    int exit_code, attempts, has_error;
    int64_t seq;
};

static int on_got(void *arg, const struct gs_store_job *j)
{
    struct got *g = arg;
    snprintf(g->id, sizeof g->id, "%s", j->id);
    snprintf(g->outcome, sizeof g->outcome, "%s", j->outcome ? j->outcome : "");
    g->has_error = j->launch_error != NULL;
    snprintf(g->launch_error, sizeof g->launch_error, "%s",
             j->launch_error ? j->launch_error : "");
    g->exit_code = j->exit_code;
    g->attempts = j->attempts;
    g->seq = j->seq;
    return 1;
}

static void test_v1_migrates(void **state)
{
    (void)state;
    make_journal(v1_schema);
    struct gs_store *st = open_rw();
    struct got g = { 0 };
    sqlite3 *db;
    assert_int_equal(gs_store_job_by_id(st, "old", on_got, &g), 1);
    assert_string_equal(g.outcome, "failed");
    assert_int_equal(g.exit_code, 127);
    assert_int_equal(g.attempts, 1);
    assert_int_equal(g.has_error, 0);
    struct gs_store_job j = job("old", NULL);
    j.seq = g.seq;
    j.state = "done";
    j.outcome = "failed";
    j.exit_code = 127;
    j.attempts = 1;
    j.launch_error = "exec /nonexistent: No such file or directory";
    struct gs_error err = { 0 };
    assert_int_equal(gs_store_begin(st, &err), 0);
    assert_int_equal(gs_store_job_update(st, &j, &err), 0);
    assert_int_equal(gs_store_commit(st, &err), 0);
    gs_store_close(st);
    st = open_rw();
    memset(&g, 0, sizeof g);
    assert_int_equal(gs_store_job_by_id(st, "old", on_got, &g), 1);
    assert_string_equal(g.launch_error, "exec /nonexistent: No such file or directory");
    gs_store_close(st);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(s, 0), GS_STORE_SCHEMA); /* migrated to this one */
    sqlite3_finalize(s);
    sqlite3_close(db);
}

struct eta_seen {
    int n;
    gs_time est, cal, p90;
    char basis[16];
    char aux[64];
};

static int eta_collect(void *arg, const struct gs_store_job *j)
{
    struct eta_seen *s = arg;
    s->n++;
    s->est = j->eta_est;
    s->cal = j->eta_cal;
    s->p90 = j->eta_p90;
    snprintf(s->basis, sizeof s->basis, "%s", j->eta_basis ? j->eta_basis : "(null)");
    snprintf(s->aux, sizeof s->aux, "%s", j->eta_aux ? j->eta_aux : "(null)");
    return 0;
}

/* A version 1 journal opens and migrates: its row keeps no promise (NULLs),
 * then one is recorded and read back; a new job starts without one. */
static void test_v1_migrates_eta(void **state)
{
    (void)state;
    make_journal(v1_schema);
    struct gs_store *st = open_rw();
    struct eta_seen s = { 0 };
    assert_int_equal(gs_store_job_by_id(st, "old", eta_collect, &s), 0);
    assert_int_equal(s.n, 1);
    assert_true(s.est == GS_TIME_NONE && s.cal == GS_TIME_NONE && s.p90 == GS_TIME_NONE);
    assert_string_equal(s.basis, "(null)");
    assert_string_equal(s.aux, "(null)");
    struct gs_error err = { 0 };
    int64_t seq;
    struct gs_store_job j = job("new", NULL);
    assert_int_equal(gs_store_begin(st, &err), 0);
    assert_int_equal(gs_store_job_insert(st, &j, &seq, &err), 0);
    assert_int_equal(gs_store_job_set_eta(st, 1, 5000, 6000, GS_TIME_NONE, "profile",
                                          "- 2 -1 5000 - - - -", &err), 0);
    assert_int_equal(gs_store_commit(st, &err), 0);
    memset(&s, 0, sizeof s);
    assert_int_equal(gs_store_job_by_id(st, "old", eta_collect, &s), 0);
    assert_true(s.est == 5000 && s.cal == 6000 && s.p90 == GS_TIME_NONE);
    assert_string_equal(s.basis, "profile");
    assert_string_equal(s.aux, "- 2 -1 5000 - - - -");
    memset(&s, 0, sizeof s);
    assert_int_equal(gs_store_job_by_seq(st, seq, eta_collect, &s), 0);
    assert_string_equal(s.basis, "(null)");
    gs_store_close(st);
}

struct win_seen {
    int n, slot[4], bound[4];
    gs_time abserr[4];
};

static void on_win_slot(void *arg, int slot, gs_time abserr, int bound)
{
    struct win_seen *w = arg;
    if (w->n < 4) {
        w->slot[w->n] = slot;
        w->abserr[w->n] = abserr;
        w->bound[w->n] = bound;
    }
    w->n++;
}

/* A v1 journal opens and migrates to a schema with the daemon's ETA
 * calibration window: empty at first; slots set (one replaced) read back
 * in slot order after a reopen. */
static void test_v1_migrates_eta_window(void **state)
{
    (void)state;
    make_journal(v1_sql);
    struct gs_store *st = open_rw();
    struct win_seen w = { 0 };
    assert_int_equal(gs_store_eta_window(st, on_win_slot, &w), 0);
    assert_int_equal(w.n, 0);
    struct gs_error err = { 0 };
    assert_int_equal(gs_store_begin(st, &err), 0);
    assert_int_equal(gs_store_eta_slot_set(st, 1, 7000, -1, &err), 0);
    assert_int_equal(gs_store_eta_slot_set(st, 0, 3000, 1, &err), 0);
    assert_int_equal(gs_store_eta_slot_set(st, 1, 9000, 0, &err), 0); /* replaces slot 1 */
    assert_int_equal(gs_store_commit(st, &err), 0);
    gs_store_close(st);
    st = open_rw();
    assert_int_equal(gs_store_eta_window(st, on_win_slot, &w), 0);
    assert_int_equal(w.n, 2);
    assert_true(w.slot[0] == 0 && w.abserr[0] == 3000 && w.bound[0] == 1);
    assert_true(w.slot[1] == 1 && w.abserr[1] == 9000 && w.bound[1] == 0);
    struct seen s = { 0 };
    assert_int_equal(gs_store_job_by_id(st, "old1", collect, &s), 0); /* its rows kept */
    assert_string_equal(s.state, "pending");
    gs_store_close(st);
}

struct cal_seen {
    int nkey, nslot, key[2], win[3], slot[3];
    double level[2];
    char cursors[2][32];
    gs_time v[3];
};

static void on_cal_key(void *arg, int key, double level, const char *cursors)
{
    struct cal_seen *c = arg;
    if (c->nkey < 2) {
        c->key[c->nkey] = key;
        c->level[c->nkey] = level;
        snprintf(c->cursors[c->nkey], sizeof c->cursors[0], "%s", cursors);
    }
    c->nkey++;
}

static void on_cal_slot(void *arg, int win, int slot, gs_time v)
{
    struct cal_seen *c = arg;
    if (c->nslot < 3) {
        c->win[c->nslot] = win;
        c->slot[c->nslot] = slot;
        c->v[c->nslot] = v;
    }
    c->nslot++;
}

/* A v1 journal opens and migrates to a schema with the calibration of new
 * promises (tables eta_cal_key, eta_cal_slot): empty at first; key rows
 * (one replaced, its level kept exactly) and slots read back in key, then
 * (win, slot) order after a reopen. */
static void test_v1_migrates_eta_cal(void **state)
{
    (void)state;
    make_journal(v1_sql);
    struct gs_store *st = open_rw();
    struct cal_seen c = { 0 };
    assert_int_equal(gs_store_eta_cal_load(st, on_cal_key, on_cal_slot, &c), 0);
    assert_true(c.nkey == 0 && c.nslot == 0);
    struct gs_error err = { 0 };
    assert_int_equal(gs_store_begin(st, &err), 0);
    assert_int_equal(gs_store_eta_cal_key_set(st, 9, 0.5, "x", &err), 0);
    assert_int_equal(gs_store_eta_cal_key_set(st, 3, 0.9045, "1:1 0:0", &err), 0);
    assert_int_equal(gs_store_eta_cal_key_set(st, 9, 0.1 + 0.2, "2:2", &err), 0);
    assert_int_equal(gs_store_eta_cal_slot_set(st, 81, 1, -5, &err), 0);
    assert_int_equal(gs_store_eta_cal_slot_set(st, 81, 0, 7, &err), 0);
    assert_int_equal(gs_store_eta_cal_slot_set(st, 27, 0, 123456789012LL, &err), 0);
    assert_int_equal(gs_store_eta_cal_slot_set(st, 81, 1, 8, &err), 0); /* replaces */
    assert_int_equal(gs_store_commit(st, &err), 0);
    gs_store_close(st);
    st = open_rw();
    assert_int_equal(gs_store_eta_cal_load(st, on_cal_key, on_cal_slot, &c), 0);
    assert_true(c.nkey == 2 && c.nslot == 3);
    assert_true(c.key[0] == 3 && c.level[0] == 0.9045);
    assert_string_equal(c.cursors[0], "1:1 0:0");
    assert_true(c.key[1] == 9 && c.level[1] == 0.1 + 0.2);
    assert_string_equal(c.cursors[1], "2:2");
    assert_true(c.win[0] == 27 && c.slot[0] == 0 && c.v[0] == 123456789012LL);
    assert_true(c.win[1] == 81 && c.slot[1] == 0 && c.v[1] == 7);
    assert_true(c.win[2] == 81 && c.slot[2] == 1 && c.v[2] == 8);
    gs_store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_insert_update_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rollback_and_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_completed_order_and_event_last, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_migrates_history, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_migrates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_migrates_eta, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_migrates_eta_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_migrates_eta_cal, setup, teardown),
        cmocka_unit_test(test_bad_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

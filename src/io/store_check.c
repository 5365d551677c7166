/* store_check.c - a journal's health and its online backup (store.h), each
 * on a connection of its own beside the daemon's. */
#include "io/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const state_names[] = { "pending", "starting", "running", "stopping",
                                           "done" };

/* Count the jobs by state and read the last sequences; 0 or -1 (h->check
 * says why). */
static int health_counts(sqlite3 *db, struct gs_store_health *h)
{
    sqlite3_stmt *s;
    const char *q = "SELECT state, count(*), max(seq) FROM jobs GROUP BY state";
    if (sqlite3_prepare_v2(db, q, -1, &s, NULL) != SQLITE_OK)
        goto fail;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *st = (const char *)sqlite3_column_text(s, 0);
        int k = 5;
        for (int i = 0; i < 5; i++)
            if (st && !strcmp(st, state_names[i]))
                k = i;
        h->jobs[k] += sqlite3_column_int64(s, 1);
        if (sqlite3_column_int64(s, 2) > h->last_seq)
            h->last_seq = sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        goto fail;
    if (sqlite3_prepare_v2(db, "SELECT coalesce(max(seq), 0) FROM events", -1, &s, NULL) !=
        SQLITE_OK)
        goto fail;
    if (sqlite3_step(s) == SQLITE_ROW)
        h->last_event = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return 0;
fail:
    snprintf(h->check, sizeof h->check, "the tables cannot be read: %s", sqlite3_errmsg(db));
    return -1;
}

static int quick_check(sqlite3 *db, struct gs_store_health *h)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(8)", -1, &s, NULL) != SQLITE_OK) {
        snprintf(h->check, sizeof h->check, "%s", sqlite3_errmsg(db));
        return -1;
    }
    size_t w = 0, n = sizeof h->check;
    int rc, rows = 0, ok = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        ok = rows++ == 0 && t && !strcmp(t, "ok");
        if (w < n)
            w += (size_t)snprintf(h->check + w, n - w, "%s%s", w ? "; " : "", t ? t : "?");
    }
    if (rc != SQLITE_DONE && w < n) {
        snprintf(h->check + w, n - w, "%s%s", w ? "; " : "", sqlite3_errmsg(db));
        ok = 0;
    }
    sqlite3_finalize(s);
    return ok && rows == 1 ? 0 : -1;
}

int gs_store_health_of(const char *path, struct gs_store_health *h, struct gs_error *err)
{
    memset(h, 0, sizeof *h);
    struct stat sb;
    if (stat(path, &sb) < 0) {
        h->size = -1;
        snprintf(h->check, sizeof h->check, "missing (%s)", strerror(errno));
        return GS_EINVAL;
    }
    h->size = (int64_t)sb.st_size;
    if (sb.st_size == 0) {
        snprintf(h->check, sizeof h->check, "empty: 0 bytes, no database");
        return GS_EINVAL;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        gs_errorf(err, GS_EIO, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return GS_EIO;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            h->schema = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
    }
    int rc = quick_check(db, h) == 0 && health_counts(db, h) == 0 ? 0 : GS_EINVAL;
    if (rc == 0 && h->schema != GS_STORE_SCHEMA) {
        snprintf(h->check, sizeof h->check, "schema %d, this daemon writes %d%s", h->schema,
                 GS_STORE_SCHEMA, h->schema > GS_STORE_SCHEMA ? " (newer: refused)" : "");
        rc = h->schema > GS_STORE_SCHEMA || h->schema == 0 ? GS_EINVAL : 0;
    }
    h->ok = rc == 0;
    sqlite3_close(db);
    return rc;
}

/* Run the backup from `from` into `to` in steps; SQLITE_DONE when whole. */
static int backup_steps(sqlite3 *to, sqlite3 *from)
{
    sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
    if (!b)
        return sqlite3_errcode(to);
    /* one step for all pages: one read transaction, so one commit's state
       (in steps, every commit of the writer would restart the copy) */
    int rc, tries = 0;
    do {
        rc = sqlite3_backup_step(b, -1);
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
            sqlite3_sleep(5);
    } while ((rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && ++tries < 2000);
    sqlite3_backup_finish(b);
    return rc;
}

static int64_t count_jobs(sqlite3 *db)
{
    sqlite3_stmt *s;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM jobs", -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            n = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    return n;
}

static int fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int gs_store_backup(const char *src, const char *dest, int64_t *jobs, struct gs_error *err)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", dest) >= (int)sizeof tmp)
        return gs_errorf(err, GS_EINVAL, "backup: path too long");
    if (access(dest, F_OK) == 0)
        return gs_errorf(err, GS_EEXIST, "backup: %s exists; give a new file", dest);
    unlink(tmp);
    sqlite3 *from = NULL, *to = NULL;
    int rc = sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_open_v2(tmp, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(from, 5000);
        rc = backup_steps(to, from);
    }
    int out = 0;
    if (rc != SQLITE_DONE) {
        sqlite3 *bad = to && sqlite3_errcode(to) != SQLITE_OK ? to : from;
        out = gs_errorf(err, GS_EIO, "backup %s -> %s: %s", src, dest,
                        bad ? sqlite3_errmsg(bad) : "cannot open");
    } else {
        *jobs = count_jobs(to);
    }
    sqlite3_close(from);
    if (sqlite3_close(to) != SQLITE_OK && out == 0)
        out = gs_errorf(err, GS_EIO, "backup %s: close failed", tmp);
    if (out == 0 && (fsync_path(tmp) < 0 || rename(tmp, dest) < 0))
        out = gs_errorf(err, GS_EIO, "backup %s: %s", dest, strerror(errno));
    if (out < 0)
        unlink(tmp);
    return out;
}

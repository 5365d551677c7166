/* test_store_check.c - a journal's health and its online backup
 * (io/store_check.c), and the damage classes of gs_store_open and
 * gs_store_quick_check (io/store.c), on real files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/store.h"

static char dir[64], path[96], copy[96];

static void rm_db(const char *p)
{
    char q[160];
    const char *sfx[] = { "", "-wal", "-shm", "-journal", ".tmp" };
    for (int i = 0; i < 5; i++) {
        snprintf(q, sizeof q, "%s%s", p, sfx[i]);
        unlink(q);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gscheckXXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/j.db", dir);
    snprintf(copy, sizeof copy, "%s/copy.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_db(path);
    rm_db(copy);
    rmdir(dir);
    return 0;
}

/* A journal with `n` jobs, the first `done` of them done. */
static struct gs_store *fill(int n, int done)
{
    struct gs_error err = { 0 };
    struct gs_store *st = gs_store_open(path, 1, 0, &err);
    assert_non_null(st);
    assert_int_equal(gs_store_begin(st, &err), 0);
    for (int i = 0; i < n; i++) {
        char id[16];
        snprintf(id, sizeof id, "j%d", i);
        struct gs_store_job j = { .id = id, .team = "a", .user = "u", .gpus = 1,
                                  .request = "{}", .state = "pending", .submit = 1000 };
        int64_t seq;
        assert_int_equal(gs_store_job_insert(st, &j, &seq, &err), 0);
        if (i < done) {
            j.seq = seq;
            j.state = "done";
            j.outcome = "completed";
            j.exit_code = 0;
            j.first_start = j.start = j.end = j.last_ckpt = GS_TIME_NONE;
            assert_int_equal(gs_store_job_update(st, &j, &err), 0);
        }
    }
    assert_int_equal(gs_store_event(st, 1, 1, "start", NULL, &err), 0);
    assert_int_equal(gs_store_commit(st, &err), 0);
    return st;
}

static void test_health_counts(void **state)
{
    (void)state;
    struct gs_store *st = fill(5, 2);
    char what[200];
    assert_int_equal(gs_store_quick_check(st, what, sizeof what), 0);
    assert_string_equal(what, "ok");
    struct gs_store_health h;
    struct gs_error err = { 0 };
    assert_int_equal(gs_store_health_of(path, &h, &err), 0);
    assert_true(h.ok);
    assert_int_equal(h.schema, GS_STORE_SCHEMA);
    assert_int_equal(h.jobs[0], 3); /* pending */
    assert_int_equal(h.jobs[4], 2); /* done */
    assert_int_equal(h.last_seq, 5);
    assert_int_equal(h.last_event, 1);
    gs_store_close(st);
}

static void test_health_missing_empty(void **state)
{
    (void)state;
    struct gs_store_health h;
    struct gs_error err = { 0 };
    assert_int_equal(gs_store_health_of(path, &h, &err), GS_EINVAL);
    assert_int_equal(h.size, -1);
    assert_non_null(strstr(h.check, "missing"));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(gs_store_health_of(path, &h, &err), GS_EINVAL);
    assert_int_equal(h.size, 0);
    assert_non_null(strstr(h.check, "empty"));
}

/* A file whose header is not SQLite's: refused as damaged (GS_EINVAL),
 * with SQLite's words, by open and by health. */
static void test_damaged_header(void **state)
{
    (void)state;
    gs_store_close(fill(3, 0));
    struct gs_error err = { 0 };
    /* close checkpointed everything into the main file; break its header */
    FILE *f = fopen(path, "r+");
    assert_non_null(f);
    fputs("this is not sqlite", f);
    fclose(f);
    char wal[128];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    struct gs_store *st = gs_store_open(path, 1, 0, &err);
    assert_null(st);
    assert_int_equal(err.code, GS_EINVAL);
    assert_non_null(strstr(err.msg, "not a database"));
    struct gs_store_health h;
    assert_int_equal(gs_store_health_of(path, &h, &err), GS_EINVAL);
    assert_false(h.ok);
}

/* The backup is the last commit: a transaction open on the writer while it
 * runs is not in the copy; an existing target is refused. */
static void test_backup_consistent(void **state)
{
    (void)state;
    struct gs_store *st = fill(4, 1);
    struct gs_error err = { 0 };
    assert_int_equal(gs_store_begin(st, &err), 0);
    struct gs_store_job j = { .id = "uncommitted", .team = "a", .user = "u", .gpus = 1,
                              .request = "{}", .state = "pending", .submit = 1000 };
    int64_t seq;
    assert_int_equal(gs_store_job_insert(st, &j, &seq, &err), 0);
    int64_t jobs = -1;
    assert_int_equal(gs_store_backup(path, copy, &jobs, &err), 0);
    assert_int_equal(jobs, 4);
    assert_int_equal(gs_store_commit(st, &err), 0);
    struct gs_store_health h;
    assert_int_equal(gs_store_health_of(copy, &h, &err), 0);
    assert_int_equal(h.jobs[0] + h.jobs[4], 4);
    assert_int_equal(gs_store_backup(path, copy, &jobs, &err), GS_EEXIST);
    gs_store_close(st);
    /* the copy opens as a journal and holds the committed rows */
    struct gs_store *c = gs_store_open(copy, 1, 0, &err);
    assert_non_null(c);
    assert_int_equal(gs_store_job_by_id(c, "j3", NULL, NULL), 1);
    assert_int_equal(gs_store_job_by_id(c, "uncommitted", NULL, NULL), GS_ENOENT);
    gs_store_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_health_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_health_missing_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backup_consistent, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

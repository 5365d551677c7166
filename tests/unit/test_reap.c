/* test_reap.c - daemon/reap.c: descendants found through /proc, a lost
 * supervisor's recorded processes killed only while their start times
 * match (a reused pid is left alone), and daemon/runas.c's environment. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/reap.c"
#include "daemon/runas.c"

static pid_t sleeper(void)
{
    pid_t p = fork();
    if (p == 0) {
        execlp("sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    return p;
}

static int64_t start_of(pid_t p)
{
    struct pstat ps;
    return read_stat(p, &ps) == 0 ? ps.start : -1;
}

static int dead(pid_t p)
{
    int st;
    return waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

static void descendants_of_self(void **state)
{
    (void)state;
    pid_t a = sleeper(), b = sleeper(), self = getpid();
    struct gsd_pid out[16];
    int n = gsd_reap_descendants(&self, 1, out, 16);
    int seen = 0;
    for (int i = 0; i < n; i++)
        seen += (out[i].pid == a && out[i].start == start_of(a)) + (out[i].pid == b);
    assert_int_equal(seen, 2); /* both children, with their start times */
    kill(a, SIGKILL);
    kill(b, SIGKILL);
    waitpid(a, NULL, 0);
    waitpid(b, NULL, 0);
}

static void lost_kills_matching_start_only(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_reap.XXXXXX";
    assert_non_null(mkdtemp(dir));
    pid_t a = sleeper(), b = sleeper();
    /* a recorded with its real start time, b with another one (as if its
     * pid had been reused by a process started later) */
    struct gsd_pid rec[2] = { { a, start_of(a), 0 }, { b, start_of(b) + 1, 0 } };
    assert_int_equal(gsd_reap_record(dir, rec, 2), 0);
    assert_int_equal(gsd_reap_lost(dir, 1000), 1);
    assert_true(dead(a));
    assert_int_equal(kill(b, 0), 0); /* left alone */
    kill(b, SIGKILL);
    waitpid(b, NULL, 0);
    /* nothing recorded: nothing killed */
    char path[64];
    snprintf(path, sizeof path, "%s/pids", dir);
    unlink(path);
    assert_int_equal(gsd_reap_lost(dir, 10), 0);
    rmdir(dir);
}

static void env_is_request_plus_account(void **state)
{
    (void)state;
    struct gsd_runas ra = { .uid = 65534, .gid = 65534, .name = "nobody",
                            .home = "/nonexistent", .shell = "/bin/sh" };
    char *base[] = { "A=1", "USER=forged", "PATH=/opt/bin", NULL };
    char **owned = NULL, **env = gsd_runas_env(base, &ra, &owned);
    assert_non_null(env);
    const char *want[] = { "A=1", "PATH=/opt/bin", "USER=nobody", "LOGNAME=nobody",
                           "HOME=/nonexistent", "SHELL=/bin/sh", NULL };
    for (int i = 0; want[i]; i++) {
        assert_non_null(env[i]);
        assert_string_equal(env[i], want[i]);
    }
    assert_null(env[6]); /* the request's PATH wins; USER is the account's */
    gsd_runas_env_free(env, owned);
}

static void env_file_round_trip(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_reap.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *env[] = { "A=1", "B=two words", "C=", NULL };
    assert_int_equal(gsd_env_write(dir, env, NULL), 0);
    char **back = NULL, *buf = NULL;
    assert_int_equal(gsd_env_read(dir, &back, &buf, NULL), 0);
    for (int i = 0; env[i]; i++)
        assert_string_equal(back[i], env[i]);
    assert_null(back[3]);
    free(back);
    free(buf);
    char path[64];
    snprintf(path, sizeof path, "%s/env", dir);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    unlink(path);
    rmdir(dir);
}

static void unknown_user_refused(void **state)
{
    (void)state;
    struct gsd_runas ra;
    struct gs_error err;
    assert_int_equal(gsd_runas_resolve("gs-no-such-user-xyz", &ra, &err), GS_EINVAL);
    assert_string_equal(err.msg, "user 'gs-no-such-user-xyz' does not exist");
    assert_int_equal(gsd_runas_resolve("-", &ra, &err), 0);
    assert_int_equal((int)ra.uid, (int)geteuid());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descendants_of_self),
        cmocka_unit_test(lost_kills_matching_start_only),
        cmocka_unit_test(env_is_request_plus_account),
        cmocka_unit_test(env_file_round_trip),
        cmocka_unit_test(unknown_user_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

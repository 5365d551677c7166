/* supervise.c - the per-attempt supervisor of the local backend
 * (backend.h): `gpuschedd --supervise RUNDIR FD OUT ERR CWD USER -- CMD...`.
 *
 * Waits for the daemon's go byte on FD (EOF = the daemon died before it
 * recorded us: write "exit" as never launched and stop), then:
 *  - resolves USER (runas.h; "-" = the daemon's own account) and reads the
 *    job's environment from RUNDIR/env (written by the daemon: the
 *    request's and the scheduler's variables only);
 *  - becomes a child subreaper (reap.h), so every process the job starts
 *    stays its descendant;
 *  - forks the job: own process group, stdin /dev/null, umask 022; OUT and
 *    ERR are "d:PATH" (the daemon's output directory: opened here as root,
 *    then fchown'ed to the user and fchmod'ed 0600) or "u:PATH" (the
 *    request's own file: opened after the privileges are dropped, with the
 *    user's rights, created 0600, relative to the job's directory); then
 *    drops to the user (groups, gid, uid), enters CWD ("-" = the user's
 *    home, or / when the home does not exist) and execs CMD with PATH
 *    searched in the job's environment;
 *  - forwards SIGTERM (and SIGINT) as SIGTERM and SIGUSR2 as SIGKILL to the
 *    job's group and to every descendant, SIGUSR1 to the group only;
 *  - records the job's processes in RUNDIR/pids (reap.h) about once a
 *    second (less often when a /proc scan takes over 10 ms: at most 1% of
 *    a CPU per job);
 *  - once the job and every descendant are gone writes RUNDIR/exit:
 *    "CODE END_MS" (CODE 0..255, 128 + signal; -1 = never launched), then
 *    " T" when it was told to stop (SIGTERM or SIGINT).
 * A launch that fails before the job's program runs (no such user, cwd not
 * accessible, output file, exec) writes the reason to RUNDIR/error and
 * exits 126 (127 when the program is not found), the shell's codes.
 */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/reap.h"
#include "daemon/runas.h"

extern char **environ;

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* RUNDIR/NAME = text, atomically (temporary file + rename, fsync'ed). */
static void put_file(const char *rundir, const char *name, const char *text)
{
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", rundir, name);
    snprintf(path, sizeof path, "%s/%s", rundir, name);
    size_t n = strlen(text);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    if (write(fd, text, n) == (ssize_t)n)
        fsync(fd);
    close(fd);
    rename(tmp, path);
}

/* "CODE END_MS", plus " T" when the supervisor was told to stop by a
 * SIGTERM or SIGINT (the daemon sends it only to jobs it is stopping; from
 * anyone else, e.g. systemd stopping the whole cgroup, it is a stop by the
 * system: backend.h, gsd_backend_exit_told). */
static void write_exit_told(const char *rundir, int code, int told)
{
    char text[64];
    snprintf(text, sizeof text, "%d %lld%s\n", code, wall_ms(), told ? " T" : "");
    put_file(rundir, "exit", text);
}

static void write_exit(const char *rundir, int code)
{
    write_exit_told(rundir, code, 0);
}

/* A launch that failed before the job's program ran. */
static int launch_failed(const char *rundir, const char *msg, int code)
{
    fprintf(stderr, "gpuschedd: launch failed: %s\n", msg);
    put_file(rundir, "error", msg);
    write_exit(rundir, code);
    return 0;
}

/* Open spec ("d:PATH" or "u:PATH") as descriptor fd; `as_user`: the pass
 * (0 = still root: only d: files, chowned to ra; 1 = as the user: u:
 * files).  0, or -1 with msg. */
static int open_out(const char *spec, int fd, int as_user, const struct gsd_runas *ra,
                    struct gs_error *err)
{
    if ((spec[0] == 'u') != as_user)
        return 0;
    const char *path = spec + 2;
    int f = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY | (as_user ? 0 : O_NOFOLLOW),
                 0600);
    if (f < 0)
        return gs_errorf(err, GS_EIO, "output %.100s: %s", path, strerror(errno));
    if (!as_user && (fchown(f, ra->uid, ra->gid) < 0 || fchmod(f, 0600) < 0)) {
        close(f);
        return gs_errorf(err, GS_EIO, "output %.100s: chown: %s", path, strerror(errno));
    }
    if (f != fd) {
        dup2(f, fd);
        close(f);
    }
    return 0;
}

/* The job's working directory: cwd, or the user's home (/ when it does not
 * exist); entered as the user.  0 or -1 with err. */
static int enter_dir(const char *cwd, const struct gsd_runas *ra, struct gs_error *err)
{
    if (strcmp(cwd, "-") != 0) {
        if (chdir(cwd) < 0)
            return gs_errorf(err, GS_EIO, "cwd %.100s: %s (as user %s)", cwd, strerror(errno),
                             ra->name);
        return 0;
    }
    if (chdir(ra->home) == 0)
        return 0;
    return chdir("/") == 0 ? 0 : gs_errorf(err, GS_EIO, "cwd /: %s", strerror(errno));
}

struct jobspec {
    char **cmd, **env;
    const char *out, *err, *cwd;
    const struct gsd_runas *ra;
    int report;               /* write end of the error pipe (CLOEXEC) */
};

/* In the forked child: set up and exec; on failure the reason goes to the
 * error pipe (and the job's stderr when open) and the child exits. */
static void child(const struct jobspec *j)
{
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL); /* the daemon ignores it; the job must not inherit that */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    umask(022);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
    struct gs_error err;
    gs_error_clear(&err);
    int code = 126;
    if (open_out(j->out, 1, 0, j->ra, &err) < 0 || open_out(j->err, 2, 0, j->ra, &err) < 0 ||
        gsd_runas_drop(j->ra, &err) < 0 || enter_dir(j->cwd, j->ra, &err) < 0 ||
        open_out(j->out, 1, 1, j->ra, &err) < 0 || open_out(j->err, 2, 1, j->ra, &err) < 0) {
        /* err is set */
    } else {
        environ = j->env; /* execvp searches the job's PATH */
        execvp(j->cmd[0], j->cmd);
        code = errno == ENOENT ? 127 : 126;
        gs_errorf(&err, GS_EIO, "exec %.100s: %s", j->cmd[0], strerror(errno));
        fprintf(stderr, "gpuschedd: %s\n", err.msg);
    }
    size_t n = strlen(err.msg);
    if (write(j->report, err.msg, n) != (ssize_t)n)
        _exit(code);
    _exit(code);
}

/* Record the job's processes (descendants of this supervisor) in
 * RUNDIR/pids when new ones appeared since the last time. */
static void record(const char *rundir, struct gsd_pid *seen, int *nseen, int cap)
{
    struct gsd_pid now[1024];
    pid_t self = getpid();
    int n = gsd_reap_descendants(&self, 1, now, 1024), added = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < *nseen && (seen[k].pid != now[i].pid || seen[k].start != now[i].start))
            k++;
        if (k == *nseen && *nseen < cap) {
            seen[(*nseen)++] = now[i];
            added = 1;
        }
    }
    if (added)
        gsd_reap_record(rundir, seen, *nseen);
}

/* Signal the job: its group and every descendant. */
static void stop_all(pid_t pid, int sig)
{
    kill(-pid, sig);
    gsd_reap_signal_tree(getpid(), sig, pid);
}

/* Wait for the job and all its descendants, forwarding signals; returns
 * the job's exit code. */
static int watch(pid_t pid, const sigset_t *set, const char *rundir, int *told)
{
    static struct gsd_pid seen[4096];
    int nseen = 0, code = -1, killing = 0;
    *told = 0;
    long long next_record = 0;
    for (;;) {
        struct timespec tick = { 0, 200000000L };
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT) {
            stop_all(pid, SIGTERM);
            *told = 1;
        }
        else if (sig == SIGUSR1)
            kill(-pid, SIGUSR1);
        else if (sig == SIGUSR2)
            killing = 1;
        if (killing) /* again each tick: what forked meanwhile goes too */
            stop_all(pid, SIGKILL);
        int st;
        pid_t w;
        while ((w = waitpid(-1, &st, WNOHANG)) > 0)
            if (w == pid)
                code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (w < 0 && errno == ECHILD) /* no descendant is left */
            return code < 0 ? 137 : code;
        if (mono_ms() >= next_record) {
            /* once a second, or less often when a scan of /proc is slow (a
             * busy host): the scans take at most 1% of a CPU per job */
            long long t0 = mono_ms();
            record(rundir, seen, &nseen, 4096);
            long long dt = mono_ms() - t0;
            next_record = mono_ms() + (dt * 100 > 1000 ? dt * 100 : 1000);
        }
    }
}

/* Fork the job; returns its pid (its pre-exec failure, if any, already
 * reported in RUNDIR) or -1 when it never ran (reported). */
static pid_t start_job(struct jobspec *j, const char *rundir)
{
    int rp[2];
    if (pipe2(rp, O_CLOEXEC) < 0) {
        launch_failed(rundir, "pipe: out of descriptors", 126);
        return -1;
    }
    j->report = rp[1];
    pid_t pid = fork();
    if (pid < 0) {
        close(rp[0]);
        close(rp[1]);
        launch_failed(rundir, "fork of the job failed", 126);
        return -1;
    }
    if (pid == 0)
        child(j);
    setpgid(pid, pid);
    close(rp[1]);
    char msg[GS_ERROR_MSG_MAX + 1];
    ssize_t n; /* EOF at the exec (CLOEXEC), or the child's reason */
    do
        n = read(rp[0], msg, sizeof msg - 1);
    while (n < 0 && errno == EINTR);
    close(rp[0]);
    if (n > 0) {
        msg[n] = '\0';
        fprintf(stderr, "gpuschedd: launch failed: %s\n", msg);
        put_file(rundir, "error", msg);
    }
    return pid;
}

/* After the go byte: resolve, read the environment, start and watch. */
static int run(char **argv)
{
    const char *rundir = argv[2];
    struct gs_error err;
    gs_error_clear(&err);
    static struct gsd_runas ra;
    char **base = NULL, *buf = NULL, **owned = NULL, **env = NULL;
    if (gsd_runas_resolve(argv[7], &ra, &err) < 0 ||
        gsd_env_read(rundir, &base, &buf, &err) < 0)
        return launch_failed(rundir, err.msg, 126);
    env = gsd_runas_env(base, &ra, &owned);
    if (!env) {
        free(base);
        free(buf);
        return launch_failed(rundir, "out of memory", 126);
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
        fprintf(stderr, "gpuschedd: PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno));
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    struct jobspec j = { argv + 9, env, argv[4], argv[5], argv[6], &ra, -1 };
    pid_t pid = start_job(&j, rundir);
    gsd_runas_env_free(env, owned);
    free(base);
    free(buf);
    if (pid < 0)
        return 0;
    int told;
    int code = watch(pid, &set, rundir, &told);
    write_exit_told(rundir, code, told);
    return 0;
}

void gsd_close_fds_except(int keep)
{
    /* one system call per side instead of a thousand closes (bench_daemon
     * case 7: the loop was 88 % of all system calls, 2 x 1,021 per job) */
    unsigned lo = 3, top = ~0U;
    int ok = keep < 3 ? close_range(lo, top, 0) == 0
                      : (keep == 3 || close_range(lo, (unsigned)keep - 1, 0) == 0) &&
                            close_range((unsigned)keep + 1, top, 0) == 0;
    if (ok)
        return;
    for (int fd = 3; fd < 1024; fd++)
        if (fd != keep)
            close(fd);
}

int gsd_supervise_main(int argc, char **argv)
{
    if (argc < 10 || strcmp(argv[8], "--") != 0)
        return 2;
    int go = (int)strtol(argv[3], NULL, 10);
    gsd_close_fds_except(go);
    char byte = 0;
    ssize_t n;
    do
        n = read(go, &byte, 1);
    while (n < 0 && errno == EINTR);
    close(go);
    if (n != 1 || byte != 'g') {
        write_exit(argv[2], -1);
        return 0;
    }
    put_file(argv[2], "go", ""); /* "it will run": for a restarted daemon */
    return run(argv);
}

/* supervise.c - the per-attempt supervisor of the local backend
 * (backend.h): `gpuschedd --supervise RUNDIR FD OUT ERR CWD -- CMD...`.
 *
 * Waits for the daemon's go byte on FD (EOF = the daemon died before it
 * recorded us: write "exit" as never launched and stop), starts CMD in its
 * own process group with stdout/stderr appended to OUT/ERR, forwards
 * SIGTERM, SIGUSR1 and (as SIGKILL) SIGUSR2 to the group, and once the job
 * and every other process of its group are gone writes RUNDIR/exit:
 * "CODE END_MS" (CODE 0..255, 128 + signal; -1 = never launched).
 */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void write_exit(const char *rundir, int code)
{
    char tmp[4096], path[4096], text[64];
    snprintf(tmp, sizeof tmp, "%s/.exit.tmp", rundir);
    snprintf(path, sizeof path, "%s/exit", rundir);
    int n = snprintf(text, sizeof text, "%d %lld\n", code, wall_ms());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, text, (size_t)n) == n)
        fsync(fd);
    close(fd);
    rename(tmp, path);
}

static int open_out(const char *path, int fd)
{
    int f = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (f < 0)
        return -1;
    if (f != fd) {
        dup2(f, fd);
        close(f);
    }
    return 0;
}

static void child(char **cmd, const char *out, const char *err, const char *cwd)
{
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL); /* the daemon ignores it; the job must not inherit that */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
    if (open_out(out, 1) < 0 || open_out(err, 2) < 0)
        _exit(126);
    if (strcmp(cwd, "-") != 0 && chdir(cwd) < 0) {
        fprintf(stderr, "gpuschedd: cwd %s: %s\n", cwd, strerror(errno));
        _exit(126);
    }
    execvp(cmd[0], cmd);
    fprintf(stderr, "gpuschedd: %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
}

/* Wait for the job, forwarding signals; returns its exit code. */
static int watch(pid_t pid, const sigset_t *set)
{
    int code = -1;
    for (;;) {
        struct timespec tick = { 0, 50000000L };
        int sig = code < 0 ? sigwaitinfo(set, NULL) : sigtimedwait(set, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT)
            kill(-pid, SIGTERM);
        else if (sig == SIGUSR1)
            kill(-pid, SIGUSR1);
        else if (sig == SIGUSR2)
            kill(-pid, SIGKILL);
        int st;
        if (code < 0 && waitpid(pid, &st, WNOHANG) == pid)
            code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        /* the group outlives its leader while any member is left */
        if (code >= 0 && kill(-pid, 0) < 0 && errno == ESRCH)
            return code;
    }
}

int gsd_supervise_main(int argc, char **argv)
{
    if (argc < 9 || strcmp(argv[7], "--") != 0)
        return 2;
    const char *rundir = argv[2];
    int go = (int)strtol(argv[3], NULL, 10);
    for (int fd = 3; fd < 1024; fd++)
        if (fd != go)
            close(fd);
    char byte = 0;
    ssize_t n;
    do
        n = read(go, &byte, 1);
    while (n < 0 && errno == EINTR);
    close(go);
    if (n != 1 || byte != 'g') {
        write_exit(rundir, -1);
        return 0;
    }
    char gopath[4096];
    snprintf(gopath, sizeof gopath, "%s/go", rundir); /* "it will run": for a restarted daemon */
    int gf = open(gopath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (gf >= 0)
        close(gf);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    pid_t pid = fork();
    if (pid < 0) {
        write_exit(rundir, 127);
        return 1;
    }
    if (pid == 0)
        child(argv + 8, argv[4], argv[5], argv[6]);
    setpgid(pid, pid);
    write_exit(rundir, watch(pid, &set));
    return 0;
}

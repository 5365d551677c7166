/* backend.c - the local backend (see backend.h). */
#define _GNU_SOURCE
#include "daemon/backend.h"
#include "daemon/daemon.h"
#include "daemon/runas.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int pidfd_open(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Write `text` to DIR/NAME atomically (temporary file + rename). */
static int write_file(const char *dir, const char *name, const char *text)
{
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    int ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

/* "d:PATH" (the daemon's output directory) or "u:PATH" (the request's). */
static char *out_spec(const char *path, int own)
{
    size_t n = strlen(path) + 3;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%c:%s", own ? 'd' : 'u', path);
    return s;
}

/* The supervisor's argv: SUPERVISOR --supervise RUNDIR FD OUT ERR CWD USER --
 * cmd...; a[4] and a[5] are allocated (free them with the array). */
static char **sup_argv(const struct gsd_launch *l, const char *fdtext)
{
    size_t n = 0;
    while (l->argv[n])
        n++;
    char **a = calloc(n + 10, sizeof *a);
    if (!a)
        return NULL;
    a[0] = (char *)l->supervisor;
    a[1] = "--supervise";
    a[2] = (char *)l->rundir;
    a[3] = (char *)fdtext;
    a[4] = out_spec(l->out, l->out_own);
    a[5] = out_spec(l->err, l->err_own);
    a[6] = (char *)(l->cwd ? l->cwd : "-");
    a[7] = (char *)(l->user && *l->user ? l->user : "-");
    a[8] = "--";
    for (size_t i = 0; i < n; i++)
        a[9 + i] = l->argv[i];
    if (!a[4] || !a[5]) {
        free(a[4]);
        free(a[5]);
        free(a);
        return NULL;
    }
    return a;
}

static void free_argv(char **a)
{
    if (a) {
        free(a[4]);
        free(a[5]);
    }
    free(a);
}

/* What the forked child writes when the supervisor cannot be executed
 * (prepared before the fork: the child may only make async-signal-safe
 * calls).  E2BIG: the job's command is too large to execute, its own
 * failure (exit 126 with the reason); anything else (ENOMEM, EAGAIN): the
 * daemon's, recorded as "never launched" (-1) so the attempt is made again. */
struct exec_fail {
    char exit_path[4200], error_path[4200];
    char own[64], ours[64];   /* "126 MS\n", "-1 MS\n" */
};

static void put_raw(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        if (write(fd, text, strlen(text)) < 0)
            _exit(127);
        close(fd);
    }
}

static void exec_fail_init(struct exec_fail *x, const char *rundir)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    snprintf(x->exit_path, sizeof x->exit_path, "%s/exit", rundir);
    snprintf(x->error_path, sizeof x->error_path, "%s/error", rundir);
    snprintf(x->own, sizeof x->own, "126 %lld\n", ms);
    snprintf(x->ours, sizeof x->ours, "-1 %lld\n", ms);
}

/* In the forked child: only async-signal-safe calls until execve.  The
 * supervisor's own stderr (its messages, a sanitizer's report) goes to
 * RUNDIR/supervisor.log. */
static void child_exec(char **argv, char *const *envp, int go_fd, const char *log,
                       const struct exec_fail *x, int64_t fsize)
{
    setsid();
    if (fsize > 0) { /* docs/operations.md, "Job output": a runaway writer gets SIGXFSZ */
        struct rlimit rl = { (rlim_t)fsize, (rlim_t)fsize };
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    /* the daemon's other descriptors are not the supervisor's (and when
     * the daemon has run out of them, /dev/null and the log still open) */
    gsd_close_fds_except(go_fd);
    int null = open("/dev/null", O_RDWR);
    int lf = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(lf >= 0 ? lf : null, 2);
    }
    (void)go_fd; /* inherited on purpose (no CLOEXEC) */
    execve(argv[0], argv, envp);
    if (errno == E2BIG) {
        put_raw(x->error_path, "exec: the command is too large to execute (E2BIG: Argument "
                               "list too long)");
        put_raw(x->exit_path, x->own);
    } else {
        put_raw(x->exit_path, x->ours);
    }
    _exit(127);
}

int gsd_test_crash = GSD_CRASH_NONE;

/* A launch that never happened leaves nothing the new one could be taken
 * for. */
static void clear_stale(const char *rundir)
{
    static const char *const names[] = { "exit", "sup", "go", "error", "pids" };
    char stale[4200];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(stale, sizeof stale, "%s/%s", rundir, names[i]);
        unlink(stale);
    }
}

/* Whether the forked child could not execute the supervisor for the job's
 * own reason (child_exec wrote "126 MS" to RUNDIR/exit before exiting). */
static int exec_failed_own(const char *rundir)
{
    int code;
    int64_t end_ms;
    return gsd_backend_read_exit(rundir, &code, &end_ms) == 0 && code == 126;
}

/* After the fork: pin the supervisor (pidfd), record it in RUNDIR/sup, then
 * write the go byte on `go_fd` (closed here).  On failure no go byte is
 * written: the supervisor reads EOF, runs nothing and exits at once; it is
 * reaped here and *p cleared.  A child that is gone already because the
 * supervisor could not be executed for the job's own reason (E2BIG) is a
 * launch that happened: the job's end (exit 126, RUNDIR/error) is read as
 * any other. */
static int give_go(const char *rundir, pid_t pid, int go_fd, struct gsd_proc *p, int *why,
                   struct gs_error *err)
{
    p->pid = pid;
    p->start = gsd_proc_start_time(pid);
    p->pidfd = pidfd_open(pid);
    *why = GSD_LF_PIDFD;
    int rc = p->pidfd < 0 ? -1 : 0, e = errno;
    char text[64];
    snprintf(text, sizeof text, "%d %lld\n", (int)pid, (long long)p->start);
    if (rc == 0 && (*why = GSD_LF_SUP, rc = write_file(rundir, "sup", text)) < 0)
        e = errno;
    if (gsd_test_crash == GSD_CRASH_BEFORE_GO)
        _exit(99);
    if (rc == 0 && write(go_fd, "g", 1) != 1) {
        e = errno; /* before exec_failed_own's reads */
        if (!(e == EPIPE && exec_failed_own(rundir)))
            rc = -1;
    }
    close(go_fd);
    if (rc == 0)
        return 0;
    if (p->pidfd >= 0)
        close(p->pidfd);
    waitpid(pid, NULL, 0);
    char sup[4200];
    snprintf(sup, sizeof sup, "%s/sup", rundir);
    unlink(sup);
    *p = (struct gsd_proc){ 0, 0, -1 };
    return gs_errorf(err, GS_EIO, "%s %s: %s", *why == GSD_LF_PIDFD ? "pidfd_open" : "sup",
                     rundir, strerror(e));
}

const char *const gsd_launch_fail_name[GSD_LF_N] = {
    [GSD_LF_RUNDIR] = "rundir", [GSD_LF_ENV] = "env", [GSD_LF_PIPE] = "pipe",
    [GSD_LF_FORK] = "fork",     [GSD_LF_PIDFD] = "pidfd", [GSD_LF_SUP] = "sup",
    [GSD_LF_REQUEST] = "request",
};

int gsd_backend_launch(const struct gsd_launch *l, struct gsd_proc *p, int *why,
                       struct gs_error *err)
{
    *why = GSD_LF_RUNDIR;
    if (mkdir(l->rundir, 0700) < 0 && errno != EEXIST)
        return gs_errorf(err, GS_EIO, "%s: %s", l->rundir, strerror(errno));
    *why = GSD_LF_ENV;
    if (gsd_env_write(l->rundir, l->envp, err) < 0)
        return GS_EIO;
    *why = GSD_LF_PIPE;
    clear_stale(l->rundir);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return gs_errorf(err, GS_EIO, "pipe: %s", strerror(errno));
    /* the read end must survive the exec: a copy without CLOEXEC */
    int rfd = fcntl(pfd[0], F_DUPFD, 3);
    close(pfd[0]);
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", rfd);
    char **argv = sup_argv(l, fdtext);
    if (rfd < 0 || !argv) {
        int e = errno;
        free_argv(argv);
        close(pfd[1]);
        if (rfd >= 0)
            close(rfd);
        return gs_errorf(err, GS_EIO, "%s", rfd < 0 ? strerror(e) : "out of memory");
    }
    char log[4096];
    snprintf(log, sizeof log, "%s/supervisor.log", l->rundir);
    struct exec_fail x = { 0 }; /* this thread's (a pool of launcher threads) */
    exec_fail_init(&x, l->rundir);
    *why = GSD_LF_FORK;
    /* vfork: the child shares this memory until its execve, so no page
     * table is copied (the daemon's size does not slow a launch).  Its only
     * call, child_exec, never returns and makes system calls only (no
     * allocation, no lock, nothing written but its own frame and errno);
     * posix_spawn cannot set RLIMIT_FSIZE or open the log first. */
    pid_t pid = vfork(); // NOLINT(clang-analyzer-security.insecureAPI.vfork)
    if (pid == 0)
        child_exec(argv, environ, rfd, log, &x, l->fsize); // NOLINT(clang-analyzer-unix.Vfork)
    int e = errno;
    free_argv(argv);
    close(rfd);
    if (pid < 0) {
        close(pfd[1]);
        return gs_errorf(err, GS_EIO, "fork: %s", strerror(e));
    }
    return give_go(l->rundir, pid, pfd[1], p, why, err);
}

static int same_process(const struct gsd_proc *p)
{
    return p->pid > 0 && gsd_proc_start_time(p->pid) == p->start;
}

int gsd_backend_signal(const struct gsd_proc *p, int how)
{
    static const int sig[] = { [GSD_SIG_TERM] = SIGTERM, [GSD_SIG_CHECKPOINT] = SIGUSR1,
                               [GSD_SIG_KILL] = SIGUSR2 };
    if (!same_process(p))
        return GS_ENOENT;
    return kill(p->pid, sig[how]) == 0 ? 0 : GS_ENOENT;
}

int gsd_backend_adopt(struct gsd_proc *p)
{
    p->pidfd = -1;
    if (!same_process(p))
        return GS_ENOENT;
    p->pidfd = pidfd_open(p->pid);
    /* checked again after opening: the pidfd now pins this very process */
    if (p->pidfd < 0 || !same_process(p)) {
        if (p->pidfd >= 0)
            close(p->pidfd);
        p->pidfd = -1;
        return GS_ENOENT;
    }
    return 0;
}

static int read_small(const char *rundir, const char *name, char *buf, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", rundir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) /* out of descriptors or memory: ours, not the file's absence */
        return errno == EMFILE || errno == ENFILE || errno == ENOMEM ? GS_EIO : GS_ENOENT;
    ssize_t r = read(fd, buf, n - 1);
    close(fd);
    if (r <= 0)
        return GS_ENOENT;
    buf[r] = '\0';
    return 0;
}

/* "A B" into v[0], v[1]; 0 or -1. */
static int two_numbers(const char *s, long long v[2])
{
    char *end;
    for (int i = 0; i < 2; i++) {
        v[i] = strtoll(s, &end, 10);
        if (end == s)
            return -1;
        s = end;
    }
    return 0;
}

int gsd_backend_read_sup(const char *rundir, struct gsd_proc *p)
{
    char buf[128];
    long long v[2];
    if (read_small(rundir, "sup", buf, sizeof buf) < 0 || two_numbers(buf, v) < 0 || v[0] <= 0)
        return GS_ENOENT;
    p->pid = (pid_t)v[0];
    p->start = v[1];
    p->pidfd = -1;
    return 0;
}

int gsd_backend_read_exit(const char *rundir, int *code, int64_t *end_ms)
{
    char buf[128];
    long long v[2];
    int rc = read_small(rundir, "exit", buf, sizeof buf);
    if (rc < 0 || two_numbers(buf, v) < 0)
        return rc < 0 ? rc : GS_ENOENT;
    *code = (int)v[0];
    *end_ms = v[1];
    return 0;
}

int gsd_backend_exit_told(const char *rundir)
{
    char buf[128];
    if (read_small(rundir, "exit", buf, sizeof buf) < 0)
        return 0;
    char *end;
    strtoll(buf, &end, 10);
    strtoll(end, &end, 10);
    return strncmp(end, " T", 2) == 0;
}

void gsd_backend_release(struct gsd_proc *p)
{
    if (p->pid > 0)
        waitpid(p->pid, NULL, WNOHANG);
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
}

void gsd_bkjob_fini(struct gsd_bkjob *b)
{
    free(b->actual);
    *b = (struct gsd_bkjob){ 0 };
}

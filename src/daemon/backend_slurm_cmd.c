/* backend_slurm_cmd.c - the slurm backend's plumbing: running a Slurm
 * client with an argv (fork/exec, no shell; SLURM_CONF and PATH from the
 * environment), Slurm host lists, and the `scontrol -o` key=value lines.
 */
#define _GNU_SOURCE
#include "daemon/backend_slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Append what fd has to *buf; 0 at EOF, 1 more to come, -1 on ENOMEM. */
static int drain_fd(int fd, char **buf, size_t *len, size_t *cap)
{
    if (*cap - *len < 4096) {
        char *t = realloc(*buf, *cap = *cap * 2 + 8192);
        if (!t)
            return -1;
        *buf = t;
    }
    ssize_t n = read(fd, *buf + *len, *cap - *len - 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (n <= 0)
        return 0;
    *len += (size_t)n;
    (*buf)[*len] = '\0';
    return 1;
}

int gsd_slurm_run(char *const argv[], char **out, struct gs_error *err)
{
    int po[2], pe[2];
    *out = NULL;
    if (pipe2(po, O_CLOEXEC) < 0)
        return gs_errorf(err, GS_EIO, "pipe: %s", strerror(errno));
    if (pipe2(pe, O_CLOEXEC) < 0) {
        close(po[0]);
        close(po[1]);
        return gs_errorf(err, GS_EIO, "pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    char *o = NULL, *e = NULL;
    size_t ol = 0, oc = 0, el = 0, ec = 0;
    int open_o = pid > 0, open_e = pid > 0, oom = 0;
    while (open_o || open_e) {
        struct pollfd fds[2] = { { open_o ? po[0] : -1, POLLIN, 0 },
                                 { open_e ? pe[0] : -1, POLLIN, 0 } };
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        int r;
        if (open_o && fds[0].revents && (r = drain_fd(po[0], &o, &ol, &oc)) <= 0)
            open_o = 0, oom |= r < 0;
        if (open_e && fds[1].revents && (r = drain_fd(pe[0], &e, &el, &ec)) <= 0)
            open_e = 0, oom |= r < 0;
    }
    close(po[0]);
    close(pe[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        free(o);
        free(e);
        return gs_errorf(err, GS_EIO, "%s: cannot run: %s", argv[0], strerror(errno));
    }
    int rc = 0;
    if (oom)
        rc = gs_errorf(err, GS_ENOMEM, "%s: out of memory", argv[0]);
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char *msg = e ? e : o ? o : "";
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
            msg[--n] = '\0';
        rc = gs_errorf(err, GS_EIO, "%s %s: %s (status %d)", argv[0], argv[1] ? argv[1] : "",
                       WIFEXITED(st) && WEXITSTATUS(st) == 127 ? "not found" : msg,
                       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    free(e);
    if (rc < 0)
        free(o);
    else
        *out = o ? o : strdup("");
    return rc < 0 ? rc : (*out ? 0 : GS_ENOMEM);
}

int gsd_slurm_field(const char *line, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p += kl) {
        if (p != line && p[-1] != ' ')
            continue;
        if (p[kl] != '=')
            continue;
        const char *v = p + kl + 1;
        size_t len = strcspn(v, " \n");
        if (len >= n)
            len = n - 1;
        memcpy(buf, v, len);
        buf[len] = '\0';
        return 0;
    }
    buf[0] = '\0';
    return GS_ENOENT;
}

/* Expand one "pre[1-3,05]suf"-free element list; calls fn per name. */
int gsd_slurm_hostlist(const char *list, int (*fn)(void *, const char *), void *arg)
{
    char name[256];
    const char *p = list;
    while (*p) {
        size_t pre = strcspn(p, "[,");
        if (pre >= 200)
            return -1;
        if (p[pre] != '[') {
            memcpy(name, p, pre);
            name[pre] = '\0';
            if (pre && fn(arg, name) < 0)
                return -1;
            p += pre + (p[pre] == ',');
            continue;
        }
        const char *close = strchr(p + pre, ']');
        if (!close)
            return -1;
        for (const char *r = p + pre + 1; r < close;) {
            char *end;
            long lo = strtol(r, &end, 10), hi = lo;
            int width = (int)(end - r);
            if (end == r)
                return -1;
            if (*end == '-')
                hi = strtol(end + 1, &end, 10);
            for (long i = lo; i <= hi && hi - lo < 100000; i++) {
                snprintf(name, sizeof name, "%.*s%0*ld", (int)pre, p, width, i);
                if (fn(arg, name) < 0)
                    return -1;
            }
            r = *end == ',' ? end + 1 : end;
            if (r < close && end == r && *r != ',')
                return -1;
        }
        p = close + 1;
        if (*p == ',')
            p++;
    }
    return 0;
}

int gsd_slurm_exit_code(const char *text)
{
    char *end;
    long a = strtol(text, &end, 10), b = 0;
    if (end == text)
        return -1;
    if (*end == ':')
        b = strtol(end + 1, NULL, 10);
    return b > 0 ? 128 + (b & 127) : a & 255;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Slurm's local "2026-12-01T11:45:26" as UNIX ms, or now. */
int64_t gsd_slurm_time_ms(const char *t)
{
    struct tm tm = { 0 };
    if (!strptime(t, "%Y-%m-%dT%H:%M:%S", &tm))
        return now_ms();
    tm.tm_isdst = -1;
    return (int64_t)mktime(&tm) * 1000;
}

/* What accounting (sacct, with slurmdbd) knows of ended Slurm job `id`:
 * 0 with *code, *end_ms and *ran (it was given nodes), or a negative GS_E*
 * with err saying why not (accounting disabled, no record, not ended). */
int gsd_slurm_sacct_end(long long id, int *code, int64_t *end_ms, int *ran, struct gs_error *err)
{
    char idt[32], st[64] = "", ec[32] = "", end[64] = "", nodes[512] = "", *out;
    snprintf(idt, sizeof idt, "%lld", id);
    char *argv[] = { "sacct", "-n", "-P", "-X", "-j", idt,
                     "--format=State,ExitCode,End,NodeList", NULL };
    if (gsd_slurm_run(argv, &out, err) < 0)
        return GS_EIO;
    int k = sscanf(out, "%63[^|\n]|%31[^|\n]|%63[^|\n]|%511[^\n]", st, ec, end, nodes);
    free(out);
    if (k < 3)
        return gs_errorf(err, GS_ENOENT, "sacct has no record of Slurm job %lld", id);
    if (!strcmp(end, "Unknown") || !strncmp(st, "RUNNING", 7) || !strncmp(st, "PENDING", 7))
        return gs_errorf(err, GS_ENOENT, "sacct: Slurm job %lld is %s, with no end", id, st);
    *code = gsd_slurm_exit_code(ec);
    *end_ms = gsd_slurm_time_ms(end);
    *ran = k == 4 && nodes[0] && strcmp(nodes, "None assigned") != 0;
    return *code < 0 ? gs_errorf(err, GS_EINVAL, "sacct: exit code '%s'", ec) : 0;
}

/* reap.c - finding and ending every process of a job (see reap.h). */
#define _GNU_SOURCE
#include "daemon/reap.h"
#include "daemon/backend.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct pstat {
    pid_t pid, ppid, pgrp;
    int64_t start;
    char state;
};

/* /proc/PID/stat: state (field 3), ppid (4), pgrp (5), starttime (22).
 * 0 or -1. */
static int read_stat(pid_t pid, struct pstat *ps)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command may hold spaces and ')' */
    if (!p || p[1] != ' ')
        return -1;
    p += 2;
    ps->pid = pid;
    ps->state = *p;
    char *end;
    ps->ppid = (pid_t)strtol(p + 1, &end, 10);
    ps->pgrp = (pid_t)strtol(end, &end, 10);
    p = end;
    for (int field = 6; field < 22 && p; field++) /* p: the space before field */
        p = strchr(p + 1, ' ');
    if (!p)
        return -1;
    ps->start = strtoll(p + 1, NULL, 10);
    return 0;
}

/* backend.h: the one reader of /proc/PID/stat serves the supervisors'
 * identity (pid + start time) too. */
int64_t gsd_proc_start_time(pid_t pid)
{
    struct pstat ps;
    return read_stat(pid, &ps) == 0 ? ps.start : -1;
}

/* Every process of the system (a /proc scan); *n set; NULL on failure. */
static struct pstat *scan_all(int *n)
{
    DIR *dir = opendir("/proc");
    if (!dir)
        return NULL;
    int cap = 512, k = 0;
    struct pstat *all = malloc((size_t)cap * sizeof *all);
    struct dirent *de;
    while (all && (de = readdir(dir))) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        if (k == cap) {
            struct pstat *grown = realloc(all, (size_t)cap * 2 * sizeof *all);
            if (!grown) {
                free(all);
                all = NULL;
                break;
            }
            all = grown;
            cap *= 2;
        }
        if (read_stat((pid_t)strtol(de->d_name, NULL, 10), &all[k]) == 0)
            k++;
    }
    closedir(dir);
    *n = k;
    return all;
}

static int member(const pid_t *set, int n, pid_t pid)
{
    for (int i = 0; i < n; i++)
        if (set[i] == pid)
            return 1;
    return 0;
}

int gsd_reap_descendants(const pid_t *roots, int nroots, struct gsd_pid *out, int cap)
{
    int n;
    struct pstat *all = scan_all(&n);
    pid_t *tree = all ? malloc(((size_t)n + (size_t)nroots + 1) * sizeof *tree) : NULL;
    if (!tree) {
        free(all);
        return -1;
    }
    int nt = nroots, k = 0;
    memcpy(tree, roots, (size_t)nroots * sizeof *tree);
    /* grow the tree until no process's parent is in it without it */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++)
            if (all[i].state != 'Z' && member(tree, nt, all[i].ppid) &&
                !member(tree, nt, all[i].pid)) {
                tree[nt++] = all[i].pid;
                if (k < cap)
                    out[k++] = (struct gsd_pid){ all[i].pid, all[i].start, all[i].pgrp };
                changed = 1;
            }
    }
    free(tree);
    free(all);
    return k;
}

int gsd_reap_signal_tree(pid_t root, int sig, pid_t skip_pgrp)
{
    struct gsd_pid d[4096];
    int n = gsd_reap_descendants(&root, 1, d, 4096), k = 0;
    for (int i = 0; i < n; i++)
        if (d[i].pgrp != skip_pgrp && kill(d[i].pid, sig) == 0)
            k++;
    return k;
}

int gsd_reap_record(const char *rundir, const struct gsd_pid *p, int n)
{
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof tmp, "%s/.pids.tmp", rundir);
    snprintf(path, sizeof path, "%s/pids", rundir);
    FILE *f = NULL;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0 && !(f = fdopen(fd, "w")))
        close(fd);
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "%d %lld\n", (int)p[i].pid, (long long)p[i].start);
    int ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

/* The recorded processes still alive as themselves, into live[cap]. */
static int recorded_alive(const char *rundir, pid_t *live, int cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/pids", rundir);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[64];
    int n = 0;
    while (n < cap && fgets(line, sizeof line, f)) {
        char *end;
        long pid = strtol(line, &end, 10);
        long long start = strtoll(end, NULL, 10);
        struct pstat ps;
        if (pid > 1 && pid < (1L << 30) && read_stat((pid_t)pid, &ps) == 0 &&
            ps.start == start && ps.state != 'Z')
            live[n++] = (pid_t)pid;
    }
    fclose(f);
    return n;
}

static int any_alive(const struct gsd_pid *p, int n)
{
    for (int i = 0; i < n; i++) {
        struct pstat ps;
        if (read_stat(p[i].pid, &ps) == 0 && ps.start == p[i].start && ps.state != 'Z')
            return 1;
    }
    return 0;
}

int gsd_reap_lost(const char *rundir, int wait_ms)
{
    enum { CAP = 4096 };
    static pid_t roots[CAP];  /* the engine thread's only */
    static struct gsd_pid all[CAP];
    int nr = recorded_alive(rundir, roots, CAP / 2);
    if (nr == 0)
        return 0;
    int nd = gsd_reap_descendants(roots, nr, all, CAP - nr);
    if (nd < 0)
        nd = 0;
    for (int i = 0; i < nr; i++) { /* the recorded ones too */
        struct pstat ps;
        if (read_stat(roots[i], &ps) == 0)
            all[nd++] = (struct gsd_pid){ roots[i], ps.start, ps.pgrp };
    }
    for (int i = 0; i < nd; i++)
        kill(all[i].pid, SIGKILL);
    for (int waited = 0; waited < wait_ms && any_alive(all, nd); waited += 10) {
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    return nd;
}

/* lockfile.c - the state directory's lock (see lockfile.h). */
#define _GNU_SOURCE
#include "daemon/lockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The pid recorded in the lock file, or 0. */
static long holder_pid(int fd)
{
    char buf[64];
    ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
    if (r <= 0)
        return 0;
    buf[r] = '\0';
    long pid = strtol(buf, NULL, 10);
    return pid > 0 ? pid : 0;
}

int gsd_lock_acquire(const char *state, struct gsd_lock *lk, char *msg, size_t n)
{
    lk->fd = -1;
    lk->existed = 0;
    if (mkdir(state, 0700) < 0 && errno != EEXIST) {
        snprintf(msg, n, "%s: %s", state, strerror(errno));
        return GSD_EXIT_FATAL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/lock", state);
    lk->existed = access(path, F_OK) == 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        snprintf(msg, n, "%s: %s", path, strerror(errno));
        return GSD_EXIT_FATAL;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        long pid = holder_pid(fd);
        close(fd);
        if (e == EWOULDBLOCK) {
            if (pid > 0)
                snprintf(msg, n, "state directory %s is in use by gpuschedd pid %ld (%s); "
                         "one daemon per state directory", state, pid, path);
            else
                snprintf(msg, n, "state directory %s is in use by another gpuschedd (%s); "
                         "one daemon per state directory", state, path);
            return GSD_EXIT_LOCKED;
        }
        snprintf(msg, n, "%s: flock: %s", path, strerror(e));
        return GSD_EXIT_FATAL;
    }
    char text[32];
    int len = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    /* the pid is for messages only: the lock holds even if this write fails
       (a full disk), so a failure here is not fatal */
    if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)len, 0) != len)
        fprintf(stderr, "gpuschedd: %s: cannot record the pid: %s\n", path, strerror(errno));
    lk->fd = fd;
    return 0;
}

void gsd_lock_release(struct gsd_lock *lk)
{
    if (!lk || lk->fd < 0)
        return;
    close(lk->fd);
    lk->fd = -1;
}

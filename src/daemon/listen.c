/* listen.c - the Unix-socket listener (see listen.h). */
#define _GNU_SOURCE
#include "daemon/listen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* 0 when nothing is at `path` any more (a stale socket was removed), -1
 * after printing why it cannot be used. */
static int clear_stale(const char *path, const struct sockaddr_un *sa)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : (fprintf(stderr, "gpuschedd: --socket %s: %s\n", path,
                                              strerror(errno)), -1);
    if (!S_ISSOCK(st.st_mode)) {
        fprintf(stderr, "gpuschedd: --socket %s: exists and is not a socket\n", path);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "gpuschedd: socket: %s\n", strerror(errno));
        return -1;
    }
    int live = connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0;
    int e = errno;
    close(fd);
    if (live || e != ECONNREFUSED) {
        fprintf(stderr, "gpuschedd: --socket %s: %s\n", path,
                live ? "another daemon is serving it" : strerror(e));
        return -1;
    }
    if (unlink(path) < 0 && errno != ENOENT) {
        fprintf(stderr, "gpuschedd: --socket %s: cannot remove the stale socket: %s\n", path,
                strerror(errno));
        return -1;
    }
    return 0;
}

int gsd_listen_unix(const char *path, ino_t *ino)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "gpuschedd: --socket %s: longer than %zu bytes\n", path,
                sizeof sa.sun_path - 1);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if (clear_stale(path, &sa) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct stat st;
    if (fd < 0 || bind(fd, (const struct sockaddr *)&sa, sizeof sa) < 0 ||
        chmod(path, 0666) < 0 || listen(fd, 512) < 0 || stat(path, &st) < 0) {
        fprintf(stderr, "gpuschedd: --socket %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *ino = st.st_ino;
    return fd;
}

void gsd_listen_unix_remove(const char *path, ino_t ino)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == ino)
        unlink(path);
}

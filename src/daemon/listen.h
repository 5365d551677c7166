/* listen.h - the daemon's Unix-socket listener (docs/security.md). */
#ifndef GS_DAEMON_LISTEN_H
#define GS_DAEMON_LISTEN_H

#include <sys/types.h>

/* Create, bind and listen on the Unix socket `path`, mode 0666 (who may
 * reach it is the directory's business: identity comes from the kernel).
 * A stale socket file (nobody accepting) is replaced; a live one, or a
 * path that is not a socket, is an error.  Returns the socket, *ino set to
 * the socket file's inode (for gsd_listen_unix_remove), or -1 after
 * printing why. */
int gsd_listen_unix(const char *path, ino_t *ino);

/* Remove `path` if it is still the socket file with inode `ino`. */
void gsd_listen_unix_remove(const char *path, ino_t ino);

#endif

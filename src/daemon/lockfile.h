/* lockfile.h - one daemon per state directory: an exclusive flock on
 * STATE/lock, held for the daemon's life (docs/operations.md, "One daemon
 * per state directory").
 *
 * The lock file is opened O_CLOEXEC: the job supervisors the daemon forks
 * exec at once and so never hold it, and a restarted daemon does not wait
 * for running jobs.  The holder's pid is written in the file for the
 * message of a refused second daemon.
 */
#ifndef GS_DAEMON_LOCKFILE_H
#define GS_DAEMON_LOCKFILE_H

#include <stddef.h>

/* gpuschedd's exit statuses (docs/operations.md, "Exit statuses"). */
enum gsd_exit {
    GSD_EXIT_OK = 0,          /* clean stop (SIGTERM/SIGINT); --check: healthy */
    GSD_EXIT_FATAL = 1,       /* a fatal error, said on stderr */
    GSD_EXIT_USAGE = 2,       /* bad flags */
    GSD_EXIT_LOCKED = 3,      /* another daemon holds the state directory */
    GSD_EXIT_DAMAGED = 4,     /* the journal is missing, empty or damaged */
};

/* What gsd_lock_acquire found. */
struct gsd_lock {
    int fd;                   /* the locked file, -1 when not held */
    int existed;              /* the lock file was there before: a daemon ran here */
};

/* Create STATE (0700 when absent), open STATE/lock and take the exclusive
 * lock without waiting; on success write our pid into it and fill *lk.
 * Returns 0; GSD_EXIT_LOCKED when another process holds it (msg names the
 * holder's pid as the file records it); GSD_EXIT_FATAL on any other error
 * (msg says which).  msg: at least 256 bytes. */
int gsd_lock_acquire(const char *state, struct gsd_lock *lk, char *msg, size_t n);

/* Release (close); the lock file stays. NULL or an unheld lock: no-op. */
void gsd_lock_release(struct gsd_lock *lk);

#endif

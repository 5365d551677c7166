/* runas.h - who a job of the local backend runs as, and with what
 * environment (used by the supervisor, supervise.c, before it execs the
 * job; docs/daemon.md "Local backend").
 *
 * A job runs as the account named by its `user` field.  "-" or "" (journal
 * records and requests from before identities existed) mean the daemon's
 * own account.  A daemon running as root may run a job as any existing
 * account (as root only when the job's user is root); a daemon running as
 * another account runs only that account's jobs.  The job starts from a
 * clean environment: the request's variables and the scheduler's
 * (CUDA_VISIBLE_DEVICES, GPUSCHED_*), plus USER, LOGNAME, HOME, SHELL and
 * PATH from the account (PATH: GSD_DEFAULT_PATH), never the daemon's own.
 */
#ifndef GS_DAEMON_RUNAS_H
#define GS_DAEMON_RUNAS_H

#include <sys/types.h>

#include "core/base/error.h"

/* The PATH a job gets unless its request sets one. */
#define GSD_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* A resolved account (copied out of the passwd entry). */
struct gsd_runas {
    uid_t uid;
    gid_t gid;
    char name[256];
    char home[1024];
    char shell[512];
    int ngroups;              /* its supplementary groups (getgrouplist) */
    gid_t groups[256];
};

/* Resolve the job's `user` (NULL, "" and "-" = this process's own account)
 * with getpwnam_r / getpwuid_r into *ra.  Refused (GS_EINVAL, message
 * naming the user) when the account does not exist, when this process is
 * not root and the account is not its own, or when a field does not fit.
 * 0 on success. */
int gsd_runas_resolve(const char *user, struct gsd_runas *ra, struct gs_error *err);

/* Whether `user` runs as an account of this host: "-", "" and NULL (the
 * daemon's own) or a name the passwd database knows. */
int gsd_runas_exists(const char *user);

/* Become ra's account for good: when this process is root, setgroups (ra's
 * groups, as initgroups would set them), setgid, setuid in that order, each checked, then a check that root can
 * not be regained (setuid(0) must fail unless ra is root) and that real and
 * effective ids are ra's.  Not root: nothing to do (resolve made sure the
 * account is ours).  0, or GS_EINVAL with the failing step in err.  Calls
 * only what is safe in a forked child of a single-threaded process. */
int gsd_runas_drop(const struct gsd_runas *ra, struct gs_error *err);

/* The job's environment: `base` (the request's and the scheduler's
 * variables, NULL-terminated; borrowed) with USER and LOGNAME set to ra's
 * name, and HOME, SHELL and PATH from ra / GSD_DEFAULT_PATH unless `base`
 * has them.  Returns a malloc'ed NULL-terminated array whose strings are
 * `base`'s or allocated with it in `*owned` (free both with
 * gsd_runas_env_free), or NULL when out of memory. */
char **gsd_runas_env(char *const *base, const struct gsd_runas *ra, char ***owned);

/* Free what gsd_runas_env returned (NULL is a no-op). */
void gsd_runas_env_free(char **env, char **owned);

/* Write the NULL-terminated `env` to DIR/env (mode 0600, entries separated
 * by NUL bytes; temporary file + rename).  0 or GS_EIO with err. */
int gsd_env_write(const char *dir, char *const *env, struct gs_error *err);

/* Read DIR/env back: *env = a NULL-terminated array into one buffer
 * (*buf); free both with free().  0 or GS_EIO / GS_ENOMEM with err. */
int gsd_env_read(const char *dir, char ***env, char **buf, struct gs_error *err);

#endif

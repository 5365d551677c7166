/* runas.c - the account and environment of a local job (see runas.h). */
#define _GNU_SOURCE
#include "daemon/runas.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copy `src` into dst[n]; -1 when it does not fit. */
static int copy(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src ? src : "");
    if (len >= n)
        return -1;
    memcpy(dst, src ? src : "", len + 1);
    return 0;
}

static int fill(struct gsd_runas *ra, const struct passwd *pw, struct gs_error *err)
{
    ra->uid = pw->pw_uid;
    ra->gid = pw->pw_gid;
    if (copy(ra->name, sizeof ra->name, pw->pw_name) < 0 ||
        copy(ra->home, sizeof ra->home, pw->pw_dir && *pw->pw_dir ? pw->pw_dir : "/") < 0 ||
        copy(ra->shell, sizeof ra->shell,
             pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh") < 0)
        return gs_errorf(err, GS_EINVAL, "user '%.100s': passwd entry too long", pw->pw_name);
    ra->ngroups = (int)(sizeof ra->groups / sizeof ra->groups[0]);
    if (getgrouplist(ra->name, ra->gid, ra->groups, &ra->ngroups) < 0)
        return gs_errorf(err, GS_EINVAL, "user '%.100s': more than %zu groups", ra->name,
                         sizeof ra->groups / sizeof ra->groups[0]);
    return 0;
}

int gsd_runas_resolve(const char *user, struct gsd_runas *ra, struct gs_error *err)
{
    struct passwd pw, *res = NULL;
    static char buf[16384]; /* the supervisor is single-threaded */
    int own = !user || !*user || !strcmp(user, "-");
    int rc = own ? getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res)
                 : getpwnam_r(user, &pw, buf, sizeof buf, &res);
    if (!res) {
        if (own)
            return gs_errorf(err, GS_EINVAL, "the daemon's own uid %d has no passwd entry%s%s",
                             (int)geteuid(), rc ? ": " : "", rc ? strerror(rc) : "");
        return gs_errorf(err, GS_EINVAL, "user '%.100s' does not exist%s%s", user,
                         rc ? ": " : "", rc ? strerror(rc) : "");
    }
    if (geteuid() != 0 && res->pw_uid != geteuid())
        return gs_errorf(err, GS_EINVAL,
                         "user '%.100s' (uid %d): the daemon runs as uid %d, not root, and "
                         "runs only its own account's jobs",
                         user, (int)res->pw_uid, (int)geteuid());
    return fill(ra, res, err);
}

int gsd_runas_exists(const char *user)
{
    if (!user || !*user || !strcmp(user, "-"))
        return 1;
    struct passwd pw, *res = NULL;
    char buf[16384];
    return getpwnam_r(user, &pw, buf, sizeof buf, &res) == 0 && res;
}

int gsd_runas_drop(const struct gsd_runas *ra, struct gs_error *err)
{
    if (geteuid() != 0)
        return 0; /* resolve checked that ra is our own account */
    if (setgroups((size_t)ra->ngroups, ra->groups) < 0)
        return gs_errorf(err, GS_EINVAL, "setgroups for %s: %s", ra->name, strerror(errno));
    if (setgid(ra->gid) < 0)
        return gs_errorf(err, GS_EINVAL, "setgid %d: %s", (int)ra->gid, strerror(errno));
    if (setuid(ra->uid) < 0)
        return gs_errorf(err, GS_EINVAL, "setuid %d: %s", (int)ra->uid, strerror(errno));
    if (ra->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
        return gs_errorf(err, GS_EINVAL, "setuid %d: root could be regained", (int)ra->uid);
    if (getuid() != ra->uid || geteuid() != ra->uid || getgid() != ra->gid ||
        getegid() != ra->gid)
        return gs_errorf(err, GS_EINVAL, "ids after setuid %d/setgid %d are %d/%d", (int)ra->uid,
                         (int)ra->gid, (int)geteuid(), (int)getegid());
    return 0;
}

static int has(char *const *env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env[i]; i++)
        if (!strncmp(env[i], name, n) && env[i][n] == '=')
            return 1;
    return 0;
}

static char *pair(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s=%s", name, value);
    return s;
}

char **gsd_runas_env(char *const *base, const struct gsd_runas *ra, char ***owned)
{
    size_t n = 0;
    while (base[n])
        n++;
    char **env = calloc(n + 6, sizeof *env), **own = calloc(6, sizeof *own);
    if (!env || !own) {
        free(env);
        free(own);
        return NULL;
    }
    size_t k = 0, o = 0;
    for (size_t i = 0; i < n; i++) /* USER and LOGNAME are the account's, always */
        if (strncmp(base[i], "USER=", 5) != 0 && strncmp(base[i], "LOGNAME=", 8) != 0)
            env[k++] = base[i];
    const char *names[] = { "USER", "LOGNAME", "HOME", "SHELL", "PATH" };
    const char *values[] = { ra->name, ra->name, ra->home, ra->shell, GSD_DEFAULT_PATH };
    for (int i = 0; i < 5; i++) {
        if (i >= 2 && has(base, names[i]))
            continue; /* the request's own HOME, SHELL or PATH wins */
        char *s = pair(names[i], values[i]);
        if (!s) {
            gsd_runas_env_free(env, own);
            return NULL;
        }
        env[k++] = own[o++] = s;
    }
    *owned = own;
    return env;
}

void gsd_runas_env_free(char **env, char **owned)
{
    for (size_t i = 0; owned && owned[i]; i++)
        free(owned[i]);
    free(owned);
    free(env);
}

int gsd_env_write(const char *dir, char *const *env, struct gs_error *err)
{
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof tmp, "%s/.env.tmp", dir);
    snprintf(path, sizeof path, "%s/env", dir);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return gs_errorf(err, GS_EIO, "%s: %s", tmp, strerror(errno));
    int ok = 1;
    for (size_t i = 0; env[i] && ok; i++) {
        size_t len = strlen(env[i]) + 1; /* with its NUL */
        ok = write(fd, env[i], len) == (ssize_t)len;
    }
    int e = errno;
    close(fd);
    if (!ok || rename(tmp, path) < 0)
        return gs_errorf(err, GS_EIO, "%s: %s", path, strerror(ok ? errno : e));
    return 0;
}

int gsd_env_read(const char *dir, char ***env, char **buf, struct gs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/env", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return gs_errorf(err, GS_EIO, "%s: %s", path, strerror(e));
    }
    if (sb.st_size < 0 || sb.st_size > (64 << 20)) { /* a request is at most 1 MiB */
        close(fd);
        return gs_errorf(err, GS_EIO, "%s: %lld bytes", path, (long long)sb.st_size);
    }
    size_t size = (size_t)sb.st_size, n = 0;
    char *b = malloc(size + 1);
    ssize_t r = b ? read(fd, b, size) : -1;
    close(fd);
    if (r != (ssize_t)size) {
        free(b);
        return gs_errorf(err, GS_EIO, "%s: short read", path);
    }
    b[size] = '\0';
    for (size_t i = 0; i < size; i++)
        n += b[i] == '\0';
    char **e = calloc(n + 1, sizeof *e);
    if (!e) {
        free(b);
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", path);
    }
    for (size_t i = 0, k = 0; i < size && k < n; k++) {
        e[k] = b + i;
        i += strlen(b + i) + 1;
    }
    *env = e;
    *buf = b;
    return 0;
}

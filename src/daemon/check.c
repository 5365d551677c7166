/* check.c - damage is loud: the journal checks at open (missing or empty
 * journal in a used state directory, PRAGMA quick_check) and
 * `gpuschedd --check STATE` (docs/operations.md, "Damaged journals").
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/lockfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether DIR holds at least one entry besides ., .. and a run directory's
 * claim (.state). */
static int dir_nonempty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int n = 0;
    while (!n && (e = readdir(d)))
        n = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, ".state") != 0;
    closedir(d);
    return n;
}

/* --init over an empty journal: set the empty file and its WAL aside
 * (renamed, never deleted: the WAL may still hold commits). */
static void set_aside(const char *db)
{
    static const char *const sfx[] = { "", "-wal", "-shm" };
    char from[4200], to[4300];
    long t = (long)time(NULL);
    for (int i = 0; i < 3; i++) {
        snprintf(from, sizeof from, "%s%s", db, sfx[i]);
        snprintf(to, sizeof to, "%s%s.before-init-%ld", db, sfx[i], t);
        if (rename(from, to) == 0)
            fprintf(stderr, "gpuschedd: --init: %s set aside as %s\n", from, to);
    }
}

/* A journal that is missing or empty where jobs have been: refused unless
 * --init.  0 to go on, or GSD_EXIT_DAMAGED after saying why. */
static int guard_missing(const struct gsd_loop *lp)
{
    struct stat sb;
    int missing = stat(lp->sh.db_path, &sb) < 0;
    if (!missing && sb.st_size > 0)
        return 0;
    int used = lp->sh.opts.state_used || dir_nonempty(lp->sh.run_dir) || dir_nonempty(lp->sh.out_dir);
    if (!used)
        return 0;
    if (!lp->sh.opts.init) {
        fprintf(stderr,
                "gpuschedd: journal %s is %s, but %s has held a daemon and jobs (its lock "
                "file, run/ or output/ are there): refusing to start with no jobs.  Restore "
                "a backup (docs/operations.md), or give --init to begin a new, empty "
                "journal\n",
                lp->sh.db_path, missing ? "missing" : "empty (0 bytes)", lp->sh.opts.state);
        return GSD_EXIT_DAMAGED;
    }
    if (!missing)
        set_aside(lp->sh.db_path);
    fprintf(stderr, "gpuschedd: --init: starting a new journal %s\n", lp->sh.db_path);
    return 0;
}

/* A --run-dir holds SEQ-ATTEMPT directories named by one journal's
 * sequence numbers, so it belongs to one state: DIR/.state names it
 * (created O_EXCL by the first daemon; the state's lock then keeps a second
 * daemon of the same state out; an empty one is taken).  0, or -1 after
 * saying why. */
static int claim_run_dir(const struct gsd_loop *lp)
{
    char path[4200], state[PATH_MAX], had[PATH_MAX + 2];
    if (!lp->sh.opts.run_dir)
        return 0;
    if (!realpath(lp->sh.opts.state, state)) {
        fprintf(stderr, "gpuschedd: %s: %s\n", lp->sh.opts.state, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/.state", lp->sh.run_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    struct stat sb;
    /* an empty claim (a daemon that died between creating and writing it)
       is no one's: take it */
    if (fd < 0 && errno == EEXIST && stat(path, &sb) == 0 && sb.st_size == 0)
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd >= 0) {
        dprintf(fd, "%s\n", state);
        int rc = fsync(fd);
        close(fd);
        if (rc == 0)
            return 0;
    } else if (errno == EEXIST) {
        FILE *f = fopen(path, "re");
        int ok = f && fgets(had, sizeof had, f);
        if (f)
            fclose(f);
        had[ok ? strcspn(had, "\n") : 0] = '\0';
        if (ok && strcmp(had, state) == 0)
            return 0;
        fprintf(stderr, "gpuschedd: --run-dir %s belongs to the state directory '%s' "
                "(%s), not %s: give each state its own run directory\n",
                lp->sh.run_dir, had, path, state);
        return -1;
    }
    fprintf(stderr, "gpuschedd: %s: %s\n", path, strerror(errno));
    return -1;
}

int gsd_journal_open(struct gsd_loop *lp, int *status)
{
    if (claim_run_dir(lp) < 0) {
        *status = GSD_EXIT_FATAL;
        return -1;
    }
    *status = guard_missing(lp);
    if (*status)
        return -1;
    struct gs_error err;
    gs_error_clear(&err);
    lp->st = gs_store_open(lp->sh.db_path, lp->sh.opts.sync_full, 0, &err);
    if (!lp->st) {
        *status = err.code == GS_EINVAL ? GSD_EXIT_DAMAGED : GSD_EXIT_FATAL;
        fprintf(stderr, "gpuschedd: %s%s\n", err.msg,
                *status == GSD_EXIT_DAMAGED
                    ? "; the journal is refused as damaged (`gpuschedd --check STATE` "
                      "reports; restore a backup: docs/operations.md)"
                    : "");
        return -1;
    }
    /* quick_check reads the whole file (0.25 s at 100,000 jobs): it runs
       after the restore, before the first turn (gsd_journal_checked), so
       /readyz is not held up by it; the first write waits for it */
    *status = GSD_EXIT_FATAL; /* for a later failure */
    lp->qc_rc = 1;
    return 0;
}

int gsd_journal_checked(struct gsd_loop *lp)
{
    if (lp->qc_rc == 1)
        lp->qc_rc = gs_store_quick_check(lp->st, lp->qc_what, sizeof lp->qc_what) < 0 ? -1 : 0;
    if (lp->qc_rc >= 0)
        return 0;
    fprintf(stderr, "gpuschedd: journal %s is damaged: quick_check says: %s; refusing to "
                    "go on (restore a backup: docs/operations.md)\n", lp->sh.db_path, lp->qc_what);
    lp->qc_rc = 0; /* said once */
    return -1;
}

static void print_health(const char *path, const struct gs_store_health *h, int rc)
{
    printf("journal: %s\n", path);
    if (h->size >= 0)
        printf("size: %lld bytes\n", (long long)h->size);
    printf("schema: %d\n", h->schema);
    printf("integrity: %s\n", h->check[0] ? h->check : "not checked");
    printf("jobs: pending %lld, starting %lld, running %lld, stopping %lld, done %lld, "
           "other %lld\n", (long long)h->jobs[0], (long long)h->jobs[1], (long long)h->jobs[2],
           (long long)h->jobs[3], (long long)h->jobs[4], (long long)h->jobs[5]);
    printf("last job seq: %lld\nlast event seq: %lld\n", (long long)h->last_seq,
           (long long)h->last_event);
    printf("verdict: %s\n", rc == 0 ? "healthy" : "DAMAGED");
}

int gsd_check_main(int argc, char **argv)
{
    if (argc != 3 || argv[2][0] == '-') {
        fprintf(stderr, "usage: gpuschedd --check STATE   (or a journal file)\n");
        return GSD_EXIT_USAGE;
    }
    char path[4200];
    struct stat sb;
    if (stat(argv[2], &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(path, sizeof path, "%s/journal.db", argv[2]);
    else
        snprintf(path, sizeof path, "%s", argv[2]);
    struct gs_store_health h;
    struct gs_error err;
    gs_error_clear(&err);
    int rc = gs_store_health_of(path, &h, &err);
    if (rc == GS_EIO) {
        fprintf(stderr, "gpuschedd: --check: %s\n", err.msg);
        return GSD_EXIT_DAMAGED;
    }
    print_health(path, &h, rc);
    if (rc < 0)
        fprintf(stderr, "gpuschedd: --check: journal %s is damaged: %s\n", path, h.check);
    return rc == 0 ? GSD_EXIT_OK : GSD_EXIT_DAMAGED;
}

/* retain.c - retention (docs/operations.md, "Retention"): ended jobs whose
 * end is older than --retain (wall time; default 30 days) are purged: their
 * journal rows and events in the loop's turn (the first turn after a start,
 * then once a minute, at most 1,000 rows a turn, again a second later while
 * more are due), their default output files and run directories after that
 * turn's commit.  Live jobs are never touched; files a request named are
 * the user's and stay.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "io/names.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RETAIN_BATCH 1000

int gsd_retain_opt(struct gsd_opts *o, const char *arg)
{
    char *end;
    double v = strtod(arg, &end);
    double mul = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60
                 : !strcmp(end, "h") ? 3600 : !strcmp(end, "d") ? 86400 : -1;
    if (end == arg || mul < 0 || !(v >= 0 && v * mul <= 3650.0 * 86400) ||
        (v > 0 && v * mul < 1)) {
        fprintf(stderr, "gpuschedd: --retain: expected N[s|m|h|d] (at least 1 s, at most "
                        "3650 d) or 0 = keep forever, got '%s'\n", arg);
        return 2;
    }
    o->retain_ms = (int64_t)(v * mul * 1000);
    return 0;
}

/* Its output files ID.N.out|err, attempts 1..N, to remove after commit. */
static void note_outputs(struct gsd_loop *lp, const struct gs_store_job *r)
{
    for (int a = 1; a <= r->attempts; a++) {
        char name[GS_NAME_ID_MAX + 16];
        snprintf(name, sizeof name, "%s.%d", r->id, a);
        char *s = strdup(name);
        if (!s || gsd_grow((void **)&lp->purged_out, &lp->cappurged_out, lp->npurged_out + 1,
                           sizeof *lp->purged_out) < 0) {
            free(s);
            return; /* left on disk: a name the next purge does not see */
        }
        lp->purged_out[lp->npurged_out++] = s;
    }
}

static int note_row(void *arg, const struct gs_store_job *r)
{
    struct gsd_loop *lp = arg;
    if (gsd_grow((void **)&lp->purged, &lp->cappurged, lp->npurged + 1, sizeof *lp->purged) == 0)
        lp->purged[lp->npurged++] = r->seq;
    if (r->team && r->outcome) /* a rolled-back turn recounts them (diskguard.c) */
        gsd_count_purged(lp, r->team, r->outcome);
    note_outputs(lp, r);
    return 0;
}

int gsd_retain_turn(struct gsd_loop *lp, gs_time now, struct gs_error *err)
{
    int64_t mono = gsd_mono_ms();
    if (lp->sh.opts.retain_ms <= 0 || mono < lp->retain_next)
        return 0;
    lp->retain_next = mono + 60000;
    gs_time cutoff = now - (gs_time)((double)lp->sh.opts.retain_ms * lp->sh.opts.clock_scale);
    lp->npurged = 0;
    for (size_t i = 0; i < lp->npurged_out; i++)
        free(lp->purged_out[i]);
    lp->npurged_out = 0;
    int n = gs_store_purge_ended(lp->st, cutoff, RETAIN_BATCH, note_row, lp, err);
    if (n < 0)
        return -1;
    if (n == RETAIN_BATCH)
        lp->retain_next = mono + 1000; /* more are due */
    return 0;
}

static int cmp_seq(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Remove DIR/NAME, a run directory of plain files. */
static void remove_run(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    unlinkat(dfd, name, AT_REMOVEDIR);
}

/* The run directories SEQ-N of the purged seqs. */
static void remove_runs(struct gsd_loop *lp)
{
    DIR *d = opendir(lp->sh.run_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *dash;
        long long seq = strtoll(e->d_name, &dash, 10);
        int64_t key = seq;
        if (dash != e->d_name && *dash == '-' &&
            bsearch(&key, lp->purged, lp->npurged, sizeof key, cmp_seq))
            remove_run(dirfd(d), e->d_name);
    }
    closedir(d);
}

void gsd_retain_after_commit(struct gsd_loop *lp)
{
    if (lp->npurged == 0)
        return;
    qsort(lp->purged, lp->npurged, sizeof *lp->purged, cmp_seq);
    char path[4200];
    for (size_t i = 0; i < lp->npurged; i++) {
        static const char *const sfx[] = { "out", "err" };
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/%lld.%s", lp->sh.out_dir, (long long)lp->purged[i],
                     sfx[k]);
            unlink(path);
        }
    }
    for (size_t i = 0; i < lp->npurged_out; i++) {
        static const char *const sfx[] = { "out", "err" };
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/%s.%s", lp->sh.out_dir, lp->purged_out[i], sfx[k]);
            unlink(path);
        }
        free(lp->purged_out[i]);
    }
    lp->npurged_out = 0;
    remove_runs(lp);
    lp->purged_total += (int64_t)lp->npurged;
    gsd_log("retention: purged %zu ended jobs older than %lld s (rows, events, output, "
            "run files)", lp->npurged, (long long)(lp->sh.opts.retain_ms / 1000));
    lp->npurged = 0;
}

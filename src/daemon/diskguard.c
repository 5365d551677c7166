/* diskguard.c - write failures are an outage of writes, never of the
 * daemon (docs/operations.md, "Disk full"): the free-space floor on the
 * journal's filesystem, the per-job file size cap, and the options that
 * set them.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/loop_eta.h"
#include "daemon/view.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/statvfs.h>

int gsd_disk_opt(struct gsd_opts *o, const char *name, const char *arg)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (!strcmp(name, "min-free-mb")) {
        if (end == arg || *end || errno || !(v >= 0 && v <= 1e9)) {
            fprintf(stderr, "gpuschedd: --min-free-mb: expected MiB (0..1e9), got '%s'\n", arg);
            return 2;
        }
        o->min_free = (int64_t)(v * 1048576.0);
        return 0;
    }
    double mul = 0;
    switch (end != arg ? *end : '?') {
    case '\0': mul = 1; break;
    case 'K': case 'k': mul = 1024.0; break;
    case 'M': case 'm': mul = 1048576.0; break;
    case 'G': case 'g': mul = 1073741824.0; break;
    case 'T': case 't': mul = 1099511627776.0; break;
    case '%': mul = -1; break;
    }
    if (mul == 0 || (end[0] && end[1]) || errno || !(v >= 0 && v * (mul > 0 ? mul : 1) < 9e18) ||
        (mul < 0 && !(v > 0 && v <= 100))) {
        fprintf(stderr, "gpuschedd: --job-file-limit: expected SIZE[K|M|G|T], N%% (1..100) "
                        "or 0, got '%s'\n", arg);
        return 2;
    }
    o->file_limit_pct = mul < 0 ? (int)v : 0;
    o->file_limit = mul > 0 ? (int64_t)(v * mul) : 0;
    return 0;
}

int64_t gsd_disk_free(const char *path)
{
    struct statvfs sv;
    if (statvfs(path, &sv) < 0)
        return -1;
    return (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
}

void gsd_disk_setup(struct gsd_loop *lp)
{
    lp->file_limit = lp->sh.opts.file_limit;
    if (lp->sh.opts.file_limit_pct > 0) {
        struct statvfs sv;
        if (statvfs(lp->sh.out_dir, &sv) == 0)
            lp->file_limit = (int64_t)((double)sv.f_blocks * (double)sv.f_frsize *
                                       lp->sh.opts.file_limit_pct / 100.0);
    }
    if (lp->file_limit > 0)
        gsd_log("job files are capped at %lld bytes each (--job-file-limit; RLIMIT_FSIZE)",
                (long long)lp->file_limit);
}

/* Outage: the journal could not commit.  Writes are answered 507 (disk
 * full) or 503 (another journal error) with Retry-After; reads go on from
 * the published state; a probe commit is tried with back-off (0.1 s
 * doubling to 5 s) once the free space is above the floor again. */

void gsd_outage_mark(struct gsd_loop *lp, const char *why)
{
    int kind = gs_store_failure(lp->st) == 1 ? 1 : 2;
    int64_t mono = gsd_mono_ms();
    if (!lp->outage) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        lp->outage_since = (int64_t)t.tv_sec;
        /* a relapse soon after the end of the last outage (a probe fits, a
           turn does not) goes on with its back-off, and is logged once */
        int relapse = lp->outages && mono - lp->outage_ended < 10000;
        lp->outage_backoff = !relapse ? 100 : lp->outage_backoff < 5000 ? lp->outage_backoff * 2
                                                                        : 5000;
        lp->outages++;
        if (!relapse)
            gsd_log("journal cannot commit (%s): writes are refused with %d until it can; "
                    "reads go on from the last commit", why, kind == 1 ? 507 : 503);
    } else if (lp->outage_backoff < 5000) {
        lp->outage_backoff *= 2;
    }
    lp->outage = kind;
    snprintf(lp->outage_why, sizeof lp->outage_why, "%s", why);
    lp->outage_next = mono + lp->outage_backoff;
    atomic_store(&lp->sh.outage_pub, kind);
}

static void done_count(void *arg, const char *team, const char *outcome, int64_t n)
{
    struct gsd_loop *lp = arg;
    for (int o = O_COMPLETED; o <= O_REJECTED; o++)
        if (outcome && !strcmp(outcome, gsd_outcome_name(o)))
            gsd_count_done(lp, team, o, n);
}

int gsd_outage_begin(struct gsd_loop *lp, const char *why)
{
    if (!gs_store_failure(lp->st))
        return 0; /* not the journal's failure: fatal */
    gs_store_rollback(lp->st);
    gsd_outage_mark(lp, why);
    lp->npurged = 0; /* their rows stay: so do their files */
    /* the failed turn changed the engine and the jobs: start them again from
       the last commit, as a restart would (processes run on, re-adopted) */
    gsd_jobs_drop_all(lp);
    gsd_conflicts_fini(lp);
    free(lp->qcache);
    lp->qcache = NULL;
    lp->nqcache = 0;
    gs_engine_destroy(lp->eng);
    lp->eng = NULL;
    for (size_t i = 0; i < lp->ndone; i++)
        free(lp->done[i].team);
    lp->ndone = 0;
    if (gs_store_meta_get(lp->st, "next_id", &lp->next_id) < 0)
        lp->next_id = 1;
    gsd_fail_load(lp); /* the counters of the last commit */
    gsd_eta_load(lp);
    if (gsd_engine_create(lp, &lp->pol) < 0 || gsd_restore_all(lp, 1) < 0 ||
        gs_store_done_counts(lp->st, done_count, lp) < 0) {
        gsd_log("the engine cannot be rebuilt from the journal after the failed commit");
        return 0;
    }
    lp->view_force = 1;
    if (!lp->sh.reads_on_engine)
        gsd_view_update(lp, 0);
    return 1;
}

static int probe_commit(struct gsd_loop *lp, struct gs_error *err)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    int rc = gs_store_begin(lp->st, err);
    if (rc == 0)
        rc = gs_store_meta_set(lp->st, "journal_probe", (int64_t)t.tv_sec, err);
    if (rc == 0 && lp->clock_unsaved) /* clock_setup's writes failed at start */
        rc = gsd_clock_save(lp, err);
    if (rc == 0)
        rc = gs_store_commit(lp->st, err);
    if (rc < 0)
        gs_store_rollback(lp->st);
    return rc;
}

int gsd_outage_probe(struct gsd_loop *lp)
{
    if (gsd_mono_ms() < lp->outage_next)
        return 0;
    int64_t fr = gsd_disk_free(lp->sh.opts.state);
    if (lp->sh.opts.min_free > 0 && fr >= 0 && fr < lp->sh.opts.min_free) {
        lp->outage_next = gsd_mono_ms() + lp->outage_backoff;
        return 0; /* not worth a try yet */
    }
    struct gs_error err;
    gs_error_clear(&err);
    if (probe_commit(lp, &err) < 0) {
        gsd_outage_mark(lp, err.msg);
        return 0;
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    if (gsd_mono_ms() - lp->outage_ended >= 10000)
        gsd_log("journal commits again after %lld s; %lld writes were refused meanwhile",
                (long long)(t.tv_sec - lp->outage_since), (long long)lp->outage_refused);
    lp->outage_ended = gsd_mono_ms();
    lp->outage = 0;
    lp->clock_unsaved = 0;
    lp->outage_refused = 0;
    atomic_store(&lp->sh.outage_pub, 0);
    return 1;
}

int gsd_outage_timeout(const struct gsd_loop *lp)
{
    int64_t d = lp->outage_next - gsd_mono_ms();
    return d < 0 ? 0 : d > 5000 ? 5000 : (int)d;
}

/* Answer c (a write) 507 or 503 for the outage or the floor. */
static void refuse(struct gsd_loop *lp, struct gsd_cmd *c, int status, const char *why)
{
    free(c->body);
    c->status = status;
    c->body = gsd_error_json(status, status == 507 ? "insufficient_storage" : "unavailable",
                             NULL, "the journal cannot take writes now (%s); nothing was "
                             "changed; retry later", why);
    lp->outage_refused++;
    lp->writes_refused++;
}

void gsd_outage_answer(struct gsd_loop *lp, struct gsd_cmd *cmds, int (*is_write)(int))
{
    if (!lp->sh.view && !lp->sh.reads_on_engine) /* started in the outage: no commit yet */
        gsd_view_update(lp, 0);
    for (struct gsd_cmd *c = cmds; c; c = c->next) {
        if (is_write(c->kind))
            refuse(lp, c, lp->outage == 1 ? 507 : 503, lp->outage_why);
        else if (!c->body && (lp->sh.reads_on_engine || !gsd_view_answer(lp, c)))
            gsd_answer(lp, c);
    }
}

int gsd_floor_refuse(struct gsd_loop *lp, struct gsd_cmd *c)
{
    if (c->kind != GSD_SUBMIT || lp->sh.opts.min_free <= 0)
        return 0;
    if (lp->floor_turn != lp->turns) { /* one statvfs a turn */
        lp->floor_turn = lp->turns;
        lp->floor_free = gsd_disk_free(lp->sh.opts.state);
    }
    if (lp->floor_free < 0 || lp->floor_free >= lp->sh.opts.min_free)
        return 0;
    char why[160];
    snprintf(why, sizeof why, "%lld KiB free on the journal's filesystem, under the "
             "--min-free-mb floor of %lld KiB", (long long)(lp->floor_free >> 10),
             (long long)(lp->sh.opts.min_free >> 10));
    refuse(lp, c, 507, why);
    return 1;
}

json_t *gsd_journal_json(struct gsd_loop *lp)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "writable", json_boolean(!lp->outage));
    json_object_set_new(o, "outage", lp->outage
                                         ? json_pack("{s:s, s:I, s:s}", "status",
                                                     lp->outage == 1 ? "disk_full" : "error",
                                                     "since_epoch", (json_int_t)lp->outage_since,
                                                     "reason", lp->outage_why)
                                         : json_null());
    json_object_set_new(o, "free_bytes", json_integer(gsd_disk_free(lp->sh.opts.state)));
    json_object_set_new(o, "min_free_bytes", json_integer(lp->sh.opts.min_free));
    json_object_set_new(o, "job_file_limit_bytes", json_integer(lp->file_limit));
    json_object_set_new(o, "writes_refused", json_integer(lp->writes_refused));
    json_object_set_new(o, "retain_seconds", json_integer(lp->sh.opts.retain_ms / 1000));
    json_object_set_new(o, "purged_total", json_integer(lp->purged_total));
    json_object_set_new(o, "conflicts", gsd_conflicts_json(lp));
    return o;
}

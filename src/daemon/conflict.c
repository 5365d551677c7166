/* conflict.c - journal rows that cannot be restored (two running jobs on
 * one GPU, a placement on a GPU the cluster no longer has, an unreadable
 * request) are kept out of the engine instead of refusing to start: the
 * daemon starts, logs each, lists them in /v1/cluster ("journal" ->
 * "conflicts") and /readyz, and leaves them as they are (their processes
 * run on) until the operator cancels one (`gpusched cancel ID`: its row
 * ends cancelled and its supervisor, if still the same process, is told to
 * SIGKILL its job) or restarts the daemon once the other job has ended
 * (docs/operations.md, "Journal conflicts").
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/view.h"

#include <stdlib.h>
#include <string.h>

struct gsd_conflict {
    int64_t seq;
    char *id, *team, *why;
    struct gsd_proc proc;     /* the attempt's supervisor as the row records it */
};

int gsd_conflict_hold(struct gsd_loop *lp, struct djob *d, const char *why)
{
    /* d was the last job made (gsd_job_new): take it back out */
    if (lp->nlive == 0 || lp->live[lp->nlive - 1] != d ||
        gsd_grow((void **)&lp->conflicts, &lp->capconflicts, lp->nconflicts + 1,
                 sizeof *lp->conflicts) < 0)
        return -1;
    struct gsd_conflict *k = &lp->conflicts[lp->nconflicts];
    *k = (struct gsd_conflict){ d->seq, strdup(d->id), strdup(d->team), strdup(why), d->proc };
    if (!k->id || !k->team || !k->why) {
        free(k->id);
        free(k->team);
        free(k->why);
        return -1;
    }
    lp->nconflicts++;
    lp->nlive--;
    free(d->id);
    free(d->team);
    free(d->user);
    free(d->request);
    free(d->placement);
    free(d->launch_msg);
    free(d);
    gsd_log("job %s: held out of the engine (journal conflict: %s); its processes are left "
            "as they are: cancel it, or restart once the other job has ended "
            "(docs/operations.md)", k->id, k->why);
    return 0;
}

void gsd_conflicts_report(struct gsd_loop *lp)
{
    atomic_store(&lp->sh.nconflict_pub, (int)lp->nconflicts);
    if (lp->nconflicts)
        gsd_log("%zu journal rows conflict with the cluster or each other and are held "
                "(GET /v1/cluster: journal.conflicts)", lp->nconflicts);
}

struct end_ctx {
    struct gsd_loop *lp;
    gs_time now;
    int rc;
};

static int end_row(void *arg, const struct gs_store_job *r)
{
    struct end_ctx *x = arg;
    struct gs_store_job j = *r;
    j.state = "done";
    j.outcome = "cancelled";
    j.end = x->now;
    j.stop = GS_STOP_NONE;
    x->rc = gs_store_job_update(x->lp->st, &j, NULL);
    return 1;
}

int gsd_conflict_cancel(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    size_t i = 0;
    while (i < lp->nconflicts && strcmp(lp->conflicts[i].id, c->id) != 0)
        i++;
    if (i == lp->nconflicts)
        return -2;
    struct gsd_conflict *k = &lp->conflicts[i];
    if (c->team_only && strcmp(c->team_only, k->team) != 0) {
        c->status = 403;
        c->body = gsd_error_json(403, "forbidden", "team",
                                 "job '%.100s' belongs to team '%.60s'", c->id, k->team);
        return 0;
    }
    struct end_ctx x = { lp, now, -1 };
    if (gs_store_job_by_seq(lp->st, k->seq, end_row, &x) != 1 || x.rc < 0 ||
        gs_store_event(lp->st, now, k->seq, "cancel", k->why, NULL) < 0)
        return -1;
    if (lp->be->host_procs && gsd_be_signal(lp, &k->proc, GSD_SIG_KILL) == 0)
        gsd_log("job %s: conflict cancelled; its supervisor %d kills the job", k->id,
                (int)k->proc.pid);
    else
        gsd_log("job %s: conflict cancelled (no live supervisor of it here)", k->id);
    gsd_count_done(lp, k->team, O_CANCELLED, 1);
    *seq = k->seq;
    c->status = 200;
    free(k->id);
    free(k->team);
    free(k->why);
    lp->conflicts[i] = lp->conflicts[--lp->nconflicts];
    atomic_store(&lp->sh.nconflict_pub, (int)lp->nconflicts);
    lp->view_force = 1;
    return 1;
}

json_t *gsd_conflicts_json(const struct gsd_loop *lp)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < lp->nconflicts; i++)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "id", lp->conflicts[i].id,
                                           "team", lp->conflicts[i].team, "reason",
                                           lp->conflicts[i].why));
    return a;
}

void gsd_conflicts_fini(struct gsd_loop *lp)
{
    for (size_t i = 0; i < lp->nconflicts; i++) {
        free(lp->conflicts[i].id);
        free(lp->conflicts[i].team);
        free(lp->conflicts[i].why);
    }
    free(lp->conflicts);
    lp->conflicts = NULL;
    lp->nconflicts = lp->capconflicts = 0;
}

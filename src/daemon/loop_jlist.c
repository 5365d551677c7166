/* loop_jlist.c - the engine thread's job lists: the live jobs that have a
 * flag set which a turn acts on (an ended supervisor, a confirmation held
 * for its group, a launch to confirm, a launch wanted, a row to journal:
 * gsd_job_dirty, a promise's P90 bound passed: gsd_eta_due), so that a turn walks those jobs instead of scanning
 * every live one.
 *
 * The rule: whoever sets such a flag also adds the job to its list
 * (gsd_job_exited, gsd_jl_add); a list may hold jobs whose flag was
 * cleared since (the walk checks the flag, as the scan did), never miss one
 * whose flag is set (GPUSCHEDD_ENGINE_CHECK=1 checks it after each turn,
 * gsd_jl_check).  A walk takes the list (gsd_jl_take) in the order of
 * lp->live, the order of the scan it replaces, so the engine hears of
 * exits and launches in the same order as before; a job the walk leaves
 * flagged is added again.  A freed job leaves every list (gsd_jl_forget).
 */
#include "daemon/loop_private.h"

#include <stdlib.h>

#include "daemon/log.h"

void gsd_jl_add(struct gsd_loop *lp, int k, struct djob *d)
{
    struct gsd_jlist *l = &lp->jl[k];
    if (d->jl[k] || l->all)
        return;
    if (gsd_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(struct djob *)) < 0) {
        l->all = 1; /* out of memory: the next walk goes over every live job */
        return;
    }
    l->v[l->n++] = d;
    d->jl[k] = l->n;
}

void gsd_job_exited(struct gsd_loop *lp, struct djob *d)
{
    d->exited = 1;
    gsd_jl_add(lp, GSD_JL_EXITED, d);
}

void gsd_jl_forget(struct gsd_loop *lp, struct djob *d)
{
    for (int k = 0; k < GSD_JL_N; k++) {
        struct gsd_jlist *l = &lp->jl[k];
        size_t i = d->jl[k];
        if (!i)
            continue;
        struct djob *last = l->v[--l->n];
        l->v[i - 1] = last;
        last->jl[k] = i;
        d->jl[k] = 0;
    }
}

static int by_place(const void *a, const void *b)
{
    size_t x = (*(struct djob *const *)a)->li, y = (*(struct djob *const *)b)->li;
    return x < y ? -1 : x > y;
}

struct djob **gsd_jl_take(struct gsd_loop *lp, int k, size_t *n)
{
    struct gsd_jlist *l = &lp->jl[k];
    struct djob **v = l->v;
    *n = l->n;
    if (l->all) { /* after an allocation failure: every live job, in order */
        free(v);
        v = lp->nlive ? malloc(lp->nlive * sizeof(struct djob *)) : NULL;
        *n = v ? lp->nlive : 0;
        for (size_t i = 0; i < *n; i++)
            v[i] = lp->live[i];
        for (size_t i = 0; i < lp->nlive; i++)
            lp->live[i]->jl[k] = 0;
        l->all = !v && lp->nlive; /* still none: try again next turn */
    } else {
        for (size_t i = 0; i < *n; i++)
            v[i]->jl[k] = 0;
        if (*n > 1)
            qsort(v, *n, sizeof(struct djob *), by_place);
    }
    l->v = NULL;
    l->n = l->cap = 0;
    return v;
}

/* Whether d has the flag of list k set. */
static int flagged(const struct djob *d, int k)
{
    switch (k) {
    case GSD_JL_EXITED: return d->exited;
    case GSD_JL_HELD: return d->held;
    case GSD_JL_CONFIRM: return d->launched || d->launch_error || d->launch_deferred;
    case GSD_JL_DIRTY: return d->dirty;
    case GSD_JL_ETA: return d->eta_due;
    default: return d->launch_wanted;
    }
}

int gsd_jl_check_one(struct gsd_loop *lp, int k)
{
    for (size_t i = 0; i < lp->nlive; i++) {
        const struct djob *d = lp->live[i];
        if (flagged(d, k) && !d->jl[k] && !lp->jl[k].all) {
            gsd_logl(GSD_LOG_ERR, "job %s: flag of list %d set but not listed", d->id, k);
            return -1;
        }
    }
    return 0;
}

int gsd_jl_check(struct gsd_loop *lp)
{
    for (int k = 0; k < GSD_JL_N; k++)
        if (gsd_jl_check_one(lp, k) < 0)
            return -1;
    return 0;
}

void gsd_jl_fini(struct gsd_loop *lp)
{
    for (int k = 0; k < GSD_JL_N; k++)
        free(lp->jl[k].v);
}

/* view_jobs.h - the live jobs' part of the published view (view.c), kept
 * by the engine thread from one publish to the next: the job table
 * (vtab.h), the not-pending jobs by journal seq and the queue in pass
 * order as slot lists, and the jobs touched since the last publish
 * (gsd_view_touch, gsd_view_drop in view.h).  A publish costs the touched
 * jobs: their objects are rendered again and put in the table, and the
 * lists are shared with the previous view while they do not change.  The
 * queue's order is kept likewise: the touched jobs are re-keyed
 * (gsd_vjobs_order).
 *
 * GPUSCHEDD_VIEW_CHECK=1 checks every publish against a full rebuild
 * (every live job rendered again, the lists made afresh) and logs each
 * difference as "view check: ..." (tests/cli/daemon_view_check.t).
 */
#ifndef GS_DAEMON_VIEW_JOBS_H
#define GS_DAEMON_VIEW_JOBS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/engine/engine.h"

struct gsd_loop;
struct djob;
struct gsd_vsnap;
struct gsd_blob;

/* A live job's state kept by the view's side (struct djob's member
 * `view`, defined here so that the job's own fields do not carry it): the
 * engine thread's other files only create it (gsd_vjob_init), mark the
 * job's row changed (dirty, with gsd_view_touch) and free it
 * (gsd_vjob_fini); the rest is view_jobs.c's and view.c's. */
struct gsd_vjob {
    int dirty;                /* its row changed since its object was published */
    struct gsd_blob *blob;    /* its job object as last published (view.h) */
    char *diag;               /* pending: its diagnosis JSON as last rendered */
    int slot;                 /* its slot in the view's table (vtab.h), -1 = none */
    int pre;                  /* in the view's list of not-pending jobs */
    size_t chg;               /* 1 + its place in the view's changed list, 0 = none */
    int q;                    /* in the view's kept queue order, under key qk */
    struct gs_queue_key qk;
};

/* A new job's view state: nothing published, no slot. */
void gsd_vjob_init(struct gsd_vjob *v);
/* Free what v holds (its published object's reference, its diagnosis);
 * v is left empty. */
void gsd_vjob_fini(struct gsd_vjob *v);

/* An immutable list of table slots, shared by reference count. */
struct gsd_slots {
    atomic_int refs;
    size_t n;
    uint32_t s[];
};

/* Take / drop a reference (NULL is a no-op). */
struct gsd_slots *gsd_slots_ref(struct gsd_slots *l);
void gsd_slots_unref(struct gsd_slots *l);

/* Render live job d again (a pending one with the engine's diagnosis,
 * kept in d->diag) and put it in the table.  Returns 0 or -1 out of
 * memory (the table is rebuilt at the next publish). */
int gsd_vjobs_render(struct gsd_loop *lp, struct djob *d);

/* Bring the table up to date with the jobs touched since the last call
 * (all live jobs after a failure, at the first call or when `all`);
 * *changed = some job was rendered again.  Returns 0 or -1. */
int gsd_vjobs_sync(struct gsd_loop *lp, int all, int *changed);

/* After a turn: the queue in the next pass's order, for the next views
 * and in lp->qcache (its pending jobs; lp->nqcache of them).  The order is
 * kept between turns by the engine's keys (gs_engine_queue_key): the jobs
 * touched in the turn leave it and join it again at their key's place,
 * and it is listed again in full (gs_engine_queue_list) only when `all`,
 * when some key no longer holds (a job reached its aging time; while aged
 * jobs wait, every turn) or when the order has no keys (fifo).  Returns 0
 * or -1 out of memory. */
int gsd_vjobs_order(struct gsd_loop *lp, int all);

/* For a new view: a snapshot of the table and references to the two
 * lists; 0, or -1 out of memory (nothing is held then). */
int gsd_vjobs_take(struct gsd_loop *lp, struct gsd_vsnap **snap, struct gsd_slots **pre,
                   struct gsd_slots **queue);

/* GPUSCHEDD_VIEW_CHECK: compare what was just taken against a full
 * rebuild; logs and returns the number of differences. */
int gsd_vjobs_check(struct gsd_loop *lp, const struct gsd_vsnap *snap,
                    const struct gsd_slots *pre, const struct gsd_slots *queue);

/* Release what the engine thread keeps (at shutdown). */
void gsd_vjobs_fini(struct gsd_loop *lp);

#endif

/* recover.c - what a restart keeps of the recovery of requeued jobs
 * (docs/failures.md, "Recovery policies"): the right to the hot spares of a
 * job requeued by a node failure (its engine record's `recover`, journalled
 * with it) and the fifo queue's order, in which an expedited job sits ahead
 * of the jobs submitted before it (the records' queue stamps).
 */
#include "daemon/loop_private.h"

#include <stdlib.h>

int gsd_spare_rights(const struct gsd_loop *lp, const struct djob *d)
{
    const struct gs_policy *pol = gs_engine_policy(lp->eng);
    return d->ji.state == GS_JOB_PENDING && d->ji.recover && pol->spares_nodes > 0 &&
           d->gpus >= pol->spares_min_gpus;
}

struct stamped {
    int64_t stamp;
    int handle;
};

static int cmp_stamp(const void *a, const void *b)
{
    const struct stamped *x = a, *y = b;
    if (x->stamp != y->stamp)
        return x->stamp < y->stamp ? -1 : 1;
    return (x->handle > y->handle) - (x->handle < y->handle);
}

int gsd_restore_fifo_order(struct gsd_loop *lp)
{
    if (gs_engine_policy(lp->eng)->queue_policy != GS_QUEUE_FIFO)
        return 0; /* the other orders sort by their keys (front included) */
    int n = gs_engine_queue_list(lp->eng, NULL, 0);
    if (n <= 1)
        return n < 0 ? -1 : 0;
    int *h = malloc((size_t)n * sizeof *h);
    struct stamped *v = malloc((size_t)n * sizeof *v);
    int rc = h && v && gs_engine_queue_list(lp->eng, h, (size_t)n) == n ? 0 : -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        struct gs_job_info ji;
        rc = gs_engine_job_info(lp->eng, h[i], &ji) < 0 ? -1 : 0;
        v[i] = (struct stamped){ ji.qstamp, h[i] };
    }
    if (rc == 0) {
        /* front entries (< 0) first, the latest first; then the others in
           the order they entered; stamps of the same value keep handle order */
        qsort(v, (size_t)n, sizeof *v, cmp_stamp);
        for (int i = 0; i < n; i++)
            h[i] = v[i].handle;
        struct gs_error err;
        gs_error_clear(&err);
        if (gs_engine_restore_queue(lp->eng, h, (size_t)n, &err) < 0) {
            gsd_log("restore: the queue order cannot be restored: %s", err.msg);
            rc = -1;
        }
    }
    free(h);
    free(v);
    return rc;
}

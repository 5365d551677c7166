/* loop_shared.c - the loop's entry points for the HTTP threads: hand a
 * command to the engine thread and wait for its answer (gsd_call), and
 * /readyz (gsd_loop_ready, gsd_loop_health).  They touch only the shared
 * part of the loop (loop_shared.h), under its rule: the command queue
 * under sh->mu, the published flags with atomic loads.
 */
#include "daemon/loop_shared.h"

#include <stdio.h>
#include <unistd.h>

int gsd_loop_ready(struct gsd_loop *lp)
{
    struct gsd_shared *sh = gsd_shared_of(lp);
    return atomic_load(&sh->ready);
}

void gsd_call(struct gsd_loop *lp, struct gsd_cmd *c)
{
    struct gsd_shared *sh = gsd_shared_of(lp);
    c->done = 0;
    c->next = NULL;
    pthread_mutex_lock(&sh->mu);
    if (sh->closing) {
        pthread_mutex_unlock(&sh->mu);
        c->status = 503;
        c->body = gsd_error_json(503, "stopping", NULL, "the daemon is stopping");
        return;
    }
    if (sh->tail)
        sh->tail->next = c;
    else
        sh->head = c;
    sh->tail = c;
    pthread_mutex_unlock(&sh->mu);
    uint64_t one = 1;
    if (write(sh->efd, &one, sizeof one) < 0) {
        /* the counter is full: the loop is awake anyway */
    }
    pthread_mutex_lock(&sh->mu);
    while (!c->done)
        pthread_cond_wait(&sh->cv, &sh->mu);
    pthread_mutex_unlock(&sh->mu);
}

void gsd_loop_health(struct gsd_loop *lp, char *buf, size_t n)
{
    struct gsd_shared *sh = gsd_shared_of(lp);
    int out = atomic_load(&sh->outage_pub), k = atomic_load(&sh->nconflict_pub);
    size_t w = (size_t)snprintf(buf, n, "ready\n");
    if (out && w < n)
        w += (size_t)snprintf(buf + w, n - w, "journal: not writable (%s): writes get %d, "
                              "reads are served\n", out == 1 ? "disk full" : "error",
                              out == 1 ? 507 : 503);
    if (k && w < n)
        snprintf(buf + w, n - w, "journal: %d jobs held in conflict (GET /v1/cluster: "
                 "journal.conflicts)\n", k);
}

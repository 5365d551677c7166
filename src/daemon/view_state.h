/* view_state.h - what view.c (the engine thread's side: building and
 * publishing a view) and view_read.c (the readers' side: answering from
 * a published view) share: the view itself, the text builder, and the
 * blob and reference helpers.  Not for other files (view.h is the
 * interface).
 */
#ifndef GS_DAEMON_VIEW_STATE_H
#define GS_DAEMON_VIEW_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/types.h"
#include "daemon/view.h"

/* A published view: immutable once published, but for `queue` (under
 * qmu); freed by the last gsd_view_unref. */
struct gsd_view {
    atomic_int refs;
    int64_t gen;
    gs_time now;
    int64_t e0, m0;           /* the engine clock (loop_private.h), for view_now */
    double scale;
    struct gsd_vsnap *jobs;   /* the job table (vtab.h), shared by chunks */
    struct gsd_slots *pre;    /* the not-pending jobs by seq (slots) */
    struct gsd_slots *q;      /* the queue in pass order (slots) */
    struct gsd_blob *nodes, *cluster, *metrics, *dash;
    pthread_mutex_t qmu;      /* guards queue, rendered by its first reader */
    struct gsd_blob *queue;
};

/* A growing text: bad = an allocation failed (the text is then dropped). */
struct gsd_sb {
    char *s;
    size_t n, cap;
    int bad;
};

/* Append n bytes of s to b (NUL-terminated after; on allocation failure
 * b->bad is set and later appends are ignored). */
void gsd_sb_add(struct gsd_sb *b, const char *s, size_t n);
/* A job object into a list being written (a comma before all but the
 * first; *first cleared). */
void gsd_sb_job(struct gsd_sb *b, int *first, const char *text, size_t n);
/* A body blob made from malloc'd text (freed here, also on failure);
 * NULL when text is NULL or out of memory. */
struct gsd_blob *gsd_body_blob(char *text);
/* Drop a reference to v (NULL: nothing); the last one frees it. */
void gsd_view_unref(struct gsd_view *v);

#endif

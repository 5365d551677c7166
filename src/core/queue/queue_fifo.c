/* queue_fifo.c - the fifo order (gs_queue_fifo_ops): submission order, the
 * queue array itself (same instant: trace order), with no sorting and no
 * kept lists.  A job requeued after a failed launch is appended like any
 * other.  Priorities do not reorder fifo; a job's key is its plain
 * priority (the diagnosis reads it). */
#include "core/queue/queue_private.h"

static int fifo_begin(struct gs_engine *eng, gs_time now, struct qcursor *cur)
{
    (void)cur; /* the queue array range is all it walks */
    return gs_queue_scan_joined(eng, now, 0);
}

static int fifo_next(struct gs_engine *eng, struct qcursor *cur)
{
    while (cur->f < cur->fend) {
        int job = gs_eng_queued(eng, cur->f++);
        if (job >= 0)
            return job;
    }
    return -1;
}

static int fifo_list(const struct gs_engine *eng, gs_time now, int *out, size_t cap)
{
    (void)now;
    size_t n = 0;
    for (size_t i = eng->phead; i < eng->ptail; i++) {
        int job = gs_eng_queued(eng, i);
        if (job < 0)
            continue;
        if (n < cap)
            out[n] = gs_eng_handle(eng, job);
        n++;
    }
    return (int)n;
}

static int64_t fifo_eff_prio(const struct gs_engine *eng, const struct job *j, gs_time now)
{
    (void)eng;
    (void)now;
    return gs_queue_base_prio(j);
}

/* New jobs join behind the head: it stays first. */
static int fifo_head_kept(const struct gs_engine *eng)
{
    (void)eng;
    return 1;
}

/* Submission order: the earlier handle.  Priorities do not count. */
static int fifo_ahead(const struct gs_engine *eng, const struct job *a, const struct job *b,
                      gs_time now)
{
    (void)eng;
    (void)now;
    return a->handle < b->handle;
}

const struct gs_queue_order_ops gs_queue_fifo_ops = {
    .name = "fifo",
    .begin = fifo_begin,
    .next = fifo_next,
    .end = NULL, /* nothing kept, nothing to clean */
    .list = fifo_list,
    .eff_prio = fifo_eff_prio,
    .head_kept = fifo_head_kept,
    .ahead = fifo_ahead,
};

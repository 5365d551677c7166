/* queue_dispatch.c - the registry of queue orders (queue.policy -> order)
 * and the calls that dispatch to them (queue_private.h).  The orders are
 * in queue_fifo.c and queue_order.c. */
#include "core/queue/queue_private.h"

/* The registry: queue.policy -> order.  priority_with_backfill differs from
 * priority only in its default backfill (gs_policy_backfill_mode). */
static const struct gs_queue_order_ops *const orders[] = {
    [GS_QUEUE_FIFO] = &gs_queue_fifo_ops,
    [GS_QUEUE_PRIORITY] = &gs_queue_priority_ops,
    [GS_QUEUE_PRIORITY_BACKFILL] = &gs_queue_priority_ops,
};

const struct gs_queue_order_ops *gs_queue_order_of(int queue_policy)
{
    size_t n = sizeof orders / sizeof orders[0];
    return queue_policy >= 0 && (size_t)queue_policy < n && orders[queue_policy]
               ? orders[queue_policy]
               : &gs_queue_fifo_ops;
}

static const struct gs_queue_order_ops *order_of(const struct gs_engine *eng)
{
    return gs_queue_order_of(eng->pol.queue_policy);
}

int gs_queue_order_begin(struct gs_engine *eng, gs_time now, struct qcursor *cur)
{
    if (!gs_queue_state(eng))
        return GS_ENOMEM;
    cur->now = now;
    cur->dead = 0;
    cur->fast = 0;
    cur->f = eng->phead;
    cur->fend = eng->ptail; /* jobs requeued during the pass wait for the next */
    return order_of(eng)->begin(eng, now, cur);
}

int gs_queue_order_next(struct gs_engine *eng, struct qcursor *cur)
{
    return order_of(eng)->next(eng, cur);
}

int gs_queue_order_skip(struct gs_engine *eng, struct qcursor *cur, uint64_t mask, uint64_t rec,
                        uint64_t code)
{
    const struct gs_queue_order_ops *o = order_of(eng);
    return o->skip && mask ? o->skip(eng, cur, mask, rec, code) : 0;
}

void gs_queue_order_end(struct gs_engine *eng, const struct qcursor *cur)
{
    const struct gs_queue_order_ops *ops = order_of(eng);
    if (eng->q && ops->end)
        ops->end(eng, cur);
}

int gs_queue_order_list(const struct gs_engine *eng, gs_time now, int *out, size_t cap)
{
    return order_of(eng)->list(eng, now, out, cap);
}

int64_t gs_queue_eff_prio(const struct gs_engine *eng, const struct job *j, gs_time now)
{
    return order_of(eng)->eff_prio(eng, j, now);
}

int gs_queue_ahead(const struct gs_engine *eng, const struct job *a, const struct job *b,
                   gs_time now)
{
    return order_of(eng)->ahead(eng, a, b, now);
}

int gs_engine_queue_list(const struct gs_engine *eng, int *out, size_t cap)
{
    return gs_queue_order_list(eng, eng->now == GS_TIME_NONE ? 0 : eng->now, out, cap);
}


/* queue_wakeup.c - when the queue asks the engine to run again (the
 * continuation and min_pass_interval, gs_queue_wakeup; the aging wakeup,
 * gs_queue_aging_change) and the queue's counters (gs_engine_queue_stats).
 * Reads the state the last pass left (queue_private.h). */
#include "core/queue/queue_private.h"
#include "core/queue/qclass.h"

void gs_engine_queue_stats(const struct gs_engine *eng, struct gs_queue_stats *out)
{
    const struct gs_qstate *q = eng->q;
    out->passes = q ? (int64_t)q->passes : 0;
    out->held_back = q ? (int64_t)q->deferred : 0;
    out->skipped = q ? (int64_t)q->skipped : 0;
    out->stopped = q ? (int64_t)q->stopped : 0;
    out->reached = q ? (int64_t)q->reached : 0;
    out->tried = q ? (int64_t)q->tried : 0;
    out->classes = q ? gs_qclass_count(q->cls) : 0;
}

gs_time gs_queue_wakeup(const struct gs_engine *eng)
{
    const struct gs_qstate *q = eng->q;
    if (!q || (!q->waiting && !q->cont))
        return GS_TIME_INF;
    return gs_time_add(q->last_pass, eng->pol.min_pass_interval);
}

/* Why waking at this time keeps every decision (docs/policy.md,
 * queue.pass_interval).  The last pass ran at `now`, started nothing and
 * stopped nothing, and nothing has happened since.  A pass at a later t
 * with no event in between sees the same queue, cluster, quotas and
 * victims' rights; only these read the clock:
 *   - the order (aged keys): gs_queue_order_change;
 *   - preemption: a victim's min_runtime and runtime cap are engine
 *     wakeups already; its cost only ranks victims of a plan, and no plan
 *     was found;
 *   - backfill: a reservation starts at the earliest instant its GPUs are
 *     free by the profile (fixed free times > now, idle GPUs from now on),
 *     so it stays where it is while t is before it, before every busy
 *     GPU's expected end and before the next estimated end the engine
 *     replans at (plan_overruns); and a job behind the reservations that
 *     could not start at now cannot at t: a window [t, t + estimate)
 *     overlaps every reservation [now, now + estimate) did.
 * A reservation at now or now + 1, or a busy GPU already past its expected
 * end, moves with the clock: then the answer is now (tick as before).
 * min_pass_interval > 0 also answers now: a pass moves last_pass. */
gs_time gs_queue_aging_change(const struct gs_engine *eng, gs_time now)
{
    const struct gs_qstate *q = eng->q;
    if (!q || !q->quiet || q->last_pass != now || eng->pol.min_pass_interval > 0 ||
        q->quiet_npending != eng->npending || q->quiet_handles != eng->nhandles ||
        q->quiet_releases != eng->releases || q->quiet_decisions != eng->decisions ||
        gs_queue_order_of(eng->pol.queue_policy) != &gs_queue_priority_ops)
        return now;
    gs_time t = gs_queue_order_change(eng, now);
    if (eng->backfill != GS_BACKFILL_NONE) {
        if (q->res_min <= gs_time_add(now, 1))
            return now;
        gs_time f = gs_profile_next_free(eng->profile, now);
        if (f <= now)
            return now;
        if (q->res_min < t)
            t = q->res_min;
        if (f < t)
            t = f;
        gs_time e = gs_eng_next_expect(eng);
        if (e < t)
            t = e;
    }
    return t;
}

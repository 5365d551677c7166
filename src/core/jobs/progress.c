/* progress.c - phase arithmetic for running jobs (see progress.h). */
#include "core/jobs/progress.h"
#include "core/base/satmath.h"

#define UNITS 1000 /* work units per ms of work */

/* ceil(a / b) for b > 0, 0 for a <= 0; no a + b - 1 that could pass
 * INT64_MAX. */
static int64_t ceil_div(int64_t a, int64_t b)
{
    return a <= 0 ? 0 : a / b + (a % b != 0);
}

void gs_progress_start(struct gs_progress *p, gs_time now, gs_time saved_ms, gs_time interval,
                       gs_time cost, gs_time restore_ms, int rate)
{
    p->t = now;
    p->work = p->saved = p->run_start = gs_sat_mul(saved_ms, UNITS);
    p->interval = interval > 0 ? interval : 0;
    p->cost = cost > 0 ? cost : 0;
    p->rate = rate >= 1 && rate <= GS_RATE_FULL ? rate : GS_RATE_FULL;
    p->ckpt_wall = p->restore_wall = 0;
    if (restore_ms > 0) {
        p->phase = GS_PHASE_RESTORE;
        p->phase_end = gs_sat_add(now, restore_ms);
    } else {
        p->phase = GS_PHASE_COMPUTE;
        p->phase_end = now;
    }
}

/* Next checkpoint boundary strictly above `work`, in work units;
 * INT64_MAX when it is past the largest work (no run reaches it: work is at
 * most 9e15 ms x 1000 = 9e18 < INT64_MAX).  With an interval over half the
 * largest run, the second boundary (2 x interval x 1000) is past int64. */
static int64_t next_boundary(const struct gs_progress *p, int64_t work)
{
    int64_t iu = gs_sat_mul(p->interval, UNITS);
    return gs_sat_mul(work / iu + 1, iu);
}

/* Finish a RESTORE or CKPT phase that ends by `now`; returns 1 if the
 * snapshot moved, 0 if the phase continues past now (snapshot at now). */
static int step_pause(struct gs_progress *p, gs_time now)
{
    gs_time end = p->phase_end < now ? p->phase_end : now;
    gs_time dt = end - p->t;
    if (p->phase == GS_PHASE_CKPT)
        p->ckpt_wall += dt;
    else
        p->restore_wall += dt;
    p->t = end;
    if (end < p->phase_end)
        return 0;
    if (p->phase == GS_PHASE_CKPT)
        p->saved = p->work;
    p->phase = GS_PHASE_COMPUTE;
    return 1;
}

void gs_progress_advance(struct gs_progress *p, gs_time now)
{
    while (p->t < now) {
        if (p->phase != GS_PHASE_COMPUTE) {
            if (!step_pause(p, now))
                return;
            continue;
        }
        if (p->interval == 0) {
            p->work = gs_sat_add(p->work, gs_sat_mul(now - p->t, p->rate));
            p->t = now;
            return;
        }
        int64_t iu = gs_sat_mul(p->interval, UNITS);
        /* whole cycles from a boundary: compute I then checkpoint C */
        if (p->work % iu == 0) {
            gs_time cycle = ceil_div(iu, p->rate) + p->cost;
            int64_t k = cycle > 0 ? (now - p->t) / cycle : 0;
            if (k > 0) {
                p->work = gs_sat_add(p->work, gs_sat_mul(k, iu));
                p->saved = p->work;
                p->ckpt_wall += k * p->cost; /* k x cost <= k x cycle <= now - t */
                p->t += k * cycle;
                continue;
            }
        }
        int64_t b = next_boundary(p, p->work);
        gs_time to_b = ceil_div(b - p->work, p->rate);
        if (gs_sat_add(p->t, to_b) > now) {
            p->work = gs_sat_add(p->work, gs_sat_mul(now - p->t, p->rate));
            p->t = now;
            return;
        }
        p->work = b;
        p->t += to_b;
        p->phase = GS_PHASE_CKPT;
        p->phase_end = gs_sat_add(p->t, p->cost);
    }
}

void gs_progress_set_rate(struct gs_progress *p, gs_time now, int rate)
{
    gs_progress_advance(p, now);
    p->rate = rate >= 1 && rate <= GS_RATE_FULL ? rate : GS_RATE_FULL;
}

gs_time gs_progress_eta(const struct gs_progress *p, gs_time total_ms)
{
    int64_t total = gs_sat_mul(total_ms, UNITS), work = p->work;
    gs_time t = p->t;
    if (total == GS_TIME_INF)
        return GS_TIME_INF;
    if (work >= total)
        return t;
    if (p->phase != GS_PHASE_COMPUTE)
        t = p->phase_end;
    if (p->interval == 0)
        return gs_sat_add(t, ceil_div(total - work, p->rate));
    int64_t iu = gs_sat_mul(p->interval, UNITS);
    if (iu == GS_TIME_INF) /* one interval longer than any run: never checkpoints */
        return gs_sat_add(t, ceil_div(total - work, p->rate));
    int64_t b = next_boundary(p, work);
    if (b >= total)
        return gs_sat_add(t, ceil_div(total - work, p->rate));
    /* to the first boundary, its checkpoint, then whole cycles, then the
     * last piece (no checkpoint after the final piece of work); a sum past
     * the largest time (1e10 checkpoints of 1e6 s) is GS_TIME_INF, never a
     * wrapped value */
    t = gs_sat_add(t, gs_sat_add(ceil_div(b - work, p->rate), p->cost));
    int64_t cycles = (total - 1 - b) / iu; /* boundaries strictly inside (b, total) */
    t = gs_sat_add(t, gs_sat_mul(cycles, gs_sat_add(ceil_div(iu, p->rate), p->cost)));
    return gs_sat_add(t, ceil_div(total - (b + cycles * iu), p->rate));
}

gs_time gs_progress_work(const struct gs_progress *p) { return p->work / UNITS; }
gs_time gs_progress_saved(const struct gs_progress *p) { return p->saved / UNITS; }

gs_time gs_progress_at_risk(const struct gs_progress *p)
{
    return (p->work - p->saved) / UNITS;
}

gs_time gs_progress_save_time(const struct gs_progress *p)
{
    if (p->interval == 0)
        return GS_TIME_NONE;
    if (p->phase == GS_PHASE_CKPT)
        return p->phase_end - p->t;
    if (p->phase == GS_PHASE_RESTORE || p->work / UNITS == p->saved / UNITS)
        return 0;
    return p->cost;
}

gs_time gs_progress_save_now(struct gs_progress *p, gs_time now)
{
    gs_progress_advance(p, now);
    gs_time dt = gs_progress_save_time(p);
    if (dt == GS_TIME_NONE)
        return GS_TIME_NONE;
    if (p->phase == GS_PHASE_COMPUTE && dt > 0) {
        p->phase = GS_PHASE_CKPT;
        p->phase_end = gs_sat_add(now, dt);
    }
    return gs_sat_add(now, dt);
}

void gs_progress_mark_saved(struct gs_progress *p, gs_time now)
{
    gs_progress_advance(p, now);
    if (p->phase == GS_PHASE_RESTORE)
        return; /* nothing new since the run began */
    p->saved = p->work;
}

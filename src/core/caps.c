/* caps.c - runtime caps: a job running past its cap is stopped (counted as
 * killed) so that reservations made on its estimate hold.
 *
 * queue.runtime_cap is either a fixed duration (every job is stopped after
 * it) or estimate_xF (stopped after F x the estimate it started with; jobs
 * without an estimate are not capped).  Deadlines sit in a min-heap keyed
 * by (time, job handle); entries of runs that ended are skipped lazily.
 */
#include "core/engine_private.h"

static int dl_less(const struct deadline *a, const struct deadline *b)
{
    return a->at != b->at ? a->at < b->at : a->job < b->job;
}

static void dl_push(struct gs_engine *eng, struct deadline d)
{
    size_t i = eng->ndl++; /* capacity reserved by gs_eng_reserve_pools */
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!dl_less(&d, &eng->dl[p]))
            break;
        eng->dl[i] = eng->dl[p];
        i = p;
    }
    eng->dl[i] = d;
}

static void dl_pop(struct gs_engine *eng)
{
    struct deadline last = eng->dl[--eng->ndl];
    size_t i = 0, n = eng->ndl;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && dl_less(&eng->dl[c + 1], &eng->dl[c]))
            c++;
        if (!dl_less(&eng->dl[c], &last))
            break;
        eng->dl[i] = eng->dl[c];
        i = c;
    }
    if (n > 0)
        eng->dl[i] = last;
}

gs_time gs_eng_deadline(struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    gs_time cap = eng->pol.runtime_cap;
    if (eng->pol.runtime_cap_factor > 0)
        cap = j->estimate == GS_TIME_NONE
                  ? GS_TIME_INF
                  : (gs_time)((double)j->estimate * eng->pol.runtime_cap_factor + 0.5);
    if (cap == GS_TIME_INF)
        return GS_TIME_INF;
    struct deadline d = { gs_time_add(j->start, cap), j->start, job };
    dl_push(eng, d);
    return d.at;
}

static int stale(const struct gs_engine *eng, const struct deadline *d)
{
    const struct job *j = &eng->jobs[d->job];
    return j->state != GS_JOB_RUNNING || j->start != d->start;
}

void gs_eng_enforce_caps(struct gs_engine *eng, gs_time now)
{
    while (eng->ndl > 0 && eng->dl[0].at <= now) {
        struct deadline d = eng->dl[0];
        dl_pop(eng);
        if (stale(eng, &d))
            continue;
        if (eng->pol.over_cap == GS_OVER_CAP_PREEMPT) {
            /* it runs on, and any waiting job may now preempt it: a pass
             * that ended blocked must look again */
            eng->pass_blocked = 0;
            continue;
        }
        gs_eng_stop_running(eng, d.job, now, GS_JOB_KILLED);
        struct gs_event ev = { GS_EV_KILL, now, d.job, NULL, GS_TIME_NONE, 0 };
        gs_eng_emit(eng, &ev);
    }
}

gs_time gs_eng_next_deadline(const struct gs_engine *eng)
{
    return eng->ndl > 0 ? eng->dl[0].at : GS_TIME_INF;
}

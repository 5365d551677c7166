/* caps.c - runtime caps and estimate overruns.
 *
 * Runtime caps: a job running past its cap is stopped (counted as killed)
 * so that reservations made on its estimate hold.  queue.runtime_cap is
 * either a fixed duration (every job is stopped after it) or estimate_xF
 * (stopped after F x the estimate it started with; jobs without an
 * estimate are not capped).
 *
 * Overruns: a job still running when its estimate says it should have
 * ended is planned, from then on, to end at its user time limit (an upper
 * bound the user declared) when that is still ahead; without one it is
 * expected to end at any moment (profile.c).  Without this, reservations
 * behind jobs whose history estimate ran short move at every pass and wide
 * jobs starve (seen on the AAIC quarters).
 *
 * Time limits (queue.time_limit: enforce): a run is stopped (killed, with
 * timed_out set) at start + time_limit + queue.over_time_limit, whatever
 * preemption.over_cap says, as Slurm ends a job at its limit plus
 * OverTimeLimit.  The engine's default (-1, unset) is advisory, so traces
 * replayed by the simulator keep their recorded runs; gpuschedd's default
 * is enforce (docs/policy.md).
 *
 * Both kinds of deadline sit in min-heaps keyed by (time, job handle);
 * entries of runs that ended are skipped lazily.
 */
#include "core/jobs/jobs.h"

#include <math.h>

static int dl_less(const struct deadline *a, const struct deadline *b)
{
    return a->at != b->at ? a->at < b->at : a->handle < b->handle;
}

/* Push onto heap h[0..*n) (capacity reserved by gs_eng_reserve_pools). */
static void dl_push(struct deadline *h, size_t *n, struct deadline d)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!dl_less(&d, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = d;
}

static void dl_pop(struct deadline *h, size_t *n)
{
    struct deadline last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && dl_less(&h[c + 1], &h[c]))
            c++;
        if (!dl_less(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = last;
}

gs_time gs_eng_deadline(struct gs_engine *eng, int job)
{
    struct job *j = &eng->jobs[job];
    gs_time limit_at = GS_TIME_INF;
    j->timed_out = 0;
    if (eng->pol.time_limit_mode == 1 && j->time_limit > 0) {
        limit_at = gs_time_add(j->start, gs_time_add(j->time_limit, eng->pol.over_time_limit));
        dl_push(eng->dl, &eng->ndl, (struct deadline){ limit_at, j->start, job, j->handle, 1 });
    }
    gs_time cap = eng->pol.runtime_cap;
    if (eng->pol.runtime_cap_factor > 0) {
        /* estimate (<= 9.2e15 ms) x factor (<= 1000) can pass INT64_MAX, and
         * a double out of int64's range converts with undefined behaviour */
        double c = j->estimate == GS_TIME_NONE
                       ? HUGE_VAL
                       : (double)j->estimate * eng->pol.runtime_cap_factor + 0.5;
        cap = c < 9.2e18 ? (gs_time)c : GS_TIME_INF;
    }
    if (cap == GS_TIME_INF)
        return limit_at;
    struct deadline d = { gs_time_add(j->start, cap), j->start, job, j->handle, 0 };
    dl_push(eng->dl, &eng->ndl, d);
    return d.at < limit_at ? d.at : limit_at;
}

void gs_eng_watch_overrun(struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    if (j->estimate == GS_TIME_NONE || j->time_limit <= j->estimate)
        return; /* nothing better to plan with once it overruns */
    struct deadline d = { gs_time_add(j->start, j->estimate), j->start, job, j->handle, 0 };
    dl_push(eng->expect, &eng->nexpect, d);
}

void gs_eng_plan_overruns(struct gs_engine *eng, gs_time now)
{
    while (eng->nexpect > 0 && eng->expect[0].at <= now) {
        struct deadline d = eng->expect[0];
        dl_pop(eng->expect, &eng->nexpect);
        const struct job *j = &eng->jobs[d.job];
        if (j->state != GS_JOB_RUNNING || j->start != d.start || j->handle != d.handle)
            continue;
        gs_time limit_end = gs_time_add(j->start, j->time_limit);
        if (limit_end > now) {
            struct gs_alloc a;
            gs_eng_job_alloc(eng, j, &a);
            gs_profile_occupy(eng->profile, &a, limit_end);
        }
    }
}

static int stale(const struct gs_engine *eng, const struct deadline *d)
{
    const struct job *j = &eng->jobs[d->job];
    return (j->state != GS_JOB_RUNNING && j->state != GS_JOB_STARTING) || j->start != d->start ||
           j->handle != d->handle; /* a later job in a reused slot */
}

void gs_eng_enforce_caps(struct gs_engine *eng, gs_time now)
{
    while (eng->ndl > 0 && eng->dl[0].at <= now) {
        struct deadline d = eng->dl[0];
        dl_pop(eng->dl, &eng->ndl);
        if (stale(eng, &d))
            continue;
        if (d.limit) {
            eng->jobs[d.job].timed_out = 1;
            gs_eng_stop_job(eng, d.job, now, GS_JOB_KILLED, GS_EV_KILL);
            continue;
        }
        if (eng->pol.over_cap == GS_OVER_CAP_PREEMPT) {
            /* it runs on, and any waiting job may now preempt it: a pass
             * that ended blocked must look again */
            eng->pass_blocked = 0;
            continue;
        }
        gs_eng_stop_job(eng, d.job, now, GS_JOB_KILLED, GS_EV_KILL);
    }
}

gs_time gs_eng_next_deadline(const struct gs_engine *eng)
{
    return eng->ndl > 0 ? eng->dl[0].at : GS_TIME_INF;
}

gs_time gs_eng_next_expect(const struct gs_engine *eng)
{
    return eng->nexpect > 0 ? eng->expect[0].at : GS_TIME_INF;
}

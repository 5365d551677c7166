/* timeline.c - bucketed time series of a replay (timeline.h). */
#include "sim/timeline.h"
#include "core/base/satmath.h"
#include "core/base/alloc.h"

#include <string.h>

#define BASE_WIDTH 1000 /* ms: the width before any doubling */

void gs_timeline_init(struct gs_timeline *tl)
{
    memset(tl, 0, sizeof *tl);
    tl->width = BASE_WIDTH;
    tl->win_start = GS_TIME_NONE;
}

void gs_timeline_fini(struct gs_timeline *tl)
{
    if (!tl)
        return;
    gs_free(tl->win);
    tl->win = NULL;
    tl->nwin = tl->win_cap = 0;
}

/* Merge buckets pairwise and double the width. */
static void coarsen(struct gs_timeline *tl)
{
    double *series[] = { tl->used_milli_ms, tl->sched_ms, tl->pending_ms, tl->covered_ms };
    for (size_t s = 0; s < sizeof series / sizeof series[0]; s++) {
        double *v = series[s];
        for (size_t i = 0; i < GS_TL_BUCKETS / 2; i++)
            v[i] = v[2 * i] + v[2 * i + 1];
        memset(v + GS_TL_BUCKETS / 2, 0, GS_TL_BUCKETS / 2 * sizeof *v);
    }
    tl->width *= 2;
}

/* Add the current state over [a, b). */
static void integrate(struct gs_timeline *tl, gs_time a, gs_time b)
{
    /* saturating: near the largest time the span, buckets x width, would
     * pass INT64_MAX one doubling before it covers b */
    while (b - tl->t0 > gs_sat_mul(GS_TL_BUCKETS, tl->width))
        coarsen(tl);
    while (a < b) {
        int i = (int)((a - tl->t0) / tl->width);
        gs_time edge = gs_sat_add(tl->t0, gs_sat_mul(i + 1, tl->width)), e = b < edge ? b : edge;
        double dt = (double)(e - a);
        tl->used_milli_ms[i] += dt * (double)tl->cur.used_milli;
        tl->sched_ms[i] += dt * (double)tl->cur.sched;
        tl->pending_ms[i] += dt * tl->cur_pending;
        tl->covered_ms[i] += dt;
        a = e;
    }
}

static int push_window(struct gs_timeline *tl, gs_time start, gs_time end)
{
    if (tl->nwin / 2 >= GS_TL_MAX_WINDOWS) {
        tl->win_dropped++;
        return 0;
    }
    if (gs_grow((void **)&tl->win, &tl->win_cap, tl->nwin + 2, sizeof *tl->win))
        return GS_ENOMEM;
    tl->win[tl->nwin++] = start;
    tl->win[tl->nwin++] = end;
    return 0;
}

int gs_timeline_sample(struct gs_timeline *tl, const struct gs_sim_tick *t)
{
    if (!tl->started) {
        tl->started = 1;
        tl->t0 = tl->last = t->time;
        tl->gpus = t->stats->gpus;
    }
    if (t->time > tl->last)
        integrate(tl, tl->last, t->time);
    tl->last = t->time > tl->last ? t->time : tl->last;
    int rc = 0;
    if (t->stats->sched >= 1 && tl->win_start == GS_TIME_NONE) {
        tl->win_start = t->time;
    } else if (t->stats->sched < 1 && tl->win_start != GS_TIME_NONE) {
        rc = push_window(tl, tl->win_start, t->time);
        tl->win_start = GS_TIME_NONE;
    }
    tl->cur = *t->stats;
    tl->cur_pending = t->pending;
    return rc;
}

void gs_timeline_on_tick(void *arg, const struct gs_sim_tick *t)
{
    gs_timeline_sample(arg, t);
}

void gs_timeline_close(struct gs_timeline *tl, gs_time end)
{
    if (!tl->started)
        return;
    if (end > tl->last)
        integrate(tl, tl->last, end);
    tl->end = end > tl->last ? end : tl->last;
    if (tl->win_start != GS_TIME_NONE) {
        push_window(tl, tl->win_start, tl->end);
        tl->win_start = GS_TIME_NONE;
    }
}

int gs_timeline_buckets(const struct gs_timeline *tl)
{
    if (!tl->started || tl->end <= tl->t0)
        return 0;
    gs_time d = tl->end - tl->t0, n = d / tl->width + (d % tl->width != 0); /* no d + width - 1 */
    return n > GS_TL_BUCKETS ? GS_TL_BUCKETS : (int)n;
}

static double mean(const double *v, const struct gs_timeline *tl, int i)
{
    return tl->covered_ms[i] > 0 ? v[i] / tl->covered_ms[i] : 0;
}

double gs_timeline_alloc(const struct gs_timeline *tl, int i)
{
    return tl->gpus > 0 ? mean(tl->used_milli_ms, tl, i) / GS_MILLI_GPU / (double)tl->gpus : 0;
}

double gs_timeline_sched(const struct gs_timeline *tl, int i)
{
    return mean(tl->sched_ms, tl, i);
}

double gs_timeline_pending(const struct gs_timeline *tl, int i)
{
    return mean(tl->pending_ms, tl, i);
}

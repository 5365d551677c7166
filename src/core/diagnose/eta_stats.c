/* eta_stats.c - accuracy of recorded start-time promises (eta.h).
 *
 * Per group (all jobs, each size class, each basis) over the jobs with a
 * point estimate that started: the median and the 90 % quantile (nearest
 * rank) of |actual - estimate| for the engine's estimate and for the
 * calibrated point, the coverage of the P90 bound, and the
 * median absolute error of both naive predictors on the same jobs.  A
 * median of an even count is the mean of the two middle values. */
#include "core/diagnose/eta.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdlib.h>
#include <string.h>

static int cmp_time(const void *a, const void *b)
{
    gs_time x = *(const gs_time *)a, y = *(const gs_time *)b;
    return (x > y) - (x < y);
}

static gs_time absdiff(gs_time a, gs_time b)
{
    return a > b ? a - b : b - a;
}

/* Median of v[0..n) in seconds (sorts v); 0 when n is 0. */
static double median_s(gs_time *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_time);
    size_t mid = n / 2;
    double m = n % 2 ? (double)v[mid] : ((double)v[mid - 1] + (double)v[mid]) / 2;
    return m / 1000;
}

/* 90 % nearest-rank quantile in seconds of sorted v[0..n). */
static double p90_s(const gs_time *v, size_t n)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)(0.9 * (double)n + 0.999999);
    k = k < 1 ? 1 : k > n ? n : k;
    return (double)v[k - 1] / 1000;
}

static int in_group(const struct gs_eta_rec *r, int kind, int g)
{
    return kind == 0 || (kind == 1 && r->size_class == g) || (kind == 2 && r->basis == g);
}

/* One group: kind 0 = all, 1 = size class g, 2 = basis g.  `buf` holds
 * room for n values. */
static void group_build(const struct gs_eta_rec *recs, const gs_time *start, size_t n,
                        int kind, int g, gs_time *buf, struct gs_eta_group *out)
{
    memset(out, 0, sizeof *out);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gs_eta_rec *r = &recs[i];
        if (!r->recorded || r->est == GS_TIME_NONE || start[i] == GS_TIME_NONE ||
            !in_group(r, kind, g))
            continue;
        buf[m++] = absdiff(start[i], r->est);
        if (r->p90 != GS_TIME_NONE) {
            out->n_bound++;
            out->covered += start[i] <= r->p90;
        }
    }
    out->n = (int64_t)m;
    out->med_abs_s = median_s(buf, m);
    out->p90_abs_s = p90_s(buf, m);
    m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gs_eta_rec *r = &recs[i];
        if (r->recorded && r->est != GS_TIME_NONE && start[i] != GS_TIME_NONE &&
            in_group(r, kind, g))
            buf[m++] = absdiff(start[i], r->cal == GS_TIME_NONE ? r->est : r->cal);
    }
    out->cal_med_abs_s = median_s(buf, m);
    out->cal_p90_abs_s = p90_s(buf, m);
    for (int which = 0; which < 2; which++) {
        m = 0;
        for (size_t i = 0; i < n; i++) {
            const struct gs_eta_rec *r = &recs[i];
            if (!r->recorded || r->est == GS_TIME_NONE || start[i] == GS_TIME_NONE ||
                !in_group(r, kind, g))
                continue;
            buf[m++] = absdiff(start[i], which ? r->naive_median : r->submit);
        }
        *(which ? &out->class_med_abs_s : &out->now_med_abs_s) = median_s(buf, m);
    }
}

int gs_eta_stats_build(const struct gs_eta_rec *recs, const gs_time *start, size_t n,
                       struct gs_eta_stats *out)
{
    memset(out, 0, sizeof *out);
    gs_time *buf = gs_calloc(n ? n : 1, sizeof *buf);
    if (!buf)
        return GS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!recs[i].recorded)
            continue;
        out->jobs++;
        if (recs[i].est != GS_TIME_NONE) {
            out->estimated++;
            out->unstarted += start[i] == GS_TIME_NONE;
        }
    }
    group_build(recs, start, n, 0, 0, buf, &out->all);
    for (int c = 0; c < GS_SIZE_CLASSES; c++)
        group_build(recs, start, n, 1, c, buf, &out->by_size[c]);
    for (int b = 0; b < GS_ETA_BASES; b++)
        group_build(recs, start, n, 2, b, buf, &out->by_basis[b]);
    gs_free(buf);
    return 0;
}

/* stats.c - percentiles and growable double arrays. */
#include "core/base/stats.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdlib.h>

double gs_percentile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    if (q <= 0)
        return v[0];
    if (q >= 1)
        return v[n - 1];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    double frac = pos - (double)lo;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gs_pctl_compute(struct gs_pctl *out, double *v, size_t n)
{
    *out = (struct gs_pctl){ 0 };
    if (n == 0)
        return;
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->n = (int64_t)n;
    out->p50 = gs_percentile_sorted(v, n, 0.50);
    out->p90 = gs_percentile_sorted(v, n, 0.90);
    out->p99 = gs_percentile_sorted(v, n, 0.99);
    out->mean = sum / (double)n;
    out->max = v[n - 1];
}

int gs_dvec_push(struct gs_dvec *d, double x)
{
    if (gs_grow((void **)&d->v, &d->cap, d->n + 1, sizeof *d->v))
        return GS_ENOMEM;
    d->v[d->n++] = x;
    return 0;
}

void gs_dvec_fini(struct gs_dvec *d)
{
    gs_free(d->v);
    d->v = NULL;
    d->n = d->cap = 0;
}

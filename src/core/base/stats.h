/* stats.h - order statistics used by every report.
 * Percentiles use linear interpolation between closest ranks, numpy's
 * default: for sorted v[0..n-1], position q*(n-1), interpolated. */
#ifndef GS_CORE_STATS_H
#define GS_CORE_STATS_H

#include <stddef.h>
#include <stdint.h>

struct gs_pctl {
    int64_t n;
    double p50, p90, p99, mean, max;
};

/* Percentile q in [0,1] of sorted values v[0..n-1]; 0 when n == 0. */
double gs_percentile_sorted(const double *v, size_t n, double q);

/* Sort v[0..n-1] ascending in place and fill `out` (all zero when n == 0). */
void gs_pctl_compute(struct gs_pctl *out, double *v, size_t n);

/* A growable array of doubles (owned; free with gs_dvec_fini). */
struct gs_dvec {
    double *v;
    size_t n, cap;
};

/* Append x; returns 0 or GS_ENOMEM. */
int gs_dvec_push(struct gs_dvec *d, double x);
void gs_dvec_fini(struct gs_dvec *d);

#endif

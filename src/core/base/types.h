/* types.h - small value types shared by every core module.
 *
 * Time: one project-wide unit, int64 milliseconds (gs_time).  Every core
 * entry point takes `now` as a gs_time; the core never reads a clock.
 * GPU shares are integers in milli-GPU (1000 = one whole GPU); memory is in
 * MiB.  Floats appear only in reported metrics.
 */
#ifndef GS_CORE_TYPES_H
#define GS_CORE_TYPES_H

#include <stdint.h>

typedef int64_t gs_time;

#define GS_MS_PER_SEC 1000
#define GS_TIME_INF INT64_MAX
#define GS_TIME_NONE INT64_MIN

#define GS_MILLI_GPU 1000

/* Convert seconds to gs_time (rounded to the nearest millisecond). */
static inline gs_time gs_time_from_sec(double s)
{
    return (gs_time)(s * GS_MS_PER_SEC + (s >= 0 ? 0.5 : -0.5));
}

/* Convert gs_time to seconds for reporting. */
static inline double gs_time_to_sec(gs_time t)
{
    return (double)t / GS_MS_PER_SEC;
}

/* Saturating addition for times: INF stays INF. */
static inline gs_time gs_time_add(gs_time a, gs_time b)
{
    if (a == GS_TIME_INF || b == GS_TIME_INF)
        return GS_TIME_INF;
    if (b > 0 && a > GS_TIME_INF - b)
        return GS_TIME_INF;
    return a + b;
}

#endif

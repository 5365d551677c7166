/* satmath.h - saturating int64 arithmetic for the engine's products and
 * sums of times, GPUs, work and priorities (docs/limits.md has the audit
 * of where each is needed).  A result that does not fit int64 is clamped
 * to INT64_MAX or INT64_MIN by the sign of the exact result, never wrapped:
 * signed overflow is undefined behaviour in C, and a wrapped time or cost
 * is a plausible-looking wrong answer.  INT64_MAX is also GS_TIME_INF, so
 * a time that saturates reads as "never".
 *
 * __int128 is not C11; the GCC/Clang overflow builtins are what both of the
 * project's compilers provide (gcc 12, clang 14) and compile to one
 * multiply and a flag test.  Header-only: pure functions of their
 * arguments, used in inner loops.
 */
#ifndef GS_CORE_SATMATH_H
#define GS_CORE_SATMATH_H

#include <stdint.h>

/* a + b, clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t gs_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* a - b, clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t gs_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* a x b, clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t gs_sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

#endif

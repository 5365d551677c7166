/* symptoms.h - the seed's five "GPUs are there but jobs do not run"
 * symptoms (section 6), as checks over a simulation summary.
 *
 * Each check has fixed thresholds (below; docs/diagnosis.md explains the
 * choice) and reports its measured numbers whether or not it fires, so a
 * report can say "fired" or "not fired, because ...".  Let k be the S_k job
 * size (the largest NVLink domain), BIG the wait size class that holds k
 * (e.g. "5-8" for k = 8) and SMALL the class "1":
 *
 *  1 free_but_queued       count + topology + memory fragmentation hold
 *                          >= 20 % of all waiting GPU-hours
 *  2 long_queue_moderate   wait p90 >= 1 h while util_alloc <= 80 %
 *  3 big_jobs_wait         BIG p90 >= 1 h and >= 3 x SMALL p90, and S_k >= 1
 *                          (a whole domain free) less than 50 % of the time
 *  4 small_crowd_big       BIG p90 >= 1 h and >= 3 x SMALL p90, and
 *                          shortage + priority + reservation + quota hold
 *                          >= 50 % of BIG's waiting GPU-hours (GPUs or quota
 *                          taken by others, not scattered); names what the
 *                          policy lacks of aging, quotas and backfill
 *  5 full_but_slow         util_alloc >= 50 % and util_effective < 60 % of
 *                          util_alloc
 */
#ifndef GS_CORE_SYMPTOMS_H
#define GS_CORE_SYMPTOMS_H

#include "core/metrics/metrics.h"
#include "core/policy/policy.h"

#define GS_SYM_FRAG_SHARE 0.20      /* check 1 */
#define GS_SYM_LONG_WAIT_S 3600.0   /* checks 2-4: a "long" p90 wait */
#define GS_SYM_MODERATE_ALLOC 0.80  /* check 2 */
#define GS_SYM_BIG_RATIO 3.0        /* checks 3-4: BIG p90 / SMALL p90 */
#define GS_SYM_SK_SHARE 0.50        /* check 3 */
#define GS_SYM_TAKEN_SHARE 0.50     /* check 4 */
#define GS_SYM_BUSY_ALLOC 0.50      /* check 5 */
#define GS_SYM_EFFECTIVE 0.60       /* check 5: util_effective / util_alloc */

enum gs_symptom_id {
    GS_SYM_FREE_BUT_QUEUED,
    GS_SYM_LONG_QUEUE_MODERATE,
    GS_SYM_BIG_JOBS_WAIT,
    GS_SYM_SMALL_CROWD_BIG,
    GS_SYM_FULL_BUT_SLOW,
    GS_SYM_COUNT
};

/* Policy features whose absence check 4 names (bits). */
enum { GS_SYM_NO_AGING = 1, GS_SYM_NO_QUOTA = 2, GS_SYM_NO_BACKFILL = 4 };

struct gs_symptom {
    int id;                 /* enum gs_symptom_id */
    int fired;
    /* the numbers each check looked at (unused ones are 0):
     * 1: frag_share, frag_gpu_h, total_gpu_h, idle mean unusable GPUs
     * 2: wait_p90 s, util_alloc, wait_p99 s
     * 3: big_p90 s, small_p90 s, share_ge1, big_frag_share
     * 4: big_p90 s, small_p90 s, taken_share, lacks (bits) */
    double v[4];
};

struct gs_symptoms {
    int k;                  /* S_k job size */
    int big_class;          /* size class index of k */
    struct gs_symptom s[GS_SYM_COUNT];
};

/* Run the five checks on `sum` (policy `pol` may be NULL: check 4 then
 * names nothing).  Pure; never fails. */
void gs_symptoms_check(struct gs_symptoms *out, const struct gs_summary *sum,
                       const struct gs_policy *pol);

/* Short name of a check ("free_but_queued", ...). */
const char *gs_symptom_name(int id);

#endif

/* estimate.h - history-based duration estimates (queue.duration_estimate:
 * from_history).
 *
 * Finished jobs are remembered per key, most specific first:
 *   1. user + job name     2. team + GPU count     3. GPU count     4. all jobs
 * Each key keeps only its last GS_HIST_WINDOW run times (a ring), so memory
 * per key is bounded and estimates follow drifting workloads.  The estimate
 * is the chosen quantile (p50 or p90, numpy's linear rule) of the most
 * specific key with at least GS_HIST_MIN_SAMPLES samples.
 *
 * Cold start: when no key has enough samples, the estimate is the job's
 * user-declared time_limit if it has one, else "unknown" (GS_TIME_NONE),
 * which backfill treats as "runs forever".  A history estimate is never
 * larger than the job's time_limit (the job would be stopped there).
 */
#ifndef GS_CORE_ESTIMATE_H
#define GS_CORE_ESTIMATE_H

#include <stddef.h>

#include "core/engine/engine.h"

#define GS_HIST_WINDOW 32
#define GS_HIST_MIN_SAMPLES 3

struct gs_history;

/* Create an estimator state for quantile `q` (50 or 90); NULL on failure. */
struct gs_history *gs_history_create(int quantile);

/* Free it; NULL is a no-op. */
void gs_history_destroy(struct gs_history *h);

/* The estimator ops backed by `h` (h stays owned by the caller and must
 * outlive any engine using the ops). */
struct gs_estimator gs_history_estimator(struct gs_history *h);

/* Number of keys and of stored samples (for memory reports and tests). */
size_t gs_history_keys(const struct gs_history *h);

#endif

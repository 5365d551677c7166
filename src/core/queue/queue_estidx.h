/* queue_estidx.h - plain classes of pending jobs indexed by estimate: the
 * smallest current estimate of each class (queue_estidx.c; docs/policy.md,
 * "Followers").
 *
 * A pass whose head holds its reservation refuses a plain job of g GPUs
 * with `reservation` when its estimate reaches the memo's shortest failing
 * estimate among the counts up to g (queue_pass.h).  When the smallest
 * estimate of the class does, every job of the class is refused that way:
 * the pass walks over the class unread (queue_follow.c).  This index
 * answers that smallest estimate in O(groups of the class), not O(jobs).
 *
 * Estimates that move while a job waits (from_history: every end moves a
 * key's quantile) are handled by groups: jobs with the same user, name
 * and team (and GPU count: the class) read the same history keys, so
 * their estimates are min(time limit, the keys' quantile) with the same
 * quantile: within a group the job with the smallest limit has the
 * smallest estimate, whatever the history says.  Each group keeps its
 * jobs in a min-heap by limit; the class's smallest estimate is the
 * smallest estimate of the groups' first jobs (one estimator call per
 * group).  Estimators that never move (user, oracle) keep one group per
 * class ordered by the estimate itself.  Any other estimator: unknown.
 * Core only.
 */
#ifndef GS_CORE_QUEUE_ESTIDX_H
#define GS_CORE_QUEUE_ESTIDX_H

#include "core/jobs/jobs.h"

struct gs_qest;

/* A new, empty index; NULL on allocation failure. */
struct gs_qest *gs_qest_create(void);

/* Free `x` (NULL-safe). */
void gs_qest_free(struct gs_qest *x);

/* `job` joined the queue (new or requeued), its estimate now `dur`
 * (GS_TIME_INF = none): file it under its plain class (gs_qclass_of; a
 * job that is not plain is not filed).  Entries of jobs that left are
 * dropped lazily.  0 or GS_ENOMEM. */
int gs_qest_note(struct gs_qest *x, const struct gs_engine *eng, int job, gs_time dur);

/* The smallest estimate (GS_TIME_INF for none) of the pending jobs filed
 * under class `g` (1..64) into *out: 1, or 0 when the index cannot tell
 * (an estimator it does not know, one set after jobs were filed, too many
 * groups in the class).  An empty class gives GS_TIME_INF. */
int gs_qest_min(struct gs_qest *x, const struct gs_engine *eng, int g, gs_time *out);

#endif

/* profile.h - the availability profile: when each GPU is expected to be free,
 * and which GPUs are reserved for which time window.  Backfill uses it to
 * answer "when, and on which GPUs, could this job start?" (EARLIEST_START)
 * and "which GPUs may a job that starts now and runs for d use without
 * delaying a reservation?".
 *
 * Representation: one expected free time per GPU (maintained as jobs start
 * and end: start + estimate, GS_TIME_INF when the estimate is unknown) plus a
 * short list of reservations, each a set of GPUs held over [start, end).  A
 * GPU is usable over [t, t+d) when its free time is <= t and no reservation
 * holding it overlaps [t, t+d).  A running job that has overrun its estimate
 * is expected to end at any moment: its GPUs count as free from now + 1 ms.
 */
#ifndef GS_CORE_PROFILE_H
#define GS_CORE_PROFILE_H

#include "core/cluster/cluster.h"
#include "core/place/place.h"
#include "core/base/types.h"

struct gs_profile;

/* Create a profile for a sealed cluster with every GPU idle; NULL on
 * allocation failure. */
struct gs_profile *gs_profile_create(const struct gs_cluster *cl);

/* Free it; NULL is a no-op. */
void gs_profile_destroy(struct gs_profile *p);

/* The GPUs of `a` are busy until `until` (GS_TIME_INF = unknown).  A GPU
 * shared by several jobs is free when the last one ends. */
void gs_profile_occupy(struct gs_profile *p, const struct gs_alloc *a, gs_time until);

/* The GPUs of `a` were released; those idle in `cl` become free now. */
void gs_profile_vacate(struct gs_profile *p, const struct gs_cluster *cl,
                       const struct gs_alloc *a);

/* Drop every reservation (start of a scheduling pass). */
void gs_profile_clear(struct gs_profile *p);

/* Number of reservations held. */
int gs_profile_reservations(const struct gs_profile *p);

/* Hold the GPUs of `a` over [start, end).  Returns 0 or GS_ENOMEM. */
int gs_profile_reserve(struct gs_profile *p, const struct gs_alloc *a, gs_time start,
                       gs_time end);

/* Earliest time >= now at which `req` fits for `dur` (GS_TIME_INF =
 * unknown: it must fit forever), under `strategy`; writes the start time and
 * the GPUs to `out` (parts capacity >= node count).  Returns 0, or
 * GS_ENOSPC when the job cannot be planned (needs GPUs whose free time is
 * unknown).  Never changes the profile. */
int gs_profile_earliest(struct gs_profile *p, const struct gs_cluster *cl, gs_time now,
                        const struct gs_request *req, int strategy, gs_time dur,
                        gs_time *start, struct gs_alloc *out);

/* Fill `view` (one mask per node) with the GPUs idle now that no reservation
 * overlapping [now, now + dur) holds. */
void gs_profile_view_now(const struct gs_profile *p, const struct gs_cluster *cl, gs_time now,
                         gs_time dur, uint64_t *view);

/* GPUs of `node` held by reservations overlapping [now, now + dur). */
uint64_t gs_profile_reserved_in(const struct gs_profile *p, int node, gs_time now,
                                gs_time dur);

/* When GPU `gpu` of `node` is expected to be free: GS_TIME_NONE when
 * idle, GS_TIME_INF when unknown (gs_engine_check). */
gs_time gs_profile_free_at(const struct gs_profile *p, int node, int gpu);

/* The earliest expected free time after `now` of a busy GPU (GS_TIME_INF
 * when none is busy), or `now` when some busy GPU's expected free time is
 * `now` or earlier (it is then taken as free at now + 1, which moves with
 * the clock).  O(GPUs); the engine's aging wakeup (queue.c). */
gs_time gs_profile_next_free(const struct gs_profile *p, gs_time now);

/* GPUs of `node` held by any reservation. */
uint64_t gs_profile_reserved_mask(const struct gs_profile *p, int node);

#endif

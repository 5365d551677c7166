/* timers.h - a timer heap for the engine thread (redis's ae timers, in
 * the size the daemon needs): a binary min-heap of deadlines (monotonic ms)
 * ordered by (deadline, arming order), so the next deadline is read in O(1)
 * and a timer is armed, moved or cancelled in O(log n) instead of scanning
 * every live job at every turn.
 *
 * A timer is a `struct gsd_timer` its owner embeds (a live job holds one
 * per deadline kind); the heap stores pointers to them and each timer
 * knows its place, so the owner must cancel it before freeing it.  Not
 * thread-safe: the engine thread's only.
 */
#ifndef GS_DAEMON_TIMERS_H
#define GS_DAEMON_TIMERS_H

#include <stddef.h>
#include <stdint.h>

struct gsd_timer {
    int64_t at;       /* deadline, monotonic ms (valid while armed) */
    uint64_t order;   /* arming order: equal deadlines pop first-armed first */
    size_t pos;       /* 1 + its index in the heap, 0 = not armed */
    int kind;         /* the owner's tag (what to do when it is due) */
    void *arg;        /* the owner's pointer (e.g. its job) */
};

struct gsd_timers {
    struct gsd_timer **h; /* h[0] is the earliest */
    size_t n, cap;
    uint64_t next_order;
};

/* An empty heap (no allocation until the first add). */
void gsd_timers_init(struct gsd_timers *ts);

/* Free the heap's array; the timers (owned by their owners) are left
 * disarmed. */
void gsd_timers_fini(struct gsd_timers *ts);

/* Set timer t (kind and arg already set by its owner) to `at`: armed if it
 * was not, moved if it was (it then counts as armed now for the order of
 * equal deadlines).  Returns 0, or -1 when out of memory (t left as it
 * was). */
int gsd_timer_add(struct gsd_timers *ts, struct gsd_timer *t, int64_t at);

/* Disarm t; nothing when it is not armed. */
void gsd_timer_cancel(struct gsd_timers *ts, struct gsd_timer *t);

/* Whether t is armed. */
int gsd_timer_armed(const struct gsd_timer *t);

/* The earliest deadline armed, or -1 when none is. */
int64_t gsd_timer_next(const struct gsd_timers *ts);

/* Disarm and return the earliest timer due at `now` (deadline <= now), or
 * NULL when none is: call until NULL to take every due one, in deadline
 * order (ties: the first armed first). */
struct gsd_timer *gsd_timer_pop_due(struct gsd_timers *ts, int64_t now);

#endif

/* failtestutil.h - helpers for the unit tests' failure paths: allocation
 * failure injection through core/alloc.h's hooks (OOM sweeps) and the
 * check of a must-fail case's error.  testutil.h includes it; the I/O
 * tests, which do not use testutil.h's cluster and simulator helpers,
 * include it alone.  Include after <cmocka.h> (and its prerequisites).
 *
 *   tu_oom_arm(n) ... tu_oom_disarm()      fail the n-th allocation between
 *   tu_oom_sweep(attempt)                  n = 1, 2, ... over one call
 *   tu_oom_rounds(round)                   n = 1, 2, ... over a scenario
 *   tu_expect_error(i, &err, code, msg)    case i failed with code and msg
 *
 * Everything is `static inline` so a test that does not use a helper does
 * not trip -Wunused-function.
 */
#ifndef GS_TESTS_FAILTESTUTIL_H
#define GS_TESTS_FAILTESTUTIL_H

#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/base/error.h"

/* ---- must-fail cases ------------------------------------------------------ */

/* Assert that must-fail case `i` left error `code` in `err` with a message
 * containing `msg`. */
static inline void tu_expect_error(size_t i, const struct gs_error *err, int code,
                                   const char *msg)
{
    if (err->code != code || !strstr(err->msg, msg))
        fail_msg("case %zu: got %s '%s', want %s containing '%s'", i, gs_strerror(err->code),
                 err->msg, gs_strerror(code), msg);
}

/* ---- allocation failure injection (OOM sweeps) -------------------------- */

struct tu_oom {
    long calls;       /* allocations seen since arming */
    long fail_at;     /* fail the Nth allocation (1-based); 0 = never */
    long failed;      /* how many allocations were failed */
    long live;        /* outstanding blocks (malloc/realloc(NULL) - free) */
};

static struct tu_oom tu_oom_state;

static inline int tu_oom_should_fail(void)
{
    tu_oom_state.calls++;
    if (tu_oom_state.fail_at > 0 && tu_oom_state.calls == tu_oom_state.fail_at) {
        tu_oom_state.failed++;
        return 1;
    }
    return 0;
}

static inline void *tu_oom_malloc(size_t n)
{
    if (tu_oom_should_fail())
        return NULL;
    void *p = malloc(n);
    if (p)
        tu_oom_state.live++;
    return p;
}

static inline void *tu_oom_realloc(void *ptr, size_t n)
{
    if (tu_oom_should_fail())
        return NULL;
    void *p = realloc(ptr, n);
    if (p && !ptr)
        tu_oom_state.live++;
    return p;
}

static inline void tu_oom_free(void *ptr)
{
    if (ptr)
        tu_oom_state.live--;
    free(ptr);
}

/* Install counting hooks that fail exactly the `fail_at`-th allocation
 * (0 = none).  Every block allocated while armed must be freed while armed
 * for tu_oom_state.live to read 0 at the end. */
static inline void tu_oom_arm(long fail_at)
{
    static const struct gs_alloc_hooks hooks = { .malloc_fn = tu_oom_malloc,
                                                  .realloc_fn = tu_oom_realloc,
                                                  .free_fn = tu_oom_free };
    memset(&tu_oom_state, 0, sizeof tu_oom_state);
    tu_oom_state.fail_at = fail_at;
    gs_alloc_set_hooks(&hooks);
}

/* Stop failing allocations but keep counting live blocks. */
static inline void tu_oom_pause(void)
{
    tu_oom_state.fail_at = 0;
}

/* Restore the C library allocator. */
static inline void tu_oom_disarm(void)
{
    gs_alloc_set_hooks(NULL);
}

/* End of one OOM round: restores the C library allocator, then fails the
 * test when a block allocated while armed is still live (`n` is the
 * round's fail_at, for the message).  tu_oom_state keeps its counts. */
static inline void tu_oom_end(long n)
{
    tu_oom_disarm();
    if (tu_oom_state.live != 0)
        fail_msg("fail_at %ld: %ld blocks leaked", n, tu_oom_state.live);
}

/* Run round(1), round(2), ... while the round returns nonzero (an
 * allocation was failed in it, so a later one may still be reached).
 * Returns the n of the last round, the first that failed nothing. */
static inline long tu_oom_rounds(int (*round)(long n))
{
    long n = 1;
    while (round(n))
        n++;
    return n;
}

/* OOM sweep over one call.  attempt(n) runs the call between tu_oom_arm(n)
 * and tu_oom_disarm(); when the call got its full result, attempt checks
 * and frees it and returns 0, otherwise it returns the call's error code,
 * which must be GS_ENOMEM.  Attempts run for n = 1, 2, ... until one gets
 * its result with no allocation failed; returns that n. */
static inline long tu_oom_sweep(int (*attempt)(long n))
{
    for (long n = 1;; n++) {
        int rc = attempt(n);
        if (rc != 0)
            assert_int_equal(rc, GS_ENOMEM);
        else if (tu_oom_state.failed == 0)
            return n;   /* no allocation was failed: the sweep is done */
    }
}

#endif

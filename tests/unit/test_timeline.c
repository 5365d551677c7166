/* test_timeline.c - the utilisation timeline at the edge of the time range
 * (overflow audit, docs/limits.md: sim/timeline.c integrate). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/timeline.h"

static void sample(struct gs_timeline *tl, gs_time t, int64_t used_milli)
{
    struct gs_cluster_stats st = { 0 };
    st.gpus = 8;
    st.used_milli = used_milli;
    struct gs_sim_tick tick = { t, &st, 0, 1 };
    assert_int_equal(gs_timeline_sample(tl, &tick), 0);
}

/* A replay can end near the largest time: 1,023 serial jobs of 9e12 s (the
 * largest duration) end at 9.207e18 ms.  The buckets (512 x 1000 ms x 2^k)
 * are doubled until they cover the span; 512,000 x 2^44 = 9.007e18 is short
 * of it and the next doubling, 1.8e19, is past INT64_MAX: computed as
 * t0 + 512 x width it was a signed overflow (UBSan).  The record must
 * stay exact: 8 GPUs fully used all the way is a mean allocation of 1 in
 * every bucket that covers time. */
static void test_span_near_int64_max(void **state)
{
    (void)state;
    struct gs_timeline tl;
    gs_timeline_init(&tl);
    const gs_time end = 9207000000000000000LL;
    sample(&tl, 0, 8000);
    sample(&tl, end, 8000);
    gs_timeline_close(&tl, end);
    int n = gs_timeline_buckets(&tl);
    assert_true(n >= 1 && n <= GS_TL_BUCKETS);
    assert_true(tl.width > 0);
    for (int i = 0; i < n; i++)
        assert_true(tl.covered_ms[i] == 0 || gs_timeline_alloc(&tl, i) == 1.0);
    gs_timeline_fini(&tl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_near_int64_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

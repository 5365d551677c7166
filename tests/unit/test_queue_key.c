/* test_queue_key.c - gs_engine_queue_key (queue_order.c), which gpuschedd's
 * view uses to keep the queue's order between turns: the listing
 * (gs_engine_queue_list) must be the pending jobs sorted by their keys, at
 * every pass, with aging on; `until` is when a key stops holding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "lctestutil.h"

#define NQ 30

/* The listing is strictly increasing by key, and each key's `until` is
 * the job's aging time while young (submit + 60 s), the engine's time
 * once aged. */
static void check_listing(struct lfix *f, gs_time now)
{
    int h[NQ + 4];
    int n = gs_engine_queue_list(f->eng, h, NQ + 4);
    assert_true(n >= 1 && n <= NQ);
    struct gs_queue_key prev = { 0 }, k;
    for (int i = 0; i < n; i++) {
        assert_int_equal(gs_engine_queue_key(f->eng, h[i], &k), 0);
        assert_int_equal(k.handle, h[i]);
        struct gs_job_info ji = lf_info(f, h[i]);
        gs_time ages = ji.submit + SEC(60);
        assert_int_equal(k.until, now > ages ? now : ages);
        if (i > 0)
            assert_true(gs_queue_key_cmp(&prev, &k) < 0);
        prev = k;
    }
}

static void test_listing_is_sorted_by_keys(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", "queue.aging_rate", "1",
                         "queue.max_wait_before_aging", "60s", NULL };
    struct lfix *f = lf_new("n1:8", kv, 0);
    int hold = lf_submit(f, 0, "hold", 8); /* takes the node: the rest queues */
    lf_step(f, 0);
    assert_int_equal(lf_state(f, hold), GS_JOB_RUNNING);
    char ids[NQ][16];
    for (int i = 0; i < NQ; i++) { /* priorities 0-4 in a mixed order, 10 s apart */
        snprintf(ids[i], sizeof ids[i], "q%d", i);
        struct gs_job_spec s = spec_of(ids[i], SEC(10) * (i / 3), 1 + i % 8);
        s.priority = (i * 7) % 5;
        lf_submit_spec(f, s.submit, &s);
        lf_step(f, s.submit);
        check_listing(f, s.submit); /* all young: until = submit + 60 s */
    }
    /* at 150 s the first jobs (submitted 0-90 s) have aged and moved up */
    lf_step(f, SEC(150));
    check_listing(f, SEC(150));
    lf_step(f, SEC(400));
    check_listing(f, SEC(400));
    struct gs_queue_key k;
    assert_int_equal(gs_engine_queue_key(f->eng, hold, &k), GS_ENOENT); /* running */
}

static void test_fifo_has_no_keys(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0); /* fifo_pack */
    lf_submit(f, 0, "hold", 8);
    int b = lf_submit(f, 0, "b", 8);
    lf_step(f, 0);
    struct gs_queue_key k;
    assert_int_equal(gs_engine_queue_key(f->eng, b, &k), GS_ENOTSUP);
}

int main(void)
{
    (void)lf_idle; /* lctestutil.h helpers this file does not need */
    (void)lf_start;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_listing_is_sorted_by_keys, lf_teardown),
        cmocka_unit_test_teardown(test_fifo_has_no_keys, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

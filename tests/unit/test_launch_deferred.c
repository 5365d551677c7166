/* test_launch_deferred.c - gs_engine_launch_deferred (lifecycle.c): a
 * launch that failed for the driver's own reasons puts the job back as
 * pending, ahead of its peers, as if the START had not been decided: its
 * GPUs free, attempts and runs as before, no failure counted (so the retry
 * policy never fails it), no event.  Expectations follow engine.h; pack
 * placement on an idle [8] node gives a g-GPU job the lowest g GPUs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lctestutil.h"

/* FIFO a, b, c (8 GPUs each) on one [8] node, retry.max_attempts 1: a's
 * launch is deferred 5 times (at 1..5 s).  Each time: a pending, n1 idle,
 * attempts 0, runs 0, failures 0, first_start none, queue a, b, c, and no
 * event besides the STARTs; each next pass starts a again on n1.  Then it
 * starts at 6 s and completes with attempts 1, runs 1, failures 0 - where
 * one gs_engine_launch_failed would have failed it (max_attempts 1). */
static void test_deferred_not_charged(void **state)
{
    (void)state;
    const char *kv[] = { "retry.max_attempts", "1", "retry.on", "launch_failure", NULL };
    struct lfix *f = lf_new("n1:8", kv, 1);
    int a = lf_submit(f, 0, "a", 8), b = lf_submit(f, 0, "b", 8), c = lf_submit(f, 0, "c", 8);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0xFF);
    for (int k = 1; k <= 5; k++) {
        LF_OK(f, gs_engine_launch_deferred(f->eng, SEC(k), a, LF_ERR), 0);
        struct gs_job_info ji = lf_info(f, a);
        assert_int_equal(ji.state, GS_JOB_PENDING);
        assert_int_equal(ji.attempts, 0);
        assert_int_equal(ji.runs, 0);
        assert_int_equal(ji.failures, 0);
        assert_int_equal(ji.first_start, GS_TIME_NONE);
        assert_int_equal(lf_idle(f, "n1"), 0xFF);
        assert_int_equal(f->rec.n, k); /* the k STARTs only */
        int q[4];
        assert_int_equal(gs_engine_queue_list(f->eng, q, 4), 3);
        assert_int_equal(q[0], a);
        assert_int_equal(q[1], b);
        assert_int_equal(q[2], c);
        assert_int_equal(lf_step(f, SEC(k)), 1);
        lf_start(f, k, a, SEC(k), "n1", 0xFF);
    }
    LF_OK(f, gs_engine_started(f->eng, SEC(6), a, LF_ERR), 0);
    LF_OK(f, gs_engine_exited(f->eng, SEC(16), a, 0, LF_ERR), 0);
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_DONE);
    assert_int_equal(ji.attempts, 1);
    assert_int_equal(ji.runs, 1);
    assert_int_equal(ji.failures, 0);
    assert_int_equal(ji.work, SEC(10));
    /* the contrast: b's one failed launch is charged and fails it */
    assert_int_equal(lf_step(f, SEC(16)), 1);
    lf_start(f, 7, b, SEC(16), "n1", 0xFF);
    LF_OK(f, gs_engine_launch_failed(f->eng, SEC(17), b, LF_ERR), 0);
    assert_int_equal(lf_state(f, b), GS_JOB_FAILED);
}

/* A job cancelled while its launch was under way (STOPPING): the deferral
 * confirms the stop (nothing ran); n1 is free.  Jobs neither starting nor
 * stopping are refused (GS_ESTATE), an unknown handle is GS_ENOENT. */
static void test_deferred_stopping_and_errors(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 4), b = lf_submit(f, 0, "b", 8);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0x0F);
    LF_OK(f, gs_engine_cancel(f->eng, SEC(1), a, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_STOPPING);
    LF_OK(f, gs_engine_launch_deferred(f->eng, SEC(2), a, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_CANCELLED);
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
    LF_OK(f, gs_engine_launch_deferred(f->eng, SEC(2), a, LF_ERR), GS_ESTATE);
    LF_OK(f, gs_engine_launch_deferred(f->eng, SEC(2), b, LF_ERR), GS_ESTATE); /* pending */
    LF_OK(f, gs_engine_launch_deferred(f->eng, SEC(2), 999, LF_ERR), GS_ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_deferred_not_charged, lf_teardown),
        cmocka_unit_test_teardown(test_deferred_stopping_and_errors, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

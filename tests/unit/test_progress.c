/* test_progress.c - progress.c's arithmetic: work, checkpoints, restore,
 * rate changes, the eta, and the save-now call preemption with grace uses.
 * Every expected number is derived in the comments (times in seconds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/jobs/progress.h"

#define S(x) ((gs_time)((x) * 1000))

/* The issue's job A: I = 100, C = 10, 1000 s of work, from t = 0.
 * Checkpoints at work 100 (t 100-110) and 200 (t 210-220); at t 250:
 * work 230, saved 200, 30 s at risk.  Checkpoint time 20 s so far. */
static void test_issue_example_first_run(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, 0, 0, S(100), S(10), 0, GS_RATE_FULL);
    assert_int_equal(gs_progress_eta(&p, S(1000)), S(1000 + 9 * 10));
    gs_progress_advance(&p, S(105));
    assert_int_equal(p.phase, GS_PHASE_CKPT);
    assert_int_equal(gs_progress_work(&p), S(100));
    assert_int_equal(gs_progress_saved(&p), 0); /* a checkpoint in progress protects nothing */
    assert_int_equal(gs_progress_at_risk(&p), S(100));
    gs_progress_advance(&p, S(250));
    assert_int_equal(gs_progress_work(&p), S(230));
    assert_int_equal(gs_progress_saved(&p), S(200));
    assert_int_equal(gs_progress_at_risk(&p), S(30));
    assert_int_equal(p.ckpt_wall, S(20));
}

/* A restarts at 350 from 200 saved: 800 s of work, boundaries 300..900
 * strictly inside (200, 1000): 7 checkpoints, so it ends at 1220; nothing
 * after the final piece of work. */
static void test_issue_example_restart(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, S(350), S(200), S(100), S(10), 0, GS_RATE_FULL);
    assert_int_equal(gs_progress_eta(&p, S(1000)), S(1220));
    gs_progress_advance(&p, S(1220));
    assert_int_equal(gs_progress_work(&p), S(1000));
    assert_int_equal(p.ckpt_wall, S(70));
    /* exactly at a boundary the job is done: no checkpoint after the end */
    assert_int_equal(gs_progress_eta(&p, S(1000)), S(1220));
}

/* Restore before work: restore 30 s from 350, then as above: 1250. */
static void test_restore_first(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, S(350), S(200), S(100), S(10), S(30), GS_RATE_FULL);
    assert_int_equal(p.phase, GS_PHASE_RESTORE);
    assert_int_equal(gs_progress_eta(&p, S(1000)), S(1250));
    gs_progress_advance(&p, S(370));
    assert_int_equal(gs_progress_work(&p), S(200));
    assert_int_equal(gs_progress_at_risk(&p), 0);
    assert_int_equal(p.restore_wall, S(20));
    gs_progress_advance(&p, S(400));
    assert_int_equal(p.restore_wall, S(30));
    assert_int_equal(gs_progress_work(&p), S(220));
}

/* No checkpoints: all work is at risk. */
static void test_no_checkpoints(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, 0, 0, 0, S(10), 0, GS_RATE_FULL);
    assert_int_equal(gs_progress_eta(&p, S(500)), S(500));
    gs_progress_advance(&p, S(150));
    assert_int_equal(gs_progress_at_risk(&p), S(150));
    assert_int_equal(gs_progress_save_time(&p), GS_TIME_NONE);
    assert_int_equal(gs_progress_save_now(&p, S(150)), GS_TIME_NONE);
    assert_int_equal(p.phase, GS_PHASE_COMPUTE);
}

/* Half speed: 100 s of work take 200 s; I = 100 at C = 10: the first
 * checkpoint at t 200-210, 230 s of wall time for 100 + 15 s of work at
 * t 240 (15 s of work in 30 s). */
static void test_rate(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, 0, 0, S(100), S(10), 0, 500);
    assert_int_equal(gs_progress_eta(&p, S(300)), S(600 + 2 * 10));
    gs_progress_advance(&p, S(240));
    assert_int_equal(gs_progress_work(&p), S(115));
    assert_int_equal(gs_progress_saved(&p), S(100));
    /* back to full speed at 240: 185 s of work left, 1 checkpoint (at 200) */
    gs_progress_set_rate(&p, S(240), GS_RATE_FULL);
    assert_int_equal(gs_progress_eta(&p, S(300)), S(240 + 185 + 10));
}

/* Save now (preemption with grace), table of phases:
 *  computing at 150 (work 140, saved 100): checkpoint 150-160;
 *  in a checkpoint at 105 (100-110): finishes it, saved at 110;
 *  right after a checkpoint at 110: nothing at risk, saved now;
 *  restoring at 5 (restore 0-10): nothing at risk, saved now. */
static void test_save_now(void **state)
{
    (void)state;
    static const struct {
        double at, restore, save_at, saved;
        int phase_after;
    } rows[] = {
        { 150, 0, 160, 140, GS_PHASE_CKPT },
        { 105, 0, 110, 100, GS_PHASE_CKPT },
        { 110, 0, 110, 100, GS_PHASE_COMPUTE },
        { 5, 10, 5, 0, GS_PHASE_RESTORE },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_progress p;
        gs_progress_start(&p, 0, 0, S(100), S(10), S(rows[i].restore), GS_RATE_FULL);
        gs_progress_advance(&p, S(rows[i].at));
        assert_int_equal(gs_progress_save_time(&p), S(rows[i].save_at - rows[i].at));
        assert_int_equal(gs_progress_save_now(&p, S(rows[i].at)), S(rows[i].save_at));
        assert_int_equal(p.phase, rows[i].phase_after);
        gs_progress_advance(&p, S(rows[i].save_at));
        assert_int_equal(gs_progress_at_risk(&p), 0);
        assert_int_equal(gs_progress_saved(&p), S(rows[i].saved));
    }
}

/* After a forced checkpoint at work 140 the next one is at 200 (multiples
 * of I): computing resumes 160-220, checkpoint 220-230. */
static void test_after_forced_checkpoint(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, 0, 0, S(100), S(10), 0, GS_RATE_FULL);
    gs_progress_save_now(&p, S(150));
    gs_progress_advance(&p, S(225));
    assert_int_equal(p.phase, GS_PHASE_CKPT);
    assert_int_equal(gs_progress_work(&p), S(200));
    assert_int_equal(gs_progress_saved(&p), S(140));
    assert_int_equal(p.ckpt_wall, S(10 + 10 + 5));
}

/* Regression (issue 14): 1e7 s of work with a 1 ms interval and a 1e6 s
 * cost is 1e10 - 1 checkpoints x 1e9 ms = ~1e19 ms, past INT64_MAX (9.2e18):
 * the eta wrapped to a negative time.  It must saturate to GS_TIME_INF. */
static void test_eta_saturates(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, 0, 0, 1, S(1000000LL), 0, GS_RATE_FULL);
    assert_true(gs_progress_eta(&p, S(10000000LL)) == GS_TIME_INF);
    /* same at a slow rate (cycle = ceil(1000 / 1) + cost) */
    gs_progress_start(&p, 0, 0, 1, S(1000000LL), 0, 1);
    assert_true(gs_progress_eta(&p, S(10000000LL)) == GS_TIME_INF);
    /* the largest work without checkpoints is still exact: 9e15 ms */
    gs_progress_start(&p, 5, 0, 0, 0, 0, GS_RATE_FULL);
    assert_int_equal(gs_progress_eta(&p, 9000000000000000LL), 9000000000000005LL);
    /* an interval too long to count in work units is "never checkpoints":
     * 1 ms of work ends at 1 ms */
    gs_progress_start(&p, 0, 0, INT64_MAX / 10, S(1), 0, GS_RATE_FULL);
    assert_int_equal(gs_progress_eta(&p, 1), 1);
    /* 1e10 checkpoints of 1 ms fit: 1e10 ms work + (1e10 - 1) x 1 ms */
    gs_progress_start(&p, 0, 0, 1, 1, 0, GS_RATE_FULL);
    assert_int_equal(gs_progress_eta(&p, S(10000000LL)), 2 * S(10000000LL) - 1);
}

/* Overflow audit (docs/limits.md, progress.c next_boundary): the largest
 * run the readers accept with one checkpoint, 8.9e12 s of work with a
 * 5e12 s interval and a 1 s cost.  Work is counted in ms x 1000 units:
 * total 8.9e18, first boundary 5e18; the second boundary, 1e19, is past
 * INT64_MAX (9.22e18) and was computed as (work / iu + 1) x iu, a signed
 * overflow (UBSan: "signed integer overflow"), after which work wrapped
 * negative.  Derivation: the run computes 5e15 ms, checkpoints 1000 ms,
 * computes the last 3.9e15 ms: it ends at 8.9e15 + 1000 ms with all
 * 8.9e15 ms of work done and that one checkpoint's 1000 ms of wall. */
static void test_boundary_past_int64(void **state)
{
    (void)state;
    struct gs_progress p;
    const gs_time D = 8900000000000000LL, I = 5000000000000000LL;
    gs_progress_start(&p, 0, 0, I, S(1), 0, GS_RATE_FULL);
    gs_time end = gs_progress_eta(&p, D);
    assert_int_equal(end, D + S(1));
    gs_progress_advance(&p, end - 1);
    assert_int_equal(gs_progress_work(&p), D - 1);
    assert_int_equal(gs_progress_saved(&p), I);
    gs_progress_advance(&p, end);
    assert_int_equal(gs_progress_work(&p), D);
    assert_int_equal(p.ckpt_wall, S(1));
    /* the same at the slowest rate (1/1000): still one boundary, no wrap */
    gs_progress_start(&p, 0, 0, I, S(1), 0, 1);
    gs_progress_advance(&p, 1000 * I + S(1) + 10);
    assert_int_equal(gs_progress_work(&p), I + 10 / 1000);
    assert_true(p.work >= 0);
}

/* A snapshot asked for long after the work could have ended (the engine
 * reads progress at any `now`): no checkpoints, full rate, from t = 0 to
 * 9.2e18 ms is 9.2e21 units, past int64: the work saturates at INT64_MAX
 * units (never negative) instead of wrapping. */
static void test_advance_far_saturates(void **state)
{
    (void)state;
    struct gs_progress p;
    gs_progress_start(&p, 0, 0, 0, 0, 0, GS_RATE_FULL);
    gs_progress_advance(&p, INT64_MAX - 1);
    assert_true(p.work == INT64_MAX);
    assert_true(gs_progress_work(&p) == INT64_MAX / 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_example_first_run),
        cmocka_unit_test(test_issue_example_restart),
        cmocka_unit_test(test_restore_first),
        cmocka_unit_test(test_no_checkpoints),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_save_now),
        cmocka_unit_test(test_after_forced_checkpoint),
        cmocka_unit_test(test_eta_saturates),
        cmocka_unit_test(test_boundary_past_int64),
        cmocka_unit_test(test_advance_far_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_eta_due.c - censored misses (core/diagnose/eta.h gs_eta_cal_miss,
 * sim/eta_due.h): a promise whose P90 bound passes before its job starts
 * moves the adaptive level of its keys at once, and only once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "testutil.h"
#include "core/diagnose/eta.h"
#include "sim/eta_due.h"

/* A promise of class "2-4" (index 1), basis profile, bucket 0, submitted
 * at 0, estimate 100 s, bound `p90_s` (0 = none). */
static struct gs_eta_rec rec(double p90_s)
{
    struct gs_eta_rec r = { 0 };
    r.est = SEC(100);
    r.basis = GS_BASIS_PROFILE;
    r.size_class = 1;
    r.recorded = 1;
    r.chosen = -1;
    for (int m = 0; m < GS_ETA_CANDIDATES; m++)
        r.cand[m] = GS_TIME_NONE;
    r.p90 = r.p90_base = p90_s > 0 ? SEC(p90_s) : GS_TIME_NONE;
    return r;
}

static int near(double a, double b)
{
    return a > b - 1e-12 && a < b + 1e-12;
}

/* Levels start at 0.9.  A miss raises each of the three keys by
 * GS_ETA_GAMMA x 0.9 = 0.0045: 0.9045.  A second miss of the same promise
 * and the start that follows (at 200 s, after the bound of 120 s) leave
 * it there: the start was already counted.  A promise without a bound, or
 * one already started, is no miss.  Then a start by its bound of a fresh
 * promise lowers the levels by 0.0005: 0.904. */
static void test_miss_once(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    gs_eta_cal_init(c);
    struct gs_eta_rec r = rec(120);
    gs_eta_cal_miss(c, &r);
    assert_true(r.missed);
    assert_true(near(c->cls[1].level, 0.9045));
    assert_true(near(c->key[1][GS_BASIS_PROFILE].level, 0.9045));
    assert_true(near(c->ahead[1][GS_BASIS_PROFILE][0].level, 0.9045));
    gs_eta_cal_miss(c, &r);
    gs_eta_cal_observe(c, &r, SEC(200));
    assert_true(r.observed);
    assert_true(near(c->cls[1].level, 0.9045));
    struct gs_eta_rec nb = rec(0), done = rec(120);
    gs_eta_cal_miss(c, &nb);
    assert_false(nb.missed);
    gs_eta_cal_observe(c, &done, SEC(110));
    assert_true(near(c->cls[1].level, 0.904));
    gs_eta_cal_miss(c, &done);
    assert_false(done.missed);
    assert_true(near(c->cls[1].level, 0.904));
    free(c);
}

/* The heap of bounds: five promises with bounds 50, 10, 40, 30, 20 s (jobs
 * 0..4); job 3 starts at 25 s.  A pass at 30 s tells the misses of the
 * bounds before 30 s: jobs 1 (10 s) and 4 (20 s); job 3's bound (30 s) is
 * not before 30 s.  A pass at 45 s: job 3 has started (no miss), job 2
 * (40 s) misses.  A pass at 100 s: job 0.  The heap is then empty. */
static void test_due_order(void **state)
{
    (void)state;
    struct gs_eta_cal *c = calloc(1, sizeof *c);
    assert_non_null(c);
    gs_eta_cal_init(c);
    static const double bound[5] = { 50, 10, 40, 30, 20 };
    struct gs_eta_rec recs[5];
    struct gs_eta_due d = { 0 };
    for (int j = 0; j < 5; j++) {
        recs[j] = rec(bound[j]);
        assert_int_equal(gs_eta_due_push(&d, recs[j].p90, j), 0);
    }
    gs_eta_cal_observe(c, &recs[3], SEC(25));
    gs_eta_due_pass(&d, SEC(30), c, recs);
    int want30[5] = { 0, 1, 0, 0, 1 };
    for (int j = 0; j < 5; j++)
        assert_int_equal(recs[j].missed, want30[j]);
    assert_int_equal(d.n, 3);
    gs_eta_due_pass(&d, SEC(45), c, recs);
    assert_true(recs[2].missed);
    assert_false(recs[3].missed);
    assert_false(recs[0].missed);
    gs_eta_due_pass(&d, SEC(100), c, recs);
    assert_true(recs[0].missed);
    assert_int_equal(d.n, 0);
    gs_eta_due_free(&d);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_miss_once),
        cmocka_unit_test(test_due_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

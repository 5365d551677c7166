/* test_timers.c - the engine thread's timer heap (src/daemon/timers.c):
 * pop orders derived by hand (deadline first, then arming order), moves
 * and cancels in the middle of the heap, and a random run against a plain
 * model (the earliest (deadline, order) of an array, found by a scan).
 * timers.c is compiled in here (the daemon's objects are not in the
 * library). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "daemon/timers.c"

/* Pop every timer due at `now` into ids[] (their kind); returns how many. */
static int pop_all(struct gsd_timers *ts, int64_t now, int *ids, int cap)
{
    int n = 0;
    struct gsd_timer *t;
    while ((t = gsd_timer_pop_due(ts, now)) && n < cap) {
        assert_false(gsd_timer_armed(t));
        ids[n++] = t->kind;
    }
    return n;
}

/* Deadlines 50, 10, 30, 10, 20 armed as timers 0..4: due at 25 are the
 * ones <= 25, earliest first and the two 10s in arming order: 1, 3, 4;
 * then at 100: 2 (30), 0 (50). */
static void test_order(void **state)
{
    (void)state;
    struct gsd_timers ts;
    gsd_timers_init(&ts);
    assert_int_equal(gsd_timer_next(&ts), -1);
    assert_null(gsd_timer_pop_due(&ts, 1000));
    struct gsd_timer t[5] = { { 0 } };
    const int64_t at[5] = { 50, 10, 30, 10, 20 };
    for (int i = 0; i < 5; i++) {
        t[i].kind = i;
        assert_int_equal(gsd_timer_add(&ts, &t[i], at[i]), 0);
    }
    assert_int_equal(gsd_timer_next(&ts), 10);
    assert_null(gsd_timer_pop_due(&ts, 9)); /* none due before 10 */
    int ids[8];
    assert_int_equal(pop_all(&ts, 25, ids, 8), 3);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 3);
    assert_int_equal(ids[2], 4);
    assert_int_equal(gsd_timer_next(&ts), 30);
    assert_int_equal(pop_all(&ts, 100, ids, 8), 2);
    assert_int_equal(ids[0], 2);
    assert_int_equal(ids[1], 0);
    assert_int_equal(gsd_timer_next(&ts), -1);
    gsd_timers_fini(&ts);
}

/* Deadlines 10..70 for timers 0..6.  Cancel 3 (40, mid-heap) and 0 (the
 * root), move 5 from 60 to 5 and 1 from 20 to 65, cancel 3 again (no-op):
 * left (5:5) (2:30) (4:50) (1:65) (6:70) -> pop order 5, 2, 4, 1, 6.
 * Re-arming 2 at 50 (its old 30 forgotten) puts it after 4 (armed first
 * at 50): 5, 4, 2, 1, 6. */
static void test_move_cancel(void **state)
{
    (void)state;
    struct gsd_timers ts;
    gsd_timers_init(&ts);
    struct gsd_timer t[7] = { { 0 } };
    for (int i = 0; i < 7; i++) {
        t[i].kind = i;
        assert_int_equal(gsd_timer_add(&ts, &t[i], 10 * (i + 1)), 0);
    }
    gsd_timer_cancel(&ts, &t[3]);
    gsd_timer_cancel(&ts, &t[0]);
    assert_false(gsd_timer_armed(&t[3]));
    assert_int_equal(gsd_timer_next(&ts), 20);
    assert_int_equal(gsd_timer_add(&ts, &t[5], 5), 0);
    assert_int_equal(gsd_timer_add(&ts, &t[1], 65), 0);
    gsd_timer_cancel(&ts, &t[3]);
    assert_int_equal(gsd_timer_next(&ts), 5);
    assert_int_equal(gsd_timer_add(&ts, &t[2], 50), 0);
    int ids[8];
    assert_int_equal(pop_all(&ts, 1000, ids, 8), 5);
    const int want[5] = { 5, 4, 2, 1, 6 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(ids[i], want[i]);
    gsd_timers_fini(&ts);
}

/* fini disarms what is left, so an owner may re-arm in a new heap. */
static void test_fini(void **state)
{
    (void)state;
    struct gsd_timers ts;
    gsd_timers_init(&ts);
    struct gsd_timer a = { 0 }, b = { 0 };
    assert_int_equal(gsd_timer_add(&ts, &a, 1), 0);
    assert_int_equal(gsd_timer_add(&ts, &b, 2), 0);
    gsd_timers_fini(&ts);
    assert_false(gsd_timer_armed(&a));
    assert_false(gsd_timer_armed(&b));
    gsd_timers_init(&ts);
    assert_int_equal(gsd_timer_add(&ts, &b, 7), 0);
    assert_int_equal(gsd_timer_next(&ts), 7);
    gsd_timers_fini(&ts);
}

#define N 300

/* The model's earliest armed (deadline, order) at or before now, -1. */
static int model_first(const int *armed, const int64_t *at, const uint64_t *ord, int64_t now)
{
    int best = -1;
    for (int i = 0; i < N; i++)
        if (armed[i] && at[i] <= now &&
            (best < 0 || at[i] < at[best] || (at[i] == at[best] && ord[i] < ord[best])))
            best = i;
    return best;
}

/* 20,000 random adds, moves, cancels and pops (deadlines drawn from a
 * small range, so many tie) checked step by step against the model. */
static void test_random(void **state)
{
    (void)state;
    struct gsd_timers ts;
    gsd_timers_init(&ts);
    static struct gsd_timer t[N];
    int armed[N] = { 0 };
    int64_t at[N];
    uint64_t ord[N], next = 0;
    srand(24);
    for (int i = 0; i < N; i++)
        t[i] = (struct gsd_timer){ .kind = i };
    for (int step = 0; step < 20000; step++) {
        int i = rand() % N, op = rand() % 4;
        if (op <= 1) {
            int64_t a = rand() % 50;
            assert_int_equal(gsd_timer_add(&ts, &t[i], a), 0);
            armed[i] = 1, at[i] = a, ord[i] = next++;
        } else if (op == 2) {
            gsd_timer_cancel(&ts, &t[i]);
            armed[i] = 0;
        } else {
            int64_t now = rand() % 50;
            int want = model_first(armed, at, ord, now);
            struct gsd_timer *got = gsd_timer_pop_due(&ts, now);
            assert_int_equal(got ? got->kind : -1, want);
            if (want >= 0)
                armed[want] = 0;
        }
        int first = model_first(armed, at, ord, INT64_MAX);
        assert_int_equal(gsd_timer_next(&ts), first < 0 ? -1 : at[first]);
        for (int k = 0; k < N; k++)
            assert_int_equal(gsd_timer_armed(&t[k]), armed[k]);
    }
    gsd_timers_fini(&ts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_move_cancel),
        cmocka_unit_test(test_fini),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

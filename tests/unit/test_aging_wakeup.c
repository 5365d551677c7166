/* test_aging_wakeup.c - when the engine asks to be woken under priority
 * with aging (gs_engine_next_wakeup, engine.c aging_tick; queue.c
 * gs_queue_aging_change; queue_order.c gs_queue_order_change are the spec).
 *
 * The rule: the wakeups stay on the grid now + k x pass_interval that the
 * old rule (a pass every interval while a job waits) walks, but skip the
 * points before the earliest time a pass could decide otherwise: a young
 * job's aging begins (submit + max_wait + 1 ms), or an aging job passes
 * the young job just ahead of it (ties: the earlier submit first).  With
 * queue.aging_wakeup: tick the old rule holds.
 *
 * The engine is driven directly: every wakeup is one explicit step.
 * Units: ms unless said (SEC(s) = s x 1000).  Keys x GS_PRIO_SCALE
 * (3.6e9 = one point): aging_rate 1 adds 1000 per ms waited past
 * max_wait.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qtestutil.h"

#define P SEC(300) /* pass_interval 5m */

/* Step at every wakeup before `end` (and at `events`, sorted, submitting
 * job i at events[i]); returns the number of wakeup steps and writes
 * their times to `at` (up to cap). */
static int drive(struct qeng *q, const struct qjob *rows, int *h, size_t n, gs_time from,
                 gs_time end, gs_time *at, int cap)
{
    size_t next = 0;
    int wakes = 0;
    gs_time now = from;
    for (;;) {
        gs_time w = gs_engine_next_wakeup(q->eng, now);
        gs_time sub = next < n ? SEC(rows[next].submit_s) : GS_TIME_INF;
        gs_time t = sub <= w ? sub : w;
        if (t >= end)
            return wakes;
        while (next < n && SEC(rows[next].submit_s) == t) {
            h[next] = qsubmit(q, t, &rows[next]);
            next++;
        }
        if (t < sub) { /* a wakeup, not a submission */
            if (wakes < cap)
                at[wakes] = t;
            wakes++;
        }
        qstep(q, t);
        now = t;
    }
}

static const char *policy_kv(int tick)
{
    return tick ? "tick" : "changes";
}

/* Order of the queue as the next pass visits it: handles. */
static void order_is(const struct qeng *q, int first, int second)
{
    int out[4];
    assert_int_equal(gs_engine_queue_list(q->eng, out, 4), 2);
    assert_int_equal(out[0], first);
    assert_int_equal(out[1], second);
}

/* A 1e12 s job holds the one 8-GPU node from 0; a (prio 0) at 10 s, b
 * (prio 2) at 20 s and c (prio 1) at 30 s wait behind it.  max_wait 30m
 * (1800 s), rate 1, interval 5m, no backfill.
 *   10 s: a queued; its aging starts at 10 + 1800 s + 1 ms.
 *   20 s, 30 s: b, c queued (events).  After 30 s the earliest change is
 *        a's aging at 1810.001 s; the grid from 30 s reaches it at
 *        30 + 6 x 300 = 1830 s (5 x 300 = 1500 < 1780.001).
 * 1830 s: wakeup 1.  a and b age (b since 1820.001 s), c not yet (its
 *        aging starts at 1830.001 s = now + 1 ms): one step, 2130 s.
 * 2130 s: wakeup 2.  All three age: list keys c = prio x 3.6e9 - 1000 x
 *        submit: b 7.18e9 > c 3.57e9 > a -1e7; they keep that order for
 *        ever (all gain the same), no young job is left, so the next
 *        change is b's key saturating: 7.18e9 + 1000 (t - 1.8e6) reaches
 *        INT64_MAX at t = 9223372031474776 ms; the grid from 2130 s puts
 *        that at 2130000 + 30744573432 x 300000 = 9223372031730000.
 * So 2 wakeups up to 1e12 s, where the old rule made one every 5 min:
 * (1e15 - 30000) / 300000, 3.3e9 of them; over the first day it makes
 * floor((86400 - 30) / 300) = 287, and the order it sees then is the one
 * after 2130 s. */
static void test_long_job(void **state)
{
    (void)state;
    static const struct qjob big = { .id = "big", .gpus = 8 };
    static const struct qjob rows[] = {
        { .id = "a", .submit_s = 10, .gpus = 8, .prio = 0 },
        { .id = "b", .submit_s = 20, .gpus = 8, .prio = 2 },
        { .id = "c", .submit_s = 30, .gpus = 8, .prio = 1 },
    };
    for (int tick = 0; tick <= 1; tick++) {
        const char *kv[] = { "queue.policy", "priority", "queue.aging_rate", "1",
                             "queue.max_wait_before_aging", "30m", "queue.pass_interval", "5m",
                             "queue.backfill", "none", "queue.aging_wakeup", policy_kv(tick),
                             NULL };
        struct qeng *q = qeng_new("n1:8", qpolicy(kv));
        int hb = qsubmit(q, 0, &big), h[3];
        qstep(q, 0);
        assert_int_equal(qstate(q, hb), GS_JOB_RUNNING);
        gs_time at[8];
        gs_time end = tick ? SEC(86400) : SEC(1e12);
        int n = drive(q, rows, h, 3, 0, end, at, 8);
        int out[3];
        assert_int_equal(gs_engine_queue_list(q->eng, out, 3), 3);
        assert_int_equal(out[0], h[1]); /* b, c, a */
        assert_int_equal(out[1], h[2]);
        assert_int_equal(out[2], h[0]);
        if (tick) {
            assert_int_equal(n, 287);
            continue;
        }
        assert_int_equal(n, 2);
        assert_int_equal(at[0], SEC(1830));
        assert_int_equal(at[1], SEC(2130));
        assert_int_equal(gs_engine_next_wakeup(q->eng, SEC(2130)), 9223372031730000LL);
        /* the end of big is an event: b starts, as under the old rule */
        qfinish(q, SEC(1e12), hb);
        qstep(q, SEC(1e12));
        assert_int_equal(qstate(q, h[1]), GS_JOB_RUNNING);
        assert_int_equal(qstate(q, h[0]), GS_JOB_PENDING);
    }
}

/* The crossing, with its tie.  One 8-GPU node held by big from 0; a
 * (prio 0) at 0 s, b (prio 1) at 4200 s (1h10m).  max_wait 30m, rate 1.
 *   0 s: a queued, big starts: a pass that starts (or stops) a job is
 *        followed by one tick, 300 s (the rule only skips after a pass
 *        that changed nothing).
 * 300 s: wakeup 1.  a's aging starts at 1800.001 s: grid 300 + 6 x 300.
 * 2100 s: wakeup 2; a ages, alone: nothing left but its key's saturation.
 *   4200 s: b queued, young, ahead of a: a's key 1000 (t - 1.8e6) against
 *        b's 3.6e9 ties at t = 5.4e6 ms, and a tie goes to the earlier
 *        submit, a: a passes b at exactly 5400 s, before b ages
 *        (6000.001 s).  Grid from 4200 s: 4200 + 4 x 300 = 5400 s.
 * 5400 s: wakeup 3; order a, b.  Next: b's aging, 6000.001 s: grid 5400 +
 *        3 x 300 = 6300 s.
 * 6300 s: wakeup 4; both age: keys a 0 > b 3.6e9 - 4.2e9 = -6e8, a stays
 *        first for ever.
 * The old rule (ticks at 300, 600, ... s; 4200 s is b's submission) sees
 * b first at 5100 s and a first at 5400 s, as the new one does. */
static void test_crossing_tie(void **state)
{
    (void)state;
    static const struct qjob big = { .id = "big", .gpus = 8 };
    static const struct qjob rows[] = {
        { .id = "a", .submit_s = 0, .gpus = 8, .prio = 0 },
        { .id = "b", .submit_s = 4200, .gpus = 8, .prio = 1 },
    };
    for (int tick = 0; tick <= 1; tick++) {
        const char *kv[] = { "queue.policy", "priority", "queue.aging_rate", "1",
                             "queue.max_wait_before_aging", "30m", "queue.pass_interval", "5m",
                             "queue.aging_wakeup", policy_kv(tick), NULL };
        struct qeng *q = qeng_new("n1:8", qpolicy(kv));
        int hb = qsubmit(q, 0, &big), h[2];
        h[0] = qsubmit(q, 0, &rows[0]);
        qstep(q, 0);
        assert_int_equal(qstate(q, hb), GS_JOB_RUNNING);
        gs_time at[64];
        int n = drive(q, rows + 1, h + 1, 1, 0, SEC(5101), at, 64);
        order_is(q, h[1], h[0]); /* b first until 5400 s */
        int n2 = drive(q, NULL, NULL, 0, tick ? SEC(5100) : SEC(4200), SEC(5401), at + n, 64 - n);
        order_is(q, h[0], h[1]); /* a first from 5400 s */
        if (tick) {
            assert_int_equal(n, 16); /* 300, 600, ... 5100 s but 4200 s */
            assert_int_equal(n2, 1); /* 5400 s */
            continue;
        }
        assert_int_equal(n, 2);
        assert_int_equal(n2, 1);
        assert_int_equal(at[0], SEC(300));
        assert_int_equal(at[1], SEC(2100));
        assert_int_equal(at[2], SEC(5400));
        assert_int_equal(gs_engine_next_wakeup(q->eng, SEC(5400)), SEC(6300));
        qstep(q, SEC(6300));
        order_is(q, h[0], h[1]);
        gs_time w = gs_engine_next_wakeup(q->eng, SEC(6300));
        assert_true(w > SEC(1e12)); /* only the saturation of a's key is left */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_long_job),
        QTEST(test_crossing_tie),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

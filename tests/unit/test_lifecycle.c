/* test_lifecycle.c - the live job lifecycle (lifecycle.c): starting,
 * stopping, launch failures, exit codes, retries, reported checkpoints.
 *
 * Every engine call is followed by gs_engine_check (lctestutil.h).  Rules
 * the expectations follow (engine.h, lifecycle.c header): in live mode a
 * START leaves the job STARTING until gs_engine_started; a stop (cancel,
 * kill, preempt) leaves it STOPPING with its GPUs held until
 * gs_engine_exited; a failed launch goes back ahead of its peers; pack
 * placement on an idle [8] node gives a g-GPU job the lowest g GPUs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lctestutil.h"

/* START -> STARTING -> started() -> RUNNING -> exited(0) -> DONE.  The
 * run's work counts from the confirmation: started at 5 s, exited at 65 s
 * = 60 s of work. */
static void test_start_confirmed(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 4);
    assert_int_equal(lf_step(f, 0), 1);
    lf_start(f, 0, a, 0, "n1", 0x0F);
    assert_int_equal(lf_state(f, a), GS_JOB_STARTING);
    assert_int_equal(gs_engine_running_count(f->eng), 1);
    assert_int_equal(lf_idle(f, "n1"), 0xF0); /* held while starting */
    LF_OK(f, gs_engine_started(f->eng, SEC(5), a, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_RUNNING);
    LF_OK(f, gs_engine_started(f->eng, SEC(6), a, LF_ERR), GS_ESTATE); /* twice */
    LF_OK(f, gs_engine_exited(f->eng, SEC(65), a, 0, LF_ERR), 0);
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_DONE);
    assert_int_equal(ji.exit_code, 0);
    assert_int_equal(ji.attempts, 1);
    assert_int_equal(ji.runs, 1);
    assert_int_equal(ji.work, SEC(60));
    assert_int_equal(ji.end, SEC(65));
    lf_event(f, 1, GS_EV_FINISH, a, SEC(65));
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
    LF_OK(f, gs_engine_exited(f->eng, SEC(66), a, 0, LF_ERR), GS_ESTATE);
}

/* A non-zero exit is FAILED with its code kept, and never retried. */
static void test_exit_code_failed(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    LF_OK(f, gs_engine_started(f->eng, SEC(1), a, LF_ERR), 0);
    LF_OK(f, gs_engine_exited(f->eng, SEC(9), a, 139, LF_ERR), 0); /* 128 + SIGSEGV */
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_FAILED);
    assert_int_equal(ji.exit_code, 139);
    assert_int_equal(gs_engine_pending_count(f->eng), 0);
    LF_OK(f, gs_engine_exited(f->eng, SEC(9), a, 400, LF_ERR), GS_ESTATE);
}

/* A cancelled running job is STOPPING: its 8 GPUs stay held and the
 * waiting 8-GPU job b does not start (not at 10 s, not at 15 s) until the
 * stop is confirmed at 20 s; then b starts on all of n1 at 20 s. */
static void test_stopping_holds_gpus(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    LF_OK(f, gs_engine_started(f->eng, 0, a, LF_ERR), 0);
    LF_OK(f, gs_engine_cancel(f->eng, SEC(10), a, LF_ERR), 0);
    lf_event(f, 1, GS_EV_CANCEL, a, SEC(10));
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_STOPPING);
    assert_int_equal(ji.stop_reason, GS_JOB_CANCELLED);
    assert_int_equal(ji.work, SEC(10)); /* frozen at the stop order */
    int b = lf_submit(f, SEC(10), "b", 8);
    assert_int_equal(lf_step(f, SEC(10)), 0);
    assert_int_equal(lf_step(f, SEC(15)), 0);
    assert_int_equal(lf_idle(f, "n1"), 0);
    assert_int_equal(lf_state(f, b), GS_JOB_PENDING);
    assert_int_equal(f->rec.n, 2);
    ji = lf_info(f, a);
    assert_int_equal(ji.work, SEC(10)); /* still frozen at 15 s */
    LF_OK(f, gs_engine_exited(f->eng, SEC(20), a, 143, LF_ERR), 0); /* 128 + SIGTERM */
    ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_CANCELLED);
    assert_int_equal(ji.exit_code, 143);
    assert_int_equal(ji.end, SEC(20));
    assert_int_equal(lf_step(f, SEC(20)), 1);
    lf_start(f, 2, b, SEC(20), "n1", 0xFF);
}

/* FIFO: a, b, c (8 GPUs each) queue on one [8] node; a starts and fails to
 * launch at 2 s.  It goes back to the front, not behind b and c: the queue
 * lists a, b, c and a starts again at 2 s.  Its failed launch is not a
 * run (runs 1 after the restart) but an attempt (2). */
static void test_launch_failure_front_fifo(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 8), b = lf_submit(f, 0, "b", 8), c = lf_submit(f, 0, "c", 8);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0xFF);
    LF_OK(f, gs_engine_launch_failed(f->eng, SEC(2), a, LF_ERR), 0);
    lf_event(f, 1, GS_EV_FAIL, a, SEC(2));
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_PENDING);
    assert_int_equal(ji.runs, 0);
    assert_int_equal(ji.first_start, GS_TIME_NONE);
    assert_int_equal(ji.failures, 1);
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
    int q[4];
    assert_int_equal(gs_engine_queue_list(f->eng, q, 4), 3);
    assert_int_equal(q[0], a);
    assert_int_equal(q[1], b);
    assert_int_equal(q[2], c);
    lf_step(f, SEC(2));
    lf_start(f, 2, a, SEC(2), "n1", 0xFF);
    ji = lf_info(f, a);
    assert_int_equal(ji.runs, 1);
    assert_int_equal(ji.attempts, 2);
}

/* Priority with EASY backfill on one [8] node: z (4 GPUs, limit 100 s)
 * runs from 0; b (8 GPUs, submitted at 1 s) waits for z's end (reserved
 * at 100 s); a (4 GPUs, limit 10 s, submitted at 2 s) backfills at 2 s.
 * Its launch fails at 3 s: requeued first among its equal-priority peers,
 * although b was submitted earlier - the queue lists a, b (without the
 * rule: b, a). */
static void test_launch_failure_front_priority(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.backfill", "easy",
                         NULL };
    struct lfix *f = lf_new("n1:8", kv, 1);
    struct gs_job_spec z = spec_of("z", 0, 4), b = spec_of("b", SEC(1), 8),
                       a = spec_of("a", SEC(2), 4);
    z.time_limit = SEC(100);
    b.time_limit = SEC(100);
    a.time_limit = SEC(10);
    int hz = lf_submit_spec(f, 0, &z);
    lf_step(f, 0);
    LF_OK(f, gs_engine_started(f->eng, 0, hz, LF_ERR), 0);
    int hb = lf_submit_spec(f, SEC(1), &b);
    lf_step(f, SEC(1));
    int ha = lf_submit_spec(f, SEC(2), &a);
    lf_step(f, SEC(2));
    assert_int_equal(lf_state(f, ha), GS_JOB_STARTING);
    LF_OK(f, gs_engine_launch_failed(f->eng, SEC(3), ha, LF_ERR), 0);
    int q[4];
    assert_int_equal(gs_engine_queue_list(f->eng, q, 4), 2);
    assert_int_equal(q[0], ha);
    assert_int_equal(q[1], hb);
}

/* retry.max_attempts 2 on launch failures: the first failure requeues,
 * the second leaves the job FAILED.  With retry.on [node_failure] only, a
 * launch failure fails at once. */
static void test_retry_limits(void **state)
{
    (void)state;
    const char *kv[] = { "retry.max_attempts", "2", "retry.on", "launch_failure", NULL };
    struct lfix *f = lf_new("n1:8", kv, 1);
    int a = lf_submit(f, 0, "a", 2);
    lf_step(f, 0);
    LF_OK(f, gs_engine_launch_failed(f->eng, SEC(1), a, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_PENDING);
    lf_step(f, SEC(1));
    assert_int_equal(lf_state(f, a), GS_JOB_STARTING);
    LF_OK(f, gs_engine_launch_failed(f->eng, SEC(2), a, LF_ERR), 0);
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_FAILED);
    assert_int_equal(ji.failures, 2);
    assert_int_equal(ji.attempts, 2);
    assert_int_equal(gs_engine_pending_count(f->eng), 0);
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
    LF_OK(f, gs_engine_launch_failed(f->eng, SEC(3), a, LF_ERR), GS_ESTATE);

    const char *kv2[] = { "retry.on", "node_failure", NULL };
    struct lfix *g = lf_new("n1:8", kv2, 1);
    int b = lf_submit(g, 0, "b", 2);
    lf_step(g, 0);
    f = g; /* LF_OK checks `f` */
    LF_OK(f, gs_engine_launch_failed(g->eng, SEC(1), b, LF_ERR), 0);
    assert_int_equal(lf_state(g, b), GS_JOB_FAILED);
}

/* A runtime cap in live mode: the job is STOPPING (GS_EV_KILL) at its cap,
 * KILLED once its exit is confirmed. */
static void test_kill_stopping(void **state)
{
    (void)state;
    const char *kv[] = { "queue.runtime_cap", "30s", NULL };
    struct lfix *f = lf_new("n1:8", kv, 1);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    LF_OK(f, gs_engine_started(f->eng, 0, a, LF_ERR), 0);
    lf_step(f, SEC(30));
    lf_event(f, 1, GS_EV_KILL, a, SEC(30));
    assert_int_equal(lf_state(f, a), GS_JOB_STOPPING);
    assert_int_equal(lf_info(f, a).stop_reason, GS_JOB_KILLED);
    LF_OK(f, gs_engine_exited(f->eng, SEC(32), a, 137, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_KILLED);
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
}

/* Immediate preemption in live mode on one [8] node: low (8 GPUs, prio 0)
 * runs; high (8 GPUs, prio 10) arrives at 100 s and preempts it.  low is
 * STOPPING (GS_EV_PREEMPT) and keeps its GPUs: high does not start before
 * low's exit is confirmed at 105 s, and no second preemption is planned
 * meanwhile.  low reported a checkpoint at 60 s, so requeued it loses the
 * 40 s since then: lost 40 s, work 60 s. */
static void test_preempt_stopping(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", "preemption.mode", "immediate",
                         "preemption.min_runtime", "0s", NULL };
    struct lfix *f = lf_new("n1:8", kv, 1);
    struct gs_job_spec lo = spec_of("low", 0, 8), hi = spec_of("high", SEC(100), 8);
    hi.priority = 10;
    int l = lf_submit_spec(f, 0, &lo);
    lf_step(f, 0);
    LF_OK(f, gs_engine_started(f->eng, 0, l, LF_ERR), 0);
    LF_OK(f, gs_engine_checkpointed(f->eng, SEC(60), l, LF_ERR), 0);
    assert_int_equal(lf_info(f, l).last_ckpt, SEC(60));
    int h = lf_submit_spec(f, SEC(100), &hi);
    lf_step(f, SEC(100));
    lf_event(f, 1, GS_EV_PREEMPT, l, SEC(100));
    assert_int_equal(lf_state(f, l), GS_JOB_STOPPING);
    assert_int_equal(lf_state(f, h), GS_JOB_PENDING);
    lf_step(f, SEC(102));
    assert_int_equal(f->rec.n, 2); /* nothing new while low stops */
    LF_OK(f, gs_engine_exited(f->eng, SEC(105), l, 143, LF_ERR), 0);
    struct gs_job_info ji = lf_info(f, l);
    assert_int_equal(ji.state, GS_JOB_PENDING);
    assert_int_equal(ji.preemptions, 1);
    assert_int_equal(ji.lost, SEC(40));
    assert_int_equal(ji.work, SEC(60));
    lf_step(f, SEC(105));
    lf_start(f, 2, h, SEC(105), "n1", 0xFF);
}

/* Off live mode nothing is ever STARTING or STOPPING: the start is
 * RUNNING at once and a cancel ends the job at once. */
static void test_sim_mode_immediate(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    assert_int_equal(lf_state(f, a), GS_JOB_RUNNING);
    LF_OK(f, gs_engine_started(f->eng, 0, a, LF_ERR), GS_ESTATE);
    LF_OK(f, gs_engine_cancel(f->eng, SEC(5), a, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_CANCELLED);
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_start_confirmed, lf_teardown),
        cmocka_unit_test_teardown(test_exit_code_failed, lf_teardown),
        cmocka_unit_test_teardown(test_stopping_holds_gpus, lf_teardown),
        cmocka_unit_test_teardown(test_launch_failure_front_fifo, lf_teardown),
        cmocka_unit_test_teardown(test_launch_failure_front_priority, lf_teardown),
        cmocka_unit_test_teardown(test_retry_limits, lf_teardown),
        cmocka_unit_test_teardown(test_kill_stopping, lf_teardown),
        cmocka_unit_test_teardown(test_preempt_stopping, lf_teardown),
        cmocka_unit_test_teardown(test_sim_mode_immediate, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

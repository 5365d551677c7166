/* test_node_events.c - nodes and GPUs going down, draining and coming
 * back (nodes.c, lifecycle.c's failed runs), with gs_engine_check after
 * every call (lctestutil.h).
 *
 * Progress arithmetic (progress.h): a job with checkpoint interval I and
 * cost C computes I of work, then writes a checkpoint for C of wall time
 * (protecting the work when it completes), and so on; a restart first pays
 * its restore cost.  A failed run loses the work since the last completed
 * checkpoint.  Pack placement takes the lowest-numbered node among equals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lctestutil.h"

static void set_node(struct lfix *f, gs_time now, const char *node, int state)
{
    LF_OK(f, gs_engine_node_set_state(f->eng, now, node_of(f->cl, node), state, LF_ERR), 0);
}

/* An 8-GPU job with a checkpoint every 600 s of work (60 s each) and a
 * 120 s restore runs on n1 from 0; n1 goes down at 1500 s.
 *   0-600 compute (work 600), 600-660 checkpoint (saved 600),
 *   660-1260 compute (work 1200), 1260-1320 checkpoint (saved 1200),
 *   1320-1500 compute (work 1380): lost 1380 - 1200 = 180 s.
 * Requeued (node_failure is retried by default) with work 1200, it
 * restarts at 1500 on n2 (n1 is out of service), and for a total of
 * 3000 s of work: restore 1500-1620; compute to 1800 at 2220, checkpoint
 * to 2280; to 2400 at 2880, checkpoint to 2940; to 3000 at 3540. */
static void test_node_down_under_8gpu_job(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8 n2:8", NULL, 0);
    struct gs_job_spec s = spec_of("a", 0, 8);
    s.ckpt_interval = SEC(600);
    s.ckpt_cost = SEC(60);
    s.restore_cost = SEC(120);
    int a = lf_submit_spec(f, 0, &s);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0xFF);
    set_node(f, SEC(1500), "n1", GS_NODE_DOWN);
    lf_event(f, 1, GS_EV_FAIL, a, SEC(1500));
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_PENDING);
    assert_int_equal(ji.lost, SEC(180));
    assert_int_equal(ji.work, SEC(1200));
    assert_int_equal(ji.failures, 1);
    assert_int_equal(ji.preemptions, 0);
    assert_int_equal(lf_idle(f, "n1"), 0); /* out of service */
    assert_int_equal(gs_engine_node_state(f->eng, node_of(f->cl, "n1")), GS_NODE_DOWN);
    lf_step(f, SEC(1500));
    lf_start(f, 2, a, SEC(1500), "n2", 0xFF);
    gs_time end = 0;
    assert_int_equal(gs_engine_job_eta(f->eng, a, SEC(3000), &end), 0);
    assert_int_equal(end, SEC(3540));
    /* nothing free anywhere: n1 is down, n2 is a's; S_8 (whole free 8-GPU
     * domains) is 0 */
    struct gs_cluster_stats st = gs_cluster_stats(gs_engine_cluster(f->eng));
    assert_int_equal(st.idle_gpus, 0);
    assert_int_equal(st.sched, 0);
    set_node(f, SEC(2000), "n1", GS_NODE_UP);
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
    st = gs_cluster_stats(gs_engine_cluster(f->eng));
    assert_int_equal(st.idle_gpus, 8);
    assert_int_equal(st.sched, 1); /* n1 whole again */
}

/* retry.max_attempts 1: the first node failure leaves the job FAILED; so
 * does a node failure when retry.on lists launch failures only. */
static void test_node_down_no_retry(void **state)
{
    (void)state;
    const char *kv[] = { "retry.max_attempts", "1", NULL };
    struct lfix *f = lf_new("n1:8 n2:8", kv, 0);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    set_node(f, SEC(10), "n1", GS_NODE_DOWN);
    assert_int_equal(lf_state(f, a), GS_JOB_FAILED);
    assert_int_equal(gs_engine_pending_count(f->eng), 0);

    const char *kv2[] = { "retry.on", "launch_failure", NULL };
    struct lfix *g = lf_new("n1:8", kv2, 0);
    int b = lf_submit(g, 0, "b", 4);
    lf_step(g, 0);
    set_node(g, SEC(10), "n1", GS_NODE_DOWN);
    assert_int_equal(lf_state(g, b), GS_JOB_FAILED);
}

/* Drain: a (4 GPUs) runs on n1's GPUs 0-3; n1 is drained at 10 s.  b (4
 * GPUs) would best fit n1's idle 4-7 under pack but starts on n2 (0x0F).
 * When a finishes at 20 s its GPUs leave service too: c (8 GPUs) cannot
 * start (n2 has 4 free, n1 none) until n1 is up at 30 s, then takes n1. */
static void test_drained_node(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8 n2:8", NULL, 0);
    int a = lf_submit(f, 0, "a", 4);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0x0F);
    set_node(f, SEC(10), "n1", GS_NODE_DRAIN);
    assert_int_equal(lf_state(f, a), GS_JOB_RUNNING); /* drain lets it run */
    assert_int_equal(lf_idle(f, "n1"), 0);
    /* S_8: n2 is the only whole free node; fragmentation (idle GPUs no
     * 8-GPU job can use): none, n1's idle four left service */
    struct gs_cluster_stats st = gs_cluster_stats(gs_engine_cluster(f->eng));
    assert_int_equal(st.sched, 1);
    assert_int_equal(st.frag_count, 0);
    int b = lf_submit(f, SEC(10), "b", 4);
    lf_step(f, SEC(10));
    lf_start(f, 1, b, SEC(10), "n2", 0x0F);
    LF_OK(f, gs_engine_finish(f->eng, SEC(20), a, LF_ERR), 0);
    assert_int_equal(lf_idle(f, "n1"), 0);
    int c = lf_submit(f, SEC(20), "c", 8);
    assert_int_equal(lf_step(f, SEC(20)), 0);
    assert_int_equal(lf_state(f, c), GS_JOB_PENDING);
    set_node(f, SEC(30), "n1", GS_NODE_UP);
    lf_step(f, SEC(30));
    lf_start(f, 3, c, SEC(30), "n1", 0xFF);
}

/* One GPU down: a 2-GPU job on n1's GPUs 0-1 fails when GPU 1 goes down
 * and restarts on in-service GPUs only (never GPU 1, which leaves the idle
 * mask: 0xFF less bit 1 = 0xFD).  GPU 1 up again is idle.  Bad indices and
 * states are refused. */
static void test_gpu_down(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0);
    int a = lf_submit(f, 0, "a", 2);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0x03);
    LF_OK(f, gs_engine_gpu_set_state(f->eng, SEC(5), 0, 1, GS_NODE_DOWN, LF_ERR), 0);
    lf_event(f, 1, GS_EV_FAIL, a, SEC(5));
    assert_int_equal(gs_engine_gpu_state(f->eng, 0, 1), GS_NODE_DOWN);
    assert_int_equal(gs_engine_gpu_state(f->eng, 0, 0), GS_NODE_UP);
    assert_int_equal(lf_idle(f, "n1"), 0xFD);
    lf_step(f, SEC(5));
    assert_int_equal(f->rec.ev[2].kind, GS_EV_START);
    assert_int_equal(f->rec.ev[2].parts[0].mask & 0x02, 0); /* not on the down GPU */
    LF_OK(f, gs_engine_gpu_set_state(f->eng, SEC(6), 0, 1, GS_NODE_UP, LF_ERR), 0);
    assert_int_equal(lf_idle(f, "n1") & 0x02, 0x02);
    LF_OK(f, gs_engine_gpu_set_state(f->eng, SEC(7), 0, 8, GS_NODE_UP, LF_ERR), GS_EINVAL);
    LF_OK(f, gs_engine_node_set_state(f->eng, SEC(7), 5, GS_NODE_UP, LF_ERR), GS_EINVAL);
    LF_OK(f, gs_engine_node_set_state(f->eng, SEC(7), 0, 7, LF_ERR), GS_EINVAL);
}

/* EASY backfill, user limits: x (8, limit 100 s) on n1 and y (8, limit
 * 200 s) on n2 from 0; w (8 GPUs) waits with a reservation on n1 at
 * 100 s (x ends first).  n1 goes down at 10 s: x is requeued and, ahead of
 * w (earlier submit), becomes the head: it is reserved on n2 at 200 s (y's
 * end) - nothing is reserved on the lost node any more. */
static void test_reservation_replanned(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.backfill", "easy",
                         NULL };
    struct lfix *f = lf_new("n1:8 n2:8", kv, 0);
    struct gs_job_spec x = spec_of("x", 0, 8), y = spec_of("y", 0, 8), w = spec_of("w", SEC(1), 8);
    x.time_limit = SEC(100);
    y.time_limit = SEC(200);
    w.time_limit = SEC(50);
    int hx = lf_submit_spec(f, 0, &x);
    lf_submit_spec(f, 0, &y);
    lf_step(f, 0);
    int hw = lf_submit_spec(f, SEC(1), &w);
    lf_step(f, SEC(1));
    const struct rec_event *e = &f->rec.ev[f->rec.n - 1];
    assert_int_equal(e->kind, GS_EV_RESERVE);
    assert_int_equal(e->job, hw);
    assert_int_equal(e->until, SEC(100));
    assert_int_equal(e->parts[0].node, node_of(f->cl, "n1"));
    set_node(f, SEC(10), "n1", GS_NODE_DOWN);
    int before = f->rec.n;
    lf_step(f, SEC(10));
    assert_true(f->rec.n > before);
    e = &f->rec.ev[f->rec.n - 1];
    assert_int_equal(e->kind, GS_EV_RESERVE);
    assert_int_equal(e->job, hx);
    assert_int_equal(e->until, SEC(200));
    assert_int_equal(e->parts[0].node, node_of(f->cl, "n2"));
    assert_int_equal(e->parts[0].mask, 0xFF);
}

/* Live mode: a STOPPING job whose node goes down completes its stop (its
 * processes are gone): cancelled, GPUs out of service. */
static void test_down_completes_stop(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    LF_OK(f, gs_engine_started(f->eng, 0, a, LF_ERR), 0);
    LF_OK(f, gs_engine_cancel(f->eng, SEC(5), a, LF_ERR), 0);
    set_node(f, SEC(6), "n1", GS_NODE_DOWN);
    assert_int_equal(lf_state(f, a), GS_JOB_CANCELLED);
    assert_int_equal(lf_info(f, a).failures, 0); /* its stop, not a failed attempt */
    assert_int_equal(lf_idle(f, "n1"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_node_down_under_8gpu_job, lf_teardown),
        cmocka_unit_test_teardown(test_node_down_no_retry, lf_teardown),
        cmocka_unit_test_teardown(test_drained_node, lf_teardown),
        cmocka_unit_test_teardown(test_gpu_down, lf_teardown),
        cmocka_unit_test_teardown(test_reservation_replanned, lf_teardown),
        cmocka_unit_test_teardown(test_down_completes_stop, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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
#include "io/policy_yaml.h"

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
    assert_int_equal(lf_info(f, a).start, SEC(5)); /* the run starts when confirmed */
    assert_int_equal(lf_info(f, a).first_start, SEC(5));
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

/* A run lost without an exit status (the daemon's supervisor vanished
 * with the job) is a system failure: with the default retry policy a
 * running job goes back to the queue (pending, failures 1, GS_EV_FAIL, its
 * GPUs free) and starts again as attempt 2; with retry.max_attempts 1 the
 * lost run was its one allowed failure and it is FAILED; a job holding no
 * GPUs is GS_ESTATE. */
static void test_run_lost(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 8);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0xFF);
    LF_OK(f, gs_engine_started(f->eng, SEC(1), a, LF_ERR), 0);
    LF_OK(f, gs_engine_run_lost(f->eng, SEC(5), a, LF_ERR), 0);
    lf_event(f, 1, GS_EV_FAIL, a, SEC(5));
    struct gs_job_info ji = lf_info(f, a);
    assert_int_equal(ji.state, GS_JOB_PENDING);
    assert_int_equal(ji.failures, 1);
    assert_int_equal(lf_idle(f, "n1"), 0xFF);
    LF_OK(f, gs_engine_run_lost(f->eng, SEC(5), a, LF_ERR), GS_ESTATE);
    lf_step(f, SEC(5));
    lf_start(f, 2, a, SEC(5), "n1", 0xFF);
    assert_int_equal(lf_info(f, a).attempts, 2);

    const char *kv[] = { "retry.max_attempts", "1", NULL };
    struct lfix *g = lf_new("n1:8", kv, 1);
    int b = lf_submit(g, 0, "b", 2);
    lf_step(g, 0);
    f = g; /* LF_OK checks `f` */
    LF_OK(f, gs_engine_started(g->eng, SEC(1), b, LF_ERR), 0);
    LF_OK(f, gs_engine_run_lost(g->eng, SEC(2), b, LF_ERR), 0);
    assert_int_equal(lf_state(g, b), GS_JOB_FAILED);
    assert_int_equal(lf_info(g, b).failures, 1);
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


/* Every field of two job records. */
static void assert_info_equal(const struct gs_job_info *a, const struct gs_job_info *b)
{
    assert_string_equal(a->id, b->id);
    assert_string_equal(a->team, b->team);
    const int64_t x[] = { a->state, a->gpus, a->milli, a->priority, a->submit, a->first_start,
                          a->start, a->end, a->time_limit, a->estimate, a->backfilled,
                          a->runs, a->work, a->lost, a->ckpt_wall, a->restore_wall,
                          a->preemptions, a->exit_code, a->attempts, a->failures,
                          a->last_ckpt, a->stop_reason, a->stop_at, a->saved, a->run_base,
                          a->past_ckpt_wall, a->past_restore_wall, a->front, a->capped };
    const int64_t y[] = { b->state, b->gpus, b->milli, b->priority, b->submit, b->first_start,
                          b->start, b->end, b->time_limit, b->estimate, b->backfilled,
                          b->runs, b->work, b->lost, b->ckpt_wall, b->restore_wall,
                          b->preemptions, b->exit_code, b->attempts, b->failures,
                          b->last_ckpt, b->stop_reason, b->stop_at, b->saved, b->run_base,
                          b->past_ckpt_wall, b->past_restore_wall, b->front, b->capped };
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (x[i] != y[i])
            fail_msg("job %s: field %zu: %lld != %lld", a->id, i, (long long)x[i],
                     (long long)y[i]);
}

static void assert_engines_equal(const struct lfix *o, const struct lfix *c)
{
    assert_int_equal(gs_engine_job_count(o->eng), gs_engine_job_count(c->eng));
    for (int h = 0; h < gs_engine_job_count(o->eng); h++) {
        struct gs_job_info a = lf_info(o, h), b = lf_info(c, h);
        assert_info_equal(&a, &b);
    }
    int qa[16], qb[16];
    int na = gs_engine_queue_list(o->eng, qa, 16), nb = gs_engine_queue_list(c->eng, qb, 16);
    assert_int_equal(na, nb);
    for (int i = 0; i < na && i < 16; i++)
        assert_int_equal(qa[i], qb[i]);
    for (int n = 0; n < 3; n++) {
        assert_int_equal(gs_cluster_idle_mask(gs_engine_cluster(o->eng), n),
                         gs_cluster_idle_mask(gs_engine_cluster(c->eng), n));
        assert_int_equal(gs_engine_node_state(o->eng, n), gs_engine_node_state(c->eng, n));
    }
    struct gs_cluster_stats so = gs_cluster_stats(gs_engine_cluster(o->eng));
    struct gs_cluster_stats sc = gs_cluster_stats(gs_engine_cluster(c->eng));
    assert_stats_equal(&so, &sc);
}

/* A fresh engine rebuilt from `o`'s records (gs_engine_restore_job in handle
 * order, the queue order, node states at o's time). */
static struct lfix *restore_copy(const struct lfix *o)
{
    struct lfix *c = lf_new("n1:8 n2:8 n3:8", NULL, 1);
    for (int h = 0; h < gs_engine_job_count(o->eng); h++) {
        struct gs_job_spec spec;
        struct gs_job_info info;
        struct gs_alloc al;
        assert_int_equal(gs_engine_job_spec(o->eng, h, &spec), 0);
        assert_int_equal(gs_engine_job_info(o->eng, h, &info), 0);
        int has = gs_job_state_holds(info.state);
        if (has)
            assert_int_equal(gs_engine_job_alloc(o->eng, h, &al), 0);
        struct gs_error err = { 0 };
        int rc = gs_engine_restore_job(c->eng, &spec, &info, has ? &al : NULL, &err);
        if (rc != h)
            fail_msg("restore of job %d: %d (%s)", h, rc, err.msg);
        lf_check(c);
    }
    int q[16];
    int n = gs_engine_queue_list(o->eng, q, 16);
    struct gs_error err = { 0 };
    if (gs_engine_restore_queue(c->eng, q, (size_t)n, &err) != 0)
        fail_msg("restore_queue: %s", err.msg);
    for (int node = 0; node < 3; node++)
        if (gs_engine_node_set_state(c->eng, gs_engine_now(o->eng), node,
                                     gs_engine_node_state(o->eng, node), &err) != 0)
            fail_msg("node state: %s", err.msg);
    lf_check(c);
    return c;
}

/* The same calls on both engines. */
static void both_started(struct lfix *o, struct lfix *c, gs_time t, int job)
{
    assert_int_equal(gs_engine_started(o->eng, t, job, NULL), 0);
    assert_int_equal(gs_engine_started(c->eng, t, job, NULL), 0);
    lf_check(o);
    lf_check(c);
}

static void both_exited(struct lfix *o, struct lfix *c, gs_time t, int job, int code)
{
    assert_int_equal(gs_engine_exited(o->eng, t, job, code, NULL), 0);
    assert_int_equal(gs_engine_exited(c->eng, t, job, code, NULL), 0);
    lf_check(o);
    lf_check(c);
}

static void both_step(struct lfix *o, struct lfix *c, gs_time t)
{
    assert_int_equal(lf_step(o, t), lf_step(c, t));
}

/* Drive `f` (n1, n2, n3 live) to the state described below; the handles
 * are d, f, r, c, x, k, z = 0..6. */
static void every_state(struct lfix *f)
{
    struct lfix *o = f;
    struct gs_job_spec rs = spec_of("r", 0, 4);
    rs.ckpt_interval = SEC(100);
    rs.ckpt_cost = SEC(10);
    int d = lf_submit(o, 0, "d", 2), fl = lf_submit(o, 0, "f", 1);
    int r = lf_submit_spec(o, 0, &rs);
    lf_step(o, 0);
    for (int j = 0; j < 3; j++)
        LF_OK(f, gs_engine_started(o->eng, 0, j, LF_ERR), 0);
    LF_OK(f, gs_engine_exited(o->eng, SEC(10), d, 0, LF_ERR), 0);
    LF_OK(f, gs_engine_exited(o->eng, SEC(20), fl, 3, LF_ERR), 0);
    LF_OK(f, gs_engine_checkpointed(o->eng, SEC(50), r, LF_ERR), 0);
    int c = lf_submit(o, SEC(60), "c", 8);
    lf_step(o, SEC(60));
    LF_OK(f, gs_engine_started(o->eng, SEC(60), c, LF_ERR), 0);
    LF_OK(f, gs_engine_cancel(o->eng, SEC(70), c, LF_ERR), 0);
    int x = lf_submit(o, SEC(80), "x", 8);
    lf_step(o, SEC(80));
    LF_OK(f, gs_engine_started(o->eng, SEC(80), x, LF_ERR), 0);
    int k = lf_submit(o, SEC(85), "k", 1);
    lf_submit(o, SEC(85), "z", 1);
    lf_step(o, SEC(85));
    LF_OK(f, gs_engine_launch_failed(o->eng, SEC(86), k, LF_ERR), 0);
    LF_OK(f, gs_engine_node_set_state(o->eng, SEC(90), 2, GS_NODE_DOWN, LF_ERR), 0);
}

/* An engine with a job in every state, at 90 s, on n1, n2, n3 (8 GPUs):
 *   d 2 GPUs done at 10 s; f 1 GPU failed (exit 3) at 20 s;
 *   r 4 GPUs running since 0 with a reported checkpoint at 50 s;
 *   c 8 GPUs on n2 since 60 s, cancelled at 70 s: stopping;
 *   x 8 GPUs on n3 since 80 s; n3 down at 90 s: pending, 10 s lost;
 *   k 1 GPU, launch failed at 86 s: pending at the queue's front;
 *   z 1 GPU, decided at 85 s: starting.
 * Restored into a fresh engine, every record, the queue order, the GPUs
 * and the node states are equal; then the same calls on both make the
 * same decisions and end with equal records and equal summaries. */
static void test_restore_every_state(void **state)
{
    (void)state;
    struct lfix *o = lf_new("n1:8 n2:8 n3:8", NULL, 1);
    every_state(o);
    enum { d, fl, r, c, x, k, z };
    /* the states, as derived above */
    const int want[] = { GS_JOB_DONE,    GS_JOB_FAILED,  GS_JOB_RUNNING, GS_JOB_STOPPING,
                         GS_JOB_PENDING, GS_JOB_PENDING, GS_JOB_STARTING };
    for (int h = 0; h < 7; h++)
        assert_int_equal(lf_state(o, h), want[h]);
    assert_int_equal(lf_info(o, x).lost, SEC(10));
    assert_int_equal(lf_info(o, r).saved, SEC(50));
    assert_int_equal(lf_info(o, k).front, 1);

    struct lfix *cp = restore_copy(o);
    assert_engines_equal(o, cp);
    o->rec.n = cp->rec.n = 0;
    both_started(o, cp, SEC(95), z);
    both_exited(o, cp, SEC(95), c, 143);
    both_step(o, cp, SEC(95)); /* k back on n1, x on n2 (n3 is down) */
    both_started(o, cp, SEC(96), k);
    both_started(o, cp, SEC(96), x);
    assert_int_equal(gs_engine_node_set_state(o->eng, SEC(100), 2, GS_NODE_UP, NULL), 0);
    assert_int_equal(gs_engine_node_set_state(cp->eng, SEC(100), 2, GS_NODE_UP, NULL), 0);
    both_exited(o, cp, SEC(150), k, 0);
    both_exited(o, cp, SEC(200), z, 0);
    both_exited(o, cp, SEC(300), r, 0);
    both_exited(o, cp, SEC(400), x, 0);
    both_step(o, cp, SEC(400));
    assert_int_equal(o->rec.n, cp->rec.n);
    for (int i = 0; i < o->rec.n; i++) {
        const struct rec_event *a = &o->rec.ev[i], *b = &cp->rec.ev[i];
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->job, b->job);
        assert_int_equal(a->time, b->time);
        assert_int_equal(a->nparts, b->nparts);
        for (int p = 0; p < a->nparts; p++)
            assert_int_equal(a->parts[p].mask, b->parts[p].mask);
    }
    assert_engines_equal(o, cp);
    /* r: 300 s of wall, two arithmetic checkpoints (at work 100, 200: 10 s
     * each) -> 280 s of work */
    assert_int_equal(lf_info(o, r).work, SEC(280));
    struct gs_summary so, sc;
    memset(&so, 0, sizeof so);
    memset(&sc, 0, sizeof sc);
    struct gs_metrics *m1 = gs_metrics_create(), *m2 = gs_metrics_create();
    assert_int_equal(gs_summary_build(&so, m1, o->eng), 0);
    assert_int_equal(gs_summary_build(&sc, m2, cp->eng), 0);
    assert_int_equal(so.completed, 5); /* d, r, k, z, x */
    assert_int_equal(so.failed, 1);
    assert_int_equal(so.cancelled, 1);
    assert_int_equal(so.completed, sc.completed);
    assert_int_equal(so.failed, sc.failed);
    assert_int_equal(so.cancelled, sc.cancelled);
    assert_true(so.wait.p50 == sc.wait.p50 && so.wait.max == sc.wait.max);
    assert_true(so.jct.p90 == sc.jct.p90);
    assert_true(so.useful_gpu_ms == sc.useful_gpu_ms);
    gs_summary_fini(&so);
    gs_summary_fini(&sc);
    gs_metrics_destroy(m1);
    gs_metrics_destroy(m2);
}

/* Retire forgets a terminal record: queries say GS_ENOENT, live jobs
 * cannot be retired, the id is free again (a new "a" gets a new handle,
 * never the retired one).  test_retire.c covers slot reuse. */
static void test_retire(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0);
    int a = lf_submit(f, 0, "a", 8), b = lf_submit(f, 0, "b", 8);
    lf_step(f, 0);
    LF_OK(f, gs_engine_retire(f->eng, a, LF_ERR), GS_ESTATE); /* running */
    LF_OK(f, gs_engine_finish(f->eng, SEC(10), a, LF_ERR), 0);
    LF_OK(f, gs_engine_retire(f->eng, a, LF_ERR), 0);
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(f->eng, a, &ji), GS_ENOENT);
    assert_int_equal(gs_engine_job_find(f->eng, "a"), GS_ENOENT);
    LF_OK(f, gs_engine_retire(f->eng, a, LF_ERR), GS_ENOENT);
    lf_step(f, SEC(10));
    lf_start(f, 2, b, SEC(10), "n1", 0xFF);
    struct gs_job_spec s = spec_of("a", SEC(10), 1);
    int a2 = lf_submit_spec(f, SEC(10), &s); /* the id is free again */
    assert_int_equal(a2, 2);                  /* handles 0, 1 given: the next is 2 */
    assert_int_equal(gs_engine_job_find(f->eng, "a"), a2);
    assert_int_equal(gs_engine_job_info(f->eng, a, &ji), GS_ENOENT); /* still refused */
    LF_OK(f, gs_engine_finish(f->eng, SEC(20), b, LF_ERR), 0);
    LF_OK(f, gs_engine_cancel(f->eng, SEC(20), a2, LF_ERR), 0);
    struct gs_summary sum;
    memset(&sum, 0, sizeof sum);
    struct gs_metrics *m = gs_metrics_create();
    assert_int_equal(gs_summary_build(&sum, m, f->eng), 0);
    assert_int_equal(sum.jobs, 2); /* b and the new a: the first a is forgotten */
    gs_summary_fini(&sum);
    gs_metrics_destroy(m);
}

/* Preemption with a grace in live mode, one [8] node: low (8 GPUs, a
 * checkpoint every 600 s of work at 30 s) runs from 0; high (prio 10)
 * arrives at 100 s.  low is told to drain (GS_EV_DRAIN, until 130 s: its
 * 30 s checkpoint of the 100 s done).  It keeps running; at 130 s the
 * engine orders the stop (GS_EV_PREEMPT): STOPPING, GPUs still held, high
 * waits; low's exit at 132 s requeues it with 100 s saved, nothing lost,
 * and high starts at 132 s.
 * Second engine: low reports its checkpoint at 118 s and exits (143) at
 * 120 s, before the grace ends: requeued then (GS_EV_PREEMPT at 120), with
 * the reported checkpoint protecting its 100 s; high starts at 120 s. */
static void test_drain_live(void **state)
{
    (void)state;
    const char *kv[] = { "queue.policy", "priority", "preemption.mode", "checkpoint",
                         "preemption.grace", "60s", "preemption.min_runtime", "0s", NULL };
    for (int early = 0; early < 2; early++) {
        struct lfix *f = lf_new("n1:8", kv, 1);
        struct gs_job_spec lo = spec_of("low", 0, 8), hi = spec_of("high", SEC(100), 8);
        lo.ckpt_interval = SEC(600);
        lo.ckpt_cost = SEC(30);
        hi.priority = 10;
        int l = lf_submit_spec(f, 0, &lo);
        lf_step(f, 0);
        LF_OK(f, gs_engine_started(f->eng, 0, l, LF_ERR), 0);
        int h = lf_submit_spec(f, SEC(100), &hi);
        lf_step(f, SEC(100));
        lf_event(f, 1, GS_EV_DRAIN, l, SEC(100));
        assert_int_equal(f->rec.ev[1].until, SEC(130));
        gs_time stop = SEC(132);
        if (!early) {
            lf_step(f, SEC(130));
            lf_event(f, 2, GS_EV_PREEMPT, l, SEC(130));
            assert_int_equal(lf_state(f, l), GS_JOB_STOPPING);
            assert_int_equal(lf_idle(f, "n1"), 0);
            lf_step(f, SEC(131));
            assert_int_equal(lf_state(f, h), GS_JOB_PENDING);
            LF_OK(f, gs_engine_exited(f->eng, stop, l, 143, LF_ERR), 0);
        } else {
            stop = SEC(120);
            LF_OK(f, gs_engine_checkpointed(f->eng, SEC(118), l, LF_ERR), 0);
            LF_OK(f, gs_engine_exited(f->eng, stop, l, 143, LF_ERR), 0);
            lf_event(f, 2, GS_EV_PREEMPT, l, stop);
        }
        struct gs_job_info ji = lf_info(f, l);
        assert_int_equal(ji.state, GS_JOB_PENDING);
        assert_int_equal(ji.work, SEC(100));
        assert_int_equal(ji.lost, 0);
        assert_int_equal(ji.preemptions, 1);
        lf_step(f, stop);
        lf_start(f, 3, h, stop, "n1", 0xFF);
        lf_free(f);
    }
}

/* The retry key as a policy file writes it: the list replaces the default
 * (both failures), `none` retries nothing, unknown names are refused with
 * the key's path; max_attempts has a range. */
static void test_retry_policy_yaml(void **state)
{
    (void)state;
    struct {
        const char *yaml;
        int rc, on, max;
    } cases[] = {
        { "queue: {policy: fifo}\n", 0, GS_RETRY_NODE_FAILURE | GS_RETRY_LAUNCH_FAILURE, 3 },
        { "retry: {max_attempts: 5, on: [node_failure]}\n", 0, GS_RETRY_NODE_FAILURE, 5 },
        { "retry:\n  on: [launch_failure, node_failure]\n", 0,
          GS_RETRY_NODE_FAILURE | GS_RETRY_LAUNCH_FAILURE, 3 },
        { "retry: {on: none}\n", 0, 0, 3 },
        { "retry: {on: [reboot]}\n", GS_EINVAL, 0, 0 },
        { "retry: {max_attempts: 0}\n", GS_ERANGE, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gs_policy p;
        struct gs_error err = { 0 };
        int rc = gs_policy_parse_yaml(cases[i].yaml, strlen(cases[i].yaml), "p.yaml", &p, &err);
        if (rc != cases[i].rc)
            fail_msg("case %zu: rc %d (%s), want %d", i, rc, err.msg, cases[i].rc);
        if (rc != 0) {
            assert_non_null(strstr(err.msg, "retry."));
            continue;
        }
        assert_int_equal(gs_policy_retry_on(&p), cases[i].on);
        assert_int_equal(p.retry_max_attempts, cases[i].max);
        gs_policy_fini(&p);
    }
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
        cmocka_unit_test_teardown(test_restore_every_state, lf_teardown),
        cmocka_unit_test_teardown(test_retire, lf_teardown),
        cmocka_unit_test_teardown(test_drain_live, lf_teardown),
        cmocka_unit_test(test_retry_policy_yaml),
        cmocka_unit_test_teardown(test_run_lost, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

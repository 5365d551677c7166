/* test_latency.c - the start latency: the engine's latency source
 * (core/engine/engine.h, gs_engine_set_latency) and the simulator's draw
 * (sim/latency.h).
 *
 * The engine draws nothing: without a source a start begins at its
 * decision whatever the policy's start_latency keys say; with one, the
 * source's answer (0 when negative) is added, and the source is
 * asked once per start with the job's handle and start number.  The draw's
 * golden values were computed independently (Python's math module, the
 * same splitmix64 and Box-Muller written out), shown next to each case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/latency.h"
#include "testutil.h"

/* What the source was asked, and what it answers per handle. */
struct asked {
    int n;
    int job[8], run[8];
    gs_time answer[4];
};

static gs_time source(void *arg, const struct gs_engine *eng, int job, int run)
{
    struct asked *a = arg;
    assert_non_null(eng);
    if (a->n < 8) {
        a->job[a->n] = job;
        a->run[a->n] = run;
    }
    a->n++;
    return a->answer[job & 3];
}

static gs_time start_of(struct gs_engine *eng, int job)
{
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(eng, job, &ji), 0);
    return ji.start;
}

static struct gs_engine *engine_of(struct gs_cluster *cl, struct gs_policy *pol)
{
    fifo_pack(pol);
    pol_set(pol, "start_latency.median", "5s"); /* the engine itself ignores it */
    struct gs_error err = { 0 };
    struct gs_engine *eng = gs_engine_create(cl, pol, &err);
    if (!eng)
        fail_msg("gs_engine_create: %s", err.msg);
    return eng;
}

static void submit_step(struct gs_engine *eng, gs_time now, const char *id, int gpus)
{
    struct gs_job_spec s = spec_of(id, now, gpus);
    struct gs_error err = { 0 };
    if (gs_engine_submit(eng, now, &s, &err) < 0)
        fail_msg("submit %s: %s", id, err.msg);
    if (gs_engine_step(eng, now, &err) < 0)
        fail_msg("step: %s", err.msg);
}

/* No source: every start at its decision, start_latency.median 5 s or not. */
static void test_no_source_no_latency(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    struct gs_engine *eng = engine_of(cl, &pol);
    submit_step(eng, SEC(10), "a", 2);
    assert_int_equal(start_of(eng, 0), SEC(10));
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* A source's answers: job 0 gets 7 s (start 10 + 7), job 1 a negative
 * answer (counted as 0: start 10), job 2 9e15 ms (9e12 s, the largest
 * policy duration: start 10 s + 9e15 ms, no clamp).  Each start asks
 * once, run 0. */
static void test_source_answers(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    struct gs_engine *eng = engine_of(cl, &pol);
    struct asked a = { .answer = { SEC(7), -5, (gs_time)9e15, 0 } };
    gs_engine_set_latency(eng, source, &a);
    submit_step(eng, SEC(10), "a", 2);
    submit_step(eng, SEC(10), "b", 2);
    submit_step(eng, SEC(10), "c", 2);
    assert_int_equal(a.n, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a.job[i], i);
        assert_int_equal(a.run[i], 0);
    }
    assert_int_equal(start_of(eng, 0), SEC(17));
    assert_int_equal(start_of(eng, 1), SEC(10));
    assert_int_equal(start_of(eng, 2), SEC(10) + (gs_time)9e15);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* The second start of a job is asked with run 1: job 0 starts on n1 (pack,
 * node order) at 0; n1 goes down at 20 s and the job is requeued
 * (retry.on node_failure by default) and started again on n2 at once. */
static void test_source_run_number(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    struct gs_policy pol;
    struct gs_engine *eng = engine_of(cl, &pol);
    struct asked a = { .answer = { SEC(1), 0, 0, 0 } };
    gs_engine_set_latency(eng, source, &a);
    submit_step(eng, 0, "a", 8);
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_node_set_state(eng, SEC(20), node_of(cl, "n1"), GS_NODE_DOWN,
                                              &err), 0);
    assert_true(gs_engine_step(eng, SEC(20), &err) >= 0);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.job[1], 0);
    assert_int_equal(a.run[0], 0);
    assert_int_equal(a.run[1], 1);
    assert_int_equal(start_of(eng, 0), SEC(21));
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* The simulator's draw.  Median 0: 0; sigma 0: the median; else
 * median x exp(sigma z) rounded to the ms, z from splitmix64 keyed by
 * seed x 0x9E3779B97F4A7C15 ^ job << 24 ^ run (values from Python):
 *   median 5 s, sigma 0.5, seed 7, job 3, run 1: z = -0.71198 -> 3502 ms
 *   median 5 s, sigma 0.5, seed 7, job 0, run 0: z =  0.01951 -> 5049 ms
 *   median 5 s, sigma 0.3, seed 1, job 12, run 0: z = 1.19885 -> 7164 ms
 * and a huge sigma x median clamps at 1e15 ms. */
static void test_draw_golden(void **state)
{
    (void)state;
    struct gs_policy pol;
    gs_policy_init(&pol);
    assert_int_equal(gs_latency_draw(&pol, 3, 1), 0);
    pol_set(&pol, "start_latency.median", "5s");
    assert_int_equal(gs_latency_draw(&pol, 3, 1), 5000);
    pol_set(&pol, "start_latency.sigma", "0.5");
    pol_set(&pol, "start_latency.seed", "7");
    assert_int_equal(gs_latency_draw(&pol, 3, 1), 3502);
    assert_int_equal(gs_latency_draw(&pol, 0, 0), 5049);
    pol_set(&pol, "start_latency.sigma", "0.3");
    pol_set(&pol, "start_latency.seed", "1");
    assert_int_equal(gs_latency_draw(&pol, 12, 0), 7164);
    pol_set(&pol, "start_latency.median", "9e12s");
    pol_set(&pol, "start_latency.sigma", "5");
    assert_int_equal(gs_latency_draw(&pol, 12, 0), (gs_time)1e15); /* 9e15 x e^6 */
    gs_policy_fini(&pol);
}

/* gs_latency_attach makes the engine use the draw: under median 5 s,
 * sigma 0.5, seed 7, job 0's first start is 5049 ms after its decision. */
static void test_attach(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "start_latency.median", "5s");
    pol_set(&pol, "start_latency.sigma", "0.5");
    pol_set(&pol, "start_latency.seed", "7");
    struct gs_engine *eng = gs_engine_create(cl, &pol, NULL);
    assert_non_null(eng);
    gs_latency_attach(eng);
    submit_step(eng, SEC(1), "a", 1);
    assert_int_equal(start_of(eng, 0), SEC(1) + 5049);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_source_no_latency),
        cmocka_unit_test(test_source_answers),
        cmocka_unit_test(test_source_run_number),
        cmocka_unit_test(test_draw_golden),
        cmocka_unit_test(test_attach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_capacity.c - capacity inferred from a job log (io/capacity.c) on
 * hand-made logs whose capacity timeline is known by construction: a
 * plateau, an outage, a growing cluster, noise above the capacity; the
 * node events written from it; bad input.
 *
 * Every log is built the way a full FIFO scheduler would have run it on
 * C nodes of 8 GPUs: `saturate` submits 2 x 8C 1-GPU evidence jobs at t
 * lasting `d`; 8C start at once, the other 8C wait until t + d and run
 * to t + 2d.  So on [t, t + d) usage is 8C while evidence jobs wait
 * (after the 60 s grace), and on [t + d, t + 2d) usage is 8C with nothing
 * waiting.  Parameters: the defaults but 3,600 s windows, 600 s of
 * waiting to call a window saturated, 1,800 s outages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/capacity.h"

struct log {
    struct gs_cap_record r[2048];
    size_t n;
};

static void add(struct log *l, int64_t submit, int64_t start, int64_t end, int gpus, int ev)
{
    assert_true(l->n < 2048);
    /* users 0-3 in turn: several users wait, as on a full cluster */
    l->r[l->n] = (struct gs_cap_record){ submit, start, end, gpus, ev, (int)(l->n % 4) };
    l->n++;
}

static void saturate(struct log *l, int64_t t, int64_t d, int nodes)
{
    for (int i = 0; i < 8 * nodes; i++) {
        add(l, t, t, t + d, 1, 1);
        add(l, t, t + d, t + 2 * d, 1, 1);
    }
}

static struct gs_cap_params params(void)
{
    struct gs_cap_params p;
    gs_cap_defaults(&p);
    p.window = 3600;
    p.min_saturated = 600;
    p.outage_min = 1800;
    p.hold = 0; /* the windows below are independent */
    return p;
}

static struct gs_cap_result infer(const struct log *l, const struct gs_cap_params *p)
{
    struct gs_cap_result c;
    struct gs_error err = { 0 };
    if (gs_cap_infer(l->r, l->n, p, &c, &err) != 0)
        fail_msg("gs_cap_infer: %s", err.msg);
    return c;
}

/* A plateau of 4 nodes: saturate(0, 3600, 4) fills [0, 7200).  Window 0
 * has 3,540 s of waiting at usage 32 -> 4 nodes; window 1 none ->
 * carried.  One step (0, 4).  With max_nodes 10 still 4: the 6 nodes the
 * log never shows in use are not invented.  Usage never exceeds 32. */
static void test_plateau(void **state)
{
    (void)state;
    static struct log l;
    l.n = 0;
    saturate(&l, 0, 3600, 4);
    struct gs_cap_params p = params();
    p.max_nodes = 10;
    struct gs_cap_result c = infer(&l, &p);
    assert_int_equal(c.windows, 2);
    assert_int_equal(c.saturated, 1);
    assert_int_equal(c.nsteps, 1);
    assert_int_equal(c.steps[0].t, 0);
    assert_int_equal(c.steps[0].nodes, 4);
    assert_int_equal(gs_cap_at(&c, 7000), 4);
    assert_int_equal(c.outages, 0);
    assert_true(c.over_gpu_s == 0 && c.over_s == 0 && c.over_max == 0);
    assert_int_equal(c.min_nodes, 4);
    assert_int_equal(c.max_nodes, 4);
    gs_cap_result_fini(&c);
}

/* An outage: the plateau on [0, 7200), then at 10,800 a 1-GPU job is
 * submitted that starts only at 18,000 (and ends at once) while nothing
 * runs: idle while a
 * job waits on [10,860, 18,000) = 7,140 s >= 1,800 -> capacity 0 there;
 * then saturate(18,000, 3,600, 4) again.  Steps: (0, 4), (10,860, 0),
 * (18,000, 4).  The idle stretch [7,200, 10,860) with nothing waiting is
 * no outage (an idle cluster). */
static void test_outage(void **state)
{
    (void)state;
    static struct log l;
    l.n = 0;
    saturate(&l, 0, 3600, 4);
    add(&l, 10800, 18000, 18000, 1, 1); /* ends at once: no GPU beyond the 32 */
    saturate(&l, 18000, 3600, 4);
    struct gs_cap_params p = params();
    struct gs_cap_result c = infer(&l, &p);
    assert_int_equal(c.outages, 1);
    assert_int_equal(c.outage_s, 18000 - 10860);
    assert_int_equal(c.nsteps, 3);
    assert_int_equal(c.steps[0].t, 0);
    assert_int_equal(c.steps[0].nodes, 4);
    assert_int_equal(c.steps[1].t, 10860);
    assert_int_equal(c.steps[1].nodes, 0);
    assert_int_equal(c.steps[2].t, 18000);
    assert_int_equal(c.steps[2].nodes, 4);
    assert_int_equal(gs_cap_at(&c, 9000), 4);
    assert_int_equal(gs_cap_at(&c, 12000), 0);
    assert_true(c.over_gpu_s == 0);
    gs_cap_result_fini(&c);
}

/* A growing cluster: 2 nodes saturated in window 0 (saturate(0, 1800, 2):
 * usage 16 on [0, 3600), evidence waiting [60, 1800)), 4 nodes in window 1
 * (saturate(3600, 1800, 4)), 6 in window 2 (saturate(7200, 1800, 6)).
 * Steps (0, 2), (3600, 4), (7200, 6). */
static void test_growing(void **state)
{
    (void)state;
    static struct log l;
    l.n = 0;
    saturate(&l, 0, 1800, 2);
    saturate(&l, 3600, 1800, 4);
    saturate(&l, 7200, 1800, 6);
    struct gs_cap_params p = params();
    struct gs_cap_result c = infer(&l, &p);
    assert_int_equal(c.saturated, 3);
    assert_int_equal(c.nsteps, 3);
    static const int64_t t[] = { 0, 3600, 7200 };
    static const int nodes[] = { 2, 4, 6 };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(c.steps[i].t, t[i]);
        assert_int_equal(c.steps[i].nodes, nodes[i]);
    }
    assert_int_equal(c.min_nodes, 2);
    assert_int_equal(c.max_nodes, 6);
    assert_true(c.over_gpu_s == 0);
    gs_cap_result_fini(&c);
}

/* Noise above the capacity: the plateau of 4 nodes plus one bogus 8-GPU
 * record on [1000, 1030) (overlapping records): usage 40 for 30 of the
 * 3,540 waiting seconds (0.8 %) -> the 0.95 quantile is still 32 -> 4
 * nodes, and the check reports the excess: 8 GPUs x 30 s = 240 GPU-s over
 * 30 s, at most 8 GPUs.  With quantile 1 (the maximum) the noise would
 * become a fifth node: that is what the quantile is for. */
static void test_noise(void **state)
{
    (void)state;
    static struct log l;
    l.n = 0;
    saturate(&l, 0, 3600, 4);
    add(&l, 1000, 1000, 1030, 8, 0);
    struct gs_cap_params p = params();
    struct gs_cap_result c = infer(&l, &p);
    assert_int_equal(c.nsteps, 1);
    assert_int_equal(c.steps[0].nodes, 4);
    assert_true(c.over_gpu_s == 240);
    assert_int_equal(c.over_s, 30);
    assert_int_equal(c.over_max, 8);
    gs_cap_result_fini(&c);
    p.quantile = 1;
    c = infer(&l, &p);
    assert_int_equal(c.steps[0].nodes, 5);
    assert_true(c.over_gpu_s == 0);
    gs_cap_result_fini(&c);
}

/* Only evidence jobs saturate: the same plateau with every job marked as
 * not evidence (say, a queue with its own limit) gives no saturated
 * window; the capacity is then the P99 of usage, 32 GPUs = 4 nodes. */
static void test_no_evidence(void **state)
{
    (void)state;
    static struct log l;
    l.n = 0;
    saturate(&l, 0, 3600, 3);
    for (size_t i = 0; i < l.n; i++)
        l.r[i].evidence = 0;
    struct gs_cap_params p = params();
    struct gs_cap_result c = infer(&l, &p);
    assert_int_equal(c.saturated, 0);
    assert_int_equal(c.steps[0].nodes, 3);
    gs_cap_result_fini(&c);
}

/* hold: with 1 window either side, the 2-node window 0 is raised to the
 * 4 nodes in use in window 1, and window 1 to the 6 of window 2. */
static void test_hold(void **state)
{
    (void)state;
    static struct log l;
    l.n = 0;
    saturate(&l, 0, 1800, 2);
    saturate(&l, 3600, 1800, 4);
    saturate(&l, 7200, 1800, 6);
    struct gs_cap_params p = params();
    p.hold = 1;
    struct gs_cap_result c = infer(&l, &p);
    assert_int_equal(c.nsteps, 2);
    assert_int_equal(c.steps[0].nodes, 4);
    assert_int_equal(c.steps[1].t, 3600);
    assert_int_equal(c.steps[1].nodes, 6);
    gs_cap_result_fini(&c);
}

/* Node events of the growing cluster on 6 nodes named a1..a6, origin 0:
 * at 0 nodes 3-6 drain; at 3600 3-4 up; at 7200 5-6 up. */
static void test_node_events(void **state)
{
    (void)state;
    static struct log l;
    l.n = 0;
    saturate(&l, 0, 1800, 2);
    saturate(&l, 3600, 1800, 4);
    saturate(&l, 7200, 1800, 6);
    struct gs_cap_params p = params();
    struct gs_cap_result c = infer(&l, &p);
    char buf[1024] = { 0 };
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    assert_int_equal(gs_cap_write_node_events(f, &c, 6, "a", 0, NULL), 0);
    fclose(f);
    assert_string_equal(buf, "time,node,state\n"
                             "0,a3,drain\n0,a4,drain\n0,a5,drain\n0,a6,drain\n"
                             "3600,a3,up\n3600,a4,up\n"
                             "7200,a5,up\n7200,a6,up\n");
    gs_cap_result_fini(&c);
}

/* Bad input is refused with a message naming the job. */
static void test_bad_input(void **state)
{
    (void)state;
    struct gs_cap_record r[2] = { { 0, 10, 20, 1, 1, 0 }, { 5, 4, 20, 1, 1, 0 } };
    struct gs_cap_params p = params();
    struct gs_cap_result c;
    struct gs_error err = { 0 };
    assert_int_equal(gs_cap_infer(r, 0, &p, &c, &err), GS_EINVAL);
    assert_int_equal(gs_cap_infer(r, 2, &p, &c, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "job 2"));
    p.quantile = 2;
    assert_int_equal(gs_cap_infer(r, 1, &p, &c, &err), GS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plateau),     cmocka_unit_test(test_outage),
        cmocka_unit_test(test_growing),     cmocka_unit_test(test_noise),
        cmocka_unit_test(test_no_evidence), cmocka_unit_test(test_node_events),
        cmocka_unit_test(test_bad_input),   cmocka_unit_test(test_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

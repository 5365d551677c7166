/* test_failures.c - the node-failure process (sim/failures.h): the list is
 * the same however the time is cut into draws, the up times have the mean
 * asked for (exponential and Weibull), and bad models are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/cluster/cluster.h"
#include "sim/failures.h"

#define HOUR_MS ((gs_time)3600 * 1000)

static void draw_all(const struct gs_failure_model *m, int nodes, const gs_time *cuts, int ncuts,
                     struct gs_node_events *out)
{
    struct gs_fail_stream s;
    struct gs_error err = { 0 };
    assert_int_equal(gs_fail_stream_init(&s, m, nodes, &err), 0);
    for (int i = 0; i < ncuts; i++)
        assert_int_equal(gs_fail_stream_draw(&s, cuts[i], out), 0);
    gs_fail_stream_fini(&s);
}

/* One draw to 1000 h or 37 uneven ones: the same list, in time order, each
 * node alternating down / up with the up repair_s after the down. */
static void test_cut_independent(void **state)
{
    (void)state;
    struct gs_failure_model m = { 42, 20 * 3600.0, 1800, GS_FAIL_EXPONENTIAL, 1, 0 };
    struct gs_node_events a = { 0 }, b = { 0 };
    gs_time one[1] = { 1000 * HOUR_MS }, many[37];
    for (int i = 0; i < 37; i++)
        many[i] = i == 36 ? 1000 * HOUR_MS : (gs_time)(i * i) * HOUR_MS / 2 + 7;
    draw_all(&m, 6, one, 1, &a);
    draw_all(&m, 6, many, 37, &b);
    assert_true(a.n > 200); /* 6 nodes x 1000 h / 20.5 h: about 290 failures, x 2 events */
    assert_int_equal(a.n, b.n);
    for (size_t i = 0; i < a.n; i++) { /* field by field: the struct has padding */
        assert_int_equal(a.ev[i].time, b.ev[i].time);
        assert_int_equal(a.ev[i].node, b.ev[i].node);
        assert_int_equal(a.ev[i].gpu, b.ev[i].gpu);
        assert_int_equal(a.ev[i].state, b.ev[i].state);
    }
    gs_time down_at[6] = { 0 };
    int down[6] = { 0 };
    for (size_t i = 0; i < a.n; i++) {
        const struct gs_node_event *e = &a.ev[i];
        if (i > 0)
            assert_true(a.ev[i - 1].time <= e->time);
        assert_int_equal(e->state, down[e->node] ? GS_NODE_UP : GS_NODE_DOWN);
        if (down[e->node])
            assert_int_equal(e->time - down_at[e->node], 1800 * 1000);
        down_at[e->node] = e->time;
        down[e->node] = !down[e->node];
    }
    gs_node_events_fini(&a);
    gs_node_events_fini(&b);
}

/* Mean up time over many failures of 50 nodes: within 3 % of mtbf (the
 * standard error of the mean of n exponentials is mtbf / sqrt(n); n is
 * about 50 x 10000 / 10 = 50,000 here, so 3 % is over 6 sigma; Weibull of
 * shape 0.7 has a larger spread, cv = sqrt(G(1+2/k)/G(1+1/k)^2 - 1) = 1.46,
 * still over 4 sigma). */
static double mean_up(const struct gs_failure_model *m)
{
    struct gs_node_events ev = { 0 };
    gs_time until[1] = { 10000 * HOUR_MS };
    draw_all(m, 50, until, 1, &ev);
    double last_up[50], sum = 0;
    for (int i = 0; i < 50; i++)
        last_up[i] = 0;
    long n = 0;
    for (size_t i = 0; i < ev.n; i++) {
        const struct gs_node_event *e = &ev.ev[i];
        double t = (double)e->time / 1000;
        if (e->state == GS_NODE_DOWN) {
            sum += t - last_up[e->node];
            n++;
        } else {
            last_up[e->node] = t;
        }
    }
    gs_node_events_fini(&ev);
    assert_true(n > 20000);
    return sum / (double)n;
}

static void test_means(void **state)
{
    (void)state;
    struct gs_failure_model e = { 7, 10 * 3600.0, 600, GS_FAIL_EXPONENTIAL, 1, 0 };
    double me = mean_up(&e);
    assert_true(fabs(me / (10 * 3600.0) - 1) < 0.03);
    struct gs_failure_model w = { 7, 10 * 3600.0, 600, GS_FAIL_WEIBULL, 0.7, 0 };
    double mw = mean_up(&w);
    assert_true(fabs(mw / (10 * 3600.0) - 1) < 0.03);
    /* shape 1 is the exponential: the same draws exactly */
    struct gs_failure_model w1 = { 7, 10 * 3600.0, 600, GS_FAIL_WEIBULL, 1, 0 };
    assert_true(fabs(mean_up(&w1) - me) < 1e-6 * me);
}

static void test_bad_models(void **state)
{
    (void)state;
    struct gs_fail_stream s;
    struct gs_error err = { 0 };
    struct gs_failure_model m = { 1, 0, 60, GS_FAIL_EXPONENTIAL, 1, 0 };
    assert_int_equal(gs_fail_stream_init(&s, &m, 4, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "node_mtbf"));
    m.mtbf_s = 3600;
    m.repair_s = -1;
    assert_int_equal(gs_fail_stream_init(&s, &m, 4, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "repair"));
    m.repair_s = 60;
    m.dist = GS_FAIL_WEIBULL;
    m.shape = 0;
    assert_int_equal(gs_fail_stream_init(&s, &m, 4, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "shape"));
    m.mtbf_s = INFINITY;
    assert_int_equal(gs_failure_model_check(&m, &err), GS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_independent),
        cmocka_unit_test(test_means),
        cmocka_unit_test(test_bad_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

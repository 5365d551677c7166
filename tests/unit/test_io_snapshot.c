/* test_io_snapshot.c - the cluster snapshot reader (io/snapshot_json.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/snapshot_json.h"
#include "failtestutil.h"

/* The seed's example (DESIGN.md section 3): free 2, 3, 8, 7. */
static const char seed[] =
    "{\n"
    "  \"time\": 0,\n"
    "  \"busy\": { \"node-1\": [0, 1, 2, 3, 4, 5], \"node-2\": [0, 1, 2, 3, 4],"
    " \"node-4\": [0] },\n"
    "  \"queue\": [ { \"id\": \"big\", \"gpus\": 8, \"team\": \"a\" } ]\n"
    "}\n";

/* The seed's cluster, 4 nodes x 8 H100 (80 GB) in one NVLink domain, k = 8. */
static struct gs_cluster *seed_cluster(void)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_create();
    assert_non_null(cl);
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", 80 * 1024, &err), 0);
    for (int i = 1; i <= 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%d", i);
        struct gs_node_spec s = { .name = name, .gpus = 8, .gpu_type = 0 };
        assert_int_equal(gs_cluster_add_node(cl, &s, &err), i - 1);
    }
    assert_int_equal(gs_cluster_seal(cl, 0, &err), 0);
    return cl;
}

static void parse_ok(const char *json, struct gs_cluster *cl, struct gs_snapshot *s)
{
    struct gs_error err = { 0 };
    if (gs_snapshot_parse_json(json, strlen(json), "s.json", cl, s, &err) != 0)
        fail_msg("parse failed: %s", err.msg);
    assert_int_equal(gs_cluster_check(cl, &err), 0);
}

static void test_seed_example(void **state)
{
    (void)state;
    struct gs_cluster *cl = seed_cluster();
    struct gs_snapshot s;
    parse_ok(seed, cl, &s);
    struct gs_cluster_stats st = gs_cluster_stats(cl);
    assert_int_equal(st.k, 8);
    assert_int_equal(st.idle_gpus, 20);     /* 2 + 3 + 8 + 7 */
    assert_int_equal(st.sched, 1);          /* only node-3 takes an 8-GPU job */
    assert_int_equal(gs_cluster_idle_mask(cl, 0), 0xC0);   /* busy 0-5 */
    assert_int_equal(gs_cluster_idle_mask(cl, 1), 0xE0);   /* busy 0-4 */
    assert_int_equal(gs_cluster_idle_mask(cl, 2), 0xFF);
    assert_int_equal(gs_cluster_idle_mask(cl, 3), 0xFE);   /* busy 0 */
    assert_int_equal(gs_cluster_gpu_used_mem(cl, 0, 0), 80 * 1024); /* whole GPU */
    assert_int_equal(s.time, 0);
    assert_int_equal(gs_trace_count(s.queue), 1);
    const struct gs_job_spec *j = gs_trace_job(s.queue, 0);
    assert_string_equal(j->id, "big");
    assert_int_equal(j->gpus, 8);
    assert_string_equal(j->team, "a");
    assert_int_equal(j->submit, 0);
    gs_snapshot_fini(&s);
    gs_cluster_destroy(cl);
}

static void test_partial_gpus(void **state)
{
    (void)state;
    struct gs_cluster *cl = seed_cluster();
    struct gs_snapshot s;
    parse_ok("{\"busy\": {\"node-2\": [{\"gpu\": 3, \"share\": 0.5, \"mem_gb\": 40},"
             " {\"gpu\": 4, \"share\": 0.25}, {\"gpu\": 5}, 6]}}",
             cl, &s);
    assert_int_equal(gs_cluster_gpu_used_milli(cl, 1, 3), 500);
    assert_int_equal(gs_cluster_gpu_used_mem(cl, 1, 3), 40 * 1024);
    /* no mem_gb: memory in proportion to the share, 80 GB / 4 = 20 GB */
    assert_int_equal(gs_cluster_gpu_used_milli(cl, 1, 4), 250);
    assert_int_equal(gs_cluster_gpu_used_mem(cl, 1, 4), 20 * 1024);
    assert_int_equal(gs_cluster_gpu_used_milli(cl, 1, 5), 1000);
    assert_int_equal(gs_cluster_gpu_used_milli(cl, 1, 6), 1000);
    assert_int_equal(gs_cluster_stats(cl).idle_gpus, 28);
    assert_int_equal(gs_trace_count(s.queue), 0);   /* no queue: empty, not NULL */
    gs_snapshot_fini(&s);
    gs_cluster_destroy(cl);
}

static void test_queue_columns_and_times(void **state)
{
    (void)state;
    struct gs_cluster *cl = seed_cluster();
    struct gs_snapshot s;
    /* numbers or strings, as CSV cells would be; no submit = the snapshot time */
    parse_ok("{\"time\": 100, \"queue\": ["
             "{\"id\": \"a\", \"gpus\": \"4\", \"gpu_share\": 0.25, \"duration\": \"30m\"},"
             "{\"id\": \"b\", \"submit\": 50, \"priority\": -2, \"team\": null, \"x\": 1},"
             "{\"id\": \"c\", \"submit\": \"1970-01-01T00:01:00Z\", \"class\": \"infer\"}]}",
             cl, &s);
    assert_int_equal(s.time, 100000);
    assert_int_equal(gs_trace_count(s.queue), 3);
    const struct gs_job_spec *a = gs_trace_job(s.queue, 0), *b = gs_trace_job(s.queue, 1),
                             *c = gs_trace_job(s.queue, 2);
    assert_int_equal(a->gpus, 4);
    assert_int_equal(a->milli, 250);
    assert_int_equal(a->submit, 100000);
    assert_int_equal(gs_trace_duration(s.queue, 0), 30 * 60 * 1000);
    assert_int_equal(b->submit, 50000);
    assert_int_equal(b->priority, -2);
    assert_null(b->team);                   /* null = default */
    assert_int_equal(gs_trace_duration(s.queue, 1), GS_TIME_NONE);
    assert_int_equal(c->submit, 60000);     /* ISO: UNIX time, not shifted */
    assert_int_equal(c->klass, GS_CLASS_INFER);
    gs_snapshot_fini(&s);
    gs_cluster_destroy(cl);
}

struct fail_case {
    const char *json;
    int code;
    const char *msg;
};

static void test_must_fail(void **state)
{
    (void)state;
    static const struct fail_case cases[] = {
        { "{\"busy\": {\"node-9\": [0]}}", GS_EINVAL, "s.json: busy.node-9: no such node" },
        { "{\"busy\": {\"node-1\": [8]}}", GS_EINVAL,
          "s.json: busy.node-1[0]: no GPU with that index (the node has 8)" },
        { "{\"busy\": {\"node-1\": [-1]}}", GS_EINVAL, "busy.node-1[0]: no GPU with that index" },
        { "{\"busy\": {\"node-1\": [1, 2, 1]}}", GS_EINVAL, "s.json: busy.node-1[2]: GPU 1 listed twice" },
        { "{\"busy\": {\"node-1\": [{\"gpu\": 1}, 1]}}", GS_EINVAL, "busy.node-1[1]: GPU 1 listed twice" },
        { "{\"busy\": {\"node-1\": [\"0\"]}}", GS_EINVAL, "busy.node-1[0]: expected a GPU index" },
        { "{\"busy\": {\"node-1\": [1.0]}}", GS_EINVAL, "busy.node-1[0]: expected a GPU index" },
        { "{\"busy\": {\"node-1\": 3}}", GS_EINVAL, "busy.node-1: expected a list" },
        { "{\"busy\": [1]}", GS_EINVAL, "busy: expected an object" },
        { "{\"busy\": {\"node-1\": [{\"share\": 0.5}]}}", GS_EINVAL, "busy.node-1[0]: missing 'gpu'" },
        { "{\"busy\": {\"node-1\": [{\"gpu\": 0, \"share\": 1.5}]}}", GS_EINVAL,
          "busy.node-1[0].share: expected a number in (0, 1]" },
        { "{\"busy\": {\"node-1\": [{\"gpu\": 0, \"mem_gb\": -1}]}}", GS_EINVAL,
          "busy.node-1[0].mem_gb: expected a size" },
        { "{\"busy\": {\"node-1\": [{\"gpu\": 0, \"mem_gb\": 100}]}}", GS_ENOSPC,
          "s.json: busy.node-1[0]: node-1:0 has 81920 MiB free" },
        { "{\"busy\": {\"node-1\": [{\"gpu\": 0, \"who\": 1}]}}", GS_EINVAL,
          "busy.node-1[0]: unknown key 'who'" },
        { "{\"time\": 0, \"jobs\": []}", GS_EINVAL, "s.json: unknown key 'jobs'" },
        { "{\"time\": -1}", GS_EINVAL, "s.json: time: -1 is not a time" },
        { "{\"time\": \"soon\"}", GS_EINVAL, "s.json: time: expected seconds" },
        { "[]", GS_EINVAL, "s.json: expected a JSON object" },
        { "{\"time\": 0,\n \"busy\": }", GS_EINVAL, "s.json:2: json:" },
        { "{\"time\": 0, \"time\": 1}", GS_EINVAL, "s.json:1: json: duplicate object key" },
        { "", GS_EINVAL, "s.json:" },
        { "{\"queue\": {}}", GS_EINVAL, "queue: expected a list" },
        { "{\"queue\": [1]}", GS_EINVAL, "s.json: queue[0]: expected an object" },
        { "{\"queue\": [{\"gpus\": 1}]}", GS_EINVAL, "s.json: queue[0]: missing 'id'" },
        { "{\"queue\": [{\"id\": \"a\"}, {\"id\": \"b\", \"gpus\": \"x\"}]}", GS_EINVAL,
          "s.json: queue[1].gpus: 'x' is not a GPU count" },
        { "{\"queue\": [{\"id\": \"a\", \"gpus\": true}]}", GS_EINVAL,
          "queue[0].gpus: expected a number or a string" },
        { "{\"queue\": [{\"id\": \"a\", \"gpus\": 1.5}]}", GS_EINVAL, "queue[0].gpus: '1.5'" },
        { "{\"queue\": [{\"id\": \"\"}]}", GS_EINVAL, "queue[0].id: must not be empty" },
        { "{\"queue\": [{\"id\": \"a\", \"submit\": \"1969-12-31\"}]}", GS_EINVAL,
          "queue[0].submit: before 1970" },
        { "{\"queue\": [{\"id\": \"a\", \"gpu_share\": 0}]}", GS_EINVAL,
          "queue[0].gpu_share: '0' is not a GPU fraction" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct fail_case *c = &cases[i];
        struct gs_cluster *cl = seed_cluster();
        struct gs_error err = { 0 };
        struct gs_snapshot s;
        int rc = gs_snapshot_parse_json(c->json, strlen(c->json), "s.json", cl, &s, &err);
        gs_cluster_destroy(cl);
        if (rc == 0) {
            gs_snapshot_fini(&s);
            fail_msg("case %zu parsed but must fail: %s", i, c->json);
        }
        assert_null(s.queue);           /* nothing to free on error */
        assert_int_equal(rc, c->code);
        tu_expect_error(i, &err, c->code, c->msg);
    }
}

static void test_load_file(void **state)
{
    (void)state;
    struct gs_cluster *cl = seed_cluster();
    struct gs_snapshot s;
    struct gs_error err = { 0 };
    if (gs_snapshot_load_json("tests/data/io/seed_snapshot.json", cl, &s, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_cluster_stats(cl).idle_gpus, 20);
    assert_int_equal(gs_cluster_stats(cl).sched, 1);
    gs_snapshot_fini(&s);
    gs_snapshot_fini(NULL);
    assert_int_equal(gs_snapshot_load_json("/nonexistent/s.json", cl, &s, &err), GS_EIO);
    gs_cluster_destroy(cl);
}

/* One attempt of the OOM sweep: the seed's snapshot onto a fresh seed
 * cluster (built before arming) with the n-th allocation failed. */
static int oom_parse_seed(long n)
{
    struct gs_cluster *cl = seed_cluster();
    struct gs_error err = { 0 };
    struct gs_snapshot s;
    tu_oom_arm(n);
    int rc = gs_snapshot_parse_json(seed, strlen(seed), "s.json", cl, &s, &err);
    tu_oom_disarm();
    gs_cluster_destroy(cl);
    if (rc == 0) {
        assert_int_equal(gs_trace_count(s.queue), 1);
        gs_snapshot_fini(&s);
    }
    return rc;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    tu_oom_sweep(oom_parse_seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_partial_gpus),
        cmocka_unit_test(test_queue_columns_and_times),
        cmocka_unit_test(test_must_fail),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_dash.c - the dashboard document (io/dash.c, io/dash_lists.c), its
 * history charts (io/dash_series.c) and the page writer.  Expected values
 * are derived by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "testutil.h"
#include "io/dash.h"
#include "io/dash_series.h"
#include "io/snapshot_json.h"
#include "sim/snapshot_run.h"

static const char seed_snap[] =
    "{\"time\": 0, \"busy\": {\"node-1\": [0, 1, 2, 3, 4, 5], \"node-2\": [0, 1, 2, 3, 4],"
    " \"node-4\": [0]}, \"queue\": [{\"id\": \"big\", \"gpus\": 8, \"team\": \"a\"}]}";

static const char *str_at(const json_t *o, const char *path1, size_t i, const char *key)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(o, path1), i), key));
}

/* The seed's snapshot through frag's path: the map is the snapshot (free
 * 2, 3, 8, 7; only node-3 takes an 8-GPU job), busy GPUs carry no job id
 * (-2), and the queue's one job fits now on node-3's GPUs 0-7. */
static void test_seed_document(void **state)
{
    (void)state;
    struct gs_cluster *idle = cluster_of("node-1:8 node-2:8 node-3:8 node-4:8");
    struct gs_cluster *busy = gs_cluster_clone(idle);
    struct gs_snapshot snap;
    struct gs_error err = { 0 };
    assert_int_equal(gs_snapshot_parse_json(seed_snap, strlen(seed_snap), "s", busy, &snap, &err), 0);
    struct gs_policy pol;
    gs_policy_init(&pol);
    int first = -1;
    struct gs_engine *eng = gs_snapshot_run(idle, busy, &pol, snap.queue, 0, &first, &err);
    assert_non_null(eng);
    assert_int_equal(first, 12); /* 6 + 5 + 1 busy GPUs restored as jobs 0..11 */
    int queue[] = { first };
    struct gs_dash_src src = { .source = "snapshot", .cl = busy, .eng = eng, .jobs_before = first,
                               .queue = queue, .nqueue = 1 };
    json_t *d = gs_dash_json(&src, &err);
    assert_non_null(d);
    static const char *const cells[] = { "bbbbbbff", "bbbbbfff", "ffffffff", "bfffffff" };
    static const int free_gpus[] = { 2, 3, 8, 7 };
    for (size_t n = 0; n < 4; n++) {
        json_t *node = json_array_get(json_object_get(d, "nodes"), n);
        assert_string_equal(json_string_value(json_object_get(node, "cells")), cells[n]);
        assert_int_equal(json_integer_value(json_object_get(node, "free")), free_gpus[n]);
        assert_int_equal(json_array_size(json_object_get(node, "units")), n == 2 ? 1 : 0);
        assert_int_equal(json_integer_value(json_array_get(json_object_get(node, "jobs"), 0)),
                         n == 2 ? -1 : -2);
    }
    assert_int_equal(json_integer_value(json_object_get(d, "free_gpus")), 20);
    assert_int_equal(json_array_size(json_object_get(d, "jobs")), 0);
    json_t *q = json_object_get(d, "queue");
    assert_int_equal(json_integer_value(json_object_get(q, "total")), 1);
    assert_string_equal(str_at(q, "items", 0, "reason"), "none");
    assert_string_equal(str_at(q, "items", 0, "placement"), "node-3:0-7");
    /* the running list leaves out the anonymous busy GPUs and the job the
     * pass started (handle 12 >= jobs_before) */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "running"), "total")), 0);
    json_t *team = json_array_get(json_object_get(d, "teams"), 0);
    assert_string_equal(json_string_value(json_object_get(team, "team")), "a");
    assert_int_equal(json_integer_value(json_object_get(team, "pending_gpus")), 8);
    assert_true(json_is_null(json_object_get(team, "quota")));
    json_decref(d);
    gs_engine_destroy(eng);
    gs_policy_fini(&pol);
    gs_snapshot_fini(&snap);
    gs_cluster_destroy(busy);
    gs_cluster_destroy(idle);
}

/* Node states and GPUs out of service: node-3 of the seed's snapshot down
 * takes its 8 free GPUs off the map (cells d, free 0, no unit: S_8 on the
 * map's terms has none left), node-4 draining shows its 7 free as n, and
 * GPU 7 of node-1 down leaves node-1 one free GPU: 20 - 8 - 7 - 1 = 4. */
/* S_k at any k on the seed's snapshot with every node split 4 + 4 (the
 * cluster's k is then 4).  Free: node-1 GPUs 6-7 (domain 1: 2), node-2 5-7
 * (domain 1: 3), node-3 all, node-4 1-7 (domain 0: 3, domain 1: 4); 20 idle.
 * k = 4: units node-3 d0, d1 and node-4 d1: S_4 = 3, count 20 - 12 = 8, no
 * topology part (no node has 4 idle split across domains): the cluster's
 * own statistics.  k = 8, larger than every domain (the whole-domain rule):
 * node-3 takes one job on its two idle domains; node-4 has one idle domain
 * and 3 in the other, which cannot hold the 4 left: S_8 = 1, count 12.
 * k = 16, larger than every node: only fully idle nodes pool (node-3's 8):
 * S_16 = 0, all 20 idle GPUs count.  A chosen k gives the document's
 * figures, with k_basis "chosen". */
static void test_kstats(void **state)
{
    (void)state;
    const char *desc = "node-1:8:[4,4] node-2:8:[4,4] node-3:8:[4,4] node-4:8:[4,4]";
    struct gs_cluster *idle = cluster_of(desc), *busy = gs_cluster_clone(idle);
    struct gs_snapshot snap;
    struct gs_error err = { 0 };
    assert_int_equal(gs_snapshot_parse_json(seed_snap, strlen(seed_snap), "s", busy, &snap, &err), 0);
    struct gs_dash_kstats ks;
    gs_dash_kstats(busy, 4, &ks);
    struct gs_cluster_stats cs = gs_cluster_stats(busy);
    assert_int_equal(cs.k, 4);
    assert_int_equal(ks.sched, 3);
    assert_int_equal(ks.frag_count, 8);
    assert_int_equal(ks.frag_topology, 0);
    assert_int_equal(ks.sched, cs.sched);
    assert_int_equal(ks.frag_count, cs.frag_count);
    assert_int_equal(ks.frag_topology, cs.frag_topology);
    gs_dash_kstats(busy, 8, &ks);
    assert_int_equal(ks.sched, 1);
    assert_int_equal(ks.frag_count, 12);
    assert_int_equal(ks.frag_topology, 0);
    gs_dash_kstats(busy, 16, &ks);
    assert_int_equal(ks.sched, 0);
    assert_int_equal(ks.frag_count, 20);
    struct gs_dash_src src = { .source = "snapshot", .cl = busy, .k = 8 };
    assert_int_equal(gs_dash_pick_k(&src), 8);
    json_t *d = gs_dash_json(&src, &err);
    assert_non_null(d);
    json_t *sk = json_object_get(d, "schedulability");
    assert_int_equal(json_integer_value(json_object_get(sk, "k")), 8);
    assert_int_equal(json_integer_value(json_object_get(sk, "value")), 1);
    assert_string_equal(json_string_value(json_object_get(sk, "k_basis")), "chosen");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "fragmentation"), "count")), 12);
    assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(d, "nodes"), 2), "units")), 2);
    json_decref(d);
    src.k = 0; /* no queue: the cluster's k */
    assert_int_equal(gs_dash_pick_k(&src), 4);
    gs_snapshot_fini(&snap);
    gs_cluster_destroy(busy);
    gs_cluster_destroy(idle);
}

static void test_node_states(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("node-1:8 node-2:8 node-3:8 node-4:8");
    struct gs_snapshot snap;
    struct gs_error err = { 0 };
    assert_int_equal(gs_snapshot_parse_json(seed_snap, strlen(seed_snap), "s", cl, &snap, &err), 0);
    unsigned char st[] = { GS_DASH_UP, GS_DASH_UP, GS_DASH_DOWN, GS_DASH_DRAIN };
    uint64_t down[] = { 0x80, 0, 0, 0 };
    struct gs_dash_src src = { .cl = cl, .node_state = st, .gpus_down = down };
    json_t *d = gs_dash_json(&src, &err);
    assert_non_null(d);
    json_t *nodes = json_object_get(d, "nodes");
    assert_string_equal(str_at(d, "nodes", 0, "cells"), "bbbbbbfd");
    assert_string_equal(str_at(d, "nodes", 2, "cells"), "dddddddd");
    assert_string_equal(str_at(d, "nodes", 2, "state"), "down");
    assert_string_equal(str_at(d, "nodes", 3, "cells"), "bnnnnnnn");
    assert_int_equal(json_array_size(json_object_get(json_array_get(nodes, 2), "units")), 0);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, 3), "free")), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "free_gpus")), 4);
    json_decref(d);
    gs_snapshot_fini(&snap);
    gs_cluster_destroy(cl);
}

/* A live engine under borrowing quotas a: 2, b: 6 on one [4,4] node: a1 (a, 2
 * GPUs) and a2 (a, 1 GPU, borrowing b's idle quota of 6: 2 + 1 > 2) start at 0 on the pack
 * order's GPUs 0-1 and 2; b1 (b, 6 GPUs) cannot fit the 5 left and waits
 * (shortage), and the map shows a1's and a2's cells, their job table
 * entries and the per-domain units for k = 4: domain 1 (GPUs 4-7) is
 * idle, domain 0 has one GPU left.  Team a: 3 GPUs, quota 2, borrowed 1. */
static void test_live_running_teams(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8:[4,4]");
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "queue.quota.a", "2");
    pol_set(&pol, "queue.quota.b", "6");
    pol_set(&pol, "queue.quota_mode", "borrow");
    struct gs_error err = { 0 };
    struct gs_engine *eng = gs_engine_create(cl, &pol, &err);
    assert_non_null(eng);
    struct gs_job_spec a1 = spec_of("a1", 0, 2), a2 = spec_of("a2", 0, 1);
    struct gs_job_spec b1 = spec_of("b1", SEC(5), 6);
    a1.team = a2.team = "a";
    a1.time_limit = SEC(600); /* fifo_pack estimates with the user's limit */
    b1.team = "b";
    assert_int_equal(gs_engine_submit(eng, 0, &a1, &err), 0);
    assert_int_equal(gs_engine_submit(eng, 0, &a2, &err), 1);
    assert_true(gs_engine_step(eng, 0, &err) >= 0);
    assert_int_equal(gs_engine_submit(eng, SEC(5), &b1, &err), 2);
    assert_true(gs_engine_step(eng, SEC(65), &err) >= 0);
    int queue[] = { 2 };
    struct gs_dash_src src = { .source = "daemon", .cl = gs_engine_cluster(eng), .eng = eng,
                               .jobs_before = -1, .queue = queue, .nqueue = 1 };
    json_t *d = gs_dash_json(&src, &err);
    assert_non_null(d);
    json_t *node = json_array_get(json_object_get(d, "nodes"), 0);
    assert_string_equal(json_string_value(json_object_get(node, "cells")), "bbbfffff");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(node, "units"), 0)), 1);
    assert_int_equal(json_array_size(json_object_get(node, "units")), 1);
    assert_string_equal(str_at(d, "jobs", 0, "id"), "a1");
    assert_string_equal(str_at(d, "jobs", 1, "id"), "a2");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(node, "jobs"), 2)), 1);
    json_t *r = json_array_get(json_object_get(json_object_get(d, "running"), "items"), 0);
    assert_string_equal(json_string_value(json_object_get(r, "placement")), "n1:0-1");
    assert_true(fabs(json_real_value(json_object_get(r, "elapsed")) - 65) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(r, "estimate")) - 600) < 1e-9);
    json_t *r2 = json_array_get(json_object_get(json_object_get(d, "running"), "items"), 1);
    assert_true(json_is_null(json_object_get(r2, "estimate"))); /* a2: no limit, no history */
    json_t *q = json_array_get(json_object_get(json_object_get(d, "queue"), "items"), 0);
    assert_string_equal(json_string_value(json_object_get(q, "id")), "b1");
    assert_string_equal(json_string_value(json_object_get(q, "reason")), "shortage");
    assert_true(fabs(json_real_value(json_object_get(q, "wait")) - 60) < 1e-9); /* 65 - 5 */
    json_t *ta = json_array_get(json_object_get(d, "teams"), 0);
    assert_string_equal(json_string_value(json_object_get(ta, "team")), "a");
    assert_true(fabs(json_real_value(json_object_get(ta, "gpus")) - 3) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(ta, "borrowed")) - 1) < 1e-9);
    assert_int_equal(json_integer_value(json_object_get(ta, "quota")), 2);
    json_decref(d);
    gs_engine_destroy(eng);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
}

/* 120 pending jobs, the page at offset 100 with limit 50 holds the last
 * 20; the reasons count all 120. */
static void test_queue_paging(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    struct gs_error err = { 0 };
    struct gs_engine *eng = gs_engine_create(cl, &pol, &err);
    int queue[120];
    char ids[120][16];
    for (int i = 0; i < 120; i++) {
        snprintf(ids[i], sizeof ids[i], "j%03d", i);
        struct gs_job_spec s = spec_of(ids[i], 0, 8);
        queue[i] = gs_engine_submit(eng, 0, &s, &err);
    }
    assert_true(gs_engine_step(eng, 0, &err) >= 0); /* j000 starts, 119 wait */
    struct gs_dash_src src = { .cl = gs_engine_cluster(eng), .eng = eng, .jobs_before = -1,
                               .queue = queue + 1, .nqueue = 119, .q_offset = 100, .q_limit = 50 };
    json_t *d = gs_dash_json(&src, &err);
    json_t *q = json_object_get(d, "queue");
    assert_int_equal(json_integer_value(json_object_get(q, "total")), 119);
    assert_int_equal(json_array_size(json_object_get(q, "items")), 19); /* 100..118 */
    assert_string_equal(str_at(q, "items", 0, "id"), "j101");
    json_t *reasons = json_object_get(d, "reasons");
    int64_t sum = 0;
    const char *k;
    json_t *v;
    json_object_foreach(reasons, k, v) sum += json_integer_value(v);
    assert_int_equal(sum, 119);
    json_decref(d);
    gs_engine_destroy(eng);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* S_k samples 0 1 1 0 1 0 at t = 0..5 min: two runs with S_k >= 1, so two
 * window rectangles; waits 10 s, 20 s, 30 s of 1-GPU jobs: p50 20 s,
 * max 30 s; a 600 s wait before the first sample is outside the window. */
static void test_series_charts(void **state)
{
    (void)state;
    struct gs_dash_series *s = gs_dash_series_create();
    assert_non_null(s);
    json_t *empty = gs_dash_series_charts(s);
    assert_int_equal(json_object_size(empty), 0);
    json_decref(empty);
    static const int sk[] = { 0, 1, 1, 0, 1, 0 };
    for (int i = 0; i < 6; i++)
        gs_dash_series_add(s, SEC(60 * (i + 1)), 0.5, sk[i], 3, 1, 0.5, 2, 8);
    gs_dash_series_add(s, SEC(60), 0.9, 9, 0, 0, 0, 0, 8); /* not after the last: ignored */
    assert_false(gs_dash_series_due(s, SEC(370), 30));
    assert_true(gs_dash_series_due(s, SEC(390), 30));
    gs_dash_series_add_wait(s, SEC(30), SEC(600), 1);
    for (int i = 1; i <= 3; i++)
        gs_dash_series_add_wait(s, SEC(100 + i), SEC(10 * i), 1);
    json_t *c = gs_dash_series_charts(s);
    assert_non_null(c);
    const char *sksvg = json_string_value(json_object_get(c, "sk"));
    assert_non_null(sksvg);
    assert_int_equal(count_of(sksvg, "class=\"window\""), 2);
    assert_non_null(strstr(sksvg, "2 windows"));
    assert_int_equal(count_of(json_string_value(json_object_get(c, "frag")), "class=\"series\""), 3);
    assert_non_null(strstr(json_string_value(json_object_get(c, "util")), "now 50.0%"));
    const char *w = json_string_value(json_object_get(c, "waits"));
    assert_non_null(strstr(w, "<tr data-class=\"1\"><td>1 GPU</td><td class=\"n\">3</td>"
                              "<td class=\"n\">20s</td>"));
    assert_non_null(strstr(w, "&gt;8"));
    json_decref(c);
    gs_dash_series_destroy(s);
}

/* The page: the document goes in #gs-data with "</" escaped, so a job id
 * holding "</script>" cannot end the element; the live page polls. */
static void test_page_write(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t *doc = json_pack("{s:s}", "id", "</script><b>x");
    assert_int_equal(gs_dash_page_write(f, doc, NULL, 0), 0);
    fclose(f);
    assert_null(strstr(buf, "</script><b>"));
    assert_non_null(strstr(buf, "<\\/script><b>x"));
    assert_non_null(strstr(buf, "data-poll=\"\""));
    assert_null(strstr(buf, "@GS_"));
    free(buf);
    json_decref(doc);
    f = open_memstream(&buf, &len);
    assert_int_equal(gs_dash_page_write(f, NULL, "v1/dashboard", 3), 0);
    fclose(f);
    assert_non_null(strstr(buf, "data-poll=\"v1/dashboard\" data-refresh=\"3\""));
    assert_non_null(strstr(buf, "type=\"application/json\"></script>"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_document),
        cmocka_unit_test(test_kstats),
        cmocka_unit_test(test_node_states),
        cmocka_unit_test(test_live_running_teams),
        cmocka_unit_test(test_queue_paging),
        cmocka_unit_test(test_series_charts),
        cmocka_unit_test(test_page_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_mig.c - MIG: the profile geometry (mig.c), GPUs in MIG mode in the
 * cluster (cluster_mig.c), MIG placement (place_mig.c), the cluster file's
 * mig: keys (io/cluster_mig_yaml.c) and the engine's reconfigure policy.
 *
 * Geometry (NVIDIA MIG User Guide, "Supported MIG Profiles"): 7 compute
 * and 8 memory slices; on an A100-40GB 1g.5gb takes 1 memory slice and
 * starts at 0..6, 1g.10gb 2 slices at 0,2,4,6, 2g.10gb 2 at 0,2,4,
 * 3g.20gb 4 at 0,4, 4g.20gb 4 at 0, 7g.40gb all 8 at 0; A100-80GB and
 * H100-80GB have the same shapes with 10 GB slices (1g.10gb, 1g.20gb,
 * 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/cluster/mig.h"
#include "io/cluster_yaml.h"
#include "testutil.h"
#include "plctestutil.h"

#define A40 GS_MIG_A100_40GB
#define H80 GS_MIG_H100_80GB

static int prof(const char *name)
{
    int p = gs_mig_profile_find(name);
    if (p < 0)
        fail_msg("no profile %s", name);
    return p;
}

/* Names, aliases and per-model profiles. */
static void test_names(void **state)
{
    (void)state;
    assert_int_equal(gs_mig_model_find("A100-40GB"), A40);
    assert_int_equal(gs_mig_model_find("h100-80g"), H80);
    assert_int_equal(gs_mig_model_find("A100-80G"), GS_MIG_A100_80GB);
    assert_int_equal(gs_mig_model_find("V100"), GS_ENOENT);
    assert_string_equal(gs_mig_profile_name(prof("3G.20GB")), "3g.20gb");
    assert_int_equal(gs_mig_profile_find("9g.99gb"), GS_ENOENT);
    assert_non_null(gs_mig_geom(A40, prof("1g.5gb")));
    assert_null(gs_mig_geom(H80, prof("1g.5gb")));     /* 40 GB profile */
    assert_null(gs_mig_geom(A40, prof("7g.80gb")));
    /* shares: floor(1000 * c / 7), 7 slices = 1000 */
    assert_int_equal(gs_mig_milli(gs_mig_geom(A40, prof("1g.5gb"))), 142);
    assert_int_equal(gs_mig_milli(gs_mig_geom(A40, prof("3g.20gb"))), 428);
    assert_int_equal(gs_mig_milli(gs_mig_geom(A40, prof("7g.40gb"))), 1000);
}

/* Layout rules, row by row: the layout so far, the instance added (start
 * -1 = lowest valid), expected result. */
static void test_layout_rules(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        const char *have[4];
        const char *add;
        int start, expect, got_start;
    } rows[] = {
        { "4g then 3g at 4", { "4g.20gb" }, "3g.20gb", -1, 0, 4 },
        { "3g first takes 0: 4g has no room", { "3g.20gb" }, "4g.20gb", -1, GS_EINVAL, 0 },
        { "1g.5gb at 6 (slice 7 unused)", { "3g.20gb", "2g.10gb" }, "1g.5gb", -1, 0, 6 },
        { "2g.10gb cannot start at 1", { NULL }, "2g.10gb", 1, GS_EINVAL, 0 },
        { "1g.10gb at 6 takes slices 6-7", { "3g.20gb", "2g.10gb" }, "1g.10gb", -1, 0, 6 },
        { "7g alone", { NULL }, "7g.40gb", -1, 0, 0 },
        { "nothing beside 7g", { "7g.40gb" }, "1g.5gb", -1, GS_EINVAL, 0 },
        { "one +me per GPU", { "1g.5gb+me" }, "1g.5gb+me", -1, GS_EINVAL, 0 },
        { "80 GB profile on a 40 GB GPU", { NULL }, "1g.10gb+me", -1, GS_EINVAL, 0 },
        { "overlap at a given start", { "2g.10gb" }, "1g.5gb", 1, GS_EINVAL, 0 },
        { "compute full: 4g+2g+1g = 7", { "4g.20gb", "2g.10gb" }, "1g.5gb", -1, 0, 6 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_mig_layout l = { 0 };
        for (int k = 0; k < 4 && rows[i].have[k]; k++)
            assert_int_equal(gs_mig_layout_add(A40, &l, prof(rows[i].have[k]), -1), 0);
        int rc = gs_mig_layout_add(A40, &l, prof(rows[i].add), rows[i].start);
        if (rc != rows[i].expect)
            fail_msg("%s: got %d want %d", rows[i].what, rc, rows[i].expect);
        if (rc == 0 && l.start[l.n - 1] != rows[i].got_start)
            fail_msg("%s: start %d want %d", rows[i].what, l.start[l.n - 1], rows[i].got_start);
    }
}

/* Homogeneous layouts (what when_idle installs): 1g.5gb x7 (starts 0..6),
 * 1g.10gb x4 (0,2,4,6), 2g.10gb x3, 3g.20gb x2, 4g.20gb x1, 7g.40gb x1;
 * the same counts for the H100's 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb. */
static void test_homogeneous(void **state)
{
    (void)state;
    static const struct {
        int model;
        const char *p;
        int n;
    } rows[] = { { A40, "1g.5gb", 7 },  { A40, "1g.10gb", 4 }, { A40, "2g.10gb", 3 },
                 { A40, "3g.20gb", 2 }, { A40, "4g.20gb", 1 }, { A40, "7g.40gb", 1 },
                 { H80, "1g.10gb", 7 }, { H80, "1g.20gb", 4 }, { H80, "2g.20gb", 3 },
                 { H80, "3g.40gb", 2 }, { A40, "7g.80gb", 0 } };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_mig_layout l;
        gs_mig_layout_homogeneous(rows[i].model, prof(rows[i].p), &l);
        if (l.n != rows[i].n)
            fail_msg("%s: %d instances, want %d", rows[i].p, l.n, rows[i].n);
    }
}

/* A cluster of one 4-GPU A100-40GB node with GPU0 in MIG mode
 * [4g.20gb, 3g.20gb] and GPU1 [1g.5gb x7]. */
static struct gs_cluster *mig_cluster(void)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_create();
    assert_int_equal(gs_cluster_add_gpu_type(cl, "A100-40GB", TU_A100_MIB, &err), 0);
    assert_int_equal(gs_cluster_set_gpu_type_mig(cl, 0, A40), 0);
    struct gs_node_spec s = { .name = "a1", .gpus = 4, .gpu_type = 0 };
    assert_int_equal(gs_cluster_add_node(cl, &s, &err), 0);
    assert_int_equal(gs_cluster_seal(cl, 0, &err), 0);
    struct gs_mig_layout l0 = { 0 }, l1;
    gs_mig_layout_add(A40, &l0, prof("4g.20gb"), -1);
    gs_mig_layout_add(A40, &l0, prof("3g.20gb"), -1);
    gs_mig_layout_homogeneous(A40, prof("1g.5gb"), &l1);
    assert_int_equal(gs_cluster_set_mig(cl, 0, 0, &l0, &err), 0);
    assert_int_equal(gs_cluster_set_mig(cl, 0, 1, &l1, &err), 0);
    return cl;
}

/* MIG GPUs are not idle whole GPUs: idle mask 0x0C, S_k (k = 4) 0, 2 MIG
 * GPUs with 14 free compute slices.  A whole-GPU allocation of GPU0 fails
 * (GS_ENOSPC, "in MIG mode"); a 3g.20gb instance (slot 2) is taken:
 * milli 428, memory 40960 * 4/8 = 20480 MiB; free slices 14 - 3 = 11.
 * Taking it twice fails; releasing it restores 14.  Must-fail rows:
 * wrong share for the slot, slot out of range, two GPUs, layout change
 * while busy. */
static void test_cluster_instances(void **state)
{
    (void)state;
    struct gs_cluster *cl = mig_cluster();
    struct gs_error err = { 0 };
    assert_int_equal(gs_cluster_idle_mask(cl, 0), 0x0C);
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    assert_int_equal(s.mig_gpus, 2);
    assert_int_equal(s.mig_free_compute, 14);
    assert_int_equal(s.sched, 0);
    struct gs_alloc_part part = { 0, 0x01 };
    struct gs_alloc whole = { .nparts = 1, .cap = 1, .parts = &part, .milli = 1000 };
    assert_int_equal(gs_cluster_alloc(cl, &whole, &err), GS_ENOSPC);
    struct gs_alloc inst = { .nparts = 1, .cap = 1, .parts = &part, .milli = 428,
                             .mem_mib = 20480, .mig_slot = 2 };
    assert_int_equal(gs_cluster_alloc(cl, &inst, &err), 0);
    assert_int_equal(gs_cluster_stats(cl).mig_free_compute, 11);
    assert_cluster_ok(cl);
    assert_int_equal(gs_cluster_alloc(cl, &inst, &err), GS_ENOSPC);
    struct gs_alloc bad = inst;
    bad.mig_slot = 1; /* the free 4g.20gb: its share is 571, not 428 */
    assert_int_equal(gs_cluster_can_alloc(cl, &bad, &err), GS_EINVAL);
    bad = inst;
    bad.mig_slot = 3;
    assert_int_equal(gs_cluster_can_alloc(cl, &bad, &err), GS_EINVAL);
    struct gs_alloc_part two = { 0, 0x03 };
    bad = inst;
    bad.parts = &two;
    assert_int_equal(gs_cluster_can_alloc(cl, &bad, &err), GS_EINVAL);
    struct gs_mig_layout empty = { 0 };
    assert_int_equal(gs_cluster_set_mig(cl, 0, 0, &empty, &err), GS_ESTATE);
    assert_int_equal(gs_cluster_release(cl, &inst, &err), 0);
    assert_int_equal(gs_cluster_stats(cl).mig_free_compute, 14);
    assert_int_equal(gs_cluster_release(cl, &inst, &err), GS_ESTATE);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* Placement.  A 1g.5gb request: pack takes the GPU with the most busy
 * slices - both GPUs have none, so the first in order, GPU1 (GPU0 has no
 * 1g.5gb) slot 1.  After one instance is busy, pack stays on GPU1 (slot
 * 2).  A 3g.20gb request: GPU0 slot 2.  A 7g.40gb request: no instance ->
 * GS_ENOSPC; with reconfigure when_idle the only idle MIG GPU with nothing
 * busy... GPU0 is idle -> repartitioned (mig_reconf = 1 + 7g.40gb), slot
 * 1, share 1000, 40960 MiB. */
static void test_place_mig(void **state)
{
    (void)state;
    struct gs_cluster *cl = mig_cluster();
    struct gs_request r = req_whole(1, GS_TOPO_AUTO);
    r.mig = prof("1g.5gb") + 1;
    struct placed p = place_ok(cl, &r, GS_PLACE_PACK);
    expect_one(&p, cl, "a1", 0x02);
    assert_int_equal(p.a.mig_slot, 1);
    assert_int_equal(p.a.milli, 142);
    assert_int_equal(p.a.mem_mib, 5120);
    commit(cl, &p);
    p = place_ok(cl, &r, GS_PLACE_PACK);
    assert_int_equal(p.a.mig_slot, 2);
    r.mig = prof("3g.20gb") + 1;
    p = place_ok(cl, &r, GS_PLACE_FRAG);
    expect_one(&p, cl, "a1", 0x01);
    assert_int_equal(p.a.mig_slot, 2);
    r.mig = prof("7g.40gb") + 1;
    assert_int_equal(place_try(cl, &r, GS_PLACE_PACK, &p), GS_ENOSPC);
    struct gs_place_ctx ctx = { NULL, 1.0, 100, GS_MIG_WHEN_IDLE, NULL, GS_FRAG_SCORE_QUANTUM };
    r.ctx = &ctx;
    p = place_ok(cl, &r, GS_PLACE_PACK);
    expect_one(&p, cl, "a1", 0x01);
    assert_int_equal(p.a.mig_reconf, prof("7g.40gb") + 1);
    assert_int_equal(p.a.mig_slot, 1);
    assert_int_equal(p.a.milli, 1000);
    commit(cl, &p);
    assert_cluster_ok(cl);
    assert_int_equal(gs_cluster_gpu_mig(cl, 0, 0, NULL)->n, 1);
    /* must fail: a MIG request of 2 GPUs */
    r.gpus = 2;
    assert_int_equal(place_try(cl, &r, GS_PLACE_PACK, &p), GS_EINVAL);
    gs_cluster_destroy(cl);
}

/* spread takes the MIG GPU with the fewest busy slices: with GPU1 running
 * one 1g.5gb and GPU0 nothing, a 1g.5gb goes to GPU1 anyway (GPU0 offers
 * none); after GPU1 slot 1 busy, spread keeps GPU1 (the only one). */
static void test_spread_mig(void **state)
{
    (void)state;
    struct gs_cluster *cl = mig_cluster();
    struct gs_request r = req_whole(1, GS_TOPO_AUTO);
    r.mig = prof("1g.5gb") + 1;
    struct placed p = place_ok(cl, &r, GS_PLACE_SPREAD);
    expect_one(&p, cl, "a1", 0x02);
    gs_cluster_destroy(cl);
}

static struct gs_cluster *yaml(const char *text, struct gs_error *err)
{
    return gs_cluster_parse_yaml(text, strlen(text), "m.yaml", err);
}

/* The cluster file: a layout for every GPU, per GPU range, "*N" and "@S";
 * the geometry inferred from the type name or given by mig:. */
static void test_yaml_layouts(void **state)
{
    (void)state;
    struct gs_error err = { 0 };
    struct gs_cluster *cl = yaml("cluster:\n"
                                 "  gpu_types:\n"
                                 "    A100-40GB: { memory_gb: 40 }\n"
                                 "    big: { memory_gb: 80, mig: H100-80GB }\n"
                                 "  nodes:\n"
                                 "    - { name: a1, gpus: 2, gpu_type: A100-40GB,"
                                 " mig: [4g.20gb, 3g.20gb] }\n"
                                 "    - { name: h1, gpus: 4, gpu_type: big,"
                                 " mig: { \"0-1\": [\"1g.10gb*7\"], \"3\": [\"3g.40gb@4\"] } }\n",
                                 &err);
    if (!cl)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_cluster_mig_mask(cl, 0), 0x03);
    assert_int_equal(gs_cluster_mig_mask(cl, 1), 0x0B);
    assert_int_equal(gs_cluster_gpu_mig(cl, 1, 0, NULL)->n, 7);
    const struct gs_mig_layout *l = gs_cluster_gpu_mig(cl, 1, 3, NULL);
    assert_int_equal(l->n, 1);
    assert_int_equal(l->start[0], 4);
    assert_int_equal(gs_cluster_idle_mask(cl, 1), 0x04);
    gs_cluster_destroy(cl);
}

/* Must-fail rows: each names the file, line and key. */
static void test_yaml_errors(void **state)
{
    (void)state;
    static const struct {
        const char *node, *want;
    } rows[] = {
        { "{ name: a1, gpus: 2, gpu_type: A100-40GB, mig: [3g.20gb, 4g.20gb] }",
          "nodes[0].mig[1]: '4g.20gb' does not fit" },
        { "{ name: a1, gpus: 2, gpu_type: A100-40GB, mig: [9g.99gb] }", "no MIG profile" },
        { "{ name: a1, gpus: 2, gpu_type: A100-40GB, mig: { \"5\": [] } }",
          "expected GPU indexes" },
        { "{ name: a1, gpus: 2, gpu_type: plain, mig: [] }", "has no MIG geometry" },
        { "{ name: a1, gpus: 2, gpu_type: A100-40GB, mig: 3g.20gb }", "expected a list" },
        { "{ name: a1, gpus: 2, gpu_type: A100-40GB, mig: [\"1g.5gb*9\"] }",
          "expected PROFILE" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "cluster:\n  gpu_types:\n    A100-40GB: { memory_gb: 40 }\n"
                 "    plain: { memory_gb: 40 }\n  nodes:\n    - %s\n",
                 rows[i].node);
        struct gs_error err = { 0 };
        struct gs_cluster *cl = yaml(text, &err);
        if (cl || !strstr(err.msg, rows[i].want) || !strstr(err.msg, "m.yaml:6"))
            fail_msg("row %zu: got '%s', want '%s'", i, cl ? "(parsed)" : err.msg, rows[i].want);
    }
    struct gs_error err = { 0 };
    assert_null(yaml("cluster:\n  gpu_types:\n    x: { memory_gb: 40, mig: V100 }\n"
                     "  nodes:\n    - { name: a, gpus: 1 }\n",
                     &err));
    assert_non_null(strstr(err.msg, "not a MIG geometry"));
}

/* The engine: three jobs on the mig_cluster of the YAML form - 3g.20gb,
 * 1g.5gb, 7g.40gb, 100 s each at t = 0.
 *   never: 7g.40gb is rejected (no layout has it); the others run 0-100.
 *   when_idle (drain 60 s): GPU0 holds 4g+3g and is idle when the pass
 *   reaches 7g? No: the 3g.20gb job starts first on GPU0, so GPU0 is busy;
 *   GPU1 runs the 1g.5gb.  7g.40gb waits for an idle MIG GPU: at t = 100
 *   both finish, GPU0 (first) is repartitioned: start 100, 60 s drain,
 *   then 100 s of work -> ends 260. */
static void test_engine_reconfigure(void **state)
{
    (void)state;
    const char *text = "cluster:\n  gpu_types:\n    A100-40GB: { memory_gb: 40 }\n  nodes:\n"
                       "    - { name: a1, gpus: 2, gpu_type: A100-40GB,"
                       " mig: { \"0\": [4g.20gb, 3g.20gb], \"1\": [\"1g.5gb*7\"] } }\n";
    static const char *const profiles[] = { "3g.20gb", "1g.5gb", "7g.40gb" };
    for (int mode = 0; mode < 2; mode++) {
        struct gs_error err = { 0 };
        struct gs_cluster *cl = yaml(text, &err);
        assert_non_null(cl);
        struct gs_trace *tr = gs_trace_create();
        for (int i = 0; i < 3; i++) {
            struct gs_job_spec s = spec_of(profiles[i], 0, 1);
            s.mig = profiles[i];
            assert_int_equal(gs_trace_add(tr, &s, SEC(100)), i);
        }
        struct gs_policy pol;
        fifo_pack(&pol);
        if (mode) {
            pol_set(&pol, "mig.reconfigure", "when_idle");
            pol_set(&pol, "mig.drain_cost", "60s");
        }
        struct gs_sim_result res;
        run_sim(cl, &pol, tr, &res);
        struct gs_job_info big = job_named(res.engine, "7g.40gb");
        if (!mode) {
            assert_int_equal(big.state, GS_JOB_REJECTED);
        } else {
            assert_int_equal(big.state, GS_JOB_DONE);
            assert_int_equal(big.start, SEC(100));
            assert_int_equal(big.end, SEC(260));
        }
        assert_int_equal(job_named(res.engine, "1g.5gb").end, SEC(100));
        gs_sim_result_fini(&res);
        gs_policy_fini(&pol);
        gs_trace_destroy(tr);
        gs_cluster_destroy(cl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_layout_rules),
        cmocka_unit_test(test_homogeneous),
        cmocka_unit_test(test_cluster_instances),
        cmocka_unit_test(test_place_mig),
        cmocka_unit_test(test_spread_mig),
        cmocka_unit_test(test_yaml_layouts),
        cmocka_unit_test(test_yaml_errors),
        cmocka_unit_test(test_engine_reconfigure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

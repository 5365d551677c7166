/* test_place_topo.c - the topo strategy (place_topo.c): topology-aware best
 * fit that keeps S_k units, whole NVLink domains and whole nodes free, and
 * keeps jobs larger than a node inside one rack.
 *
 * topo's order (place_topo.c), restated for the derivations: lower first
 *   1. S_k units of the node destroyed, 2. whole idle domains broken,
 *   3. a whole idle node broken, 4. free GPUs left in the unit, 5. on the
 *   node, 6. node order.
 * pack (place.c): 4 then 5 then node order; spread: most idle node first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/base/rng.h"
#include "testutil.h"
#include "plctestutil.h"

#define PACK GS_PLACE_PACK
#define SPREAD GS_PLACE_SPREAD
#define TOPO GS_PLACE_TOPO

/* The case: an 8-GPU job that spread and pack block but topo keeps
 * a domain free for.  n1 is one NVLink domain of 8, n2 two islands of 4;
 * the largest domain is 8, so k = 8 and an 8-GPU job needs n1 whole.  A
 * 4-GPU job that only asks for one node (topology: node) comes first.
 *   pack:   both nodes idle, node-level score (8-4)*1024 + (8-4) on each ->
 *           tie -> node order -> n1 0x0F.
 *   spread: -(8*1024 + 8) on each -> tie -> n1.
 *   topo:   n1 loses its S_8 unit (1 -> 0); n2 has none to lose
 *           (floor(4/8) + floor(4/8) = 0) -> n2, the best domain d0 = 0x0F.
 * Then the 8-GPU job: after pack/spread n1 has 4 idle -> GS_ENOSPC; after
 * topo n1 is whole -> n1 0xFF. */
static void test_keeps_domain_for_8gpu(void **state)
{
    (void)state;
    static const struct {
        int strategy;
        const char *node;
        int big_fits;
    } rows[] = { { PACK, "n1", 0 }, { SPREAD, "n1", 0 }, { TOPO, "n2", 1 } };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_cluster *cl = cluster_of("n1:8 n2:8:[4,4]");
        struct gs_request four = req_whole(4, GS_TOPO_NODE), eight = req_whole(8, GS_TOPO_AUTO);
        struct placed p = place_ok(cl, &four, rows[i].strategy);
        expect_one(&p, cl, rows[i].node, 0x0F);
        commit(cl, &p);
        struct placed q;
        int rc = place_try(cl, &eight, rows[i].strategy, &q);
        if (rows[i].big_fits) {
            assert_int_equal(rc, 0);
            expect_one(&q, cl, "n1", 0xFF);
        } else {
            assert_int_equal(rc, GS_ENOSPC);
        }
        assert_cluster_ok(cl);
        gs_cluster_destroy(cl);
    }
}

/* Domain-sized jobs: topo agrees with pack's best fit when no unit is at
 * stake.  SEED free 2, 3, 8, 7; k = 8.  A 2-GPU job: node-1 leaves 0 in its
 * domain (exact fit), S_8 unchanged everywhere but node-3 -> node-1 0xC0
 * (GPUs 6, 7) for both. */
static void test_best_fit_like_pack(void **state)
{
    (void)state;
    for (int strategy = PACK; strategy <= TOPO; strategy += TOPO - PACK) {
        struct gs_cluster *cl = cluster_of("node-1:8 node-2:8 node-3:8 node-4:8");
        take(cl, "node-1", 0x3F);
        take(cl, "node-2", 0x1F);
        take(cl, "node-4", 0x01);
        struct gs_request two = req_whole(2, GS_TOPO_AUTO);
        struct placed p = place_ok(cl, &two, strategy);
        expect_one(&p, cl, "node-1", 0xC0);
        gs_cluster_destroy(cl);
    }
}

/* S_k before best fit.  k = 4 (largest domain): n1 is a 4-GPU node with 3
 * idle (1 busy), n2 a 4-GPU node fully idle, n3 a 2-GPU node fully idle.
 * A 2-GPU job:
 *   pack: n1 leaves 1 -> 1*1024+1 = 1025; n2 leaves 2 -> 2050; n3 leaves 0
 *         -> 0 -> n3 0x03.
 *   topo: n1 loses 0 units (S_4 = 0 before), n2 loses 1, n3 has none (2 < 4)
 *         -> n1 and n3 tie on 1-2; 3: n3 is a whole idle node but is fully
 *         consumed (not broken), n1 is not idle -> tie; 4: n3 leaves 0 ->
 *         n3 0x03.  Same answer, derived by a different rule.
 * With n3 gone (n1 3 idle, n2 idle) topo takes n1 (keeps n2's unit), pack
 * too (1025 < 2050). */
static void test_sched_first(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:4 n2:4 n3:2");
    take(cl, "n1", 0x01);
    struct gs_request two = req_whole(2, GS_TOPO_AUTO);
    struct placed p = place_ok(cl, &two, TOPO);
    expect_one(&p, cl, "n3", 0x03);
    p = place_ok(cl, &two, PACK);
    expect_one(&p, cl, "n3", 0x03);
    take(cl, "n3", 0x03);
    p = place_ok(cl, &two, TOPO);
    expect_one(&p, cl, "n1", 0x06);
    gs_cluster_destroy(cl);
}

/* Jobs larger than a node stay in one rack.  Racks r1 = {a1, a2},
 * r2 = {b1, b2}; 8 GPUs each; k = 8.  a2 has 4 busy.
 * A 16-GPU job (auto: whole idle nodes, then a remainder):
 *   pack: whole idle nodes in node order a1 (8), then b1 (8) -> a1 + b1,
 *         across racks.
 *   topo: r1 has 8 + 4 = 12 idle < 16; r2 has 16 -> b1 + b2 (r2, 0 left).
 * A 12-GPU job: pack takes a1, then the remainder 4 on the best fit: a2
 *   (4 free, leaves 0) -> a1 + a2 (same rack by luck).  topo: r1 12 idle,
 *   leaves 0 -> a1 + a2 as well. */
static void test_multi_node_in_one_rack(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_racks("a1:8:r1 a2:8:r1 b1:8:r2 b2:8:r2", 0);
    take(cl, "a2", 0x0F);
    struct gs_request sixteen = req_whole(16, GS_TOPO_AUTO), twelve = req_whole(12, GS_TOPO_AUTO);
    struct placed p = place_ok(cl, &sixteen, PACK);
    assert_int_equal(p.a.nparts, 2);
    expect_part(&p, cl, 0, "a1", 0xFF);
    expect_part(&p, cl, 1, "b1", 0xFF);
    p = place_ok(cl, &sixteen, TOPO);
    assert_int_equal(p.a.nparts, 2);
    expect_part(&p, cl, 0, "b1", 0xFF);
    expect_part(&p, cl, 1, "b2", 0xFF);
    p = place_ok(cl, &twelve, TOPO);
    assert_int_equal(p.a.nparts, 2);
    expect_part(&p, cl, 0, "a1", 0xFF);
    expect_part(&p, cl, 1, "a2", 0xF0);
    gs_cluster_destroy(cl);
}

/* The remainder of a rack-bound job stays in the rack even when another
 * rack has a better fit.  a1 idle (r1), b1 idle (r2), b2 4 idle (r2); a
 * 12-GPU job: pack takes a1 then the remainder on b2 (leaves 0) -> a1 + b2
 * across racks; topo: r1 has 8 < 12, r2 has 8 + 4 = 12 -> b1 + b2. */
static void test_remainder_in_rack(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_racks("a1:8:r1 b1:8:r2 b2:8:r2", 0);
    take(cl, "b2", 0x0F);
    struct gs_request twelve = req_whole(12, GS_TOPO_AUTO);
    struct placed p = place_ok(cl, &twelve, PACK);
    expect_part(&p, cl, 0, "a1", 0xFF);
    expect_part(&p, cl, 1, "b2", 0xF0);
    p = place_ok(cl, &twelve, TOPO);
    expect_part(&p, cl, 0, "b1", 0xFF);
    expect_part(&p, cl, 1, "b2", 0xF0);
    gs_cluster_destroy(cl);
}

/* No rack can hold it: topo falls back to the whole cluster (a1 + b1). */
static void test_multi_node_across_racks(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_racks("a1:8:r1 b1:8:r2", 0);
    struct gs_request sixteen = req_whole(16, GS_TOPO_AUTO);
    struct placed p = place_ok(cl, &sixteen, TOPO);
    expect_part(&p, cl, 0, "a1", 0xFF);
    expect_part(&p, cl, 1, "b1", 0xFF);
    gs_cluster_destroy(cl);
}

/* Shared jobs: topo avoids idle GPUs (1 -> 0 units lost first).  k = 2:
 * n1 GPU0 has 0.5 free (share 500 used), GPU1 idle; n2 idle.  A 0.4 job:
 *   n1 GPU0: not idle, loss 0, fm - milli = 100 -> best.
 * A 0.6 job cannot use n1 GPU0 (500 < 600):
 *   n1 GPU1: idle; S_2(n1) before 0 (one idle GPU) -> loss 0.
 *   n2 GPU0: idle; S_2(n2) 1 -> 0 -> loss 1.  -> n1 GPU1.
 *   spread: most free share, then most idle node: n2 GPU0. */
static void test_shared_avoids_units(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:2 n2:2");
    take_share(cl, "n1", 0, 500, TU_H100_MIB / 2);
    struct gs_request small = req_share(400), big = req_share(600);
    struct placed p = place_ok(cl, &small, TOPO);
    expect_one(&p, cl, "n1", 0x01);
    p = place_ok(cl, &big, TOPO);
    expect_one(&p, cl, "n1", 0x02);
    p = place_ok(cl, &big, SPREAD);
    expect_one(&p, cl, "n2", 0x01);
    gs_cluster_destroy(cl);
}

/* Must-fail rows: nothing fits (ENOSPC), malformed requests (EINVAL), and
 * topo never changes the cluster. */
static void test_topo_must_fail(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:4 n2:4");
    take(cl, "n1", 0x0F);
    struct gs_cluster_stats before = gs_cluster_stats(cl);
    struct gs_request five = req_whole(5, GS_TOPO_DOMAIN), zero = req_whole(0, GS_TOPO_AUTO);
    struct gs_request half2 = req_whole(2, GS_TOPO_AUTO);
    half2.milli = 500;
    struct placed p;
    assert_int_equal(place_try(cl, &five, TOPO, &p), GS_ENOSPC);
    assert_int_equal(place_try(cl, &zero, TOPO, &p), GS_EINVAL);
    assert_int_equal(place_try(cl, &half2, TOPO, &p), GS_EINVAL);
    assert_int_equal(place_try(cl, &five, 99, &p), GS_ENOTSUP);
    struct gs_cluster_stats after = gs_cluster_stats(cl);
    assert_stats_equal(&before, &after);
    gs_cluster_destroy(cl);
}

/* Same input, same answer (no hidden state): 50 calls agree. */
static void test_topo_deterministic(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8:[4,4] n2:8:[4,4] n3:8");
    take(cl, "n1", 0x13);
    take(cl, "n3", 0x0F);
    struct gs_request three = req_whole(3, GS_TOPO_AUTO);
    struct placed first = place_ok(cl, &three, TOPO);
    for (int i = 0; i < 50; i++) {
        struct placed again = place_ok(cl, &three, TOPO);
        assert_int_equal(again.parts[0].node, first.parts[0].node);
        assert_int_equal(again.parts[0].mask, first.parts[0].mask);
    }
    gs_cluster_destroy(cl);
}

/* spread's shortcut through the cluster's domain index (place.c,
 * spread_idle_indexed) picks what the linear scan picks: on random states
 * of 16 one-domain nodes, a 0.25 share on the live state equals the scan
 * over a view of the same idle masks (a view never uses the index, and
 * spread takes an idle GPU first either way), and so do whole 1/2/4-GPU
 * jobs under pack and spread. */
static void test_index_same_as_scan(void **state)
{
    (void)state;
    struct gs_rng r;
    gs_rng_seed(&r, 7);
    for (int round = 0; round < 30; round++) {
        struct gs_cluster *cl = cluster_of("a:8 b:8 c:8 d:8 e:8 f:8 g:8 h:8 i:8 j:8 k:8 l:8 "
                                           "m:8 n:8 o:8 p:8");
        for (int n = 0; n < gs_cluster_node_count(cl); n++)
            for (int g = 0; g < 8; g++) {
                double u = gs_rng_uniform(&r);
                if (u < 0.6 + 0.01 * round)
                    take(cl, gs_cluster_node_name(cl, n), 1ULL << g);
                else if (u < 0.75 + 0.01 * round)
                    take_share(cl, gs_cluster_node_name(cl, n), g, 500, 0);
            }
        uint64_t view[16];
        for (int n = 0; n < 16; n++)
            view[n] = gs_cluster_idle_mask(cl, n);
        struct gs_request reqs[4] = { req_share(250), req_whole(1, GS_TOPO_AUTO),
                                      req_whole(2, GS_TOPO_AUTO), req_whole(4, GS_TOPO_AUTO) };
        for (int q = 0; q < 4; q++)
            for (int s = 0; s < 2; s++) {
                int strategy = s ? SPREAD : PACK, any_idle = 0;
                for (int n = 0; n < 16; n++)
                    any_idle |= view[n] != 0;
                if (q == 0 && (strategy == PACK || !any_idle))
                    continue; /* the scan differs there: partly used GPUs */
                struct gs_alloc_part pa[PT_MAX_PARTS], pb[PT_MAX_PARTS];
                struct gs_alloc a = { .cap = PT_MAX_PARTS, .parts = pa };
                struct gs_alloc b = { .cap = PT_MAX_PARTS, .parts = pb };
                int ra = gs_place(cl, NULL, &reqs[q], strategy, &a, NULL);
                int rb = gs_place(cl, view, &reqs[q], strategy, &b, NULL);
                assert_int_equal(ra, rb);
                if (ra == 0) {
                    assert_int_equal(pa[0].node, pb[0].node);
                    assert_int_equal(pa[0].mask, pb[0].mask);
                }
            }
        gs_cluster_destroy(cl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keeps_domain_for_8gpu),
        cmocka_unit_test(test_best_fit_like_pack),
        cmocka_unit_test(test_sched_first),
        cmocka_unit_test(test_multi_node_in_one_rack),
        cmocka_unit_test(test_remainder_in_rack),
        cmocka_unit_test(test_multi_node_across_racks),
        cmocka_unit_test(test_shared_avoids_units),
        cmocka_unit_test(test_topo_must_fail),
        cmocka_unit_test(test_topo_deterministic),
        cmocka_unit_test(test_index_same_as_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_place_frag.c - the FGD measure (frag.c), the shape window
 * (shapes.c) and the frag strategy (place_frag.c).
 *
 * F_n = sum_m p_m frag_n(m), milli-GPU.  frag_n(m) = all free share of the
 * node when m cannot run there (CPU-only shape, wrong type, CPU short, or
 * too few usable GPUs under the topology rule), else the free share of the
 * GPUs m cannot use (share too small, too little memory, or in a domain
 * with too few usable GPUs for a domain-bound job).
 * frag score = round((F_after - F_before + w p_k k 1000 dS_k) / q), q = 100
 * by default; ties -> node order, then GPU index.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/place/frag.h"
#include "core/place/shapes.h"
#include "testutil.h"
#include "plctestutil.h"

#define PACK GS_PLACE_PACK
#define TOPO GS_PLACE_TOPO
#define FRAG GS_PLACE_FRAG

static struct gs_shape shape(int gpus, int milli, double p)
{
    struct gs_shape s;
    memset(&s, 0, sizeof s);
    s.gpus = gpus;
    s.milli = milli;
    s.mem_mib = -1;
    s.gpu_type = -1;
    s.topology = GS_TOPO_AUTO;
    s.p = p;
    return s;
}

static int64_t node_frag(const struct gs_cluster *cl, const char *node, const struct gs_shape *s)
{
    struct gs_frag_node st;
    int n = node_of(cl, node);
    gs_frag_node_load(cl, n, NULL, &st);
    return gs_frag_node_shape(cl, n, &st, s);
}

/* frag_n(m) by hand.  n1: 4 GPUs, one domain; GPU0 idle (1000 free), GPU1
 * 500 used (500 free), GPU2 800 used (200 free), GPU3 full; total 1700.
 *   share 300: usable GPU0, GPU1 -> frag = GPU2's 200.
 *   share 600: usable GPU0 -> frag = 500 + 200 = 700.
 *   1 whole GPU: usable GPU0 -> 700.
 *   2 whole GPUs: 1 usable < 2 -> all 1700.
 *   CPU-only: all 1700.  Wrong type (A100 only): all 1700. */
static void test_node_measure(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:4");
    take_share(cl, "n1", 1, 500, TU_H100_MIB / 2);
    take_share(cl, "n1", 2, 800, TU_H100_MIB * 8 / 10);
    take(cl, "n1", 0x08);
    struct gs_shape rows[] = { shape(1, 300, 1), shape(1, 600, 1), shape(1, 1000, 1),
                               shape(2, 1000, 1), shape(0, 1000, 1), shape(1, 300, 1) };
    rows[5].gpu_type = 1; /* A100: the node is H100 */
    const int64_t want[] = { 200, 700, 700, 1700, 1700, 1700 };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(node_frag(cl, "n1", &rows[i]), want[i]);
    /* F_n of {share 300: 0.5, 2 GPUs: 0.5} = 0.5*200 + 0.5*1700 = 950 */
    struct gs_shape_dist d = { 2, { shape(1, 300, 0.5), shape(2, 1000, 0.5) } };
    struct gs_frag_node st;
    gs_frag_node_load(cl, 0, NULL, &st);
    assert_true(fabs(gs_frag_node_score(cl, 0, &st, &d) - 950.0) < TU_EPS);
    gs_cluster_destroy(cl);
}

/* The NVLink extension: n1 [2,2] with GPUs 0 and 2 idle (one per island):
 * a 2-GPU job needs one island with 2 usable -> none -> all 2000 is
 * fragmented; a 1-GPU job uses either -> 0.  n2 [2,2] with 0, 1 idle (one
 * island) -> 2-GPU frag 0. */
static void test_node_measure_domains(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:4:[2,2] n2:4:[2,2]");
    take(cl, "n1", 0x0A);
    take(cl, "n2", 0x0C);
    struct gs_shape two = shape(2, 1000, 1), one = shape(1, 1000, 1);
    assert_int_equal(node_frag(cl, "n1", &two), 2000);
    assert_int_equal(node_frag(cl, "n1", &one), 0);
    assert_int_equal(node_frag(cl, "n2", &two), 0);
    gs_cluster_destroy(cl);
}

/* Host CPU: a node with 8 cores, 6 used; a shape asking 4 cores cannot run
 * -> all free share (2 idle GPUs = 2000) is fragmented, whatever its GPUs. */
static void test_node_measure_cpu(void **state)
{
    (void)state;
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_create();
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err), 0);
    struct gs_node_spec s = { .name = "n1", .gpus = 2, .gpu_type = 0, .cpu_milli = 8000 };
    assert_int_equal(gs_cluster_add_node(cl, &s, &err), 0);
    assert_int_equal(gs_cluster_seal(cl, 0, &err), 0);
    assert_int_equal(gs_cluster_host_take(cl, 0, 6000, 0, 1, &err), 0);
    struct gs_shape m = shape(1, 1000, 1);
    m.cpu_milli = 4000;
    assert_int_equal(node_frag(cl, "n1", &m), 2000);
    m.cpu_milli = 2000;
    assert_int_equal(node_frag(cl, "n1", &m), 0);
    /* must fail: giving back more than was taken, taking beyond capacity */
    assert_int_equal(gs_cluster_host_take(cl, 0, 7000, 0, -1, &err), GS_ESTATE);
    assert_int_equal(gs_cluster_host_take(cl, 0, 3000, 0, 1, &err), GS_ENOSPC);
    gs_cluster_destroy(cl);
}

/* The case: pack strands a 2-GPU job that frag keeps placeable.
 * nv: 8 GPUs in one NVLink domain, GPUs 0-5 busy (6, 7 idle) - the only
 * place a 2-GPU job can go.  pc: 8 PCIe GPUs (eight 1-GPU domains), 0-4
 * busy (5, 6, 7 idle): a 2-GPU job must stay inside one domain, so never
 * here.  Shapes: {0.5 share: 0.5, 2 GPUs: 0.5}.  A 0.5-share job comes:
 *   pack: (1000-500)*1024 + idle GPUs of the node: nv 2 < pc 3 -> nv GPU6.
 *   frag: F_nv before = 0 (the share fits, 2 GPUs fit); after nv GPU6
 *         (free 500 + 1000): 2 GPUs no longer fit -> 0.5*1500 = 750 ->
 *         +750 -> round(7.5) = 8.  F_pc before = 0.5*3000 = 1500 (2 GPUs
 *         never fit); after pc GPU5 (free 500 + 2000): 0.5*2500 = 1250 ->
 *         -250 -> floor(-2.5 + 0.5) = -2.  -> pc GPU5.
 *   Then the 2-GPU job: after pack nv has 1 idle GPU -> GS_ENOSPC; after
 *   frag nv 0xC0. */
static void test_frag_keeps_two_gpu_job(void **state)
{
    (void)state;
    struct gs_shape_dist d = { 2, { shape(1, 500, 0.5), shape(2, 1000, 0.5) } };
    struct gs_place_ctx ctx = { &d, 1.0, 100, GS_MIG_NEVER, NULL, GS_FRAG_SCORE_QUANTUM };
    static const struct {
        int strategy;
        const char *node;
        uint64_t mask;
        int two_fits;
    } rows[] = { { PACK, "nv", 0x40, 0 }, { FRAG, "pc", 0x20, 1 } };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_cluster *cl = cluster_of("nv:8 pc:8:[1,1,1,1,1,1,1,1]");
        take(cl, "nv", 0x3F);
        take(cl, "pc", 0x1F);
        struct gs_request half = req_share(500), two = req_whole(2, GS_TOPO_AUTO);
        half.ctx = two.ctx = &ctx;
        struct placed p = place_ok(cl, &half, rows[i].strategy);
        expect_one(&p, cl, rows[i].node, rows[i].mask);
        commit(cl, &p);
        struct placed q;
        int rc = place_try(cl, &two, rows[i].strategy, &q);
        if (rows[i].two_fits)
            expect_one(&q, cl, "nv", 0xC0);
        else
            assert_int_equal(rc, GS_ENOSPC);
        assert_cluster_ok(cl);
        gs_cluster_destroy(cl);
    }
}

/* Without shapes frag measures against the request itself.  Free 2, 3, 8,
 * 7 (the seed); a 2-GPU job: on node-1 F after = 0 (nothing left), before
 * = 0 (it fits) -> 0; node-2 leaves 1 idle GPU where 2 do not fit: +1000
 * -> 10; node-3 leaves 6 -> 0; node-4 leaves 5 -> 0.  The S_k term: p_k =
 * 0 (no shape needs 8) -> 0.  Ties node-1, node-3, node-4 at 0 -> node
 * order -> node-1 0xC0. */
static void test_frag_own_shape(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("node-1:8 node-2:8 node-3:8 node-4:8");
    take(cl, "node-1", 0x3F);
    take(cl, "node-2", 0x1F);
    take(cl, "node-4", 0x01);
    struct gs_request two = req_whole(2, GS_TOPO_AUTO);
    struct placed p = place_ok(cl, &two, FRAG);
    expect_one(&p, cl, "node-1", 0xC0);
    gs_cluster_destroy(cl);
}

/* The S_k term, weighted by how often big jobs come.  n1 idle (its S_8
 * unit), n2 with 7 idle.  Shapes {1 GPU: 0.5, 8 GPUs: 0.5}: p_k = 0.5.
 * A 1-GPU job on n1: F before 0 (both fit), after: 7 idle, 8 GPUs do not
 * fit -> 0.5*7000 = 3500; S_k 1 -> 0: w p_k k 1000 = 1*0.5*8*1000 = 4000
 * -> +7500.  On n2: F before = 0.5*7000 = 3500 (8 GPUs never fit), after
 * 0.5*6000 = 3000 -> -500.  -> n2.  With weight 0 the F part alone also
 * picks n2 (3500 vs -500); the term only widens the gap. */
static void test_frag_sched_term(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    take(cl, "n2", 0x01);
    struct gs_shape_dist d = { 2, { shape(1, 1000, 0.5), shape(8, 1000, 0.5) } };
    struct gs_place_ctx ctx = { &d, 1.0, 100, GS_MIG_NEVER, NULL, GS_FRAG_SCORE_QUANTUM };
    struct gs_request one = req_whole(1, GS_TOPO_AUTO);
    one.ctx = &ctx;
    struct placed p = place_ok(cl, &one, FRAG);
    expect_one(&p, cl, "n2", 0x02);
    gs_cluster_destroy(cl);
}

/* The quantum makes near scores tie and node order decide.  n1 and n2
 * both 4-GPU; n1 GPU0 has 450 used (550 free), n2 GPU0 500 used (500
 * free); the rest idle.  Shapes {0.5 share: 0.5, 1 GPU: 0.5}; memory not
 * requested (0).
 *   F_n1 before: 1 GPU fits, GPU0 is not usable by it -> 0.5*550 = 275;
 *     the share fits everywhere -> 0.  = 275.
 *   n1 GPU0 (-> 50 free): 0.5*50 + 0.5*50 (50 < 500) = 50 -> -225.
 *   n1 GPU1 (idle -> 500 free): 0.5*(550 + 500) = 525 -> +250.
 *   F_n2 before: 0.5*500 = 250.  n2 GPU0 (-> 0 free): 0 -> -250.
 *   n2 GPU1: 0.5*(500 + 500) = 500 -> +250.
 * quantum 10: -22.5 -> floor(-22) = -22; -25 -> floor(-24.5) = -25 -> n2
 * GPU0 (the exact fit).  quantum 100: both -> floor(-1.75), floor(-2) =
 * -2 -> tie -> node order -> n1 GPU0.
 * The sigmoid shape (FGD's score, negated): n1 GPU0 -trunc(100 /
 * (1 + e^-0.225)) = -trunc(55.60) = -55; n2 GPU0 -trunc(100 / (1 +
 * e^-0.25)) = -trunc(56.22) = -56 -> n2 GPU0: near zero its steps are
 * finer than a quantum of 100. */
static void test_frag_quantum(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:4 n2:4");
    take_share(cl, "n1", 0, 450, 0);
    take_share(cl, "n2", 0, 500, 0);
    struct gs_shape_dist d = { 2, { shape(1, 500, 0.5), shape(1, 1000, 0.5) } };
    d.s[0].mem_mib = d.s[1].mem_mib = 0;
    struct gs_place_ctx ctx = { &d, 1.0, 10, GS_MIG_NEVER, NULL, GS_FRAG_SCORE_QUANTUM };
    struct gs_request half = req_share(500);
    half.mem_mib = 0;
    half.ctx = &ctx;
    struct placed p = place_ok(cl, &half, FRAG);
    expect_one(&p, cl, "n2", 0x01);
    ctx.quantum = 100;
    p = place_ok(cl, &half, FRAG);
    expect_one(&p, cl, "n1", 0x01);
    ctx.score_shape = GS_FRAG_SCORE_SIGMOID;
    p = place_ok(cl, &half, FRAG);
    expect_one(&p, cl, "n2", 0x01);
    gs_cluster_destroy(cl);
}

/* Memory fragmentation: n1 GPU0 0.5 used with 60 of 80 GB (20 free); GPU1
 * 0.25 used with 10 GB (70 free).  Waiting shape 0.25 share, 40 GB:
 * GPU0 has share 500 >= 250 but 20 GB < 40 -> 20/80 = 0.25 counts; GPU1
 * fits -> 0.  No shapes: every partly used GPU counts: 0.25 + 70/80. */
static void test_memory_fragmentation(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:2");
    take_share(cl, "n1", 0, 500, 60 * 1024);
    take_share(cl, "n1", 1, 250, 10 * 1024);
    struct gs_shape m = shape(1, 250, 1);
    m.mem_mib = 40 * 1024;
    struct gs_shape_dist d = { 1, { m } };
    assert_true(fabs(gs_frag_memory(cl, &d) - 0.25) < TU_EPS);
    assert_true(fabs(gs_frag_memory(cl, NULL) - (0.25 + 70.0 / 80)) < TU_EPS);
    gs_cluster_destroy(cl);
}

/* The window keeps the last `cap` shapes; the distribution sorts by count,
 * ties by the shape order, and keeps the most frequent covering 95 %.
 * Push 1-GPU x3, 2-GPU x1, then 8-GPU x2 into a window of 5: the first
 * 1-GPU falls out -> counts {1: 2, 2: 1, 8: 2} of 5.  Coverage 0.95: keep
 * 1 (2/5), 8 (4/5), 2 (5/5) -> renormalised p = 0.4, 0.4, 0.2 with 1 before
 * 8 (same count, fewer GPUs first).  Coverage 0.5: keep 1 and 8 (4/5 >=
 * 0.5 after two) -> 0.5, 0.5. */
static void test_shape_window(void **state)
{
    (void)state;
    struct gs_shape_window *w = gs_shape_window_create(5);
    assert_non_null(w);
    const int gpus[] = { 1, 1, 1, 2, 8, 8 };
    for (size_t i = 0; i < 6; i++) {
        struct gs_shape s = shape(gpus[i], 1000, 0);
        assert_int_equal(gs_shape_window_push(w, &s), 0);
    }
    assert_int_equal(gs_shape_window_count(w), 5);
    struct gs_shape_dist d;
    gs_shape_window_dist(w, 0.95, &d);
    assert_int_equal(d.n, 3);
    assert_int_equal(d.s[0].gpus, 1);
    assert_int_equal(d.s[1].gpus, 8);
    assert_int_equal(d.s[2].gpus, 2);
    assert_true(fabs(d.s[0].p - 0.4) < TU_EPS && fabs(d.s[2].p - 0.2) < TU_EPS);
    gs_shape_window_dist(w, 0.5, &d);
    assert_int_equal(d.n, 2);
    assert_true(fabs(d.s[0].p - 0.5) < TU_EPS);
    gs_shape_window_destroy(w);
    assert_null(gs_shape_window_create(0)); /* must fail */
}

/* The whole-workload form agrees with the window. */
static void test_shape_dist_build(void **state)
{
    (void)state;
    struct gs_shape v[] = { shape(1, 1000, 0), shape(8, 1000, 0), shape(1, 1000, 0),
                            shape(1, 500, 0) };
    struct gs_shape_dist d;
    assert_int_equal(gs_shape_dist_build(v, 4, 1.0, &d), 0);
    assert_int_equal(d.n, 3);
    assert_int_equal(d.s[0].gpus, 1);
    assert_int_equal(d.s[0].milli, 1000);
    assert_true(fabs(d.s[0].p - 0.5) < TU_EPS);
    assert_int_equal(gs_shape_dist_build(v, 0, 1.0, &d), 0);
    assert_int_equal(d.n, 0);
}

/* frag never changes the cluster and gives the same answer every time. */
static void test_frag_pure(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8:[4,4] n2:8 n3:4");
    take(cl, "n1", 0x11);
    take_share(cl, "n2", 3, 300, 0);
    struct gs_cluster_stats before = gs_cluster_stats(cl);
    struct gs_request r = req_share(250);
    struct placed first = place_ok(cl, &r, FRAG);
    for (int i = 0; i < 20; i++) {
        struct placed again = place_ok(cl, &r, FRAG);
        assert_int_equal(again.parts[0].node, first.parts[0].node);
        assert_int_equal(again.parts[0].mask, first.parts[0].mask);
    }
    struct gs_cluster_stats after = gs_cluster_stats(cl);
    assert_stats_equal(&before, &after);
    gs_cluster_destroy(cl);
}

/* The F_n cache and the pruning it allows change no decision: random
 * states of 24 nodes of 8 GPUs ([4,4] and [8]), whole and shared requests,
 * quantum 0 and 100,
 * frag with and without ctx->frag_cache agree (the cache prunes nodes). */
static void test_cache_same_answers(void **state)
{
    (void)state;
    struct gs_rng r;
    gs_rng_seed(&r, 99);
    struct gs_shape_dist d = { 4, { shape(1, 1000, 0.4), shape(2, 1000, 0.2), shape(8, 1000, 0.2),
                                    shape(1, 400, 0.2) } };
    for (int round = 0; round < 20; round++) {
        struct gs_cluster *cl = cluster_of("a:8:[4,4] b:8 c:8:[4,4] d:8 e:8 f:8:[4,4] g:8 h:8 "
                                           "i:8 j:8:[4,4] k:8 l:8 m:8 n:8 o:8:[4,4] p:8 q:8 "
                                           "r:8 s:8 t:8:[4,4] u:8 v:8 w:8 x:8");
        for (int n = 0; n < gs_cluster_node_count(cl); n++)
            for (int g = 0; g < 8; g++) {
                double u = gs_rng_uniform(&r);
                if (u < 0.5)
                    take(cl, gs_cluster_node_name(cl, n), 1ULL << g);
                else if (u < 0.65)
                    take_share(cl, gs_cluster_node_name(cl, n), g, 100 * (1 + (int)(u * 60) % 9), 0);
            }
        struct gs_frag_cache fc;
        assert_int_equal(gs_frag_cache_init(&fc, gs_cluster_node_count(cl)), 0);
        gs_frag_cache_refresh(&fc, cl, &d);
        /* exact scores in odd rounds, the default quantum in even ones */
        struct gs_place_ctx plain = { &d, 1.0, round % 2 ? 0 : 100, GS_MIG_NEVER, NULL, GS_FRAG_SCORE_QUANTUM };
        struct gs_place_ctx cached = plain;
        cached.frag_cache = &fc;
        const int gpus[] = { 1, 2, 4, 1 }, milli[] = { 1000, 1000, 1000, 300 };
        for (int k = 0; k < 4; k++) {
            struct gs_request a = req_whole(gpus[k], GS_TOPO_AUTO);
            a.milli = milli[k];
            struct gs_request b = a;
            a.ctx = &plain;
            b.ctx = &cached;
            struct placed x, y;
            assert_int_equal(place_try(cl, &a, FRAG, &x), place_try(cl, &b, FRAG, &y));
            if (x.rc == 0) {
                assert_int_equal(x.parts[0].node, y.parts[0].node);
                assert_int_equal(x.parts[0].mask, y.parts[0].mask);
            }
        }
        gs_frag_cache_fini(&fc);
        gs_cluster_destroy(cl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_measure),
        cmocka_unit_test(test_node_measure_domains),
        cmocka_unit_test(test_node_measure_cpu),
        cmocka_unit_test(test_frag_keeps_two_gpu_job),
        cmocka_unit_test(test_frag_own_shape),
        cmocka_unit_test(test_frag_sched_term),
        cmocka_unit_test(test_frag_quantum),
        cmocka_unit_test(test_memory_fragmentation),
        cmocka_unit_test(test_shape_window),
        cmocka_unit_test(test_shape_dist_build),
        cmocka_unit_test(test_frag_pure),
        cmocka_unit_test(test_cache_same_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

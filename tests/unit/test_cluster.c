/* test_cluster.c - the cluster model: construction, shape, schedulability
 * S_k and its fragmentation split, allocation and release (atomic, shares,
 * memory), consistency checks, deep clones, and an OOM sweep.
 *
 * Every expected number below is derived by hand from cluster.h and
 * DESIGN.md section 4 in the comment next to it.  Conventions: "free a,b,c"
 * lists idle GPUs per node; S_k = the most k-GPU jobs placeable at once;
 * frag = idle - k*S_k = frag_topology + frag_count, where frag_topology sums
 * over nodes with >= k GPUs of k*(floor(idle_n/k) - sched_n).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/place/place.h"
#include "testutil.h"

/* ---- construction ------------------------------------------------------ */

/* Must-fail rows for gs_cluster_add_gpu_type. */
static void test_add_gpu_type_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t mem;
        int expect;
    } rows[] = {
        { "H100", 81920, 0 },        /* first type gets index 0 */
        { "A100", 40960, 1 },        /* second gets index 1 */
        { "H100", 1000, GS_EEXIST }, /* duplicate name */
        { "", 1000, GS_EINVAL },     /* empty name */
        { "X", 0, GS_EINVAL },       /* memory must be > 0 */
        { "Y", -5, GS_EINVAL },
    };
    struct gs_cluster *cl = gs_cluster_create();
    assert_non_null(cl);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_error err = { 0 };
        int rc = gs_cluster_add_gpu_type(cl, rows[i].name, rows[i].mem, &err);
        assert_int_equal(rc, rows[i].expect);
        if (rc < 0)
            assert_int_equal(err.code, rows[i].expect);
    }
    assert_int_equal(gs_cluster_gpu_type_count(cl), 2);
    assert_int_equal(gs_cluster_find_gpu_type(cl, "A100"), 1);
    assert_int_equal(gs_cluster_find_gpu_type(cl, "V100"), GS_ENOENT);
    assert_string_equal(gs_cluster_gpu_type_name(cl, 0), "H100");
    assert_int_equal(gs_cluster_gpu_type_mem(cl, 1), 40960);
    gs_cluster_destroy(cl);
}

/* Must-fail rows for gs_cluster_add_node, then seal errors. */
static void test_add_node_errors(void **state)
{
    (void)state;
    struct row {
        const char *name;
        int gpus, type, ndom;
        int dom[3];
        int expect;
    };
    static const struct row rows[] = {
        { "n1", 8, 0, 2, { 4, 4 }, 0 },           /* ok: index 0 */
        { "n2", 8, 0, 0, { 0 }, 1 },              /* ok: no domains = one of 8 */
        { "n1", 8, 0, 0, { 0 }, GS_EEXIST },      /* duplicate name */
        { "n3", 8, 0, 2, { 4, 3 }, GS_EINVAL },   /* 4+3 != 8 */
        { "n3", 8, 0, 2, { 4, 5 }, GS_EINVAL },   /* 4+5 != 8 */
        { "n3", 8, 0, 2, { 8, 0 }, GS_EINVAL },   /* empty domain */
        { "n3", 65, 0, 0, { 0 }, GS_EINVAL },     /* more than GS_MAX_NODE_GPUS */
        { "n3", -1, 0, 0, { 0 }, GS_EINVAL },     /* negative */
        { "n3", 8, 7, 0, { 0 }, GS_EINVAL },      /* unknown GPU type */
        { "", 8, 0, 0, { 0 }, GS_EINVAL },        /* no name */
        { "n3", 4, 0, 3, { 1, 1, 2 }, 2 },        /* ok: three domains */
    };
    struct gs_cluster *cl = gs_cluster_create();
    assert_non_null(cl);
    struct gs_error err = { 0 };
    assert_int_equal(gs_cluster_seal(cl, 0, &err), GS_EINVAL); /* empty cluster */
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err), 0);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_node_spec s = { 0 };
        s.name = rows[i].name;
        s.gpus = rows[i].gpus;
        s.gpu_type = rows[i].type;
        s.ndomains = rows[i].ndom;
        for (int d = 0; d < rows[i].ndom; d++)
            s.domain_sizes[d] = rows[i].dom[d];
        gs_error_clear(&err);
        int rc = gs_cluster_add_node(cl, &s, &err);
        if (rc != rows[i].expect)
            fail_msg("row %zu (%s): got %d want %d (%s)", i, rows[i].name, rc,
                     rows[i].expect, err.msg);
    }
    assert_int_equal(gs_cluster_node_count(cl), 3);
    assert_int_equal(gs_cluster_seal(cl, -1, &err), GS_EINVAL); /* k < 0 */
    assert_int_equal(gs_cluster_seal(cl, 0, &err), 0);
    /* sealed: no more nodes */
    struct gs_node_spec late = { .name = "late", .gpus = 8, .gpu_type = 0 };
    assert_int_equal(gs_cluster_add_node(cl, &late, &err), GS_ESTATE);
    assert_int_equal(gs_cluster_node_count(cl), 3);
    gs_cluster_destroy(cl);
}

/* A cluster whose nodes have no GPUs cannot be sealed. */
static void test_seal_needs_gpus(void **state)
{
    (void)state;
    struct gs_cluster *cl = gs_cluster_create();
    struct gs_error err = { 0 };
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err), 0);
    struct gs_node_spec s = { .name = "cpu-only", .gpus = 0, .gpu_type = 0 };
    assert_int_equal(gs_cluster_add_node(cl, &s, &err), 0);
    assert_int_equal(gs_cluster_seal(cl, 0, &err), GS_EINVAL);
    gs_cluster_destroy(cl);
}

/* Static shape: counts, GPU numbering, domain masks, lookups. */
static void test_shape(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("node-1:8:[8] node-2:8:[4,4] node-3:4 node-4:8:[2,6]:A100");
    assert_int_equal(gs_cluster_node_count(cl), 4);
    assert_int_equal(gs_cluster_gpu_count(cl), 28);       /* 8 + 8 + 4 + 8 */
    assert_int_equal(gs_cluster_max_domain(cl), 8);       /* node-1's single domain */
    assert_int_equal(gs_cluster_max_node_gpus(cl), 8);
    assert_int_equal(gs_cluster_find_node(cl, "node-3"), 2);
    assert_int_equal(gs_cluster_find_node(cl, "node-9"), GS_ENOENT);
    assert_string_equal(gs_cluster_node_name(cl, 1), "node-2");
    /* global numbering: node order, then GPU index: 0, 8, 16, 20 */
    assert_int_equal(gs_cluster_node_first_gpu(cl, 0), 0);
    assert_int_equal(gs_cluster_node_first_gpu(cl, 1), 8);
    assert_int_equal(gs_cluster_node_first_gpu(cl, 2), 16);
    assert_int_equal(gs_cluster_node_first_gpu(cl, 3), 20);
    /* [8] = one domain 0xFF; [4,4] = GPUs 0-3 and 4-7; no list = one domain */
    assert_int_equal(gs_cluster_node_domains(cl, 0), 1);
    assert_int_equal(gs_cluster_domain_mask(cl, 0, 0), 0xFF);
    assert_int_equal(gs_cluster_node_domains(cl, 1), 2);
    assert_int_equal(gs_cluster_domain_mask(cl, 1, 0), 0x0F);
    assert_int_equal(gs_cluster_domain_mask(cl, 1, 1), 0xF0);
    assert_int_equal(gs_cluster_node_domains(cl, 2), 1);
    assert_int_equal(gs_cluster_domain_mask(cl, 2, 0), 0x0F);
    /* [2,6]: GPUs 0-1 = 0x03, GPUs 2-7 = 0xFC */
    assert_int_equal(gs_cluster_domain_mask(cl, 3, 0), 0x03);
    assert_int_equal(gs_cluster_domain_mask(cl, 3, 1), 0xFC);
    assert_int_equal(gs_cluster_node_gpu_type(cl, 3), 1);
    assert_int_equal(gs_cluster_node_gpu_type(cl, 0), 0);
    /* an empty cluster's view: every GPU of every node */
    const uint64_t *full = gs_cluster_full_view(cl);
    assert_non_null(full);
    assert_int_equal(full[0], 0xFF);
    assert_int_equal(full[2], 0x0F);
    for (int n = 0; n < 4; n++)
        assert_int_equal(gs_cluster_idle_mask(cl, n), full[n]);
    gs_cluster_destroy(cl);
}

/* gs_cluster_seal(k = 0) picks the largest NVLink domain of the cluster. */
static void test_seal_k_default(void **state)
{
    (void)state;
    static const struct {
        const char *desc;
        int k, expect;
    } rows[] = {
        { "n1:8:[8]", 0, 8 },                   /* one domain of 8 */
        { "n1:8:[4,4]", 0, 4 },                 /* islands of 4 */
        { "n1:8:[4,4] n2:8:[2,6]", 0, 6 },      /* largest of 4, 4, 2, 6 */
        { "n1:4 n2:8:[4,4]", 0, 4 },            /* n1 is one domain of 4 */
        { "n1:8:[4,4]", 8, 8 },                 /* explicit k is kept */
        { "n1:8", 3, 3 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_cluster *cl = cluster_of_k(rows[i].desc, rows[i].k);
        assert_int_equal(gs_cluster_stats(cl).k, rows[i].expect);
        gs_cluster_destroy(cl);
    }
}

/* ---- schedulability and fragmentation -------------------------------- */

struct stats_case {
    const char *what;
    const char *desc;
    int k;
    uint64_t busy[4];         /* whole GPUs taken per node index */
    int64_t k_eff, idle, sched, frag_count, frag_topology;
};

static const struct stats_case stats_cases[] = {
    /* The seed's example: four [8] nodes, free 2, 3, 8, 7.  idle = 20.
     * S_8: only node-3 holds 8 -> 1.  frag = 20 - 8*1 = 12.  Per node
     * topology 8*(floor(idle/8) - sched): n1 8*(0-0), n2 8*(0-0), n3 8*(1-1),
     * n4 8*(0-0) = 0, so all 12 are count fragmentation. */
    { "seed", "node-1:8:[8] node-2:8:[8] node-3:8:[8] node-4:8:[8]", 0,
      { 0x3F, 0x1F, 0x00, 0x01 }, 8, 20, 1, 12, 0 },
    /* Same, node-3 split [4,4] (others [8], so k = 8 still).  node-3: each
     * island has 4 < 8 -> sched 0; topology 8*(floor(8/8) - 0) = 8.
     * S_8 = 0, frag = 20, count = 20 - 8 = 12. */
    { "seed, node-3 [4,4]", "node-1:8:[8] node-2:8:[8] node-3:8:[4,4] node-4:8:[8]", 0,
      { 0x3F, 0x1F, 0x00, 0x01 }, 8, 20, 0, 12, 8 },
    /* Every node [4,4], k = 0 -> 4.  Free GPUs: n1 6,7 (island 1: 2 -> 0);
     * n2 5,6,7 (island 1: 3 -> 0); n3 all (4/4 + 4/4 = 2); n4 1-3 and 4-7
     * (3/4 + 4/4 = 1).  S_4 = 3, frag = 20 - 12 = 8.  Topology 4*(floor(
     * idle/4) - sched): n1 4*(0-0), n2 4*(0-0), n3 4*(2-2), n4 4*(1-1) = 0. */
    { "all [4,4], k=4", "n1:8:[4,4] n2:8:[4,4] n3:8:[4,4] n4:8:[4,4]", 0,
      { 0x3F, 0x1F, 0x00, 0x01 }, 4, 20, 3, 8, 0 },
    /* One [4,4] node with GPUs 0 and 4 busy: islands hold 3 + 3 free.
     * k = 4: sched 0 + 0 = 0; topology 4*(floor(6/4) - 0) = 4; frag = 6,
     * count = 6 - 4 = 2. */
    { "3+3 free, k=4", "n1:8:[4,4]", 0, { 0x11 }, 4, 6, 0, 2, 4 },
    /* k = 2 on the seed: S_2 = 2/2 + 3/2 + 8/2 + 7/2 = 1 + 1 + 4 + 3 = 9;
     * frag = 20 - 18 = 2 (the odd GPU of node-2 and of node-4), topology 0. */
    { "seed, k=2", "node-1:8 node-2:8 node-3:8 node-4:8", 2, { 0x3F, 0x1F, 0x00, 0x01 },
      2, 20, 9, 2, 0 },
    /* k = 16 > every node: nodes count only when fully idle, together:
     * floor(sum / 16).  All idle: 32/16 = 2, frag 0. */
    { "k=16, all idle", "n1:8 n2:8 n3:8 n4:8", 16, { 0 }, 16, 32, 2, 0, 0 },
    /* n1 has one GPU busy: fully idle n2..n4 = 24 -> 24/16 = 1.  idle 31,
     * frag = 31 - 16 = 15; nodes smaller than k have no topology part. */
    { "k=16, one busy", "n1:8 n2:8 n3:8 n4:8", 16, { 0x01 }, 16, 31, 1, 15, 0 },
    /* k = 8 larger than every island (all [4,4]): whole idle islands.  n1
     * idle: both islands -> 1.  n2 GPU 0 busy: island 1 whole (4), remainder
     * 4 must fit one island, island 0 has 3 -> 0.  S_8 = 1, idle 15, frag 7.
     * Topology: n1 8*(1-1), n2 8*(floor(7/8)-0) = 0 -> count 7. */
    { "k=8 over [4,4]", "n1:8:[4,4] n2:8:[4,4]", 8, { 0x00, 0x01 }, 8, 15, 1, 7, 0 },
    /* k = 8 larger than every node (4 GPUs): an 8-GPU job takes whole idle
     * nodes, so the small nodes count only fully idle, together:
     * (4 + 4)/8 = 1. */
    { "small nodes pooled", "n1:4 n2:4", 8, { 0 }, 8, 8, 1, 0, 0 },
    /* n1 GPU 0 busy: fully idle n2 + n3 = 8 -> 1.  idle 11, frag 11 - 8 =
     * 3, all count (nodes smaller than k have no topology part). */
    { "small node busy", "n1:4 n2:4 n3:4", 8, { 0x01 }, 8, 11, 1, 3, 0 },
    /* Mixed sizes, k = 8 = the largest domain (n3's): an 8-GPU job must
     * take all its GPUs from one NVLink domain, so the 4-GPU nodes can
     * never host one, idle or not: S_8 = 1 (n3).  Their 8 idle GPUs are
     * count fragmentation: frag = 16 - 8 = 8, topology 0 (n1, n2 have
     * fewer than k GPUs), count 8.  (Pooling them would claim an 8-GPU unit
     * that gs_place refuses; see test_sched_matches_placement.) */
    { "small nodes beside a big one", "n1:4 n2:4 n3:8", 8, { 0 }, 8, 16, 1, 8, 0 },
    /* [2,6], k = 0 -> 6: floor(2/6) + floor(6/6) = 1; frag 8 - 6 = 2;
     * topology 6*(floor(8/6) - 1) = 0 -> count 2. */
    { "[2,6] k=6", "n1:8:[2,6]", 0, { 0 }, 6, 8, 1, 2, 0 },
    /* k = 3 on [4,4] with GPUs 0,1 busy: islands 2 and 4 free -> 0 + 1 = 1.
     * frag = 6 - 3 = 3; topology 3*(floor(6/3) - 1) = 3 -> count 0. */
    { "k=3 topology", "n1:8:[4,4]", 3, { 0x03 }, 3, 6, 1, 0, 3 },
    /* Nothing idle: everything is zero. */
    { "full", "n1:8 n2:8", 0, { 0xFF, 0xFF }, 8, 0, 0, 0, 0 },
};

static void test_stats_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof stats_cases / sizeof stats_cases[0]; i++) {
        const struct stats_case *c = &stats_cases[i];
        struct gs_cluster *cl = cluster_of_k(c->desc, c->k);
        for (int n = 0; n < gs_cluster_node_count(cl); n++)
            take(cl, gs_cluster_node_name(cl, n), c->busy[n]);
        struct gs_cluster_stats s = gs_cluster_stats(cl);
        assert_cluster_ok(cl);
        assert_int_equal(s.gpus, gs_cluster_gpu_count(cl));
        gs_cluster_destroy(cl);
        if (s.k != c->k_eff || s.idle_gpus != c->idle || s.sched != c->sched ||
            s.frag_count != c->frag_count || s.frag_topology != c->frag_topology)
            fail_msg("%s: got k=%d idle=%lld sched=%lld count=%lld topo=%lld", c->what, s.k,
                     (long long)s.idle_gpus, (long long)s.sched, (long long)s.frag_count,
                     (long long)s.frag_topology);
    }
}

/* The same figures after the GPUs are taken in a different order and some
 * are released again: incremental bookkeeping equals a recount. */
static void test_stats_incremental(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("node-1:8 node-2:8 node-3:8:[4,4] node-4:8");
    struct gs_error err = { 0 };
    /* Take everything on node-3 and node-1, then release node-3. */
    struct gs_alloc_part p3 = { 2, 0xFF }, p1 = { 0, 0xFF };
    struct gs_alloc a3 = { .nparts = 1, .cap = 1, .parts = &p3, .milli = GS_MILLI_GPU };
    struct gs_alloc a1 = { .nparts = 1, .cap = 1, .parts = &p1, .milli = GS_MILLI_GPU };
    assert_int_equal(gs_cluster_alloc(cl, &a3, &err), 0);
    assert_int_equal(gs_cluster_alloc(cl, &a1, &err), 0);
    /* idle: node-2 8 + node-4 8 = 16, S_8 = 2, frag 0 */
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    assert_int_equal(s.idle_gpus, 16);
    assert_int_equal(s.sched, 2);
    assert_int_equal(s.frag_count + s.frag_topology, 0);
    assert_int_equal(s.used_milli, 16000);
    assert_int_equal(gs_cluster_release(cl, &a3, &err), 0);
    /* node-3 back: idle 24, its [4,4] cannot take an 8-GPU job: S_8 = 2,
     * topology 8*(1-0) = 8, count 24 - 16 - 8 = 0 */
    s = gs_cluster_stats(cl);
    assert_int_equal(s.idle_gpus, 24);
    assert_int_equal(s.sched, 2);
    assert_int_equal(s.frag_topology, 8);
    assert_int_equal(s.frag_count, 0);
    assert_int_equal(s.used_milli, 8000);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* Re-sealing a sealed cluster with another k recomputes the statistics. */
static void test_reseal_changes_k(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("node-1:8 node-2:8 node-3:8 node-4:8");
    take(cl, "node-1", 0x3F);
    take(cl, "node-2", 0x1F);
    take(cl, "node-4", 0x01);
    struct gs_error err = { 0 };
    assert_int_equal(gs_cluster_seal(cl, 2, &err), 0);
    /* the seed at k = 2: S_2 = 9, frag 2 (see stats_cases) */
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    assert_int_equal(s.k, 2);
    assert_int_equal(s.sched, 9);
    assert_int_equal(s.frag_count, 2);
    assert_int_equal(s.idle_gpus, 20);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* Count k-GPU jobs that gs_place fits one after another (pack, default
 * topology), allocating each. */
static int64_t greedy_placements(const struct gs_cluster *cl, int k)
{
    struct gs_cluster *c = gs_cluster_clone(cl);
    assert_non_null(c);
    struct gs_request req = { 0 };
    req.gpus = k;
    req.milli = GS_MILLI_GPU;
    req.mem_mib = -1;
    req.topology = GS_TOPO_AUTO;
    req.gpu_type = -1;
    struct gs_alloc_part parts[8];
    int64_t count = 0;
    for (;;) {
        struct gs_alloc a = { .nparts = 0, .cap = gs_cluster_node_count(c), .parts = parts };
        if (gs_place(c, NULL, &req, GS_PLACE_PACK, &a, NULL) != 0)
            break;
        assert_int_equal(gs_cluster_alloc(c, &a, NULL), 0);
        count++;
    }
    gs_cluster_destroy(c);
    return count;
}

/* S_k is "the most k-GPU jobs placeable at once under the topology rule"
 * (DESIGN.md section 4), so for every k up to the largest node it equals
 * the number of k-GPU jobs gs_place fits one after another.  (Within one
 * domain, or one node under the whole-domain rule, placements do not
 * interact across units, so the greedy count is the maximum.)  Random
 * busy states on clusters mixing node sizes and NVLink layouts. */
static void test_sched_matches_placement(void **state)
{
    (void)state;
    static const char *const shapes[] = {
        "n1:8 n2:8:[4,4] n3:4 n4:8:[2,6]",
        "a:8:[4,4] b:8:[4,4] c:4",
        "n1:4 n2:4 n3:8",
        "n1:8:[2,2,4] n2:6:[3,3] n3:2",
    };
    uint64_t x = 2024;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct gs_cluster *probe = cluster_of(shapes[s]);
        int maxk = gs_cluster_max_node_gpus(probe);
        gs_cluster_destroy(probe);
        for (int k = 1; k <= maxk; k++) {
            for (int round = 0; round < 40; round++) {
                struct gs_cluster *cl = cluster_of_k(shapes[s], k);
                for (int n = 0; n < gs_cluster_node_count(cl); n++) {
                    uint64_t r = gs_splitmix64(&x);
                    /* round 0: all idle; later: about a third busy */
                    uint64_t busy = round ? (r & (r >> 8) & gs_cluster_full_view(cl)[n]) : 0;
                    take(cl, gs_cluster_node_name(cl, n), busy);
                }
                int64_t sched = gs_cluster_stats(cl).sched;
                int64_t placed = greedy_placements(cl, k);
                char busy[128] = "";
                for (int n = 0; n < gs_cluster_node_count(cl); n++)
                    snprintf(busy + strlen(busy), sizeof busy - strlen(busy), " %#llx",
                             (unsigned long long)(gs_cluster_full_view(cl)[n] &
                                                  ~gs_cluster_idle_mask(cl, n)));
                gs_cluster_destroy(cl);
                if (sched != placed)
                    fail_msg("%s, k=%d, busy%s: S_k = %lld but %lld k-GPU jobs place",
                             shapes[s], k, busy, (long long)sched, (long long)placed);
            }
        }
    }
}

/* gs_cluster_node_sched: k-jobs per node for a given idle mask. */
static void test_node_sched(void **state)
{
    (void)state;
    /* max domain of this cluster is 4, so k > 4 uses the whole-island rule */
    struct gs_cluster *cl = cluster_of("n1:8:[4,4]");
    static const struct {
        uint64_t idle;
        int k, expect;
    } rows[] = {
        { 0xFF, 4, 2 },  /* 4/4 + 4/4 */
        { 0xFF, 2, 4 },  /* 4/2 + 4/2 */
        { 0xFF, 3, 2 },  /* 4/3 + 4/3 = 1 + 1 */
        { 0xFF, 1, 8 },
        { 0xEE, 4, 0 },  /* 3 + 3 free */
        { 0xEE, 3, 2 },  /* 3/3 + 3/3 */
        { 0xFF, 8, 1 },  /* both islands whole */
        { 0xFE, 8, 0 },  /* island 0 has 3: no remainder domain of 4 */
        { 0xFF, 6, 1 },  /* island 0 + 2 of island 1; then 2 left: no */
        { 0xFF, 9, 0 },  /* k larger than the node */
        { 0xFF, 0, 0 },  /* k = 0 places nothing */
        { 0x00, 1, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int got = gs_cluster_node_sched(cl, 0, rows[i].idle, rows[i].k);
        if (got != rows[i].expect)
            fail_msg("row %zu: idle %#llx k %d: got %d want %d", i,
                     (unsigned long long)rows[i].idle, rows[i].k, got, rows[i].expect);
    }
    gs_cluster_destroy(cl);
}

/* gs_cluster_take_whole_domains: whole idle islands in index order (each no
 * larger than what is still needed), then the remainder in the best-fitting
 * single island, lowest GPUs first. */
static void test_take_whole_domains(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("a:8:[4,4] b:8:[2,2,4]");
    static const struct {
        int node;
        uint64_t idle;
        int k;
        uint64_t expect;
    } rows[] = {
        /* a all idle, 8: both islands */
        { 0, 0xFF, 8, 0xFF },
        /* a, 6: island 0 whole (need 2), island 1 (4) > 2 is not taken
         * whole; remainder 2 in island 1 -> GPUs 4,5: 0x3F */
        { 0, 0xFF, 6, 0x3F },
        /* a with GPU 0 busy, 6: island 1 whole (need 2), remainder in island
         * 0 (3 free): GPUs 1,2 -> 0xF6 */
        { 0, 0xFE, 6, 0xF6 },
        /* a with GPU 0 busy, 8: island 1 whole, remainder 4 > 3 -> none */
        { 0, 0xFE, 8, 0 },
        /* b all idle, 6: islands 0 (2) and 1 (2) whole, need 2; island 2 (4)
         * > 2; remainder 2 in island 2 -> GPUs 4,5: 0x3F */
        { 1, 0xFF, 6, 0x3F },
        /* b with GPU 2 busy, 5: island 0 whole (need 3), island 1 not idle,
         * island 2 (4) > 3; remainder 3: island 1 has 1, island 2 has 4 ->
         * GPUs 4,5,6: 0x73 */
        { 1, 0xFB, 5, 0x73 },
        /* b all idle, 3: island 0 whole (need 1), island 1 (2) > 1; the
         * best-fitting island for 1 GPU: island 1 (2 free) beats island 2 (4)
         * -> GPU 2: 0x07 */
        { 1, 0xFF, 3, 0x07 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t got = gs_cluster_take_whole_domains(cl, rows[i].node, rows[i].idle, rows[i].k);
        if (got != rows[i].expect)
            fail_msg("row %zu: got %#llx want %#llx", i, (unsigned long long)got,
                     (unsigned long long)rows[i].expect);
    }
    gs_cluster_destroy(cl);
}

/* ---- allocation and release ------------------------------------------- */

/* Snapshot of everything an allocation can change. */
struct snap {
    struct gs_cluster_stats s;
    uint64_t idle[4];
    int milli[4][8];
    int64_t mem[4][8];
    int users[4][8];
};

static void snap_take(const struct gs_cluster *cl, struct snap *sn)
{
    memset(sn, 0, sizeof *sn);
    sn->s = gs_cluster_stats(cl);
    for (int n = 0; n < gs_cluster_node_count(cl) && n < 4; n++) {
        sn->idle[n] = gs_cluster_idle_mask(cl, n);
        for (int g = 0; g < gs_cluster_node_gpus(cl, n) && g < 8; g++) {
            sn->milli[n][g] = gs_cluster_gpu_used_milli(cl, n, g);
            sn->mem[n][g] = gs_cluster_gpu_used_mem(cl, n, g);
            sn->users[n][g] = gs_cluster_gpu_users(cl, n, g);
        }
    }
}

static void snap_equal(const struct snap *a, const struct snap *b)
{
    assert_stats_equal(&a->s, &b->s);
    assert_memory_equal(a->idle, b->idle, sizeof a->idle);
    assert_memory_equal(a->milli, b->milli, sizeof a->milli);
    assert_memory_equal(a->mem, b->mem, sizeof a->mem);
    assert_memory_equal(a->users, b->users, sizeof a->users);
}

/* Whole-GPU allocation: GPUs leave the idle mask, stats follow. */
static void test_alloc_whole(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    struct gs_error err = { 0 };
    struct gs_alloc_part parts[2] = { { 0, 0x0F }, { 1, 0x01 } };
    struct gs_alloc a = { .nparts = 2, .cap = 2, .parts = parts, .milli = GS_MILLI_GPU };
    assert_int_equal(gs_cluster_can_alloc(cl, &a, &err), 0);
    assert_int_equal(gs_cluster_alloc(cl, &a, &err), 0);
    assert_int_equal(gs_cluster_idle_mask(cl, 0), 0xF0);
    assert_int_equal(gs_cluster_idle_mask(cl, 1), 0xFE);
    assert_int_equal(gs_cluster_gpu_used_milli(cl, 0, 3), 1000);
    assert_int_equal(gs_cluster_gpu_users(cl, 1, 0), 1);
    /* 5 GPUs taken: idle 11, used 5000; S_8 = 0 (4 and 7 free), frag 11 */
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    assert_int_equal(s.idle_gpus, 11);
    assert_int_equal(s.used_milli, 5000);
    assert_int_equal(s.sched, 0);
    assert_int_equal(s.frag_count, 11);
    assert_cluster_ok(cl);
    assert_int_equal(gs_cluster_release(cl, &a, &err), 0);
    s = gs_cluster_stats(cl);
    assert_int_equal(s.idle_gpus, 16);
    assert_int_equal(s.sched, 2);
    assert_int_equal(s.used_milli, 0);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* Shares: a GPU with any allocation is not idle; shares add up to 1000. */
static void test_alloc_shares(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_error err = { 0 };
    struct gs_alloc_part p = { 0, 0x01 };
    struct gs_alloc half = { .nparts = 1, .cap = 1, .parts = &p, .milli = 500,
                             .mem_mib = 40960 };
    assert_int_equal(gs_cluster_alloc(cl, &half, &err), 0);
    /* GPU 0 is half used: not idle, so idle 7 and S_8 = 0 */
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    assert_int_equal(s.idle_gpus, 7);
    assert_int_equal(s.sched, 0);
    assert_int_equal(s.used_milli, 500);
    assert_int_equal(gs_cluster_idle_mask(cl, 0), 0xFE);
    /* second half: 500 + 500 = 1000 fits, memory 40960*2 = 81920 fits */
    assert_int_equal(gs_cluster_alloc(cl, &half, &err), 0);
    assert_int_equal(gs_cluster_gpu_users(cl, 0, 0), 2);
    assert_int_equal(gs_cluster_gpu_used_milli(cl, 0, 0), 1000);
    assert_int_equal(gs_cluster_gpu_used_mem(cl, 0, 0), 81920);
    /* one release: still one user, still not idle */
    assert_int_equal(gs_cluster_release(cl, &half, &err), 0);
    assert_int_equal(gs_cluster_idle_mask(cl, 0), 0xFE);
    assert_int_equal(gs_cluster_gpu_users(cl, 0, 0), 1);
    assert_int_equal(gs_cluster_release(cl, &half, &err), 0);
    assert_int_equal(gs_cluster_idle_mask(cl, 0), 0xFF);
    assert_int_equal(gs_cluster_stats(cl).sched, 1);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* Must-fail allocations: each returns its code and changes nothing. */
static void test_alloc_must_fail(void **state)
{
    (void)state;
    struct row {
        const char *what;
        int nparts;
        struct gs_alloc_part parts[2];
        int milli;
        int64_t mem;
        int expect;
    };
    /* Pre-state: n1 GPU 0 holds 600 milli and 50000 MiB; GPU 1 is whole. */
    static const struct row rows[] = {
        /* 600 + 500 = 1100 > 1000 */
        { "share over 1000", 1, { { 0, 0x01 } }, 500, 0, GS_ENOSPC },
        /* 50000 + 40000 = 90000 > 81920 MiB */
        { "memory over capacity", 1, { { 0, 0x01 } }, 100, 40000, GS_ENOSPC },
        /* 90000 > 81920 on an empty GPU */
        { "memory over an empty GPU", 1, { { 0, 0x04 } }, 1000, 90000, GS_ENOSPC },
        /* GPU 1 is whole-allocated */
        { "whole GPU taken", 1, { { 0, 0x02 } }, 1000, 0, GS_ENOSPC },
        /* part 2 clashes: part 1 (n2 GPU 0, free) must not be applied */
        { "atomic on second part", 2, { { 1, 0x01 }, { 0, 0x02 } }, 1000, 0, GS_ENOSPC },
        { "node out of range", 1, { { 5, 0x01 } }, 1000, 0, GS_EINVAL },
        { "negative node", 1, { { -1, 0x01 } }, 1000, 0, GS_EINVAL },
        { "GPU beyond the node", 1, { { 0, 0x100 } }, 1000, 0, GS_EINVAL },
        { "empty mask", 1, { { 0, 0 } }, 1000, 0, GS_EINVAL },
        { "no parts", 0, { { 0, 0x04 } }, 1000, 0, GS_EINVAL },
        { "zero share", 1, { { 0, 0x04 } }, 0, 0, GS_EINVAL },
        { "share above 1000", 1, { { 0, 0x04 } }, 1001, 0, GS_EINVAL },
        { "negative memory", 1, { { 0, 0x04 } }, 1000, -1, GS_EINVAL },
        { "node named twice", 2, { { 1, 0x01 }, { 1, 0x02 } }, 1000, 0, GS_EINVAL },
    };
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    take_share(cl, "n1", 0, 600, 50000);
    take(cl, "n1", 0x02);
    struct snap before, after;
    snap_take(cl, &before);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_alloc_part parts[2];
        memcpy(parts, rows[i].parts, sizeof parts);
        struct gs_alloc a = { .nparts = rows[i].nparts, .cap = 2, .parts = parts,
                              .milli = rows[i].milli, .mem_mib = rows[i].mem };
        struct gs_error err = { 0 };
        int rc = gs_cluster_can_alloc(cl, &a, &err);
        if (rc != rows[i].expect)
            fail_msg("%s: can_alloc got %s want %s", rows[i].what, gs_strerror(rc),
                     gs_strerror(rows[i].expect));
        rc = gs_cluster_alloc(cl, &a, &err);
        if (rc != rows[i].expect)
            fail_msg("%s: alloc got %s want %s", rows[i].what, gs_strerror(rc),
                     gs_strerror(rows[i].expect));
        assert_int_equal(err.code, rows[i].expect);
        assert_true(err.msg[0] != '\0');
        snap_take(cl, &after);
        snap_equal(&before, &after);
    }
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* Host CPU and memory of the first part's node are checked and taken. */
static void test_alloc_host_resources(void **state)
{
    (void)state;
    struct gs_cluster *cl = gs_cluster_create();
    struct gs_error err = { 0 };
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err), 0);
    struct gs_node_spec s = { .name = "n1", .gpus = 8, .gpu_type = 0,
                              .cpu_milli = 64000, .mem_mib = 512000 };
    assert_int_equal(gs_cluster_add_node(cl, &s, &err), 0);
    assert_int_equal(gs_cluster_seal(cl, 0, &err), 0);
    struct gs_alloc_part p = { 0, 0x01 };
    struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &p, .milli = 1000,
                          .cpu_milli = 40000, .host_mem_mib = 300000 };
    assert_int_equal(gs_cluster_alloc(cl, &a, &err), 0);
    assert_int_equal(gs_cluster_node_cpu_used(cl, 0), 40000);
    assert_int_equal(gs_cluster_node_mem_used(cl, 0), 300000);
    /* 40000 + 40000 > 64000 CPU: refused, nothing taken */
    struct gs_alloc_part p2 = { 0, 0x02 };
    struct gs_alloc b = { .nparts = 1, .cap = 1, .parts = &p2, .milli = 1000,
                          .cpu_milli = 40000 };
    assert_int_equal(gs_cluster_alloc(cl, &b, &err), GS_ENOSPC);
    assert_int_equal(gs_cluster_idle_mask(cl, 0), 0xFE);
    /* 300000 + 300000 > 512000 memory */
    struct gs_alloc c = { .nparts = 1, .cap = 1, .parts = &p2, .milli = 1000,
                          .host_mem_mib = 300000 };
    assert_int_equal(gs_cluster_alloc(cl, &c, &err), GS_ENOSPC);
    assert_int_equal(gs_cluster_release(cl, &a, &err), 0);
    assert_int_equal(gs_cluster_node_cpu_used(cl, 0), 0);
    assert_int_equal(gs_cluster_node_mem_used(cl, 0), 0);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* Release of GPUs that are not allocated fails with GS_ESTATE and changes
 * nothing, including a release whose second part is the bad one. */
static void test_release_must_fail(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    struct gs_error err = { 0 };
    take(cl, "n1", 0x0F);
    struct snap before, after;
    snap_take(cl, &before);
    struct gs_alloc_part idle_part = { 0, 0x10 };
    struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &idle_part, .milli = 1000 };
    assert_int_equal(gs_cluster_release(cl, &a, &err), GS_ESTATE);
    assert_int_equal(err.code, GS_ESTATE);
    struct gs_alloc_part mixed[2] = { { 0, 0x01 }, { 1, 0x01 } };
    struct gs_alloc b = { .nparts = 2, .cap = 2, .parts = mixed, .milli = 1000 };
    assert_int_equal(gs_cluster_release(cl, &b, &err), GS_ESTATE);
    struct gs_alloc empty = { .nparts = 0, .parts = mixed, .milli = 1000 };
    assert_int_equal(gs_cluster_release(cl, &empty, &err), GS_ESTATE);
    snap_take(cl, &after);
    snap_equal(&before, &after);
    /* a valid release, then the same release again */
    struct gs_alloc_part p = { 0, 0x0F };
    struct gs_alloc c = { .nparts = 1, .cap = 1, .parts = &p, .milli = 1000 };
    assert_int_equal(gs_cluster_release(cl, &c, &err), 0);
    assert_int_equal(gs_cluster_release(cl, &c, &err), GS_ESTATE);
    assert_int_equal(gs_cluster_stats(cl).idle_gpus, 16);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* A long deterministic sequence of valid allocations and releases (whole
 * GPUs and shares): gs_cluster_check passes after every step, and releasing
 * everything restores the empty cluster's figures. */
static void test_check_after_random_sequence(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8:[4,4] n3:4 n4:8:[2,6]");
    struct gs_cluster_stats empty = gs_cluster_stats(cl);
    enum { MAXA = 64 };
    struct gs_alloc_part parts[MAXA];
    struct gs_alloc held[MAXA];
    int nheld = 0;
    uint64_t x = 12345;
    struct gs_error err = { 0 };
    for (int step = 0; step < 2000; step++) {
        uint64_t r = gs_splitmix64(&x);
        if ((r & 1) && nheld > 0) {
            int i = (int)((r >> 8) % (uint64_t)nheld);
            assert_int_equal(gs_cluster_release(cl, &held[i], &err), 0);
            held[i] = held[nheld - 1];
            parts[i] = parts[nheld - 1];
            held[i].parts = &parts[i];
            nheld--;
        } else if (nheld < MAXA) {
            int node = (int)((r >> 8) % 4);
            int gpu = (int)((r >> 16) % (uint64_t)gs_cluster_node_gpus(cl, node));
            int milli = (r >> 24) & 1 ? 1000 : 250;
            parts[nheld] = (struct gs_alloc_part){ node, 1ULL << gpu };
            held[nheld] = (struct gs_alloc){ .nparts = 1, .cap = 1, .parts = &parts[nheld],
                                             .milli = milli };
            if (gs_cluster_alloc(cl, &held[nheld], &err) == 0)
                nheld++;
            else
                assert_int_equal(err.code, GS_ENOSPC);
        }
        assert_cluster_ok(cl);
    }
    while (nheld > 0) {
        nheld--;
        assert_int_equal(gs_cluster_release(cl, &held[nheld], &err), 0);
    }
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    assert_stats_equal(&s, &empty);
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
}

/* A clone is deep: changes to either side stay on that side, and the clone
 * outlives the original. */
static void test_clone_is_deep(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("node-1:8 node-2:8:[4,4]");
    take(cl, "node-1", 0x03);
    struct gs_cluster *c = gs_cluster_clone(cl);
    assert_non_null(c);
    struct gs_cluster_stats a = gs_cluster_stats(cl), b = gs_cluster_stats(c);
    assert_stats_equal(&a, &b);
    take(c, "node-2", 0xFF);
    /* the original still has node-2 idle */
    assert_int_equal(gs_cluster_idle_mask(cl, 1), 0xFF);
    assert_int_equal(gs_cluster_idle_mask(c, 1), 0x00);
    take(cl, "node-1", 0x04);
    assert_int_equal(gs_cluster_idle_mask(c, 0), 0xFC);
    gs_cluster_destroy(cl);
    /* names, domains and state survive the original */
    assert_string_equal(gs_cluster_node_name(c, 1), "node-2");
    assert_int_equal(gs_cluster_find_node(c, "node-1"), 0);
    assert_int_equal(gs_cluster_domain_mask(c, 1, 1), 0xF0);
    assert_string_equal(gs_cluster_gpu_type_name(c, 0), "H100");
    /* idle: node-1 6 (GPUs 2-7) -> S_8 = 0 */
    assert_int_equal(gs_cluster_stats(c).idle_gpus, 6);
    assert_cluster_ok(c);
    gs_cluster_destroy(c);
}

/* Rack and multi-node domain labels are interned and named back. */
static void test_labels(void **state)
{
    (void)state;
    struct gs_cluster *cl = gs_cluster_create();
    struct gs_error err = { 0 };
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err), 0);
    struct gs_node_spec a = { .name = "a", .gpus = 8, .gpu_type = 0, .rack = "r1" };
    struct gs_node_spec b = { .name = "b", .gpus = 8, .gpu_type = 0, .rack = "r1",
                              .mdomain = "nvl" };
    struct gs_node_spec c = { .name = "c", .gpus = 8, .gpu_type = 0 };
    assert_int_equal(gs_cluster_add_node(cl, &a, &err), 0);
    assert_int_equal(gs_cluster_add_node(cl, &b, &err), 1);
    assert_int_equal(gs_cluster_add_node(cl, &c, &err), 2);
    assert_int_equal(gs_cluster_seal(cl, 0, &err), 0);
    assert_int_equal(gs_cluster_node_rack(cl, 0), gs_cluster_node_rack(cl, 1));
    assert_string_equal(gs_cluster_label_name(cl, gs_cluster_node_rack(cl, 0)), "r1");
    assert_string_equal(gs_cluster_label_name(cl, gs_cluster_node_mdomain(cl, 1)), "nvl");
    assert_int_equal(gs_cluster_node_mdomain(cl, 0), -1);
    assert_int_equal(gs_cluster_node_rack(cl, 2), -1);
    gs_cluster_destroy(cl);
}

/* ---- OOM sweep ---------------------------------------------------------- */

/* Build, seal, allocate, clone and check a small cluster with the N-th
 * allocation failing.  Every call returns GS_ENOMEM (or NULL) or succeeds;
 * a call that failed for memory succeeds when retried without injection
 * (the failure left no half-done change); nothing leaks.  Returns whether
 * an allocation was failed in this round. */
static int oom_round(long n)
{
    tu_oom_arm(n);
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_create();
    if (!cl) {
        tu_oom_end(n);
        return 1;
    }
    int rc = gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err);
    if (rc == GS_ENOMEM) {
        tu_oom_pause();
        rc = gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err);
    }
    assert_int_equal(rc, 0);
    static const char *const names[] = { "n1", "n2", "n3", "n4" };
    static const char *const racks[] = { "r1", "r2", "r1", NULL };
    for (int i = 0; i < 4; i++) {
        struct gs_node_spec s = { .name = names[i], .gpus = 8, .gpu_type = 0,
                                  .rack = racks[i], .mdomain = i == 3 ? "nvl" : NULL };
        if (i == 1) {
            s.ndomains = 2;
            s.domain_sizes[0] = s.domain_sizes[1] = 4;
        }
        rc = gs_cluster_add_node(cl, &s, &err);
        if (rc == GS_ENOMEM) {
            tu_oom_pause();
            rc = gs_cluster_add_node(cl, &s, &err);
            if (rc != i)
                fail_msg("fail_at %ld: add_node(%s) retried after ENOMEM: %s", n, names[i],
                         err.msg);
        }
        assert_int_equal(rc, i);
    }
    rc = gs_cluster_seal(cl, 0, &err);
    if (rc == GS_ENOMEM) {
        tu_oom_pause();
        rc = gs_cluster_seal(cl, 0, &err);
    }
    assert_int_equal(rc, 0);
    struct gs_alloc_part p = { 0, 0x3F };
    struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &p, .milli = 1000 };
    assert_int_equal(gs_cluster_alloc(cl, &a, &err), 0);
    struct gs_cluster *c = gs_cluster_clone(cl);
    if (c) {
        assert_int_equal(gs_cluster_idle_mask(c, 0), 0xC0);
        gs_cluster_destroy(c);
    }
    rc = gs_cluster_check(cl, &err);
    assert_true(rc == 0 || rc == GS_ENOMEM);
    int failed = tu_oom_state.failed > 0;
    tu_oom_pause();
    assert_cluster_ok(cl);
    gs_cluster_destroy(cl);
    tu_oom_end(n);
    return failed;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    /* the scenario allocates more than a handful of times */
    assert_true(tu_oom_rounds(oom_round) > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_gpu_type_errors),
        cmocka_unit_test(test_add_node_errors),
        cmocka_unit_test(test_seal_needs_gpus),
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_seal_k_default),
        cmocka_unit_test(test_stats_table),
        cmocka_unit_test(test_stats_incremental),
        cmocka_unit_test(test_reseal_changes_k),
        cmocka_unit_test(test_sched_matches_placement),
        cmocka_unit_test(test_node_sched),
        cmocka_unit_test(test_take_whole_domains),
        cmocka_unit_test(test_alloc_whole),
        cmocka_unit_test(test_alloc_shares),
        cmocka_unit_test(test_alloc_must_fail),
        cmocka_unit_test(test_alloc_host_resources),
        cmocka_unit_test(test_release_must_fail),
        cmocka_unit_test(test_check_after_random_sequence),
        cmocka_unit_test(test_clone_is_deep),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

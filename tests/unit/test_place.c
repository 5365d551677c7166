/* test_place.c - gs_place: the topology rule, pack and spread scoring, ties,
 * jobs larger than a node, topology node/any, views, GPU types, shared GPUs,
 * malformed requests; gs_place_possible and gs_place_topology.
 *
 * Rules (place.h, DESIGN.md issue 2), restated for the derivations:
 *  - a job of g <= largest-domain GPUs takes all of them from ONE NVLink
 *    domain; a larger job takes whole idle domains of one node (a remainder
 *    smaller than a domain goes to one best-fitting domain); a job larger
 *    than a node takes whole idle nodes in node order, then the remainder as
 *    a job of its own on another node.
 *  - pack: minimise idle GPUs left in the chosen domain, then on the node.
 *    spread: most idle node first, then most idle domain.
 *  - ties: node order, then lowest GPU index; inside a unit, the lowest-index
 *    idle GPUs.
 *  - topology node: any GPUs of one node; any: one domain if possible, else
 *    one node, else the most idle nodes first.
 *
 * SEED below is the seed's cluster: four 8-GPU nodes with 2, 3, 8, 7 free:
 *   node-1 busy 0-5 (free 6,7)      node-2 busy 0-4 (free 5,6,7)
 *   node-3 all free                 node-4 busy 0   (free 1-7)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/place/place.h"
#include "core/place/place_private.h"
#include "testutil.h"

#define SEED "node-1:8 node-2:8 node-3:8 node-4:8"
#define SEED_BUSY { 0x3F, 0x1F, 0x00, 0x01 }
/* node-3 split into two NVLink islands of 4, the others one island of 8 */
#define SEED_SPLIT "node-1:8 node-2:8 node-3:8:[4,4] node-4:8"

#define PACK GS_PLACE_PACK
#define SPREAD GS_PLACE_SPREAD
#define FIRST GS_PLACE_FIRST_FIT
#define AUTO GS_TOPO_AUTO
#define DOMAIN GS_TOPO_DOMAIN
#define NODE GS_TOPO_NODE
#define ANY GS_TOPO_ANY

struct want_part {
    const char *node;
    uint64_t mask;
};

struct place_case {
    const char *what;
    const char *desc;
    uint64_t busy[4];       /* whole GPUs taken per node index */
    int gpus, topology, strategy;
    int gpu_type;           /* -1 = any; the row's value is +1 so 0 means any */
    int expect;             /* 0 or the error code */
    struct want_part parts[4];
};

/* A whole-GPU request. */
static struct gs_request whole(int gpus, int topology, int gpu_type)
{
    struct gs_request r = { 0 };
    r.gpus = gpus;
    r.milli = GS_MILLI_GPU;
    r.mem_mib = -1;
    r.topology = topology;
    r.gpu_type = gpu_type;
    return r;
}

/* Run gs_place for `req` and compare with the expected parts; also check
 * that the cluster did not change. */
static void expect_place(const char *what, const struct gs_cluster *cl, const uint64_t *view,
                         const struct gs_request *req, int strategy, int expect,
                         const struct want_part *parts)
{
    struct gs_alloc_part out_parts[8];
    struct gs_alloc out = { .nparts = 0, .cap = gs_cluster_node_count(cl), .parts = out_parts };
    struct gs_cluster_stats before = gs_cluster_stats(cl);
    uint64_t idle_before[8];
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        idle_before[n] = gs_cluster_idle_mask(cl, n);
    struct gs_error err = { 0 };
    int rc = gs_place(cl, view, req, strategy, &out, &err);
    if (rc != expect)
        fail_msg("%s: gs_place returned %s, want %s (%s)", what, gs_strerror(rc),
                 gs_strerror(expect), err.msg);
    if (rc == 0) {
        int nwant = 0;
        while (nwant < 4 && parts[nwant].node)
            nwant++;
        if (out.nparts != nwant)
            fail_msg("%s: %d parts, want %d", what, out.nparts, nwant);
        for (int i = 0; i < nwant; i++) {
            int node = node_of(cl, parts[i].node);
            if (out.parts[i].node != node || out.parts[i].mask != parts[i].mask)
                fail_msg("%s: part %d is %s %#llx, want %s %#llx", what, i,
                         gs_cluster_node_name(cl, out.parts[i].node),
                         (unsigned long long)out.parts[i].mask, parts[i].node,
                         (unsigned long long)parts[i].mask);
        }
        assert_int_equal(out.milli, req->milli);
    } else {
        assert_int_equal(err.code, expect);
    }
    /* gs_place never modifies the cluster */
    struct gs_cluster_stats after = gs_cluster_stats(cl);
    assert_stats_equal(&before, &after);
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        assert_int_equal(gs_cluster_idle_mask(cl, n), idle_before[n]);
}

static void run_cases(const struct place_case *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct place_case *c = &rows[i];
        struct gs_cluster *cl = cluster_of(c->desc);
        for (int k = 0; k < gs_cluster_node_count(cl) && k < 4; k++)
            take(cl, gs_cluster_node_name(cl, k), c->busy[k]);
        struct gs_request req = whole(c->gpus, c->topology, c->gpu_type - 1);
        expect_place(c->what, cl, NULL, &req, c->strategy, c->expect, c->parts);
        gs_cluster_destroy(cl);
    }
}

#define RUN(rows) run_cases(rows, sizeof rows / sizeof rows[0])

/* pack = best fit on the seed cluster. */
static void test_pack_best_fit(void **state)
{
    (void)state;
    static const struct place_case rows[] = {
        /* 2 GPUs: left-over in the domain (= node here) after placing:
         * node-1 0, node-2 1, node-3 6, node-4 5 -> node-1, GPUs 6,7 */
        { "2 pack", SEED, SEED_BUSY, 2, AUTO, PACK, 0, 0, { { "node-1", 0xC0 } } },
        /* 3 GPUs: node-2 is an exact fit (0 left) -> GPUs 5,6,7 */
        { "3 pack", SEED, SEED_BUSY, 3, AUTO, PACK, 0, 0, { { "node-2", 0xE0 } } },
        /* 1 GPU: node-1 leaves 1, node-2 2, node-4 6, node-3 7 -> node-1 GPU 6 */
        { "1 pack", SEED, SEED_BUSY, 1, AUTO, PACK, 0, 0, { { "node-1", 0x40 } } },
        /* 4 GPUs: only node-3 (leaves 4) and node-4 (leaves 3) fit -> node-4,
         * its lowest idle GPUs 1-4 */
        { "4 pack", SEED, SEED_BUSY, 4, AUTO, PACK, 0, 0, { { "node-4", 0x1E } } },
        /* 7 GPUs: node-4 exact (0 left) beats node-3 (1 left) -> GPUs 1-7 */
        { "7 pack", SEED, SEED_BUSY, 7, AUTO, PACK, 0, 0, { { "node-4", 0xFE } } },
        /* 8 GPUs: only node-3 has 8 free */
        { "8 pack", SEED, SEED_BUSY, 8, AUTO, PACK, 0, 0, { { "node-3", 0xFF } } },
    };
    RUN(rows);
}

/* spread = most idle node first, then most idle domain. */
static void test_spread_most_idle(void **state)
{
    (void)state;
    static const struct place_case rows[] = {
        /* most idle node is node-3 (8 free): lowest GPUs */
        { "1 spread", SEED, SEED_BUSY, 1, AUTO, SPREAD, 0, 0, { { "node-3", 0x01 } } },
        { "2 spread", SEED, SEED_BUSY, 2, AUTO, SPREAD, 0, 0, { { "node-3", 0x03 } } },
        { "3 spread", SEED, SEED_BUSY, 3, AUTO, SPREAD, 0, 0, { { "node-3", 0x07 } } },
        { "4 spread", SEED, SEED_BUSY, 4, AUTO, SPREAD, 0, 0, { { "node-3", 0x0F } } },
        /* 7: node-3 (8 free) beats node-4 (7 free, the exact fit) */
        { "7 spread", SEED, SEED_BUSY, 7, AUTO, SPREAD, 0, 0, { { "node-3", 0x7F } } },
        /* 8: node-3 under both strategies */
        { "8 spread", SEED, SEED_BUSY, 8, AUTO, SPREAD, 0, 0, { { "node-3", 0xFF } } },
        /* one [4,4] node, GPU 0 busy: spread picks the more idle island 1
         * (4 free vs 3), GPUs 4,5 */
        { "spread prefers idle island", "n1:8:[4,4]", { 0x01 }, 2, AUTO, SPREAD, 0, 0,
          { { "n1", 0x30 } } },
    };
    RUN(rows);
}

/* Within one node, pack chooses the island that is left fullest. */
static void test_pack_island_choice(void **state)
{
    (void)state;
    static const struct place_case rows[] = {
        /* [4,4], GPU 0 busy: island 0 has 3 free (leaves 1), island 1 has 4
         * (leaves 2) -> island 0, GPUs 1,2 */
        { "pack island", "n1:8:[4,4]", { 0x01 }, 2, AUTO, PACK, 0, 0, { { "n1", 0x06 } } },
        /* seed with node-3 [4,4]: a 4-GPU job fits node-3's island 0 exactly
         * (0 left in the island) -> GPUs 0-3; node-4 would leave 3 */
        { "4 pack split", SEED_SPLIT, SEED_BUSY, 4, AUTO, PACK, 0, 0, { { "node-3", 0x0F } } },
        /* spread: node-3 is the most idle node (8), both islands equal ->
         * island 0 */
        { "4 spread split", SEED_SPLIT, SEED_BUSY, 4, AUTO, SPREAD, 0, 0,
          { { "node-3", 0x0F } } },
        /* 5 GPUs: node-3's islands hold 4 each, so node-4 (GPUs 1-5) */
        { "5 pack split", SEED_SPLIT, SEED_BUSY, 5, AUTO, PACK, 0, 0, { { "node-4", 0x3E } } },
    };
    RUN(rows);
}

/* The topology rule refuses GPUs split across NVLink islands; topology
 * node/any accept them. */
static void test_topology_rule(void **state)
{
    (void)state;
    static const struct place_case rows[] = {
        /* Seed with node-3 [4,4]: the only 8 free GPUs on one node are split
         * 4+4.  8 <= the largest domain (8), so one domain is required: no
         * node has a domain with 8 free -> refused. */
        { "8 split refused", SEED_SPLIT, SEED_BUSY, 8, AUTO, PACK, 0, GS_ENOSPC, { { 0 } } },
        { "8 split refused (spread)", SEED_SPLIT, SEED_BUSY, 8, AUTO, SPREAD, 0, GS_ENOSPC,
          { { 0 } } },
        { "8 split, topology domain", SEED_SPLIT, SEED_BUSY, 8, DOMAIN, PACK, 0, GS_ENOSPC,
          { { 0 } } },
        /* any: no domain holds 8, but node-3 holds 8 -> all of node-3 */
        { "8 split, any", SEED_SPLIT, SEED_BUSY, 8, ANY, PACK, 0, 0, { { "node-3", 0xFF } } },
        /* node: the same single node */
        { "8 split, node", SEED_SPLIT, SEED_BUSY, 8, NODE, PACK, 0, 0, { { "node-3", 0xFF } } },
        /* All nodes [4,4] (largest domain 4): 8 > 4 takes whole idle islands
         * of one node; an idle node qualifies -> n1 (node order) */
        { "8 whole islands", "n1:8:[4,4] n2:8:[4,4]", { 0 }, 8, AUTO, PACK, 0, 0,
          { { "n1", 0xFF } } },
        /* 8 free, but island 1 of n1 and island 0 of n2: no node has two
         * whole islands -> refused; any: most idle nodes first, n1 (4) then
         * n2 (4) */
        { "8 over two nodes refused", "n1:8:[4,4] n2:8:[4,4]", { 0xF0, 0x0F }, 8, AUTO, PACK, 0,
          GS_ENOSPC, { { 0 } } },
        { "8 over two nodes, any", "n1:8:[4,4] n2:8:[4,4]", { 0xF0, 0x0F }, 8, ANY, PACK, 0, 0,
          { { "n1", 0x0F }, { "n2", 0xF0 } } },
        /* 6 GPUs on [4,4] nodes, n1 GPU 0 busy.  n1: island 0 is not whole;
         * island 1 whole (need 2), remainder 2 in the best-fitting island
         * with room, island 0 (3 free): its lowest idle GPUs 1,2 -> 0xF6,
         * leaving 7-6 = 1 idle on n1.  n2: island 0 whole (need 2), island 1
         * (4) is larger than 2, remainder in island 1: GPUs 4,5 -> 0x3F,
         * leaving 2.  pack -> n1; spread -> n2 (8 idle beats 7) */
        { "6 whole islands pack", "n1:8:[4,4] n2:8:[4,4]", { 0x01 }, 6, AUTO, PACK, 0, 0,
          { { "n1", 0xF6 } } },
        { "6 whole islands spread", "n1:8:[4,4] n2:8:[4,4]", { 0x01 }, 6, AUTO, SPREAD, 0, 0,
          { { "n2", 0x3F } } },
        /* n1 [4,4] with GPUs 0 and 4 busy: 3+3 free.  5 GPUs: no whole idle
         * island and 5 fits no island -> refused; topology domain: 5 > the
         * largest domain -> refused */
        { "5 on 3+3", "n1:8:[4,4]", { 0x11 }, 5, AUTO, PACK, 0, GS_ENOSPC, { { 0 } } },
        { "5 on 3+3 domain", "n1:8:[4,4]", { 0x11 }, 5, DOMAIN, PACK, 0, GS_ENOSPC, { { 0 } } },
        /* node / any: any 5 GPUs of the node, lowest first: 1,2,3,5,6 */
        { "5 on 3+3 node", "n1:8:[4,4]", { 0x11 }, 5, NODE, PACK, 0, 0, { { "n1", 0x6E } } },
        { "5 on 3+3 any", "n1:8:[4,4]", { 0x11 }, 5, ANY, PACK, 0, 0, { { "n1", 0x6E } } },
        /* 3 GPUs, topology any: one domain is possible (island 0: 1,2,3) */
        { "3 on 3+3 any", "n1:8:[4,4]", { 0x11 }, 3, ANY, PACK, 0, 0, { { "n1", 0x0E } } },
        /* 2 GPUs on the seed, topology node: pack still best-fits node-1 */
        { "2 node pack", SEED, SEED_BUSY, 2, NODE, PACK, 0, 0, { { "node-1", 0xC0 } } },
    };
    RUN(rows);
}

/* Jobs larger than a node: whole idle nodes in node order, then the
 * remainder placed like a job of its own. */
static void test_larger_than_node(void **state)
{
    (void)state;
    static const struct place_case rows[] = {
        /* 12 on three idle nodes: n1 whole (8), remainder 4: n2 and n3 tie
         * (both leave 4) -> node order n2, GPUs 0-3 */
        { "12 idle", "n1:8 n2:8 n3:8", { 0 }, 12, AUTO, PACK, 0, 0,
          { { "n1", 0xFF }, { "n2", 0x0F } } },
        { "16 idle", "n1:8 n2:8 n3:8", { 0 }, 16, AUTO, PACK, 0, 0,
          { { "n1", 0xFF }, { "n2", 0xFF } } },
        { "25 too big", "n1:8 n2:8 n3:8", { 0 }, 25, AUTO, PACK, 0, GS_ENOSPC, { { 0 } } },
        /* n1 GPU 0 busy: the first whole idle node is n2; remainder 4 under
         * pack: n1 leaves 3, n3 leaves 4 -> n1 GPUs 1-4 */
        { "12 first node busy", "n1:8 n2:8 n3:8", { 0x01 }, 12, AUTO, PACK, 0, 0,
          { { "n2", 0xFF }, { "n1", 0x1E } } },
        /* seed, 9 GPUs: node-3 is the only whole idle node; remainder 1:
         * pack -> node-1 GPU 6 (leaves 1); spread -> node-4 (7 free) GPU 1 */
        { "9 seed pack", SEED, SEED_BUSY, 9, AUTO, PACK, 0, 0,
          { { "node-3", 0xFF }, { "node-1", 0x40 } } },
        { "9 seed spread", SEED, SEED_BUSY, 9, AUTO, SPREAD, 0, 0,
          { { "node-3", 0xFF }, { "node-4", 0x02 } } },
        /* 17: one whole idle node leaves 9 to place, more than a node -> no */
        { "17 seed", SEED, SEED_BUSY, 17, AUTO, PACK, 0, GS_ENOSPC, { { 0 } } },
        /* [4,4] nodes, 14 GPUs: n1 whole, remainder 6 > largest domain:
         * whole islands of one node, n2 island 0 + GPUs 4,5 (0x3F); n3 ties
         * -> node order */
        { "14 islands", "n1:8:[4,4] n2:8:[4,4] n3:8:[4,4]", { 0 }, 14, AUTO, PACK, 0, 0,
          { { "n1", 0xFF }, { "n2", 0x3F } } },
        /* [4,4] nodes, 12: n1 whole, remainder 4 fits one island: n2 island 0 */
        { "12 islands", "n1:8:[4,4] n2:8:[4,4]", { 0 }, 12, AUTO, PACK, 0, 0,
          { { "n1", 0xFF }, { "n2", 0x0F } } },
        /* topology any, 9 on the seed: no domain, no node holds 9 -> most
         * idle nodes first: node-3 (8), then node-4 (7) gives the last 1 */
        { "9 seed any", SEED, SEED_BUSY, 9, ANY, PACK, 0, 0,
          { { "node-3", 0xFF }, { "node-4", 0x02 } } },
        /* any, 20 = every free GPU: node-3 8, node-4 7, node-2 3, node-1 2 */
        { "20 seed any", SEED, SEED_BUSY, 20, ANY, PACK, 0, 0,
          { { "node-3", 0xFF }, { "node-4", 0xFE }, { "node-2", 0xE0 }, { "node-1", 0xC0 } } },
        { "21 seed any", SEED, SEED_BUSY, 21, ANY, PACK, 0, GS_ENOSPC, { { 0 } } },
    };
    RUN(rows);
}

/* Ties break by node order, then lowest GPU index. */
static void test_ties(void **state)
{
    (void)state;
    static const struct place_case rows[] = {
        { "tie pack", "n1:8 n2:8", { 0 }, 1, AUTO, PACK, 0, 0, { { "n1", 0x01 } } },
        { "tie spread", "n1:8 n2:8", { 0 }, 1, AUTO, SPREAD, 0, 0, { { "n1", 0x01 } } },
        { "tie 8", "n1:8 n2:8", { 0 }, 8, AUTO, SPREAD, 0, 0, { { "n1", 0xFF } } },
        /* n1 and n2 both have GPUs 0,2,4,6 free: n1, lowest two = 0 and 2 */
        { "tie holes", "n1:8 n2:8", { 0xAA, 0xAA }, 2, AUTO, PACK, 0, 0, { { "n1", 0x05 } } },
        /* [4,4] with both islands idle: island 0 first */
        { "tie islands", "n1:8:[4,4]", { 0 }, 3, AUTO, PACK, 0, 0, { { "n1", 0x07 } } },
    };
    RUN(rows);
}

/* first_fit (Tiresias' ms_yarn placement: the first node, in cluster order,
 * with enough free GPUs; larger jobs take the first whole idle nodes and the
 * remainder on the first other node with room). */
static void test_first_fit(void **state)
{
    (void)state;
    static const struct place_case rows[] = {
        /* seed free 2, 3, 8, 7: 1 and 2 GPUs fit node-1 first (pack agrees) */
        { "1 first", SEED, SEED_BUSY, 1, AUTO, FIRST, 0, 0, { { "node-1", 0x40 } } },
        { "2 first", SEED, SEED_BUSY, 2, AUTO, FIRST, 0, 0, { { "node-1", 0xC0 } } },
        /* 3: node-1 has 2, node-2 has 3 -> node-2 (pack agrees: exact fit) */
        { "3 first", SEED, SEED_BUSY, 3, AUTO, FIRST, 0, 0, { { "node-2", 0xE0 } } },
        /* 4: node-3 (8 free) comes before node-4 (7 free); pack takes node-4 */
        { "4 first", SEED, SEED_BUSY, 4, AUTO, FIRST, 0, 0, { { "node-3", 0x0F } } },
        { "4 pack differs", SEED, SEED_BUSY, 4, AUTO, PACK, 0, 0, { { "node-4", 0x1E } } },
        /* 7: node-3 first (pack: node-4, exact) */
        { "7 first", SEED, SEED_BUSY, 7, AUTO, FIRST, 0, 0, { { "node-3", 0x7F } } },
        /* 2 GPUs, n1 has 6 free, n2 2 free: first fit n1 GPUs 2,3; pack n2 */
        { "2 first not best", "n1:8 n2:8", { 0x03, 0x3F }, 2, AUTO, FIRST, 0, 0,
          { { "n1", 0x0C } } },
        /* 9 on the seed: node-3 whole, remainder 1 on the first other node
         * with room: node-1 GPU 6 */
        { "9 first", SEED, SEED_BUSY, 9, AUTO, FIRST, 0, 0,
          { { "node-3", 0xFF }, { "node-1", 0x40 } } },
        /* 12 on n1 (GPU 0 busy), n2, n3 idle: n2 whole, remainder 4: n1 has
         * 7 free and comes first -> n1 GPUs 1-4 */
        { "12 first", "n1:8 n2:8 n3:8", { 0x01 }, 12, AUTO, FIRST, 0, 0,
          { { "n2", 0xFF }, { "n1", 0x1E } } },
        /* [4,4] node n1 with GPU 0 busy, 2 GPUs: island 0 (3 free) is the
         * first unit with room: GPUs 1,2 */
        { "island first", "n1:8:[4,4]", { 0x01 }, 2, AUTO, FIRST, 0, 0, { { "n1", 0x06 } } },
        { "9 too big", "n1:8", { 0 }, 9, AUTO, FIRST, 0, GS_ENOSPC, { { 0 } } },
    };
    RUN(rows);
    /* shared: the first GPU, node order then index, with share and memory
     * free.  n1 GPU 0 holds 800 milli, GPU 1 300; n2 idle.  A 400 job: GPU 0
     * has 200 free (no), GPU 1 700 (yes) -> n1 GPU 1 (pack also: 300 left
     * beats 600 on an idle GPU).  A 100 job: GPU 0 fits first -> GPU 0. */
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    take_share(cl, "n1", 0, 800, 0);
    take_share(cl, "n1", 1, 300, 0);
    struct gs_request req = whole(1, AUTO, -1);
    req.milli = 400;
    req.mem_mib = 0;
    struct want_part g1[2] = { { "n1", 0x02 }, { 0 } };
    expect_place("shared first", cl, NULL, &req, FIRST, 0, g1);
    req.milli = 100;
    struct want_part g0[2] = { { "n1", 0x01 }, { 0 } };
    expect_place("shared first low", cl, NULL, &req, FIRST, 0, g0);
    /* an 800 job: GPU 0 (200 free) and GPU 1 (700) are too small -> n1's
     * first idle GPU 2, not n2 */
    req.milli = 800;
    struct want_part g2[2] = { { "n1", 0x04 }, { 0 } };
    expect_place("shared first idle", cl, NULL, &req, FIRST, 0, g2);
    gs_cluster_destroy(cl);
}

/* A required GPU type restricts the candidate nodes. */
static void test_gpu_type(void **state)
{
    (void)state;
    /* a (A100, type 1) has 2 free, h (H100, type 0) all free; row gpu_type
     * is type + 1 */
    static const struct place_case rows[] = {
        { "any type", "a:8:[8]:A100 h:8:[8]:H100", { 0x3F }, 2, AUTO, PACK, 0, 0,
          { { "a", 0xC0 } } },
        { "H100 only", "a:8:[8]:A100 h:8:[8]:H100", { 0x3F }, 2, AUTO, PACK, 1, 0,
          { { "h", 0x03 } } },
        { "A100 only", "a:8:[8]:A100 h:8:[8]:H100", { 0x3F }, 2, AUTO, PACK, 2, 0,
          { { "a", 0xC0 } } },
        { "A100, 3 GPUs", "a:8:[8]:A100 h:8:[8]:H100", { 0x3F }, 3, AUTO, PACK, 2, GS_ENOSPC,
          { { 0 } } },
    };
    RUN(rows);
}

/* A whole-GPU request that needs more memory per GPU than a GPU type has
 * cannot use GPUs of that type (DESIGN.md: GPU-memory fragmentation; trace
 * column gpu_mem_gb = memory per GPU needed). */
static void test_whole_gpu_memory(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("a:8:[8]:A100 h:8:[8]:H100");
    take(cl, "a", 0x3F);
    /* 60000 MiB > A100's 40960: only h qualifies, GPUs 0,1 */
    struct gs_request req = whole(2, AUTO, -1);
    req.mem_mib = 60000;
    static const struct want_part on_h[] = { { "h", 0x03 }, { 0 } };
    expect_place("60000 MiB per GPU", cl, NULL, &req, PACK, 0, on_h);
    /* 90000 MiB > every GPU */
    req.mem_mib = 90000;
    expect_place("90000 MiB per GPU", cl, NULL, &req, PACK, GS_ENOSPC, NULL);
    struct gs_alloc_part scratch[2];
    struct gs_alloc s = { .nparts = 0, .cap = 2, .parts = scratch };
    assert_int_equal(gs_place_possible(cl, &req, &s), 0);
    gs_cluster_destroy(cl);
}

/* A view overrides which GPUs count as idle. */
static void test_view_overrides_live_state(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(SEED);
    static const uint64_t busy[] = SEED_BUSY;
    for (int n = 0; n < 4; n++)
        take(cl, gs_cluster_node_name(cl, n), busy[n]);
    /* the view says: node-3 has GPUs 0-3 free, node-4 all 8 (although
     * node-4 GPU 0 is busy in the live state), node-1 and node-2 nothing */
    const uint64_t view[4] = { 0x00, 0x00, 0x0F, 0xFF };
    struct gs_request r8 = whole(8, AUTO, -1);
    static const struct want_part n4_all[] = { { "node-4", 0xFF }, { 0 } };
    expect_place("view 8", cl, view, &r8, PACK, 0, n4_all);
    /* 4 GPUs: node-3 leaves 0 in the view, node-4 leaves 4 -> node-3 */
    struct gs_request r4 = whole(4, AUTO, -1);
    static const struct want_part n3_low[] = { { "node-3", 0x0F }, { 0 } };
    expect_place("view 4", cl, view, &r4, PACK, 0, n3_low);
    /* 2 GPUs spread: most idle in the view is node-4 */
    struct gs_request r2 = whole(2, AUTO, -1);
    static const struct want_part n4_low[] = { { "node-4", 0x03 }, { 0 } };
    expect_place("view 2 spread", cl, view, &r2, SPREAD, 0, n4_low);
    /* an empty view: nothing fits, although 20 GPUs are free live */
    const uint64_t none[4] = { 0 };
    expect_place("empty view", cl, none, &r2, PACK, GS_ENOSPC, NULL);
    gs_cluster_destroy(cl);
}

/* Shared requests (milli < 1000, one GPU): the GPU whose free share fits
 * best (pack) or is largest (spread); memory -1 = share x GPU memory. */
static void test_shared_gpu(void **state)
{
    (void)state;
    /* One node, 80 GiB GPUs.  GPU 0: 500 milli, 40960 MiB used.
     * GPU 1: 300 milli, 24576 MiB used.  GPU 2: whole.  GPUs 3-7 idle. */
    struct gs_cluster *cl = cluster_of("n1:8");
    take_share(cl, "n1", 0, 500, 40960);
    take_share(cl, "n1", 1, 300, 24576);
    take(cl, "n1", 0x04);
    static const struct {
        const char *what;
        int milli;
        int64_t mem;
        int strategy;
        uint64_t mask;
        int64_t mem_out;
    } rows[] = {
        /* 400, memory -1 = 0.4 x 81920 = 32768.  Free share left after
         * placing: GPU 0 500-400 = 100, GPU 1 700-400 = 300, idle GPUs 600;
         * GPU 0 has 81920-40960 = 40960 MiB >= 32768 -> GPU 0 */
        { "400 pack", 400, -1, PACK, 0x01, 32768 },
        /* 45000 MiB: GPU 0 has 40960 free, too little; GPU 1 has 57344 ->
         * GPU 1 (300 left) */
        { "400 pack 45000 MiB", 400, 45000, PACK, 0x02, 45000 },
        /* 600: GPU 0 has 500, too little; GPU 1 leaves 100 -> GPU 1;
         * memory 0.6 x 81920 = 49152 <= 57344 */
        { "600 pack", 600, -1, PACK, 0x02, 49152 },
        /* 800: only idle GPUs; lowest is GPU 3 */
        { "800 pack", 800, 0, PACK, 0x08, 0 },
        /* spread: the largest free share: idle GPUs (1000), lowest GPU 3 */
        { "400 spread", 400, -1, SPREAD, 0x08, 32768 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_request req = whole(1, AUTO, -1);
        req.milli = rows[i].milli;
        req.mem_mib = rows[i].mem;
        struct want_part want[2] = { { "n1", rows[i].mask }, { 0 } };
        expect_place(rows[i].what, cl, NULL, &req, rows[i].strategy, 0, want);
        struct gs_alloc_part p[1];
        struct gs_alloc out = { .nparts = 0, .cap = 1, .parts = p };
        assert_int_equal(gs_place(cl, NULL, &req, rows[i].strategy, &out, NULL), 0);
        if (out.mem_mib != rows[i].mem_out)
            fail_msg("%s: mem %lld want %lld", rows[i].what, (long long)out.mem_mib,
                     (long long)rows[i].mem_out);
        /* what was placed can be allocated */
        struct gs_cluster *c = gs_cluster_clone(cl);
        assert_int_equal(gs_cluster_alloc(c, &out, NULL), 0);
        gs_cluster_destroy(c);
    }
    /* a view: only GPU 7 counts, as if empty */
    const uint64_t view[1] = { 0x80 };
    struct gs_request req = whole(1, AUTO, -1);
    req.milli = 400;
    struct want_part g7[2] = { { "n1", 0x80 }, { 0 } };
    expect_place("shared in view", cl, view, &req, PACK, 0, g7);
    gs_cluster_destroy(cl);
}

/* No GPU has the share or the memory: refused. */
static void test_shared_gpu_full(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:2");
    take_share(cl, "n1", 0, 700, 1000);
    take_share(cl, "n1", 1, 100, 80000);
    struct gs_request req = whole(1, AUTO, -1);
    req.milli = 400;
    req.mem_mib = 2000;
    /* GPU 0: 300 free < 400; GPU 1: 900 free but 1920 MiB < 2000 */
    expect_place("no share", cl, NULL, &req, PACK, GS_ENOSPC, NULL);
    /* a whole GPU: none is idle */
    struct gs_request w = whole(1, AUTO, -1);
    expect_place("no idle GPU", cl, NULL, &w, PACK, GS_ENOSPC, NULL);
    gs_cluster_destroy(cl);
}

/* Malformed requests fail with GS_EINVAL. */
static void test_bad_requests(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    static const struct {
        const char *what;
        int gpus, milli, cap;
    } rows[] = {
        { "0 GPUs", 0, 1000, 2 },
        { "negative GPUs", -1, 1000, 2 },
        { "share 0", 1, 0, 2 },
        { "share above 1000", 1, 1001, 2 },
        { "share with 2 GPUs", 2, 500, 2 },
        { "no room for parts", 1, 1000, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_request req = whole(rows[i].gpus, AUTO, -1);
        req.milli = rows[i].milli;
        struct gs_alloc_part p[2];
        struct gs_alloc out = { .nparts = 0, .cap = rows[i].cap, .parts = p };
        struct gs_error err = { 0 };
        int rc = gs_place(cl, NULL, &req, PACK, &out, &err);
        if (rc != GS_EINVAL)
            fail_msg("%s: got %s want EINVAL", rows[i].what, gs_strerror(rc));
        assert_int_equal(err.code, GS_EINVAL);
    }
    gs_cluster_destroy(cl);
}

/* gs_place_possible: would the request fit the empty cluster. */
static void test_place_possible(void **state)
{
    (void)state;
    static const struct {
        const char *desc;
        int gpus, topology, milli, gpu_type;
        int expect;
    } rows[] = {
        { SEED_SPLIT, 8, AUTO, 1000, -1, 1 },    /* node-1's island of 8 */
        { "n1:8", 8, AUTO, 1000, -1, 1 },
        { "n1:8", 9, AUTO, 1000, -1, 0 },        /* larger than the cluster */
        { "n1:8 n2:8", 16, AUTO, 1000, -1, 1 },  /* two whole nodes */
        { "n1:8 n2:8", 17, AUTO, 1000, -1, 0 },
        { "n1:8:[4,4]", 8, AUTO, 1000, -1, 1 },  /* two whole islands */
        { "n1:8:[4,4]", 8, DOMAIN, 1000, -1, 0 },/* 8 > largest domain 4 */
        { "n1:8:[4,4]", 5, DOMAIN, 1000, -1, 0 },
        { "n1:8:[4,4]", 4, DOMAIN, 1000, -1, 1 },
        { "n1:8:[4,4]", 1, AUTO, 500, -1, 1 },   /* a shared GPU */
        { "n1:8:[8]:H100", 1, AUTO, 1000, 1, 0 },/* no A100 in the cluster */
        { "n1:8:[8]:A100", 1, AUTO, 1000, 1, 1 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_cluster *cl = cluster_of(rows[i].desc);
        /* the live state does not matter: fill the cluster */
        for (int n = 0; n < gs_cluster_node_count(cl); n++)
            take(cl, gs_cluster_node_name(cl, n), gs_cluster_full_view(cl)[n]);
        struct gs_request req = whole(rows[i].gpus, rows[i].topology, rows[i].gpu_type);
        req.milli = rows[i].milli;
        struct gs_alloc_part p[4];
        struct gs_alloc s = { .nparts = 0, .cap = gs_cluster_node_count(cl), .parts = p };
        int got = gs_place_possible(cl, &req, &s);
        if (got != rows[i].expect)
            fail_msg("row %zu (%s, %d GPUs): got %d want %d", i, rows[i].desc, rows[i].gpus,
                     got, rows[i].expect);
        assert_int_equal(gs_cluster_stats(cl).idle_gpus, 0);
        gs_cluster_destroy(cl);
    }
}

/* gs_place_topology resolves AUTO by the largest domain. */
static void test_place_topology(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8:[4,4] n2:8:[4,4]");
    static const struct {
        int gpus, topology, expect;
    } rows[] = {
        { 4, AUTO, DOMAIN },   /* fits the largest domain (4) */
        { 1, AUTO, DOMAIN },
        { 5, AUTO, AUTO },     /* whole-domain rule */
        { 12, AUTO, AUTO },
        { 2, NODE, NODE },
        { 2, ANY, ANY },
        { 6, DOMAIN, DOMAIN },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_request req = whole(rows[i].gpus, rows[i].topology, -1);
        assert_int_equal(gs_place_topology(cl, &req), rows[i].expect);
    }
    gs_cluster_destroy(cl);
}

/* The strategy registry (place.c) holds one ops table per row of
 * GS_PLACE_STRATEGIES, under the name the policy parser accepts, with
 * both scores; the fit rule of each is the one docs/placement.md states
 * (pack, topo, frag best fit; spread worst fit; first_fit node order).
 * Regression: a row whose ops table names another strategy would parse
 * "spread" and place by something else. */
static void test_strategy_registry(void **state)
{
    (void)state;
    static const int fit[GS_PLACE_COUNT] = {
        [GS_PLACE_PACK] = GS_PLACE_FIT_BEST,   [GS_PLACE_SPREAD] = GS_PLACE_FIT_WORST,
        [GS_PLACE_TOPO] = GS_PLACE_FIT_BEST,   [GS_PLACE_FRAG] = GS_PLACE_FIT_BEST,
        [GS_PLACE_FIRST_FIT] = GS_PLACE_FIT_FIRST,
    };
    for (int i = 0; i < GS_PLACE_COUNT; i++) {
        const struct gs_place_ops *ops = gs_place_ops_of(i);
        assert_non_null(ops);
        assert_string_equal(ops->name, gs_policy_strategy_name(i));
        assert_non_null(ops->score_whole);
        assert_non_null(ops->score_shared);
        assert_int_equal(gs_place_fit(i), fit[i]);
        assert_true(!ops->indexed || ops->fit != GS_PLACE_FIT_FIRST);
        assert_true(ops->shared[0] != 0);
    }
    assert_null(gs_place_ops_of(-1));
    assert_null(gs_place_ops_of(GS_PLACE_COUNT));
    struct gs_cluster *cl = cluster_of(SEED);
    struct gs_alloc_part parts[4];
    struct gs_alloc out = { 0 };
    out.parts = parts;
    out.cap = 4;
    struct gs_request req = whole(1, AUTO, -1);
    assert_int_equal(gs_place(cl, NULL, &req, GS_PLACE_COUNT, &out, NULL), GS_ENOTSUP);
    assert_int_equal(gs_place(cl, NULL, &req, GS_PLACE_FIRST_FIT, &out, NULL), 0);
    gs_cluster_destroy(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_best_fit),
        cmocka_unit_test(test_spread_most_idle),
        cmocka_unit_test(test_pack_island_choice),
        cmocka_unit_test(test_topology_rule),
        cmocka_unit_test(test_larger_than_node),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_first_fit),
        cmocka_unit_test(test_gpu_type),
        cmocka_unit_test(test_whole_gpu_memory),
        cmocka_unit_test(test_view_overrides_live_state),
        cmocka_unit_test(test_shared_gpu),
        cmocka_unit_test(test_shared_gpu_full),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_place_possible),
        cmocka_unit_test(test_place_topology),
        cmocka_unit_test(test_strategy_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* plctestutil.h - helpers for the placement-strategy tests (test_place_topo,
 * test_place_frag, test_mig, test_fill).  Include after testutil.h.
 *
 *   struct gs_request r = req_whole(2, GS_TOPO_AUTO);
 *   struct placed p = place_ok(cl, &r, GS_PLACE_TOPO);   fails the test on error
 *   expect_one(&p, cl, "n2", 0x03);                       one part, that node and mask
 *   commit(cl, &p);                                       take it from the cluster
 *   cluster_racks("n1:8:r1 n2:8:r1 n3:8:r2")              nodes with rack labels
 */
#ifndef GS_TESTS_PLCTESTUTIL_H
#define GS_TESTS_PLCTESTUTIL_H

#include "core/place/place.h"
#include "core/policy/policy.h"

#define PT_MAX_PARTS 16

struct placed {
    int rc;
    struct gs_alloc a;
    struct gs_alloc_part parts[PT_MAX_PARTS];
};

static inline struct gs_request req_whole(int gpus, int topology)
{
    struct gs_request r;
    memset(&r, 0, sizeof r);
    r.gpus = gpus;
    r.milli = GS_MILLI_GPU;
    r.mem_mib = -1;
    r.topology = topology;
    r.gpu_type = -1;
    return r;
}

static inline struct gs_request req_share(int milli)
{
    struct gs_request r = req_whole(1, GS_TOPO_AUTO);
    r.milli = milli;
    return r;
}

/* gs_place into `p` (returns the code). */
static inline int place_try(const struct gs_cluster *cl, const struct gs_request *r, int strategy,
                            struct placed *p)
{
    memset(p, 0, sizeof *p);
    p->a.parts = p->parts;
    p->a.cap = PT_MAX_PARTS;
    p->rc = gs_place(cl, NULL, r, strategy, &p->a, NULL);
    return p->rc;
}

static inline struct placed place_ok(const struct gs_cluster *cl, const struct gs_request *r,
                                     int strategy)
{
    struct placed p;
    if (place_try(cl, r, strategy, &p) != 0)
        fail_msg("gs_place(%s) = %s", gs_policy_strategy_name(strategy), gs_strerror(p.rc));
    p.a.parts = p.parts; /* the struct moved */
    return p;
}

/* Node and mask of part `i`. */
static inline void expect_part(const struct placed *p, const struct gs_cluster *cl, int i,
                               const char *node, uint64_t mask)
{
    if (i >= p->a.nparts)
        fail_msg("no part %d (have %d)", i, p->a.nparts);
    const char *got = gs_cluster_node_name(cl, p->parts[i].node);
    if (strcmp(got, node) != 0 || p->parts[i].mask != mask)
        fail_msg("part %d: got %s %#llx, want %s %#llx", i, got,
                 (unsigned long long)p->parts[i].mask, node, (unsigned long long)mask);
}

static inline void expect_one(const struct placed *p, const struct gs_cluster *cl,
                              const char *node, uint64_t mask)
{
    assert_int_equal(p->a.nparts, 1);
    expect_part(p, cl, 0, node, mask);
}

/* Take a placement from the cluster. */
static inline void commit(struct gs_cluster *cl, struct placed *p)
{
    struct gs_error err = { 0 };
    p->a.parts = p->parts;
    if (gs_cluster_alloc(cl, &p->a, &err) < 0)
        fail_msg("commit: %s", err.msg);
}

/* Nodes "name:gpus:rack" (rack "-" = none), all H100, one domain each. */
static inline struct gs_cluster *cluster_racks(const char *desc, int k)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_create();
    assert_non_null(cl);
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err), 0);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", desc);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char name[32], rack[32];
        int gpus;
        if (sscanf(tok, "%31[^:]:%d:%31s", name, &gpus, rack) != 3)
            fail_msg("bad node token %s", tok);
        struct gs_node_spec s;
        memset(&s, 0, sizeof s);
        s.name = name;
        s.gpus = gpus;
        s.gpu_type = 0;
        s.rack = strcmp(rack, "-") ? rack : NULL;
        if (gs_cluster_add_node(cl, &s, &err) < 0)
            fail_msg("add %s: %s", tok, err.msg);
    }
    if (gs_cluster_seal(cl, k, &err) < 0)
        fail_msg("seal: %s", err.msg);
    return cl;
}

#endif

/* test_placement.c - the placement codec (io/placement.h): the five
 * written styles, round trips through the parse, the grammar's corners and
 * every parse error, each naming its byte offset and its problem.
 *
 * Cluster: n1 with 8 GPUs, n2 with 4, node-10 with 64 (GPU 63 exists).
 * The placement used throughout: n1 GPUs 0, 1, 2, 5; n2 GPU 3;
 * node-10 GPUs 62, 63.  Written by hand in each style:
 *   LIST   "n1:0,n1:1,n1:2,n1:5,n2:3,node-10:62,node-10:63"
 *   WORDS  the same with spaces
 *   NODES  "n1:0,1,2,5 n2:3 node-10:62,63"
 *   RANGES "n1:0-2,5 n2:3 node-10:62-63"
 *   RUNS   "n1:0-2,n1:5,n2:3,node-10:62-63"
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/placement.h"
#include "testutil.h"

static const char *const want[] = {
    [GS_PLACEMENT_LIST] = "n1:0,n1:1,n1:2,n1:5,n2:3,node-10:62,node-10:63",
    [GS_PLACEMENT_WORDS] = "n1:0 n1:1 n1:2 n1:5 n2:3 node-10:62 node-10:63",
    [GS_PLACEMENT_NODES] = "n1:0,1,2,5 n2:3 node-10:62,63",
    [GS_PLACEMENT_RANGES] = "n1:0-2,5 n2:3 node-10:62-63",
    [GS_PLACEMENT_RUNS] = "n1:0-2,n1:5,n2:3,node-10:62-63",
};

static struct gs_cluster *three(void)
{
    return cluster_of("n1:8 n2:4 node-10:64");
}

static void the_parts(const struct gs_cluster *cl, struct gs_alloc_part *p)
{
    p[0] = (struct gs_alloc_part){ node_of(cl, "n1"), 0x27 };
    p[1] = (struct gs_alloc_part){ node_of(cl, "n2"), 0x08 };
    p[2] = (struct gs_alloc_part){ node_of(cl, "node-10"), 3ULL << 62 };
}

static void assert_parts(const struct gs_alloc_part *got, int n, const struct gs_alloc_part *w)
{
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(got[i].node, w[i].node);
        if (got[i].mask != w[i].mask)
            fail_msg("part %d: mask %#llx, want %#llx", i, (unsigned long long)got[i].mask,
                     (unsigned long long)w[i].mask);
    }
}

/* Each style writes the hand-written text, and every text parses back to
 * the same parts (resolved) and the same entries (by name). */
static void test_styles_round_trip(void **state)
{
    (void)state;
    struct gs_cluster *cl = three();
    struct gs_alloc_part parts[3], got[4];
    the_parts(cl, parts);
    for (int st = GS_PLACEMENT_LIST; st <= GS_PLACEMENT_RUNS; st++) {
        char buf[128];
        size_t len = gs_placement_format(buf, sizeof buf, cl, parts, 3, st);
        assert_string_equal(buf, want[st]);
        assert_int_equal(len, strlen(want[st]));
        struct gs_error err = { 0 };
        int n = gs_placement_parse(cl, buf, got, 4, &err);
        if (n < 0)
            fail_msg("style %d: %s", st, err.msg);
        assert_parts(got, n, parts);
        struct gs_placement_entry e[4];
        assert_int_equal(gs_placement_scan(buf, e, 4, &err), 3);
        assert_int_equal(e[0].len, 2);
        assert_memory_equal(e[0].name, "n1", 2);
        assert_int_equal(e[0].mask, 0x27);
        assert_int_equal(e[2].len, 7);
        assert_int_equal(e[2].mask, 3ULL << 62);
        char again[128];
        gs_placement_format_entries(again, sizeof again, e, 3, st);
        assert_string_equal(again, want[st]);
    }
    gs_cluster_destroy(cl);
}

/* Every GPU subset of an 8-GPU node, in every style, reads back. */
static void test_all_masks(void **state)
{
    (void)state;
    struct gs_cluster *cl = three();
    for (uint64_t m = 1; m < 256; m++) {
        struct gs_alloc_part p = { node_of(cl, "n1"), m }, got[2];
        for (int st = GS_PLACEMENT_LIST; st <= GS_PLACEMENT_RUNS; st++) {
            char buf[128];
            gs_placement_format(buf, sizeof buf, cl, &p, 1, st);
            struct gs_error err = { 0 };
            if (gs_placement_parse(cl, buf, got, 2, &err) != 1 || got[0].mask != m)
                fail_msg("mask %#llx style %d: '%s' -> %s", (unsigned long long)m, st, buf,
                         err.msg);
        }
    }
    gs_cluster_destroy(cl);
}

/* The grammar's corners: "" and NULL are no GPUs; leading, trailing and
 * repeated spaces; a node named again later adds up in its first place; a
 * node name may hold ':' (the item's last ':' ends it). */
static void test_corners(void **state)
{
    (void)state;
    struct gs_cluster *cl = three();
    struct gs_alloc_part got[4];
    struct gs_error err = { 0 };
    assert_int_equal(gs_placement_parse(cl, "", got, 4, &err), 0);
    assert_int_equal(gs_placement_parse(cl, NULL, got, 4, &err), 0);
    assert_int_equal(gs_placement_parse(cl, "  n1:0   n2:1  ", got, 4, &err), 2);
    assert_int_equal(gs_placement_parse(cl, "n1:0,n2:1,n1:3", got, 4, &err), 2);
    assert_int_equal(got[0].node, node_of(cl, "n1"));
    assert_int_equal(got[0].mask, 0x09);
    assert_int_equal(got[1].mask, 0x02);
    struct gs_placement_entry e[2];
    assert_int_equal(gs_placement_scan("a:b:0-1,3", e, 2, &err), 1);
    assert_int_equal(e[0].len, 3);
    assert_memory_equal(e[0].name, "a:b", 3);
    assert_int_equal(e[0].mask, 0x0B);
    assert_int_equal(e[0].pos, 0);
    assert_int_equal(gs_placement_scan("x:0 yy:1", e, 2, &err), 2);
    assert_int_equal(e[1].pos, 4);
    gs_cluster_destroy(cl);
}

/* Short buffers: snprintf's contract (the needed length, a NUL-terminated
 * prefix); a zero-size buffer writes nothing. */
static void test_truncation(void **state)
{
    (void)state;
    struct gs_cluster *cl = three();
    struct gs_alloc_part parts[3];
    the_parts(cl, parts);
    char buf[8];
    size_t need = strlen(want[GS_PLACEMENT_LIST]);
    assert_int_equal(gs_placement_format(buf, sizeof buf, cl, parts, 3, GS_PLACEMENT_LIST),
                     need);
    assert_string_equal(buf, "n1:0,n1");
    assert_int_equal(gs_placement_format(NULL, 0, cl, parts, 3, GS_PLACEMENT_LIST), need);
    assert_int_equal(gs_placement_format(buf, sizeof buf, cl, parts, 0, GS_PLACEMENT_RANGES),
                     0);
    assert_string_equal(buf, "");
    gs_cluster_destroy(cl);
}

/* Every error: the code and the message (its offset and problem). */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int code;
        const char *msg;
    } bad[] = {
        { "0", GS_EINVAL, "at byte 0: '0' names no node (expected NODE:GPUS)" },
        { ":0", GS_EINVAL, "at byte 0: empty node name" },
        { "n1:0,:1", GS_EINVAL, "at byte 5: empty node name" },
        { "n1:x", GS_EINVAL, "at byte 3: 'x' is not a GPU index 0-63 or a range lo-hi" },
        { "n1:", GS_EINVAL, "at byte 3: '' is not a GPU index" },
        { "n1:1-", GS_EINVAL, "at byte 3: '1-' is not a GPU index" },
        { "n1:-1", GS_EINVAL, "at byte 3: '-1' is not a GPU index" },
        { "n1:64", GS_EINVAL, "at byte 3: '64' is not a GPU index 0-63" },
        { "n1:99999999999999999999", GS_EINVAL, "at byte 3: '99999999999999999999' is not" },
        { "n1:3-1", GS_EINVAL, "at byte 3: the range 3-1 runs backwards" },
        { "n1:0,n1:0", GS_EINVAL, "at byte 5: GPU 0 of n1 given twice" },
        { "n1:0-3,2", GS_EINVAL, "at byte 7: GPU 2 of n1 given twice" },
        { "n1:0,,n1:1", GS_EINVAL, "at byte 5: empty entry after ','" },
        { "n1:0,", GS_EINVAL, "at byte 5: empty entry after ','" },
        { "n1:0, n1:1", GS_EINVAL, "at byte 5: empty entry after ','" },
        { ",n1:0", GS_EINVAL, "at byte 0: empty entry" },
        { "n9:0", GS_EINVAL, "no node 'n9' in the cluster (at byte 0)" },
        { "n1:0 n2:4", GS_EINVAL, "GPU 4 of n2 (at byte 5): n2 has GPUs 0-3" },
        { "n1:0 n2:0 node-10:0", GS_ENOSPC, "at byte 10: more than 2 nodes" },
    };
    struct gs_cluster *cl = three();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gs_alloc_part got[2];
        struct gs_error err = { 0 };
        int rc = gs_placement_parse(cl, bad[i].text, got, 2, &err);
        if (rc != bad[i].code || !strstr(err.msg, bad[i].msg))
            fail_msg("'%s': %d '%s', want %d '%s'", bad[i].text, rc, err.msg, bad[i].code,
                     bad[i].msg);
    }
    /* the name-level scan: its own errors, and the name's length limit */
    struct gs_placement_entry e[1];
    struct gs_error err = { 0 };
    char lng[80];
    memset(lng, 'a', 64);
    strcpy(lng + 64, ":0");
    assert_int_equal(gs_placement_scan(lng, e, 1, &err), GS_EINVAL);
    assert_string_equal(err.msg, "at byte 0: node name longer than 63 bytes");
    assert_int_equal(gs_placement_scan("a:0 b:1", e, 1, &err), GS_ENOSPC);
    assert_string_equal(err.msg, "at byte 4: more than 1 nodes");
    assert_int_equal(gs_placement_scan("n9:0", e, 1, &err), 1); /* no cluster to ask */
    gs_cluster_destroy(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_styles_round_trip),
        cmocka_unit_test(test_all_masks),
        cmocka_unit_test(test_corners),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_profile.c - the availability profile (profile.h), on hand-built
 * states.  The spec (profile.h):
 *
 *   One expected free time per GPU (start + estimate, GS_TIME_INF when the
 *   estimate is unknown) plus reservations, each a set of GPUs held over
 *   [start, end).  A GPU is usable over [t, t+d) when its free time is <= t
 *   and no reservation holding it overlaps [t, t+d).  A running job that has
 *   overrun its estimate is expected to end at any moment: its GPUs count as
 *   free from now + 1 ms.  gs_profile_earliest gives the earliest such t >=
 *   now and the GPUs, or GS_ENOSPC when the job needs GPUs whose free time
 *   is unknown; gs_profile_view_now gives the GPUs idle now that no
 *   reservation overlapping [now, now + dur) holds.
 *
 * Placement rules (place.h): a job that fits the largest NVLink domain
 * takes one domain - the one that can start it first; ties: best fit under
 * pack (fewest usable GPUs left over), most room under spread, then node
 * order; GPUs lowest index first.  A larger job takes whole idle domains of
 * one node (the remainder in the best-fitting domain); a job larger than a
 * node takes whole idle nodes.  Times in seconds (s) unless marked ms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qtestutil.h"
#include "core/place/place.h"
#include "core/place/profile.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))
#define MAXN 4

/* A busy set: `mask` GPUs of `node` expected free at `until_s` (< 0 =
 * unknown). */
struct busy {
    const char *node;
    uint64_t mask;
    double until_s;
};

/* A reservation of `mask` GPUs of `node` over [start_s, end_s). */
struct resv {
    const char *node;
    uint64_t mask;
    double start_s, end_s;
};

struct pfix {
    struct gs_cluster *cl;
    struct gs_profile *p;
};

static void profile_free(void *p)
{
    gs_profile_destroy(p);
}

/* Cluster and profile, both freed after the test (qgc_teardown). */
static void pfix_open(struct pfix *f, const char *desc, const struct busy *b, int nb,
                      const struct resv *r, int nr)
{
    f->cl = qcluster(desc);
    f->p = qgc_keep(gs_profile_create(f->cl), profile_free);
    for (int i = 0; i < nb && b[i].node; i++) {
        take(f->cl, b[i].node, b[i].mask);
        struct gs_alloc_part part = { node_of(f->cl, b[i].node), b[i].mask };
        struct gs_alloc a = { 1, 1, &part, GS_MILLI_GPU, 0, 0, 0, 0, 0 };
        gs_profile_occupy(f->p, &a, b[i].until_s < 0 ? GS_TIME_INF
                                                     : gs_time_from_sec(b[i].until_s));
    }
    for (int i = 0; i < nr && r[i].node; i++) {
        struct gs_alloc_part part = { node_of(f->cl, r[i].node), r[i].mask };
        struct gs_alloc a = { 1, 1, &part, GS_MILLI_GPU, 0, 0, 0, 0, 0 };
        assert_int_equal(gs_profile_reserve(f->p, &a, gs_time_from_sec(r[i].start_s),
                                            gs_time_from_sec(r[i].end_s)),
                         0);
    }
}

/* One gs_profile_earliest question and its hand-derived answer. */
struct ask {
    int gpus, topology, strategy;
    double now_s, dur_s;      /* dur_s < 0: unknown (GS_TIME_INF) */
    int rc;
    gs_time start;            /* ms */
    struct {
        const char *node;
        uint64_t mask;
    } parts[2];
};

static void check_ask(const struct pfix *f, const struct ask *a, const char *what, size_t row)
{
    struct gs_request req = { a->gpus, GS_MILLI_GPU, -1, a->topology, -1, 0, 0, NULL, NULL, 0, 0, NULL };
    struct gs_alloc_part parts[MAXN];
    struct gs_alloc out = { 0, MAXN, parts, 0, 0, 0, 0, 0, 0 };
    gs_time start = -1;
    gs_time dur = a->dur_s < 0 ? GS_TIME_INF : gs_time_from_sec(a->dur_s);
    int rc = gs_profile_earliest(f->p, f->cl, gs_time_from_sec(a->now_s), &req, a->strategy, dur,
                                 &start, &out);
    if (rc != a->rc)
        fail_msg("%s row %zu: rc %s, want %s", what, row, gs_strerror(rc), gs_strerror(a->rc));
    if (rc != 0)
        return;
    if (start != a->start)
        fail_msg("%s row %zu: start %lld ms, want %lld ms", what, row, (long long)start,
                 (long long)a->start);
    int want_n = a->parts[1].node ? 2 : 1;
    if (out.nparts != want_n)
        fail_msg("%s row %zu: %d parts, want %d", what, row, out.nparts, want_n);
    for (int i = 0; i < want_n; i++)
        if (out.parts[i].node != node_of(f->cl, a->parts[i].node) ||
            out.parts[i].mask != a->parts[i].mask)
            fail_msg("%s row %zu: part %d node %d mask %#llx, want %s %#llx", what, row, i,
                     out.parts[i].node, (unsigned long long)out.parts[i].mask,
                     a->parts[i].node, (unsigned long long)a->parts[i].mask);
}

#define PACK GS_PLACE_PACK
#define SPREAD GS_PLACE_SPREAD
#define AUTO GS_TOPO_AUTO

/* Domain fast path (no reservations), two [8] nodes at now 0:
 *   n1 GPUs 0-3 free at 100 s (4-7 idle); n2 GPUs 0-5 free at 50 s (6-7 idle)
 * The g-th smallest free time of each domain is when g GPUs are usable:
 *   8: n1 100, n2 50 -> n2 at 50, all 8
 *   6: n1 100, n2 50 -> n2 at 50, GPUs 0-5
 *   4: n1 0 (4 idle), n2 50 -> n1 at 0, GPUs 4-7
 *   2: both at 0; left over n1 4-2 = 2, n2 2-2 = 0: pack -> n2 6-7,
 *      spread -> n1 4-5
 *   16 (larger than a node: whole nodes): both whole nodes at 100
 * Overrun: at now 80 s, n2's GPUs 0-5 are past their expected end (50 s):
 *   free from now + 1 ms -> 8 GPUs on n2 at 80 001 ms. */
static void test_earliest_fast_path(void **state)
{
    (void)state;
    static const struct busy busy[] = { { "n1", 0x0F, 100 }, { "n2", 0x3F, 50 } };
    static const struct ask rows[] = {
        { 8, AUTO, PACK, 0, 10, 0, SEC(50), { { "n2", 0xFF }, { NULL, 0 } } },
        { 6, AUTO, PACK, 0, 10, 0, SEC(50), { { "n2", 0x3F }, { NULL, 0 } } },
        { 4, AUTO, PACK, 0, 10, 0, 0, { { "n1", 0xF0 }, { NULL, 0 } } },
        { 2, AUTO, PACK, 0, 10, 0, 0, { { "n2", 0xC0 }, { NULL, 0 } } },
        { 2, AUTO, SPREAD, 0, 10, 0, 0, { { "n1", 0x30 }, { NULL, 0 } } },
        { 16, AUTO, PACK, 0, 10, 0, SEC(100), { { "n1", 0xFF }, { "n2", 0xFF } } },
        { 8, AUTO, PACK, 80, 10, 0, SEC(80) + 1, { { "n2", 0xFF }, { NULL, 0 } } },
        /* unknown run time: nothing reserved, so the same answers */
        { 8, AUTO, PACK, 0, -1, 0, SEC(50), { { "n2", 0xFF }, { NULL, 0 } } },
    };
    struct pfix f;
    pfix_open(&f, "n1:8 n2:8", busy, 2, NULL, 0);
    for (size_t r = 0; r < NROWS(rows); r++)
        check_ask(&f, &rows[r], "fast", r);
}

/* [4,4] node, now 0: GPUs 0-1 free at 100 s, GPUs 4-7 at 30 s (2-3 idle).
 *   4 GPUs (one domain): domain 0 at 100, domain 1 at 30 -> 4-7 at 30
 *   3 GPUs: domain 0 at 100, domain 1 at 30 -> 4-6 at 30
 *   2 GPUs: domain 0 at 0 (2-3 idle) -> 2-3 at 0
 *   8 GPUs (whole node): all free at 100 -> 0-7 at 100
 *   6 GPUs (whole domains + remainder): at 0 only 2 idle; at 30 GPUs 2-7:
 *     whole idle domain 1 (4-7), remainder 2 in domain 0 (2-3) -> 0xFC
 *   3 GPUs topology node (one node, best single domain): at 30 domain 1
 *     (4 usable) -> 4-6
 *   8 GPUs topology domain: never fits a 4-GPU domain -> GS_ENOSPC */
static void test_earliest_split_domains(void **state)
{
    (void)state;
    static const struct busy busy[] = { { "n1", 0x03, 100 }, { "n1", 0xF0, 30 } };
    static const struct ask rows[] = {
        { 4, AUTO, PACK, 0, 10, 0, SEC(30), { { "n1", 0xF0 }, { NULL, 0 } } },
        { 3, AUTO, PACK, 0, 10, 0, SEC(30), { { "n1", 0x70 }, { NULL, 0 } } },
        { 2, AUTO, PACK, 0, 10, 0, 0, { { "n1", 0x0C }, { NULL, 0 } } },
        { 8, AUTO, PACK, 0, 10, 0, SEC(100), { { "n1", 0xFF }, { NULL, 0 } } },
        { 6, AUTO, PACK, 0, 10, 0, SEC(30), { { "n1", 0xFC }, { NULL, 0 } } },
        { 3, GS_TOPO_NODE, PACK, 0, 10, 0, SEC(30), { { "n1", 0x70 }, { NULL, 0 } } },
        { 8, GS_TOPO_DOMAIN, PACK, 0, 10, GS_ENOSPC, 0, { { NULL, 0 }, { NULL, 0 } } },
    };
    struct pfix f;
    pfix_open(&f, "n1:8:[4,4]", busy, 2, NULL, 0);
    for (size_t r = 0; r < NROWS(rows); r++)
        check_ask(&f, &rows[r], "split", r);
}

/* Unknown estimates: a GPU busy with an unknown free time is never
 * usable.  Two [8] nodes, now 0: n1 GPU 0 unknown; n2 GPUs 0-7 free at 40 s.
 *   8 GPUs: n1 never, n2 at 40 -> n2
 *   7 GPUs: n1 at 0 (GPUs 1-7) -> n1
 *   16 GPUs: needs n1 whole -> GS_ENOSPC
 * [4,4] node, GPU 0 unknown:
 *   8 GPUs (whole node): GS_ENOSPC
 *   6 GPUs: domain 1 whole + 2 of domain 0's idle 1-3 -> 0xF6 at 0
 *   4 GPUs: domain 1 at 0 -> 0xF0 */
static void test_earliest_unknown(void **state)
{
    (void)state;
    static const struct busy busy2[] = { { "n1", 0x01, -1 }, { "n2", 0xFF, 40 } };
    static const struct ask rows2[] = {
        { 8, AUTO, PACK, 0, 10, 0, SEC(40), { { "n2", 0xFF }, { NULL, 0 } } },
        { 7, AUTO, PACK, 0, 10, 0, 0, { { "n1", 0xFE }, { NULL, 0 } } },
        { 16, AUTO, PACK, 0, 10, GS_ENOSPC, 0, { { NULL, 0 }, { NULL, 0 } } },
    };
    struct pfix f;
    pfix_open(&f, "n1:8 n2:8", busy2, 2, NULL, 0);
    for (size_t r = 0; r < NROWS(rows2); r++)
        check_ask(&f, &rows2[r], "unknown", r);

    static const struct busy busy1[] = { { "n1", 0x01, -1 } };
    static const struct ask rows1[] = {
        { 8, AUTO, PACK, 0, 10, GS_ENOSPC, 0, { { NULL, 0 }, { NULL, 0 } } },
        { 6, AUTO, PACK, 0, 10, 0, 0, { { "n1", 0xF6 }, { NULL, 0 } } },
        { 4, AUTO, PACK, 0, 10, 0, 0, { { "n1", 0xF0 }, { NULL, 0 } } },
    };
    pfix_open(&f, "n1:8:[4,4]", busy1, 1, NULL, 0);
    for (size_t r = 0; r < NROWS(rows1); r++)
        check_ask(&f, &rows1[r], "unknown [4,4]", r);
}

/* The reservation path.  One idle [8] node; GPUs 0-3 reserved over
 * [100 s, 200 s).  A job of run time d starting at t may use them only if
 * [t, t+d) does not overlap the reservation; candidate times are now and
 * the reservation's end.
 *   4 GPUs d 50:  [0, 50) clear -> 0-3 at 0 (lowest of all 8 usable)
 *   4 GPUs d 150: overlaps -> the free 4-7 at 0
 *   8 GPUs d 100: [0, 100) ends as the reservation starts -> 0-7 at 0
 *   8 GPUs d 150: only 4 usable at 0 -> 0-7 at 200
 *   6 GPUs d 150: -> 0-5 at 200
 *   4 GPUs unknown d: overlaps every later reservation -> 4-7 at 0
 *   8 GPUs unknown d: at 200 nothing is reserved any more -> 0-7 at 200
 * [4,4] version (domain 0 is exactly the reserved GPUs 0-3):
 *   8 GPUs d 150 (whole-node rule, generic path): 0-7 at 200
 *   6 GPUs d 150: at 0 only domain 1 is usable (4 < 6); at 200 whole idle
 *     domain 0 first (index order), then 2 of domain 1 -> 0x3F at 200
 *   6 GPUs d 100: clear of the reservation -> the same GPUs at 0
 *   4 GPUs d 150: domain 0 only at 200, domain 1 at 0 -> 4-7 at 0 */
static void test_earliest_with_reservation(void **state)
{
    (void)state;
    static const struct resv res[] = { { "n1", 0x0F, 100, 200 } };
    static const struct ask rows[] = {
        { 4, AUTO, PACK, 0, 50, 0, 0, { { "n1", 0x0F }, { NULL, 0 } } },
        { 4, AUTO, PACK, 0, 150, 0, 0, { { "n1", 0xF0 }, { NULL, 0 } } },
        { 8, AUTO, PACK, 0, 100, 0, 0, { { "n1", 0xFF }, { NULL, 0 } } },
        { 8, AUTO, PACK, 0, 150, 0, SEC(200), { { "n1", 0xFF }, { NULL, 0 } } },
        { 6, AUTO, PACK, 0, 150, 0, SEC(200), { { "n1", 0x3F }, { NULL, 0 } } },
        { 4, AUTO, PACK, 0, -1, 0, 0, { { "n1", 0xF0 }, { NULL, 0 } } },
        { 8, AUTO, PACK, 0, -1, 0, SEC(200), { { "n1", 0xFF }, { NULL, 0 } } },
    };
    struct pfix f;
    pfix_open(&f, "n1:8", NULL, 0, res, 1);
    assert_int_equal(gs_profile_reservations(f.p), 1);
    for (size_t r = 0; r < NROWS(rows); r++)
        check_ask(&f, &rows[r], "reserved", r);

    static const struct ask rows44[] = {
        { 8, AUTO, PACK, 0, 150, 0, SEC(200), { { "n1", 0xFF }, { NULL, 0 } } },
        { 6, AUTO, PACK, 0, 150, 0, SEC(200), { { "n1", 0x3F }, { NULL, 0 } } },
        { 6, AUTO, PACK, 0, 100, 0, 0, { { "n1", 0x3F }, { NULL, 0 } } },
        { 4, AUTO, PACK, 0, 150, 0, 0, { { "n1", 0xF0 }, { NULL, 0 } } },
    };
    pfix_open(&f, "n1:8:[4,4]", NULL, 0, res, 1);
    for (size_t r = 0; r < NROWS(rows44); r++)
        check_ask(&f, &rows44[r], "reserved [4,4]", r);
}

/* Fast path and reservation path compete.  Two [8] nodes, now 0: n1 all
 * busy until 60 s; n2 idle but wholly reserved over [30 s, 90 s).
 *   8 GPUs d 40: n2's [0, 40) overlaps -> n2 only at 90; n1 at 60 -> n1
 *   8 GPUs d 30: n2's [0, 30) ends as the reservation starts -> n2 at 0 */
static void test_earliest_paths_compete(void **state)
{
    (void)state;
    static const struct busy busy[] = { { "n1", 0xFF, 60 } };
    static const struct resv res[] = { { "n2", 0xFF, 30, 90 } };
    static const struct ask rows[] = {
        { 8, AUTO, PACK, 0, 40, 0, SEC(60), { { "n1", 0xFF }, { NULL, 0 } } },
        { 8, AUTO, PACK, 0, 30, 0, 0, { { "n2", 0xFF }, { NULL, 0 } } },
        { 4, AUTO, PACK, 0, 100, 0, SEC(60), { { "n1", 0x0F }, { NULL, 0 } } },
    };
    struct pfix f;
    pfix_open(&f, "n1:8 n2:8", busy, 1, res, 1);
    for (size_t r = 0; r < NROWS(rows); r++)
        check_ask(&f, &rows[r], "compete", r);
}

/* gs_profile_earliest never changes the profile: asking twice gives the
 * same answer, and it does not reserve. */
static void test_earliest_is_pure(void **state)
{
    (void)state;
    static const struct busy busy[] = { { "n1", 0x0F, 100 } };
    static const struct ask a = { 8, AUTO, PACK, 0, 10, 0, SEC(100),
                                  { { "n1", 0xFF }, { NULL, 0 } } };
    struct pfix f;
    pfix_open(&f, "n1:8", busy, 1, NULL, 0);
    check_ask(&f, &a, "pure", 0);
    check_ask(&f, &a, "pure", 1);
    assert_int_equal(gs_profile_reservations(f.p), 0);
    struct gs_request bad = { 0, GS_MILLI_GPU, -1, AUTO, -1, 0, 0, NULL, NULL, 0, 0, NULL };
    struct gs_alloc_part parts[MAXN];
    struct gs_alloc out = { 0, MAXN, parts, 0, 0, 0, 0, 0, 0 };
    gs_time start;
    /* must fail: a request without GPUs cannot be planned */
    assert_int_equal(gs_profile_earliest(f.p, f.cl, 0, &bad, PACK, SEC(10), &start, &out),
                     GS_ENOSPC);
}

/* view_now: idle GPUs minus those held by reservations overlapping
 * [now, now + dur) - only those.  Two [8] nodes; n1 GPU 7 busy; R1 holds
 * n1 0-3 over [100, 200), R2 all of n2 over [300, 400), R3 n2 GPU 0 over
 * the zero-length [350, 350) (counts at its instant). */
static void test_view_now(void **state)
{
    (void)state;
    static const struct busy busy[] = { { "n1", 0x80, 500 } };
    static const struct resv res[] = {
        { "n1", 0x0F, 100, 200 }, { "n2", 0xFF, 300, 400 }, { "n2", 0x01, 350, 350 } };
    static const struct {
        double now_s, dur_s; /* dur < 0: unknown */
        uint64_t n1, n2;
    } rows[] = {
        { 0, 100, 0x7F, 0xFF },  /* ends as R1 starts */
        { 0, 101, 0x70, 0xFF },  /* overlaps R1 */
        { 0, 301, 0x70, 0x00 },  /* R1 and R2 */
        { 0, -1, 0x70, 0x00 },   /* unknown: every later reservation */
        { 150, 10, 0x70, 0xFF }, /* inside R1 */
        { 200, 10, 0x7F, 0xFF }, /* R1 ended at 200 */
        { 250, 50, 0x7F, 0xFF }, /* ends as R2 starts */
        { 250, 60, 0x7F, 0x00 },
        { 400, 10, 0x7F, 0xFF }, /* all over */
        { 350, 1, 0x7F, 0x00 },  /* R2 and the zero-length R3 */
    };
    struct pfix f;
    pfix_open(&f, "n1:8 n2:8", busy, 1, res, 3);
    assert_int_equal(gs_profile_reservations(f.p), 3);
    assert_int_equal(gs_profile_reserved_mask(f.p, 0), 0x0F);
    assert_int_equal(gs_profile_reserved_mask(f.p, 1), 0xFF);
    for (size_t r = 0; r < NROWS(rows); r++) {
        uint64_t view[2] = { 0, 0 };
        gs_time dur = rows[r].dur_s < 0 ? GS_TIME_INF : gs_time_from_sec(rows[r].dur_s);
        gs_profile_view_now(f.p, f.cl, gs_time_from_sec(rows[r].now_s), dur, view);
        if (view[0] != rows[r].n1 || view[1] != rows[r].n2)
            fail_msg("row %zu: view %#llx %#llx, want %#llx %#llx", r,
                     (unsigned long long)view[0], (unsigned long long)view[1],
                     (unsigned long long)rows[r].n1, (unsigned long long)rows[r].n2);
    }
    /* a zero-length reservation is not seen from a window that starts after
     * it, nor from one that ends at it */
    static const struct resv zero[] = { { "n1", 0x01, 100, 100 } };
    pfix_open(&f, "n1:8", NULL, 0, zero, 1);
    static const struct {
        double now_s, dur_s;
        uint64_t n1;
    } zrows[] = {
        { 0, 100, 0xFF }, { 0, 101, 0xFE }, { 100, 1, 0xFE }, { 101, 10, 0xFF },
    };
    for (size_t r = 0; r < NROWS(zrows); r++) {
        uint64_t view[1] = { 0 };
        gs_profile_view_now(f.p, f.cl, gs_time_from_sec(zrows[r].now_s),
                            gs_time_from_sec(zrows[r].dur_s), view);
        if (view[0] != zrows[r].n1)
            fail_msg("zero-length row %zu: view %#llx, want %#llx", r,
                     (unsigned long long)view[0], (unsigned long long)zrows[r].n1);
    }
    /* clearing drops every reservation */
    gs_profile_clear(f.p);
    assert_int_equal(gs_profile_reservations(f.p), 0);
    assert_int_equal(gs_profile_reserved_mask(f.p, 0), 0);
    uint64_t view[1] = { 0 };
    gs_profile_view_now(f.p, f.cl, SEC(100), SEC(1), view);
    assert_int_equal(view[0], 0xFF);
}

/* A GPU shared by several jobs is free when the last one ends, and becomes
 * free now only once nothing runs on it.  One [8] node; GPUs 0-6 idle;
 * GPU 7 holds two half shares expected to end at 100 s and 50 s.
 *   8 GPUs: at 100 (the later end, whatever the order of occupy calls)
 *   one share released: GPU 7 still in use -> still 100
 *   both released: idle -> 8 GPUs now (0) */
static void test_occupy_vacate_shared(void **state)
{
    (void)state;
    static const struct ask at100 = { 8, AUTO, PACK, 0, 10, 0, SEC(100),
                                      { { "n1", 0xFF }, { NULL, 0 } } };
    static const struct ask at0 = { 8, AUTO, PACK, 0, 10, 0, 0,
                                    { { "n1", 0xFF }, { NULL, 0 } } };
    struct pfix f;
    pfix_open(&f, "n1:8", NULL, 0, NULL, 0);
    struct gs_alloc_part part = { 0, 0x80 };
    struct gs_alloc half = { 1, 1, &part, 500, TU_H100_MIB / 2, 0, 0, 0, 0 };
    take_share(f.cl, "n1", 7, 500, TU_H100_MIB / 2);
    gs_profile_occupy(f.p, &half, SEC(100));
    take_share(f.cl, "n1", 7, 500, TU_H100_MIB / 2);
    gs_profile_occupy(f.p, &half, SEC(50));
    check_ask(&f, &at100, "shared", 0);
    assert_int_equal(gs_cluster_release(f.cl, &half, NULL), 0);
    gs_profile_vacate(f.p, f.cl, &half);
    check_ask(&f, &at100, "shared", 1);
    assert_int_equal(gs_cluster_release(f.cl, &half, NULL), 0);
    gs_profile_vacate(f.p, f.cl, &half);
    check_ask(&f, &at0, "shared", 2);
    gs_profile_destroy(NULL); /* no-op */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QTEST(test_earliest_fast_path),
        QTEST(test_earliest_split_domains),
        QTEST(test_earliest_unknown),
        QTEST(test_earliest_with_reservation),
        QTEST(test_earliest_paths_compete),
        QTEST(test_earliest_is_pure),
        QTEST(test_view_now),
        QTEST(test_occupy_vacate_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

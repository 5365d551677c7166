/* test_import_aaic.c - the AAIC log converter (io/import_aaic.c).
 *
 * Every expected number is derived by hand in a comment from the rows of
 * the test.  The real logs are read only by tests/cli/import.t. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/policy/policy.h"
#include "io/import_aaic.h"
#include "io/ioutil.h"
#include "io/trace_csv.h"
#include "failtestutil.h"

#define SEC(s) ((gs_time)(s) * GS_MS_PER_SEC)
#define HDR "id, user, group, queue, nodes, gpus, walltime_req, termcode, time_submit, " \
            "time_start, time_end, waittime, walltime\n"

static void parse_ok(const char *csv, struct gs_aaic_result *r)
{
    struct gs_error err = { 0 };
    if (gs_aaic_parse(csv, strlen(csv), "q.csv", r, &err) < 0)
        fail_msg("parse failed: %s", err.msg);
}

static const struct gs_job_spec *job(const struct gs_aaic_result *r, size_t i)
{
    assert_true(i < gs_trace_count(r->trace));
    return gs_trace_job(r->trace, i);
}

/* One row converts field by field. */
static void test_one_row(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "0, 3, 1, 2, 1, 5, 900, 0, 1499997050, 1499997056, 1499997063, 6, 7\n", &r);
    assert_int_equal(r.stats.rows, 1);
    assert_int_equal(r.stats.jobs, 1);
    const struct gs_job_spec *s = job(&r, 0);
    assert_string_equal(s->id, "0");
    assert_int_equal(s->submit, 0);            /* the only submit is the minimum */
    assert_int_equal(gs_trace_duration(r.trace, 0), SEC(7));  /* walltime */
    assert_int_equal(s->gpus, 5);               /* one node: 1 x 5, may share */
    assert_int_equal(s->topology, GS_TOPO_AUTO);
    assert_int_equal(s->time_limit, SEC(900));  /* walltime_req */
    assert_string_equal(s->team, "g1");
    assert_string_equal(s->user, "u3");
    assert_string_equal(s->queue, "2");
    assert_string_equal(s->name, "-");
    assert_int_equal(r.observed_wait[0], SEC(6));
    assert_int_equal(r.termcode[0], 0);
    assert_int_equal(r.nodes[0], 1);
    assert_int_equal(r.stats.submit_min, 1499997050);
    gs_aaic_result_fini(&r);
}

/* Rows whose fields other than id are identical are dropped, whatever the
 * padding; the first in file order stays.  A row that differs in one field
 * (here walltime 101) is not a duplicate. */
static void test_duplicates_dropped(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "7, 0, 0, 0, 1, 8, 600, 0, 100, 105, 206, 5, 101\n"
                 "3, 0, 0, 0, 1, 8, 600, 0, 100, 105, 206, 5, 100\n"
                 "4,0,0,0,1,8,600,0,100,105,206,5,100\n"
                 "5, 0, 0, 0, 1, 8, 600, 0, 100, 105, 206, 5, 100\n",
             &r);
    assert_int_equal(r.stats.rows, 4);
    assert_int_equal(r.stats.duplicates, 2);    /* 4 and 5 repeat 3 */
    assert_int_equal(r.stats.jobs, 2);
    /* same submit: ordered by id -> 3 then 7 */
    assert_string_equal(job(&r, 0)->id, "3");
    assert_string_equal(job(&r, 1)->id, "7");
    assert_int_equal(gs_trace_duration(r.trace, 1), SEC(101));
    gs_aaic_result_fini(&r);
}

/* Multi-node jobs take whole 8-GPU nodes: 2 nodes x 4 GPUs -> 16 GPUs; a
 * 3 x 8 job -> 24; one node keeps its count. */
static void test_whole_nodes(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "1, 0, 0, 0, 2, 4, 600, 0, 0, 0, 100, 0, 100\n"
                 "2, 0, 0, 0, 3, 8, 600, 0, 1, 1, 101, 0, 100\n"
                 "3, 0, 0, 0, 1, 3, 600, 0, 2, 2, 102, 0, 100\n",
             &r);
    assert_int_equal(job(&r, 0)->gpus, 16);
    assert_int_equal(job(&r, 1)->gpus, 24);
    assert_int_equal(job(&r, 2)->gpus, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(job(&r, (size_t)i)->topology, GS_TOPO_AUTO);
    assert_int_equal(r.nodes[0], 2);
    assert_int_equal(r.stats.multi_node, 2);
    assert_int_equal(r.stats.multi_node_partial, 1);  /* only 2 x 4 asked < 8 per node */
    /* logged GPU-s: 2*4*100 + 3*8*100 + 3*100 = 800 + 2400 + 300 = 3500;
     * on whole nodes 1600 + 2400 + 300 = 4300 */
    assert_true(fabs(r.stats.gpu_hours - 3500 / 3600.0) < 1e-9);
    assert_true(fabs(r.stats.gpu_hours_alloc - 4300 / 3600.0) < 1e-9);
    gs_aaic_result_fini(&r);
}

/* walltime_req becomes time_limit; missing or 0 means none.  walltime 700
 * over walltime_req 600 counts as over_limit. */
static void test_time_limit(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "1, 0, 0, 0, 1, 1, 86400, 0, 0, 0, 100, 0, 100\n"
                 "2, 0, 0, 0, 1, 1, 0, 0, 1, 1, 101, 0, 100\n"
                 "3, 0, 0, 0, 1, 1, , 0, 2, 2, 102, 0, 100\n"
                 "4, 0, 0, 0, 1, 1, 600, 2, 3, 3, 703, 0, 700\n",
             &r);
    assert_int_equal(job(&r, 0)->time_limit, SEC(86400));
    assert_int_equal(job(&r, 1)->time_limit, 0);
    assert_int_equal(job(&r, 2)->time_limit, 0);
    assert_int_equal(job(&r, 3)->time_limit, SEC(600));
    assert_int_equal(r.stats.no_limit, 2);
    assert_int_equal(r.stats.over_limit, 1);
    assert_int_equal(r.termcode[3], 2);
    assert_int_equal(r.stats.termcode[2], 1);
    /* walltime_req / walltime: 864, 6/7 -> median of {0.857, 864} = 432.43 */
    assert_true(fabs(r.stats.req_ratio_p50 - (864 + 600.0 / 700) / 2) < 1e-9);
    gs_aaic_result_fini(&r);
}

/* Submit is shifted so the earliest submit is 0, and jobs are sorted by
 * submit time although the log is not. */
static void test_submit_shift_and_order(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "1, 0, 0, 0, 1, 1, 60, 0, 1500000500, 1500000500, 1500000510, 0, 10\n"
                 "2, 0, 0, 0, 1, 1, 60, 0, 1500000000, 1500000002, 1500000012, 2, 10\n"
                 "3, 0, 0, 0, 1, 1, 60, 0, 1500000250, 1500000250, 1500000260, 0, 10\n",
             &r);
    assert_string_equal(job(&r, 0)->id, "2");
    assert_int_equal(job(&r, 0)->submit, 0);
    assert_string_equal(job(&r, 1)->id, "3");
    assert_int_equal(job(&r, 1)->submit, SEC(250));
    assert_string_equal(job(&r, 2)->id, "1");
    assert_int_equal(job(&r, 2)->submit, SEC(500));
    assert_int_equal(r.stats.submit_min, 1500000000);
    /* span: latest end is job 1, 1500000500 + 0 + 10 -> 510 s after 0 */
    assert_int_equal(r.stats.span_end - r.stats.submit_min, 510);
    gs_aaic_result_fini(&r);
}

/* Missing walltime falls back to time_end - time_start, missing waittime
 * to time_start - time_submit; both are counted. */
static void test_fallbacks(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "1, 0, 0, 0, 1, 1, 600, 0, 100, 130, 230, , \n"
                 "2, 0, 0, 0, 1, 1, 600, 0, 100, 100, 205, 0, -1\n"
                 "3, 0, 0, 0, 1, 1, 600, 0, 100, 100, 205, 0, 100\n"
                 "4, 0, 0, 0, 1, 1, 600, 0, 100, 107, 207, 5, 100\n",
             &r);
    assert_int_equal(gs_trace_duration(r.trace, 0), SEC(100));  /* 230 - 130 */
    assert_int_equal(r.observed_wait[0], SEC(30));              /* 130 - 100 */
    assert_int_equal(gs_trace_duration(r.trace, 1), SEC(105));  /* -1: 205 - 100 */
    assert_int_equal(gs_trace_duration(r.trace, 2), SEC(100));  /* walltime kept */
    assert_int_equal(r.stats.duration_fallback, 2);
    assert_int_equal(r.stats.walltime_mismatch, 1);             /* row 3: 105 != 100 */
    assert_int_equal(r.stats.wait_fallback, 1);
    assert_int_equal(r.stats.wait_mismatch, 1);                 /* row 4: 7 != 5 */
    assert_int_equal(r.observed_wait[3], SEC(5));               /* waittime kept */
    gs_aaic_result_fini(&r);
}

/* Rows that cannot be replayed are dropped and counted by reason. */
static void test_rows_dropped(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "1, 0, 0, 0, 1, 1, 600, 0, , 100, 200, 0, 100\n"
                 "2, 0, 0, 0, 1, 1, 600, 0, -5, 100, 200, 0, 100\n"
                 "3, 0, 0, 0, 1, 1, 600, 0, 100, , , 0, \n"
                 "4, 0, 0, 0, 1, 0, 600, 0, 100, 100, 200, 0, 100\n"
                 "5, 0, 0, 0, 0, 1, 600, 0, 100, 100, 200, 0, 100\n"
                 "6, 0, 0, 0, 1, 9, 600, 0, 100, 100, 200, 0, 100\n"
                 "7, 0, 0, 0, 1, 1, 600, 0, 100, 100, 200, 0, 100\n",
             &r);
    assert_int_equal(r.stats.rows, 7);
    assert_int_equal(r.stats.dropped[GS_AAIC_DROP_SUBMIT], 2);
    assert_int_equal(r.stats.dropped[GS_AAIC_DROP_DURATION], 1);
    assert_int_equal(r.stats.dropped[GS_AAIC_DROP_GPUS], 2);
    assert_int_equal(r.stats.dropped[GS_AAIC_DROP_WIDE], 1);
    assert_int_equal(r.stats.jobs, 1);
    assert_string_equal(job(&r, 0)->id, "7");
    gs_aaic_result_fini(&r);
}

/* An id that repeats after de-duplication gets -2, -3 in file order. */
static void test_repeated_ids_renamed(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "9, 0, 0, 0, 1, 1, 600, 0, 300, 300, 400, 0, 100\n"
                 "9, 1, 0, 0, 1, 1, 600, 0, 100, 100, 200, 0, 100\n"
                 "9, 2, 0, 0, 1, 1, 600, 0, 200, 200, 300, 0, 100\n",
             &r);
    assert_int_equal(r.stats.ids_renamed, 2);
    /* submit order: user 1 (file row 2 -> "9-2"), user 2 ("9-3"), user 0 ("9") */
    assert_string_equal(job(&r, 0)->id, "9-2");
    assert_string_equal(job(&r, 1)->id, "9-3");
    assert_string_equal(job(&r, 2)->id, "9");
    gs_aaic_result_fini(&r);
}

/* Observed waits 0, 5, 10, 300, 3600: numpy's linear percentiles
 * p50 = v[2] = 10; p90 at 3.6 = 300 + 0.6 * 3300 = 2280;
 * p99 at 3.96 = 300 + 0.96 * 3300 = 3468; mean 3915 / 5 = 783. */
static void test_observed_percentiles(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "1, 0, 0, 0, 1, 1, 600, 0, 0, 3600, 3700, 3600, 100\n"
                 "2, 0, 0, 0, 1, 1, 600, 0, 0, 0, 100, 0, 100\n"
                 "3, 0, 0, 0, 1, 1, 600, 0, 0, 300, 400, 300, 100\n"
                 "4, 0, 0, 0, 1, 1, 600, 0, 0, 5, 105, 5, 100\n"
                 "5, 0, 0, 0, 1, 1, 600, 0, 0, 10, 110, 10, 100\n",
             &r);
    assert_int_equal(r.stats.wait.n, 5);
    assert_true(fabs(r.stats.wait.p50 - 10) < 1e-9);
    assert_true(fabs(r.stats.wait.p90 - 2280) < 1e-9);
    assert_true(fabs(r.stats.wait.p99 - 3468) < 1e-9);
    assert_true(fabs(r.stats.wait.mean - 783) < 1e-9);
    assert_true(fabs(r.stats.wait.max - 3600) < 1e-9);
    gs_aaic_result_fini(&r);
}

/* Header: any order, padding and CRLF accepted; a blank line is skipped. */
static void test_header_order_crlf(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok("\xEF\xBB\xBFwalltime, id, user, group, queue, nodes, gpus, walltime_req, "
             "termcode, time_submit, time_start, time_end, waittime\r\n"
             "\r\n"
             "42, 1, 0, 0, 0, 1, 2, 60, 0, 10, 10, 52, 0\r\n",
             &r);
    assert_string_equal(job(&r, 0)->id, "1");
    assert_int_equal(gs_trace_duration(r.trace, 0), SEC(42));
    assert_int_equal(job(&r, 0)->gpus, 2);
    gs_aaic_result_fini(&r);
}

/* Malformed input fails with GS_EINVAL and a message naming file, line and
 * column; nothing is left to free. */
struct bad_case {
    const char *csv, *msg;
};

static void test_must_fail(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        { "", "q.csv: empty input; the AAIC header line is required" },
        { "id, user\n", "q.csv:1: missing AAIC column 'group'" },
        { "id, user, name\n", "q.csv:1:11: unknown column 'name' in the AAIC header" },
        { "id, id\n", "q.csv:1:5: duplicate column 'id' in the AAIC header" },
        { HDR "1, 0, 0, 0, 1, 1, 600, 0, 0, 0, 100, 0\n",
          "q.csv:2: row has 12 fields, the header has 13" },
        /* "1, 0, 0, 0, 1, 1, " is 18 bytes: walltime_req starts at byte 19 */
        { HDR "1, 0, 0, 0, 1, 1, 10m, 0, 0, 0, 100, 0, 100\n",
          "q.csv:2:19: walltime_req: '10m' is not an integer" },
        /* after a blank line 2; "1, 0, 0, 0, 1, 1, 60, 0, 0, 0, 100, 0, " is 39 bytes */
        { HDR "\n1, 0, 0, 0, 1, 1, 60, 0, 0, 0, 100, 0, 1.5\n",
          "q.csv:3:40: walltime: '1.5' is not an integer" },
        { HDR ", 0, 0, 0, 1, 1, 60, 0, 0, 0, 100, 0, 100\n",
          "q.csv:2:1: id: empty, but every row needs it" },
        { HDR "1, -2, 0, 0, 1, 1, 60, 0, 0, 0, 100, 0, 100\n",
          "q.csv:2:4: user: must not be negative" },
        /* "1, 0, 0, 0, 1, 1, 60, 0, " is 25 bytes; 17 digits are out of range */
        { HDR "1, 0, 0, 0, 1, 1, 60, 0, 99999999999999999, 0, 100, 0, 100\n",
          "q.csv:2:26: time_submit: '99999999999999999' is out of range "
          "(|value| <= 9000000000000)" },
        /* found by fuzz_aaic: 1.0e13 s used to import, and the written
         * trace then failed to load (its times stop at 9e12 s) */
        { HDR "1, 0, 0, 0, 1, 1, 60, 0, 10001500000000, 0, 100, 0, 100\n",
          "q.csv:2:26: time_submit: '10001500000000' is out of range "
          "(|value| <= 9000000000000)" },
        { HDR "1, 0, 0, 0, 1, 1, 60, 0, 0, 0, 100, -9000000000001, 100\n",
          "q.csv:2:37: waittime: '-9000000000001' is out of range "
          "(|value| <= 9000000000000)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gs_aaic_result r;
        struct gs_error err = { 0 };
        int rc = gs_aaic_parse(cases[i].csv, strlen(cases[i].csv), "q.csv", &r, &err);
        assert_int_equal(rc, GS_EINVAL);
        assert_int_equal(err.code, GS_EINVAL);
        assert_string_equal(err.msg, cases[i].msg);
        assert_null(r.trace);
    }
}

static void test_nul_byte(void **state)
{
    (void)state;
    static const char csv[] = HDR "1, 0, 0, 0, 1, 1, 60, 0\0, 0, 0, 100, 0, 100\n";
    struct gs_aaic_result r;
    struct gs_error err = { 0 };
    assert_int_equal(gs_aaic_parse(csv, sizeof csv - 1, "q.csv", &r, &err), GS_EINVAL);
    assert_string_equal(err.msg, "q.csv:2: NUL byte in the input");
}

/* The fixture: see tests/data/aaic/README.md.  Kept rows, in submit order
 * (submit_min = 1500000000, row 12's):
 *   12  +0   2 nodes x 4 -> 16 GPUs, 7200 s, limit 7200, wait 300
 *   13  +50  2 x 8 -> 16 GPUs, 600 s, no limit, wait 0
 *   10  +100 4 GPUs, 1000 s, limit 3600, wait 10
 *   14  +200 1 GPU, 305 - 205 = 100 s (no walltime), wait 205 - 200 = 5
 *   10-2 +400 8 GPUs, 100 s, limit 86400, wait 3600 */
static void check_small(const struct gs_aaic_result *r)
{
    const struct gs_aaic_stats *s = &r->stats;
    assert_int_equal(s->rows, 9);
    assert_int_equal(s->duplicates, 2);
    assert_int_equal(s->dropped[GS_AAIC_DROP_SUBMIT], 1);
    assert_int_equal(s->dropped[GS_AAIC_DROP_GPUS], 1);
    assert_int_equal(s->jobs, 5);
    assert_int_equal(s->ids_renamed, 1);
    assert_int_equal(s->multi_node, 2);
    assert_int_equal(s->multi_node_partial, 1);
    assert_int_equal(s->duration_fallback, 1);
    assert_int_equal(s->walltime_mismatch, 1);   /* row 12: 7205 != 7200 */
    assert_int_equal(s->no_limit, 1);
    assert_int_equal(s->wait_fallback, 1);
    static const char *const ids[] = { "12", "13", "10", "14", "10-2" };
    static const int gpus[] = { 16, 16, 4, 1, 8 };
    static const int64_t submit[] = { 0, 50, 100, 200, 400 };
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(job(r, i)->id, ids[i]);
        assert_int_equal(job(r, i)->gpus, gpus[i]);
        assert_int_equal(job(r, i)->submit, SEC(submit[i]));
    }
    /* waits 300, 0, 10, 5, 3600 -> sorted 0, 5, 10, 300, 3600: p50 10 */
    assert_true(fabs(s->wait.p50 - 10) < 1e-9);
    /* GPU-s logged 57600 + 9600 + 4000 + 100 + 800 = 72100 */
    assert_true(fabs(s->gpu_hours - 72100 / 3600.0) < 1e-9);
    /* ratios 1, 3.6, 6, 864 (13 has no limit): median 4.8 */
    assert_true(fabs(s->req_ratio_p50 - 4.8) < 1e-9);
    assert_int_equal(s->span_end - s->submit_min, 7500);  /* row 12: 300 + 7200 */
}

static void test_load_fixture(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    struct gs_error err = { 0 };
    if (gs_aaic_load("tests/data/aaic/small.csv", &r, &err) < 0)
        fail_msg("%s", err.msg);
    check_small(&r);
    gs_aaic_result_fini(&r);
}

/* The progress hook (io/ioutil.h) on the fixture: small.csv is 735 bytes
 * (ls -l) with a header and 9 data rows (check_small: rows 9).  Reading
 * reports the bytes of the file's size; parsing starts once (0 rows) and
 * counts the 9 rows after the header, not it; converting announces the 5
 * rows kept (9 less 2 exact duplicates and 2 unusable rows: check_small)
 * at its start and ends at 5 of 5.  The hook is called, never owns
 * anything, and the result is the one gs_aaic_load gives. */
struct seen {
    int calls[3];
    int64_t read_bytes, read_total, rows_at_convert, last_jobs, njobs;
};

static void on_progress(void *arg, const struct gs_io_progress *p)
{
    struct seen *s = arg;
    s->calls[p->phase]++;
    if (p->phase == GS_IO_READING) {
        s->read_bytes = p->bytes;
        s->read_total = p->total;
    } else if (p->phase == GS_IO_CONVERTING) {
        s->rows_at_convert = p->rows;
        s->last_jobs = p->jobs;
        s->njobs = p->njobs;
    }
}

static void test_load_progress(void **state)
{
    (void)state;
    struct seen s = { { 0 }, 0, 0, 0, 0, 0 };
    struct gs_io_progress p = { on_progress, &s, NULL, 0, 0, 0, 0, 0, 0 };
    struct gs_aaic_result r;
    struct gs_error err = { 0 };
    if (gs_aaic_load_progress("tests/data/aaic/small.csv", &p, &r, &err) < 0)
        fail_msg("%s", err.msg);
    check_small(&r);
    gs_aaic_result_fini(&r);
    assert_true(s.calls[GS_IO_READING] >= 1);
    assert_int_equal(s.read_bytes, 735);
    assert_int_equal(s.read_total, 735);
    assert_int_equal(s.calls[GS_IO_PARSING], 1); /* the start; 9 < GS_IO_PROGRESS_ROWS */
    assert_int_equal(p.rows, 9);
    assert_int_equal(s.calls[GS_IO_CONVERTING], 1); /* "0 of 5"; 5 < GS_IO_PROGRESS_ROWS */
    assert_int_equal(s.njobs, 5);
    assert_int_equal(s.rows_at_convert, 9);
    assert_int_equal(p.jobs, 5); /* the last count: the 5 jobs kept, of 5 */
    assert_int_equal(p.njobs, 5);
    assert_string_equal(p.name, "tests/data/aaic/small.csv");
}

/* A .gz file is decompressed while reading and gives the same result. */
static void test_load_gzip(void **state)
{
    (void)state;
    struct gs_aaic_result plain, gz;
    struct gs_error err = { 0 };
    assert_int_equal(gs_aaic_load("tests/data/aaic/small.csv", &plain, &err), 0);
    char dir[] = "/tmp/test_import_aaic_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/q.csv.gz", dir);
    FILE *in = fopen("tests/data/aaic/small.csv", "rb");
    gzFile out = gzopen(path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(gzwrite(out, buf, (unsigned)n), (int)n);
    fclose(in);
    gzclose(out);
    int rc = gs_aaic_load(path, &gz, &err);
    unlink(path);
    rmdir(dir);
    if (rc < 0)
        fail_msg("%s", err.msg);
    check_small(&gz);
    assert_memory_equal(&plain.stats, &gz.stats, sizeof plain.stats);
    gs_aaic_result_fini(&plain);
    gs_aaic_result_fini(&gz);
}

static void test_load_missing_file(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    struct gs_error err = { 0 };
    assert_int_equal(gs_aaic_load("tests/data/aaic/no-such.csv.gz", &r, &err), GS_EIO);
    assert_non_null(strstr(err.msg, "tests/data/aaic/no-such.csv.gz"));
    assert_null(r.trace);
}

static char *write_csv(const struct gs_aaic_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    struct gs_error err = { 0 };
    assert_int_equal(gs_aaic_write_csv(f, r, &err), 0);
    fclose(f);
    return text;
}

/* The written trace has the native columns plus nodes, termcode and
 * observed_wait, and reads back through the native reader. */
static void test_write_and_read_back(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    struct gs_error err = { 0 };
    assert_int_equal(gs_aaic_load("tests/data/aaic/small.csv", &r, &err), 0);
    char *text = write_csv(&r);
    const char *want =
        "id,submit,duration,gpus,team,user,name,queue,time_limit,nodes,termcode,observed_wait\n"
        "12,0,7200,16,g0,u3,-,1,7200,2,2,300\n"
        "13,50,600,16,g0,u3,-,1,0,2,0,0\n"
        "10,100,1000,4,g2,u1,-,0,3600,1,0,10\n"
        "14,200,100,1,g1,u5,-,3,600,1,3,5\n"
        "10-2,400,100,8,g4,u7,-,2,86400,1,1,3600\n";
    assert_string_equal(text, want);
    struct gs_trace *tr = gs_trace_parse_csv(text, strlen(text), "t.csv", 1, &err);
    if (!tr)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_trace_count(tr), 5);
    for (size_t i = 0; i < 5; i++) {
        const struct gs_job_spec *a = gs_trace_job(tr, i), *b = job(&r, i);
        assert_string_equal(a->id, b->id);
        assert_int_equal(a->submit, b->submit);
        assert_int_equal(a->gpus, b->gpus);
        assert_int_equal(a->time_limit, b->time_limit);
        assert_string_equal(a->team, b->team);
        assert_string_equal(a->queue, b->queue);
        assert_int_equal(gs_trace_duration(tr, i), gs_trace_duration(r.trace, i));
    }
    gs_trace_destroy(tr);
    free(text);
    gs_aaic_result_fini(&r);
}

/* Times at the bound (9e12 s, the native trace's largest) import, and the
 * written trace reads back with the same values (fuzz_aaic's first
 * finding: 1e15 s was accepted and the written trace did not load). */
static void test_limits_read_back(void **state)
{
    (void)state;
    struct gs_aaic_result r;
    parse_ok(HDR "1, 1, 1, 0, 1, 1, 9000000000000, 0, 9000000000000, 9000000000000, "
                 "9000000000000, 0, 9000000000000\n"
                 "2, 1, 1, 0, 1, 1, 60, 0, 0, 0, 10, 0, 10\n",
             &r);
    assert_int_equal(r.stats.jobs, 2);
    const struct gs_job_spec *big = job(&r, 1);
    assert_int_equal(big->submit, SEC(9000000000000LL));
    assert_int_equal(big->time_limit, SEC(9000000000000LL));
    assert_int_equal(gs_trace_duration(r.trace, 1), SEC(9000000000000LL));
    char *text = write_csv(&r);
    struct gs_error err = { 0 };
    struct gs_trace *tr = gs_trace_parse_csv(text, strlen(text), "t.csv", 1, &err);
    if (!tr)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_trace_job(tr, 1)->submit, big->submit);
    assert_int_equal(gs_trace_job(tr, 1)->time_limit, big->time_limit);
    assert_int_equal(gs_trace_duration(tr, 1), SEC(9000000000000LL));
    gs_trace_destroy(tr);
    free(text);
    gs_aaic_result_fini(&r);
}

static void test_cluster_yaml(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct gs_error err = { 0 };
    assert_int_equal(gs_aaic_write_cluster_yaml(f, 40, &err), 0);
    fclose(f);
    assert_non_null(strstr(text, "    aaic-gpu: { memory_gb: 16 }\n"));
    assert_non_null(strstr(text, "    - name: aaic-[1-40]\n      gpus: 8\n"));
    assert_non_null(strstr(text, "      nvlink_domains: [8]\n"));
    free(text);
    f = fopen("/dev/null", "w");
    assert_int_equal(gs_aaic_write_cluster_yaml(f, 0, &err), GS_EINVAL);
    fclose(f);
}

/* One attempt of the OOM sweep: three rows (one a duplicate) with the
 * n-th allocation failed. */
static int oom_parse_rows(long n)
{
    const char *csv = HDR "1, 0, 0, 0, 2, 4, 600, 0, 10, 10, 110, 0, 100\n"
                          "2, 0, 0, 0, 2, 4, 600, 0, 10, 10, 110, 0, 100\n"
                          "1, 1, 0, 0, 1, 1, 600, 0, 0, 0, 100, 0, 100\n";
    struct gs_aaic_result r;
    struct gs_error err = { 0 };
    tu_oom_arm(n);
    int rc = gs_aaic_parse(csv, strlen(csv), "q.csv", &r, &err);
    tu_oom_disarm();
    if (rc == 0) {
        assert_int_equal(r.stats.jobs, 2);
        assert_int_equal(r.stats.duplicates, 1);
        assert_string_equal(job(&r, 1)->id, "1");
        gs_aaic_result_fini(&r);
    } else {
        assert_int_equal(rc, GS_ENOMEM);
        assert_int_equal(err.code, GS_ENOMEM);
        assert_null(r.trace);
    }
    return rc;
}

/* Fail the Nth allocation for every N: GS_ENOMEM or the full result. */
static void test_oom_sweep(void **state)
{
    (void)state;
    tu_oom_sweep(oom_parse_rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_row),
        cmocka_unit_test(test_duplicates_dropped),
        cmocka_unit_test(test_whole_nodes),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_submit_shift_and_order),
        cmocka_unit_test(test_fallbacks),
        cmocka_unit_test(test_rows_dropped),
        cmocka_unit_test(test_repeated_ids_renamed),
        cmocka_unit_test(test_observed_percentiles),
        cmocka_unit_test(test_header_order_crlf),
        cmocka_unit_test(test_must_fail),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_load_fixture),
        cmocka_unit_test(test_load_gzip),
        cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_write_and_read_back),
        cmocka_unit_test(test_limits_read_back),
        cmocka_unit_test(test_cluster_yaml),
        cmocka_unit_test(test_oom_sweep),
        cmocka_unit_test(test_load_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

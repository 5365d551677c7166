/* test_io_trace.c - the CSV trace reader and writer (io/trace_csv.c) and
 * the shared column table (io/job_fields.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/policy/policy.h"
#include "io/ioutil.h"
#include "io/job_fields.h"
#include "io/trace_csv.h"
#include "failtestutil.h"

#define SEC(s) ((gs_time)(s) * GS_MS_PER_SEC)

/* Parse `csv` (need_duration as given) and fail the test on error. */
static struct gs_trace *parse_ok(const char *csv, int need_duration)
{
    struct gs_error err = { 0 };
    struct gs_trace *tr = gs_trace_parse_csv(csv, strlen(csv), "t.csv", need_duration, &err);
    if (!tr)
        fail_msg("parse failed: %s", err.msg);
    return tr;
}

static const struct gs_job_spec *job(const struct gs_trace *tr, size_t i)
{
    assert_true(i < gs_trace_count(tr));
    return gs_trace_job(tr, i);
}

/* ---- reading ------------------------------------------------------------ */

static void test_defaults(void **state)
{
    (void)state;
    struct gs_trace *tr = parse_ok("id,submit,duration\na,0,60\n", 1);
    assert_int_equal(gs_trace_count(tr), 1);
    const struct gs_job_spec *s = job(tr, 0);
    assert_string_equal(s->id, "a");
    assert_int_equal(s->submit, 0);
    assert_int_equal(gs_trace_duration(tr, 0), SEC(60));
    /* DESIGN.md section 3 defaults */
    assert_int_equal(s->gpus, 1);
    assert_int_equal(s->milli, 1000);
    assert_int_equal(s->mem_mib, -1);
    assert_int_equal(s->topology, GS_TOPO_AUTO);
    assert_int_equal(s->priority, 0);
    assert_int_equal(s->klass, GS_CLASS_TRAIN);
    assert_null(s->team);
    assert_null(s->user);
    assert_null(s->name);
    assert_null(s->mig);
    assert_int_equal(s->time_limit, 0);
    assert_int_equal(s->ckpt_interval, 0);
    assert_int_equal(s->restore_cost, -1);
    assert_int_equal(s->cpu_milli, 0);
    assert_int_equal(s->host_mem_mib, 0);
    gs_trace_destroy(tr);
}

/* One column, one value, and the field it must produce. */
struct col_case {
    const char *col, *text;
    int64_t want;           /* numeric fields */
    const char *want_str;   /* string fields */
};

static int64_t field_of(const struct gs_trace *tr, const char *col)
{
    const struct gs_job_spec *s = job(tr, 0);
    switch (gs_jcol_find(col, strlen(col))) {
    case GS_JCOL_SUBMIT: return s->submit;
    case GS_JCOL_DURATION: return gs_trace_duration(tr, 0);
    case GS_JCOL_GPUS: return s->gpus;
    case GS_JCOL_GPU_SHARE: return s->milli;
    case GS_JCOL_GPU_MEM_GB: return s->mem_mib;
    case GS_JCOL_TOPOLOGY: return s->topology;
    case GS_JCOL_PRIORITY: return s->priority;
    case GS_JCOL_CLASS: return s->klass;
    case GS_JCOL_TIME_LIMIT: return s->time_limit;
    case GS_JCOL_CKPT_INTERVAL: return s->ckpt_interval;
    case GS_JCOL_CKPT_COST: return s->ckpt_cost;
    case GS_JCOL_RESTORE_COST: return s->restore_cost;
    case GS_JCOL_CPU: return s->cpu_milli;
    case GS_JCOL_HOST_MEM_GB: return s->host_mem_mib;
    default: fail_msg("not numeric: %s", col);
    }
    return 0;
}

static const char *str_of(const struct gs_trace *tr, const char *col)
{
    const struct gs_job_spec *s = job(tr, 0);
    switch (gs_jcol_find(col, strlen(col))) {
    case GS_JCOL_MIG: return s->mig;
    case GS_JCOL_TEAM: return s->team;
    case GS_JCOL_USER: return s->user;
    case GS_JCOL_NAME: return s->name;
    case GS_JCOL_QUEUE: return s->queue;
    case GS_JCOL_GPU_MODEL: return s->gpu_model;
    default: fail_msg("not a string: %s", col);
    }
    return NULL;
}

static void test_each_column(void **state)
{
    (void)state;
    static const struct col_case cases[] = {
        { "submit", "12.5", 12500, NULL },
        { "submit", "0.0004", 0, NULL },          /* rounds to the nearest ms */
        { "duration", "30m", 30 * 60 * 1000, NULL },
        { "duration", "1.5", 1500, NULL },
        { "gpus", "0", 0, NULL },
        { "gpus", "16", 16, NULL },
        { "gpu_share", "0.25", 250, NULL },
        { "gpu_share", "1", 1000, NULL },
        { "gpu_share", "0.0001", 1, NULL },       /* rounds to 0, clamped to 1 */
        { "gpu_mem_gb", "40", 40 * 1024, NULL },
        { "gpu_mem_gb", "0.5", 512, NULL },
        { "topology", "domain", GS_TOPO_DOMAIN, NULL },
        { "topology", "node", GS_TOPO_NODE, NULL },
        { "topology", "any", GS_TOPO_ANY, NULL },
        { "priority", "-3", -3, NULL },
        { "class", "infer", GS_CLASS_INFER, NULL },
        { "time_limit", "4h", 4 * 3600 * 1000, NULL },
        { "checkpoint_interval", "600", 600 * 1000, NULL },
        { "checkpoint_cost", "30s", 30 * 1000, NULL },
        { "restore_cost", "0", 0, NULL },
        { "cpu", "2.5", 2500, NULL },
        { "host_mem_gb", "16", 16 * 1024, NULL },
        { "mig", "1g.10gb", 0, "1g.10gb" },
        { "team", "team-a", 0, "team-a" },
        { "user", "alice", 0, "alice" },
        { "name", "bert-large", 0, "bert-large" },
        { "queue", "batch", 0, "batch" },
        { "gpu_model", "H100-80G", 0, "H100-80G" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct col_case *c = &cases[i];
        char csv[256];
        int is_submit = strcmp(c->col, "submit") == 0;
        if (is_submit)
            snprintf(csv, sizeof csv, "id,submit\nj,%s\n", c->text);
        else
            snprintf(csv, sizeof csv, "id,submit,%s\nj,0,%s\n", c->col, c->text);
        struct gs_trace *tr = parse_ok(csv, 0);
        if (c->want_str)
            assert_string_equal(str_of(tr, c->col), c->want_str);
        else if (field_of(tr, c->col) != c->want)
            fail_msg("%s=%s: got %lld, want %lld", c->col, c->text,
                     (long long)field_of(tr, c->col), (long long)c->want);
        gs_trace_destroy(tr);
    }
}

static void test_iso_submit_shifted(void **state)
{
    (void)state;
    /* 00:00Z is the earliest; 00:10 (no zone = UTC) is 600 s later;
     * 09:30+09:00 is 00:30Z, 1800 s later; the day after is 86400 s. */
    struct gs_trace *tr = parse_ok("id,submit\n"
                                   "b,2017-07-01 00:10:00\n"
                                   "a,2017-07-01T00:00:00Z\n"
                                   "c,2017-07-01T09:30:00+09:00\n"
                                   "d,2017-07-02\n"
                                   "e,2017-07-01T00:00:01.250Z\n",
                                   0);
    assert_int_equal(job(tr, 0)->submit, SEC(600));
    assert_int_equal(job(tr, 1)->submit, 0);
    assert_int_equal(job(tr, 2)->submit, SEC(1800));
    assert_int_equal(job(tr, 3)->submit, SEC(86400));
    assert_int_equal(job(tr, 4)->submit, 1250);
    gs_trace_destroy(tr);
}

static void test_numeric_submit_not_shifted(void **state)
{
    (void)state;
    struct gs_trace *tr = parse_ok("id,submit\na,100\nb,50\n", 0);
    assert_int_equal(job(tr, 0)->submit, SEC(100));
    assert_int_equal(job(tr, 1)->submit, SEC(50));
    gs_trace_destroy(tr);
}

static void test_days_from_civil(void **state)
{
    (void)state;
    assert_int_equal(gs_days_from_civil(1970, 1, 1), 0);
    /* 47 years x 365 + 12 leap days (1972..2016) + 181 (Jan-Jun 2017) */
    assert_int_equal(gs_days_from_civil(2017, 7, 1), 17348);
    /* 2000 is a leap year: Feb 29 exists and March 1 is the day after */
    assert_int_equal(gs_days_from_civil(2000, 3, 1) - gs_days_from_civil(2000, 2, 28), 2);
    assert_int_equal(gs_days_from_civil(1969, 12, 31), -1);
    int64_t ms;
    assert_int_equal(gs_parse_iso8601("2000-02-29T00:00:00Z", &ms), 0);
    assert_int_equal(gs_parse_iso8601("1900-02-29", &ms), GS_EINVAL); /* not leap */
    assert_int_equal(gs_parse_iso8601("2017-13-01", &ms), GS_EINVAL);
    assert_int_equal(gs_parse_iso8601("2017-07-01T24:00:00", &ms), GS_EINVAL);
    assert_int_equal(gs_parse_iso8601("2017-07-01T00:00:00+0530", &ms), 0);
    assert_int_equal(ms, (17348 * 86400LL - 5 * 3600 - 30 * 60) * 1000);
}

static void test_quoted_fields(void **state)
{
    (void)state;
    struct gs_trace *tr = parse_ok("id,submit,name,team\r\n"
                                   "\"a,1\",0,\"say \"\"hi\"\"\",\"two\r\nlines\"\r\n"
                                   "b,1,\"\",  \" padded \"  \r\n",
                                   0);
    assert_int_equal(gs_trace_count(tr), 2);
    assert_string_equal(job(tr, 0)->id, "a,1");
    assert_string_equal(job(tr, 0)->name, "say \"hi\"");
    assert_string_equal(job(tr, 0)->team, "two\r\nlines");
    assert_string_equal(job(tr, 1)->id, "b");
    assert_null(job(tr, 1)->name);                 /* "" is empty = default */
    assert_string_equal(job(tr, 1)->team, " padded "); /* quotes keep spaces */
    gs_trace_destroy(tr);
}

static void test_bom_blank_lines_padding(void **state)
{
    (void)state;
    /* BOM, padded header and values (the AAIC style), blank and
     * whitespace-only lines, no final newline, columns in any order,
     * unknown columns ignored. */
    struct gs_trace *tr = parse_ok("\xEF\xBB\xBF gpus , id ,extra, submit\n"
                                   "\n"
                                   "  8 , big , x,  10\n"
                                   "   \n"
                                   "\n"
                                   "1,small,y,20",
                                   0);
    assert_int_equal(gs_trace_count(tr), 2);
    assert_string_equal(job(tr, 0)->id, "big");
    assert_int_equal(job(tr, 0)->gpus, 8);
    assert_int_equal(job(tr, 0)->submit, SEC(10));
    assert_string_equal(job(tr, 1)->id, "small");
    assert_int_equal(job(tr, 1)->submit, SEC(20));
    gs_trace_destroy(tr);
}

static void test_unnamed_columns_ignored(void **state)
{
    (void)state;
    /* spreadsheet exports end rows with empty columns */
    struct gs_trace *tr = parse_ok("id,submit,,\na,1,x,\n", 0);
    assert_int_equal(gs_trace_count(tr), 1);
    assert_int_equal(job(tr, 0)->submit, SEC(1));
    gs_trace_destroy(tr);
}

static void test_header_only(void **state)
{
    (void)state;
    struct gs_trace *tr = parse_ok("id,submit,duration\n", 1);
    assert_int_equal(gs_trace_count(tr), 0);
    gs_trace_destroy(tr);
}

static void test_duration_optional_without_need(void **state)
{
    (void)state;
    struct gs_trace *tr = parse_ok("id,submit,duration\na,0,\nb,0,5\n", 0);
    assert_int_equal(gs_trace_duration(tr, 0), GS_TIME_NONE);
    assert_int_equal(gs_trace_duration(tr, 1), SEC(5));
    gs_trace_destroy(tr);
    tr = parse_ok("id,submit\na,0\n", 0);
    assert_int_equal(gs_trace_duration(tr, 0), GS_TIME_NONE);
    gs_trace_destroy(tr);
}

/* Inputs that must fail: the code and a piece of the message (which
 * always names t.csv and the line). */
struct fail_case {
    const char *csv;
    int need_duration;
    int code;
    const char *msg;
};

static void test_must_fail(void **state)
{
    (void)state;
    static const struct fail_case cases[] = {
        { "", 0, GS_EINVAL, "t.csv: empty input" },
        { "\n\n", 0, GS_EINVAL, "header line is required" },
        { "submit,gpus\n0,1\n", 0, GS_EINVAL, "t.csv:1: missing required column 'id'" },
        { "id,gpus\na,1\n", 0, GS_EINVAL, "t.csv:1: missing required column 'submit'" },
        { "id,submit\na,0\n", 1, GS_EINVAL, "t.csv:1: missing required column 'duration'" },
        { "id,submit,duration\na,0,\n", 1, GS_EINVAL, "t.csv:2: duration: empty" },
        { "id,submit,id\na,0,b\n", 0, GS_EINVAL, "t.csv:1: duplicate column 'id'" },
        { "id,submit,x, x\na,0,1,2\n", 0, GS_EINVAL, "t.csv:1: duplicate column 'x'" },
        { "id,submit\na,0\nb,1,2\n", 0, GS_EINVAL, "t.csv:3: row has 3 fields, the header has 2" },
        { "id,submit,gpus\na,0\n", 0, GS_EINVAL, "t.csv:2: row has 2 fields" },
        { "id,submit,gpus\na,0,x\n", 0, GS_EINVAL, "t.csv:2: gpus: 'x' is not a GPU count" },
        { "id,submit,gpus\na,0,-1\n", 0, GS_EINVAL, "t.csv:2: gpus: '-1'" },
        { "id,submit,gpus\na,0,1.5\n", 0, GS_EINVAL, "t.csv:2: gpus: '1.5'" },
        { "id,submit,gpu_share\na,0,0\n", 0, GS_EINVAL, "t.csv:2: gpu_share: '0' is not" },
        { "id,submit,gpu_share\na,0,1.5\n", 0, GS_EINVAL, "gpu_share: '1.5' is not" },
        { "id,submit,gpu_mem_gb\na,0,-4\n", 0, GS_EINVAL, "gpu_mem_gb: '-4'" },
        { "id,submit\na,-1\n", 0, GS_EINVAL, "t.csv:2: submit: '-1' is not" },
        { "id,submit\na,nan\n", 0, GS_EINVAL, "submit: 'nan' is not" },
        { "id,submit\na,0x10\n", 0, GS_EINVAL, "submit: '0x10' is not" },
        { "id,submit\na,\n", 0, GS_EINVAL, "t.csv:2: submit: must not be empty" },
        { "id,submit\n,0\n", 0, GS_EINVAL, "t.csv:2: id: must not be empty" },
        { "id,submit\na,0\nb,2017-07-01\n", 0, GS_EINVAL, "t.csv:3: submit: mixes numeric" },
        { "id,submit\na,2017-07-01\nb,5\n", 0, GS_EINVAL, "t.csv:3: submit: mixes ISO-8601" },
        { "id,submit\na,2017-02-30\n", 0, GS_EINVAL, "t.csv:2: submit: '2017-02-30'" },
        { "id,submit\na,2017-07-01T10:00:00+25:00\n", 0, GS_EINVAL, "submit:" },
        { "id,submit,duration\na,0,5x\n", 0, GS_EINVAL, "t.csv:2: duration: '5x'" },
        /* regression (fuzz crash-f3b00265): the half-up rounding of the 4th
         * decimal carried past the 9e15 ms limit, so the writer printed a
         * time the reader then refused */
        { "id,submit,duration\na,0,9000000000000.9995\n", 0, GS_EINVAL,
          "duration: '9000000000000.9995' is not" },
        { "id,submit,topology\na,0,ring\n", 0, GS_EINVAL, "topology: 'ring' is not one of" },
        { "id,submit,class\na,0,batch\n", 0, GS_EINVAL, "class: 'batch' is not one of" },
        { "id,submit,priority\na,0,high\n", 0, GS_EINVAL, "priority: 'high'" },
        { "id,submit,time_limit\na,0,-5\n", 0, GS_EINVAL, "time_limit: '-5'" },
        { "id,submit,cpu\na,0,lots\n", 0, GS_EINVAL, "cpu: 'lots'" },
        { "id,submit\n\"a,0\n", 0, GS_EINVAL, "t.csv:2: unterminated quoted field" },
        { "id,submit\n\"a\"b,0\n", 0, GS_EINVAL, "t.csv:2: text after a closing quote" },
        /* a quoted field spanning lines 4-6 pushes row c to line 7 */
        { "id,submit,name\na,0,x\n\nb,1,\"1\n\n2\"\nc,x,y\n", 0, GS_EINVAL,
          "t.csv:7: submit: 'x'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct fail_case *c = &cases[i];
        struct gs_error err = { 0 };
        struct gs_trace *tr =
            gs_trace_parse_csv(c->csv, strlen(c->csv), "t.csv", c->need_duration, &err);
        if (tr) {
            gs_trace_destroy(tr);
            fail_msg("case %zu parsed but must fail: %s", i, c->csv);
        }
        tu_expect_error(i, &err, c->code, c->msg);
    }
}

static void test_nul_byte_rejected(void **state)
{
    (void)state;
    static const char csv[] = "id,submit\na,0\nb\0,1\n";
    struct gs_error err = { 0 };
    assert_null(gs_trace_parse_csv(csv, sizeof csv - 1, "t.csv", 0, &err));
    assert_int_equal(err.code, GS_EINVAL);
    assert_non_null(strstr(err.msg, "t.csv:3: NUL byte"));
}

static void test_not_nul_terminated(void **state)
{
    (void)state;
    /* the length, not a NUL, ends the input: "a,0" then garbage */
    static const char csv[] = "id,submit\na,0GARBAGE";
    struct gs_error err = { 0 };
    struct gs_trace *tr = gs_trace_parse_csv(csv, strlen("id,submit\na,0"), "t.csv", 0, &err);
    assert_non_null(tr);
    assert_int_equal(job(tr, 0)->submit, 0);
    gs_trace_destroy(tr);
}

/* ---- files ------------------------------------------------------------- */

static const char sample[] = "id,submit,duration,gpus\nj1,0,60,8\nj2,5,30,1\n";

static void check_sample(const struct gs_trace *tr)
{
    assert_int_equal(gs_trace_count(tr), 2);
    assert_string_equal(job(tr, 0)->id, "j1");
    assert_int_equal(job(tr, 0)->gpus, 8);
    assert_int_equal(gs_trace_duration(tr, 1), SEC(30));
    assert_int_equal(job(tr, 1)->submit, SEC(5));
}

static void test_load_plain_and_gz(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs_test_io_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char plain[64], gz[64];
    snprintf(plain, sizeof plain, "%s/t.csv", dir);
    snprintf(gz, sizeof gz, "%s/t.csv.gz", dir);
    FILE *f = fopen(plain, "w");
    assert_non_null(f);
    fputs(sample, f);
    fclose(f);
    gzFile z = gzopen(gz, "wb");
    assert_non_null(z);
    assert_int_equal(gzwrite(z, sample, (unsigned)strlen(sample)), (int)strlen(sample));
    assert_int_equal(gzclose(z), Z_OK);

    struct gs_error err = { 0 };
    struct gs_trace *tr = gs_trace_load_csv(plain, 1, &err);
    assert_non_null(tr);
    check_sample(tr);
    gs_trace_destroy(tr);
    tr = gs_trace_load_csv(gz, 1, &err);
    if (!tr)
        fail_msg("%s", err.msg);
    check_sample(tr);
    gs_trace_destroy(tr);
    unlink(plain);
    unlink(gz);
    rmdir(dir);
}

static void test_load_errors_name_the_file(void **state)
{
    (void)state;
    struct gs_error err = { 0 };
    assert_null(gs_trace_load_csv("/nonexistent/x.csv", 0, &err));
    assert_int_equal(err.code, GS_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/x.csv"));
    assert_null(gs_trace_load_csv("/nonexistent/x.csv.gz", 0, &err));
    assert_int_equal(err.code, GS_EIO);
    /* a data file from the repository, with an error on line 3 */
    assert_null(gs_trace_load_csv("tests/data/io/bad_gpus.csv", 0, &err));
    assert_int_equal(err.code, GS_EINVAL);
    assert_non_null(strstr(err.msg, "tests/data/io/bad_gpus.csv:3: gpus: 'eight'"));
}

static void test_load_data_file(void **state)
{
    (void)state;
    struct gs_error err = { 0 };
    struct gs_trace *tr = gs_trace_load_csv("tests/data/io/small.csv", 1, &err);
    if (!tr)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_trace_count(tr), 4);
    assert_string_equal(job(tr, 3)->id, "infer-1");
    assert_int_equal(job(tr, 3)->milli, 500);
    assert_int_equal(job(tr, 3)->klass, GS_CLASS_INFER);
    gs_trace_destroy(tr);
}

/* ---- writing ------------------------------------------------------------ */

static char *write_to_string(const struct gs_trace *tr)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    struct gs_error err = { 0 };
    assert_int_equal(gs_trace_write_csv(f, tr, &err), 0);
    fclose(f);
    return text;
}

static void test_write_minimal_columns(void **state)
{
    (void)state;
    struct gs_trace *tr = parse_ok("id,submit,duration,team\na,0,60,\nb,1.5,0.25,\n", 1);
    char *out = write_to_string(tr);
    /* team is default everywhere, so it is left out */
    assert_string_equal(out, "id,submit,duration,gpus\na,0,60,1\nb,1.5,0.25,1\n");
    free(out);
    gs_trace_destroy(tr);
}

static void test_write_extra_columns_and_quotes(void **state)
{
    (void)state;
    struct gs_trace *tr =
        parse_ok("id,submit,duration,gpu_share,team,gpu_mem_gb,restore_cost\n"
                 "\"x,1\",0,60,0.5,\"a \"\"b\"\"\",,\n"
                 "y,2,1,,\" sp\",40.5,10m\n",
                 1);
    char *out = write_to_string(tr);
    assert_string_equal(out, "id,submit,duration,gpus,gpu_share,gpu_mem_gb,team,restore_cost\n"
                             "\"x,1\",0,60,1,0.5,,\"a \"\"b\"\"\",\n"
                             "y,2,1,1,1,40.5,\" sp\",600\n");
    free(out);
    gs_trace_destroy(tr);
}

static void test_write_round_trip(void **state)
{
    (void)state;
    const char *csv =
        "id,submit,duration,gpus,gpu_share,gpu_mem_gb,mig,topology,team,user,name,"
        "priority,class,time_limit,checkpoint_interval,checkpoint_cost,restore_cost,"
        "queue,gpu_model,cpu,host_mem_gb\n"
        "a,0.001,3600,8,1,80,,domain,t1,u1,bert,5,train,4h,600,30,60,q,H100,96,1024\n"
        "b,7,0.5,0,0.125,0.3,1g.10gb,any,,,\"n,x\",-2,infer,,,,,,,0.5,0.001\n";
    struct gs_trace *tr = parse_ok(csv, 1);
    char *out = write_to_string(tr);
    struct gs_trace *again = parse_ok(out, 1);
    assert_int_equal(gs_trace_count(again), 2);
    for (size_t i = 0; i < 2; i++) {
        const struct gs_job_spec *x = job(tr, i), *y = job(again, i);
        assert_string_equal(x->id, y->id);
        assert_int_equal(x->submit, y->submit);
        assert_int_equal(gs_trace_duration(tr, i), gs_trace_duration(again, i));
        assert_int_equal(x->gpus, y->gpus);
        assert_int_equal(x->milli, y->milli);
        assert_int_equal(x->mem_mib, y->mem_mib);
        assert_int_equal(x->topology, y->topology);
        assert_int_equal(x->priority, y->priority);
        assert_int_equal(x->klass, y->klass);
        assert_int_equal(x->time_limit, y->time_limit);
        assert_int_equal(x->ckpt_interval, y->ckpt_interval);
        assert_int_equal(x->restore_cost, y->restore_cost);
        assert_int_equal(x->cpu_milli, y->cpu_milli);
        assert_int_equal(x->host_mem_mib, y->host_mem_mib);
    }
    /* 0.3 GB = 307.2 MiB -> 307 MiB, written as 307/1024 GB */
    assert_int_equal(job(again, 1)->mem_mib, 307);
    assert_string_equal(job(again, 1)->name, "n,x");
    assert_string_equal(job(again, 1)->mig, "1g.10gb");
    char *out2 = write_to_string(again);
    assert_string_equal(out, out2);     /* writing is a fixed point */
    free(out);
    free(out2);
    gs_trace_destroy(tr);
    gs_trace_destroy(again);
}

/* ---- scale and allocation failure --------------------------------------- */

static void test_large_trace(void **state)
{
    (void)state;
    enum { ROWS = 100000 };
    size_t cap = (size_t)ROWS * 48 + 64, len = 0;
    char *csv = malloc(cap);
    assert_non_null(csv);
    len += (size_t)snprintf(csv, cap, "id,submit,duration,gpus,team\n");
    for (int i = 0; i < ROWS; i++)
        len += (size_t)snprintf(csv + len, cap - len, "job-%d, %d.5 ,%d,%d,team-%d\n", i, i,
                                60 + i % 7, 1 << (i % 4), i % 3);
    struct gs_error err = { 0 };
    struct gs_trace *tr = gs_trace_parse_csv(csv, len, "big.csv", 1, &err);
    free(csv);
    if (!tr)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_trace_count(tr), ROWS);
    assert_string_equal(job(tr, ROWS - 1)->id, "job-99999");
    assert_int_equal(job(tr, ROWS - 1)->submit, 99999500);
    assert_int_equal(job(tr, ROWS - 1)->gpus, 8);   /* 99999 % 4 = 3 -> 1 << 3 */
    gs_trace_destroy(tr);
}

/* One attempt of the OOM sweep: a two-row CSV with the n-th allocation
 * failed. */
static int oom_parse_csv(long n)
{
    const char *csv = "id,submit,team,name\na,2017-07-01,t,n\nb,2017-07-02,u,m\n";
    struct gs_error err = { 0 };
    tu_oom_arm(n);
    struct gs_trace *tr = gs_trace_parse_csv(csv, strlen(csv), "t.csv", 0, &err);
    tu_oom_disarm();
    if (!tr) {
        assert_int_equal(err.code, GS_ENOMEM);
        return GS_ENOMEM;
    }
    assert_int_equal(gs_trace_count(tr), 2);
    assert_int_equal(job(tr, 1)->submit, SEC(86400));
    gs_trace_destroy(tr);
    return 0;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    tu_oom_sweep(oom_parse_csv);
}

static void test_error_prefix_keeps_code(void **state)
{
    (void)state;
    struct gs_error err = { 0 };
    gs_errorf(&err, GS_ENOTSUP, "preemption: not supported yet");
    assert_int_equal(gs_error_prefix(&err, err.code, "%s:%d: ", "p.yaml", 4), GS_ENOTSUP);
    assert_int_equal(err.code, GS_ENOTSUP);
    assert_string_equal(err.msg, "p.yaml:4: preemption: not supported yet");
    assert_int_equal(gs_error_prefix(NULL, GS_EINVAL, "x"), GS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_each_column),
        cmocka_unit_test(test_iso_submit_shifted),
        cmocka_unit_test(test_numeric_submit_not_shifted),
        cmocka_unit_test(test_days_from_civil),
        cmocka_unit_test(test_quoted_fields),
        cmocka_unit_test(test_bom_blank_lines_padding),
        cmocka_unit_test(test_unnamed_columns_ignored),
        cmocka_unit_test(test_header_only),
        cmocka_unit_test(test_duration_optional_without_need),
        cmocka_unit_test(test_must_fail),
        cmocka_unit_test(test_nul_byte_rejected),
        cmocka_unit_test(test_not_nul_terminated),
        cmocka_unit_test(test_load_plain_and_gz),
        cmocka_unit_test(test_load_errors_name_the_file),
        cmocka_unit_test(test_load_data_file),
        cmocka_unit_test(test_write_minimal_columns),
        cmocka_unit_test(test_write_extra_columns_and_quotes),
        cmocka_unit_test(test_write_round_trip),
        cmocka_unit_test(test_large_trace),
        cmocka_unit_test(test_oom_sweep),
        cmocka_unit_test(test_error_prefix_keeps_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

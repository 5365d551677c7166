/* test_import_openb.c - the openb importer (io/import_openb.c) on tiny
 * hand-written files: the conversion, the strict reading (several cases
 * were found by fuzz/fuzz_openb.c, see the comments), that what imports
 * can be written and read back, loading from files, and allocation
 * failure.  The real trace is read only by tests/cli/fill.t. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cluster/cluster.h"
#include "core/policy/policy.h"
#include "io/cluster_yaml.h"
#include "io/import_openb.h"
#include "io/trace_csv.h"
#include "failtestutil.h"

#define SEC(s) ((gs_time)(s) * GS_MS_PER_SEC)
#define NHDR "sn,cpu_milli,memory_mib,gpu,model\n"
#define PHDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase," \
             "creation_time,deletion_time,scheduled_time\n"

static const char nodes_csv[] = NHDR "n1,32000,131072,2,T4\n"
                                     "n2,64000,262144,8,G2\n"
                                     "n3,16000,65536,0,\n";

/* p1 shares a GPU and ran 20..100; p2 takes 2 whole GPUs (its share of
 * 500 is dropped) and is still running at the trace end 400; p3 is
 * CPU-only (gpu_milli ignored) and never scheduled; p4 has no times. */
static const char pods_csv[] = PHDR "p1,4000,8192,1,500,,LS,Running,10,100,20\n"
                                    "p2,8000,16384,2,500,T4|P100,BE,Running,15,,30\n"
                                    "p3,1000,2048,0,200,X1,,Failed,40,50,\n"
                                    "p4,1000,1024,1,,,,,,,400\n";

static int parse(const char *nodes, const char *pods, struct gs_openb_result *r,
                 struct gs_error *err)
{
    return gs_openb_parse(nodes, strlen(nodes), pods, strlen(pods), "n.csv", "p.csv", r, err);
}

static void parse_ok(const char *nodes, const char *pods, struct gs_openb_result *r)
{
    struct gs_error err = { 0 };
    if (parse(nodes, pods, r, &err) < 0)
        fail_msg("parse failed: %s", err.msg);
}

static void test_convert(void **state)
{
    (void)state;
    struct gs_openb_result r;
    parse_ok(nodes_csv, pods_csv, &r);
    const struct gs_openb_stats *s = &r.stats;
    assert_int_equal(r.nnodes, 3);
    assert_string_equal(r.nodes[1].name, "n2");
    assert_string_equal(r.nodes[1].model, "G2");
    assert_int_equal(r.nodes[1].cpu_milli, 64000);
    assert_int_equal(r.nodes[2].gpus, 0);
    assert_int_equal(s->gpus, 10);
    assert_int_equal(s->gpu_nodes, 2);
    assert_int_equal(s->nmodels, 2);
    assert_int_equal(s->model_mem_defaulted[1], 1);     /* G2 is not in FGD's table */
    assert_int_equal(s->pods, 4);
    assert_int_equal(s->cpu_only, 1);
    assert_int_equal(s->shared, 1);
    assert_int_equal(s->whole, 2);
    assert_int_equal(s->share_multi, 1);
    assert_int_equal(s->milli_ignored, 1);
    assert_int_equal(s->spec_pods, 2);
    assert_int_equal(s->spec_unknown, 1);               /* X1; T4|P100 names T4 */
    assert_int_equal(s->span_end, 400);
    assert_int_equal(s->still_running, 1);
    assert_int_equal(s->never_scheduled, 1);
    assert_int_equal(s->no_times, 1);
    assert_int_equal(s->phase_dropped, 3);
    const struct gs_job_spec *p1 = gs_trace_job(r.trace, 0), *p2 = gs_trace_job(r.trace, 1);
    assert_string_equal(p1->id, "p1");
    assert_int_equal(p1->milli, 500);
    assert_int_equal(p1->submit, SEC(10));
    assert_int_equal(gs_trace_duration(r.trace, 0), SEC(80));   /* 100 - 20 */
    assert_string_equal(p1->queue, "LS");
    assert_int_equal(p1->cpu_milli, 4000);
    assert_int_equal(p1->host_mem_mib, 8192);
    assert_int_equal(p2->gpus, 2);
    assert_int_equal(p2->milli, GS_MILLI_GPU);
    assert_string_equal(p2->gpu_model, "T4|P100");
    assert_int_equal(gs_trace_duration(r.trace, 1), SEC(370)); /* 400 - 30 */
    assert_int_equal(gs_trace_duration(r.trace, 2), SEC(10));  /* 50 - 40 */
    assert_int_equal(gs_trace_duration(r.trace, 3), GS_TIME_NONE);
    gs_openb_result_fini(&r);
}

/* CRLF, a byte order mark, empty lines and any column order. */
static void test_crlf_bom_order(void **state)
{
    (void)state;
    struct gs_openb_result r;
    parse_ok("\xEF\xBB\xBFgpu,sn\r\n\r\n1,a\r\n", "\xEF\xBB\xBFnum_gpu,name\r\n4,p\r\n\r\n", &r);
    assert_int_equal(r.nnodes, 1);
    assert_string_equal(r.nodes[0].name, "a");
    assert_string_equal(r.nodes[0].model, "gpu");       /* no model column */
    assert_int_equal(gs_trace_count(r.trace), 1);
    assert_string_equal(gs_trace_job(r.trace, 0)->id, "p");
    assert_int_equal(gs_trace_job(r.trace, 0)->gpus, 4);
    gs_openb_result_fini(&r);
}

struct bad {
    const char *nodes, *pods, *msg;
};

static void test_must_fail(void **state)
{
    (void)state;
    static const char pods_ok[] = PHDR;
    static const struct bad cases[] = {
        { "", pods_ok, "n.csv: empty file" },
        { NHDR "n1,1,1,1,T4\n", "", "p.csv: empty file" },
        { "\n" "sn,cpu_milli\n", pods_ok, "n.csv:2: header needs sn and gpu columns" },
        { NHDR, "name,cpu_milli\n", "p.csv:1: header needs name and num_gpu columns" },
        /* a misspelt column used to be ignored, losing its values */
        { "sn,gpus\n", pods_ok, "n.csv:1: unknown column 'gpus'" },
        { "sn,gpu,sn\n", pods_ok, "n.csv:1: duplicate column 'sn'" },
        { "sn,gpu,,,,,,,,,,,,,,,,\n", pods_ok, "n.csv:1: header has 18 columns, at most 16" },
        /* ragged rows used to be read as far as they went */
        { NHDR "n1,1,1,1,T4,x\n", pods_ok, "n.csv:2: row has 6 fields, the header has 5" },
        { NHDR, PHDR "p1,1,1,1\n", "p.csv:2: row has 4 fields, the header has 11" },
        /* NUL bytes used to cut a line short */
        { NHDR "n1,1,1,1,T4\n", PHDR "p1,1,1,1,1000,,,,1,\0" "2,1\n",
          "p.csv:2: NUL byte in the input" },
        /* "nan" passed the old strtod check and converted with UB */
        { NHDR "n1,nan,1,1,T4\n", pods_ok,
          "n.csv:2: cpu_milli: 'nan' is not an integer in [0, 1000000000000]" },
        { NHDR "n1,1,1,1.5,T4\n", pods_ok, "n.csv:2: gpu: '1.5' is not an integer in [0, 64]" },
        { NHDR "n1,1,1,65,T4\n", pods_ok, "n.csv:2: gpu: '65' is not an integer in [0, 64]" },
        /* found by fuzz_openb: the written cluster did not load (> 1e9 GB) */
        { NHDR "n1,1,1000000000000000,1,T4\n", pods_ok,
          "n.csv:2: memory_mib: '1000000000000000' is not an integer in [0, 1000000000000]" },
        /* found by fuzz_openb: these names broke the written cluster YAML */
        { NHDR "n\xC3,1,1,1,T4\n", pods_ok, "n.csv:2: sn: 'n\xC3' is not a name" },
        { NHDR "n[1-2],1,1,1,T4\n", pods_ok, "n.csv:2: sn: 'n[1-2]' is not a name" },
        { NHDR "n1,1,1,1,T 4\n", pods_ok, "n.csv:2: model: 'T 4' is not a name" },
        { NHDR "n1,1,1,1,T4\nn1,1,1,2,T4\n", pods_ok, "n.csv:3: sn: 'n1' is not unique" },
        { NHDR ",1,1,1,T4\n", pods_ok, "n.csv:2: sn: missing or too long" },
        { NHDR "n1,1,1,1,T4\n", PHDR ",1,1,1,1000,,,,1,2,1\n", "p.csv:2: name: missing" },
        /* num_gpu used to be clamped to 1e6 without a word */
        { NHDR, PHDR "p1,1,1,1000001,1000,,,,1,2,1\n",
          "p.csv:2: num_gpu: '1000001' is not an integer in [0, 1000000]" },
        { NHDR, PHDR "p1,1,1,1,1001,,,,1,2,1\n",
          "p.csv:2: gpu_milli: '1001' is not an integer in [0, 1000]" },
        { NHDR, PHDR "p1,1,1,1,1000,,,,9000000000001,,\n",
          "p.csv:2: creation_time: '9000000000001' is not an integer in [0, 9000000000000]" },
        { NHDR, PHDR "p1,1,1,1,1000,,,,1e3,,\n",
          "p.csv:2: creation_time: '1e3' is not an integer in [0, 9000000000000]" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct bad *c = &cases[i];
        size_t plen = strlen(c->pods);
        if (strstr(c->msg, "NUL"))
            plen += 1 + strlen(c->pods + plen + 1);
        struct gs_openb_result r;
        struct gs_error err = { 0 };
        int rc = gs_openb_parse(c->nodes, strlen(c->nodes), c->pods, plen, "n.csv", "p.csv",
                                &r, &err);
        assert_int_equal(rc, GS_EINVAL);
        tu_expect_error(i, &err, GS_EINVAL, c->msg);
        assert_null(r.nodes);
        assert_null(r.trace);
    }
}

static char *write_mem(const struct gs_openb_result *r, int cluster)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    struct gs_error err = { 0 };
    if (cluster)
        assert_int_equal(gs_openb_write_cluster_yaml(f, r, &err), 0);
    else
        assert_int_equal(gs_trace_write_csv(f, r->trace, &err), 0);
    fclose(f);
    return text;
}

/* Names that YAML would read as null, a comment, a mapping or a sequence
 * and values at the bounds: the cluster and trace written from the import
 * read back the same. */
static void test_written_files_read_back(void **state)
{
    (void)state;
    struct gs_openb_result r;
    parse_ok(NHDR "null,1000000000000,1000000000000,64,~\n"
                  "a#b,1500,1536,1,x:y\n"
                  "-,0,0,0,\n"
                  "{n},1,1,2,'T4'\n",
             PHDR " p\"1\rx ,1000000000000,1000000000000,1000000,1000,~| x,\"q\",,"
                  "9000000000000,,0\n"
                  "p2,1,1,1,1,,,,0,9000000000000,\n",
             &r);
    char *yaml = write_mem(&r, 1);
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_parse_yaml(yaml, strlen(yaml), "c.yaml", &err);
    if (!cl)
        fail_msg("%s\n%s", err.msg, yaml);
    assert_int_equal(gs_cluster_node_count(cl), 4);
    for (size_t i = 0; i < r.nnodes; i++) {
        int id = gs_cluster_find_node(cl, r.nodes[i].name);
        assert_true(id >= 0);
        assert_int_equal(gs_cluster_node_gpus(cl, id), r.nodes[i].gpus);
        assert_int_equal(gs_cluster_node_cpu(cl, id), r.nodes[i].cpu_milli);
        assert_int_equal(gs_cluster_node_mem(cl, id), r.nodes[i].mem_mib);
    }
    assert_string_equal(gs_cluster_gpu_type_name(cl, gs_cluster_node_gpu_type(cl, 0)), "~");
    gs_cluster_destroy(cl);
    free(yaml);

    char *csv = write_mem(&r, 0);
    struct gs_trace *tr = gs_trace_parse_csv(csv, strlen(csv), "t.csv", 0, &err);
    if (!tr)
        fail_msg("%s\n%s", err.msg, csv);
    assert_int_equal(gs_trace_count(tr), 2);
    const struct gs_job_spec *a = gs_trace_job(tr, 0), *b = gs_trace_job(r.trace, 0);
    assert_string_equal(a->id, " p\"1\rx ");
    assert_string_equal(a->id, b->id);
    assert_string_equal(a->gpu_model, "~| x");
    assert_string_equal(a->queue, "\"q\"");
    assert_int_equal(a->gpus, 1000000);
    assert_int_equal(a->cpu_milli, 1000000000000LL);
    assert_int_equal(a->host_mem_mib, 1000000000000LL);
    assert_int_equal(a->submit, SEC(9000000000000LL));
    assert_int_equal(gs_trace_duration(tr, 1), SEC(9000000000000LL));
    assert_int_equal(gs_trace_job(tr, 1)->milli, 1);
    gs_trace_destroy(tr);
    free(csv);
    gs_openb_result_fini(&r);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* gs_openb_load reads the files and gives what gs_openb_parse gives; a
 * missing file is GS_EIO naming it, a bad one names its path. */
static void test_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_import_openb_XXXXXX", np[64], pp[64];
    assert_non_null(mkdtemp(dir));
    snprintf(np, sizeof np, "%s/nodes.csv", dir);
    snprintf(pp, sizeof pp, "%s/pods.csv", dir);
    write_file(np, nodes_csv);
    write_file(pp, pods_csv);
    struct gs_openb_result a, b;
    struct gs_error err = { 0 };
    parse_ok(nodes_csv, pods_csv, &a);
    if (gs_openb_load(np, pp, &b, &err) < 0)
        fail_msg("%s", err.msg);
    assert_memory_equal(&a.stats, &b.stats, sizeof a.stats);
    assert_int_equal(a.nnodes, b.nnodes);
    assert_memory_equal(a.nodes, b.nodes, a.nnodes * sizeof *a.nodes);
    assert_int_equal(gs_trace_count(a.trace), gs_trace_count(b.trace));
    gs_openb_result_fini(&a);
    gs_openb_result_fini(&b);
    write_file(pp, PHDR "p1,1,1,x,1000,,,,1,2,1\n");
    assert_int_equal(gs_openb_load(np, pp, &b, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "/pods.csv:2: num_gpu: 'x'"));
    assert_null(b.trace);
    unlink(pp);
    assert_int_equal(gs_openb_load(np, pp, &b, &err), GS_EIO);
    assert_non_null(strstr(err.msg, pp));
    assert_null(b.trace);
    assert_null(b.nodes);
    unlink(np);
    rmdir(dir);
}

static int oom_parse(long n)
{
    struct gs_openb_result r;
    struct gs_error err = { 0 };
    tu_oom_arm(n);
    int rc = parse(nodes_csv, pods_csv, &r, &err);
    if (rc == 0) {
        assert_int_equal(r.nnodes, 3);
        assert_int_equal(gs_trace_count(r.trace), 4);
        gs_openb_result_fini(&r);
    } else {
        assert_int_equal(err.code, GS_ENOMEM);
        assert_null(r.trace);
        assert_null(r.nodes);
    }
    tu_oom_end(n);
    return rc;
}

/* Fail the Nth allocation for every N: GS_ENOMEM and nothing leaked, or
 * the full result. */
static void test_oom_sweep(void **state)
{
    (void)state;
    tu_oom_sweep(oom_parse);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_crlf_bom_order),
        cmocka_unit_test(test_must_fail),
        cmocka_unit_test(test_written_files_read_back),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

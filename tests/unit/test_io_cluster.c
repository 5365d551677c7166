/* test_io_cluster.c - the cluster YAML reader (io/cluster_yaml.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cluster_yaml.h"
#include "failtestutil.h"

#define SEED                                                                           \
    "cluster:\n"                                                                       \
    "  gpu_types:\n"                                                                   \
    "    H100-80G: { memory_gb: 80 }\n"                                                \
    "  nodes:\n"                                                                       \
    "    - name: node-[1-4]\n"                                                         \
    "      gpus: 8\n"                                                                  \
    "      gpu_type: H100-80G\n"                                                       \
    "      nvlink_domains: [8]\n"                                                      \
    "      rack: r1\n"

static struct gs_cluster *parse_ok(const char *yaml)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_parse_yaml(yaml, strlen(yaml), "c.yaml", &err);
    if (!cl)
        fail_msg("parse failed: %s", err.msg);
    assert_int_equal(gs_cluster_check(cl, &err), 0);
    return cl;
}

static void assert_names(const struct gs_cluster *cl, const char *const *names, int n)
{
    assert_int_equal(gs_cluster_node_count(cl), n);
    for (int i = 0; i < n; i++)
        assert_string_equal(gs_cluster_node_name(cl, i), names[i]);
}

static void test_seed_example(void **state)
{
    (void)state;
    struct gs_cluster *cl = parse_ok(SEED);
    static const char *const names[] = { "node-1", "node-2", "node-3", "node-4" };
    assert_names(cl, names, 4);
    assert_int_equal(gs_cluster_gpu_count(cl), 32);
    assert_int_equal(gs_cluster_gpu_type_count(cl), 1);
    assert_string_equal(gs_cluster_gpu_type_name(cl, 0), "H100-80G");
    assert_int_equal(gs_cluster_gpu_type_mem(cl, 0), 80 * 1024);
    assert_int_equal(gs_cluster_max_domain(cl), 8);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(gs_cluster_node_gpus(cl, i), 8);
        assert_int_equal(gs_cluster_node_domains(cl, i), 1);
        assert_string_equal(gs_cluster_label_name(cl, gs_cluster_node_rack(cl, i)), "r1");
        assert_int_equal(gs_cluster_node_mdomain(cl, i), -1);
    }
    struct gs_cluster_stats st = gs_cluster_stats(cl);
    assert_int_equal(st.k, 8);          /* sealed with k = largest domain */
    assert_int_equal(st.idle_gpus, 32);
    assert_int_equal(st.sched, 4);      /* every idle node takes one 8-GPU job */
    gs_cluster_destroy(cl);
}

static void test_two_domains(void **state)
{
    (void)state;
    struct gs_cluster *cl = parse_ok("cluster:\n"
                                     "  gpu_types: { A: { memory_gb: 40 } }\n"
                                     "  nodes:\n"
                                     "    - { name: n1, gpus: 8, nvlink_domains: [4, 4] }\n");
    assert_int_equal(gs_cluster_node_domains(cl, 0), 2);
    assert_int_equal(gs_cluster_domain_mask(cl, 0, 0), 0x0F);
    assert_int_equal(gs_cluster_domain_mask(cl, 0, 1), 0xF0);
    assert_int_equal(gs_cluster_max_domain(cl), 4);
    assert_int_equal(gs_cluster_stats(cl).k, 4);
    assert_int_equal(gs_cluster_node_gpu_type(cl, 0), 0); /* the only type */
    gs_cluster_destroy(cl);
}

/* A name pattern and the names it must expand to, in order. */
struct range_case {
    const char *pattern;
    int n;
    const char *names[6];
};

static void test_bracket_ranges(void **state)
{
    (void)state;
    static const struct range_case cases[] = {
        { "node-[1-4]", 4, { "node-1", "node-2", "node-3", "node-4" } },
        { "n[01-03]", 3, { "n01", "n02", "n03" } },      /* zero padding kept */
        { "n[8-10]", 3, { "n8", "n9", "n10" } },         /* no padding: width 1 */
        { "n[098-101]", 4, { "n098", "n099", "n100", "n101" } },
        { "gpu[1-2,5]", 3, { "gpu1", "gpu2", "gpu5" } },
        { "r[1-2]n[1-2]", 4, { "r1n1", "r1n2", "r2n1", "r2n2" } }, /* first is slowest */
        { "x[7]-a", 1, { "x7-a" } },
        { "plain", 1, { "plain" } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml, "cluster:\n  nodes:\n    - name: \"%s\"\n      gpus: 2\n",
                 cases[i].pattern);
        struct gs_cluster *cl = parse_ok(yaml);
        assert_names(cl, cases[i].names, cases[i].n);
        gs_cluster_destroy(cl);
    }
}

static void test_default_gpu_type(void **state)
{
    (void)state;
    /* no gpu_types section: one type "gpu" of 80 GB (docs/formats.md) */
    struct gs_cluster *cl = parse_ok("cluster:\n  nodes:\n    - {name: a, gpus: 4}\n");
    assert_int_equal(gs_cluster_gpu_type_count(cl), 1);
    assert_string_equal(gs_cluster_gpu_type_name(cl, 0), "gpu");
    assert_int_equal(gs_cluster_gpu_type_mem(cl, 0), 81920);
    gs_cluster_destroy(cl);
}

static void test_two_types_and_host_resources(void **state)
{
    (void)state;
    struct gs_cluster *cl = parse_ok("cluster:\n"
                                     "  gpu_types:\n"
                                     "    A100: { memory_gb: 40 }\n"
                                     "    H100: { memory_gb: 79.5 }\n"
                                     "  nodes:\n"
                                     "    - name: a\n"
                                     "      gpus: 8\n"
                                     "      gpu_type: H100\n"
                                     "      domain: nvl-1\n"
                                     "      cpu: 96.5\n"
                                     "      memory_gb: 1024\n"
                                     "    - {name: cpu-only, gpus: 0}\n"
                                     "    - {name: b, gpus: 4, gpu_type: A100}\n");
    assert_int_equal(gs_cluster_gpu_type_mem(cl, 1), 81408); /* 79.5 x 1024 */
    assert_int_equal(gs_cluster_node_gpu_type(cl, 0), 1);
    assert_int_equal(gs_cluster_node_gpu_type(cl, 2), 0);
    assert_string_equal(gs_cluster_label_name(cl, gs_cluster_node_mdomain(cl, 0)), "nvl-1");
    assert_int_equal(gs_cluster_node_cpu(cl, 0), 96500);
    assert_int_equal(gs_cluster_node_mem(cl, 0), 1024 * 1024);
    assert_int_equal(gs_cluster_node_gpus(cl, 1), 0);
    assert_int_equal(gs_cluster_gpu_count(cl), 12);
    gs_cluster_destroy(cl);
}

struct fail_case {
    const char *yaml;
    int code;
    const char *msg;
};

#define NODE "cluster:\n  nodes:\n    - name: n\n"

static void test_must_fail(void **state)
{
    (void)state;
    static const struct fail_case cases[] = {
        /* domain sums, bad types, unknown keys: file, line and key path */
        { NODE "      gpus: 8\n      nvlink_domains: [4, 2]\n", GS_EINVAL,
          "c.yaml:3: nodes[0].nvlink_domains: sum to 6 but the node has 8 gpus" },
        { NODE "      gpus: 8\n      foo: 1\n", GS_EINVAL, "c.yaml:5: nodes[0]: unknown key 'foo'" },
        /* MIG layouts need a GPU type with a MIG geometry (test_mig.c) */
        { NODE "      gpus: 8\n      mig: {}\n", GS_EINVAL,
          "nodes[0].mig: GPU type 'gpu' has no MIG geometry" },
        { NODE "      gpus: eight\n", GS_EINVAL,
          "c.yaml:4: nodes[0].gpus: expected an integer 0-64, got 'eight'" },
        { NODE "      gpus: 65\n", GS_EINVAL, "nodes[0].gpus: expected an integer 0-64, got '65'" },
        { NODE "      gpus: 8.0\n", GS_EINVAL, "nodes[0].gpus: expected an integer" },
        { NODE "      gpus: [8]\n", GS_EINVAL, "nodes[0].gpus: expected an integer 0-64, got a sequence" },
        { NODE "      gpus: 8\n      gpu_type: B200\n", GS_EINVAL,
          "c.yaml:5: nodes[0].gpu_type: 'B200' is not defined in gpu_types" },
        { NODE "      gpus: 8\n      nvlink_domains: 8\n", GS_EINVAL,
          "nodes[0].nvlink_domains: expected a list" },
        { NODE "      gpus: 8\n      nvlink_domains: [8, 0]\n", GS_EINVAL,
          "nodes[0].nvlink_domains[1]: expected an integer 1-64, got '0'" },
        { NODE "      gpus: 17\n      nvlink_domains: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n",
          GS_EINVAL, "expected 1-16 domains, got 17" },
        { NODE "      gpus: 8\n      cpu: -1\n", GS_EINVAL, "nodes[0].cpu: expected a number" },
        { NODE "      gpus: 8\n      rack: [a]\n", GS_EINVAL, "nodes[0].rack: expected a string" },
        { NODE "      gpus: 8\n      gpus: 4\n", GS_EINVAL, "c.yaml:5: nodes[0]: duplicate key 'gpus'" },
        { "cluster:\n  nodes:\n    - gpus: 8\n", GS_EINVAL, "c.yaml:3: nodes[0]: missing 'name'" },
        { NODE, GS_EINVAL, "c.yaml:3: nodes[0]: missing 'gpus'" },
        { "cluster:\n  nodes:\n    - {name: '', gpus: 1}\n", GS_EINVAL, "nodes[0].name: empty" },
        /* duplicates, also through ranges: core's GS_EEXIST with a location */
        { "cluster:\n  nodes:\n    - {name: 'n[1-3]', gpus: 8}\n    - {name: n2, gpus: 8}\n",
          GS_EEXIST, "c.yaml:4: nodes[1].name: node 'n2' defined twice" },
        { "cluster:\n  nodes:\n    - {name: 'n[1-2,2]', gpus: 8}\n", GS_EEXIST,
          "nodes[0].name: node 'n2' defined twice" },
        /* bad ranges */
        { "cluster:\n  nodes:\n    - {name: 'n[4-1]', gpus: 8}\n", GS_EINVAL,
          "c.yaml:3: nodes[0].name: 'n[4-1]': range ends before it starts" },
        { "cluster:\n  nodes:\n    - {name: 'n[a-b]', gpus: 8}\n", GS_EINVAL, "'n[a-b]': expected numbers" },
        { "cluster:\n  nodes:\n    - {name: 'n[1-2', gpus: 8}\n", GS_EINVAL, "'[' without ']'" },
        { "cluster:\n  nodes:\n    - {name: 'n1-2]', gpus: 8}\n", GS_EINVAL, "']' without '['" },
        { "cluster:\n  nodes:\n    - {name: 'n[1-]', gpus: 8}\n", GS_EINVAL, "expected numbers" },
        { "cluster:\n  nodes:\n    - {name: 'n[]', gpus: 8}\n", GS_EINVAL, "expected numbers" },
        { "cluster:\n  nodes:\n    - {name: 'n[1-70000]', gpus: 1}\n", GS_EINVAL,
          "more than 65536 nodes" },
        { "cluster:\n  nodes:\n    - {name: 'n[1-9999999]', gpus: 1}\n", GS_EINVAL,
          "more than 65536 nodes" },
        { "cluster:\n  nodes:\n    - name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
          "      gpus: 1\n", GS_EINVAL, "name too long" },
        /* gpu types */
        { "cluster:\n  gpu_types:\n    A: { memory_gb: 40 }\n    B: { memory_gb: 80 }\n"
          "  nodes:\n    - {name: n, gpus: 8}\n", GS_EINVAL,
          "c.yaml:6: nodes[0]: missing 'gpu_type' (2 gpu types are defined)" },
        { "cluster:\n  gpu_types:\n    A: {}\n  nodes: []\n", GS_EINVAL,
          "c.yaml:3: gpu_types.A: missing 'memory_gb'" },
        { "cluster:\n  gpu_types:\n    A: { memory_gb: lots }\n  nodes: []\n", GS_EINVAL,
          "gpu_types.A.memory_gb: expected a number" },
        { "cluster:\n  gpu_types:\n    A: { memory_gb: 40, speed: 2 }\n  nodes: []\n",
          GS_EINVAL, "gpu_types.A: unknown key 'speed'" },
        { "cluster:\n  gpu_types: [A]\n  nodes: []\n", GS_EINVAL,
          "c.yaml:2: gpu_types: expected a mapping, got a sequence" },
        /* structure */
        { "", GS_EINVAL, "c.yaml: empty document" },
        { "# nothing\n", GS_EINVAL, "c.yaml: empty document" },
        { "nodes: []\n", GS_EINVAL, "c.yaml:1: unknown key 'nodes'" },
        { "cluster:\n  nodes: []\n  racks: 2\n", GS_EINVAL, "c.yaml:3: cluster: unknown key 'racks'" },
        { "cluster:\n  gpu_types: {}\n", GS_EINVAL, "cluster: missing 'nodes'" },
        { "cluster:\n  nodes: []\n", GS_EINVAL, "c.yaml:2: nodes: cluster has no GPUs" },
        { "cluster:\n  nodes: {a: 1}\n", GS_EINVAL, "nodes: expected a list, got a mapping" },
        { "cluster:\n  nodes:\n    - n1\n", GS_EINVAL, "nodes[0]: expected a mapping, got a value" },
        { "cluster: [1]\n", GS_EINVAL, "c.yaml:1: cluster: expected a mapping" },
        { "- 1\n", GS_EINVAL, "top level: expected a mapping" },
        { "cluster:\n  nodes: [\n", GS_EINVAL, "c.yaml:3: yaml:" },
        { "cluster: {}\n---\ncluster: {}\n", GS_EINVAL, "c.yaml:3: a second YAML document" },
        { "cluster:\n  nodes:\n    - {name: \"a\\0b\", gpus: 1}\n", GS_EINVAL,
          "c.yaml:3: NUL character" },
        { "cluster:\n  nodes:\n    - &n {name: a, gpus: 1, x: *n}\n", GS_EINVAL,
          "unknown key 'x'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct fail_case *c = &cases[i];
        struct gs_error err = { 0 };
        struct gs_cluster *cl = gs_cluster_parse_yaml(c->yaml, strlen(c->yaml), "c.yaml", &err);
        if (cl) {
            gs_cluster_destroy(cl);
            fail_msg("case %zu parsed but must fail:\n%s", i, c->yaml);
        }
        tu_expect_error(i, &err, c->code, c->msg);
    }
}

static void test_deep_flow_nesting_rejected(void **state)
{
    (void)state;
    /* regression: libyaml takes time quadratic in the depth of [[[...]]]
     * (20,000 levels took 8 s); the reader refuses past 256 levels */
    enum { DEPTH = 100000 };
    char *yaml = malloc(2 * DEPTH + 16);
    assert_non_null(yaml);
    size_t n = (size_t)sprintf(yaml, "cluster: ");
    memset(yaml + n, '[', DEPTH);
    memset(yaml + n + DEPTH, ']', DEPTH);
    n += 2 * DEPTH;
    struct gs_error err = { 0 };
    assert_null(gs_cluster_parse_yaml(yaml, n, "c.yaml", &err));
    assert_int_equal(err.code, GS_EINVAL);
    assert_non_null(strstr(err.msg, "c.yaml:1: [ ] or { } nested more than 256 deep"));
    free(yaml);
    /* brackets in comments and quoted text do not count */
    char ok[1200] = "cluster:\n  nodes:\n    - {name: a, gpus: 1, rack: \"";
    memset(ok + strlen(ok), '[', 300);
    strcat(ok, "\"}  # ");
    memset(ok + strlen(ok), '{', 300);
    strcat(ok, "\n");
    struct gs_cluster *cl = gs_cluster_parse_yaml(ok, strlen(ok), "c.yaml", &err);
    if (!cl)
        fail_msg("%s", err.msg);
    gs_cluster_destroy(cl);
}

static void test_load_file(void **state)
{
    (void)state;
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_load_yaml("tests/data/io/seed_cluster.yaml", &err);
    if (!cl)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_cluster_gpu_count(cl), 32);
    gs_cluster_destroy(cl);
    assert_null(gs_cluster_load_yaml("/nonexistent/c.yaml", &err));
    assert_int_equal(err.code, GS_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/c.yaml"));
}

static void test_not_nul_terminated(void **state)
{
    (void)state;
    char *copy = malloc(strlen(SEED));
    assert_non_null(copy);
    memcpy(copy, SEED, strlen(SEED)); /* no NUL: ASan flags any read past the end */
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_parse_yaml(copy, strlen(SEED), "c.yaml", &err);
    assert_non_null(cl);
    gs_cluster_destroy(cl);
    free(copy);
}

/* One attempt of the OOM sweep: the seed with the n-th allocation failed. */
static int oom_parse_seed(long n)
{
    struct gs_error err = { 0 };
    tu_oom_arm(n);
    struct gs_cluster *cl = gs_cluster_parse_yaml(SEED, strlen(SEED), "c.yaml", &err);
    tu_oom_disarm();
    if (!cl) {
        assert_int_equal(err.code, GS_ENOMEM);
        return GS_ENOMEM;
    }
    assert_int_equal(gs_cluster_gpu_count(cl), 32);
    gs_cluster_destroy(cl);
    return 0;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    tu_oom_sweep(oom_parse_seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_two_domains),
        cmocka_unit_test(test_bracket_ranges),
        cmocka_unit_test(test_default_gpu_type),
        cmocka_unit_test(test_two_types_and_host_resources),
        cmocka_unit_test(test_must_fail),
        cmocka_unit_test(test_deep_flow_nesting_rejected),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_not_nul_terminated),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

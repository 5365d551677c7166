/* test_io_policy.c - the policy YAML reader (io/policy_yaml.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy/job.h"
#include "io/policy_yaml.h"
#include "failtestutil.h"

/* The seed's example, verbatim (DESIGN.md section 3). */
static const char seed[] =
    "queue:\n"
    "  policy: priority_with_backfill\n"
    "  max_wait_before_aging: 30m\n"
    "  quota: { team-a: 12, team-b: 12 }\n"
    "  backfill: true\n"
    "  duration_estimate: from_history\n";

static void parse_ok(const char *yaml, struct gs_policy *p)
{
    struct gs_error err = { 0 };
    if (gs_policy_parse_yaml(yaml, strlen(yaml), "p.yaml", p, &err) != 0)
        fail_msg("parse failed: %s", err.msg);
}

static void test_seed_example(void **state)
{
    (void)state;
    struct gs_policy p;
    parse_ok(seed, &p);
    assert_int_equal(p.queue_policy, GS_QUEUE_PRIORITY_BACKFILL);
    assert_int_equal(p.max_wait_before_aging, 30 * 60 * 1000);
    assert_int_equal(p.nquotas, 2);
    assert_int_equal(gs_policy_quota(&p, "team-a"), 12);
    assert_int_equal(gs_policy_quota(&p, "team-b"), 12);
    assert_int_equal(gs_policy_quota(&p, "team-c"), -1);
    assert_int_equal(p.backfill, GS_BACKFILL_EASY);   /* "true" means EASY */
    assert_int_equal(p.estimate, GS_EST_HISTORY);
    gs_policy_fini(&p);
}

static void assert_defaults(const struct gs_policy *p)
{
    struct gs_policy d;
    gs_policy_init(&d);
    assert_int_equal(p->queue_policy, d.queue_policy);
    assert_int_equal(p->max_wait_before_aging, d.max_wait_before_aging);
    assert_int_equal(p->nquotas, 0);
    assert_int_equal(p->backfill, d.backfill);
    assert_int_equal(p->estimate, d.estimate);
    assert_int_equal(p->strategy, d.strategy);
    assert_int_equal(p->runtime_cap, d.runtime_cap);
    assert_int_equal(p->sched_k, d.sched_k);
    gs_policy_fini(&d);
}

static void test_empty_is_defaults(void **state)
{
    (void)state;
    static const char *const inputs[] = { "", "\n", "# only a comment\n", "---\n", "~\n",
                                          "queue:\n", "queue: {}\nplacement:\n" };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        struct gs_policy p;
        parse_ok(inputs[i], &p);
        assert_defaults(&p);
        gs_policy_fini(&p);
    }
}

static void test_yaml_booleans(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int want;
    } cases[] = {
        { "true", GS_BACKFILL_EASY },  { "True", GS_BACKFILL_EASY },
        { "TRUE", GS_BACKFILL_EASY },  { "yes", GS_BACKFILL_EASY },
        { "On", GS_BACKFILL_EASY },    { "false", GS_BACKFILL_NONE },
        { "No", GS_BACKFILL_NONE },    { "off", GS_BACKFILL_NONE },
        { "conservative", GS_BACKFILL_CONSERVATIVE },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[64];
        struct gs_policy p;
        /* start from the opposite value so a no-op cannot pass */
        snprintf(yaml, sizeof yaml, "queue:\n  backfill: %s\n", cases[i].text);
        parse_ok(yaml, &p);
        if (p.backfill != cases[i].want)
            fail_msg("backfill: %s gave %d, want %d", cases[i].text, p.backfill,
                     cases[i].want);
        gs_policy_fini(&p);
    }
}

static void test_sections_and_block_quota(void **state)
{
    (void)state;
    struct gs_policy p;
    parse_ok("queue:\n"
             "  policy: priority\n"
             "  quota:\n"
             "    team-a: 8\n"
             "    'team b': 4\n"
             "  runtime_cap: 4h\n"
             "placement:\n"
             "  strategy: spread\n"
             "metrics:\n"
             "  k: 4\n",
             &p);
    assert_int_equal(p.queue_policy, GS_QUEUE_PRIORITY);
    assert_int_equal(gs_policy_quota(&p, "team-a"), 8);
    assert_int_equal(gs_policy_quota(&p, "team b"), 4);
    assert_int_equal(p.runtime_cap, 4 * 3600 * 1000);
    assert_int_equal(p.strategy, GS_PLACE_SPREAD);
    assert_int_equal(p.sched_k, 4);
    gs_policy_fini(&p);
}

static void test_partitions_list(void **state)
{
    (void)state;
    struct gs_policy p;
    /* examples/preemption/b-*.yaml shape, plus a sequence for a key that
     * takes several values */
    parse_ok("partitions:\n"
             "  - name: serve\n"
             "    nodes: node-1\n"
             "    classes: infer\n"
             "  - name: batch\n"
             "    nodes: [node-2, 'node-[3-4]']\n"
             "    classes: [train, infer]\n"
             "    borrow: yes\n",
             &p);
    assert_int_equal(p.npartitions, 2);
    assert_string_equal(p.partitions[0].name, "serve");
    assert_int_equal(p.partitions[0].nnodes, 1);
    assert_string_equal(p.partitions[0].nodes[0], "node-1");
    assert_int_equal(p.partitions[0].classes, 1 << GS_CLASS_INFER);
    assert_string_equal(p.partitions[1].name, "batch");
    assert_int_equal(p.partitions[1].nnodes, 2);
    assert_string_equal(p.partitions[1].nodes[1], "node-[3-4]");
    assert_int_equal(p.partitions[1].classes, (1 << GS_CLASS_TRAIN) | (1 << GS_CLASS_INFER));
    assert_int_equal(p.partitions[1].borrow, 1);
    gs_policy_fini(&p);
}

static void test_quoted_yes_stays_a_string(void **state)
{
    (void)state;
    struct gs_policy p;
    struct gs_error err = { 0 };
    const char *yaml = "queue:\n  backfill: 'yes'\n";
    assert_int_equal(gs_policy_parse_yaml(yaml, strlen(yaml), "p.yaml", &p, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "p.yaml:2: queue.backfill: 'yes' is not one of"));
}

struct fail_case {
    const char *yaml;
    int code;
    const char *msg;
};

static void test_must_fail(void **state)
{
    (void)state;
    static const struct fail_case cases[] = {
        /* from core's key table, with file:line in front and the code kept */
        { "queue:\n  polcy: fifo\n", GS_ENOENT, "p.yaml:2: unknown policy key 'queue.polcy'" },
        { "queue:\n  policy: lifo\n", GS_EINVAL,
          "p.yaml:2: queue.policy: 'lifo' is not one of fifo | priority" },
        { "queue:\n  max_wait_before_aging: soon\n", GS_EINVAL,
          "p.yaml:2: queue.max_wait_before_aging: 'soon' is not a duration" },
        { "metrics:\n  k: 5000\n", GS_ERANGE, "p.yaml:2: metrics.k: 5000 is outside" },
        { "queue:\n  quota: { a: 1.5 }\n", GS_EINVAL, "p.yaml:2: queue.quota.a: '1.5' is not a whole" },
        { "queue:\n  quota: 12\n", GS_EINVAL, "p.yaml:2: queue.quota: expected a mapping" },
        { "preemption:\n  mode: sometimes\n", GS_EINVAL,
          "p.yaml:2: preemption.mode: 'sometimes' is not one of none | checkpoint | immediate" },
        /* partitions: a list of mappings (issue 5) */
        { "partitions:\n  name: a\n", GS_EINVAL, "p.yaml:1: partitions: expected a list of mappings" },
        { "partitions: [a]\n", GS_EINVAL, "p.yaml:1: partitions[0]: expected a mapping, got a value" },
        { "partitions:\n  - nme: a\n", GS_ENOENT, "p.yaml:2: unknown policy key 'partitions.nme'" },
        { "partitions:\n  - classes: [train, batch]\n", GS_EINVAL,
          "partitions.classes: 'batch' is not train | infer" },
        { "partitions:\n  - granularity: mig\n", GS_EINVAL,
          "partitions.granularity: 'mig' is not exclusive | shared" },
        { "partitions:\n  - share: 1.5\n", GS_ERANGE, "partitions.share: 1.5 is outside" },
        { "partitions:\n  - nodes: [{a: 1}]\n", GS_EINVAL, "partitions.nodes: expected a value" },
        { "partitions:\n  - name: [a]\n", GS_EINVAL,
          "partitions.name: expected a single value, got a sequence" },
        { "queue:\n  backfill:\n", GS_EINVAL, "p.yaml:2: queue.backfill: '' is not one of" },
        /* shapes YAML allows but the policy does not */
        { "queue:\n  policy: [fifo]\n", GS_EINVAL,
          "p.yaml:2: queue.policy: expected a single value, got a sequence" },
        { "queue:\n  policy: {a: b}\n", GS_EINVAL, "queue.policy: expected a single value, got a mapping" },
        { "queue:\n  nope: [1]\n", GS_ENOENT, "p.yaml:2: unknown policy key 'queue.nope'" },
        { "extra:\n  a: 1\n", GS_ENOENT, "p.yaml:1: unknown policy key 'extra'" },
        { "queue: fifo\n", GS_EINVAL, "p.yaml:1: queue: expected a mapping, got 'fifo'" },
        { "queue: [1]\n", GS_EINVAL, "queue: expected a mapping, got a sequence" },
        { "queue:\n  quota: { a: [1] }\n", GS_EINVAL, "p.yaml:2: queue.quota.a: expected a value" },
        { "queue:\n  quota: [1]\n", GS_EINVAL, "queue.quota: expected a mapping" },
        { "queue:\n  policy: fifo\n  policy: priority\n", GS_EINVAL,
          "p.yaml:3: queue: duplicate key 'policy'" },
        { "queue:\n  quota: { a: 1, a: 2 }\n", GS_EINVAL, "queue.quota: duplicate key 'a'" },
        { "- queue\n", GS_EINVAL, "p.yaml:1: expected a mapping of sections" },
        { "fifo\n", GS_EINVAL, "p.yaml:1: expected a mapping of sections" },
        { "queue:\n  policy: 'fifo\n", GS_EINVAL, "p.yaml:3: yaml:" },
        { "queue: {}\n---\nqueue: {}\n", GS_EINVAL, "a second YAML document" },
        { "? [a]\n: 1\n", GS_EINVAL, "keys must be plain values" },
        { "partitions:\n  - {name: a, classes: [train, [infer]]}\n", GS_EINVAL,
          "p.yaml:2: partitions.classes: expected a value, got a sequence" },
        /* alias tricks must end in an error, not a loop or a stack overflow */
        { "queue: &q\n  x: *q\n", GS_ENOENT, "unknown policy key 'queue.x'" },
        { "queue: &q\n  quota: *q\n", GS_EINVAL, "queue.quota.quota: expected a value" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct fail_case *c = &cases[i];
        struct gs_error err = { 0 };
        struct gs_policy p;
        int rc = gs_policy_parse_yaml(c->yaml, strlen(c->yaml), "p.yaml", &p, &err);
        if (rc == 0) {
            gs_policy_fini(&p);
            fail_msg("case %zu parsed but must fail:\n%s", i, c->yaml);
        }
        assert_int_equal(rc, err.code);
        assert_null(p.quotas);      /* finalised on error */
        tu_expect_error(i, &err, c->code, c->msg);
    }
}

static void test_alias_blowup_stops(void **state)
{
    (void)state;
    /* "billion laughs": each anchor doubles the one before, 2^20 leaves
     * from 21 lines.  The walker only descends into known sections, so it
     * must stop at the first misplaced mapping, quickly and without a leak. */
    char yaml[2048];
    char anchors[1800] = "a0: &a0 {x: 1}\n";
    for (int i = 1; i <= 20; i++) {
        char line[64];
        snprintf(line, sizeof line, "a%d: &a%d {l: *a%d, r: *a%d}\n", i, i, i - 1, i - 1);
        strcat(anchors, line);
    }
    snprintf(yaml, sizeof yaml, "%squeue:\n  quota: *a20\n", anchors);
    struct gs_policy p;
    struct gs_error err = { 0 };
    assert_int_equal(gs_policy_parse_yaml(yaml, strlen(yaml), "p.yaml", &p, &err), GS_ENOENT);
    assert_non_null(strstr(err.msg, "p.yaml:1: unknown policy key 'a0'"));
}

static void test_load_file(void **state)
{
    (void)state;
    struct gs_policy p;
    struct gs_error err = { 0 };
    if (gs_policy_load_yaml("tests/data/io/seed_policy.yaml", &p, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p.queue_policy, GS_QUEUE_PRIORITY_BACKFILL);
    assert_int_equal(p.nquotas, 2);
    gs_policy_fini(&p);
    assert_int_equal(gs_policy_load_yaml("/nonexistent/p.yaml", &p, &err), GS_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/p.yaml"));
    gs_policy_fini(&p);
}

/* The partitions list and the preemption section (issue 5). */
static void test_partitions_and_preemption(void **state)
{
    (void)state;
    static const char yaml[] =
        "preemption:\n"
        "  mode: checkpoint\n"
        "  infer_mode: none\n"
        "  grace: 2m\n"
        "  min_runtime: 10m\n"
        "  restore_cost: 30s\n"
        "  priority_gap: 5\n"
        "  quota_reclaim: no\n"
        "  over_cap: preempt\n"
        "inference:\n"
        "  slo_wait: 45s\n"
        "partitions:\n"
        "  - name: serve\n"
        "    nodes: [node-1, 'node-[2-3]']\n"
        "    classes: infer\n"
        "    granularity: shared\n"
        "    preemption: immediate\n"
        "  - name: batch\n"
        "    share: 0.5\n"
        "    classes: [train, infer]\n"
        "    borrow: true\n"
        "  -\n"
        "    gpus: 4\n";
    struct gs_policy p;
    parse_ok(yaml, &p);
    assert_int_equal(p.preempt_mode, GS_PREEMPT_CHECKPOINT);
    assert_int_equal(p.preempt_class[GS_CLASS_TRAIN], GS_PREEMPT_INHERIT);
    assert_int_equal(p.preempt_class[GS_CLASS_INFER], GS_PREEMPT_NONE);
    assert_int_equal(p.grace, 120000);
    assert_int_equal(p.min_runtime, 600000);
    assert_int_equal(p.restore_cost, 30000);
    assert_int_equal(p.priority_gap, 5);
    assert_int_equal(p.quota_reclaim, 0);
    assert_int_equal(p.over_cap, GS_OVER_CAP_PREEMPT);
    assert_int_equal(p.slo_wait, 45000);
    assert_int_equal(p.npartitions, 3);
    const struct gs_partition *a = &p.partitions[0], *b = &p.partitions[1];
    assert_string_equal(a->name, "serve");
    assert_int_equal(a->nnodes, 2);
    assert_string_equal(a->nodes[1], "node-[2-3]");
    assert_int_equal(a->classes, 1 << GS_CLASS_INFER);
    assert_int_equal(a->granularity, GS_SHARING_SHARED);
    assert_int_equal(a->preempt_mode, GS_PREEMPT_IMMEDIATE);
    assert_int_equal(a->borrow, 0);
    assert_true(b->share == 0.5);
    assert_int_equal(b->classes, 3);
    assert_int_equal(b->borrow, 1);
    assert_int_equal(b->gpus, -1);
    assert_int_equal(b->preempt_mode, GS_PREEMPT_INHERIT);
    assert_int_equal(p.partitions[2].gpus, 4);
    assert_null(p.partitions[2].name);
    struct gs_policy c;
    assert_int_equal(gs_policy_copy(&c, &p), 0);
    assert_string_equal(c.partitions[0].nodes[0], "node-1");
    gs_policy_fini(&c);
    gs_policy_fini(&p);
}

/* One attempt of the OOM sweep: the seed with the n-th allocation failed. */
static int oom_parse_seed(long n)
{
    struct gs_error err = { 0 };
    struct gs_policy p;
    tu_oom_arm(n);
    int rc = gs_policy_parse_yaml(seed, strlen(seed), "p.yaml", &p, &err);
    tu_oom_disarm();
    if (rc == 0) {
        assert_int_equal(p.nquotas, 2);
        gs_policy_fini(&p);
    }
    return rc;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    tu_oom_sweep(oom_parse_seed);
}

/* One attempt of test_partitions_oom: parse a partitions list and copy the
 * policy with the n-th allocation failed.  A failed copy (GS_ENOMEM) still
 * counts as a parsed result; the parse's code is returned. */
static int oom_parse_copy_partitions(long n)
{
    static const char yaml[] = "partitions:\n  - name: a\n    nodes: [x, 'y[1-2]']\n"
                               "  - name: b\n    share: 0.5\n";
    struct gs_error err = { 0 };
    struct gs_policy p, c;
    tu_oom_arm(n);
    int rc = gs_policy_parse_yaml(yaml, strlen(yaml), "p.yaml", &p, &err);
    int crc = rc == 0 ? gs_policy_copy(&c, &p) : -1;
    tu_oom_disarm();
    if (rc != 0)
        return rc;
    assert_int_equal(p.npartitions, 2);
    if (crc == 0)
        gs_policy_fini(&c);
    else
        assert_int_equal(crc, GS_ENOMEM);
    gs_policy_fini(&p);
    return 0;
}

/* Allocation failures inside the partitions list leave nothing behind. */
static void test_partitions_oom(void **state)
{
    (void)state;
    tu_oom_sweep(oom_parse_copy_partitions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_empty_is_defaults),
        cmocka_unit_test(test_yaml_booleans),
        cmocka_unit_test(test_sections_and_block_quota),
        cmocka_unit_test(test_partitions_list),
        cmocka_unit_test(test_quoted_yes_stays_a_string),
        cmocka_unit_test(test_must_fail),
        cmocka_unit_test(test_partitions_and_preemption),
        cmocka_unit_test(test_partitions_oom),
        cmocka_unit_test(test_alias_blowup_stops),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

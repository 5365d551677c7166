/* test_policy.c - the policy key table: gs_policy_set paths and errors,
 * enums, durations, quotas, runtime caps, map/section queries, and deep
 * copies.  Expected values follow policy.h and DESIGN.md section 3 (the
 * seed's policy example must load unchanged; durations 30s, 30m, 4h, 2d).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#define MS(x) ((gs_time)(x))

/* gs_parse_duration: numbers with an optional unit s, m, h, d. */
static void test_parse_duration(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc;
        gs_time ms;
    } rows[] = {
        { "30s", 0, MS(30000) },          /* 30 x 1000 */
        { "30m", 0, MS(1800000) },        /* 30 x 60 x 1000 */
        { "4h", 0, MS(14400000) },        /* 4 x 3600 x 1000 */
        { "2d", 0, MS(172800000) },       /* 2 x 86400 x 1000 */
        { "1.5h", 0, MS(5400000) },       /* 1.5 x 3600 x 1000 */
        { "90", 0, MS(90000) },           /* no unit = seconds */
        { "0", 0, MS(0) },
        { "0.5s", 0, MS(500) },
        { "0.25m", 0, MS(15000) },        /* 0.25 x 60 s */
        { "", GS_EINVAL, 0 },
        { "abc", GS_EINVAL, 0 },
        { "-5m", GS_EINVAL, 0 },          /* negative */
        { "5x", GS_EINVAL, 0 },           /* unknown unit */
        { "5mm", GS_EINVAL, 0 },          /* trailing garbage */
        { "m", GS_EINVAL, 0 },            /* no number */
        { "4 h", GS_EINVAL, 0 },          /* space before the unit */
        { "4h ", GS_EINVAL, 0 },
        { "nan", GS_EINVAL, 0 },
        { "inf", GS_EINVAL, 0 },
        { "1e30d", GS_EINVAL, 0 },        /* does not fit gs_time */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gs_time out = -12345;
        int rc = gs_parse_duration(rows[i].text, &out);
        if (rc != rows[i].rc)
            fail_msg("'%s': rc %d want %d", rows[i].text, rc, rows[i].rc);
        if (rc == 0 && out != rows[i].ms)
            fail_msg("'%s': %lld ms want %lld", rows[i].text, (long long)out,
                     (long long)rows[i].ms);
        if (rc != 0)
            assert_int_equal(out, -12345); /* untouched on failure */
    }
    assert_int_equal(gs_parse_duration(NULL, &(gs_time){ 0 }), GS_EINVAL);
}

/* Enum keys: each accepted name sets its value. */
static void test_set_enums(void **state)
{
    (void)state;
    struct gs_policy p;
    gs_policy_init(&p);
    static const struct {
        const char *path, *value;
        size_t offset;
        int expect;
    } rows[] = {
        { "queue.policy", "priority", offsetof(struct gs_policy, queue_policy), GS_QUEUE_PRIORITY },
        { "queue.policy", "priority_with_backfill", offsetof(struct gs_policy, queue_policy),
          GS_QUEUE_PRIORITY_BACKFILL },
        { "queue.policy", "fifo", offsetof(struct gs_policy, queue_policy), GS_QUEUE_FIFO },
        { "queue.backfill", "true", offsetof(struct gs_policy, backfill), GS_BACKFILL_EASY },
        { "queue.backfill", "false", offsetof(struct gs_policy, backfill), GS_BACKFILL_NONE },
        { "queue.backfill", "conservative", offsetof(struct gs_policy, backfill),
          GS_BACKFILL_CONSERVATIVE },
        { "queue.backfill", "easy", offsetof(struct gs_policy, backfill), GS_BACKFILL_EASY },
        { "queue.duration_estimate", "from_history", offsetof(struct gs_policy, estimate),
          GS_EST_HISTORY },
        { "queue.duration_estimate", "oracle", offsetof(struct gs_policy, estimate),
          GS_EST_ORACLE },
        { "queue.duration_estimate", "user", offsetof(struct gs_policy, estimate), GS_EST_USER },
        { "placement.strategy", "spread", offsetof(struct gs_policy, strategy), GS_PLACE_SPREAD },
        { "placement.strategy", "pack", offsetof(struct gs_policy, strategy), GS_PLACE_PACK },
        { "placement.topology", "any", offsetof(struct gs_policy, topology), GS_TOPO_ANY },
        { "placement.topology", "node", offsetof(struct gs_policy, topology), GS_TOPO_NODE },
        { "placement.topology", "domain", offsetof(struct gs_policy, topology), GS_TOPO_DOMAIN },
        { "placement.sharing", "exclusive", offsetof(struct gs_policy, sharing),
          GS_SHARING_EXCLUSIVE },
        { "queue.quota_mode", "borrow", offsetof(struct gs_policy, quota_mode),
          GS_QUOTA_BORROW },
        { "queue.estimate_quantile", "p50", offsetof(struct gs_policy, estimate_quantile), 50 },
        { "queue.estimate_quantile", "p90", offsetof(struct gs_policy, estimate_quantile), 90 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_error err = { 0 };
        int rc = gs_policy_set(&p, rows[i].path, rows[i].value, &err);
        if (rc != 0)
            fail_msg("%s=%s: %s", rows[i].path, rows[i].value, err.msg);
        int got = *(const int *)((const char *)&p + rows[i].offset);
        if (got != rows[i].expect)
            fail_msg("%s=%s: got %d want %d", rows[i].path, rows[i].value, got,
                     rows[i].expect);
    }
    gs_policy_fini(&p);
}

/* A bad enum value is GS_EINVAL with a message naming the key and listing
 * the choices; the field keeps its value. */
static void test_bad_enum_lists_choices(void **state)
{
    (void)state;
    static const struct {
        const char *path, *value;
        const char *choices[3];
    } rows[] = {
        { "queue.policy", "lifo", { "fifo", "priority", "priority_with_backfill" } },
        { "placement.strategy", "random", { "pack", "spread", NULL } },
        { "queue.duration_estimate", "guess", { "user", "from_history", "oracle" } },
        { "queue.backfill", "maybe", { "true", "false", "conservative" } },
        { "placement.topology", "rack", { "domain", "node", "any" } },
        { "queue.estimate_quantile", "p75", { "p50", "p90", NULL } },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_policy p, before;
        gs_policy_init(&p);
        gs_policy_init(&before);
        struct gs_error err = { 0 };
        assert_int_equal(gs_policy_set(&p, rows[i].path, rows[i].value, &err), GS_EINVAL);
        assert_int_equal(err.code, GS_EINVAL);
        if (!strstr(err.msg, rows[i].path) || !strstr(err.msg, rows[i].value))
            fail_msg("message does not name key and value: %s", err.msg);
        for (int c = 0; c < 3 && rows[i].choices[c]; c++)
            if (!strstr(err.msg, rows[i].choices[c]))
                fail_msg("message does not list '%s': %s", rows[i].choices[c], err.msg);
        assert_memory_equal(&p, &before, sizeof p);
        gs_policy_fini(&p);
    }
}

/* Unknown keys are GS_ENOENT naming the key. */
static void test_unknown_keys(void **state)
{
    (void)state;
    static const char *const paths[] = {
        "queue.nope", "queue", "queue.policyx", "queue.policy.extra", "placement",
        "placement.strategy.pack", "nope.policy", "", "queue.quotas.team-a",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct gs_policy p;
        gs_policy_init(&p);
        struct gs_error err = { 0 };
        int rc = gs_policy_set(&p, paths[i], "fifo", &err);
        if (rc != GS_ENOENT)
            fail_msg("'%s': got %s want ENOENT", paths[i], gs_strerror(rc));
        if (!strstr(err.msg, paths[i]))
            fail_msg("message does not name '%s': %s", paths[i], err.msg);
        gs_policy_fini(&p);
    }
}

/* A gs_policy_set that must fail, and the code it must return. */
struct bad_set {
    const char *path, *value;
    int expect;
};

/* Every row of `bad` fails on `p` with its code and a message naming `key`
 * (NULL: the row's own path). */
static void expect_sets_fail(struct gs_policy *p, const struct bad_set *bad, size_t n,
                             const char *key)
{
    for (size_t i = 0; i < n; i++) {
        struct gs_error err = { 0 };
        int rc = gs_policy_set(p, bad[i].path, bad[i].value, &err);
        if (rc != bad[i].expect)
            fail_msg("%s='%s': got %s want %s", bad[i].path, bad[i].value, gs_strerror(rc),
                     gs_strerror(bad[i].expect));
        const char *name = key ? key : bad[i].path;
        if (!strstr(err.msg, name))
            fail_msg("message does not name '%s': %s", name, err.msg);
    }
}

/* Durations and numbers: values, and must-fail rows with their codes. */
static void test_set_numbers(void **state)
{
    (void)state;
    struct gs_policy p;
    gs_policy_init(&p);
    struct gs_error err = { 0 };
    assert_int_equal(gs_policy_set(&p, "queue.max_wait_before_aging", "30m", &err), 0);
    assert_int_equal(p.max_wait_before_aging, 1800000);
    assert_int_equal(gs_policy_set(&p, "queue.max_wait_before_aging", "1.5h", &err), 0);
    assert_int_equal(p.max_wait_before_aging, 5400000);
    assert_int_equal(gs_policy_set(&p, "queue.aging_rate", "2.5", &err), 0);
    assert_true(p.aging_rate == 2.5);
    assert_int_equal(gs_policy_set(&p, "metrics.k", "8", &err), 0);
    assert_int_equal(p.sched_k, 8);
    assert_int_equal(gs_policy_set(&p, "queue.reservations", "3", &err), 0);
    assert_int_equal(p.reservations, 3);
    static const struct bad_set bad[] = {
        { "queue.max_wait_before_aging", "soon", GS_EINVAL },
        { "queue.max_wait_before_aging", "-1m", GS_EINVAL },
        { "queue.max_wait_before_aging", "", GS_EINVAL },
        { "metrics.k", "-1", GS_ERANGE },       /* below 0 */
        { "metrics.k", "2.5", GS_EINVAL },      /* not an integer */
        { "metrics.k", "eight", GS_EINVAL },
        { "queue.reservations", "0", GS_ERANGE }, /* at least 1 */
        { "queue.aging_rate", "-1", GS_ERANGE },
        { "queue.aging_rate", "fast", GS_EINVAL },
    };
    expect_sets_fail(&p, bad, sizeof bad / sizeof bad[0], NULL);
    /* the failed sets left the good values alone */
    assert_int_equal(p.max_wait_before_aging, 5400000);
    assert_int_equal(p.sched_k, 8);
    assert_int_equal(p.reservations, 3);
    assert_true(p.aging_rate == 2.5);
    gs_policy_fini(&p);
}

/* Quota map entries: queue.quota.<team>. */
static void test_quota_map(void **state)
{
    (void)state;
    struct gs_policy p;
    gs_policy_init(&p);
    struct gs_error err = { 0 };
    assert_int_equal(gs_policy_quota(&p, "team-a"), -1);
    assert_int_equal(gs_policy_set(&p, "queue.quota.team-a", "12", &err), 0);
    assert_int_equal(gs_policy_set(&p, "queue.quota.team-b", "0", &err), 0);
    assert_int_equal(gs_policy_quota(&p, "team-a"), 12);
    assert_int_equal(gs_policy_quota(&p, "team-b"), 0);
    assert_int_equal(gs_policy_quota(&p, "team-c"), -1);
    assert_int_equal(p.nquotas, 2);
    static const struct bad_set bad[] = {
        { "queue.quota.team-a", "4", GS_EEXIST },  /* team given twice */
        { "queue.quota.team-c", "2.5", GS_EINVAL }, /* not whole GPUs */
        { "queue.quota.team-c", "-1", GS_ERANGE },
        { "queue.quota.team-c", "many", GS_EINVAL },
        { "queue.quota", "12", GS_EINVAL },        /* the map itself */
        { "queue.quota.", "12", GS_EINVAL },       /* empty team name */
    };
    expect_sets_fail(&p, bad, sizeof bad / sizeof bad[0], "queue.quota");
    assert_int_equal(p.nquotas, 2);
    assert_int_equal(gs_policy_quota(&p, "team-a"), 12);
    assert_int_equal(gs_policy_quota(&p, "team-c"), -1);
    gs_policy_fini(&p);
    assert_int_equal(p.nquotas, 0);
    assert_null(p.quotas);
}

/* runtime_cap: a duration, estimate_xN, or none. */
static void test_runtime_cap(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int rc;
        gs_time cap;
        double factor;
    } rows[] = {
        { "4h", 0, 14400000, 0 },            /* 4 x 3600 x 1000 ms */
        { "90m", 0, 5400000, 0 },
        { "estimate_x2", 0, GS_TIME_INF, 2 },
        { "estimate_x1.5", 0, GS_TIME_INF, 1.5 },
        { "none", 0, GS_TIME_INF, 0 },
        { "estimate_x", GS_EINVAL, 0, 0 },   /* no factor */
        { "estimate_x0.5", GS_EINVAL, 0, 0 },/* a cap below the estimate */
        { "estimate_xtwo", GS_EINVAL, 0, 0 },
        { "-1h", GS_EINVAL, 0, 0 },
        { "forever", GS_EINVAL, 0, 0 },
        { "4hours", GS_EINVAL, 0, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_policy p;
        gs_policy_init(&p);
        struct gs_error err = { 0 };
        int rc = gs_policy_set(&p, "queue.runtime_cap", rows[i].value, &err);
        if (rc != rows[i].rc)
            fail_msg("'%s': got %s want %s", rows[i].value, gs_strerror(rc),
                     gs_strerror(rows[i].rc));
        if (rc == 0) {
            assert_int_equal(p.runtime_cap, rows[i].cap);
            assert_true(p.runtime_cap_factor == rows[i].factor);
        } else {
            assert_non_null(strstr(err.msg, "queue.runtime_cap"));
            /* default kept: no cap */
            assert_int_equal(p.runtime_cap, GS_TIME_INF);
            assert_true(p.runtime_cap_factor == 0);
        }
        gs_policy_fini(&p);
    }
    /* the last setting wins: a factor, then a duration */
    struct gs_policy p;
    gs_policy_init(&p);
    pol_set(&p, "queue.runtime_cap", "estimate_x3");
    pol_set(&p, "queue.runtime_cap", "4h");
    assert_int_equal(p.runtime_cap, 14400000);
    assert_true(p.runtime_cap_factor == 0);
    pol_set(&p, "queue.runtime_cap", "estimate_x3");
    assert_int_equal(p.runtime_cap, GS_TIME_INF);
    assert_true(p.runtime_cap_factor == 3);
    gs_policy_fini(&p);
}

/* The seed's policy example (DESIGN.md section 3) loads unchanged. */
static void test_seed_example_loads(void **state)
{
    (void)state;
    struct gs_policy p;
    gs_policy_init(&p);
    pol_set(&p, "queue.policy", "priority_with_backfill");
    pol_set(&p, "queue.max_wait_before_aging", "30m");
    pol_set(&p, "queue.quota.team-a", "12");
    pol_set(&p, "queue.quota.team-b", "12");
    pol_set(&p, "queue.backfill", "true");
    pol_set(&p, "queue.duration_estimate", "from_history");
    assert_int_equal(p.queue_policy, GS_QUEUE_PRIORITY_BACKFILL);
    assert_int_equal(p.max_wait_before_aging, 1800000);
    assert_int_equal(gs_policy_quota(&p, "team-a"), 12);
    assert_int_equal(gs_policy_quota(&p, "team-b"), 12);
    assert_int_equal(p.backfill, GS_BACKFILL_EASY);
    assert_int_equal(p.estimate, GS_EST_HISTORY);
    gs_policy_fini(&p);
}

/* Defaults that the engine relies on: no quotas, no runtime cap. */
static void test_defaults(void **state)
{
    (void)state;
    struct gs_policy p;
    gs_policy_init(&p);
    assert_int_equal(p.nquotas, 0);
    assert_null(p.quotas);
    assert_int_equal(p.runtime_cap, GS_TIME_INF);
    assert_true(p.runtime_cap_factor == 0);
    assert_int_equal(p.sched_k, 0);       /* 0 = largest domain */
    assert_int_equal(p.topology, GS_TOPO_AUTO);
    gs_policy_fini(&p);
    gs_policy_fini(NULL);                 /* no-op */
}

/* Map and section queries used by the YAML reader. */
static void test_map_and_section(void **state)
{
    (void)state;
    assert_true(gs_policy_is_map("queue.quota"));
    assert_false(gs_policy_is_map("queue.policy"));
    assert_false(gs_policy_is_map("queue.quota.team-a"));
    assert_false(gs_policy_is_map("queue"));
    assert_false(gs_policy_is_map("nope"));
    assert_true(gs_policy_is_section("queue"));
    assert_true(gs_policy_is_section("placement"));
    assert_true(gs_policy_is_section("metrics"));
    assert_false(gs_policy_is_section("queue.policy"));
    assert_false(gs_policy_is_section("que"));
    assert_false(gs_policy_is_section("nope"));
}

/* Names of enum values for reports. */
static void test_names(void **state)
{
    (void)state;
    assert_string_equal(gs_policy_queue_name(GS_QUEUE_FIFO), "fifo");
    assert_string_equal(gs_policy_queue_name(GS_QUEUE_PRIORITY_BACKFILL),
                        "priority_with_backfill");
    assert_string_equal(gs_policy_strategy_name(GS_PLACE_PACK), "pack");
    assert_string_equal(gs_policy_strategy_name(GS_PLACE_SPREAD), "spread");
    assert_string_equal(gs_policy_estimate_name(GS_EST_HISTORY), "from_history");
    assert_string_equal(gs_policy_backfill_name(GS_BACKFILL_NONE), "none");
    assert_string_equal(gs_policy_backfill_name(GS_BACKFILL_CONSERVATIVE), "conservative");
}

/* gs_policy_copy is deep: the copy owns its quota table and outlives the
 * source. */
static void test_copy_is_deep(void **state)
{
    (void)state;
    struct gs_policy src, dst;
    gs_policy_init(&src);
    pol_set(&src, "queue.quota.team-a", "12");
    pol_set(&src, "queue.quota.team-b", "4");
    pol_set(&src, "placement.strategy", "spread");
    pol_set(&src, "queue.runtime_cap", "4h");
    assert_int_equal(gs_policy_copy(&dst, &src), 0);
    assert_ptr_not_equal(dst.quotas, src.quotas);
    assert_ptr_not_equal(dst.quotas[0].team, src.quotas[0].team);
    /* change the source's team name in place, then free it */
    src.quotas[0].team[0] = 'X';
    gs_policy_fini(&src);
    assert_int_equal(dst.nquotas, 2);
    assert_int_equal(gs_policy_quota(&dst, "team-a"), 12);
    assert_int_equal(gs_policy_quota(&dst, "team-b"), 4);
    assert_int_equal(dst.strategy, GS_PLACE_SPREAD);
    assert_int_equal(dst.runtime_cap, 14400000);
    /* a copy without quotas owns nothing */
    struct gs_policy empty, e2;
    gs_policy_init(&empty);
    assert_int_equal(gs_policy_copy(&e2, &empty), 0);
    assert_null(e2.quotas);
    gs_policy_fini(&e2);
    gs_policy_fini(&dst);
}

/* Copy under allocation failure: GS_ENOMEM and an empty, finable copy. */
static void test_copy_oom(void **state)
{
    (void)state;
    struct gs_policy src;
    gs_policy_init(&src);
    pol_set(&src, "queue.quota.team-a", "12");
    pol_set(&src, "queue.quota.team-b", "4");
    for (long n = 1;; n++) {
        struct gs_policy dst;
        tu_oom_arm(n);
        int rc = gs_policy_copy(&dst, &src);
        int failed = tu_oom_state.failed > 0;
        tu_oom_pause();
        if (failed) {
            assert_int_equal(rc, GS_ENOMEM);
            assert_int_equal(dst.nquotas, 0);
        } else {
            assert_int_equal(rc, 0);
            assert_int_equal(gs_policy_quota(&dst, "team-b"), 4);
        }
        gs_policy_fini(&dst);
        tu_oom_end(n);
        if (!failed)
            break;
    }
    gs_policy_fini(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_duration),
        cmocka_unit_test(test_set_enums),
        cmocka_unit_test(test_bad_enum_lists_choices),
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_set_numbers),
        cmocka_unit_test(test_quota_map),
        cmocka_unit_test(test_runtime_cap),
        cmocka_unit_test(test_seed_example_loads),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_map_and_section),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_copy_is_deep),
        cmocka_unit_test(test_copy_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

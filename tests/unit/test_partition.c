/* test_partition.c - partitions (issue 5): hard node partitions, quota
 * partitions with borrowing reclaimed by preemption, granularity, class
 * and label assignment, resolution errors, and per-class preemption
 * modes.  Expected numbers are derived in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ptestutil.h"

/* A partition described by its keys, for policies built in code. */
struct tpart {
    const char *name, *nodes, *share, *classes, *granularity, *mode, *borrow;
};

static void add_parts(struct gs_policy *p, const struct tpart *parts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct gs_error err = { 0 };
        assert_int_equal(gs_policy_list_add(p, "partitions", &err), 0);
        const char *kv[] = { "partitions.name", parts[i].name, "partitions.nodes",
                             parts[i].nodes, "partitions.share", parts[i].share,
                             "partitions.classes", parts[i].classes,
                             "partitions.granularity", parts[i].granularity,
                             "partitions.preemption", parts[i].mode, "partitions.borrow",
                             parts[i].borrow };
        for (size_t k = 0; k < sizeof kv / sizeof kv[0]; k += 2)
            if (kv[k + 1])
                pol_set(p, kv[k], kv[k + 1]);
    }
}

struct trun {
    struct gs_cluster *cl;
    struct gs_policy pol;
    struct gs_trace *tr;
    struct recorder rec;
    struct gs_sim_result res;
};

static void trun(struct trun *r, const char *desc, const char *const *kv,
                 const struct tpart *parts, size_t np, const struct pjob *rows, size_t n)
{
    r->cl = cluster_of(desc);
    ppolicy(&r->pol, kv);
    add_parts(&r->pol, parts, np);
    r->tr = ptrace(rows, n);
    psim(r->cl, &r->pol, r->tr, &r->rec, &r->res);
}

static void tdone(struct trun *r)
{
    gs_sim_result_fini(&r->res);
    gs_trace_destroy(r->tr);
    gs_policy_fini(&r->pol);
    gs_cluster_destroy(r->cl);
}

static int start_node(const struct trun *r, const char *id)
{
    int i = pfind(&r->rec, r->res.engine, 0, GS_EV_START, id);
    if (i < 0)
        fail_msg("%s never started", id);
    return r->rec.ev[i].parts[0].node;
}

/* Hard partitions.  n1:8 n2:8; "serve" = n1 (infer), "batch" = n2 (train).
 * T1 and T2 (train, 8 GPUs, 1000 s) at 0: T1 on n2, T2 waits for n2 even
 * though n1 is idle, starts at 1000.  I (infer, 1 GPU) at 10 starts at
 * once on n1 (behind the blocked T2 it backfills: T2's reservation is on
 * n2; under strict FIFO one queue would hold it behind T2). */
static void test_hard_partitions(void **state)
{
    (void)state;
    static const struct tpart parts[] = {
        { "serve", "n1", NULL, "infer", NULL, NULL, NULL },
        { "batch", "n2", NULL, "train", NULL, NULL, NULL },
    };
    static const struct pjob jobs[] = {
        { .id = "T1", .gpus = 8, .dur_s = 1000 },
        { .id = "T2", .gpus = 8, .dur_s = 1000 },
        { .id = "I", .submit_s = 10, .gpus = 1, .dur_s = 30, .infer = 1 },
    };
    const char *kv[] = { "queue.policy", "priority_with_backfill", "queue.duration_estimate",
                         "oracle", NULL };
    struct trun r;
    trun(&r, "n1:8 n2:8", kv, parts, 2, jobs, 3);
    assert_int_equal(start_node(&r, "T1"), node_of(r.cl, "n2"));
    assert_int_equal(start_node(&r, "T2"), node_of(r.cl, "n2"));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "T2", SEC(1000));
    assert_int_equal(start_node(&r, "I"), node_of(r.cl, "n1"));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "I", SEC(10));
    assert_string_equal(gs_engine_partition_name(r.res.engine, 2), "serve");
    tdone(&r);
}

/* One pool with quotas: infer share 0.25 (2 of 8 GPUs), train 0.75 (6).
 *  borrow: T (train, 8 GPUs) borrows infer's 2 idle GPUs at 0.  I (infer,
 *   1 GPU) at 100 is within its quota: T's partition is over its own, so
 *   T is preempted (train partition: immediate) and loses 100 s; I runs
 *   100-130.  T (8 > 6 + the 1 GPU infer could lend while I runs) waits
 *   until I ends, restarts at 130, ends 130 + 1000 = 1130.
 *  strict: T asks 6, T2 (train, 2) waits at 0 although 2 GPUs are idle
 *   (quota), I starts at 100 on them; T2 starts when T ends (1000). */
static void test_quota_pool_borrow_reclaim(void **state)
{
    (void)state;
    static const struct tpart parts[] = {
        { "infer", NULL, "0.25", "infer", NULL, NULL, NULL },
        { "train", NULL, "0.75", "train", NULL, "immediate", "true" },
    };
    static const struct pjob jobs[] = {
        { .id = "T", .gpus = 8, .dur_s = 1000 },
        { .id = "I", .submit_s = 100, .gpus = 1, .dur_s = 30, .infer = 1 },
    };
    struct trun r;
    trun(&r, "n1:8", NULL, parts, 2, jobs, 2);
    passert_at(&r.rec, r.res.engine, GS_EV_START, "T", 0);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "T", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "I", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_FINISH, "T", SEC(1130));
    assert_int_equal(job_named(r.res.engine, "T").lost, SEC(100));
    tdone(&r);

    static const struct tpart strict[] = {
        { "infer", NULL, "0.25", "infer", NULL, NULL, NULL },
        { "train", NULL, "0.75", "train", NULL, "immediate", NULL },
    };
    static const struct pjob jobs2[] = {
        { .id = "T", .gpus = 6, .dur_s = 1000 },
        { .id = "T2", .gpus = 2, .dur_s = 1000 },
        { .id = "I", .submit_s = 100, .gpus = 1, .dur_s = 30, .infer = 1 },
    };
    const char *kv[] = { "queue.policy", "priority_with_backfill", NULL };
    trun(&r, "n1:8", kv, strict, 2, jobs2, 3);
    passert_at(&r.rec, r.res.engine, GS_EV_START, "I", SEC(100));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "T2", SEC(1000));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, NULL), 0);
    tdone(&r);
}

/* Granularity: in an exclusive partition a half-GPU job gets a whole GPU.
 * n1:2, one partition for everything; two 0.5-GPU jobs at 0.
 *  shared: both on GPU 0 (pack);  exclusive: GPUs 0 and 1. */
static void test_granularity(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "a", .gpus = 1, .dur_s = 100, .milli = 500, .infer = 1 },
        { .id = "b", .gpus = 1, .dur_s = 100, .milli = 500, .infer = 1 },
    };
    static const char *const gran[] = { "shared", "exclusive" };
    static const uint64_t b_mask[] = { 0x1, 0x2 };
    for (int g = 0; g < 2; g++) {
        const struct tpart parts[] = { { "all", NULL, NULL, NULL, gran[g], NULL, NULL } };
        struct trun r;
        trun(&r, "n1:2", NULL, parts, 1, jobs, 2);
        int i = pfind(&r.rec, r.res.engine, 0, GS_EV_START, "b");
        assert_int_equal(r.rec.ev[i].parts[0].mask, b_mask[g]);
        assert_int_equal(r.rec.ev[i].time, 0);
        tdone(&r);
    }
}

/* Assignment: the queue label names a partition when it takes the class;
 * a class no partition takes is rejected.  n1:4 n2:4; "a" = n1 and "b" =
 * n2, both train only.  J1 (label b) goes to n2 although n1 comes first;
 * J2 (no label) to n1; I (infer) is rejected. */
static void test_assignment(void **state)
{
    (void)state;
    static const struct tpart parts[] = {
        { "a", "n1", NULL, "train", NULL, NULL, NULL },
        { "b", "n2", NULL, "train", NULL, NULL, NULL },
    };
    static const struct pjob jobs[] = {
        { .id = "J1", .gpus = 2, .dur_s = 100, .queue = "b" },
        { .id = "J2", .gpus = 2, .dur_s = 100 },
        { .id = "I", .gpus = 1, .dur_s = 100, .infer = 1 },
    };
    struct trun r;
    trun(&r, "n1:4 n2:4", NULL, parts, 2, jobs, 3);
    assert_int_equal(start_node(&r, "J1"), node_of(r.cl, "n2"));
    assert_int_equal(start_node(&r, "J2"), node_of(r.cl, "n1"));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_REJECT, "I"), 1);
    assert_int_equal(job_named(r.res.engine, "I").state, GS_JOB_REJECTED);
    tdone(&r);
}

/* Resolving partitions against the cluster: must-fail rows. */
static void test_resolve_errors(void **state)
{
    (void)state;
    static const struct {
        struct tpart p[2];
        int np;
        const char *msg;
    } rows[] = {
        { { { "x", "n9", NULL, NULL, NULL, NULL, NULL } }, 1, "partition x: no node 'n9'" },
        { { { "x", "n1", NULL, NULL, NULL, NULL, NULL }, { "y", "n[1-2]", NULL, NULL, NULL,
                                                            NULL, NULL } },
          2, "partition y: node n1 is already in another partition" },
        { { { "x", "n1", "0.5", NULL, NULL, NULL, NULL } }, 1, "give nodes or gpus/share" },
        { { { "x", "n[1-2]", NULL, NULL, NULL, NULL, NULL }, { "y", NULL, "0.5", NULL, NULL,
                                                              NULL, NULL } },
          2, "partition y: every node is bound" },
        { { { "x", "n[2-1]", NULL, NULL, NULL, NULL, NULL } }, 1, "no node 'n[2-1]'" },
    };
    struct gs_cluster *cl = cluster_of("n1:4 n2:4");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_policy pol;
        gs_policy_init(&pol);
        add_parts(&pol, rows[i].p, (size_t)rows[i].np);
        struct gs_error err = { 0 };
        struct gs_engine *eng = gs_engine_create(cl, &pol, &err);
        if (eng || err.code != GS_EINVAL || !strstr(err.msg, rows[i].msg))
            fail_msg("row %zu: got %s '%s', want EINVAL '%s'", i, gs_strerror(err.code),
                     err.msg, rows[i].msg);
        gs_policy_fini(&pol);
    }
    gs_cluster_destroy(cl);
    /* bracket ranges, lists and several brackets resolve (formats.md) */
    static const char *const ok[] = { "n[1,2]", "n[1-2]", "r[1-2]n[1-2]", "r[1]n[01-02]" };
    static const char *const desc[] = { "n1:4 n2:4", "n1:4 n2:4", "r1n1:1 r1n2:1 r2n1:1 r2n2:1",
                                        "r1n01:1 r1n02:1" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cl = cluster_of(desc[i]);
        struct gs_policy pol;
        gs_policy_init(&pol);
        const struct tpart p[] = { { "x", ok[i], NULL, NULL, NULL, NULL, NULL } };
        add_parts(&pol, p, 1);
        struct gs_error err = { 0 };
        struct gs_engine *eng = gs_engine_create(cl, &pol, &err);
        if (!eng)
            fail_msg("%s: %s", ok[i], err.msg);
        gs_engine_destroy(eng);
        gs_policy_fini(&pol);
        gs_cluster_destroy(cl);
    }
}

/* Per-class modes: preemption.mode none, train_mode immediate.  n1:1.
 * T (train, 1 GPU) at 0; I (infer, prio 10, 0.5 GPU) at 50 preempts T
 * (a fractional waiter frees the GPU it needs).  Then I2 (infer, prio 20,
 * 1 GPU) at 60 may not preempt I (infer: none) and waits until I ends
 * at 80. */
static void test_class_modes(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "T", .gpus = 1, .dur_s = 1000 },
        { .id = "I", .submit_s = 50, .gpus = 1, .dur_s = 30, .prio = 10, .infer = 1,
          .milli = 500 },
        { .id = "I2", .submit_s = 60, .gpus = 1, .dur_s = 30, .prio = 20, .infer = 1 },
    };
    const char *kv[] = { "queue.policy", "priority", "preemption.train_mode", "immediate",
                         NULL };
    struct trun r;
    trun(&r, "n1:1", kv, NULL, 0, jobs, 3);
    passert_at(&r.rec, r.res.engine, GS_EV_PREEMPT, "T", SEC(50));
    passert_at(&r.rec, r.res.engine, GS_EV_START, "I", SEC(50));
    assert_int_equal(pcount(&r.rec, r.res.engine, GS_EV_PREEMPT, "I"), 0);
    passert_at(&r.rec, r.res.engine, GS_EV_START, "I2", SEC(80));
    tdone(&r);
}

/* Partition usage returns to zero and the cluster stays consistent after
 * a churn of preemptions (psim runs gs_cluster_check after every step). */
static void test_churn_consistent(void **state)
{
    (void)state;
    struct pjob jobs[40];
    char ids[40][16];
    for (int i = 0; i < 40; i++) {
        snprintf(ids[i], sizeof ids[i], "j%d", i);
        jobs[i] = (struct pjob){ .id = ids[i], .submit_s = i * 37 % 400, .gpus = 1 + i % 4,
                                 .dur_s = 50 + i * 13 % 300, .prio = i % 5, .infer = i % 3 == 0,
                                 .ckpt_i = i % 2 ? 40 : 0, .ckpt_c = 5 };
        if (jobs[i].infer) {
            jobs[i].gpus = 1;
            jobs[i].milli = i % 2 ? 500 : 0;
        }
    }
    static const struct tpart parts[] = {
        { "infer", NULL, "0.25", "infer", NULL, NULL, "true" },
        { "train", NULL, "0.75", "train", NULL, "checkpoint", "true" },
    };
    const char *kv[] = { "queue.policy", "priority_with_backfill", "preemption.mode",
                         "checkpoint", "preemption.grace", "20s", "preemption.restore_cost",
                         "3s", NULL };
    struct trun r;
    trun(&r, "n1:4 n2:4", kv, parts, 2, jobs, 40);
    assert_int_equal(r.res.summary.completed, 40);
    assert_true(r.res.summary.pre.total.preemptions > 0);
    tdone(&r);
}

/* OOM sweep: fail the Nth allocation of a whole replay with partitions,
 * borrowing, preemption and grace drains; every run ends in success or
 * GS_ENOMEM with nothing leaked. */
static void test_oom_sweep(void **state)
{
    (void)state;
    static const struct pjob jobs[] = {
        { .id = "T1", .gpus = 4, .dur_s = 500, .ckpt_i = 50, .ckpt_c = 5 },
        { .id = "T2", .gpus = 4, .dur_s = 500 },
        { .id = "T3", .submit_s = 10, .gpus = 2, .dur_s = 300, .ckpt_i = 40, .ckpt_c = 4 },
        { .id = "I1", .submit_s = 120, .gpus = 1, .dur_s = 30, .prio = 10, .infer = 1 },
        { .id = "I2", .submit_s = 130, .gpus = 1, .dur_s = 30, .prio = 10, .infer = 1,
          .milli = 500 },
        { .id = "T4", .submit_s = 140, .gpus = 8, .dur_s = 100, .prio = 5 },
    };
    static const struct tpart parts[] = {
        { "infer", NULL, "0.25", "infer", NULL, NULL, NULL },
        { "train", NULL, "0.75", "train", NULL, NULL, "true" },
    };
    const char *kv[] = { "queue.policy", "priority", "preemption.mode", "checkpoint",
                         "preemption.grace", "30s", "preemption.restore_cost", "2s", NULL };
    struct gs_cluster *cl = cluster_of("n1:4 n2:4");
    struct gs_policy pol;
    ppolicy(&pol, kv);
    add_parts(&pol, parts, 2);
    struct gs_trace *tr = ptrace(jobs, 6);
    int64_t preempts = -1;
    for (long n = 1;; n++) {
        tu_oom_arm(n);
        struct gs_sim_result res;
        struct gs_error err = { 0 };
        int rc = gs_sim_run(cl, &pol, tr, NULL, &res, &err);
        tu_oom_pause();
        if (rc == 0) {
            preempts = res.summary.pre.total.preemptions;
            gs_sim_result_fini(&res);
        } else if (rc != GS_ENOMEM) {
            fail_msg("allocation %ld: %s (%s)", n, err.msg, gs_strerror(rc));
        }
        long failed = tu_oom_state.failed;
        tu_oom_end(n);
        if (rc == 0 && failed == 0) {
            print_message("oom sweep: %ld allocations\n", n);
            break;
        }
    }
    assert_true(preempts > 0);
    gs_trace_destroy(tr);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hard_partitions),
        cmocka_unit_test(test_quota_pool_borrow_reclaim),
        cmocka_unit_test(test_granularity),
        cmocka_unit_test(test_assignment),
        cmocka_unit_test(test_resolve_errors),
        cmocka_unit_test(test_class_modes),
        cmocka_unit_test(test_churn_consistent),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

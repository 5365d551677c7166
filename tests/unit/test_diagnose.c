/* test_diagnose.c - pending reasons with numbers (gs_engine_explain), the
 * per-pass reason codes and the time-weighted wait split (issue 6).
 *
 * Each scenario is a hand-built snapshot: busy GPUs are running jobs
 * restored on exact GPUs (gs_engine_restore_job, no duration estimate
 * unless stated), then the queued jobs are submitted and one pass runs.
 * Every expected number is derived in the comment above its assertion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "core/diagnose/diagnose.h"
#include "core/metrics/metrics.h"

struct fix {
    struct gs_cluster *cl;
    struct gs_policy pol;
    struct gs_engine *eng;
    int nbusy;
};

/* A fixture on cluster `desc` under a copy of `pol` (NULL: fifo_pack),
 * with each "key", "value" pair of `kv` (may be NULL) set on top. */
static struct fix *fix_make(const char *desc, const struct gs_policy *pol, const char *const *kv)
{
    struct fix *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->cl = cluster_of(desc);
    if (pol)
        assert_int_equal(gs_policy_copy(&f->pol, pol), 0);
    else
        fifo_pack(&f->pol);
    pol_set_all(&f->pol, kv);
    struct gs_error err = { 0 };
    f->eng = gs_engine_create(f->cl, &f->pol, &err);
    if (!f->eng)
        fail_msg("gs_engine_create: %s", err.msg);
    return f;
}

/* A fixture under fifo_pack plus the pairs of `kv` (may be NULL). */
static struct fix *fix_new(const char *desc, const char *const *kv)
{
    return fix_make(desc, NULL, kv);
}

static void fix_free(struct fix *f)
{
    gs_engine_destroy(f->eng);
    gs_cluster_destroy(f->cl);
    gs_policy_fini(&f->pol);
    free(f);
}

/* A running job on exactly `mask` of `node` since t=0 (share `milli`,
 * `mem_mib` per GPU, team, and an estimate of `est_s` seconds, 0 = none). */
static int busy_full(struct fix *f, const char *node, uint64_t mask, int milli, int64_t mem_mib,
                     const char *team, double est_s)
{
    char id[32];
    snprintf(id, sizeof id, "busy%d", f->nbusy++);
    struct gs_job_spec s = spec_of(id, 0, __builtin_popcountll(mask));
    s.milli = milli;
    s.team = team;
    if (est_s > 0)
        s.time_limit = SEC(est_s);
    struct gs_job_info info = { 0 };
    info.state = GS_JOB_RUNNING;
    info.submit = info.first_start = info.start = 0;
    info.end = GS_TIME_NONE;
    info.estimate = est_s > 0 ? SEC(est_s) : GS_TIME_NONE;
    struct gs_alloc_part part = { node_of(gs_engine_cluster(f->eng), node), mask };
    struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &part, .milli = milli,
                          .mem_mib = mem_mib };
    struct gs_error err = { 0 };
    int h = gs_engine_restore_job(f->eng, &s, &info, &a, &err);
    if (h < 0)
        fail_msg("restore %s: %s", id, err.msg);
    return h;
}

static int busy(struct fix *f, const char *node, uint64_t mask)
{
    return busy_full(f, node, mask, GS_MILLI_GPU, 0, NULL, 0);
}

/* fix_new(desc, NULL) with a running job on GPUs `masks[i]` of node i for
 * each of the first `n` nodes (0: idle), restored in node order. */
static struct fix *fix_busy(const char *desc, const uint64_t *masks, int n)
{
    struct fix *f = fix_new(desc, NULL);
    for (int i = 0; i < n; i++)
        if (masks[i])
            busy(f, gs_cluster_node_name(f->cl, i), masks[i]);
    return f;
}

static int submit_spec(struct fix *f, gs_time now, struct gs_job_spec *s)
{
    struct gs_error err = { 0 };
    int h = gs_engine_submit(f->eng, now, s, &err);
    if (h < 0)
        fail_msg("submit %s: %s", s->id, err.msg);
    return h;
}

static int submit(struct fix *f, gs_time now, const char *id, int gpus)
{
    struct gs_job_spec s = spec_of(id, now, gpus);
    return submit_spec(f, now, &s);
}

static void step(struct fix *f, gs_time now)
{
    struct gs_error err = { 0 };
    if (gs_engine_step(f->eng, now, &err) < 0)
        fail_msg("step: %s", err.msg);
}

static struct gs_diag explain(struct fix *f, int job)
{
    struct gs_diag d;
    int rc = gs_engine_explain(f->eng, job, &d);
    if (rc != 0)
        fail_msg("explain %d: %s", job, gs_strerror(rc));
    return d;
}

/* Submit `s` at 0, run one pass and explain it (its handle in *job when
 * job is not NULL). */
static struct gs_diag explain_spec(struct fix *f, struct gs_job_spec *s, int *job)
{
    int j = submit_spec(f, 0, s);
    step(f, 0);
    if (job)
        *job = j;
    return explain(f, j);
}

/* explain_spec for a plain job `id` of `gpus` GPUs. */
static struct gs_diag explain_new(struct fix *f, const char *id, int gpus)
{
    struct gs_job_spec s = spec_of(id, 0, gpus);
    return explain_spec(f, &s, NULL);
}

static int has(const struct gs_diag *d, int code)
{
    return (d->codes & (1u << code)) != 0;
}

/* The seed's snapshot: four 8-GPU nodes, busy node-1 0-5, node-2 0-4,
 * node-4 0; free 2, 3, 8, 7 = 20. */
static void seed_busy(struct fix *f)
{
    busy(f, "node-1", 0x3F);
    busy(f, "node-2", 0x1F);
    busy(f, "node-4", 0x01);
}

/* Seed: an 8-GPU job fits node-3 (the only node with 8 free) and starts;
 * a second 8-GPU job then sees free 2 + 3 + 0 + 7 = 12 >= 8 but no node
 * with 8: count fragmentation; best node node-4 with 7, so freeing
 * 8 - 7 = 1 GPU there unblocks it. */
static void test_seed_count_fragmentation(void **state)
{
    (void)state;
    struct fix *f = fix_new("node-1:8 node-2:8 node-3:8 node-4:8", NULL);
    seed_busy(f);
    int big = submit(f, 0, "big", 8), big2 = submit(f, 0, "big2", 8);
    step(f, 0);
    struct gs_job_info ji;
    gs_engine_job_info(f->eng, big, &ji);
    assert_int_equal(ji.state, GS_JOB_RUNNING);
    struct gs_alloc a;
    assert_int_equal(gs_engine_job_alloc(f->eng, big, &a), 0);
    assert_int_equal(a.parts[0].node, node_of(f->cl, "node-3"));
    assert_int_equal(gs_engine_wait_reason(f->eng, big2), GS_REASON_COUNT_FRAG);
    struct gs_diag d = explain(f, big2);
    assert_int_equal(d.reason, GS_REASON_COUNT_FRAG);
    assert_int_equal(d.free_gpus, 12);
    assert_int_equal(d.best_node, node_of(f->cl, "node-4"));
    assert_int_equal(d.best_node_free, 7);
    assert_int_equal(d.unblock_gpus, 1);
    assert_int_equal(d.unblock_node, node_of(f->cl, "node-4"));
    /* busy GPUs have no estimate: the start cannot be told */
    assert_int_equal(d.est_basis, GS_BASIS_UNKNOWN);
    fix_free(f);
}

/* Seed with node-3 split [4,4]: 20 GPUs free, node-3 has 8 free but 4+4
 * across NVLink domains; the largest free block inside one domain is 7
 * (node-4): topology fragmentation, free 8 - 7 = 1 GPU on node-4. */
static void test_seed_topology_fragmentation(void **state)
{
    (void)state;
    struct fix *f = fix_new("node-1:8 node-2:8 node-3:8:[4,4] node-4:8", NULL);
    seed_busy(f);
    int big = submit(f, 0, "big", 8);
    step(f, 0);
    assert_int_equal(gs_engine_wait_reason(f->eng, big), GS_REASON_TOPOLOGY_FRAG);
    struct gs_diag d = explain(f, big);
    assert_int_equal(d.reason, GS_REASON_TOPOLOGY_FRAG);
    assert_int_equal(d.codes, 1u << GS_REASON_TOPOLOGY_FRAG);
    assert_int_equal(d.rule, GS_TOPO_DOMAIN);
    assert_int_equal(d.free_gpus, 20);
    assert_int_equal(d.best_node, node_of(f->cl, "node-3"));
    assert_int_equal(d.best_node_free, 8);
    assert_int_equal(d.best_node_ndom, 2);
    assert_int_equal(d.best_node_dom_free[0], 4);
    assert_int_equal(d.best_node_dom_free[1], 4);
    assert_int_equal(d.best_dom_free, 7);
    assert_int_equal(d.best_dom_node, node_of(f->cl, "node-4"));
    assert_int_equal(d.unblock_gpus, 1);
    fix_free(f);
}

/* 32 GPUs, 29 busy: a 4-GPU job sees 3 free, shortage by 1. */
static void test_shortage(void **state)
{
    (void)state;
    static const uint64_t masks[] = { 0xFF, 0xFF, 0xFF, 0x1F };
    struct fix *f = fix_busy("n1:8 n2:8 n3:8 n4:8", masks, 4);
    struct gs_diag d = explain_new(f, "J", 4);
    assert_int_equal(d.reason, GS_REASON_SHORTAGE);
    assert_int_equal(d.free_gpus, 3);
    assert_int_equal(d.cluster_free_gpus, 3);
    assert_int_equal(d.unblock_gpus, 1);
    fix_free(f);
}

/* Whole-GPU memory: a 2-GPU job needing 60 GiB per GPU cannot use the
 * A100s (40 GiB).  Free: 8 A100 + 1 H100 = 9 >= 2, but only 1 GPU with
 * the memory: memory fragmentation, 2 - 1 = 1 more GPU with 60 GiB. */
static void test_memory_whole_gpus(void **state)
{
    (void)state;
    struct fix *f = fix_new("a:8:[8]:A100 h:8", NULL);
    busy(f, "h", 0x7F);
    struct gs_job_spec s = spec_of("M", 0, 2);
    s.mem_mib = 60 * 1024;
    int j;
    struct gs_diag d = explain_spec(f, &s, &j);
    assert_int_equal(d.reason, GS_REASON_MEMORY_FRAG);
    assert_int_equal(d.mem_any_gpus, 9);
    assert_int_equal(d.mem_ok_gpus, 1);
    assert_int_equal(d.unblock_gpus, 1);
    assert_int_equal(gs_engine_wait_reason(f->eng, j), GS_REASON_MEMORY_FRAG);
    fix_free(f);
}

/* Shared GPUs: GPU 0 holds a 0.3 share using 60 GiB (free: 0.7 share,
 * 20 GiB); GPU 1 is full.  A 0.5-share job needing 40 GiB finds the share
 * on GPU 0 but not the memory: memory fragmentation, best free 20 GiB. */
static void test_memory_shared(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:2", NULL);
    busy_full(f, "n1", 0x1, 300, 60 * 1024, NULL, 0);
    busy(f, "n1", 0x2);
    struct gs_job_spec s = spec_of("S", 0, 1);
    s.milli = 500;
    s.mem_mib = 40 * 1024;
    struct gs_diag d = explain_spec(f, &s, NULL);
    assert_int_equal(d.reason, GS_REASON_MEMORY_FRAG);
    assert_int_equal(d.mem_any_gpus, 1);
    assert_int_equal(d.mem_ok_gpus, 0);
    assert_int_equal(d.best_mem_free_mib, 20 * 1024);
    fix_free(f);
}

/* Shares: two GPUs each with 0.4 free (0.8 in total) cannot take a 0.5
 * share: the free shares add up, no GPU has it: count fragmentation. */
static void test_shared_count(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:2", NULL);
    busy_full(f, "n1", 0x1, 600, 0, NULL, 0);
    busy_full(f, "n1", 0x2, 600, 0, NULL, 0);
    struct gs_job_spec s = spec_of("S", 0, 1);
    s.milli = 500;
    assert_int_equal(explain_spec(f, &s, NULL).reason, GS_REASON_COUNT_FRAG);
    fix_free(f);
}

/* Quota team-a: 4.  team-a runs 4 GPUs (estimate 1 h); a team-a job of 2
 * waits for its quota although 12 GPUs are idle: used 4 + 2 - 4 = 2 GPUs
 * over, and the team frees them when its job ends at 3600 s. */
static void test_quota(void **state)
{
    (void)state;
    static const char *const quota[] = { "queue.quota.team-a", "4", NULL };
    struct fix *f = fix_new("n1:8 n2:8", quota);
    busy_full(f, "n1", 0x0F, GS_MILLI_GPU, 0, "team-a", 3600);
    struct gs_job_spec s = spec_of("Q", 0, 2);
    s.team = "team-a";
    int j = submit_spec(f, 0, &s);
    step(f, 0);
    assert_int_equal(gs_engine_wait_reason(f->eng, j), GS_REASON_QUOTA);
    struct gs_diag d = explain(f, j);
    assert_int_equal(d.reason, GS_REASON_QUOTA);
    assert_int_equal(d.quota_gpus, 4);
    assert_true(d.team_used_gpus == 4.0);
    assert_int_equal(d.unblock_gpus, 2);
    assert_int_equal(d.free_gpus, 12);
    assert_int_equal(d.est_start, SEC(3600));
    assert_int_equal(d.est_basis, GS_BASIS_QUOTA);
    fix_free(f);
}

/* Strict FIFO: A (16 GPUs) does not fit 15 free GPUs (shortage); B (1 GPU)
 * would fit but waits behind it: priority, 1 job / 16 GPUs ahead, blocker
 * A.  A new job C submitted while nothing changed is classified by the
 * skipped pass as priority too. */
static void test_priority_fifo(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8 n2:8", NULL);
    busy(f, "n1", 0x01);
    int a = submit(f, 0, "A", 16), b = submit(f, 0, "B", 1);
    step(f, 0);
    assert_int_equal(gs_engine_wait_reason(f->eng, a), GS_REASON_SHORTAGE);
    struct gs_diag d = explain(f, b);
    assert_int_equal(d.reason, GS_REASON_PRIORITY);
    assert_int_equal(d.ahead_jobs, 1);
    assert_int_equal(d.ahead_gpus, 16);
    assert_int_equal(d.blocker, a);
    int c = submit(f, SEC(5), "C", 1);
    step(f, SEC(5));
    assert_int_equal(gs_engine_wait_reason(f->eng, c), GS_REASON_PRIORITY);
    fix_free(f);
}

/* EASY backfill with user estimates on n1:8 n2:8.  J1 (8 GPUs, 1 h) starts
 * on n1.  H (16 GPUs, 1 h) cannot start: reservation on n1 + n2 from
 * 3600 s.  J3 (8 GPUs, 2 h) fits the idle n2 now, but would run past
 * 3600 s on GPUs held for H: reservation, 8 idle GPUs reserved, holder H.
 * H itself: shortage (8 free < 16), estimated start 3600 s from its
 * reservation. */
static void test_reservation(void **state)
{
    (void)state;
    static const char *const kv[] = { "queue.policy", "priority_with_backfill",
                                      "queue.duration_estimate", "user", NULL };
    struct gs_policy pol;
    gs_policy_init(&pol);
    struct fix *f = fix_make("n1:8 n2:8", &pol, kv);
    gs_policy_fini(&pol);
    struct gs_job_spec s1 = spec_of("J1", 0, 8), sh = spec_of("H", 0, 16),
                       s3 = spec_of("J3", 0, 8);
    s1.time_limit = sh.time_limit = SEC(3600);
    s3.time_limit = SEC(7200);
    submit_spec(f, 0, &s1);
    int h = submit_spec(f, 0, &sh), j3 = submit_spec(f, 0, &s3);
    step(f, 0);
    assert_int_equal(gs_engine_wait_reason(f->eng, j3), GS_REASON_RESERVATION);
    struct gs_diag d = explain(f, j3);
    assert_int_equal(d.reason, GS_REASON_RESERVATION);
    assert_int_equal(d.reserved_idle_gpus, 8);
    assert_int_equal(d.holder, h);
    assert_int_equal(d.holder_start, SEC(3600));
    struct gs_diag dh = explain(f, h);
    assert_int_equal(dh.reason, GS_REASON_SHORTAGE);
    assert_int_equal(dh.est_start, SEC(3600));
    assert_int_equal(dh.est_basis, GS_BASIS_RESERVATION);
    fix_free(f);
}

/* Hard partitions: "serve" = n1 (inference), "batch" = n2 (training).
 * T1 (train, 8) runs on n2; T2 (train, 8) waits although n1 is idle:
 * partition, with 8 usable idle GPUs outside its nodes. */
static void test_partition(void **state)
{
    (void)state;
    struct gs_policy pol;
    fifo_pack(&pol);
    struct gs_error err = { 0 };
    const char *kv[2][4] = { { "serve", "n1", "infer", NULL }, { "batch", "n2", "train", NULL } };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(gs_policy_list_add(&pol, "partitions", &err), 0);
        pol_set(&pol, "partitions.name", kv[i][0]);
        pol_set(&pol, "partitions.nodes", kv[i][1]);
        pol_set(&pol, "partitions.classes", kv[i][2]);
    }
    struct fix *f = fix_make("n1:8 n2:8", &pol, NULL);
    gs_policy_fini(&pol);
    submit(f, 0, "T1", 8);
    int t2 = submit(f, 0, "T2", 8);
    step(f, 0);
    assert_int_equal(gs_engine_wait_reason(f->eng, t2), GS_REASON_PARTITION);
    struct gs_diag d = explain(f, t2);
    assert_int_equal(d.reason, GS_REASON_PARTITION);
    assert_true(d.partitioned);
    assert_int_equal(d.free_gpus, 0);
    assert_int_equal(d.outside_free_gpus, 8);
    assert_true(has(&d, GS_REASON_SHORTAGE));
    fix_free(f);
}

/* Whole-domain rule: a 6-GPU job on [4,4] nodes needs one idle domain of 4
 * plus 2 in the other.  n1 has 3+3 free: count is fine (6 on one node),
 * but no domain is wholly idle: topology; freeing 1 GPU in each domain
 * (4-3 + 4-3 = 2) makes both whole. */
static void test_whole_domain_topology(void **state)
{
    (void)state;
    static const uint64_t masks[] = { 0x11, 0xFF };
    struct fix *f = fix_busy("n1:8:[4,4] n2:8:[4,4]", masks, 2);
    struct gs_diag d = explain_new(f, "W", 6);
    assert_int_equal(d.rule, GS_TOPO_AUTO);
    assert_int_equal(d.reason, GS_REASON_TOPOLOGY_FRAG);
    assert_int_equal(d.best_node_free, 6);
    assert_int_equal(d.unblock_gpus, 2);
    fix_free(f);
}

/* Multi-node: 16 GPUs on four 8-GPU nodes with 4 free each (16 free): no
 * two whole idle nodes: count fragmentation.  Emptying two nodes means
 * freeing 4 + 4 = 8 GPUs. */
static void test_multi_node_count(void **state)
{
    (void)state;
    static const uint64_t masks[] = { 0x0F, 0x0F, 0x0F, 0x0F };
    struct fix *f = fix_busy("n1:8 n2:8 n3:8 n4:8", masks, 4);
    struct gs_diag d = explain_new(f, "M", 16);
    assert_int_equal(d.reason, GS_REASON_COUNT_FRAG);
    assert_int_equal(d.free_gpus, 16);
    assert_int_equal(d.whole_nodes_free, 0);
    assert_int_equal(d.rest_free, 4);
    assert_int_equal(d.unblock_gpus, 8);
    fix_free(f);
}

/* Wait split.  n1:4 n2:4; X (3) on n1 0-2, Y (2) on n2 0-1, V (1) on n2 3.
 * Z (4) submitted at 10 s: free 1 + 1 = 2 < 4, shortage.  Y ends at 50:
 * free 1 + 3 = 4 but no node has 4: count fragmentation.  X ends at 100:
 * Z starts on n1.  Split: shortage 50 - 10 = 40 s, count 100 - 50 = 50 s. */
static void test_wait_split(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:4 n2:4", NULL);
    int x = busy(f, "n1", 0x7), y = busy(f, "n2", 0x3);
    busy(f, "n2", 0x8);
    int z = submit(f, SEC(10), "Z", 4);
    step(f, SEC(10));
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_finish(f->eng, SEC(50), y, &err), 0);
    step(f, SEC(50));
    assert_int_equal(gs_engine_wait_reason(f->eng, z), GS_REASON_COUNT_FRAG);
    gs_time split[GS_REASON_COUNT];
    /* while it still waits, the open interval runs to the engine's now */
    assert_int_equal(gs_engine_wait_split(f->eng, z, split), 0);
    assert_int_equal(split[GS_REASON_SHORTAGE], SEC(40));
    assert_int_equal(split[GS_REASON_COUNT_FRAG], 0);
    assert_int_equal(gs_engine_finish(f->eng, SEC(100), x, &err), 0);
    step(f, SEC(100));
    assert_int_equal(gs_engine_wait_reason(f->eng, z), GS_REASON_NONE);
    assert_int_equal(gs_engine_wait_split(f->eng, z, split), 0);
    assert_int_equal(split[GS_REASON_SHORTAGE], SEC(40));
    assert_int_equal(split[GS_REASON_COUNT_FRAG], SEC(50));
    assert_int_equal(split[GS_REASON_NONE], 0);
    assert_int_equal(gs_engine_wait_split(f->eng, 99, split), GS_ENOENT);
    fix_free(f);
}

/* Summary: one node of 8 under FIFO.  A (8 GPUs, 0-100 s); B (4 GPUs at
 * 10 s) waits 90 s for lack of GPUs; C (1 GPU at 20 s) waits behind B for
 * 80 s.  Waiting GPU-hours: shortage 4 x 90 / 3600 = 0.1 in "2-4";
 * priority 1 x 80 / 3600 in "1". */
static void test_summary_shares(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "A", 0, 8, 100, NULL, 0 }, { "B", 10, 4, 50, NULL, 0 }, { "C", 20, 1, 10, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 3);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    const struct gs_wait_reasons *w = &res.summary.waits;
    assert_float_equal(w->gpu_h[GS_REASON_SHORTAGE][1], 0.1, TU_EPS);
    assert_float_equal(w->gpu_h[GS_REASON_PRIORITY][0], 80.0 / 3600, TU_EPS);
    assert_float_equal(w->total_gpu_h, 0.1 + 80.0 / 3600, TU_EPS);
    assert_float_equal(w->job_h[GS_REASON_SHORTAGE][1], 90.0 / 3600, TU_EPS);
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
}

static void test_explain_errors(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    int r = submit(f, 0, "R", 1);
    step(f, 0);
    struct gs_diag d;
    assert_int_equal(gs_engine_explain(f->eng, r, &d), GS_ESTATE);
    assert_int_equal(gs_engine_explain(f->eng, 7, &d), GS_ENOENT);
    assert_int_equal(gs_engine_wait_reason(f->eng, r), GS_REASON_NONE);
    assert_string_equal(gs_reason_name(GS_REASON_TOPOLOGY_FRAG), "topology_fragmentation");
    assert_string_equal(gs_reason_name(GS_REASON_COUNT), "?");
    assert_string_equal(gs_est_basis_name(GS_BASIS_PROFILE), "profile");
    fix_free(f);
}

/* OOM sweep over a scenario that accounts waits and explains: every run
 * either succeeds or reports GS_ENOMEM, and frees everything. */
static int oom_scenario(const struct gs_cluster *cl, const struct gs_policy *pol)
{
    struct gs_error err = { 0 };
    int rc = 0;
    struct gs_engine *eng = gs_engine_create(cl, pol, &err);
    if (!eng)
        rc = GS_ENOMEM;
    for (int i = 0; rc == 0 && i < 40; i++) {
        char id[16];
        snprintf(id, sizeof id, "j%d", i);
        struct gs_job_spec s = spec_of(id, SEC(i), 1 + i % 4);
        rc = gs_engine_submit(eng, SEC(i), &s, &err);
        if (rc >= 0)
            rc = gs_engine_step(eng, SEC(i), &err);
        rc = rc < 0 ? rc : 0;
    }
    struct gs_diag d;
    for (int j = 0; rc == 0 && j < gs_engine_job_count(eng); j++) {
        int e = gs_engine_explain(eng, j, &d);
        rc = e == GS_ENOMEM ? e : 0;
    }
    gs_engine_destroy(eng);
    return rc;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:4 n2:4");
    struct gs_policy pol;
    fifo_pack(&pol);
    for (long n = 1; n < 1000; n++) {
        tu_oom_arm(n);
        int rc = oom_scenario(cl, &pol);
        long failed = tu_oom_state.failed;
        tu_oom_end(n);
        assert_true(rc == 0 || rc == GS_ENOMEM);
        if (!failed)
            break;
    }
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_count_fragmentation),
        cmocka_unit_test(test_seed_topology_fragmentation),
        cmocka_unit_test(test_shortage),
        cmocka_unit_test(test_memory_whole_gpus),
        cmocka_unit_test(test_memory_shared),
        cmocka_unit_test(test_shared_count),
        cmocka_unit_test(test_quota),
        cmocka_unit_test(test_priority_fifo),
        cmocka_unit_test(test_reservation),
        cmocka_unit_test(test_partition),
        cmocka_unit_test(test_whole_domain_topology),
        cmocka_unit_test(test_multi_node_count),
        cmocka_unit_test(test_wait_split),
        cmocka_unit_test(test_summary_shares),
        cmocka_unit_test(test_explain_errors),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

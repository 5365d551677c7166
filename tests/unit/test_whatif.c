/* test_whatif.c - the what-if variants (fluid cluster, added nodes), the
 * verdict, the five symptom checks and the timeline recorder (issue 6).
 * Expected numbers are derived in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "core/metrics/symptoms.h"
#include "sim/timeline.h"
#include "sim/whatif.h"

/* 100 nodes x 8 = 800 GPUs become 12 fluid nodes of 64 and one of 32, all
 * single-domain; the A100 nodes form their own fluid nodes. */
static void test_fluid_cluster(void **state)
{
    (void)state;
    char desc[2048] = "";
    for (int i = 0; i < 100; i++) {
        char tok[32];
        snprintf(tok, sizeof tok, "n%d:8:[4,4] ", i);
        strcat(desc, tok);
    }
    strcat(desc, "a1:8:[8]:A100 a2:4:[4]:A100");
    struct gs_cluster *cl = cluster_of(desc);
    struct gs_error err = { 0 };
    struct gs_cluster *fc = gs_cluster_fluid(cl, &err);
    assert_non_null(fc);
    assert_int_equal(gs_cluster_gpu_count(fc), 812);
    assert_int_equal(gs_cluster_node_count(fc), 13 + 1);
    assert_int_equal(gs_cluster_node_gpus(fc, 0), 64);
    assert_int_equal(gs_cluster_node_gpus(fc, 12), 32);
    assert_int_equal(gs_cluster_node_domains(fc, 0), 1);
    assert_int_equal(gs_cluster_node_gpus(fc, 13), 12);
    assert_int_equal(gs_cluster_node_gpu_type(fc, 13), 1);
    /* S_k keeps the actual cluster's k (largest domain 8) */
    assert_int_equal(gs_cluster_stats(fc).k, gs_cluster_stats(cl).k);
    assert_int_equal(gs_cluster_node_mdomain(fc, 0), gs_cluster_node_mdomain(fc, 12));
    gs_cluster_destroy(fc);
    gs_cluster_destroy(cl);
}

/* The seed with node-3 split: three [8] nodes and one [4,4]; two added
 * nodes copy the most common shape, [8]. */
static void test_add_like(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("node-1:8 node-2:8 node-3:8:[4,4] node-4:8");
    struct gs_error err = { 0 };
    struct gs_cluster *c = gs_cluster_add_like(cl, 2, &err);
    assert_non_null(c);
    assert_int_equal(gs_cluster_node_count(c), 6);
    assert_int_equal(gs_cluster_gpu_count(c), 48);
    assert_string_equal(gs_cluster_node_name(c, 4), "added-1");
    assert_int_equal(gs_cluster_node_domains(c, 5), 1);
    assert_int_equal(gs_cluster_node_domains(c, 2), 2);
    gs_cluster_destroy(c);
    gs_cluster_destroy(cl);
}

/* Four 6-GPU jobs (2 h) leave 2 GPUs on each 8-GPU node; B (8 GPUs) at
 * 10 s waits until 7200 s here (7190 s) but fits the fluid cluster's 8
 * idle GPUs at once.  Waits sorted: 0 0 0 0 7190; p90 at rank 0.9 x 4 =
 * 3.6: 0 + 0.6 x 7190 = 4314 s.  Fluid p90 = 0, so all of it is
 * fragmentation; +1 node gives B an idle node: p90 0. */
static void test_verdict_fragmentation(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8 n3:8 n4:8");
    static const struct tjob rows[] = {
        { "w1", 0, 6, 7200, NULL, 0 }, { "w2", 0, 6, 7200, NULL, 0 },
        { "w3", 0, 6, 7200, NULL, 0 }, { "w4", 0, 6, 7200, NULL, 0 },
        { "b", 10, 8, 600, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 5);
    struct gs_policy pol;
    fifo_pack(&pol);
    static struct gs_whatif w;
    struct gs_error err = { 0 };
    const char *names[] = { "fifo" };
    int add[] = { 1 };
    assert_int_equal(gs_whatif_run(&w, cl, tr, &pol, names, 1, add, 1, NULL, &err), 0);
    assert_int_equal(w.nruns, 3);
    assert_int_equal(w.runs[1].kind, GS_WHATIF_FLUID);
    assert_float_equal(w.v.p90[0], 4314, 1e-6);
    assert_float_equal(w.v.p90[1], 0, 1e-9);
    assert_float_equal(w.v.frag_share90, 1.0, 1e-9);
    assert_int_equal(w.v.call, GS_VERDICT_FRAGMENTATION);
    /* all of b's 7190 s is count fragmentation: the cause by attribution */
    assert_int_equal(w.v.cause, GS_CAUSE_FRAGMENTATION);
    assert_float_equal(w.v.frag_form[0], 1.0, 1e-9);
    assert_int_equal(w.v.best_capacity, 2);
    assert_float_equal(w.runs[2].sum.wait.p90, 0, 1e-9);
    assert_int_equal(w.runs[2].gpus, 40);
    /* the CDF of the actual run: 5 jobs, the largest wait 7190 s */
    assert_int_equal(w.runs[0].cdf.n[GS_SIZE_CLASSES], 5);
    assert_float_equal(w.runs[0].cdf.q[GS_SIZE_CLASSES][GS_CDF_POINTS - 1], 7190, 1e-6);
    gs_whatif_fini(&w);
    gs_policy_fini(&pol);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* One 8-GPU node, ten 1-GPU jobs of 600 s at once: 8 start, 2 wait 600 s.
 * Sorted waits: eight 0 then 600 600 (indexes 8, 9); p90 at rank 8.1 =
 * 600 s.  The fluid cluster is the same single node: it queues just as
 * much (share 1.0 >= 0.5): a shortage.  Boundaries: one node of 8 GPUs,
 * 100 % 1-GPU jobs. */
static void test_verdict_boundaries(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct tjob rows[10];
    char ids[10][16];
    for (int i = 0; i < 10; i++) {
        snprintf(ids[i], sizeof ids[i], "u%d", i);
        rows[i] = (struct tjob){ ids[i], 0, 1, 600, NULL, 0 };
    }
    struct gs_trace *tr = trace_of(rows, 10);
    struct gs_policy pol;
    fifo_pack(&pol);
    static struct gs_whatif w;
    struct gs_error err = { 0 };
    const char *names[] = { "fifo" };
    assert_int_equal(gs_whatif_run(&w, cl, tr, &pol, names, 1, NULL, 0, NULL, &err), 0);
    assert_float_equal(w.v.p90[0], 600, 1e-6);
    assert_float_equal(w.v.best_fluid_share, 1.0, 1e-9);
    assert_int_equal(w.v.call, GS_VERDICT_SHORTAGE);
    /* u9 waits for a GPU (shortage), u10 behind it (priority); no policy
     * alternative, the bound keeps both tails: all of it shortage */
    assert_int_equal(w.v.cause, GS_CAUSE_SHORTAGE);
    assert_float_equal(w.v.share[GS_GROUP_SHORTAGE], 0.5, 1e-9);
    assert_float_equal(w.v.resolved[GS_GROUP_SHORTAGE], 1.0, 1e-9);
    assert_int_equal(w.v.bounds, GS_BOUND_ONE_NODE | GS_BOUND_UNIFORM);
    assert_int_equal(w.v.uniform_gpus, 1);
    gs_whatif_fini(&w);
    gs_policy_fini(&pol);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* A summary with only the fields the checks read. */
static void base_summary(struct gs_summary *s)
{
    memset(s, 0, sizeof *s);
    s->sched.k = 8;
    s->util_alloc = 0.68;
    s->util_effective = 0.60;
    s->wait.p90 = 4 * 3600;
    s->wait_by_size[0].n = 100;
    s->wait_by_size[0].p90 = 600;
    s->wait_by_size[2].n = 10;
    s->wait_by_size[2].p90 = 7 * 3600;
    s->sched.share_ge1 = 0.3;
    /* class 5-8: 70 GPU-h count fragmentation, 30 shortage; class 1:
     * 10 GPU-h priority.  All: 110; fragmentation 70 / 110 = 64 %. */
    s->waits.gpu_h[GS_REASON_COUNT_FRAG][2] = 70;
    s->waits.gpu_h[GS_REASON_SHORTAGE][2] = 30;
    s->waits.gpu_h[GS_REASON_PRIORITY][0] = 10;
    s->waits.total_gpu_h = 110;
}

static void test_symptoms(void **state)
{
    (void)state;
    struct gs_summary s;
    base_summary(&s);
    struct gs_policy pol;
    gs_policy_init(&pol); /* fifo: no aging, no quotas, no backfill */
    struct gs_symptoms y;
    gs_symptoms_check(&y, &s, &pol);
    assert_int_equal(y.big_class, 2);
    assert_true(y.s[GS_SYM_FREE_BUT_QUEUED].fired);
    assert_float_equal(y.s[GS_SYM_FREE_BUT_QUEUED].v[0], 70.0 / 110, 1e-9);
    assert_true(y.s[GS_SYM_LONG_QUEUE_MODERATE].fired);   /* 4 h at 68 % */
    assert_true(y.s[GS_SYM_BIG_JOBS_WAIT].fired);         /* 7 h vs 10 min, S>=1 30 % */
    assert_float_equal(y.s[GS_SYM_BIG_JOBS_WAIT].v[3], 0.7, 1e-9);
    /* taken = 30 / 100 of the big class < 50 %: not crowding */
    assert_false(y.s[GS_SYM_SMALL_CROWD_BIG].fired);
    assert_int_equal((int)y.s[GS_SYM_SMALL_CROWD_BIG].v[3],
                     GS_SYM_NO_AGING | GS_SYM_NO_QUOTA | GS_SYM_NO_BACKFILL);
    /* 0.60 / 0.68 = 88 % >= 60 %: not slow */
    assert_false(y.s[GS_SYM_FULL_BUT_SLOW].fired);
    s.util_effective = 0.40; /* 0.40 / 0.68 = 59 % */
    s.util_alloc = 0.85;     /* and no longer "moderate" */
    s.waits.gpu_h[GS_REASON_COUNT_FRAG][2] = 10;
    s.waits.gpu_h[GS_REASON_SHORTAGE][2] = 90;
    s.sched.share_ge1 = 0.6;
    gs_symptoms_check(&y, &s, &pol);
    assert_true(y.s[GS_SYM_FULL_BUT_SLOW].fired);
    assert_false(y.s[GS_SYM_LONG_QUEUE_MODERATE].fired);
    assert_false(y.s[GS_SYM_BIG_JOBS_WAIT].fired);        /* S>=1 60 % of the time */
    assert_true(y.s[GS_SYM_SMALL_CROWD_BIG].fired);       /* 90 % taken */
    assert_false(y.s[GS_SYM_FREE_BUT_QUEUED].fired);      /* 10 / 110 = 9 % */
    assert_string_equal(gs_symptom_name(GS_SYM_SMALL_CROWD_BIG), "small_crowd_big");
    gs_policy_fini(&pol);
}

static void tick(struct gs_timeline *tl, double t_s, int64_t used_gpus, int64_t sched)
{
    struct gs_cluster_stats st;
    memset(&st, 0, sizeof st);
    st.gpus = 8;
    st.used_milli = used_gpus * GS_MILLI_GPU;
    st.sched = sched;
    struct gs_sim_tick t = { SEC(t_s), &st, 0, 0 };
    assert_int_equal(gs_timeline_sample(tl, &t), 0);
}

/* 8 GPUs: 4 used over [0, 1000) s, 8 over [1000, 2000) s.  Base width 1 s,
 * 512 buckets: 2000 s needs two doublings (width 4 s, 500 buckets).  The
 * first bucket is half allocated, the last fully.  S_k >= 1 over
 * [0, 1000): one window. */
static void test_timeline(void **state)
{
    (void)state;
    struct gs_timeline tl;
    gs_timeline_init(&tl);
    tick(&tl, 0, 4, 1);
    tick(&tl, 1000, 8, 0);
    gs_timeline_close(&tl, SEC(2000));
    assert_int_equal(tl.width, 4000);
    assert_int_equal(gs_timeline_buckets(&tl), 500);
    assert_float_equal(gs_timeline_alloc(&tl, 0), 0.5, 1e-9);
    assert_float_equal(gs_timeline_alloc(&tl, 499), 1.0, 1e-9);
    assert_float_equal(gs_timeline_sched(&tl, 0), 1.0, 1e-9);
    assert_int_equal(tl.nwin, 2);
    assert_int_equal(tl.win[0], 0);
    assert_int_equal(tl.win[1], SEC(1000));
    gs_timeline_fini(&tl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fluid_cluster),
        cmocka_unit_test(test_add_like),
        cmocka_unit_test(test_verdict_fragmentation),
        cmocka_unit_test(test_verdict_boundaries),
        cmocka_unit_test(test_symptoms),
        cmocka_unit_test(test_timeline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

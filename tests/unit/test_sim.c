/* test_sim.c - the trace-driven simulator: golden tiny traces on tiny
 * clusters with every start, end and wait derived by hand; the summary
 * metrics of DESIGN.md section 4; event order at one timestamp; 0-duration
 * and CPU-only jobs; determinism; errors; the in-memory trace; OOM sweep.
 *
 * Policy everywhere: FIFO with strict head-of-line blocking, pack placement.
 * Simulator rules (sim.h): at one instant, job ends are applied first, then
 * submissions in trace order, then one engine step.  A job's end = its start
 * + its true duration.  Metrics: span = first submit .. last end;
 * util_alloc = allocated GPU-seconds / (GPUs x span); jobs_per_gpu_day =
 * completed / (GPUs x span/86400); percentiles by numpy's linear rule
 * (position q*(n-1)); schedulability S_k time-weighted over the span.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "sim/gen.h"
#include "testutil.h"

#define EPS 1e-9

static void near(double got, double want, const char *what)
{
    if (!(got > want - EPS && got < want + EPS))
        fail_msg("%s: got %.12g want %.12g", what, got, want);
}

/* Expected start/end of a job and its placement on one node. */
struct want_job {
    const char *id;
    double start, end;
    const char *node;    /* NULL = no GPUs */
    uint64_t mask;
};

static void assert_jobs(const struct gs_engine *eng, const struct gs_cluster *cl,
                        const struct want_job *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct gs_job_info ji = job_named(eng, w[i].id);
        if (ji.first_start != SEC(w[i].start) || ji.end != SEC(w[i].end))
            fail_msg("job %s: %.3f..%.3f, want %.3f..%.3f", w[i].id,
                     gs_time_to_sec(ji.first_start), gs_time_to_sec(ji.end), w[i].start,
                     w[i].end);
        struct gs_alloc al;
        assert_int_equal(gs_engine_job_alloc(eng, gs_engine_job_find(eng, w[i].id), &al), 0);
        if (!w[i].node) {
            assert_int_equal(al.nparts, 0);
            continue;
        }
        assert_int_equal(al.nparts, 1);
        if (al.parts[0].node != node_of(cl, w[i].node) || al.parts[0].mask != w[i].mask)
            fail_msg("job %s on node %d %#llx, want %s %#llx", w[i].id, al.parts[0].node,
                     (unsigned long long)al.parts[0].mask, w[i].node,
                     (unsigned long long)w[i].mask);
    }
}

struct tick_log {
    int n;
    struct {
        gs_time t;
        int pending, running;
    } v[64];
};

static void on_tick(void *arg, const struct gs_sim_tick *t)
{
    struct tick_log *l = arg;
    if (l->n < 64) {
        l->v[l->n].t = t->time;
        l->v[l->n].pending = t->pending;
        l->v[l->n].running = t->running;
        l->n++;
    }
}

/* The brief's example on one 8-GPU node:
 *   A 4 GPUs 100 s at t=0 (team zeta), B 8 GPUs 50 s at t=0 (alpha),
 *   C 2 GPUs 10 s at t=5 (zeta).
 *   t=0   A starts on GPUs 0-3; B needs 8, 4 free: blocked.
 *   t=5   C arrives; it fits, but waits behind B (head-of-line).
 *   t=100 A ends; B starts on all 8; C blocked.
 *   t=150 B ends; C starts on GPUs 0,1.   t=160 C ends.
 * waits A 0, B 100, C 145 -> sorted 0, 100, 145:
 *   p50 = pos 1 = 100; p90 = pos 1.8 = 100 + 0.8*45 = 136;
 *   p99 = pos 1.98 = 100 + 0.98*45 = 144.1; mean 245/3; max 145.
 * jct A 100, B 150, C 155: p50 150, p90 150 + 0.8*5 = 154, mean 135.
 * by size: "2-4" A, C [0, 145] -> p50 72.5; "5-8" B [100]; "1" and ">8"
 *   empty.  by team: alpha [100]; zeta [0, 145] -> p50 72.5.
 * span 0..160 = 160 s; GPU-s 4*100 + 8*50 + 2*10 = 820 over 8*160 = 1280
 *   -> util 0.640625; jobs/GPU-day 3 / (8 * 160/86400) = 202.5.
 * S_8: 0 on [0,100) (4 free), [100,150) (0 free), [150,160) (6 free) ->
 *   mean 0, share 0.  frag count: 4*100 + 0*50 + 6*10 = 460 / 160 = 2.875.
 * ticks (after each step): t=0 pending 1 running 1; t=5 2/1; t=100 1/1;
 *   t=150 0/1; t=160 0/0.  steps 5; events 3 submits + 3 finishes = 6. */
static void test_golden_head_of_line(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "A", 0, 4, 100, "zeta", 0 },
        { "B", 0, 8, 50, "alpha", 0 },
        { "C", 5, 2, 10, "zeta", 0 },
    };
    struct gs_trace *tr = trace_of(rows, 3);
    struct tick_log ticks = { 0 };
    struct gs_sim_opts opts = { 0 };
    opts.on_tick = on_tick;
    opts.arg = &ticks;
    opts.check = 1;
    struct gs_sim_result res;
    struct gs_error err = { 0 };
    assert_int_equal(gs_sim_run(cl, &pol, tr, &opts, &res, &err), 0);
    static const struct want_job want[] = {
        { "A", 0, 100, "n1", 0x0F },
        { "B", 100, 150, "n1", 0xFF },
        { "C", 150, 160, "n1", 0x03 },
    };
    assert_jobs(res.engine, cl, want, 3);
    const struct gs_summary *s = &res.summary;
    assert_int_equal(s->jobs, 3);
    assert_int_equal(s->completed, 3);
    near(s->wait.p50, 100, "wait p50");
    near(s->wait.p90, 136, "wait p90");
    near(s->wait.p99, 144.1, "wait p99");
    near(s->wait.mean, 245.0 / 3, "wait mean");
    near(s->wait.max, 145, "wait max");
    near(s->jct.p50, 150, "jct p50");
    near(s->jct.p90, 154, "jct p90");
    near(s->jct.mean, 135, "jct mean");
    assert_int_equal(s->wait_by_size[0].n, 0);
    assert_int_equal(s->wait_by_size[1].n, 2);
    near(s->wait_by_size[1].p50, 72.5, "2-4 p50");
    assert_int_equal(s->wait_by_size[2].n, 1);
    near(s->wait_by_size[2].max, 100, "5-8");
    assert_int_equal(s->wait_by_size[3].n, 0);
    assert_int_equal(s->nteams, 2);
    assert_string_equal(s->teams[0].team, "alpha");
    near(s->teams[0].wait.p50, 100, "alpha");
    assert_string_equal(s->teams[1].team, "zeta");
    near(s->teams[1].wait.p50, 72.5, "zeta");
    assert_int_equal(s->span_start, 0);
    assert_int_equal(s->span_end, SEC(160));
    near(s->util_alloc, 0.640625, "util");
    near(s->jobs_per_gpu_day, 202.5, "jobs/GPU-day");
    assert_int_equal(s->sched.k, 8);
    near(s->sched.mean, 0, "S mean");
    near(s->sched.share_ge1, 0, "share");
    near(s->frag.count, 2.875, "frag count");
    near(s->frag.topology, 0, "frag topo");
    assert_int_equal(res.steps, 5);
    assert_int_equal(res.events, 6);
    static const struct {
        double t;
        int pending, running;
    } wt[] = { { 0, 1, 1 }, { 5, 2, 1 }, { 100, 1, 1 }, { 150, 0, 1 }, { 160, 0, 0 } };
    assert_int_equal(ticks.n, 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ticks.v[i].t, SEC(wt[i].t));
        assert_int_equal(ticks.v[i].pending, wt[i].pending);
        assert_int_equal(ticks.v[i].running, wt[i].running);
    }
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* The driver's start latency (policy start_latency.median = 5 s, sigma 0:
 * a constant).  The brief's example again on one 8-GPU node:
 *   t=0   A decided, holds GPUs 0-3, really starts at 5, ends 5 + 100 = 105.
 *         B (8 GPUs) blocked.
 *   t=5   C arrives, waits behind B.
 *   t=105 A ends; B decided, holds all 8, starts 110, ends 160.
 *   t=160 B ends; C decided on GPUs 0,1, starts 165, ends 175.
 * waits A 5, B 110, C 160 -> mean 275/3, max 160; span 0..175.
 * GPU time counts from the decision (held while starting):
 *   4*105 + 8*55 + 2*15 = 890 over 8*175 = 1400 -> 0.6357142857. */
static void test_golden_start_latency(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "queue.max_job_test", "0"); /* all 1,001 start in the first pass */
    pol_set(&pol, "start_latency.median", "5s");
    static const struct tjob rows[] = {
        { "A", 0, 4, 100, NULL, 0 },
        { "B", 0, 8, 50, NULL, 0 },
        { "C", 5, 2, 10, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 3);
    struct gs_sim_opts opts = { 0 };
    opts.check = 1;
    struct gs_sim_result res;
    struct gs_error err = { 0 };
    assert_int_equal(gs_sim_run(cl, &pol, tr, &opts, &res, &err), 0);
    static const struct want_job want[] = {
        { "A", 5, 105, "n1", 0x0F },
        { "B", 110, 160, "n1", 0xFF },
        { "C", 165, 175, "n1", 0x03 },
    };
    assert_jobs(res.engine, cl, want, 3);
    near(res.summary.wait.mean, 275.0 / 3, "wait mean");
    near(res.summary.wait.max, 160, "wait max");
    assert_int_equal(res.summary.span_end, SEC(175));
    near(res.summary.util_alloc, 890.0 / 1400, "util");
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* Waits of 1,001 1-GPU jobs submitted at 0 on 1,024 GPUs: each starts at
 * once, so its wait is its latency. */
static void latency_waits(double sigma, const char *seed, double *w)
{
    struct gs_cluster *cl = cluster_of("a:64 b:64 c:64 d:64 e:64 f:64 g:64 h:64 i:64 j:64 k:64 "
                                       "l:64 m:64 n:64 o:64 p:64");
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "queue.max_job_test", "0"); /* all 1,001 start in the first pass */
    pol_set(&pol, "start_latency.median", "5s");
    char sg[32];
    snprintf(sg, sizeof sg, "%g", sigma);
    pol_set(&pol, "start_latency.sigma", sg);
    pol_set(&pol, "start_latency.seed", seed);
    struct gs_trace *tr = gs_trace_create();
    for (size_t i = 0; i < 1001; i++) {
        char id[16];
        snprintf(id, sizeof id, "j%zu", i);
        struct gs_job_spec s = row_spec(id, 0, 1, 0, NULL, 0, 0);
        trace_add_ok(tr, &s, 100, i);
    }
    struct gs_sim_opts opts = { 0 };
    struct gs_sim_result res;
    assert_int_equal(gs_sim_run(cl, &pol, tr, &opts, &res, NULL), 0);
    for (int i = 0; i < 1001; i++) {
        struct gs_job_info ji;
        assert_int_equal(gs_engine_job_info(res.engine, i, &ji), 0);
        w[i] = gs_time_to_sec(ji.first_start - ji.submit);
    }
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Lognormal latency, median 5 s, sigma 0.5: the same seed gives the same
 * latency per job; another seed others.  The sample median of 1,001
 * draws has a log-scale standard error of 1.2533 x 0.5 / sqrt(1001) =
 * 0.0198, so it lies within 5 x e^(+-0.08) = 4.62-5.42 s (4 standard
 * errors); the spread: P(L > 5 x e^0.5) = P(z > 1) = 15.9 %, i.e. about
 * 159 of 1,001 jobs wait more than 8.24 s (binomial sd 11.6: 110-210). */
static void test_lognormal_start_latency(void **state)
{
    (void)state;
    static double a[1001], b[1001], c[1001];
    latency_waits(0.5, "7", a);
    latency_waits(0.5, "7", b);
    latency_waits(0.5, "8", c);
    int differ = 0, above = 0;
    for (int i = 0; i < 1001; i++) {
        assert_true(a[i] == b[i]);
        assert_true(a[i] > 0);
        differ += a[i] != c[i];
        above += a[i] > 5 * exp(0.5);
    }
    assert_true(differ > 900);
    assert_true(above >= 110 && above <= 210);
    qsort(a, 1001, sizeof *a, cmp_dbl);
    if (!(a[500] > 4.62 && a[500] < 5.42))
        fail_msg("median latency %.3f s, want 4.62-5.42", a[500]);
}

/* Two 8-GPU nodes, S_8 windows:
 *   A 8 GPUs 100 s t=0; B 4 GPUs 50 s t=0; C 4 GPUs 100 s t=20;
 *   D 8 GPUs 40 s t=30.
 *   t=0   A -> n1 (tie with n2, node order) all 8; B -> n2 GPUs 0-3.
 *   t=20  C -> n2 GPUs 4-7 (the only free ones).
 *   t=30  D blocked (nothing free).   t=50 B ends: n2 has 4, D still blocked.
 *   t=100 A ends: D -> n1 all 8.   t=120 C ends: n2 idle.   t=140 D ends.
 * waits 0, 0, 0, 70 (D): p50 pos 1.5 = 0; p90 pos 2.7 = 0.7*70 = 49;
 *   p99 pos 2.97 = 67.9; mean 17.5; max 70.
 * span 140 s; GPU-s 8*100 + 4*50 + 4*100 + 8*40 = 1720 over 16*140 = 2240.
 * jobs/GPU-day 4 / (16 * 140/86400) = 345600/2240.
 * S_8: 0 until 120; 1 on [120,140) -> mean 20/140, share 20/140, one
 *   window of 20 s (closed at the end of the span).
 * frag count: 4 free on [0,20), 0 on [20,50), 4 on [50,100), 4 on
 *   [100,120) (n2's 0-3), 0 on [120,140) (8 free, S=1) -> 360/140.
 * steps at 0, 20, 30, 50, 100, 120, 140 = 7; events 4 + 4 = 8. */
static void test_golden_windows(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "A", 0, 8, 100, NULL, 0 },
        { "B", 0, 4, 50, NULL, 0 },
        { "C", 20, 4, 100, NULL, 0 },
        { "D", 30, 8, 40, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 4);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    static const struct want_job want[] = {
        { "A", 0, 100, "n1", 0xFF },
        { "B", 0, 50, "n2", 0x0F },
        { "C", 20, 120, "n2", 0xF0 },
        { "D", 100, 140, "n1", 0xFF },
    };
    assert_jobs(res.engine, cl, want, 4);
    const struct gs_summary *s = &res.summary;
    near(s->wait.p50, 0, "p50");
    near(s->wait.p90, 49, "p90");
    near(s->wait.p99, 67.9, "p99");
    near(s->wait.mean, 17.5, "mean");
    near(s->wait.max, 70, "max");
    near(s->util_alloc, 1720.0 / 2240, "util");
    near(s->jobs_per_gpu_day, 345600.0 / 2240, "jobs/GPU-day");
    near(s->sched.mean, 20.0 / 140, "S mean");
    near(s->sched.share_ge1, 20.0 / 140, "share");
    assert_int_equal(s->sched.windows, 1);
    near(s->sched.win_mean, 20, "window mean");
    near(s->sched.win_max, 20, "window max");
    near(s->frag.count, 360.0 / 140, "frag count");
    assert_int_equal(res.steps, 7);
    assert_int_equal(res.events, 8);
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* The end of a run that leaves the cluster idle is not a window.  One
 * 8-GPU node, A 4 GPUs 100 s at t=0: on [0,100) 4 GPUs are free, S_8 = 0;
 * S_8 becomes 1 only at t=100, the last instant of the span.  No time has
 * S_8 >= 1, so share_ge1 = 0 and there are no windows. */
static void test_no_window_at_the_last_instant(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = { { "A", 0, 4, 100, NULL, 0 } };
    struct gs_trace *tr = trace_of(rows, 1);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    /* [0,100): 4 free, S_8 = 0; span ends at 100 */
    near(res.summary.sched.share_ge1, 0, "share");
    assert_int_equal(res.summary.sched.windows, 0);
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* Topology fragmentation over time: n1 is [4,4], n2 [8], k = 8.  X (8 GPUs,
 * 10 s) cannot use n1's islands and runs on n2.  On [0,10) n1's 8 idle GPUs
 * are topology fragmentation: 8*(floor(8/8) - 0) = 8; count 0; S_8 = 0.
 * util 8*10 / (16*10) = 0.5. */
static void test_topology_fragmentation(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8:[4,4] n2:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = { { "X", 0, 8, 10, NULL, 0 } };
    struct gs_trace *tr = trace_of(rows, 1);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    static const struct want_job want[] = { { "X", 0, 10, "n2", 0xFF } };
    assert_jobs(res.engine, cl, want, 1);
    near(res.summary.frag.topology, 8, "topology");
    near(res.summary.frag.count, 0, "count");
    near(res.summary.sched.mean, 0, "S mean");
    near(res.summary.util_alloc, 0.5, "util");
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* At one instant: ends first, then submissions, then one decision.
 *   A 8 GPUs 10 s at t=0; B 6 GPUs 5 s and C 2 GPUs 5 s at t=10.
 *   t=10: A's end frees the node before B and C are considered, and one
 *   step starts both: B GPUs 0-5, C GPUs 6,7.  t=15 both end.
 * steps at 0, 10, 15 = 3. */
static void test_one_instant_order(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "A", 0, 8, 10, NULL, 0 },
        { "B", 10, 6, 5, NULL, 0 },
        { "C", 10, 2, 5, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 3);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    static const struct want_job want[] = {
        { "A", 0, 10, "n1", 0xFF },
        { "B", 10, 15, "n1", 0x3F },
        { "C", 10, 15, "n1", 0xC0 },
    };
    assert_jobs(res.engine, cl, want, 3);
    assert_int_equal(res.steps, 3);
    near(res.summary.wait.max, 0, "no waits");
    near(res.summary.util_alloc, 1.0, "util"); /* (80 + 30 + 10) / (8*15) */
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* Jobs are replayed by submit time; equal times keep trace order.
 * Trace rows: X (t=5), Y (t=0), Z (t=0), each 8 GPUs on one node.
 * Order Y, Z, X: Y 0-10, Z 10-20 (Z ahead of X in the queue), X 20-21.
 * Engine handles follow submission: Y 0, Z 1, X 2. */
static void test_trace_order_ties(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "X", 5, 8, 1, NULL, 0 },
        { "Y", 0, 8, 10, NULL, 0 },
        { "Z", 0, 8, 10, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 3);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    static const struct want_job want[] = {
        { "Y", 0, 10, "n1", 0xFF },
        { "Z", 10, 20, "n1", 0xFF },
        { "X", 20, 21, "n1", 0xFF },
    };
    assert_jobs(res.engine, cl, want, 3);
    assert_int_equal(gs_engine_job_find(res.engine, "Y"), 0);
    assert_int_equal(gs_engine_job_find(res.engine, "Z"), 1);
    assert_int_equal(gs_engine_job_find(res.engine, "X"), 2);
    /* waits 0, 10, 15 (X: 20 - 5) */
    near(res.summary.wait.max, 15, "X waits 15");
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* A 0-duration job starts and ends at its submit time; the GPUs it held
 * for no time go to the next job at that same time.
 *   Z0 8 GPUs 0 s at t=0; W 8 GPUs 10 s at t=0.
 *   Z0 0..0; W 0..10.  jct Z0 = 0.  util 8*10 / (8*10) = 1. */
static void test_zero_duration_job(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "Z0", 0, 8, 0, NULL, 0 },
        { "W", 0, 8, 10, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 2);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    static const struct want_job want[] = {
        { "Z0", 0, 0, "n1", 0xFF },
        { "W", 0, 10, "n1", 0xFF },
    };
    assert_jobs(res.engine, cl, want, 2);
    assert_int_equal(res.summary.completed, 2);
    near(res.summary.jct.p50, 5, "jct p50");   /* [0, 10]: pos 0.5 */
    near(res.summary.wait.max, 0, "waits");
    near(res.summary.util_alloc, 1.0, "util");
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* A CPU-only job (0 GPUs) runs beside a job holding every GPU and adds no
 * GPU-seconds.  A 8 GPUs 100 s, K 0 GPUs 30 s, both t=0: K 0..30.
 * util 8*100 / (8*100) = 1; jobs/GPU-day 2 / (8 * 100/86400) = 216. */
static void test_cpu_only_job(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "A", 0, 8, 100, NULL, 0 },
        { "K", 0, 0, 30, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 2);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    static const struct want_job want[] = {
        { "A", 0, 100, "n1", 0xFF },
        { "K", 0, 30, NULL, 0 },
    };
    assert_jobs(res.engine, cl, want, 2);
    near(res.summary.util_alloc, 1.0, "util");
    near(res.summary.jobs_per_gpu_day, 216, "jobs/GPU-day");
    assert_int_equal(res.summary.wait_by_size[0].n, 1); /* 0 GPUs counts as "1" */
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* A job that can never fit is rejected and does not hold the queue.
 * R 9 GPUs on 8; A 1 GPU 10 s: A 0..10; summary jobs 2, rejected 1, one
 * wait (A's). */
static void test_rejected_job(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct tjob rows[] = {
        { "R", 0, 9, 10, NULL, 0 },
        { "A", 0, 1, 10, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 2);
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    static const struct want_job want[] = { { "A", 0, 10, "n1", 0x01 } };
    assert_jobs(res.engine, cl, want, 1);
    assert_int_equal(res.summary.jobs, 2);
    assert_int_equal(res.summary.rejected, 1);
    assert_int_equal(res.summary.completed, 1);
    assert_int_equal(res.summary.wait.n, 1);
    assert_int_equal(job_named(res.engine, "R").state, GS_JOB_REJECTED);
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* An empty trace simulates nothing and reports zeros. */
static void test_empty_trace(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    struct gs_trace *tr = gs_trace_create();
    struct gs_sim_result res;
    run_sim(cl, &pol, tr, &res);
    assert_int_equal(res.summary.jobs, 0);
    assert_int_equal(res.steps, 0);
    near(res.summary.util_alloc, 0, "util");
    gs_sim_result_fini(&res);
    gs_sim_result_fini(NULL);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* The same trace twice gives identical jobs: start, end and placement. */
static void test_determinism(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8:[4,4] n3:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    struct gs_gen_opts o;
    gs_gen_defaults(&o);
    o.jobs = 400;
    o.seed = 7;
    struct gs_trace *tr = gs_trace_create();
    assert_int_equal(gs_gen_workload(cl, &o, tr, NULL), 0);
    struct gs_sim_result a, b;
    run_sim(cl, &pol, tr, &a);
    run_sim(cl, &pol, tr, &b);
    assert_int_equal(gs_engine_job_count(a.engine), 400);
    assert_int_equal(gs_engine_job_count(b.engine), 400);
    int started = 0;
    for (int h = 0; h < 400; h++) {
        struct gs_job_info x, y;
        assert_int_equal(gs_engine_job_info(a.engine, h, &x), 0);
        assert_int_equal(gs_engine_job_info(b.engine, h, &y), 0);
        assert_string_equal(x.id, y.id);
        assert_int_equal(x.state, y.state);
        assert_int_equal(x.first_start, y.first_start);
        assert_int_equal(x.end, y.end);
        struct gs_alloc p, q;
        int rp = gs_engine_job_alloc(a.engine, h, &p);
        assert_int_equal(rp, gs_engine_job_alloc(b.engine, h, &q));
        if (rp == 0) {
            started++;
            assert_int_equal(p.nparts, q.nparts);
            for (int i = 0; i < p.nparts; i++) {
                assert_int_equal(p.parts[i].node, q.parts[i].node);
                assert_int_equal(p.parts[i].mask, q.parts[i].mask);
            }
        }
    }
    assert_int_equal(started, 400);   /* every generated size fits */
    assert_true(a.summary.wait.p99 == b.summary.wait.p99);
    assert_true(a.summary.util_alloc == b.summary.util_alloc);
    assert_true(a.summary.sched.mean == b.summary.sched.mean);
    assert_int_equal(a.steps, b.steps);
    gs_sim_result_fini(&a);
    gs_sim_result_fini(&b);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* Must-fail traces: the error code, and a message naming the job. */
static void test_bad_traces(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    static const struct {
        const char *what;
        const char *id2;
        int gpus2;
        gs_time dur2;
        int expect;
    } rows[] = {
        { "no duration", "nodur", 1, GS_TIME_NONE, GS_EINVAL },
        { "negative duration", "negdur", 1, -5, GS_EINVAL },
        { "duplicate id", "A", 1, 1000, GS_EEXIST },
        { "bad gpus", "badgpus", -2, 1000, GS_EINVAL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_trace *tr = gs_trace_create();
        struct gs_job_spec a = spec_of("A", 0, 1);
        struct gs_job_spec b = spec_of(rows[i].id2, SEC(1), rows[i].gpus2);
        assert_int_equal(gs_trace_add(tr, &a, SEC(10)), 0);
        assert_int_equal(gs_trace_add(tr, &b, rows[i].dur2), 1);
        struct gs_sim_result res;
        struct gs_error err = { 0 };
        int rc = gs_sim_run(cl, &pol, tr, NULL, &res, &err);
        if (rc != rows[i].expect)
            fail_msg("%s: got %s want %s (%s)", rows[i].what, gs_strerror(rc),
                     gs_strerror(rows[i].expect), err.msg);
        if (!strstr(err.msg, rows[i].id2))
            fail_msg("%s: message does not name the job: %s", rows[i].what, err.msg);
        gs_sim_result_fini(&res);
        gs_trace_destroy(tr);
    }
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

/* The trace copies strings, and its order is stable by submit time. */
static void test_trace_container(void **state)
{
    (void)state;
    struct gs_trace *tr = gs_trace_create();
    char id[8] = "job";
    char team[8] = "t1";
    struct gs_job_spec s = spec_of(id, SEC(3), 1);
    s.team = team;
    assert_int_equal(gs_trace_add(tr, &s, SEC(10)), 0);
    id[0] = 'X';
    team[0] = 'X';
    assert_string_equal(gs_trace_job(tr, 0)->id, "job");
    assert_string_equal(gs_trace_job(tr, 0)->team, "t1");
    assert_null(gs_trace_job(tr, 0)->user);
    assert_int_equal(gs_trace_duration(tr, 0), SEC(10));
    /* submit times 3, 1, 3, 0, 1 -> order by time, ties by index:
     * 3 (t0), 1 (t1), 4 (t1), 0 (t3), 2 (t3) */
    static const double t[] = { 1, 3, 0, 1 };
    for (int i = 0; i < 4; i++) {
        struct gs_job_spec x = spec_of("x", SEC(t[i]), 1);
        assert_int_equal(gs_trace_add(tr, &x, 0), i + 1);
    }
    assert_int_equal(gs_trace_count(tr), 5);
    size_t *order = gs_trace_order(tr);
    assert_non_null(order);
    static const size_t want[] = { 3, 1, 4, 0, 2 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(order[i], want[i]);
    gs_free(order);
    gs_trace_set_duration(tr, 2, SEC(7));
    assert_int_equal(gs_trace_duration(tr, 2), SEC(7));
    gs_trace_job_mut(tr, 2)->submit = SEC(9);
    assert_int_equal(gs_trace_job(tr, 2)->submit, SEC(9));
    gs_trace_destroy(tr);
    struct gs_trace *empty = gs_trace_create();
    assert_null(gs_trace_order(empty));
    gs_trace_destroy(empty);
    gs_trace_destroy(NULL);
}

/* gs_sim_run with the N-th allocation failing: GS_ENOMEM or success, never
 * a leak. */
static void test_oom_sweep(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8 n2:8:[4,4]");
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "queue.quota.team-a", "8");
    static const struct tjob rows[] = {
        { "a", 0, 8, 100, "team-a", 0 }, { "b", 0, 4, 50, "team-b", 0 },
        { "c", 5, 2, 10, "team-a", 0 },  { "d", 5, 1, 10, NULL, 500 },
        { "e", 6, 0, 10, NULL, 0 },      { "f", 7, 12, 10, NULL, 0 },
    };
    struct gs_trace *tr = trace_of(rows, 6);
    long n;
    for (n = 1;; n++) {
        tu_oom_arm(n);
        struct gs_sim_result res;
        struct gs_error err = { 0 };
        int rc = gs_sim_run(cl, &pol, tr, NULL, &res, &err);
        int failed = tu_oom_state.failed > 0;
        tu_oom_pause();
        if (rc != 0 && rc != GS_ENOMEM)
            fail_msg("fail_at %ld: %s (%s)", n, gs_strerror(rc), err.msg);
        if (rc == 0)
            assert_int_equal(res.summary.jobs, 6);
        gs_sim_result_fini(&res);
        tu_oom_end(n);
        if (!failed)
            break;
    }
    assert_true(n > 20);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_head_of_line),
        cmocka_unit_test(test_golden_windows),
        cmocka_unit_test(test_golden_start_latency),
        cmocka_unit_test(test_lognormal_start_latency),
        cmocka_unit_test(test_no_window_at_the_last_instant),
        cmocka_unit_test(test_topology_fragmentation),
        cmocka_unit_test(test_one_instant_order),
        cmocka_unit_test(test_trace_order_ties),
        cmocka_unit_test(test_zero_duration_job),
        cmocka_unit_test(test_cpu_only_job),
        cmocka_unit_test(test_rejected_job),
        cmocka_unit_test(test_empty_trace),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_bad_traces),
        cmocka_unit_test(test_trace_container),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* bench_queue.c - a queue that stays fast at any depth (issue 10).
 *
 * Case 1: one scheduling pass with 100,000 pending jobs on 1,024 nodes x 8
 * GPUs (8,192 GPUs) filled to ~97 % by running jobs, priority + aging +
 * EASY backfill on user limits.  The pending jobs (1-8 GPUs, priorities
 * 0-9, limits 1-10 h) arrived over two hours, so some are aging and some
 * not.  A first pass starts what fits; then 21 passes one second apart
 * (aging moves the order) are timed and the median reported, with a hash
 * of every start and reservation they made.
 *
 * Cases 5-8: the cost of one pass (a step and the continuations it asks
 * for at the same instant) as a series in depth: case 1 with 10^3, 10^4,
 * 10^5 and 10^6 pending jobs (case 7 is case 1).  Each pass case also
 * prints the classes of the pending jobs (qclass.h), the jobs a timed pass
 * tried on average and how many of the 21 ended at their stop point.
 *
 * Cases 2-4: the deep-queue series.  10^4, 10^5 and 10^6 generated jobs
 * (gs_gen_workload, seed 1, default size mix) all submitted at t = 0 on
 * 64 x 8 GPUs, priorities 0-9, priority + aging + EASY on user limits,
 * simulated to the end.  Each case runs in a forked child under a time cap
 * (--cap S, default 600 s) so a queue that does not scale is reported as
 * "> S s" rather than hanging the run.  `hash` is a hash of every start
 * decision (job, time, node), then the passes (those ended at their stop
 * point) and the jobs tried per pass.
 *
 * Cases 9-11: the same deep runs with `duration_estimate: from_history`
 * (the issue-23 variant: priority + aging + EASY on history estimates, p90)
 * at 10^3, 10^4 and 10^5 jobs; case 12: case 2's policy at 10^3 jobs.
 * Case 11 runs only when asked for (--case 11): with the history estimator
 * the stop point is off, so it costs what the exhaustive pass costs
 * (minutes).
 *
 * The machine is shared: besides wall-clock ms each case reports the CPU
 * time it used (the pass's and the simulation's thread CPU
 * time of the simulation alone), which other load inflates much less.
 *
 * --max-job-test N sets queue.max_job_test (default: the policy default;
 * 0 = unbounded, which reproduces the schedules of a build without it).
 *
 * --jobs N sets case 11's depth (default 10^5), to iterate on it faster.
 *
 * Usage: bench_queue [--case N] [--cap S] [--size small] [--max-job-test N] [--jobs N]
 */
#define _DEFAULT_SOURCE
#include "bench_util.h"
#define BENCH_HAS_MAX_JOB_TEST 1 /* undefine to build against a tree without the key */
#include "core/engine/engine.h"
#include "core/policy/policy.h"
#include "core/base/rng.h"
#include "sim/gen.h"
#include "sim/sim.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double cpu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t hash_state;
static uint64_t start_hash; /* start decisions only (reservations are made again at every pass) */
static int nstarts, nres;

static void on_event(void *arg, const struct gs_event *ev)
{
    (void)arg;
    if (ev->kind == GS_EV_START || ev->kind == GS_EV_RESERVE) {
        if (ev->kind == GS_EV_START)
            nstarts++;
        else
            nres++;
        hash_state = bench_hash(hash_state, (uint64_t)ev->kind);
        hash_state = bench_hash(hash_state, (uint64_t)ev->job);
        hash_state = bench_hash(hash_state, (uint64_t)ev->time);
        if (ev->alloc && ev->alloc->nparts > 0)
            hash_state = bench_hash(hash_state, (uint64_t)ev->alloc->parts[0].node);
    }
    if (ev->kind == GS_EV_START) {
        start_hash = bench_hash(start_hash, (uint64_t)ev->job);
        start_hash = bench_hash(start_hash, (uint64_t)ev->time);
        if (ev->alloc && ev->alloc->nparts > 0)
            start_hash = bench_hash(start_hash, (uint64_t)ev->alloc->parts[0].node);
    }
}

static int max_job_test = -1; /* -1 = the policy default */

static void prio_policy(struct gs_policy *pol)
{
    bench_policy_init(pol);
#ifdef BENCH_HAS_MAX_JOB_TEST
    if (max_job_test >= 0)
        pol->max_job_test = max_job_test;
#endif
    pol->queue_policy = GS_QUEUE_PRIORITY_BACKFILL;
    pol->backfill = GS_BACKFILL_EASY;
}

static void submit(struct gs_engine *eng, struct gs_rng *r, int id, gs_time now)
{
    static const int sizes[] = { 1, 1, 1, 2, 2, 4, 8 };
    char name[32];
    struct gs_job_spec s = bench_spec(name, sizeof name, "j", id, now);
    s.gpus = sizes[gs_rng_below(r, 7)];
    s.priority = (int)gs_rng_below(r, 10);
    s.time_limit = (gs_time)(1 + gs_rng_below(r, 10)) * 3600 * 1000;
    struct gs_error err;
    gs_engine_submit(eng, now, &s, &err);
}

static int pass_case(int id, int pending)
{
    struct gs_cluster *cl = bench_cluster(1024);
    struct gs_policy pol;
    prio_policy(&pol);
    struct gs_error err = { 0 };
    struct gs_engine *eng = gs_engine_create(cl, &pol, &err);
    if (!eng)
        return 1;
    struct gs_rng r;
    gs_rng_seed(&r, 7);
    int n = 0;
    while (gs_cluster_stats(gs_engine_cluster(eng)).idle_gpus > 8192 * 3 / 100) {
        submit(eng, &r, n++, 0);
        bench_step(eng, 0, &err);
    }
    int running = gs_engine_running_count(eng);
    const gs_time span = (gs_time)2 * 3600 * 1000;
    for (int i = 0; i < pending; i++)
        submit(eng, &r, n++, 1000 + span * i / pending);
    gs_engine_set_observer(eng, on_event, NULL);
    gs_time now = span + 2000;
    double t0 = bench_now_ms();
    bench_step(eng, now, &err); /* first pass: sorts, starts what fits */
    double first = bench_now_ms() - t0;
    int first_starts = nstarts;
    double ms[21], cpu[21];
    struct gs_queue_stats st0, st1;
    gs_engine_queue_stats(eng, &st0);
    hash_state = 1469598103934665603ULL;
    nstarts = nres = 0;
    for (int i = 0; i < 21; i++) {
        now += 1000;
        t0 = bench_now_ms();
        double c0 = cpu_now_ms();
        bench_step(eng, now, &err);
        cpu[i] = cpu_now_ms() - c0;
        ms[i] = bench_now_ms() - t0;
    }
    gs_engine_queue_stats(eng, &st1);
    qsort(ms, 21, sizeof *ms, bench_cmp_double);
    qsort(cpu, 21, sizeof *cpu, bench_cmp_double);
    printf("%3d  pass  running %5d  pending %6d  first pass %8.2f ms (%d started)  "
           "pass median %7.3f ms (min %.3f, max %.3f, cpu median %.3f)  starts %d  "
           "reservations %d  hash %016llx  classes %d  tried/pass %.1f  stopped %lld/21\n",
           id, running, gs_engine_pending_count(eng), first, first_starts, ms[10], ms[0],
           ms[20], cpu[10], nstarts, nres, (unsigned long long)hash_state, st1.classes,
           (double)(st1.tried - st0.tried) / 21, (long long)(st1.stopped - st0.stopped));
    gs_engine_destroy(eng);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
    return 0;
}

struct result {
    double sim_ms, cpu_ms;
    uint64_t hash, starts;
    int64_t steps, passes, stopped, tried, reached;
};

static int deep_history; /* cases 9-11: duration_estimate: from_history */

static int deep_case(size_t jobs, struct result *out)
{
    struct gs_cluster *cl = bench_cluster(64);
    struct gs_trace *tr = gs_trace_create();
    struct gs_gen_opts g;
    struct gs_error err = { 0 };
    gs_gen_defaults(&g);
    g.jobs = jobs;
    g.seed = 1;
    if (!cl || !tr || gs_gen_workload(cl, &g, tr, &err) < 0)
        return 1;
    struct gs_rng r;
    gs_rng_seed(&r, 11);
    for (size_t i = 0; i < jobs; i++) {
        struct gs_job_spec *s = gs_trace_job_mut(tr, i);
        s->submit = 0;
        s->priority = (int)gs_rng_below(&r, 10);
    }
    struct gs_policy pol;
    prio_policy(&pol);
    if (deep_history)
        pol.estimate = GS_EST_HISTORY;
    struct gs_sim_opts o = { .on_event = on_event };
    struct gs_sim_result res;
    hash_state = start_hash = 1469598103934665603ULL;
    double t0 = bench_now_ms(), c0 = cpu_now_ms();
    if (gs_sim_run(cl, &pol, tr, &o, &res, &err) < 0) {
        fprintf(stderr, "sim: %s\n", err.msg);
        return 1;
    }
    out->cpu_ms = cpu_now_ms() - c0;
    out->sim_ms = bench_now_ms() - t0;
    out->hash = hash_state;
    out->starts = start_hash;
    out->steps = res.steps;
    out->passes = res.summary.queue.passes;
    out->stopped = res.summary.queue.stopped;
    out->tried = res.summary.queue.tried;
    out->reached = res.summary.queue.reached;
    gs_sim_result_fini(&res);
    gs_policy_fini(&pol);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    return 0;
}

/* Run a deep-queue case in a child killed after `cap` seconds. */
static void fork_deep(int id, size_t jobs, int cap, double *base)
{
    int fd[2];
    if (pipe(fd) < 0)
        return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        alarm((unsigned)cap);
        struct result r = { 0 };
        int rc = deep_case(jobs, &r);
        if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r)
            rc = 1;
        _exit(rc);
    }
    close(fd[1]);
    struct result r = { 0 };
    ssize_t got = read(fd[0], &r, sizeof r);
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        printf("%3d  deep  %8zu jobs at t=0, 512 GPUs%s  sim > %d s (stopped at the cap)\n", id,
               jobs, deep_history ? ", history" : "", cap);
        return;
    }
    if (got != (ssize_t)sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("%3d  case failed\n", id);
        return;
    }
    double nlogn = (double)jobs * log2((double)jobs);
    if (*base == 0)
        *base = r.cpu_ms / nlogn;
    printf("%3d  deep  %8zu jobs at t=0, 512 GPUs%s  sim %9.1f ms (cpu %9.1f ms)  "
           "%6.2f us/job  (cpu / n log n) / first %5.2f  peak %6.1f MiB  steps %8lld  "
           "hash %016llx  starts %016llx  passes %lld (reached %lld, stopped %lld)  "
           "tried/pass %.1f\n",
           id, jobs, deep_history ? ", history" : "", r.sim_ms, r.cpu_ms,
           r.sim_ms * 1e3 / (double)jobs, r.cpu_ms / nlogn / *base,
           ru.ru_maxrss / 1024.0, (long long)r.steps, (unsigned long long)r.hash,
           (unsigned long long)r.starts, (long long)r.passes, (long long)r.reached,
           (long long)r.stopped,
           r.passes ? (double)r.tried / (double)r.passes : 0.0);
}

int main(int argc, char **argv)
{
    int only = 0, cap = 600, small = 0;
    size_t hjobs[] = { 1000, 10000, 100000 };
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc)
            cap = atoi(argv[++i]);
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            small = strcmp(argv[++i], "small") == 0;
        else if (strcmp(argv[i], "--max-job-test") == 0 && i + 1 < argc)
            max_job_test = atoi(argv[++i]);
        else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
            hjobs[2] = (size_t)atol(argv[++i]); /* case 11's depth (iterating) */
    }
    printf("bench_queue: priority + aging + EASY backfill on user limits\n");
    double t0 = bench_now_ms();
    if (!only || only == 1)
        pass_case(1, small ? 10000 : 100000);
    const int depth[] = { 1000, 10000, 100000, 1000000 };
    for (int k = 0; k < 4; k++)
        if ((only == 5 + k) || (!only && !small && k != 2))
            pass_case(5 + k, depth[k]);
    const size_t jobs[] = { 10000, 100000, 1000000 };
    double base = 0;
    for (int k = 0; k < 3; k++) {
        if ((only && only != k + 2) || (small && jobs[k] > 10000))
            continue;
        fork_deep(k + 2, jobs[k], cap, &base);
    }
    if (!only || only == 12)
        fork_deep(12, 1000, cap, &base);
    deep_history = 1;
    double hbase = 0;
    for (int k = 0; k < 3; k++)
        if ((!only && k < 2 && !(small && k > 0)) || only == 9 + k)
            fork_deep(9 + k, hjobs[k], cap, &hbase);
    printf("TOTAL %.1f ms\n", bench_now_ms() - t0);
    return 0;
}

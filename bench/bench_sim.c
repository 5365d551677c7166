/* bench_sim.c - simulation speed (issue 2): generated traces of 10^4, 10^5
 * and 10^6 jobs on 128, 1,024 and 8,192 GPUs, FIFO + pack.
 *
 * Each case runs in a forked child so its peak memory (ru_maxrss) is its
 * own.  Baseline in the same run: the "replay floor" - the same trace pushed
 * through a bare event heap with every job starting at submit (no engine, no
 * placement) - so the table shows what scheduling costs on top of the event
 * loop.  --eta records every job's start-time promise (docs/eta.md): the
 * hashes must not change.  Usage: bench_sim [--size small|full] [--case N]
 * [--eta]
 */
#define _DEFAULT_SOURCE
#include "bench_util.h"
#include "core/base/alloc.h"
#include "core/policy/policy.h"
#include "sim/gen.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct result {
    double gen_ms, sim_ms, floor_ms;
    uint64_t hash;
    int64_t steps;
};

static uint64_t hash_state;
static int eta_on; /* --eta: record every job's promise (docs/eta.md) */

static void on_event(void *arg, const struct gs_event *ev)
{
    (void)arg;
    if (ev->kind == GS_EV_START) {
        hash_state = bench_hash(hash_state, (uint64_t)ev->job);
        hash_state = bench_hash(hash_state, (uint64_t)ev->time);
        hash_state = bench_hash(hash_state, (uint64_t)ev->alloc->parts[0].node);
    }
}

/* Replay floor: a binary heap of end times, every job starting at submit. */
static double replay_floor(const struct gs_trace *tr)
{
    double t0 = bench_now_ms();
    size_t n = gs_trace_count(tr), h = 0;
    size_t *order = gs_trace_order(tr);
    gs_time *heap = malloc((n + 1) * sizeof *heap);
    volatile gs_time sink = 0;
    for (size_t k = 0; k < n; k++) {
        gs_time now = gs_trace_job(tr, order[k])->submit;
        while (h > 0 && heap[0] <= now) { /* pop */
            sink += heap[0];
            gs_time last = heap[--h];
            size_t i = 0;
            for (;;) {
                size_t c = 2 * i + 1;
                if (c >= h)
                    break;
                if (c + 1 < h && heap[c + 1] < heap[c])
                    c++;
                if (heap[c] >= last)
                    break;
                heap[i] = heap[c];
                i = c;
            }
            heap[i] = last;
        }
        gs_time end = now + gs_trace_duration(tr, order[k]);
        size_t i = h++;
        while (i > 0 && heap[(i - 1) / 2] > end) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = end;
    }
    free(heap);
    gs_free(order);
    return bench_now_ms() - t0;
}

/* Queue policy of a case: 0 fifo + pack, 1 fifo + EASY on user limits,
 * 2 priority_with_backfill (EASY) on history p90 estimates. */
static void case_policy(struct gs_policy *pol, int kind)
{
    bench_policy_init(pol);
    if (kind == 1) {
        pol->backfill = GS_BACKFILL_EASY;
    } else if (kind == 2) {
        pol->queue_policy = GS_QUEUE_PRIORITY_BACKFILL;
        pol->estimate = GS_EST_HISTORY;
    }
}

static const char *const kind_name[] = { "fifo", "fifo+easy(user)", "prio+easy(hist)" };

static int run_case(size_t jobs, int nodes, int kind, double load, struct result *r)
{
    struct gs_cluster *cl = bench_cluster(nodes);
    struct gs_trace *tr = gs_trace_create();
    struct gs_gen_opts g;
    struct gs_error err = { 0 };
    gs_gen_defaults(&g);
    g.jobs = jobs;
    g.seed = 1;
    g.load = load;
    double t0 = bench_now_ms();
    if (!cl || !tr || gs_gen_workload(cl, &g, tr, &err) < 0)
        return 1;
    r->gen_ms = bench_now_ms() - t0;
    r->floor_ms = replay_floor(tr);
    struct gs_policy pol;
    case_policy(&pol, kind);
    struct gs_sim_opts o = { .on_event = on_event, .eta = eta_on };
    struct gs_sim_result res;
    hash_state = 1469598103934665603ULL;
    t0 = bench_now_ms();
    if (gs_sim_run(cl, &pol, tr, &o, &res, &err) < 0) {
        fprintf(stderr, "sim: %s\n", err.msg);
        return 1;
    }
    r->sim_ms = bench_now_ms() - t0;
    r->hash = hash_state;
    r->steps = res.steps;
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    return 0;
}

static void fork_case(int id, size_t jobs, int nodes, int kind, double load, double *total)
{
    int fd[2];
    if (pipe(fd) < 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        struct result r = { 0 };
        int rc = run_case(jobs, nodes, kind, load, &r);
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
    if (got != (ssize_t)sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("%3d  case failed\n", id);
        return;
    }
    printf("%3d  %-15s %4.2f %8zu jobs %5d GPUs  sim %8.1f ms %8.0f jobs/s  floor %6.1f ms"
           "  x%5.1f  peak %6.1f MiB  steps %8lld  hash %016llx\n",
           id, kind_name[kind], load, jobs, nodes * 8, r.sim_ms, jobs / (r.sim_ms / 1e3), r.floor_ms,
           r.sim_ms / (r.floor_ms > 0 ? r.floor_ms : 1), ru.ru_maxrss / 1024.0,
           (long long)r.steps, (unsigned long long)r.hash);
    *total += r.sim_ms;
}

int main(int argc, char **argv)
{
    int full = 1, only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            full = strcmp(argv[i + 1], "small") == 0 ? 0 : strcmp(argv[i + 1], "mid") == 0 ? 2 : 1, i++;
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (strcmp(argv[i], "--eta") == 0)
            eta_on = 1;
    }
    const size_t jobs[] = { 10000, 100000, 1000000 };
    const int nodes[] = { 16, 128, 1024 };
    double total = 0;
    int id = 0;
    printf("bench_sim: pack placement, default size mix, load = offered load\n");
    for (int j = 0; j < 3; j++) {
        for (int n = 0; n < 3; n++) {
            id++;
            if ((only && id != only) || (!full && jobs[j] > 100000))
                continue;
            fork_case(id, jobs[j], nodes[n], 0, 0.8, &total);
        }
    }
    /* issue 3: a 10^6-job trace on 8,192 GPUs offered load 0.95 (at 0.8 a
     * cluster this large never queues), without and with backfill */
    for (int kind = 0; kind <= 2; kind++) {
        id++;
        if ((only && id != only) || !full)
            continue;
        fork_case(id, full > 1 ? 100000 : 1000000, 1024, kind, 0.95, &total);
    }
    printf("TOTAL sim %.1f ms\n", total);
    return 0;
}

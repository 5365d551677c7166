/* bench_retire.c - a long-lived engine's memory follows its live jobs
 * (issue 10, "long life": gs_engine_retire).
 *
 * A daemon-like driver in live mode on 1,250 nodes x 8 GPUs (10,000 GPUs)
 * under fifo + pack keeps 10,000 one-GPU jobs running: every simulated
 * second the 100 oldest exit (gs_engine_exited, code 0), 100 new ones are
 * submitted, a step starts them and each start is confirmed
 * (gs_engine_started).  With `retire` each job is retired right after its
 * exit, as the daemon does once the final state is journaled.  Printed at
 * 10^5, 10^6 and 10^7 jobs submitted: the process's resident set now and
 * its peak, and the engine's job records (gs_engine_slot_count).  The
 * baseline in the same run is the same driver without retire (10^5 and
 * 10^6 jobs; 10^7 would need some 4 GiB).  Each case runs in a forked
 * child, so its peak is its own.  `hash` covers every start (handle, time,
 * node, GPUs): retiring must not change a decision, so both modes print
 * the same hash at the same mark.
 *
 * Usage: bench_retire [--size small] [--case N]
 */
#define _DEFAULT_SOURCE
#include "bench_util.h"
#include "core/engine/engine.h"
#include "core/policy/policy.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

enum { LIVE = 10000, BATCH = 100, NODES = 1250 };

struct drv {
    struct gs_engine *eng;
    int *ring;           /* running handles, oldest first (a circular FIFO) */
    size_t head, n, cap;
    int started[BATCH + 1];
    int nstarted;
    uint64_t hash;
};

static void on_event(void *arg, const struct gs_event *ev)
{
    struct drv *d = arg;
    if (ev->kind != GS_EV_START)
        return;
    if (d->nstarted <= BATCH)
        d->started[d->nstarted++] = ev->job;
    d->hash = bench_hash(d->hash, (uint64_t)ev->job);
    d->hash = bench_hash(d->hash, (uint64_t)ev->time);
    if (ev->alloc && ev->alloc->nparts > 0) {
        d->hash = bench_hash(d->hash, (uint64_t)ev->alloc->parts[0].node);
        d->hash = bench_hash(d->hash, ev->alloc->parts[0].mask);
    }
}

static double rss_mib(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

static int submit(struct drv *d, long k, gs_time now)
{
    char name[32];
    struct gs_job_spec s = bench_spec(name, sizeof name, "job-", (int)k, now);
    s.gpus = 1;
    s.time_limit = 3600 * 1000;
    struct gs_error err = { 0 };
    int h = gs_engine_submit(d->eng, now, &s, &err);
    if (h < 0)
        fprintf(stderr, "bench_retire: submit: %s\n", err.msg);
    return h;
}

/* Step at `now` and confirm the starts; they join the running FIFO. */
static int step(struct drv *d, gs_time now)
{
    struct gs_error err = { 0 };
    d->nstarted = 0;
    if (gs_engine_step(d->eng, now, &err) < 0 || d->nstarted > BATCH) {
        fprintf(stderr, "bench_retire: step: %s\n", err.msg);
        return -1;
    }
    for (int i = 0; i < d->nstarted; i++) {
        if (gs_engine_started(d->eng, now, d->started[i], &err) < 0)
            return -1;
        d->ring[(d->head + d->n++) % d->cap] = d->started[i];
    }
    return 0;
}

/* The 100 oldest exit at `now` (and are retired). */
static int retire_batch(struct drv *d, gs_time now, int retire)
{
    struct gs_error err = { 0 };
    for (int i = 0; i < BATCH; i++) {
        int h = d->ring[d->head];
        d->head = (d->head + 1) % d->cap;
        d->n--;
        if (gs_engine_exited(d->eng, now, h, 0, &err) < 0 ||
            (retire && gs_engine_retire(d->eng, h, &err) < 0)) {
            fprintf(stderr, "bench_retire: job %d: %s\n", h, err.msg);
            return -1;
        }
    }
    return 0;
}

static int run(int id, int retire, long total)
{
    struct gs_cluster *cl = bench_cluster(NODES);
    struct gs_policy pol;
    gs_policy_init(&pol);
    struct gs_error err = { 0 };
    struct drv d = { 0 };
    d.cap = LIVE + BATCH;
    d.ring = malloc(d.cap * sizeof *d.ring);
    d.hash = 1469598103934665603ULL;
    d.eng = cl && d.ring ? gs_engine_create(cl, &pol, &err) : NULL;
    if (!d.eng)
        return 1;
    gs_engine_set_live(d.eng, 1);
    gs_engine_set_observer(d.eng, on_event, &d);
    long k = 0, mark = 100000;
    gs_time now = 0;
    double t0 = bench_now_ms();
    for (; k < LIVE; k++)
        if (submit(&d, k, now) < 0)
            return 1;
    for (int i = 0; i < LIVE / BATCH; i++) /* starts come BATCH at a time */
        if (step(&d, now) < 0)
            return 1;
    while (k < total) {
        now += 1000;
        if (retire_batch(&d, now, retire) < 0)
            return 1;
        for (int i = 0; i < BATCH; i++, k++)
            if (submit(&d, k, now) < 0)
                return 1;
        if (step(&d, now) < 0)
            return 1;
        if (k == mark) {
            printf("%3d  %-9s  jobs %9ld  live %5d  records %9d  rss %8.1f MiB  peak %8.1f "
                   "MiB  %8.0f ms  hash %016llx\n",
                   id, retire ? "retire" : "no-retire", k, gs_engine_running_count(d.eng),
                   gs_engine_slot_count(d.eng), rss_mib(), peak_mib(), bench_now_ms() - t0,
                   (unsigned long long)d.hash);
            fflush(stdout);
            mark *= 10;
        }
    }
    gs_engine_destroy(d.eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
    free(d.ring);
    return 0;
}

int main(int argc, char **argv)
{
    int small = 0, only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            small = strcmp(argv[++i], "small") == 0;
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
    }
    printf("bench_retire: live mode, %d x 8 GPUs, %d one-GPU jobs running, %d exit and "
           "%d arrive each second\n",
           NODES, LIVE, BATCH, BATCH);
    fflush(stdout);
    const struct {
        int retire;
        long total;
    } cases[] = { { 1, small ? 1000000 : 10000000 }, { 0, small ? 100000 : 1000000 } };
    double t0 = bench_now_ms();
    for (int c = 0; c < 2; c++) {
        if (only && only != c + 1)
            continue;
        pid_t pid = fork();
        if (pid == 0)
            _exit(run(c + 1, cases[c].retire, cases[c].total));
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            printf("%3d  failed\n", c + 1);
    }
    printf("TOTAL %.1f ms\n", bench_now_ms() - t0);
    return 0;
}

/* bench_daemon.c - gpuschedd from the outside (issue 11): a real daemon on
 * 127.0.0.1, a real SQLite journal with synchronous=FULL, real processes.
 *
 *   1  acknowledged-durable submits/s, 1 client          (target: -)
 *   2  acknowledged-durable submits/s, 16 clients         (target >= 1,000/s)
 *   3  decision-to-running latency of the local backend   (median, p95)
 *   4  scheduling pass with 10,000 pending on 8,192 GPUs  (target < 10 ms)
 *   5  restart to ready, 100,000 jobs in the journal      (target < 2 s)
 *      (99,000 done + 1,000 pending, then 90,000 + 10,000)
 *   6  reads while scheduling: 10,000 queued jobs, 4 clients hammer
 *      GET /v1/queue while 100 submits each run a pass; reads answered
 *      from the published view, then (GPUSCHEDD_READS=engine) on the
 *      engine thread as before it: read latency, submit latency (the
 *      loop's time), pass and publish time
 *   7  submitted, started and finished end to end: 1-GPU `true` jobs on
 *      512 idle GPUs from 1 and from 16 keep-alive clients, timed from the
 *      first submit to the last job's end (target >= 1,000 jobs/s with
 *      16); with the daemon's decision-to-running histogram's p50/p90/p99
 *
 * Usage: bench_daemon [--size small] [--case N] [--gpuschedd PATH] [--run-dir-on DIR];
 * --run-dir-on gives each daemon a --run-dir under DIR (a tmpfs: /dev/shm).  The daemon defaults
 * to build/release/bin/gpuschedd.  A submit is counted when its 201 has
 * arrived, i.e. after the turn that holds it committed (fsync'd WAL).  Every
 * daemon and job started here is stopped by pid before exit: a normal one,
 * an exit(1) on a failed step, or SIGINT/SIGTERM/SIGHUP (see "Teardown" in daemon_harness.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "daemon_harness.h"
#include "core/policy/job.h"
#include "io/store.h"

/* Cases 1-2: nodes drained, so every job stays pending and only the API,
 * the engine's submit and pass and the journal are measured. */
static void bench_submit(int ncase, int clients, int total)
{
    char state[128], cl[128];
    snprintf(state, sizeof state, "%s/submit%d", tmp, clients);
    snprintf(cl, sizeof cl, "%s/seed.yaml", tmp);
    struct daemon d;
    double ready;
    if (start(&d, cl, NULL, state, &ready) < 0) {
        fprintf(stderr, "cannot start %s\n", gsd);
        exit(1);
    }
    drain_all(&d, 4, "node-");
    int failed = 0;
    double ms = submit_all(d.port, clients, total, &failed);
    int done = (total / clients) * clients - failed;
    /* how the submits were grouped: the daemon's commits and passes */
    static char out[1 << 20];
    int fd = connect_to(d.port);
    double cs = 0, cc = 0, ps = 0, pc = 0;
    if (fd >= 0 && request(fd, "GET", "/metrics", NULL, out, sizeof out) == 200) {
        hist_of(out, "gpusched_journal_commit_seconds", &cs, &cc);
        hist_of(out, "gpusched_pass_duration_seconds", &ps, &pc);
    }
    if (fd >= 0)
        close(fd);
    printf("%2d  submits, %2d client%s, synchronous=FULL  %6d jobs  %8.1f ms  %7.0f /s%s"
           "  (%.0f commits, %.1f submits each, mean %.2f ms; %.0f passes, mean %.2f ms)\n",
           ncase, clients, clients > 1 ? "s" : " ", done, ms, done / ms * 1000,
           failed ? "  (FAILED requests)" : "", cc, cc > 0 ? done / cc : 0,
           cc > 0 ? cs / cc * 1e3 : 0, pc, pc > 0 ? ps / pc * 1e3 : 0);
    stop(&d);
}

/* Case 3: one 1-GPU job at a time that writes the time it began. */
static void bench_latency(int n)
{
    char state[128], cl[128];
    snprintf(state, sizeof state, "%s/latency", tmp);
    snprintf(cl, sizeof cl, "%s/seed.yaml", tmp);
    struct daemon d;
    double ready;
    if (start(&d, cl, NULL, state, &ready) < 0)
        exit(1);
    int fd = connect_to(d.port);
    double *lat = calloc((size_t)n, sizeof *lat);
    char body[1024], out[8192], file[160];
    int k = 0;
    for (int i = 0; i < n; i++) {
        snprintf(file, sizeof file, "%s/lat%d", tmp, i);
        snprintf(body, sizeof body,
                 "{\"id\":\"l%d\",\"command\":[\"sh\",\"-c\",\"date +%%s.%%N > %s.t; mv %s.t %s\"]}",
                 i, file, file, file);
        if (request(fd, "POST", "/v1/jobs", body, out, sizeof out) != 201)
            continue;
        const char *se = strstr(out, "\"start_epoch\":");
        double decided = se ? strtod(se + 14, NULL) : 0;
        FILE *f = NULL;
        for (int w = 0; w < 5000 && !(f = fopen(file, "r")); w++)
            usleep(200);
        double began = 0;
        if (f) {
            if (fscanf(f, "%lf", &began) != 1)
                began = 0;
            fclose(f);
        }
        if (decided > 0 && began > 0)
            lat[k++] = (began - decided) * 1e3;
    }
    close(fd);
    qsort(lat, (size_t)k, sizeof *lat, bench_cmp_double);
    printf(" 3  decision to running (local backend)  %6d jobs  p50 %6.2f ms  p90 %6.2f ms"
           "  p99 %6.2f ms  max %6.2f ms\n",
           k, k ? lat[k / 2] : 0, k ? lat[(k * 90) / 100] : 0, k ? lat[(k * 99) / 100] : 0,
           k ? lat[k - 1] : 0);
    free(lat);
    stop(&d);
}

/* Cases 4 and 6: 10 jobs of 800 GPUs take 8,000 of big.yaml's 8,192 GPUs
 * (on connection `fd`), then 16 threads submit `pending` mixed jobs that
 * mostly wait. */
static void fill_deep_queue(int fd, int port, int pending)
{
    char body[256];
    for (int i = 0; i < 10; i++) {
        snprintf(body, sizeof body, "{\"id\":\"big%d\",\"gpus\":800,\"command\":[\"sleep\","
                                    "\"3600\"]}", i);
        request(fd, "POST", "/v1/jobs", body, NULL, 0);
    }
    struct submitter sub[16];
    pthread_t th[16];
    for (int i = 0; i < 16; i++) {
        sub[i] = (struct submitter){ port, pending / 16, i * (pending / 16), 0, 1 };
        pthread_create(&th[i], NULL, submit_loop, &sub[i]);
    }
    for (int i = 0; i < 16; i++)
        pthread_join(th[i], NULL);
}

/* Case 4: 1,024 nodes x 8 GPUs; 10 jobs of 800 GPUs hold 8,000, 10,000
 * jobs of 1-64 GPUs wait (a few fit the 192 left), then 200 more submits,
 * each a turn with a pass over them all. */
static void bench_pass(int pending)
{
    char state[128], cl[128], pol[128];
    snprintf(state, sizeof state, "%s/pass", tmp);
    snprintf(cl, sizeof cl, "%s/big.yaml", tmp);
    snprintf(pol, sizeof pol, "%s/backfill.yaml", tmp);
    struct daemon d;
    double ready;
    if (start(&d, cl, pol, state, &ready) < 0)
        exit(1);
    int fd = connect_to(d.port);
    char body[256];
    static char out[1 << 20];
    fill_deep_queue(fd, d.port, pending);
    close(fd); /* idle through the fill: the daemon may have closed it (30 s) */
    fd = connect_to(d.port);
    double s0, c0, s1, c1;
    request(fd, "GET", "/metrics", NULL, out, sizeof out);
    hist_of(out, "gpusched_pass_duration_seconds", &s0, &c0);
    for (int i = 0; i < 200; i++) {
        snprintf(body, sizeof body, "{\"id\":\"q%d\",\"gpus\":64,\"command\":[\"true\"]}", i);
        request(fd, "POST", "/v1/jobs", body, NULL, 0);
    }
    request(fd, "GET", "/metrics", NULL, out, sizeof out);
    hist_of(out, "gpusched_pass_duration_seconds", &s1, &c1);
    const char *pj = strstr(out, "gpusched_jobs{state=\"pending\",team=\"default\"} ");
    int np = pj ? atoi(pj + strlen("gpusched_jobs{state=\"pending\",team=\"default\"} ")) : -1;
    close(fd);
    printf(" 4  pass, %d pending on 8,192 GPUs        %6.0f passes  mean %6.2f ms\n", np,
           c1 - c0, c1 > c0 ? (s1 - s0) / (c1 - c0) * 1e3 : 0);
    stop(&d);
}

/* Case 5: a journal written with the store's own calls, then a start.
 * With `history`, every done job is a completed one with its engine record
 * and its "end" event, and the policy estimates from_history: the restart
 * also teaches the estimator every run time again (loop_restore.c). */
static void bench_restart(int total, int live, int history)
{
    char state[128], db[160], cl[128];
    snprintf(state, sizeof state, "%s/restart%d%s", tmp, live, history ? "h" : "");
    mkdir(state, 0755);
    snprintf(db, sizeof db, "%s/journal.db", state);
    snprintf(cl, sizeof cl, "%s/seed.yaml", tmp);
    struct gs_error err;
    struct gs_store *st = gs_store_open(db, 1, 0, &err);
    if (!st || gs_store_begin(st, &err) < 0)
        exit(1);
    char id[32];
    for (int i = 0; i < total; i++) {
        snprintf(id, sizeof id, "r%d", i);
        struct gs_store_job j = { .id = id, .team = i % 2 ? "a" : "b", .user = "u", .gpus = 1,
                                  .request = "{\"gpus\":1,\"command\":[\"true\"]}",
                                  .state = "pending", .submit = 1000 + i };
        int64_t seq;
        gs_store_job_insert(st, &j, &seq, &err);
        if (i >= live) {
            j.seq = seq;
            j.state = "done";
            j.outcome = "completed";
            j.first_start = j.start = 2000 + i;
            j.end = 3000 + i;
            j.last_ckpt = GS_TIME_NONE;
            j.exit_code = 0;
            j.attempts = j.runs = 1;
            j.placement = "node-1:0";
            char rec[512];
            /* the engine's record (gs_job_info in the "v1" order of
               loop_restore.c): done, run 2000+i .. 3000+i */
            snprintf(rec, sizeof rec,
                     "v1 %d %d %d %d %d %lld %lld 0 1 1000 0 0 0 0 0 1 0 %lld -1 %lld 0 1000 0 0",
                     (int)GS_JOB_DONE, 1000 + i, 2000 + i, 2000 + i, 3000 + i,
                     (long long)GS_TIME_NONE, (long long)GS_TIME_NONE, (long long)GS_TIME_NONE,
                     (long long)GS_TIME_NONE);
            j.engine = history ? rec : NULL;
            gs_store_job_update(st, &j, &err);
            if (history)
                gs_store_event(st, 3000 + i, seq, "end", "exit 0", &err);
        }
    }
    for (int n = 1; n <= 4; n++) { /* drained: the restored jobs stay pending */
        snprintf(id, sizeof id, "node_state:node-%d", n);
        gs_store_meta_set(st, id, 1, &err);
    }
    gs_store_commit(st, &err);
    gs_store_close(st);
    struct daemon d;
    double ms;
    char pol[128];
    snprintf(pol, sizeof pol, "%s/history.yaml", tmp);
    if (start(&d, cl, history ? pol : NULL, state, &ms) < 0)
        exit(1);
    printf(" 5  restart to ready, %d jobs, %5d live%s  %8.1f ms\n", total, live,
           history ? ", from_history (every run time fed again)" : "", ms);
    stop(&d);
}

/* GET `path` on a keep-alive connection into a growing buffer; returns
 * the status or -1. */
static int get_big(int fd, const char *path, char **buf, size_t *cap)
{
    char head[512];
    int hl = snprintf(head, sizeof head, "GET %s HTTP/1.1\r\nHost: b\r\n\r\n", path);
    if (write(fd, head, (size_t)hl) != hl)
        return -1;
    size_t got = 0;
    char *end = NULL;
    size_t need = 0;
    for (;;) {
        if (got + 65536 > *cap) {
            size_t c = *cap ? *cap * 2 : 1 << 20;
            char *p = realloc(*buf, c);
            if (!p)
                return -1;
            *buf = p;
            *cap = c;
        }
        if (end && got >= need)
            break;
        ssize_t r = read(fd, *buf + got, *cap - got - 1);
        if (r <= 0)
            return -1;
        got += (size_t)r;
        (*buf)[got] = '\0';
        if (!end && (end = memmem(*buf, got, "\r\n\r\n", 4))) {
            const char *cl = strcasestr(*buf, "content-length:");
            need = (size_t)(end + 4 - *buf) + (cl ? strtoul(cl + 15, NULL, 10) : 0);
        }
    }
    return atoi(*buf + 9);
}

struct reader {
    int port, stop, n, bad;
    double *lat;
    size_t cap;
};

static void *read_loop(void *arg)
{
    struct reader *r = arg;
    int fd = connect_to(r->port);
    char *buf = NULL;
    size_t cap = 0;
    while (fd >= 0 && !__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
        double t0 = bench_now_ms();
        if (get_big(fd, "/v1/queue", &buf, &cap) != 200) {
            r->bad++;
            break;
        }
        if ((size_t)r->n == r->cap) {
            r->cap = r->cap ? r->cap * 2 : 1024;
            r->lat = realloc(r->lat, r->cap * sizeof *r->lat);
        }
        r->lat[r->n++] = bench_now_ms() - t0;
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    return NULL;
}

static double pctl(double *v, int n, double q)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

/* Up to 100 sequential submits (each a turn with a pass), for at most 60
 * s: their latencies and the pass / publish histograms' means over them.
 * Returns how many were made. */
static int submit_run(int fd, const char *tag, double *lat, double *pass, double *pub)
{
    static char out[1 << 20];
    char body[256];
    double s0, c0, s1, c1, p0, q0, p1, q1;
    request(fd, "GET", "/metrics", NULL, out, sizeof out);
    hist_of(out, "gpusched_pass_duration_seconds", &s0, &c0);
    hist_of(out, "gpusched_publish_duration_seconds", &p0, &q0);
    int n = 0;
    double start = bench_now_ms();
    for (; n < 100 && bench_now_ms() - start < 60000; n++) {
        snprintf(body, sizeof body, "{\"id\":\"%s%d\",\"gpus\":64,\"command\":[\"true\"]}",
                 tag, n);
        double t0 = bench_now_ms();
        request(fd, "POST", "/v1/jobs", body, NULL, 0);
        lat[n] = bench_now_ms() - t0;
    }
    request(fd, "GET", "/metrics", NULL, out, sizeof out);
    hist_of(out, "gpusched_pass_duration_seconds", &s1, &c1);
    hist_of(out, "gpusched_publish_duration_seconds", &p1, &q1);
    *pass = c1 > c0 ? (s1 - s0) / (c1 - c0) * 1e3 : 0;
    *pub = q1 > q0 ? (p1 - p0) / (q1 - q0) * 1e3 : 0;
    return n;
}

/* Stop and join the readers; their latencies in one array (caller frees). */
static double *readers_join(struct reader *rd, pthread_t *rt, int n, int *nr, int *bad)
{
    *nr = *bad = 0;
    for (int i = 0; i < n; i++)
        __atomic_store_n(&rd[i].stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) {
        pthread_join(rt[i], NULL);
        *nr += rd[i].n;
        *bad += rd[i].bad;
    }
    double *all = malloc(((size_t)*nr + 1) * sizeof *all);
    for (int i = 0, k = 0; i < n; i++) {
        if (all)
            memcpy(all + k, rd[i].lat, (size_t)rd[i].n * sizeof *all);
        k += rd[i].n;
        free(rd[i].lat);
    }
    return all;
}

/* Case 6, one mode: the queue of case 4, then submits without and with 4
 * readers of GET /v1/queue. */
static void bench_reads_mode(int pending, const char *mode)
{
    char state[128], cl[128], pol[128];
    snprintf(state, sizeof state, "%s/reads-%s", tmp, mode);
    snprintf(cl, sizeof cl, "%s/big.yaml", tmp);
    snprintf(pol, sizeof pol, "%s/backfill.yaml", tmp);
    struct daemon d;
    double ready;
    if (strcmp(mode, "engine") == 0)
        setenv("GPUSCHEDD_READS", "engine", 1);
    int rc = start(&d, cl, pol, state, &ready);
    unsetenv("GPUSCHEDD_READS");
    if (rc < 0)
        exit(1);
    int fd = connect_to(d.port);
    fill_deep_queue(fd, d.port, pending);
    close(fd); /* idle through the fill: the daemon may have closed it (30 s) */
    fd = connect_to(d.port);
    double lat0[100], lat1[100], pass0, pass1, pub0, pub1;
    int n0 = submit_run(fd, "a", lat0, &pass0, &pub0);
    struct reader rd[4] = { 0 };
    pthread_t rt[4];
    for (int i = 0; i < 4; i++) {
        rd[i].port = d.port;
        pthread_create(&rt[i], NULL, read_loop, &rd[i]);
    }
    double t0 = bench_now_ms();
    int n1 = submit_run(fd, "b", lat1, &pass1, &pub1);
    double span = bench_now_ms() - t0;
    int nr, bad;
    double *all = readers_join(rd, rt, 4, &nr, &bad);
    printf(" 6  reads %-6s quiet: %3d submits p50 %7.2f ms p99 %7.2f ms, pass %5.2f ms,"
           " publish %5.2f ms\n",
           mode, n0, pctl(lat0, n0, 0.5), pctl(lat0, n0, 0.99), pass0, pub0);
    printf(" 6  reads %-6s 4 readers: %3d submits p50 %7.2f ms p99 %7.2f ms, pass %5.2f ms,"
           " publish %5.2f ms; GET /v1/queue %d reads (%.1f/s) p50 %7.2f ms p99 %7.2f ms%s\n",
           mode, n1, pctl(lat1, n1, 0.5), pctl(lat1, n1, 0.99), pass1, pub1, nr,
           nr / span * 1e3, pctl(all, nr, 0.5), pctl(all, nr, 0.99),
           bad ? " (FAILED reads)" : "");
    free(all);
    close(fd);
    stop(&d);
}

/* Quantile q of a /metrics histogram `name` (cumulative buckets, seconds),
 * interpolated linearly inside its bucket (the bucket bounds limit its
 * precision: 1, 5, 10, 25 ms ...); milliseconds, -1 when empty. */
static double hist_quantile(const char *text, const char *name, double q)
{
    double prev_le = 0, prev_n = 0, total = 0, c;
    char key[160];
    snprintf(key, sizeof key, "%s_count ", name);
    const char *p = strstr(text, key);
    if (!p || (total = strtod(p + strlen(key), NULL)) <= 0)
        return -1;
    snprintf(key, sizeof key, "%s_bucket{le=\"", name);
    for (p = strstr(text, key); p; p = strstr(p + 1, key)) {
        const char *v = p + strlen(key);
        double le = strncmp(v, "+Inf", 4) ? strtod(v, NULL) : prev_le;
        const char *sp = strchr(v, ' ');
        if (!sp)
            break;
        c = strtod(sp + 1, NULL);
        if (c >= q * total)
            return (c > prev_n ? prev_le + (le - prev_le) * (q * total - prev_n) / (c - prev_n)
                               : le) * 1e3;
        prev_le = le;
        prev_n = c;
    }
    return prev_le * 1e3;
}

/* The count of completed jobs in /metrics text. */
static long completed_of(const char *text)
{
    const char *p =
        strstr(text, "gpusched_jobs_ended_total{outcome=\"completed\",team=\"default\"} ");
    return p ? atol(strchr(p, '}') + 2) : 0;
}

/* Case 7: `total` 1-GPU `true` jobs from `clients` keep-alive clients on
 * 64 x 8 idle GPUs; the time from the first submit to the last job's end
 * (the journal has recorded it: /metrics counts it completed). */
static void bench_run(int clients, int total)
{
    char state[128], cl[128];
    snprintf(state, sizeof state, "%s/run%d", tmp, clients);
    snprintf(cl, sizeof cl, "%s/run.yaml", tmp);
    struct daemon d;
    double ready;
    if (start(&d, cl, NULL, state, &ready) < 0)
        exit(1);
    int failed = 0;
    double t0 = bench_now_ms();
    double sub_ms = submit_all(d.port, clients, total, &failed);
    long want = (total / clients) * clients - failed, got = 0;
    static char out[1 << 20];
    int fd = connect_to(d.port);
    for (int w = 0; w < 60000 && got < want; w++) { /* at most about 5 min */
        if (request(fd, "GET", "/metrics", NULL, out, sizeof out) != 200)
            break;
        if ((got = completed_of(out)) < want)
            usleep(5000);
    }
    double ms = bench_now_ms() - t0;
    request(fd, "GET", "/metrics", NULL, out, sizeof out);
    close(fd);
    const char *h = "gpusched_start_latency_seconds";
    double ls, lc; /* the launcher thread's time per launch (absent before it) */
    hist_of(out, "gpusched_launch_duration_seconds", &ls, &lc);
    printf(" 7  submit+run+end, %2d client%s, true   %6ld jobs  %8.1f ms  %7.0f /s  (submits "
           "%.0f /s)  decision-to-running p50 %.1f p90 %.1f p99 %.1f ms  launch mean %.2f ms"
           "%s\n",
           clients, clients > 1 ? "s" : " ", got, ms, got / ms * 1000, want / sub_ms * 1000,
           hist_quantile(out, h, 0.5), hist_quantile(out, h, 0.9), hist_quantile(out, h, 0.99),
           lc > 0 ? ls / lc * 1e3 : 0,
           failed || got < want ? "  (FAILED: not every job ended completed)" : "");
    stop(&d);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN); /* a closed connection fails its request instead */
    int small = 0, only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            small = !strcmp(argv[++i], "small");
        else if (!strcmp(argv[i], "--case") && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpuschedd") && i + 1 < argc)
            gsd = argv[++i];
        else if (!strcmp(argv[i], "--run-dir-on") && i + 1 < argc) {
            snprintf(run_on, sizeof run_on, "%s/gsbenchrunXXXXXX", argv[++i]);
            if (!mkdtemp(run_on)) {
                fprintf(stderr, "bench_daemon: --run-dir-on %s: %s\n", argv[i], strerror(errno));
                return 1;
            }
        } else {
            fprintf(stderr, "usage: bench_daemon [--size small] [--case N] [--gpuschedd PATH]"
                            " [--run-dir-on DIR]\n(unknown or incomplete argument: %s)\n",
                    argv[i]);
            return 2;
        }
    }
    if (access(gsd, X_OK) < 0) {
        fprintf(stderr, "bench_daemon: %s not built (make release)\n", gsd);
        return 1;
    }
    snprintf(tmp, sizeof tmp, "/tmp/gsbenchXXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    teardown_init();
    char path[160];
    snprintf(path, sizeof path, "%s/seed.yaml", tmp);
    write_file(path, "cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n"
                     "    - name: node-[1-4]\n      gpus: 8\n      gpu_type: H100-80G\n");
    snprintf(path, sizeof path, "%s/big.yaml", tmp);
    write_file(path, "cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n"
                     "    - name: n-[1-1024]\n      gpus: 8\n      gpu_type: H100-80G\n");
    snprintf(path, sizeof path, "%s/run.yaml", tmp);
    write_file(path, "cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n"
                     "    - name: r-[1-64]\n      gpus: 8\n      gpu_type: H100-80G\n");
    snprintf(path, sizeof path, "%s/history.yaml", tmp);
    write_file(path, "queue:\n  policy: priority_with_backfill\n  backfill: true\n"
                     "  duration_estimate: from_history\n");
    snprintf(path, sizeof path, "%s/backfill.yaml", tmp);
    write_file(path, "queue:\n  policy: priority_with_backfill\n  backfill: true\n"
                     "  duration_estimate: user\n");
    printf("gpuschedd %s, journal synchronous=FULL on %s, run files in %s\n", gsd, tmp,
           run_on[0] ? run_on : "STATE/run");
    if (!only || only == 1)
        bench_submit(1, 1, small ? 500 : 3000);
    if (!only || only == 2)
        bench_submit(2, 16, small ? 2000 : 20000);
    if (!only || only == 3)
        bench_latency(small ? 20 : 200);
    if (!only || only == 4)
        bench_pass(small ? 1000 : 10000);
    if (!only || only == 5) {
        bench_restart(small ? 10000 : 100000, small ? 100 : 1000, 0);
        bench_restart(small ? 10000 : 100000, small ? 1000 : 10000, 0);
        bench_restart(small ? 10000 : 100000, small ? 1000 : 1000, 1);
    }
    if (!only || only == 6) { /* both modes in the same run */
        bench_reads_mode(small ? 1000 : 10000, "view");
        bench_reads_mode(small ? 1000 : 10000, "engine");
    }
    if (!only || only == 7) {
        bench_run(1, small ? 300 : 1000);
        bench_run(16, small ? 2000 : 10000);
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        return 1;
    if (run_on[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", run_on);
        if (system(cmd) != 0)
            return 1;
    }
    return 0;
}

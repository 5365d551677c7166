/* daemon_harness.c - bench_daemon's harness (daemon_harness.h): start
 * and stop a real gpuschedd, the teardown that stops every daemon and
 * supervisor started here, HTTP requests, the submit threads.
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

const char *gsd = "build/release/bin/gpuschedd";
char tmp[64];
char run_on[4200];

/* Teardown.  Every daemon started is listed in `running` from its fork
 * until stop() has stopped it and the job supervisors it left.  An exit()
 * (a failed step: atexit) and SIGINT, SIGTERM or SIGHUP stop every listed
 * one and remove the temporary directory.  The signals are blocked in every
 * thread but one, which waits for them (sigwait), so the teardown runs in a
 * plain thread, not in a handler.  The supervisors cannot be reached as a
 * process group of ours: gpuschedd puts each in a session of its own
 * (setsid, src/daemon/backend.c) so that it outlives the daemon for a
 * restart; stop() finds them by the pids the daemon recorded in
 * STATE/run/<job>/sup, checked against their start time, and a supervisor
 * takes its job's process group with it (SIGUSR2: SIGKILL to the group). */
#define MAX_RUNNING 4
static pthread_mutex_t running_mu = PTHREAD_MUTEX_INITIALIZER;
static struct daemon running[MAX_RUNNING]; /* pid 0 = free slot */
static sigset_t quit_sigs;

int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(0x7f000001) };
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

int request(int fd, const char *method, const char *path, const char *body, char *buf,
            size_t n)
{
    char head[4096];
    size_t bl = body ? strlen(body) : 0;
    int hl = snprintf(head, sizeof head,
                      "%s %s HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\n\r\n%s",
                      method, path, bl, body ? body : "");
    /* one write: header and body in one segment (no Nagle wait) */
    if (hl >= (int)sizeof head || write(fd, head, (size_t)hl) != hl)
        return -1;
    static __thread char in[1 << 20];
    size_t got = 0;
    char *end = NULL;
    while (!(end = got ? memmem(in, got, "\r\n\r\n", 4) : NULL)) {
        ssize_t r = read(fd, in + got, sizeof in - 1 - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    in[got] = '\0';
    int status = atoi(in + 9);
    const char *cl = strcasestr(in, "content-length:");
    size_t len = cl ? strtoul(cl + 15, NULL, 10) : 0, have = got - (size_t)(end + 4 - in);
    while (have < len) {
        ssize_t r = read(fd, in + got, sizeof in - 1 - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
        have += (size_t)r;
    }
    if (buf) {
        size_t c = len < n - 1 ? len : n - 1;
        memcpy(buf, end + 4, c);
        buf[c] = '\0';
    }
    return status;
}

int start(struct daemon *d, const char *cluster, const char *policy, const char *state,
          double *ms)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    double t0 = bench_now_ms();
    snprintf(d->state, sizeof d->state, "%s", state);
    /* --run-dir-on: the run files elsewhere; STATE/run links to them so the
       teardown finds the supervisors as it does without the option */
    char rd[4400] = "", link[200];
    if (run_on[0]) {
        const char *base = strrchr(state, '/');
        snprintf(rd, sizeof rd, "%s/%s", run_on, base ? base + 1 : state);
        snprintf(link, sizeof link, "%s/run", state);
        if ((mkdir(state, 0700) < 0 && errno != EEXIST) || symlink(rd, link) < 0)
            return -1;
    }
    pthread_mutex_lock(&running_mu);
    pid_t parent = getpid();
    d->pid = fork();
    if (d->pid == 0) {
        /* the daemon must not inherit the blocked quit signals; and if this
           process dies without its teardown, the daemon gets a SIGTERM */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        dup2(p[1], 1);
        close(p[0]);
        const char *err = getenv("BENCH_DAEMON_STDERR"); /* a file, to look at its log */
        int null = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(null, 2);
        const char *argv[] = { gsd, "--cluster", cluster, "--state", state, "--listen",
                               "127.0.0.1:0", "--trust-loopback", "--server-name", "b", /* its Host */
                               rd[0] ? "--run-dir" : "--sync", rd[0] ? rd : "full",
                               policy ? "--policy" : NULL, policy, NULL };
        execv(gsd, (char *const *)argv);
        _exit(127);
    }
    for (int i = 0; d->pid > 0 && i < MAX_RUNNING; i++)
        if (running[i].pid == 0) {
            running[i] = *d;
            break;
        }
    pthread_mutex_unlock(&running_mu);
    close(p[1]);
    if (d->pid < 0)
        return -1;
    char line[256];
    size_t got = 0;
    while (got < sizeof line - 1) {
        ssize_t r = read(p[0], line + got, 1);
        if (r <= 0 || line[got] == '\n')
            break;
        got += (size_t)r;
    }
    line[got] = '\0';
    close(p[0]);
    const char *colon = strrchr(line, ':');
    if (strncmp(line, "listening on ", 13) || !colon)
        return -1;
    d->port = atoi(colon + 1);
    for (int i = 0; i < 20000; i++) {
        int fd = connect_to(d->port);
        int st = fd >= 0 ? request(fd, "GET", "/readyz", NULL, NULL, 0) : -1;
        if (fd >= 0)
            close(fd);
        if (st == 200) {
            *ms = bench_now_ms() - t0;
            return 0;
        }
        usleep(500);
    }
    return -1;
}

/* Start time (clock ticks since boot) of a live process `pid`, or -1 when
 * there is none or only its zombie. */
static long long proc_start(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *f = strrchr(buf, ')'); /* then " STATE ..."; starttime is field 22 */
    if (!f || f[1] != ' ' || f[2] == 'Z')
        return -1;
    for (int field = 2; field < 22 && f; field++)
        f = strchr(f + 1, ' ');
    return f ? strtoll(f + 1, NULL, 10) : -1;
}

struct sup {
    pid_t pid;
    long long start; /* as recorded: a reused pid has another */
};

/* The supervisors recorded under `state`/run that are alive, into a
 * growing *sups; returns the count. */
static int recorded_supervisors(const char *state, struct sup **sups)
{
    char path[512];
    snprintf(path, sizeof path, "%s/run", state);
    DIR *dir = opendir(path);
    int n = 0, cap = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        snprintf(path, sizeof path, "%s/run/%s/sup", state, e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        char line[64], *end = line;
        long long pid = 0, t = -2;
        if (f && fgets(line, sizeof line, f)) {
            pid = strtoll(line, &end, 10); /* "PID START" */
            t = end != line ? strtoll(end, NULL, 10) : -2;
        }
        if (pid > 0)
            waitpid((pid_t)pid, NULL, WNOHANG); /* an orphan of ours that has ended */
        if (pid > 0 && proc_start((pid_t)pid) == t) {
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                struct sup *ns = realloc(*sups, (size_t)cap * sizeof *ns);
                if (!ns) {
                    fclose(f);
                    break;
                }
                *sups = ns;
            }
            (*sups)[n++] = (struct sup){ (pid_t)pid, t };
        }
        if (f)
            fclose(f);
    }
    if (dir)
        closedir(dir);
    return n;
}

/* Keep the still-alive entries of sups[0..n); returns how many. */
static int still_alive(struct sup *sups, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        waitpid(sups[i].pid, NULL, WNOHANG); /* ours once orphaned (teardown_init) */
        if (proc_start(sups[i].pid) == sups[i].start)
            sups[k++] = sups[i];
    }
    return k;
}

/* Stop the daemon, then every job supervisor it left (by recorded pid):
 * SIGUSR2 (the supervisor kills its job's group and exits once the group
 * is gone), up to 10 s for them to go, SIGKILL to any left.  With
 * running_mu held. */
static void stop_locked(const struct daemon *d)
{
    kill(d->pid, SIGTERM);
    waitpid(d->pid, NULL, 0);
    struct sup *sup = NULL;
    int n = recorded_supervisors(d->state, &sup);
    for (int i = 0; i < n; i++)
        kill(sup[i].pid, SIGUSR2);
    for (int w = 0; w < 1000 && n > 0; w++) {
        usleep(10000);
        n = still_alive(sup, n);
    }
    for (int i = 0; i < n; i++)
        kill(sup[i].pid, SIGKILL);
    if (n > 0)
        fprintf(stderr, "bench_daemon: %d supervisor(s) killed after 10 s\n", n);
    free(sup);
}

/* stop_locked, and `d` leaves the running list. */
void stop(struct daemon *d)
{
    pthread_mutex_lock(&running_mu);
    stop_locked(d);
    for (int i = 0; i < MAX_RUNNING; i++)
        if (running[i].pid == d->pid)
            running[i].pid = 0;
    pthread_mutex_unlock(&running_mu);
}

/* Stop every daemon still running and remove the temporary directory
 * (atexit, and the quit-signal thread). */
static void teardown(void)
{
    pthread_mutex_lock(&running_mu);
    for (int i = 0; i < MAX_RUNNING; i++)
        if (running[i].pid > 0) {
            stop_locked(&running[i]);
            running[i].pid = 0;
        }
    const char *dirs[] = { tmp, run_on };
    for (int i = 0; i < 2; i++)
        if (dirs[i][0] && access(dirs[i], F_OK) == 0) {
            char cmd[4300];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dirs[i]);
            if (system(cmd) != 0)
                fprintf(stderr, "bench_daemon: cannot remove %s\n", dirs[i]);
        }
    pthread_mutex_unlock(&running_mu);
}

static void *quit_thread(void *arg)
{
    (void)arg;
    int sig = 0;
    if (sigwait(&quit_sigs, &sig) != 0)
        return NULL;
    fprintf(stderr, "bench_daemon: signal %d: stopping what it started\n", sig);
    teardown();
    _exit(128 + sig);
}

/* Before any thread or daemon: block the quit signals here (every thread
 * created later inherits that), wait for them in one thread, and tear down
 * at exit.  As a child subreaper, this process adopts the supervisors a
 * stopped daemon leaves and reaps them itself (init here is slow to). */
void teardown_init(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    sigemptyset(&quit_sigs);
    sigaddset(&quit_sigs, SIGINT);
    sigaddset(&quit_sigs, SIGTERM);
    sigaddset(&quit_sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &quit_sigs, NULL);
    pthread_t th;
    if (pthread_create(&th, NULL, quit_thread, NULL) == 0)
        pthread_detach(th);
    atexit(teardown);
}

void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

void drain_all(struct daemon *d, int nodes, const char *prefix)
{
    int fd = connect_to(d->port);
    char path[128];
    for (int i = 1; i <= nodes; i++) {
        snprintf(path, sizeof path, "/v1/nodes/%s%d/drain", prefix, i);
        request(fd, "POST", path, "", NULL, 0);
    }
    close(fd);
}
static const int sizes[] = { 1, 2, 4, 8, 16, 32, 64 };

void *submit_loop(void *arg)
{
    struct submitter *s = arg;
    int fd = connect_to(s->port);
    char body[256];
    for (int i = 0; i < s->n && fd >= 0; i++) {
        int k = s->id0 + i;
        if (s->mixed)
            snprintf(body, sizeof body,
                     "{\"id\":\"p%d\",\"gpus\":%d,\"priority\":%d,\"time_limit\":\"%dm\","
                     "\"command\":[\"sleep\",\"3600\"]}",
                     k, sizes[k % 7], k % 5, 10 + k % 50);
        else
            snprintf(body, sizeof body, "{\"id\":\"s%d\",\"gpus\":1,\"command\":[\"true\"]}",
                     k);
        if (request(fd, "POST", "/v1/jobs", body, NULL, 0) != 201)
            s->failed++;
    }
    if (fd >= 0)
        close(fd);
    else
        s->failed = s->n;
    return NULL;
}

/* `clients` threads (at most 64) submit total / clients jobs each to the
 * daemon on `port`; *failed gets the submits refused.  Returns the wall ms. */
double submit_all(int port, int clients, int total, int *failed)
{
    struct submitter s[64];
    pthread_t th[64];
    double t0 = bench_now_ms();
    for (int i = 0; i < clients; i++) {
        s[i] = (struct submitter){ port, total / clients, i * (total / clients), 0, 0 };
        pthread_create(&th[i], NULL, submit_loop, &s[i]);
    }
    for (int i = 0; i < clients; i++) {
        pthread_join(th[i], NULL);
        *failed += s[i].failed;
    }
    return bench_now_ms() - t0;
}

/* The sum and count of a histogram in /metrics text. */
void hist_of(const char *text, const char *name, double *sum, double *count)
{
    char key[128];
    snprintf(key, sizeof key, "\n%s_sum ", name);
    const char *p = strstr(text, key);
    *sum = p ? strtod(p + strlen(key), NULL) : 0;
    snprintf(key, sizeof key, "\n%s_count ", name);
    p = strstr(text, key);
    *count = p ? strtod(p + strlen(key), NULL) : 0;
}

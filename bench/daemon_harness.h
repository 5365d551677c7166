/* daemon_harness.h - bench_daemon's harness: a real gpuschedd started
 * on 127.0.0.1 port 0 and stopped by pid with the supervisors it left
 * (and at exit or on SIGINT/SIGTERM/SIGHUP: teardown_init), HTTP/1.1
 * requests on a keep-alive connection, and the submit threads of cases 1,
 * 2, 4 and 6 (daemon_harness.c).  Every failure to start is a message on
 * stderr and a -1; the cases exit(1) on it.
 */
#ifndef GS_BENCH_DAEMON_HARNESS_H
#define GS_BENCH_DAEMON_HARNESS_H

#include <sys/types.h>

/* The daemon binary (--gpuschedd) and the run's temporary directory. */
extern const char *gsd;
extern char tmp[64];
/* --run-dir-on: made by main (mkdtemp), each daemon's --run-dir is made in
   it and the teardown removes it; "" = the daemons' own STATE/run */
extern char run_on[4200];

struct daemon {
    pid_t pid;
    int port;
    char state[128];
};

struct submitter {
    int port, n, id0, failed;
    int mixed;                /* case 4's mixed sizes, else 1-GPU `true` */
};

/* Start gpuschedd on port 0; returns 0 once its listening line is read
 * (and, with wait_ready, once /readyz answers).  *ms = time to ready. */
int start(struct daemon *d, const char *cluster, const char *policy, const char *state,
                 double *ms);
/* Stop d (SIGTERM, waited for), then every job supervisor it recorded
 * under its state directory (SIGUSR2, up to 10 s, SIGKILL to any left);
 * d leaves the teardown list. */
void stop(struct daemon *d);
/* Before any thread or daemon: block SIGINT/SIGTERM/SIGHUP in every
 * thread but one that waits for them, tears down (stops every daemon
 * started, removes tmp) and exits; at exit the same teardown runs. */
void teardown_init(void);
/* A TCP connection to 127.0.0.1:port, -1 on failure. */
int connect_to(int port);
/* One HTTP/1.1 request on keep-alive connection fd (body NULL = empty);
 * the response body into buf (NUL-terminated, truncated to n; buf NULL =
 * dropped).  Returns the status, or -1 on a broken connection. */
int request(int fd, const char *method, const char *path, const char *body, char *buf,
            size_t n);
/* Write text to path (exit(1) when it cannot). */
void write_file(const char *path, const char *text);
/* POST /v1/nodes/PREFIX<i>/drain for i = 1..nodes. */
void drain_all(struct daemon *d, int nodes, const char *prefix);
/* A submit thread: s->n jobs from id s->id0 (struct submitter). */
void *submit_loop(void *arg);
/* `clients` threads (at most 64) submit total / clients jobs each to the
 * daemon on `port`; *failed gets the submits refused.  Returns the wall ms. */
double submit_all(int port, int clients, int total, int *failed);
/* The sum and count of histogram `name` in /metrics text. */
void hist_of(const char *text, const char *name, double *sum, double *count);

#endif

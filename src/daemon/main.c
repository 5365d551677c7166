/* main.c - gpuschedd: the live GPU scheduler (DESIGN.md section 5,
 * docs/daemon.md).  Parses the flags, binds the listening socket, starts the
 * HTTP threads, restores the engine from the journal and runs the engine
 * loop on the main thread until SIGTERM/SIGINT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/backend.h"
#include "daemon/daemon.h"
#include "daemon/gpumap.h"

static const char usage[] =
    "usage: gpuschedd --cluster C.yaml [--policy P.yaml] --state DIR\n"
    "                 [--listen HOST:PORT] [--backend local|slurm] [--tokens T.yaml]\n"
    "                 [--clock-scale X] [--sync full|normal] [--kill-wait SECONDS]\n"
    "  --listen        default 127.0.0.1:8642; port 0 picks a free port; the first\n"
    "                  stdout line is 'listening on http://HOST:PORT'\n"
    "  --sync          journal durability: full (default; survives power loss) or\n"
    "                  normal (survives a daemon crash; may lose the last commits\n"
    "                  on power loss)\n"
    "  --kill-wait     seconds between SIGTERM and SIGKILL when stopping a job (10)\n"
    "  local backend (docs/daemon.md, \"Local backend\"):\n"
    "  --local-gpus N  this host has N GPUs: node i's GPUs are host GPUs offset by\n"
    "                  the earlier nodes' counts; refused when the file maps more\n"
    "                  (default: the /dev/nvidiaN devices; none = virtual)\n"
    "  --virtual-gpus  no physical GPUs: each node's own indices (demos, tests)\n"
    "  --virtual-users a job whose user has no account here runs as the daemon's\n"
    "                  own account (traces whose users are labels: tests, demos)\n"
    "  slurm backend (Slurm found through SLURM_CONF; docs/slurm-backend.md):\n"
    "  --slurm-partition P, --slurm-account A, --slurm-qos Q   where jobs go\n"
    "  --slurm-gpus auto|types|counts   pin GPU indices with per-GPU GRES types g0..gN\n"
    "                  (types), or ask gpu:N per node and read the indices back\n"
    "  --slurm-poll SECONDS             batched read interval (0.5)\n"
    "  --slurm-start-deadline SECONDS   a released job must run by then (15)\n";

/* The options that take a checked value: 0, or 2 after saying what is
 * wrong. */
static int opt_value(struct gsd_opts *o, int c, const char *arg)
{
    char *end;
    switch (c) {
        case 'x':
            o->clock_scale = strtod(arg, &end);
            if (*end || !(o->clock_scale > 0 && o->clock_scale <= 1e6)) {
                fprintf(stderr, "gpuschedd: --clock-scale: expected a number > 0, got '%s'\n",
                        arg);
                return 2;
            }
            break;
        case 'y':
            if (strcmp(arg, "full") != 0 && strcmp(arg, "normal") != 0) {
                fprintf(stderr, "gpuschedd: --sync: expected full or normal, got '%s'\n", arg);
                return 2;
            }
            o->sync_full = !strcmp(arg, "full");
            break;
        case 'k': {
            double s = strtod(arg, &end);
            if (*end || !(s >= 0 && s <= 86400)) {
                fprintf(stderr, "gpuschedd: --kill-wait: expected seconds, got '%s'\n", arg);
                return 2;
            }
            o->kill_wait = (gs_time)(s * 1000);
            break;
        }
        case 'P': o->slurm_partition = arg; break;
        case 'A': o->slurm_account = arg; break;
        case 'Q': o->slurm_qos = arg; break;
        case 'G':
            if (strcmp(arg, "auto") != 0 && strcmp(arg, "types") != 0 &&
                strcmp(arg, "counts") != 0) {
                fprintf(stderr, "gpuschedd: --slurm-gpus: expected auto, types or counts, "
                                "got '%s'\n", arg);
                return 2;
            }
            o->slurm_gpus = arg;
            break;
        case 'g': {
            long v = strtol(arg, &end, 10);
            if (*end || end == arg || v < 0 || v > 100000) {
                fprintf(stderr, "gpuschedd: --local-gpus: expected a GPU count, got '%s'\n",
                        arg);
                return 2;
            }
            o->local_gpus = (int)v;
            o->gpu_mode = GSD_GPUS_PHYSICAL;
            break;
        }
        case 'O':
        case 'D': {
            double s = strtod(arg, &end);
            if (*end || !(s >= 0.05 && s <= 3600)) {
                fprintf(stderr, "gpuschedd: --%s: expected seconds (0.05..3600), got '%s'\n",
                        c == 'O' ? "slurm-poll" : "slurm-start-deadline", arg);
                return 2;
            }
            *(c == 'O' ? &o->slurm_poll_ms : &o->slurm_deadline_ms) = (int)(s * 1000);
            break;
        }
    }
    return 0;
}

static int parse_opts(int argc, char **argv, struct gsd_opts *o)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "policy", required_argument, NULL, 'p' },
        { "state", required_argument, NULL, 's' },   { "listen", required_argument, NULL, 'l' },
        { "backend", required_argument, NULL, 'b' }, { "tokens", required_argument, NULL, 't' },
        { "clock-scale", required_argument, NULL, 'x' },
        { "sync", required_argument, NULL, 'y' },
        { "kill-wait", required_argument, NULL, 'k' },
        { "slurm-partition", required_argument, NULL, 'P' },
        { "slurm-account", required_argument, NULL, 'A' },
        { "slurm-qos", required_argument, NULL, 'Q' },
        { "slurm-gpus", required_argument, NULL, 'G' },
        { "slurm-poll", required_argument, NULL, 'O' },
        { "slurm-start-deadline", required_argument, NULL, 'D' },
        { "local-gpus", required_argument, NULL, 'g' },
        { "virtual-gpus", no_argument, NULL, 'V' },
        { "virtual-users", no_argument, NULL, 'U' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 }
    };
    *o = (struct gsd_opts){ .listen = "127.0.0.1:8642", .backend = "local", .clock_scale = 1,
                            .sync_full = 1, .kill_wait = 10000, .slurm_gpus = "auto",
                            .slurm_poll_ms = 500, .slurm_deadline_ms = 15000,
                            .gpu_mode = GSD_GPUS_AUTO, .local_gpus = -1 };
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': o->cluster = optarg; break;
        case 'p': o->policy = optarg; break;
        case 's': o->state = optarg; break;
        case 'l': o->listen = optarg; break;
        case 'b': o->backend = optarg; break;
        case 't': o->tokens = optarg; break;
        case 'V': o->gpu_mode = GSD_GPUS_VIRTUAL; break;
        case 'U': o->virtual_users = 1; break;
        case 'x': case 'y': case 'k': case 'G': case 'O': case 'D': case 'g':
            if (opt_value(o, c, optarg) != 0)
                return 2;
            break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind < argc || !o->cluster || !o->state) {
        fprintf(stderr, "gpuschedd: %s\n%s",
                optind < argc ? "unexpected argument" : "--cluster and --state are required",
                usage);
        return 2;
    }
    if (o->gpu_mode == GSD_GPUS_VIRTUAL && o->local_gpus >= 0) {
        fprintf(stderr, "gpuschedd: --local-gpus and --virtual-gpus exclude each other\n");
        return 2;
    }
    if (strcmp(o->backend, "local") != 0 && strcmp(o->backend, "slurm") != 0) {
        fprintf(stderr, "gpuschedd: --backend %s: expected local or slurm\n", o->backend);
        return 2;
    }
    return -1;
}

/* Bind HOST:PORT; returns the socket and fills url, or -1. */
static int bind_listen(const char *spec, char *url, size_t n)
{
    char host[256];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof host) {
        fprintf(stderr, "gpuschedd: --listen: expected HOST:PORT, got '%s'\n", spec);
        return -1;
    }
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = '\0';
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
    int rc = getaddrinfo(host, colon + 1, &hints, &ai);
    if (rc) {
        fprintf(stderr, "gpuschedd: --listen %s: %s\n", spec, gai_strerror(rc));
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 512) < 0) {
        fprintf(stderr, "gpuschedd: --listen %s: %s\n", spec, strerror(errno));
        freeaddrinfo(ai);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char h[NI_MAXHOST], p[NI_MAXSERV];
    getsockname(fd, (struct sockaddr *)&ss, &len);
    getnameinfo((struct sockaddr *)&ss, len, h, sizeof h, p, sizeof p,
                NI_NUMERICHOST | NI_NUMERICSERV);
    snprintf(url, n, strchr(h, ':') ? "http://[%s]:%s" : "http://%s:%s", h, p);
    return fd;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--supervise"))
        return gsd_supervise_main(argc, argv);
    struct gsd_opts o;
    int st = parse_opts(argc, argv, &o);
    if (st >= 0)
        return st;
    static char self[PATH_MAX], url[300];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "gpuschedd: /proc/self/exe: %s\n", strerror(errno));
        return 1;
    }
    self[n] = '\0';
    o.self = self;
    const char *crash = getenv("GPUSCHEDD_TEST_CRASH");
    if (crash)
        gsd_test_crash = !strcmp(crash, "before_launch") ? GSD_CRASH_BEFORE_LAUNCH
                         : !strcmp(crash, "before_go")   ? GSD_CRASH_BEFORE_GO
                                                         : GSD_CRASH_NONE;
    /* every thread inherits this mask: the loop takes them via signalfd */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* the state (journal, run files, job outputs) is private to the daemon:
     * 0700 directories, 0600 files (jobs start with umask 022, supervise.c) */
    umask(077);
    int fd = bind_listen(o.listen, url, sizeof url);
    if (fd < 0)
        return 1;
    o.server_url = url;
    struct gsd_loop *lp = gsd_loop_create(&o);
    if (!lp)
        return 1;
    struct gsd_http *h = gsd_http_start(fd, lp, o.tokens);
    if (!h) {
        gsd_loop_destroy(lp);
        return 1;
    }
    printf("listening on %s\n", url);
    fflush(stdout);
    int rc = gsd_loop_restore(lp) < 0 ? 1 : gsd_loop_run(lp);
    gsd_loop_close(lp);
    gsd_http_stop(h);
    gsd_loop_destroy(lp);
    return rc;
}

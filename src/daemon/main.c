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

#include "daemon/log.h"
#include "daemon/backend.h"
#include "daemon/daemon.h"
#include "daemon/listen.h"
#include "io/version.h"
#include "daemon/lockfile.h"
#include "daemon/gpumap.h"

static const char usage[] =
    "usage: gpuschedd --cluster C.yaml [--policy P.yaml] --state DIR\n"
    "                 [--listen HOST:PORT] [--backend local|slurm] [--tokens T.yaml]\n"
    "                 [--clock-scale X] [--sync full|normal] [--kill-wait SECONDS]\n"
    "                 [--socket PATH] [--trust-loopback] [--allow-origin ORIGIN]\n"
    "                 [--server-name HOST[:PORT]]\n"
    "                 [--init] [--min-free-mb N] [--output-dir DIR] [--run-dir DIR]\n"
    "                 [--job-file-limit SIZE]\n"
    "                 [--retain AGE] [--log-level LEVEL]\n"
    "       gpuschedd --check STATE   (the journal's health; exit 0 healthy, 4 damaged)\n"
    "  --listen        default 127.0.0.1:8642; port 0 picks a free port; the first\n"
    "                  stdout line is 'listening on http://HOST:PORT'; TCP clients\n"
    "                  need a bearer token (--tokens)\n"
    "  --socket        Unix socket where local users are known by their uid\n"
    "                  (default STATE/gpuschedd.sock; '' = none); the second stdout\n"
    "                  line is 'socket unix:PATH' (docs/security.md)\n"
    "  --trust-loopback  serve token-less loopback TCP clients as admin acting as\n"
    "                  the daemon's user: for tests and demos only\n"
    "  --allow-origin  a browser Origin allowed besides the daemon's own (repeatable)\n"
    "  --log-level     err, warning, notice, info (default: a line per job start,\n"
    "                  end, preemption and node change) or debug (every engine\n"
    "                  event; also GPUSCHEDD_TRACE=1); lines carry level=NAME, or\n"
    "                  <N> when stderr is journald's (docs/operations.md)\n"
    "  --server-name   a Host the daemon answers to besides its listen address and\n"
    "                  localhost (repeatable; a proxy's name)\n"
    "  --sync          journal durability: full (default; survives power loss) or\n"
    "                  normal (survives a daemon crash; may lose the last commits\n"
    "                  on power loss)\n"
    "  --kill-wait     seconds between SIGTERM and SIGKILL when stopping a job (10)\n"
    "  --init          start with a new journal in a state directory that has held\n"
    "                  jobs but whose journal is missing or empty (else refused)\n"
    "  --min-free-mb   submits get 507 while the journal's filesystem has less free (64)\n"
    "  --output-dir    where jobs' default stdout/stderr go (STATE/output)\n"
    "  --run-dir       the supervisors' run files (STATE/run); a tmpfs such as\n"
    "                  /run/gpusched/run makes each job's start cheaper; claimed\n"
    "                  for this state in DIR/.state (docs/daemon.md)\n"
    "  --job-file-limit  largest file a job may write (RLIMIT_FSIZE): SIZE[K|M|G],\n"
    "                  N% of the output filesystem, or 0 = none (25%)\n"
    "  --retain        purge ended jobs (rows, events, output, run files) older\n"
    "                  than AGE: N[s|m|h|d], 0 = keep forever (30d)\n"
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
        case 'I': o->init = 1; break;
        case 'L':
            if (gsd_log_setup(arg) < 0) {
                fprintf(stderr, "gpuschedd: --log-level %s: expected err, warning, notice, "
                                "info or debug\n", arg);
                return 2;
            }
            break;
        case 'W': o->output_dir = arg; break;
        case 'r': o->run_dir = arg; break;
        case 'R': return gsd_retain_opt(o, arg);
        case 'M': case 'F':
            return gsd_disk_opt(o, c == 'M' ? "min-free-mb" : "job-file-limit", arg);
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

/* --allow-origin / --server-name: up to 8 of each. */
static int door_opt(struct gsd_opts *o, int c, const char *arg)
{
    int *n = c == 'o' ? &o->n_allow_origin : &o->n_server_name;
    const char **v = c == 'o' ? o->allow_origin : o->server_name;
    if (*n == 8 || !*arg) {
        fprintf(stderr, "gpuschedd: --%s: %s\n", c == 'o' ? "allow-origin" : "server-name",
                *arg ? "at most 8" : "empty");
        return 2;
    }
    v[(*n)++] = arg;
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
        { "init", no_argument, NULL, 'I' },
        { "min-free-mb", required_argument, NULL, 'M' },
        { "output-dir", required_argument, NULL, 'W' },
        { "run-dir", required_argument, NULL, 'r' },
        { "job-file-limit", required_argument, NULL, 'F' },
        { "retain", required_argument, NULL, 'R' },
        { "slurm-partition", required_argument, NULL, 'P' },
        { "slurm-account", required_argument, NULL, 'A' },
        { "slurm-qos", required_argument, NULL, 'Q' },
        { "slurm-gpus", required_argument, NULL, 'G' },
        { "slurm-poll", required_argument, NULL, 'O' },
        { "slurm-start-deadline", required_argument, NULL, 'D' },
        { "socket", required_argument, NULL, 'S' },
        { "trust-loopback", no_argument, NULL, 'T' },
        { "allow-origin", required_argument, NULL, 'o' },
        { "server-name", required_argument, NULL, 'n' },
        { "local-gpus", required_argument, NULL, 'g' },
        { "virtual-gpus", no_argument, NULL, 'V' },
        { "virtual-users", no_argument, NULL, 'U' },
        { "log-level", required_argument, NULL, 'L' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 }
    };
    *o = (struct gsd_opts){ .listen = "127.0.0.1:8642", .backend = "local", .clock_scale = 1,
                            .sync_full = 1, .kill_wait = 10000, .slurm_gpus = "auto",
                            .slurm_poll_ms = 500, .slurm_deadline_ms = 15000,
                            .min_free = 64LL << 20, .file_limit_pct = 25,
                            .retain_ms = 30LL * 86400 * 1000,
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
        case 'S': o->socket = optarg; break;
        case 'T': o->trust_loopback = 1; break;
        case 'o': case 'n':
            if (door_opt(o, c, optarg) != 0)
                return 2;
            break;
        case 'V': o->gpu_mode = GSD_GPUS_VIRTUAL; break;
        case 'U': o->virtual_users = 1; break;
        case 'x': case 'y': case 'k': case 'G': case 'O': case 'D':
        case 'I': case 'R': case 'W': case 'r': case 'M': case 'F': case 'g': case 'L':
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

static int gsd_run(struct gsd_opts *opts);

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

/* The host and port of "http://HOST:PORT" or "http://[HOST]:PORT". */
static int url_host_port(const char *url, char *host, size_t n)
{
    const char *h = url + strlen("http://"), *colon = strrchr(h, ':');
    size_t len = colon ? (size_t)(colon - h) : 0;
    if (len >= 2 && h[0] == '[') {
        h++;
        len -= 2;
    }
    snprintf(host, n, "%.*s", (int)len, h);
    return colon ? (int)strtol(colon + 1, NULL, 10) : 0;
}

/* The Unix socket (--socket, default STATE/gpuschedd.sock); -1 = none
 * (*path = NULL) or failed (*path kept: the caller stops). */
static int open_socket(const struct gsd_opts *o, char *buf, size_t n, const char **path,
                       ino_t *ino)
{
    *path = o->socket;
    if (!*path) {
        snprintf(buf, n, "%s/gpuschedd.sock", o->state);
        *path = buf;
    }
    if (!**path) {
        *path = NULL;
        return -1;
    }
    return gsd_listen_unix(*path, ino);
}

static void say_trust(const struct gsd_opts *o)
{
    if (o->trust_loopback)
        gsd_logl(GSD_LOG_WARNING, "WARNING: --trust-loopback: every local user who can reach "
                                  "%s without a token is ADMIN and runs jobs as this daemon's "
                                  "user; for tests and demos only (docs/security.md)",
                 o->listen);
}

/* -h, --help and --version anywhere on the command line: the usage or the
 * version on stdout and 0 (1 when stdout cannot be written); -1 when the
 * daemon should go on. */
static int info_flags(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int version = !strcmp(argv[i], "--version");
        if (version || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            if (version)
                printf("gpuschedd %s\n", gs_version_string());
            else
                printf("%s  -h, --help      this text; --version: the version and commit\n",
                       usage);
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--supervise"))
        return gsd_supervise_main(argc, argv);
    int info = info_flags(argc, argv);
    if (info >= 0)
        return info;
    if (argc > 1 && !strcmp(argv[1], "--check"))
        return gsd_check_main(argc, argv);
    struct gsd_opts o;
    gsd_log_setup(NULL); /* the default level; --log-level overrides it */
    int st = parse_opts(argc, argv, &o);
    if (st >= 0)
        return st;
    char msg[4400];
    struct gsd_lock lk;
    st = gsd_lock_acquire(o.state, &lk, msg, sizeof msg);
    if (st != 0) {
        fprintf(stderr, "gpuschedd: %s\n", msg);
        return st;
    }
    o.state_used = lk.existed;
    st = gsd_run(&o);
    gsd_lock_release(&lk);
    return st;
}

/* The supervisor program: gpuschedd-supervise in this binary's directory
 * (it links only libc, so each job's start execs less), else this binary's
 * own --supervise mode, said once in the log.  `buf` holds the result. */
static const char *supervisor_path(const char *self, char *buf, size_t size)
{
    const char *slash = strrchr(self, '/');
    int dir = slash ? (int)(slash - self) : 0;
    int n = snprintf(buf, size, "%.*s/gpuschedd-supervise", dir, self);
    if (n < 0 || (size_t)n >= size)
        errno = ENAMETOOLONG;
    else if (access(buf, X_OK) == 0)
        return buf;
    gsd_logl(GSD_LOG_NOTICE, "no supervisor program at %s (%s): jobs start under "
             "%s --supervise", buf, strerror(errno), self);
    return self;
}

/* The daemon's life once the state directory is locked: 0 on a clean
 * stop, else a gsd_exit status after saying why on stderr. */
static int gsd_run(struct gsd_opts *opts)
{
    struct gsd_opts o = *opts;
    int st;
    static char self[PATH_MAX], sup[PATH_MAX], url[300];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "gpuschedd: /proc/self/exe: %s\n", strerror(errno));
        return GSD_EXIT_FATAL;
    }
    self[n] = '\0';
    o.supervisor = supervisor_path(self, sup, sizeof sup);
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
        return GSD_EXIT_FATAL;
    /* what jobs get as GPUSCHED_SERVER: the socket once it is up (a job
       is its user there), the TCP address under --trust-loopback */
    static char job_url[PATH_MAX + 8];
    snprintf(job_url, sizeof job_url, "%s", url);
    o.server_url = job_url;
    static char sockbuf[PATH_MAX], host[256];
    const char *sock = NULL;
    ino_t ino = 0;
    int ufd = -1;
    st = GSD_EXIT_FATAL;
    struct gsd_loop *lp = gsd_loop_create(&o, &st); /* makes the state directory */
    if (!lp) {
        close(fd);
        return st;
    }
    ufd = open_socket(&o, sockbuf, sizeof sockbuf, &sock, &ino);
    if (ufd >= 0 && !o.trust_loopback)
        snprintf(job_url, sizeof job_url, "unix:%s", sock);
    int port = url_host_port(url, host, sizeof host);
    struct gsd_http *h =
        ufd >= 0 || !sock ? gsd_http_start(fd, ufd, host, port, lp, &o) : NULL;
    if (!h) {
        fprintf(stderr, "gpuschedd: the HTTP server did not start on %s\n", url);
        gsd_loop_destroy(lp);
        if (ufd >= 0)
            gsd_listen_unix_remove(sock, ino);
        return GSD_EXIT_FATAL;
    }
    say_trust(&o);
    printf("listening on %s\n", url);
    if (sock)
        printf("socket unix:%s\n", sock);
    fflush(stdout);
    int rc = gsd_loop_restore(lp);
    rc = rc == -2 ? GSD_EXIT_DAMAGED : rc < 0 ? GSD_EXIT_FATAL : gsd_loop_run(lp);
    if (rc != 0)
        fprintf(stderr, "gpuschedd: exiting with status %d (the reason is said above)\n", rc);
    gsd_loop_close(lp);
    gsd_http_stop(h);
    gsd_loop_destroy(lp);
    if (sock)
        gsd_listen_unix_remove(sock, ino);
    return rc;
}

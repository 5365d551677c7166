/* http_guard.c - see http_guard.h.
 *
 * The deadline: libmicrohttpd's MHD_OPTION_CONNECTION_TIMEOUT counts
 * inactivity only, so a client that sends one header line every few
 * seconds holds its connection for ever.  Every connection is registered
 * here (MHD_OPTION_NOTIFY_CONNECTION, with its socket); a request's clock
 * starts when the connection opens or the previous request on it ended,
 * and stops when the access handler has the whole body (busy).  A reaper
 * thread shuts down (shutdown(2), never close) the socket of every
 * registered connection past its deadline: libmicrohttpd then sees the
 * end of the stream and closes the connection itself.  The entry leaves the
 * table in the CLOSED notification, which libmicrohttpd sends before it
 * closes the socket, under the same lock the reaper holds: a reaped
 * descriptor is always still this connection's.
 */
#define _GNU_SOURCE
#include "daemon/http_guard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

struct gentry {
    struct gsd_guard *g;
    struct gentry *prev, *next;
    int fd;
    atomic_llong since;       /* monotonic ms the current request's clock started */
    atomic_int busy;          /* body complete: being answered */
    int shut;                 /* shut down by the reaper */
};

struct gsd_guard {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    struct gentry *head;
    int stop;
    int deadline_ms;
};

static atomic_llong reaped_total; /* gsd_guard_reaped_total */

static long long mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

long gsd_guard_raise_nofile(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) < 0)
        return -1;
    if (r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &r) < 0)
            getrlimit(RLIMIT_NOFILE, &r);
    }
    return r.rlim_cur == RLIM_INFINITY ? 1L << 30 : (long)r.rlim_cur;
}

/* One sweep: shut down the sockets of requests past the deadline. */
static void sweep(struct gsd_guard *g)
{
    long long now = mono_ms();
    for (struct gentry *e = g->head; e; e = e->next) {
        if (e->shut || atomic_load(&e->busy) ||
            now - atomic_load(&e->since) <= (long long)g->deadline_ms)
            continue;
        shutdown(e->fd, SHUT_RDWR);
        e->shut = 1;
        atomic_fetch_add(&reaped_total, 1);
    }
}

static void *reaper(void *arg)
{
    struct gsd_guard *g = arg;
    long step = g->deadline_ms / 4 < 500 ? g->deadline_ms / 4 : 500;
    if (step < 10)
        step = 10;
    pthread_mutex_lock(&g->mu);
    while (!g->stop) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_nsec += step * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&g->cv, &g->mu, &t);
        if (!g->stop)
            sweep(g);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

struct gsd_guard *gsd_guard_start(int deadline_ms)
{
    struct gsd_guard *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    const char *env = getenv("GPUSCHEDD_HTTP_DEADLINE_MS");
    long v = env ? strtol(env, NULL, 10) : 0;
    g->deadline_ms = v > 0 && v < 86400000 ? (int)v
                     : deadline_ms > 0    ? deadline_ms
                                          : GSD_HTTP_DEADLINE_MS;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&g->mu, NULL);
    if (pthread_create(&g->th, NULL, reaper, g) != 0) {
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        free(g);
        return NULL;
    }
    return g;
}

void gsd_guard_stop(struct gsd_guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->th, NULL);
    while (g->head) { /* none once MHD_stop_daemon has returned */
        struct gentry *e = g->head;
        g->head = e->next;
        free(e);
    }
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

static void notify(void *cls, struct MHD_Connection *con, void **ctx,
                   enum MHD_ConnectionNotificationCode toe)
{
    struct gsd_guard *g = cls;
    struct gentry *e = *ctx;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(con, MHD_CONNECTION_INFO_CONNECTION_FD);
        e = ci ? calloc(1, sizeof *e) : NULL;
        *ctx = e;
        if (!e)
            return; /* unguarded: the inactivity timeout still applies */
        e->g = g;
        e->fd = ci->connect_fd;
        atomic_store(&e->since, mono_ms());
        pthread_mutex_lock(&g->mu);
        e->next = g->head;
        if (g->head)
            g->head->prev = e;
        g->head = e;
        pthread_mutex_unlock(&g->mu);
        return;
    }
    if (!e)
        return;
    pthread_mutex_lock(&g->mu);
    if (e->prev)
        e->prev->next = e->next;
    else
        g->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    pthread_mutex_unlock(&g->mu);
    free(e);
    *ctx = NULL;
}

static struct gentry *entry_of(struct MHD_Connection *con)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(con, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void gsd_guard_request_busy(struct MHD_Connection *con)
{
    struct gentry *e = entry_of(con);
    if (e)
        atomic_store(&e->busy, 1);
}

void gsd_guard_request_end(struct MHD_Connection *con)
{
    struct gentry *e = entry_of(con);
    if (!e)
        return;
    atomic_store(&e->since, mono_ms());
    atomic_store(&e->busy, 0);
}

int64_t gsd_guard_reaped_total(void)
{
    return (int64_t)atomic_load(&reaped_total);
}

/* The thread pool for a descriptor limit of `nofile`: GSD_HTTP_THREADS,
 * fewer under a small limit (each pool thread holds an epoll descriptor and
 * an eventfd, per listener; at 40 descriptors a pool of 128 could not start
 * and its listener served nobody). */
static unsigned pool_size(long nofile)
{
    if (nofile <= 0 || nofile >= 4096)
        return GSD_HTTP_THREADS;
    return nofile >= 64 ? (unsigned)(nofile / 32) : 1;
}

struct MHD_Daemon *gsd_guard_start_mhd(struct gsd_guard *g, int fd,
                                       MHD_AccessHandlerCallback handler, void *hcls,
                                       MHD_RequestCompletedCallback completed, void *ccls)
{
    const char *env = getenv("GPUSCHEDD_HTTP_PER_IP"); /* tests */
    long per_ip = env ? strtol(env, NULL, 10) : 0;
    if (per_ip <= 0 || per_ip > GSD_HTTP_PER_IP_LIMIT)
        per_ip = GSD_HTTP_PER_IP_LIMIT;
    long nofile = gsd_guard_raise_nofile();
    unsigned limit = GSD_HTTP_CONN_LIMIT;
    if (nofile > 0 && nofile - 256 < (long)limit) /* room for the journal, jobs, pidfds */
        limit = nofile > 512 ? (unsigned)(nofile - 256) : (unsigned)(nofile / 2);
    return MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                            handler, hcls, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_THREAD_POOL_SIZE, pool_size(nofile),
                            MHD_OPTION_CONNECTION_LIMIT, limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)per_ip,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)GSD_HTTP_IDLE_S,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, ccls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, g, MHD_OPTION_END);
}

#if MHD_VERSION < 0x00097002
typedef int mhd_result;
#else
typedef enum MHD_Result mhd_result;
#endif

struct framing {
    int content_length, transfer_encoding;
};

static mhd_result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
    (void)kind;
    (void)value;
    struct framing *f = cls;
    if (!strcasecmp(key, "Content-Length"))
        f->content_length++;
    else if (!strcasecmp(key, "Transfer-Encoding"))
        f->transfer_encoding++;
    return MHD_YES;
}

int gsd_guard_framing(struct MHD_Connection *con, const char **why)
{
    struct framing f = { 0, 0 };
    MHD_get_connection_values(con, MHD_HEADER_KIND, count_framing, &f);
    if (f.content_length > 1) {
        *why = "ambiguous framing: more than one Content-Length header";
        return 400;
    }
    if (f.content_length && f.transfer_encoding) {
        *why = "ambiguous framing: both Content-Length and Transfer-Encoding";
        return 400;
    }
    if (f.transfer_encoding > 1) {
        *why = "ambiguous framing: more than one Transfer-Encoding header";
        return 400;
    }
    return 0;
}

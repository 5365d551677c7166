/* http_guard.h - what keeps gpuschedd's HTTP server answering under floods
 * of idle, slow or hostile connections (docs/daemon.md, "HTTP server"):
 * the libmicrohttpd start options (epoll, a bounded thread pool, connection
 * limits, an inactivity timeout), a whole-request deadline that
 * libmicrohttpd lacks (a reaper thread shuts down the socket of a request
 * still incomplete after it), the descriptor limit, and the framing check
 * run before a request's body is read.
 */
#ifndef GS_DAEMON_HTTP_GUARD_H
#define GS_DAEMON_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdint.h>

/* Limits (documented in docs/daemon.md). */
#define GSD_HTTP_THREADS 128           /* thread pool: connections never get a thread each */
#define GSD_HTTP_CONN_LIMIT 16384      /* open connections in all */
#define GSD_HTTP_PER_IP_LIMIT 4096     /* ... from one IP address */
#define GSD_HTTP_IDLE_S 15             /* inactivity timeout */
#define GSD_HTTP_DEADLINE_MS 30000     /* a request's headers and body, from its first byte */

struct gsd_guard;

/* Raise RLIMIT_NOFILE's soft limit to the hard one (so the connection
 * limit, not the descriptor limit, is what refuses connections).  Returns
 * the soft limit now in force. */
long gsd_guard_raise_nofile(void);

/* Start the deadline reaper; `deadline_ms` <= 0 = GSD_HTTP_DEADLINE_MS
 * (GPUSCHEDD_HTTP_DEADLINE_MS overrides it, for tests).  NULL when out of
 * memory or threads.  Stop it with gsd_guard_stop after MHD_stop_daemon. */
struct gsd_guard *gsd_guard_start(int deadline_ms);

/* Stop the reaper and free the table (NULL is a no-op). */
void gsd_guard_stop(struct gsd_guard *g);

/* Start libmicrohttpd on the bound socket `fd` with the guard's options,
 * `handler`/`hcls` as the access handler and `completed` as the request
 * completion callback (which must call gsd_guard_request_end).  NULL on
 * failure (printed by libmicrohttpd). */
struct MHD_Daemon *gsd_guard_start_mhd(struct gsd_guard *g, int fd,
                                       MHD_AccessHandlerCallback handler, void *hcls,
                                       MHD_RequestCompletedCallback completed, void *ccls);

/* The request on `con` has all its body and is being answered: the
 * deadline no longer applies to it. */
void gsd_guard_request_busy(struct MHD_Connection *con);

/* The request on `con` ended (answered or not): the next one on the
 * connection gets a full deadline from now. */
void gsd_guard_request_end(struct MHD_Connection *con);

/* Connections shut down by the deadline since the process started (all
 * guards; any thread: /metrics). */
int64_t gsd_guard_reaped_total(void);

/* The request's framing, checked when its headers are in (before any body
 * byte is read): 0 if unambiguous, else 400 with *why set (two
 * Content-Length headers, or Content-Length with Transfer-Encoding). */
int gsd_guard_framing(struct MHD_Connection *con, const char **why);

#endif

/* dash_route.h - the operator dashboard in gpuschedd (issue 16):
 *
 *   GET /              the page (io/dash.h), which polls:
 *   GET /v1/dashboard  its JSON document: the cluster map, the queue in pass
 *                      order with reasons (q_offset, q_limit: one page of it),
 *                      running jobs (r_offset, r_limit), teams, S_k at k
 *                      (the largest waiting job unless k=N), the charts of the
 *                      last hours (io/dash_series.h) and the failure numbers
 *
 * Both are reads: a read token sees them; without --tokens, loopback only
 * (http.c's authorize).  The page holds no data; it sends the token it was
 * given in its URL fragment (#token=S, never sent to the server) as
 * "Authorization: Bearer S" on its polls.
 */
#ifndef GS_DAEMON_DASH_ROUTE_H
#define GS_DAEMON_DASH_ROUTE_H

#include "daemon/daemon.h"

struct gsd_loop;
struct MHD_Connection;

/* HTTP thread: the page's HTML (malloc'd; NULL on allocation failure). */
char *gsd_dash_page(void);

/* HTTP thread: the arguments of a /v1/dashboard request into page[0..4] =
 * q_offset, q_limit, r_offset, r_limit, k (0 when absent or not a number:
 * the first page of the default size; k chosen from what waits). */
void gsd_dash_args(struct MHD_Connection *con, int page[5]);

/* Engine thread: the document for command `c` (malloc'd JSON text, NULL on
 * allocation failure). */
char *gsd_dash_body(struct gsd_loop *lp, const struct gsd_cmd *c);

/* Engine thread, after every turn: take a history sample when one is due
 * (every GS_DASH_SAMPLE_S seconds of engine time), S_k at the k the page
 * shows by default, and keep it in the journal (tables dash_samples and
 * dash_waits, bounded as the ring; read back at the first call after a
 * start, so the history survives restarts). */
void gsd_dash_tick(struct gsd_loop *lp);

/* The loop's sleep `ms` (-1 = none), shortened to wake for the next sample. */
int gsd_dash_timeout(const struct gsd_loop *lp, int ms);

/* Free the history; called by gsd_loop_destroy. */
void gsd_dash_free(struct gsd_loop *lp);

#endif

/* view.h - gpuschedd's published read state.
 *
 * After every turn's commit, and before that turn's requests are answered,
 * the engine thread publishes an immutable view: every live job's object
 * (pre-rendered JSON, in list order: the non-pending jobs by journal seq,
 * then the pending ones in the order of the next pass) with an index by
 * id, and the bodies of GET /v1/nodes, /v1/cluster, /metrics and the
 * dashboard's first page.  HTTP threads answer reads from the view they
 * take a reference to (and jobs that have ended, which only the journal
 * holds, from read-only journal handles of their own); they never wait
 * for the engine thread.  Read-your-writes: a request is answered only
 * after the view holding its effect is published.
 *
 * What each publish costs the engine thread: the objects of the jobs
 * touched in the turn (gsd_view_touch, gsd_view_drop) are rendered again
 * (a pending one with the engine's diagnosis) into a job table kept
 * between publishes and shared with the views by chunks (vtab.h), and the
 * not-pending list and the queue's order are patched with them
 * (view_jobs.h); nothing walks every live job.  A node's object is
 * rendered again when its GPUs or states changed.  Reasons and estimated starts of
 * the queued jobs move with every pass: a cursor goes round the queue
 * diagnosing jobs again for at most 10 % of the time since the last
 * publish (0.5 to 10 ms a turn; with a short queue, all of it every turn),
 * and while a lap since the last change is unfinished the loop wakes every
 * 50 ms to go on (no turn, no commit).  /v1/cluster (from the kept
 * diagnoses) and the dashboard's page are rebuilt at once after a node
 * command or a policy reload, at every turn while they cost under 2 ms
 * (a small cluster: always current), else at most as often as keeps them
 * under 5 % of the engine thread's time (after a rebuild that took T, not
 * before 19 T); the node list likewise, /metrics only by that rule.
 *
 * GPUSCHEDD_READS=engine turns the view off: every read is answered on
 * the engine thread after a commit, as before the view existed (for
 * bench_daemon's before/after comparison).
 *
 * Per-job explain (GET /v1/jobs/ID/explain) and dashboard pages other than
 * the first still run on the engine thread: they need the engine's
 * diagnosis of one job (or one page) now.
 */
#ifndef GS_DAEMON_VIEW_H
#define GS_DAEMON_VIEW_H

#include "daemon/daemon.h"

struct gsd_loop;
struct gsd_blob;
struct djob;

/* Engine thread: build and publish a new view, after a turn's commit
 * (`same` = 0) or between turns to refresh more reasons (`same` = 1: the
 * jobs and the queue order are those of the last publish, so its index is
 * shared).  Out of memory leaves the previous view published and forces a
 * complete rebuild next time. */
void gsd_view_update(struct gsd_loop *lp, int same);

/* Engine thread: live job d's row changed in this turn (its object is
 * rendered again at the next publish).  Publishing costs the jobs touched
 * this way, not every live job: the table of job objects is kept from one
 * view to the next (vtab.h).  Out of memory is remembered: the next
 * publish rebuilds the table from every live job. */
void gsd_view_touch(struct gsd_loop *lp, struct djob *d);

/* Engine thread: live job d is freed (retired): it leaves the table, so
 * the next view no longer holds it. */
void gsd_view_drop(struct gsd_loop *lp, struct djob *d);

/* Whether the published view is behind the engine: some queued job's
 * reason was not refreshed since the last change, or a body held back by
 * its cost (/v1/cluster, the dashboard page, /v1/nodes, /metrics) does not show a
 * change yet.  The loop then wakes within 50 ms to publish again, without
 * a turn, so an idle daemon's reads catch up in about 20x a body's cost. */
int gsd_view_stale(const struct gsd_loop *lp);

/* Drop a reference to a published job object; NULL is a no-op. */
void gsd_blob_unref(struct gsd_blob *b);

/* Any thread: answer read command c (GET of a job, the job list, the
 * queue, nodes, cluster, metrics, the dashboard's first page) from the
 * published view.  Returns 1 when c is answered (status, body), 0 when it
 * must go to the engine thread (no view yet, or a read the view does not
 * hold). */
int gsd_view_answer(struct gsd_loop *lp, struct gsd_cmd *c);

/* The published object of live job `id` (malloc'd copy), or NULL when the
 * view does not hold it. */
char *gsd_view_job_text(struct gsd_loop *lp, const char *id);

/* Engine thread, at shutdown: release the view, the kept bodies and the
 * read-only journal handles. */
void gsd_view_fini(struct gsd_loop *lp);

#endif

/* launcher.h - a launch description (struct gsd_lreq: built by the loop,
 * loop_launch.c, handed to the local backend's ops.submit) and the local
 * backend's launcher threads that carry them out (a pool of
 * GSD_LAUNCHER_THREADS): the engine thread decides and journals; they fork
 * the supervisors (backend.h's
 * launch protocol, unchanged) and reports back through the loop's eventfd,
 * so a slow fork, a full process table or a slow disk under RUNDIR never
 * delays a pass.
 *
 * What each side may touch (docs/daemon.md, "Threads"):
 *  - a launcher thread: its queue and its done list (under the
 *    launcher's mutex), the requests it has taken (owned by it until they
 *    are on the done list), the files of their run directories and output
 *    paths, fork/exec, and a write of the loop's eventfd.  Never the
 *    engine, the journal, the live jobs (a request's `d` is carried, never
 *    dereferenced there) or any other field of the loop;
 *  - the engine thread: builds the requests (it owns the journal the
 *    command is read from), hands a turn's batch over at once, and takes
 *    the done list at the start of each turn (ops.collect).  Only the
 *    local backend (backend_local.c) calls the functions below.
 */
#ifndef GS_DAEMON_LAUNCHER_H
#define GS_DAEMON_LAUNCHER_H

#include "daemon/backend.h"
#include "io/api_codec.h"

/* Launches carried out at once (each blocks its thread from the vfork to
 * the supervisor's exec and for the run directory's file writes). */
#define GSD_LAUNCHER_THREADS 4

/* One launch: built and owned by the engine thread until handed over,
 * then by the launcher until it is on the done list, then by the engine
 * thread again (gsd_lreq_free). */
struct gsd_lreq {
    struct gsd_lreq *next;
    void *job;                /* the loop's job: never dereferenced by the launcher or
                                 the backend */
    int attempt;              /* d->ji.attempts when it was built */
    struct gsd_launch l;      /* points into the owned fields below */
    struct gs_api_submit s;   /* the decoded request (argv, env) */
    char **env, *bufs[4];
    char *rundir, *out, *err, *user;
    /* the result, set by the launcher */
    int rc, why;              /* gsd_backend_launch's return, enum gsd_launch_fail */
    struct gsd_proc proc;
    struct gs_error error;
    double ms;                /* the launch's time on the launcher thread */
};

/* Free a request and what it owns (any thread; NULL is fine). */
void gsd_lreq_free(struct gsd_lreq *r);

struct gsd_launcher;

/* Start the threads; `wake_fd` is the loop's eventfd, written (8 bytes) each
 * time a launch is done.  Test hook: GPUSCHEDD_TEST_LAUNCH_DELAY_MS=N makes
 * every launch wait N ms first (a slow fork; tests/cli/daemon_launcher.t);
 * GPUSCHEDD_TEST_LAUNCH_FAIL=N makes the first N launches fail as a fork
 * without processes would (EAGAIN: the daemon's failure).  Returns the
 * launcher, or NULL with errno set. */
struct gsd_launcher *gsd_launcher_start(int wake_fd);

/* Hand a list of requests over (ownership moves; NULL is fine). */
void gsd_launcher_submit(struct gsd_launcher *ln, struct gsd_lreq *list);

/* Detach the requests done since the last call (the caller owns them), in
 * the order they were handed over; NULL when none. */
struct gsd_lreq *gsd_launcher_take(struct gsd_launcher *ln);

/* Wait until every request handed over is done (then take them). */
void gsd_launcher_quiesce(struct gsd_launcher *ln);

/* Requests handed over and not yet taken back. */
int gsd_launcher_in_flight(struct gsd_launcher *ln);

/* Stop the threads after the launches they are carrying out (the ones
 * still queued are never launched: a restart launches them from the
 * journal)
 * and free the launcher; the requests not taken are freed, their
 * supervisors' pidfds closed.  NULL is fine. */
void gsd_launcher_stop(struct gsd_launcher *ln);

#endif

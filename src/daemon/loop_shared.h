/* loop_shared.h - the part of the daemon's loop that threads other than the
 * engine thread touch (struct gsd_shared), and the functions that may run
 * on any thread.  The engine thread's own part is loop_private.h, which
 * includes this header: a file that includes only this one (loop_shared.c,
 * view_read.c, view_history.c) cannot reach the engine's state.
 *
 * The threads (docs/architecture.md, "The daemon's threads"):
 *   - the engine thread (main): everything in struct gsd_loop, and this
 *     part under the rules below;
 *   - the HTTP threads (libmicrohttpd's pool): this part only;
 *   - the launcher threads (launcher.c): none of the loop; they are given
 *     efd (a copy of the descriptor) to report on.
 *
 * The locking rule, field by field:
 *   - "fixed": written by gsd_loop_create before any other thread starts,
 *     never again while they run; any thread reads it without a lock;
 *   - "mu", "vmu", "rmu": read and written under that mutex only, by any
 *     thread;
 *   - "atomic": written by the engine thread, read by any thread with
 *     atomic_load.
 */
#ifndef GS_DAEMON_LOOP_SHARED_H
#define GS_DAEMON_LOOP_SHARED_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/base/types.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "io/api_codec.h"
#include "io/store.h"

struct gsd_view;

#define GSD_READERS 8

struct gsd_shared {
    struct gsd_opts opts;         /* fixed: the command line */
    char *db_path, *run_dir, *out_dir; /* fixed */
    int efd;                      /* fixed: eventfd; any thread writes 1 to wake the
                                     engine thread (a new command, a launch report) */
    int reads_on_engine;          /* fixed: GPUSCHEDD_READS=engine: no view, every read
                                     answered on the engine thread (benchmarks) */
    pthread_mutex_t mu;           /* the command queue: */
    pthread_cond_t cv;            /* mu: signalled when a batch's answers are done */
    struct gsd_cmd *head, *tail;  /* mu: commands not yet taken by a turn */
    int closing;                  /* mu: answer new commands 503 */
    pthread_mutex_t vmu;          /* the published read state (view.c): */
    struct gsd_view *view;        /* vmu: the last published view (a reader takes
                                     a reference under vmu, then reads it unlocked) */
    pthread_mutex_t rmu;          /* the HTTP threads' read-only journal handles: */
    struct gs_store *readers[GSD_READERS]; /* rmu: idle handles, reused */
    int nreaders;                 /* rmu */
    atomic_int ready;             /* atomic: restored and checked, /readyz says so */
    atomic_int outage_pub;        /* atomic: the journal cannot commit (1 disk full,
                                     2 error), for /readyz */
    atomic_int nconflict_pub;     /* atomic: jobs held in conflict, for /readyz */
};

/* The shared part of loop lp (struct gsd_loop begins with it:
 * loop_private.h asserts it), for files that see only this header. */
static inline struct gsd_shared *gsd_shared_of(struct gsd_loop *lp)
{
    return (struct gsd_shared *)(void *)lp;
}
static inline const struct gsd_shared *gsd_shared_ofc(const struct gsd_loop *lp)
{
    return (const struct gsd_shared *)(const void *)lp;
}

/* --- any thread: these read only the shared part, under its rule ------- */

/* The job object's fields of journal row r (borrowed from r, lp's fixed
 * out_dir and `why`, n bytes that receive the end reason; loop_read.c). */
void gsd_api_of_row(const struct gsd_loop *lp, const struct gs_store_job *r,
                    struct gs_api_job *j, char *why, size_t n);

/* The default output file of attempt `attempt` of job `id`:
 * OUT_DIR/ID.ATTEMPT.SFX (gs_api_out_path; job_record.c). */
char *gsd_out_name(const struct gsd_loop *lp, const char *id, int attempt, const char *sfx,
                   char *buf, size_t n);

/* Why the job of row r ended, in words, into buf ("failed: exited 3");
 * NULL while it has not ended (job_record.c). */
const char *gsd_end_reason(const struct gs_store_job *r, char *buf, size_t n);

/* gsd_log and gsd_mono_ms: log.h (the ground floor). */
/* The journal's words for enum dstate / enum doutcome (loop_jobs.c). */
const char *gsd_state_name(int s);
const char *gsd_outcome_name(int o);
/* o as compact JSON text (malloc'd), o's reference dropped; NULL when o
 * is NULL or out of memory (loop_read.c). */
char *gsd_json_text(json_t *o);

#endif

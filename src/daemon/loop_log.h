/* loop_log.h - the info-level lines of the job and node lifecycle
 * (docs/operations.md "Logs"): one per job start, end, preemption or failed
 * run, and one per node or GPU state change. */
#ifndef GSD_LOOP_LOG_H
#define GSD_LOOP_LOG_H

#include "daemon/loop_private.h"

/* Log engine event `kind` (GS_EV_START, GS_EV_PREEMPT, GS_EV_FAIL; others
 * are ignored: ends are logged by gsd_log_job_end) of job d, after d's
 * record was synced with the engine. */
void gsd_log_job_event(const struct gsd_loop *lp, const struct djob *d, int kind);

/* Log the end of job d when its state just became done (`was`: its daemon
 * state before the sync); nothing otherwise. */
void gsd_log_job_end(const struct gsd_loop *lp, const struct djob *d, int was);

/* Log a node command that took effect: node `node` (or its GPU `gpu` >= 0)
 * is now in state `st` (enum gs_node_state), with `reason` (may be NULL). */
void gsd_log_node(const struct gsd_loop *lp, const char *node, int gpu, int st,
                  const char *reason);

#endif

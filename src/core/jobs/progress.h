/* progress.h - how a running job turns wall time into work.
 *
 * Work is measured in milliseconds of full-speed compute (a job's
 * `duration` in the trace is its total work).  During a run the job is in
 * one of three phases:
 *   RESTORE  - paying its restore cost after a restart (no progress),
 *   COMPUTE  - progressing at `rate` per mille of full speed (slow-downs from
 *              cross-domain placement or sharing interference lower it),
 *   CKPT     - writing a checkpoint (no progress).
 * A job with checkpoint interval I writes a checkpoint each time its total
 * work reaches a multiple of I (not after its final piece of work); the
 * checkpoint takes C of wall time and protects the work done so far when
 * it completes.  A checkpoint in progress protects nothing.
 *
 * Internally work is kept in milli-milliseconds ("work units", 1/1000 ms)
 * so that rate x time is exact in integers; every figure the API returns
 * is in milliseconds.  Pure arithmetic: no clock, no allocation.
 */
#ifndef GS_CORE_PROGRESS_H
#define GS_CORE_PROGRESS_H

#include <stdint.h>

#include "core/base/types.h"

enum gs_phase { GS_PHASE_RESTORE, GS_PHASE_COMPUTE, GS_PHASE_CKPT };

#define GS_RATE_FULL 1000

struct gs_progress {
    gs_time t;            /* time of this snapshot */
    int64_t work;         /* work units done at t (all runs) */
    int64_t saved;        /* work units protected by the last checkpoint */
    int64_t run_start;    /* work units at the start of this run */
    int phase;            /* enum gs_phase */
    gs_time phase_end;    /* RESTORE/CKPT: when the phase ends */
    int rate;             /* per mille of full speed, 1..1000 */
    gs_time interval;     /* checkpoint interval (ms of work), 0 = none */
    gs_time cost;         /* checkpoint wall time (ms) */
    gs_time ckpt_wall;    /* wall ms spent checkpointing in this run */
    gs_time restore_wall; /* wall ms spent restoring in this run */
};

/* Begin a run at `now` from `saved_ms` of protected work (0 for a first
 * start), paying `restore_ms` first when restarting. */
void gs_progress_start(struct gs_progress *p, gs_time now, gs_time saved_ms, gs_time interval,
                       gs_time cost, gs_time restore_ms, int rate);

/* Move the snapshot forward to `now` (>= p->t), completing phases and
 * checkpoints on the way. */
void gs_progress_advance(struct gs_progress *p, gs_time now);

/* Change the rate from `now` on (advances first).  rate in 1..1000. */
void gs_progress_set_rate(struct gs_progress *p, gs_time now, int rate);

/* Wall time at which the job's work reaches `total_ms`, if nothing changes
 * after the snapshot; p->t when it already has; GS_TIME_INF when that time
 * is not representable (e.g. 1e10 checkpoints of 1e6 s each). */
gs_time gs_progress_eta(const struct gs_progress *p, gs_time total_ms);

/* Work done (ms, rounded down) and work protected by checkpoints. */
gs_time gs_progress_work(const struct gs_progress *p);
gs_time gs_progress_saved(const struct gs_progress *p);

/* Work (ms) that would be lost if the run stopped now without a final
 * checkpoint: work since the last completed checkpoint. */
gs_time gs_progress_at_risk(const struct gs_progress *p);

/* How long from the snapshot until all work done is protected if the job
 * is told to checkpoint now (preemption with grace): 0 when nothing is at
 * risk (or restoring), the rest of a checkpoint already being written, else
 * the checkpoint cost.  GS_TIME_NONE when the job cannot checkpoint
 * (interval 0). */
gs_time gs_progress_save_time(const struct gs_progress *p);

/* Tell the job at `now` (advances first) to checkpoint at once: unless a
 * checkpoint is already being written or nothing is at risk, a checkpoint
 * phase of the job's cost starts now.  Returns the time its work is all
 * protected (now + gs_progress_save_time), or GS_TIME_NONE (and changes
 * nothing else) when the job cannot checkpoint. */
gs_time gs_progress_save_now(struct gs_progress *p, gs_time now);

/* The job reported at `now` (advances first) that it has written a
 * checkpoint: every piece of work done so far is protected (live mode; the
 * real checkpoint, not the interval arithmetic).  No-op while restoring. */
void gs_progress_mark_saved(struct gs_progress *p, gs_time now);

#endif

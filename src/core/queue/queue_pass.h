/* queue_pass.h - the state of one queue pass (queue.c) and the followers
 * of a pass (queue_follow.c), shared by the two files.  Core only.
 *
 * The memo helpers below are the pass's refusal rule for plain jobs: one
 * definition, read by the try path (queue.c) and by the walk over
 * followers (queue_follow.c), so that a job the walk leaves untried is
 * exactly one the try path would refuse, with the same coarse reason.
 */
#ifndef GS_CORE_QUEUE_PASS_H
#define GS_CORE_QUEUE_PASS_H

#include "core/queue/queue_private.h"
#include "core/queue/qclass.h"

#include <stdint.h>

#define MEMO_MAX_GPUS 64
#define MEMO_GROUPS 4

/* State of one pass.  The memo records, per GPU count, the shortest
 * estimate that already failed to fit; since a pass only ever takes GPUs
 * away or adds reservations, a later plain request at least as large and at
 * least as long fails too, without a placement search. */
struct pass {
    struct gs_engine *eng;
    gs_time now;
    struct gs_alloc *a;         /* placement storage, the queue state's */
    uint64_t *view, *held;      /* per node, the queue state's */
    int max_res;
    int blocked;                /* some job could not start: others are behind it */
    int head;                   /* the first job that could not start */
    int plan_failed;            /* the blocked job could not be planned */
    uint64_t blocked_in;        /* queue groups (partitions) with a blocked job */
    uint64_t failed_in;         /* ... and with a job that could not be planned */
    /* per partition (index + 1, 0 = none; jobs of later partitions are
     * not memoised): partitions may see different nodes */
    gs_time fail_live[MEMO_GROUPS][MEMO_MAX_GPUS + 1]; /* does not fit idle GPUs */
    gs_time fail_view[MEMO_GROUPS][MEMO_MAX_GPUS + 1]; /* min estimate failing the view */
    int view_k;                 /* reservations folded into view, -1 = none */
    int changed;                /* a job started, or preemption stopped or drained one */
    int kept;                   /* the job just tried blocked its group or reserved */
    size_t n_start, visits;     /* pending at its start; jobs it tried (all segments) */
    int peeked;                 /* the job it stopped at (next to try), -1 = none */
    gs_time res_min;            /* earliest reservation start made */
    gs_time res_start[1024];    /* sorted reservation starts (first 1024) */
    int nres;
    /* the stop point (qclass.h): checked when the memo or the head moved */
    int cls_on;                 /* this pass may stop there */
    int x_set;                  /* it reached the stop point ... */
    size_t x_vis;               /* ... with this many jobs tried (q->nvisited) */
    uint64_t memo_ver, checked_ver;
    struct gs_qclass_sig sig;   /* the pass state at the stop point */
    int fol;                    /* this pass may leave jobs following their class */
    uint64_t fol_ver;           /* memo_ver at the last check for the end */
    uint64_t mask_ver, mask;    /* memo_ver of `mask`: classes whose jobs all fail
                                   now with one code (bit g - 1), 0 = none */
    uint64_t rec;               /* ... of them, those followed with `reservation` */
    uint64_t code;              /* classes kept on `resources` whose jobs are all
                                   refused as long now: coded one by one, unread */
    /* per plain class: the kind of code (GS_QFOL_RES / _RSV, 0 = none) its
     * untried jobs hold in this pass (queue_follow.c), and the kind each
     * class would get now (at mask_ver) */
    int8_t fkind[GS_QCLASS_MAX_GPUS + 1], knew[GS_QCLASS_MAX_GPUS + 1];
    int nomem;                  /* the walk over followers ran out of memory */
};

static inline int gs_qpass_plain(const struct gs_engine *eng, const struct job *j)
{
    return gs_qclass_plain(eng, j, MEMO_GROUPS) && !gs_eng_recovering(eng, j);
}

/* Whether the memo already proves `j` (estimate `dur`) cannot start. */
static inline int gs_qpass_memo_doomed(const struct pass *ps, const struct job *j, gs_time dur, int *reason)
{
    if (!gs_qpass_plain(ps->eng, j))
        return 0;
    for (int g = 1; g <= j->gpus; g++) {
        if (ps->fail_live[j->part][g] == 0) {
            *reason = GS_WAIT_RESOURCES;
            return 1;
        }
        if (ps->fail_view[j->part][g] != GS_TIME_INF && ps->fail_view[j->part][g] <= dur) {
            *reason = GS_WAIT_RESERVATION;
            return 1;
        }
    }
    return 0;
}

/* memo_doomed before the estimate is read (an estimator call per job is
 * most of a refusal's cost with history estimates): 1 when a count up to
 * the job's does not fit the idle GPUs before any `reservation` entry (it
 * is refused with `resources` whatever its estimate: *reason set), 0 when
 * the memo cannot refuse it at any estimate, -1 when the estimate decides. */
static inline int gs_qpass_memo_pre(const struct pass *ps, const struct job *j, int *reason)
{
    if (!gs_qpass_plain(ps->eng, j))
        return 0;
    for (int g = 1; g <= j->gpus; g++) {
        if (ps->fail_live[j->part][g] == 0) {
            *reason = GS_WAIT_RESOURCES;
            return 1;
        }
        if (ps->fail_view[j->part][g] != GS_TIME_INF)
            return -1;
    }
    return 0;
}

static inline gs_time gs_qpass_dur(const struct gs_engine *eng, int job)
{
    gs_time e = gs_eng_estimate(eng, job);
    return e == GS_TIME_NONE ? GS_TIME_INF : e;
}

/* Whether pass `q` may leave followers (queue.c's gs_queue_pass). */
int gs_qfol_mode(const struct gs_engine *eng, const struct gs_qstate *q);

/* The blocked head holds every reservation the pass may make and its plan
 * did not fail: a job refused from here on has no side effect. */
int gs_qfol_state(const struct pass *ps);

/* What the followed kind of a class of g GPUs reads of the memo (counts 1..g
 * of fail_live[0] / fail_view[0]), for every g in one scan: whether some
 * count up to g does not fit the idle GPUs (misfit[g]), and the shortest
 * `reservation` entry at a count before the first that does not (d[g],
 * GS_TIME_INF if none).  Index 0: no misfit, GS_TIME_INF. */
struct gs_qfol_pre {
    int8_t misfit[GS_QCLASS_MAX_GPUS + 1];
    gs_time d[GS_QCLASS_MAX_GPUS + 1];
};

/* Fill `p` from the memo of `ps` as it is now (read again after the memo
 * moves; queue_follow.c).  Reads only. */
void gs_qfol_prefix(const struct pass *ps, struct gs_qfol_pre *p);

/* Whether the pass leaves `job` untried (1), 0 if not, GS_ENOMEM. */
int gs_qfol_skip(struct pass *ps, struct gs_qstate *q, int job);

/* Whether every job left follows its class: the pass may end (1); 0 if
 * not, GS_ENOMEM. */
int gs_qfol_end(struct pass *ps, struct gs_qstate *q);

/* The next job in pass order, walking over (unread) those whose class is
 * followed now; -1 at the end, GS_ENOMEM. */
int gs_qfol_next(struct pass *ps, struct qcursor *cur);

/* After a pass that left followers: the coarse reason of every pending
 * follower matches its class's kind in this pass (q->fkind). */
void gs_qfol_finish(const struct pass *ps, struct gs_qstate *q);

#endif

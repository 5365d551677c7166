/* queue_private.h - state of the queue pass kept across passes: the pass
 * order (queue_order.c), the jobs the last pass tried and those that joined
 * the queue (read by diagnose.c's wait accounting), the look-ahead and
 * pass-interval bookkeeping (queue.c).  Core only.
 */
#ifndef GS_CORE_QUEUE_PRIVATE_H
#define GS_CORE_QUEUE_PRIVATE_H

#include "core/base/alloc.h"
#include "core/jobs/jobs.h"
#include "core/preempt/preempt.h"
#include "core/queue/queue.h"

/* Effective priorities are integers: milli-points x ms-per-hour, so that
 *   effective(t) x GS_PRIO_SCALE = priority x GS_PRIO_SCALE
 *                                  + aging_milli x max(0, t - submit - max_wait)
 * exactly (aging_milli = aging_rate x 1000, rounded), with no division. */
#define GS_PRIO_SCALE ((int64_t)1000 * 3600 * 1000)

struct order_key {
    int64_t prio;               /* list key or effective priority, x GS_PRIO_SCALE */
    gs_time submit;
    int job;                    /* slot */
    uint32_t seq;               /* live while it equals the job's order_seq */
    int handle;                 /* the job's handle: ties go to the earlier one */
    int8_t cls;                 /* the job's class when keyed (gs_qclass_of) */
};

/* A kept sorted list: live entries in [head, n), with dead ones among
 * them (jobs no longer pending, or moved to the other list).  c[i] is
 * k[i].cls, kept beside the keys so that the walk over followed classes
 * (gs_qorder_skip) reads one byte per entry, not a key of 32
 * (gs_queue_order_check). */
struct qlist {
    struct order_key *k;
    int8_t *c;
    size_t head, n, cap, ccap;
};

/* Kinds of the one code every untried job of a followed class holds in a
 * pass (queue_follow.c). */
#define GS_QFOL_RES 1 /* resources (refused whatever the estimate) */
#define GS_QFOL_RSV 2 /* reservation (every estimate in the class is long) */

/* A job a pass walked over untried (a follower of its class this pass):
 * its entry in the order (live while the job's order_seq is `seq` in list
 * `list`) and its class. */
struct qskip {
    int job;
    uint32_t seq;
    int next;                   /* the record before it of the same class, -1 = none */
    int8_t list, cls;
};

struct aging_ent {
    gs_time submit;
    int job;
};

/* The queue modules' per-job data, one entry per job slot (the per-slot
 * table beside the job table, not in struct job: queue_slots.c grows it
 * with the job table through hooks.grow, zeroes a slot's entry when a new
 * job takes it, GS_HOOK_ADDED, and frees it with the state). */
struct gs_qjob {
    uint32_t order_seq;         /* its live order entry's number (queue_order.c) */
    uint32_t tried_cycle;       /* pass cycle that tried it (queue.c continuation);
                                   0 again when it joins the queue array */
    uint32_t keep_cycle;        /* ... in which it blocked or reserved: retried */
    int8_t in_order;            /* which kept order list holds it (queue_order.c) */
    int8_t reason;              /* enum gs_wait_reason while pending: set by the
                                   pass (queue.c, qclass.c, queue_follow.c) and the
                                   diagnosis's followers; NONE from its start,
                                   RESOURCES once requeued (queue_slots.c) */
};

struct gs_qstate {
    struct gs_qjob *jobs;       /* per slot (see above) */
    size_t jobs_cap;
    struct qlist young, aged;   /* see queue_order.c */
    struct aging_ent *heap;     /* min-heap by submit: young-list jobs (some stale) */
    size_t nheap, heap_cap;
    struct order_key *fresh, *moved; /* scratch: new young / new aged entries */
    size_t nfresh, fresh_cap, nmoved, moved_cap;
    int *visited;               /* the jobs the last pass tried, in pass order */
    size_t nvisited, visited_cap;
    int *joined;                /* jobs new to the queue (or requeued) at the last pass */
    size_t njoined, joined_cap;
    uint32_t seq;               /* last entry sequence number given */
    size_t scan;                /* pending[] entries below this were seen */
    uint64_t epoch;             /* eng->pending_epoch when `scan` was set */
    int64_t aging_milli;        /* aging_rate x 1000, rounded; 0 = no aging */
    uint64_t skipped;           /* pending jobs passes did not try (max_job_test) */
    uint64_t stopped, tried;    /* passes ended at the stop point; jobs tried */
    uint64_t reached;           /* passes that reached their stop point */
    struct gs_qclass *cls;      /* classes of the pending jobs (qclass.h) */
    /* followers (queue.c, diagnose_follow.c): the last pass left jobs
     * untried that follow their class's wait code */
    int fpass;                  /* it did */
    int jumped;                 /* ... and ended where every job left follows */
    int fol_ready;              /* the last pass coded every pending job */
    int frep[65];               /* per plain class (GPU count): a pending job, -1 */
    uint64_t fol_walked, fol_ends; /* jobs walked over untried; passes ended there */
    uint64_t fol_rsv;           /* ... of them, classes followed with `reservation` */
    uint64_t fol_settled;       /* jobs walked over whose class then changed kind */
    uint64_t fol_index;         /* classes with jobs the index found all long */
    uint64_t fol_coded;         /* jobs a skip walked over that were coded one by one */
    int8_t fkind[65];           /* per class: the kind of the coarse reason its
                                   followers hold (queue_pass.h; 0 = resources) */
    struct qskip *fskip;        /* the jobs the pass walked over, in order */
    size_t nskip, fskip_cap;
    int fhead[65];              /* per class: its last record, -1 = none */
    int *fcode;                 /* live jobs a skip walked over that the pass
                                   codes one by one (gs_queue_order_skip) */
    size_t nfcode, fcode_cap;
    struct gs_qest *est;        /* classes by estimate (queue_estidx.h) */
    int cls_off;                /* gs_queue_set_classes(eng, 0): the exhaustive pass */
    uint64_t passes;            /* passes run */
    uint64_t deferred;          /* passes held back by min_pass_interval */
    gs_time last_pass;          /* time of the last pass, GS_TIME_NONE = none yet */
    int waiting;                /* a pass was held back and is due at last + interval */
    int cont;                   /* the last pass stopped at max_job_test with jobs
                                   untried: a continuation is due (queue.c) */
    uint32_t cycle;             /* passes since the last fresh one share it */
    struct gs_qhold *hold;      /* a pass held at the bound (queue.c), or NULL */
    int held;                   /* hold is live: the next pass may resume it */
    /* what gs_queue_aging_change reads of the last pass (queue.c) */
    int quiet;                  /* it ended its cycle, which started, stopped,
                                   requeued nothing */
    int cycle_busy;             /* a pass of this cycle started or stopped a job */
    gs_time res_min;            /* earliest reservation start it made, GS_TIME_INF = none */
    size_t quiet_npending;      /* eng->npending, nhandles, releases, decisions after it */
    int quiet_handles;
    uint64_t quiet_releases, quiet_decisions;
    /* storage a pass lends to the calls it makes (one part / mask per node);
     * results come back in the call's out-parameters, never read later */
    struct gs_alloc alloc;      /* placements and reservations */
    uint64_t *view;             /* the backfill view (free during [now, now + estimate)) */
    uint64_t *blocked;          /* shared jobs: GPUs reservations hold */
};

/* Cursor over the pass order (gs_queue_order_begin / _next). */
struct qcursor {
    size_t y, a, f, fend;       /* positions in young, aged, pending[] (fifo) */
    struct order_key ka;        /* aged[a] keyed at the pass time, job -1 = none */
    size_t dead;                /* entries walked over that left the queue (the
                                   pass adds the jobs it started) */
    int fast;                   /* gs_queue_order_skip walked over entries ... */
    size_t fy, fa;              /* ... from these positions on */
    gs_time now;
    int64_t shift;              /* aging_milli x (now - max_wait), saturated: an aged
                                   key at now is gs_sat_add(list key, shift) */
};

/* A queue order: the sequence in which a pass visits the pending jobs
 * (queue.c decides who starts; the order only says who is next).  One
 * table per order, in its own file: fifo (queue_fifo.c), priority with
 * aging (queue_order.c).  gs_queue_order_of maps queue.policy to its order
 * (priority_with_backfill is the priority order with EASY backfill by
 * default); adding an order is a new file, its enum value and name in
 * policy/, and one row of that table.  The gs_queue_order_* calls below
 * dispatch through it; the hooks have their contracts. */
struct gs_queue_order_ops {
    const char *name;
    /* Bring the order up to date for a pass at `now` and fill the rest of
     * `cur` (now, dead and the queue array range are set); must record the
     * jobs that joined (gs_queue_scan_joined).  0 or GS_ENOMEM. */
    int (*begin)(struct gs_engine *eng, gs_time now, struct qcursor *cur);
    /* The next pending job, or -1. */
    int (*next)(struct gs_engine *eng, struct qcursor *cur);
    /* After a pass: clean up what it walked over (NULL = nothing). */
    void (*end)(struct gs_engine *eng, const struct qcursor *cur);
    /* The pass order at `now` without changing any kept state (as
     * gs_queue_order_list). */
    int (*list)(const struct gs_engine *eng, gs_time now, int *out, size_t cap);
    /* The key of pending `j` at `now`, x GS_PRIO_SCALE (as gs_queue_eff_prio). */
    int64_t (*eff_prio)(const struct gs_engine *eng, const struct job *j, gs_time now);
    /* Whether the job the last pass blocked at is still first among those
     * it could not start: nothing arrived that sorts ahead of it and time
     * alone does not reorder.  Lets a pass with no GPUs released since be
     * skipped (queue.c, nothing_can_change). */
    int (*head_kept)(const struct gs_engine *eng);
    /* Whether pending `a` sorts ahead of pending `b` in a pass at `now` (as
     * gs_queue_ahead): the diagnosis counts the jobs ahead of one. */
    int (*ahead)(const struct gs_engine *eng, const struct job *a, const struct job *b,
                 gs_time now);
    /* Walk over the entries next in order whose class (order_key.cls,
     * 1..64) is in `mask` (bit g - 1), without reading their jobs; stops
     * at the first other one, walking over those of other classes whose
     * jobs left the queue.  Each entry walked over whose class is in
     * `rec` is appended to q->fskip (q->nskip); the job of each live one
     * whose class is in `code` to q->fcode (q->nfcode), in order.  0 or
     * GS_ENOMEM.  NULL = not supported (the pass tries each job in turn). */
    int (*skip)(struct gs_engine *eng, struct qcursor *cur, uint64_t mask, uint64_t rec,
                uint64_t code);
};

/* List `job`, walked over by a skip, for the pass to code (q->fcode).
 * 0 or GS_ENOMEM. */
static inline int gs_qcode_add(struct gs_qstate *q, int job)
{
    if (q->nfcode == q->fcode_cap) {
        size_t cap = q->fcode_cap ? 2 * q->fcode_cap : 1024;
        int *f = gs_realloc(q->fcode, cap * sizeof *f);
        if (!f)
            return GS_ENOMEM;
        q->fcode = f;
        q->fcode_cap = cap;
    }
    q->fcode[q->nfcode++] = job;
    return 0;
}

/* Record that the pass walked over `job` (entry seq / list) of class
 * `cls` untried.  0 or GS_ENOMEM. */
static inline int gs_qskip_add(struct gs_qstate *q, int job, uint32_t seq, int list, int cls)
{
    if (q->nskip == q->fskip_cap) {
        size_t cap = q->fskip_cap ? 2 * q->fskip_cap : 1024;
        struct qskip *f = gs_realloc(q->fskip, cap * sizeof *f);
        if (!f)
            return GS_ENOMEM;
        q->fskip = f;
        q->fskip_cap = cap;
    }
    q->fskip[q->nskip] = (struct qskip){ job, seq, q->fhead[cls], (int8_t)list, (int8_t)cls };
    q->fhead[cls] = (int)q->nskip++;
    return 0;
}

/* The queue's per-job entry of slot `job` (the state exists once a job
 * does: its table grows with the job table). */
static inline struct gs_qjob *gs_queue_job(const struct gs_engine *eng, int job)
{
    return &eng->q->jobs[job];
}

enum { LIST_NONE, LIST_YOUNG, LIST_AGED }; /* struct gs_qjob.in_order */

/* Whether entry `k` of `list` (LIST_YOUNG / LIST_AGED) is live: its job is
 * pending, in that list, and `k` is its current entry (queue_order.c). */
static inline int gs_qorder_live(const struct gs_engine *eng, const struct order_key *k, int list)
{
    const struct gs_qjob *qj = gs_queue_job(eng, k->job);
    return eng->jobs[k->job].state == GS_JOB_PENDING && qj->in_order == list &&
           qj->order_seq == k->seq;
}

/* The priority order's comparison of two order_key (highest key first,
 * then submit time, then handle), as qsort wants it (queue_order.c). */
int gs_qorder_cmp(const void *a, const void *b);

/* The priority order's skip hook (gs_queue_order_ops.skip;
 * queue_order_skip.c). */
int gs_qorder_skip(struct gs_engine *eng, struct qcursor *cur, uint64_t mask, uint64_t rec,
                   uint64_t code);

/* The per-slot table's subscriptions (hooks.grow, GS_HOOK_ADDED, _QUEUED,
 * _STARTED, _STOPPED).  (queue_slots.c) */
void gs_queue_slot_hooks(struct gs_eng_hooks *h);

/* Check the per-slot table: it covers the slots in use, and a job that
 * holds GPUs has no wait reason.  0 or GS_ESTATE naming the slot.
 * (queue_slots.c) */
int gs_queue_slots_check(const struct gs_engine *eng, struct gs_error *err);

/* The order of `queue_policy` (enum gs_queue_policy); fifo for an unknown
 * value (gs_engine_create only accepts known ones). */
const struct gs_queue_order_ops *gs_queue_order_of(int queue_policy);

extern const struct gs_queue_order_ops gs_queue_fifo_ops;     /* queue_fifo.c */
extern const struct gs_queue_order_ops gs_queue_priority_ops; /* queue_order.c */

/* Whether passes may end at their stop point (qclass.h); on by default.
 * Off, every pass walks the whole order (the exhaustive pass), for the
 * tests that compare the two.  0 or GS_ENOMEM. */
int gs_queue_set_classes(struct gs_engine *eng, int on);

/* Record the jobs new to the queue (or requeued) since the last pass in
 * q->joined, for the wait accounting; with `lists`, also key them into the
 * priority order's lists.  0 or GS_ENOMEM.  (queue_order.c) */
int gs_queue_scan_joined(struct gs_engine *eng, gs_time now, int lists);

/* priority x GS_PRIO_SCALE of `j`, saturating: the key of a job that does
 * not age. */
int64_t gs_queue_base_prio(const struct job *j);

/* The queue state of `eng`, created on first use; NULL on allocation
 * failure.  Freed by gs_queue_state_free (queue.h). */
struct gs_qstate *gs_queue_state(struct gs_engine *eng);

/* Bring the kept order up to date for a pass at `now` and point `cur` at
 * its first job: O(jobs new or moved x log) plus amortised clean-up, never
 * a walk of the whole queue.  Returns 0 or GS_ENOMEM. */
int gs_queue_order_begin(struct gs_engine *eng, gs_time now, struct qcursor *cur);

/* The next pending job in pass order, or -1 when there is none. */
int gs_queue_order_next(struct gs_engine *eng, struct qcursor *cur);

/* Walk `cur` over the jobs next in order whose class is in `mask` (the
 * order's skip hook; nothing when it has none).  Their jobs are not read:
 * live or not, the pass leaves them untried (recorded in q->fskip when
 * their class is in `rec`), but for those of a class in `code`, read only
 * for whether they are pending (listed in q->fcode: the pass codes them
 * one by one).  Only with hot spares off (a job's class is then fixed
 * while it is listed).  0 or GS_ENOMEM. */
int gs_queue_order_skip(struct gs_engine *eng, struct qcursor *cur, uint64_t mask, uint64_t rec,
                        uint64_t code);

/* After a pass that stopped at `cur`: drop the dead entries it walked over
 * (their cost was paid by the pass); nothing when cur->dead is 0. */
void gs_queue_order_end(struct gs_engine *eng, const struct qcursor *cur);

/* Whether the kept lists' class bytes are their keys' (struct qlist): 0,
 * or -1 at the first entry where they differ.  Reads only (tests). */
int gs_queue_order_check(const struct gs_engine *eng);

/* `job` (a preemption victim requeued during a pass) is no longer listed:
 * its old entries stay dead; the next pass adds it anew. */
void gs_queue_unlist(struct gs_engine *eng, int job);

/* Earliest time after `now` at which the priority order's first
 * pending jobs can be other than at
 * `now`: a young job's aging begins, or an aging job passes the young job
 * just ahead of it.  Read-only; valid right after a pass at `now` (its
 * lists are up to date); GS_TIME_INF when time alone never reorders them.
 * (queue_order.c) */
gs_time gs_queue_order_change(const struct gs_engine *eng, gs_time now);

/* The same by a walk of both lists (the reference; gs_queue_order_change
 * falls back to it on ties between an aged and a young key). */
gs_time gs_queue_order_change_linear(const struct gs_engine *eng, gs_time now);

/* Effective priority of pending `j` at `now`, x GS_PRIO_SCALE: the key the
 * pass orders it by (saturates instead of overflowing). */
int64_t gs_queue_eff_prio(const struct gs_engine *eng, const struct job *j, gs_time now);

/* Whether pending `a` sorts ahead of pending `b` in a pass at `now`, by the
 * order's own rule (fifo: submission order; priority: effective priority,
 * then submit time, then submission order).  Reads only. */
int gs_queue_ahead(const struct gs_engine *eng, const struct job *a, const struct job *b,
                   gs_time now);

/* The pending jobs in the order a pass at `now` visits them, computed from
 * the queue array without touching the kept lists: writes up to `cap`
 * handles to `out` and returns the count, or GS_ENOMEM. */
int gs_queue_order_list(const struct gs_engine *eng, gs_time now, int *out, size_t cap);

#endif

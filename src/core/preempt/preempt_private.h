/* preempt_private.h - state shared by the preemption modules (issue 5):
 * partition.c (partitions: node sets, GPU quotas, which partition a job
 * belongs to), preempt.c (who may preempt whom, victim selection) and
 * drain.c (stopping victims, requeueing them, grace periods and the GPUs
 * held for a waiting job while its victims checkpoint).
 *
 * Nothing outside src/core/ (other than white-box tests) includes this.
 */
#ifndef GS_CORE_PREEMPT_PRIVATE_H
#define GS_CORE_PREEMPT_PRIVATE_H

#include "core/jobs/jobs.h"
#include "core/preempt/preempt.h"

/* A partition resolved against the cluster. */
struct part_rt {
    const unsigned char *allowed; /* per node 1 = usable; NULL = every node */
    unsigned char *own;           /* node-bound partitions: owned node set */
    int bound;                    /* bound to nodes (else a quota in the pool) */
    int64_t limit;                /* quota in milli-GPU, -1 = none */
    int64_t used;                 /* milli-GPU held by its running jobs */
    int classes;                  /* bit per enum gs_job_class, 0 = all */
    int granularity;              /* enum gs_sharing, -1 = as the job asks */
    int mode;                     /* enum gs_preempt_mode (INHERIT allowed) */
    int borrow;
};

/* A victim writing its checkpoint during the grace period. */
struct drain {
    int victim, waiter;           /* slots; victim -1 once it was retired */
    gs_time end;                  /* its checkpoint completes: it stops then */
    gs_time run_start;            /* the run it belongs to (stale if different) */
};

/* GPUs held for a waiting job until its draining victims have stopped. */
struct hold {
    int waiter;
    int node;
    uint64_t want;                /* the GPUs the waiter will start on */
    uint64_t held;                /* of those, taken from the cluster so far */
    int drains;                   /* victims still checkpointing */
    gs_time end;                  /* when the last of them is expected to stop */
};

/* A running job that may be preempted for the waiting job, and what it
 * would cost. */
struct cand {
    int job;
    int64_t cost;                 /* milli-GPU x ms of work lost, incl. restore */
    gs_time save_at;              /* drains until then (GS_TIME_NONE = stop now) */
};

/* One part of a candidate's allocation (candidates grouped by node). */
struct entry {
    int cand;
    int node;
    uint64_t mask;
};

/* A unit a subset search picks from: one whole-GPU victim, or every user
 * of one shared GPU (only freeing them all frees the GPU). */
struct item {
    uint64_t mask;                /* GPUs of the node it frees */
    int64_t cost;
    int gpus;                     /* GPUs its victims hold in all */
    int first, n;                 /* its entries in ent_sorted[first..first+n) */
};

struct gs_preempt {
    struct part_rt *parts;
    int nparts;
    unsigned char *pool;          /* nodes bound to no partition (NULL = all) */
    int active;                   /* some job could ever be preempted */
    struct drain *drains;
    size_t ndrains, drains_cap;
    struct hold *holds;
    size_t nholds, holds_cap;
    gs_time young_wake;           /* a candidate passes min_runtime then */
    /* selection scratch, grown on demand and kept between calls */
    struct cand *cand;
    size_t cand_cap;
    struct entry *ent, *ent_sorted;
    size_t ent_cap;
    int *node_first;              /* node -> first entry in ent_sorted (nodes + 1) */
    struct item *items;
    size_t items_cap;
    /* storage lent to the victim plan of one call (struct vplan, preempt.c)
     * and to the start of a waiter whose hold completed (drain.c) */
    uint64_t *view_buf;           /* one mask per node */
    int *vic_buf;                 /* victims */
    size_t vic_cap;
    struct gs_alloc alloc_buf;    /* placement: one part per node */
    struct gs_alloc_part *hold_part; /* one part, for cluster calls on holds */
};

/* --- preempt.c (white-box: benchmarks, tests) ------------------------- */

/* The victims gs_eng_try_preempt would choose for pending `job` at `now`,
 * without stopping anything: returns their number with *victims set to
 * borrowed job handles (the preemption state's storage, valid until the
 * next engine call), 0 when no preemption would let the job start,
 * GS_ENOMEM. */
int gs_eng_preempt_plan(struct gs_engine *eng, int job, gs_time now, const int **victims);

/* What preempting running `job` at `now` costs without a grace period:
 * milli-GPU x ms of work lost plus restore. */
int64_t gs_eng_victim_cost(const struct gs_engine *eng, int job, gs_time now);

/* --- partition.c ---------------------------------------------------- */

/* Resolve the policy's partitions against the engine's cluster into
 * eng->pre.  Errors (GS_EINVAL, message naming the partition): unknown
 * node, a node in two partitions, nodes together with gpus/share, no pool
 * nodes left for a quota partition.  GS_ENOMEM. */
int gs_eng_part_init(struct gs_engine *eng, struct gs_error *err);

/* Free what gs_eng_part_init allocated. */
void gs_eng_part_fini(struct gs_engine *eng);

/* Effective preemption mode of a running job: its partition's, else its
 * class's, else the policy's. */
int gs_eng_job_mode(const struct gs_engine *eng, int job);

/* Whether the job's partition is over its quota (its jobs hold borrowed
 * GPUs), and whether starting `job` keeps its own partition within quota
 * (it reclaims, not borrows).  Both 0 without quota partitions. */
int gs_eng_part_over(const struct gs_engine *eng, int job);
int gs_eng_part_within(const struct gs_engine *eng, int job);

/* --- drain.c -------------------------------------------------------- */

/* Make room to requeue `n` jobs without allocating (compacts the queue so
 * no stale entry of a running job remains).  Returns 0 or GS_ENOMEM. */
int gs_eng_requeue_reserve(struct gs_engine *eng, size_t n);

/* Stop running job `job` at `now` as preempted: the work since its last
 * completed checkpoint is lost, it is pending again with its original
 * submit time, and GS_EV_PREEMPT is emitted.  Room reserved before. */
void gs_eng_requeue(struct gs_engine *eng, int job, gs_time now);

/* Grow the drain and hold tables for one more hold and `n` drains.
 * Returns 0 or GS_ENOMEM. */
int gs_eng_drain_reserve(struct gs_engine *eng, size_t n);

/* Start draining `victim` for `waiter`: it checkpoints now and stops when
 * the checkpoint completes (at `end`); emits GS_EV_DRAIN. */
void gs_eng_drain_start(struct gs_engine *eng, int victim, int waiter, gs_time now);

/* Hold `want` GPUs of `node` for `waiter` (those idle now are taken from
 * the cluster at once, the rest as its victims stop). */
void gs_eng_hold_start(struct gs_engine *eng, int waiter, int node, uint64_t want);

#endif

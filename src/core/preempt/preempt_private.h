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
#include "core/preempt/drain.h"
#include "core/preempt/partition.h"
#include "core/base/alloc.h"

#include <string.h>

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
    /* per-slot tables, each its module's (grown with the job table through
     * hooks.grow, an entry reset by GS_HOOK_ADDED, freed with the state) */
    int8_t *draining;             /* drain.c: told to checkpoint and stop */
    size_t draining_cap;
    int *pre_by;                  /* preempt.c: handle + 1 of the job that preempted
                                     it last, 0 = none (blocked_pair) */
    size_t pre_by_cap;
};

/* --- preempt.c (white-box: benchmarks, tests) ------------------------- */

/* The victims gs_eng_preempt_try would choose for pending `job` at `now`,
 * without stopping anything: returns their number with *victims set to
 * borrowed job handles (the preemption state's storage, valid until the
 * next engine call), 0 when no preemption would let the job start,
 * GS_ENOMEM. */
int gs_eng_preempt_plan(struct gs_engine *eng, int job, gs_time now, const int **victims);

/* preempt.c's per-slot table (pre_by): its grow function and its reset on
 * GS_HOOK_ADDED (gs_eng_preempt_hooks subscribes it last). */
void gs_eng_preempt_victim_hooks(struct gs_eng_hooks *h);

/* What preempting running `job` at `now` costs without a grace period:
 * milli-GPU x ms of work lost plus restore. */
int64_t gs_eng_preempt_victim_cost(const struct gs_engine *eng, int job, gs_time now);

#endif

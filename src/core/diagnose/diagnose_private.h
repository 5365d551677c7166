/* diagnose_private.h - internals shared by diagnose.c (wait accounting) and
 * diagnose_explain.c (classification and explanations).  Core only.
 */
#ifndef GS_CORE_DIAGNOSE_PRIVATE_H
#define GS_CORE_DIAGNOSE_PRIVATE_H

#include "core/diagnose/diagnose.h"
#include "core/engine/engine_private.h"

#define DIAG_MEMO_GPUS 64        /* plain jobs up to this size are memoised */
#define DIAG_NOTES 64            /* reservations remembered per pass */
#define DIAG_CLOSED ((int8_t)-1) /* per-job code: left the queue, accounted */

/* One (job, code) accumulator: ms waited under `code`; `next` links the
 * job's segments (index + 1 into segs, 0 = end). */
struct wseg {
    gs_time ms;
    uint32_t next;
    int8_t code;
};

struct res_note {
    int job;                     /* handle (a slot may be reused before explain) */
    gs_time start;
};

/* Idle GPUs a request may use, gathered over the nodes it may use. */
struct diag_figs {
    int64_t free;                /* idle GPUs */
    int best_node, best_node_free;
    int best_dom_node, best_dom_free;
    int whole_nodes;             /* fully idle nodes ... */
    int64_t whole_gpus;          /* ... and their GPUs */
    int rest_max;                /* most idle GPUs on a node not fully idle */
};

struct gs_diag_state {
    /* per job slot (grown to the slot count; reset when a job retires) */
    size_t cap;
    int8_t *code;                /* current code; 0 = not seen; DIAG_CLOSED */
    gs_time *since;              /* start of the current code's interval */
    uint32_t *head;              /* first segment + 1, 0 = none */
    int *runs;                   /* the job's run count when its code began */
    size_t seen;                 /* handles below this were seen by a pass */
    struct wseg *segs;
    size_t nsegs, segs_cap;
    uint32_t free_seg;           /* segments of retired jobs, chained by next
                                    (index + 1, 0 = none); reused first */
    struct gs_wait_reasons retired; /* what retired jobs add to the summary */
    /* per accounting call: plain-request memo and cluster figures */
    uint32_t stamp;
    int64_t idle;                /* idle GPUs in the cluster at this call */
    uint32_t memo_stamp[DIAG_MEMO_GPUS + 1];
    int8_t memo[DIAG_MEMO_GPUS + 1];
    uint32_t figs_stamp;
    struct diag_figs figs;
    /* reservations given in the pass that ran last */
    uint32_t notes_stamp;
    int nnotes;
    struct res_note notes[DIAG_NOTES];
    struct gs_alloc scratch;     /* parts: one per node */
    uint64_t *view;              /* one mask per node: a future view */
};

/* Gather the figures of `req` over the nodes it may use (`filter`: honour
 * req->nodes_allowed; `mem`: honour the per-GPU memory it needs). */
void gs_diag_gather(const struct gs_cluster *cl, const struct gs_request *req, int filter,
                    int mem, struct diag_figs *f);

/* Resource code of a whole-GPU request given its figures: SHORTAGE,
 * COUNT_FRAG, TOPOLOGY_FRAG, or NONE when it fits now.  `scratch` is
 * placement storage (multi-node requests use a placement test). */
int gs_diag_decide(const struct gs_cluster *cl, const struct gs_request *req,
                   const struct diag_figs *f, struct gs_alloc *scratch);

/* A fractional request (one GPU, share < 1): COUNT_FRAG when the free
 * shares add up but no GPU has the share, MEMORY_FRAG when GPUs have the
 * share but not the memory, SHORTAGE, or NONE.  Fills the memory figures
 * of `d` when not NULL. */
int gs_diag_shared(const struct gs_cluster *cl, const struct gs_request *req, int filter,
                   struct gs_diag *d);

/* The resource code of pending `job` in the current state (partition,
 * shortage, memory, count, topology; NONE when it fits). */
int gs_diag_resource_code(struct gs_engine *eng, int job);


#endif

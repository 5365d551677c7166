/* diagnose_private.h - internals shared by diagnose.c (wait accounting) and
 * diagnose_explain.c (classification and explanations).  Core only.
 */
#ifndef GS_CORE_DIAGNOSE_PRIVATE_H
#define GS_CORE_DIAGNOSE_PRIVATE_H

#include "core/diagnose/diagnose.h"
#include "core/jobs/jobs.h"
#include "core/queue/queue.h"
#include "core/diagnose/diagnose_hooks.h"

#define DIAG_MEMO_GPUS 64        /* plain jobs up to this size are memoised */
#define DIAG_NOTES 64            /* reservations remembered per pass */
#define DIAG_CLOSED ((int8_t)-1) /* per-job code: left the queue, accounted */
#define DIAG_FOLLOW ((int8_t)127) /* per-job code: follows its class's timeline */
#define DIAG_CLASSES 64          /* follower classes: plain GPU counts 1..64 */
#define DIAG_TL_WALK 32768       /* timeline records that first ask for a full pass */

/* One (job, code) accumulator: ms waited under `code`; `next` links the
 * job's segments (index + 1 into segs, 0 = end). */
struct wseg {
    gs_time ms;
    uint32_t next;
    int8_t code;
};

/* A class's wait timeline (diagnose_follow.c): the code every follower of
 * the class held from t[i] on, and the ms per code summed up to t[i]. */
struct ftl {
    gs_time *t;
    int8_t *code;
    gs_time (*cum)[GS_REASON_COUNT];
    size_t n, cap;
    int64_t followers;          /* jobs following it (pending or not yet closed) */
    size_t cap_walk;            /* records past which a full pass is asked for */
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
    /* per job slot: the per-slot tables, kept beside the job table, not
     * in struct job (diagnose_slots.c: grown with the job table through
     * hooks.grow, a slot's entries zeroed when a new job takes it,
     * GS_HOOK_ADDED; freed with the state) */
    size_t cap;                  /* entries in each of code, since, head, runs, fcls */
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
    /* followers (diagnose_follow.c): per job slot its class (0 = none);
     * per class its timeline; the jobs with codes of their own after the
     * last pass (pending ones), for the next pass's conversions */
    uint8_t *fcls;
    struct ftl tl[DIAG_CLASSES + 1];
    int *indiv;
    size_t nindiv, indiv_cap;
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

/* Follower `job` (ds->code[job] == DIAG_FOLLOW) takes a code of its own
 * again: the timeline of its class from ds->since[job] to `end` goes into
 * its segments (room reserved by the caller: GS_REASON_COUNT), its code
 * becomes the class's code at `end`, from `end`. */
void gs_diag_unfollow(struct gs_diag_state *ds, int job, gs_time end);

/* The split of follower `job` over [ds->since[job], end) added to out. */
void gs_diag_follow_split(const struct gs_diag_state *ds, int job, gs_time end,
                          gs_time out[GS_REASON_COUNT]);

/* The current code of follower `job`'s class. */
int gs_diag_follow_code(const struct gs_diag_state *ds, int job);

/* Make pending `job` (class `g`, a code of its own or none yet) a follower
 * of class g from `now`, its code this pass being `code` (the class's, whose
 * timeline already holds it at `now`); what it waited before goes into its
 * segments (room reserved by the caller).  `begin`: the start of its wait
 * if it had no code yet. */
void gs_diag_follow(struct gs_diag_state *ds, int job, int g, int code, gs_time begin,
                    gs_time now);

/* Class g's code is `code` from `now` on (a record when it changed).
 * 0 or GS_ENOMEM. */
int gs_diag_tl_note(struct gs_diag_state *ds, int g, int code, gs_time now);

/* Free the timelines and follower arrays. */
void gs_diag_follow_free(struct gs_diag_state *ds);

/* The per-slot tables' subscriptions (hooks.grow, GS_HOOK_ADDED).
 * (diagnose_slots.c) */
void gs_eng_diag_slot_hooks(struct gs_eng_hooks *h);

/* Add `ms` to job's accumulator for `code` (diagnose.c; room reserved). */
void gs_diag_add_wait(struct gs_diag_state *ds, int job, int code, gs_time ms);


#endif

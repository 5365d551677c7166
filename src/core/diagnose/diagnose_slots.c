/* diagnose_slots.c - the diagnosis's per-slot tables (struct gs_diag_state,
 * diagnose_private.h): each job's current wait code and since when, its
 * chain of per-code wait totals (segments), its run count when the code
 * began and its follower class, kept beside the job table rather than in
 * struct job.  Like the queue's (queue_slots.c) and the preemption
 * modules' (preempt_state.c) they grow with the job table (hooks.grow,
 * called by gs_eng_jobs_reserve), a new job's entries are zeroed
 * (GS_HOOK_ADDED) and they are freed with the state (gs_eng_diag_destroy).
 * A retirement (diagnose.c) only settles the slot's accounts: its waits go
 * to the retired totals, its segments to the pool, a follower leaves its
 * class; what it leaves in the slot is never read (no caller reaches a
 * free slot) and goes when the slot is taken. */
#include "core/diagnose/diagnose_private.h"
#include "core/base/alloc.h"

#include <string.h>

/* Grow `*arr` (entries of `elem` bytes) from `old` to `cap` entries, the
 * new ones zero.  0 or GS_ENOMEM (then unchanged). */
static int grow_one(void **arr, size_t old, size_t cap, size_t elem)
{
    void *p = gs_realloc(*arr, cap * elem);
    if (!p)
        return GS_ENOMEM;
    memset((char *)p + old * elem, 0, (cap - old) * elem);
    *arr = p;
    return 0;
}

/* hooks.grow: the tables follow the job table.  On a failure the tables
 * grown so far keep their room and ds->cap (the room all have) stays. */
static int diag_grow(struct gs_engine *eng, size_t cap)
{
    struct gs_diag_state *ds = eng->diag;
    size_t old = ds->cap;
    if (cap <= old)
        return 0;
    if (grow_one((void **)&ds->code, old, cap, sizeof *ds->code) < 0 ||
        grow_one((void **)&ds->since, old, cap, sizeof *ds->since) < 0 ||
        grow_one((void **)&ds->head, old, cap, sizeof *ds->head) < 0 ||
        grow_one((void **)&ds->runs, old, cap, sizeof *ds->runs) < 0 ||
        grow_one((void **)&ds->fcls, old, cap, sizeof *ds->fcls) < 0)
        return GS_ENOMEM;
    ds->cap = cap;
    return 0;
}

/* GS_HOOK_ADDED: a new job in the slot has no code, no segments (those of
 * the slot's retired job went back to the pool) and follows no class. */
static void diag_added(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    struct gs_diag_state *ds = eng->diag;
    ds->code[job] = 0;
    ds->since[job] = 0;
    ds->head[job] = 0;
    ds->runs[job] = 0;
    ds->fcls[job] = 0;
}

void gs_eng_diag_slot_hooks(struct gs_eng_hooks *h)
{
    gs_eng_hook_grow_add(h, diag_grow);
    gs_eng_hook_add(h, GS_HOOK_ADDED, diag_added);
}

/* Slot `s` (a live job): a code of 0 has no segments, the follower class
 * is set exactly when the code is DIAG_FOLLOW, and the chain ends within
 * the pool.  Counts its class in `fol`. */
static int check_slot(const struct gs_diag_state *ds, size_t s, int64_t *fol,
                      struct gs_error *err)
{
    if (ds->code[s] == 0 && ds->head[s] != 0)
        return gs_errorf(err, GS_ESTATE, "diagnosis: slot %zu has no code but wait "
                         "segments", s);
    if ((ds->code[s] == DIAG_FOLLOW) != (ds->fcls[s] != 0) || ds->fcls[s] > DIAG_CLASSES)
        return gs_errorf(err, GS_ESTATE, "diagnosis: slot %zu code %d with follower class %d",
                         s, ds->code[s], ds->fcls[s]);
    size_t n = 0;
    for (uint32_t g = ds->head[s]; g; g = ds->segs[g - 1].next)
        if (g > ds->nsegs || ++n > GS_REASON_COUNT)
            return gs_errorf(err, GS_ESTATE, "diagnosis: slot %zu's wait segments leave the "
                             "pool or repeat", s);
    fol[ds->fcls[s]]++;
    return 0;
}

int gs_eng_diag_slots_check(const struct gs_engine *eng, struct gs_error *err)
{
    const struct gs_diag_state *ds = eng->diag;
    if (ds->cap < eng->njobs)
        return gs_errorf(err, GS_ESTATE, "diagnosis per-slot tables (%zu) short of the %zu "
                         "slots in use", ds->cap, eng->njobs);
    int64_t fol[DIAG_CLASSES + 1] = { 0 };
    for (size_t s = 0; s < eng->njobs; s++)
        if (!gs_eng_slot_free(eng, (int)s) && check_slot(ds, s, fol, err) < 0)
            return GS_ESTATE;
    for (int g = 1; g <= DIAG_CLASSES; g++)
        if (fol[g] != ds->tl[g].followers)
            return gs_errorf(err, GS_ESTATE, "diagnosis: class %d has %lld followers, its "
                             "timeline counts %lld", g, (long long)fol[g],
                             (long long)ds->tl[g].followers);
    return 0;
}

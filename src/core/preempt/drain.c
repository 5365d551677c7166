/* drain.c - carrying out preemptions: requeueing victims, grace periods,
 * and GPUs held for a waiting job (docs/preemption.md).
 *
 * Requeue.  A preempted job loses the work since its last completed
 * checkpoint (job.lost grows by it, its work falls back to what is saved),
 * becomes pending again with its original submit time (aging continues
 * from there) and pays its restore cost when it next starts.
 *
 * Grace.  A victim that drains is told to checkpoint at once
 * (GS_EV_DRAIN, `until` = when the checkpoint completes) and keeps its
 * GPUs until then; it then stops losing nothing but the checkpoint time.
 * Meanwhile the GPUs the waiting job will start on are held for it: those
 * idle now, and each victim's as it stops, are taken from the cluster in
 * the waiter's name, so no other job can take them.  When its last victim
 * has stopped the hold is released and the waiter starts there (before the
 * queue pass of that instant).  If the waiter starts elsewhere first, or
 * is cancelled, the remaining victims are let go: they keep running.
 */
#include "core/preempt/preempt_private.h"
#include "core/base/alloc.h"

#include <string.h>

int gs_eng_drain_requeue_reserve(struct gs_engine *eng, size_t n)
{
    /* no compaction here: a pass may be walking the queue array */
    return gs_grow((void **)&eng->pending, &eng->pending_cap, eng->ptail + n + 1,
                   sizeof *eng->pending)
               ? GS_ENOMEM
               : 0;
}

void gs_eng_drain_requeue(struct gs_engine *eng, int job, gs_time now)
{
    /* room was reserved by gs_eng_drain_requeue_reserve; live mode defers it */
    (void)gs_eng_stop_job(eng, job, now, GS_JOB_PENDING, GS_EV_PREEMPT);
}

int gs_eng_drain_reserve(struct gs_engine *eng, size_t n)
{
    struct gs_preempt *pre = eng->pre;
    if (n == 0)
        return 0;
    if (gs_grow((void **)&pre->drains, &pre->drains_cap, pre->ndrains + n, sizeof *pre->drains) ||
        gs_grow((void **)&pre->holds, &pre->holds_cap, pre->nholds + 1, sizeof *pre->holds))
        return GS_ENOMEM;
    return 0;
}

void gs_eng_drain_start(struct gs_engine *eng, int victim, int waiter, gs_time now)
{
    struct gs_preempt *pre = eng->pre;
    struct job *j = &eng->jobs[victim];
    gs_time end = gs_progress_save_now(gs_eng_progress(eng, victim), now);
    pre->draining[victim] = 1;
    pre->drains[pre->ndrains++] = (struct drain){ victim, waiter, end, j->start };
    struct gs_event ev = { GS_EV_DRAIN, now, victim, NULL, end, 0 };
    gs_eng_emit(eng, &ev);
}

static struct hold *find_hold(struct gs_preempt *pre, int waiter)
{
    for (size_t i = 0; i < pre->nholds; i++)
        if (pre->holds[i].waiter == waiter)
            return &pre->holds[i];
    return NULL;
}

/* A one-part allocation of `mask` on `node`, whole GPUs. */
static struct gs_alloc hold_alloc(struct gs_preempt *pre, int node, uint64_t mask)
{
    struct gs_alloc a;
    memset(&a, 0, sizeof a);
    pre->hold_part->node = node;
    pre->hold_part->mask = mask;
    a.nparts = 1;
    a.cap = 1;
    a.parts = pre->hold_part;
    a.milli = GS_MILLI_GPU;
    return a;
}

/* Take the GPUs of the hold's `want` that are idle now. */
static void hold_take(struct gs_engine *eng, struct hold *h)
{
    uint64_t m = h->want & ~h->held & gs_cluster_idle_mask(eng->cl, h->node);
    if (!m)
        return;
    struct gs_alloc a = hold_alloc(eng->pre, h->node, m);
    if (gs_cluster_alloc(eng->cl, &a, NULL) < 0)
        return;
    gs_profile_occupy(eng->profile, &a, h->end);
    h->held |= m;
    eng->releases++; /* GPUs changed hands: a blocked pass must look again */
}

static void hold_release(struct gs_engine *eng, struct hold *h)
{
    if (!h->held)
        return;
    struct gs_alloc a = hold_alloc(eng->pre, h->node, h->held);
    gs_cluster_release(eng->cl, &a, NULL);
    gs_profile_vacate(eng->profile, eng->cl, &a);
    h->held = 0;
    eng->releases++;
    gs_eng_nodes_released(eng, &a);
}

void gs_eng_drain_hold_start(struct gs_engine *eng, int waiter, int node, uint64_t want)
{
    struct gs_preempt *pre = eng->pre;
    struct hold *h = &pre->holds[pre->nholds++];
    *h = (struct hold){ waiter, node, want, 0, 0, eng->now };
    for (size_t i = 0; i < pre->ndrains; i++) {
        if (pre->drains[i].waiter != waiter)
            continue;
        h->drains++;
        if (pre->drains[i].end > h->end)
            h->end = pre->drains[i].end;
    }
    hold_take(eng, h);
}

static void remove_hold(struct gs_preempt *pre, struct hold *h)
{
    *h = pre->holds[--pre->nholds];
}

/* Let the remaining victims of `waiter` go: they keep running. */
static void release_drains(struct gs_engine *eng, int waiter)
{
    struct gs_preempt *pre = eng->pre;
    for (size_t i = 0; i < pre->ndrains;) {
        struct drain *d = &pre->drains[i];
        if (d->waiter != waiter) {
            i++;
            continue;
        }
        if (d->victim >= 0) { /* -1: retired */
            struct job *v = &eng->jobs[d->victim];
            if (v->state == GS_JOB_RUNNING && v->start == d->run_start)
                pre->draining[d->victim] = 0;
        }
        *d = pre->drains[--pre->ndrains];
    }
}

/* GS_HOOK_STARTED (after the partition's): GPUs held for the job while
 * its victims drained are not needed any more. */
static void drain_started(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    struct gs_preempt *pre = eng->pre;
    struct hold *h = pre && pre->nholds ? find_hold(pre, job) : NULL;
    if (!h)
        return;
    hold_release(eng, h); /* it started elsewhere: nobody needs these GPUs */
    remove_hold(pre, h);
    release_drains(eng, job);
}

/* GS_HOOK_STOPPED (after the partition's): a draining victim that stopped
 * gives its GPUs to the holds of its waiters. */
static void drain_stopped(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    struct job *j = &eng->jobs[job];
    if (!eng->pre->draining[job])
        return;
    eng->pre->draining[job] = 0;
    for (size_t i = 0; i < eng->pre->ndrains; i++) {
        const struct drain *d = &eng->pre->drains[i];
        struct hold *h = d->victim == job ? find_hold(eng->pre, d->waiter) : NULL;
        if (h && d->run_start == j->start)
            hold_take(eng, h);
    }
}

/* The waiter's last victim has stopped: give it its GPUs. */
static int finish_hold(struct gs_engine *eng, struct hold *h, gs_time now)
{
    int w = h->waiter, node = h->node, nn = gs_cluster_node_count(eng->cl);
    uint64_t want = h->want;
    hold_release(eng, h);
    remove_hold(eng->pre, h);
    if (eng->jobs[w].state != GS_JOB_PENDING)
        return 0;
    uint64_t *view = eng->pre->view_buf; /* storage; no plan is alive here */
    memset(view, 0, (size_t)nn * sizeof *view);
    view[node] = want;
    int rc = gs_eng_try_start(eng, w, now, view, 0, &eng->pre->alloc_buf);
    return rc == GS_ENOMEM ? rc : 0;
}

/* Drain `i` is due: stop its victim (if it still drains for a waiting
 * job) and, when it was the waiter's last, start the waiter. */
static int complete_drain(struct gs_engine *eng, size_t i, gs_time now)
{
    struct gs_preempt *pre = eng->pre;
    struct drain d = pre->drains[i];
    pre->drains[i] = pre->drains[--pre->ndrains];
    int gone = d.victim < 0; /* the victim was retired */
    struct job *v = gone ? NULL : &eng->jobs[d.victim];
    struct hold *h = find_hold(pre, d.waiter);
    int live = !gone && v->state == GS_JOB_RUNNING && v->start == d.run_start &&
               pre->draining[d.victim];
    if (live && h && eng->jobs[d.waiter].state == GS_JOB_PENDING) {
        if (gs_eng_drain_requeue_reserve(eng, 1) < 0)
            return GS_ENOMEM;
        gs_eng_drain_requeue(eng, d.victim, now);
        h = find_hold(pre, d.waiter);
    } else if (live) {
        pre->draining[d.victim] = 0;
    }
    if (h && --h->drains <= 0)
        return finish_hold(eng, h, now);
    return 0;
}

/* The handle of a drain's victim (ties between drains go to the earlier
 * job), -1 once the victim was retired. */
static int victim_handle(const struct gs_engine *eng, const struct drain *d)
{
    return d->victim >= 0 ? gs_eng_handle(eng, d->victim) : -1;
}

int gs_eng_preempt_step(struct gs_engine *eng, gs_time now)
{
    struct gs_preempt *pre = eng->pre;
    if (!pre)
        return 0;
    if (pre->young_wake <= now) {
        pre->young_wake = GS_TIME_INF;
        eng->pass_blocked = 0; /* a victim came of age: the queue must look again */
    }
    for (int again = 1; again;) {
        again = 0;
        size_t best = pre->ndrains;
        for (size_t i = 0; i < pre->ndrains; i++) {
            const struct drain *d = &pre->drains[i];
            if (d->end <= now && (best == pre->ndrains || d->end < pre->drains[best].end ||
                                  (d->end == pre->drains[best].end &&
                                   victim_handle(eng, d) <
                                       victim_handle(eng, &pre->drains[best]))))
                best = i;
        }
        if (best < pre->ndrains) {
            int rc = complete_drain(eng, best, now);
            if (rc < 0)
                return rc;
            again = 1;
        }
    }
    return 0;
}

gs_time gs_eng_preempt_wakeup(const struct gs_engine *eng)
{
    const struct gs_preempt *pre = eng->pre;
    if (!pre)
        return GS_TIME_INF;
    gs_time t = pre->young_wake;
    for (size_t i = 0; i < pre->ndrains; i++)
        if (pre->drains[i].end < t)
            t = pre->drains[i].end;
    return t;
}

/* GS_HOOK_DRAIN_DUE: draining `victim` stopped early at `now` (live mode):
 * its drains are due now, so the next step completes them. */
static void drain_due(struct gs_engine *eng, int victim, gs_time now)
{
    struct gs_preempt *pre = eng->pre;
    const struct job *v = &eng->jobs[victim];
    for (size_t i = 0; pre && i < pre->ndrains; i++)
        if (pre->drains[i].victim == victim && pre->drains[i].run_start == v->start &&
            pre->drains[i].end > now)
            pre->drains[i].end = now;
}

/* GS_HOOK_RETIRED: holds for the slot (as a waiter) are released and
 * drains naming it forget it, so no later job in the slot inherits them. */
static void drain_retired(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    struct gs_preempt *pre = eng->pre;
    if (!pre)
        return;
    struct hold *h = pre->nholds ? find_hold(pre, job) : NULL;
    if (h) { /* a waiter that ended while its victims drained: nobody needs them */
        hold_release(eng, h);
        remove_hold(pre, h);
    }
    release_drains(eng, job);
    for (size_t i = 0; i < pre->ndrains; i++)
        if (pre->drains[i].victim == job)
            pre->drains[i].victim = -1; /* still counts for its waiter's hold */
}

int gs_eng_drain_is(const struct gs_engine *eng, int job)
{
    return eng->pre->draining[job];
}

/* hooks.grow: the draining table follows the job table. */
static int drain_grow(struct gs_engine *eng, size_t cap)
{
    struct gs_preempt *pre = eng->pre;
    return gs_eng_slot_table_grow((void **)&pre->draining, &pre->draining_cap, cap,
                                  sizeof *pre->draining);
}

/* GS_HOOK_ADDED: a new job in the slot does not drain. */
static void drain_added(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    eng->pre->draining[job] = 0;
}

void gs_eng_drain_hooks(struct gs_eng_hooks *h)
{
    gs_eng_hook_add(h, GS_HOOK_STARTED, drain_started);
    gs_eng_hook_add(h, GS_HOOK_STOPPED, drain_stopped);
    gs_eng_hook_add(h, GS_HOOK_DRAIN_DUE, drain_due);
    gs_eng_hook_add(h, GS_HOOK_RETIRED, drain_retired);
    gs_eng_hook_add(h, GS_HOOK_ADDED, drain_added);
    gs_eng_hook_grow_add(h, drain_grow);
    h->draining = gs_eng_drain_is;
}

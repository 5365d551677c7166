/* queue_order.c - the order in which a pass visits the pending jobs.
 *
 * fifo: submission order, no sorting.  priority and priority_with_backfill:
 *   effective = priority + aging_rate * max(0, wait - max_wait_before_aging) / 1h
 * highest first, ties by submit time, then submission order (handle).
 *
 * Sorting the whole queue at every pass costs O(n log n) per event, which
 * dominated priority runs on real logs.  But only one thing about the
 * order changes with time: a job that is past max_wait_before_aging gains
 * aging_rate points per hour, the same for every such job.  So two lists
 * are kept across passes, each sorted by a key that never changes:
 *   young: not yet aging, by priority;
 *   aged:  aging, by c = priority x 1h - aging_rate x submit (in ms), since
 *          effective(t) = (c + aging_rate x (t - max_wait)) / 1h for all of
 *          them.
 * A pass drops the jobs that left the queue, moves the young jobs whose
 * aging has begun to the aged list, sorts only the jobs that are new or
 * moved, merges, and finally merges the two lists by effective priority at
 * the pass time: O(n + m log m) for m new or moved jobs.
 *
 * Two aged jobs compare by c, which equals comparing their effective
 * priorities up to floating-point rounding; it is the same comparison at
 * every pass, so the order is deterministic and never oscillates.
 */
#include "core/engine_private.h"
#include "core/alloc.h"

#include <stdlib.h>

#define MS_PER_HOUR (3600.0 * GS_MS_PER_SEC)

enum { LIST_NONE, LIST_YOUNG, LIST_AGED }; /* struct job.in_order */

static int aging(const struct gs_engine *eng, const struct job *j, gs_time now)
{
    return eng->pol.aging_rate > 0 && now - j->submit - eng->pol.max_wait_before_aging > 0;
}

static double effective_priority(const struct gs_engine *eng, const struct job *j, gs_time now)
{
    if (!aging(eng, j, now))
        return j->priority;
    double extra = (double)(now - j->submit - eng->pol.max_wait_before_aging);
    return j->priority + eng->pol.aging_rate * extra / MS_PER_HOUR;
}

static int cmp_order(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

/* The job's key in the list it belongs to (see the header). */
static struct order_key list_key(const struct gs_engine *eng, int job, int list)
{
    const struct job *j = &eng->jobs[job];
    double prio = j->priority;
    if (list == LIST_AGED)
        prio = prio * MS_PER_HOUR - eng->pol.aging_rate * (double)j->submit;
    /* a job whose launch failed goes ahead of its peers (lifecycle.c) */
    struct order_key k = { prio, j->front ? GS_TIME_NONE : j->submit, job };
    return k;
}

/* Merge the sorted src[0..m) into the sorted dst[0..n), in place from the
 * back (dst has room for n + m). */
static void merge_into(struct order_key *dst, size_t n, const struct order_key *src, size_t m)
{
    size_t out = n + m;
    while (m > 0) {
        if (n > 0 && cmp_order(&dst[n - 1], &src[m - 1]) > 0)
            dst[--out] = dst[--n];
        else
            dst[--out] = src[--m];
    }
}

/* Keep the entries of `list` still pending (and, for the young list, not
 * yet aging: those are appended to eng->moved with their aged key). */
static size_t filter(struct gs_engine *eng, struct order_key *list, size_t n, int which,
                     gs_time now)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct job *j = &eng->jobs[list[i].job];
        /* a job requeued to the front since it was listed changed its key */
        if (j->state != GS_JOB_PENDING || (j->front && list[i].submit != GS_TIME_NONE)) {
            j->in_order = LIST_NONE;
        } else if (which == LIST_YOUNG && aging(eng, j, now)) {
            j->in_order = LIST_AGED;
            eng->moved[eng->nmoved++] = list_key(eng, list[i].job, LIST_AGED);
        } else {
            list[kept++] = list[i];
        }
    }
    return kept;
}

/* Room for every pending job in the kept lists and their scratch. */
static int grow_lists(struct gs_engine *eng)
{
    size_t need = eng->npending + 1;
    if (gs_grow((void **)&eng->young, &eng->young_cap, need, sizeof *eng->young) ||
        gs_grow((void **)&eng->aged, &eng->aged_cap, need, sizeof *eng->aged) ||
        gs_grow((void **)&eng->moved, &eng->moved_cap, need, sizeof *eng->moved) ||
        gs_grow((void **)&eng->fresh, &eng->fresh_cap, need, sizeof *eng->fresh))
        return GS_ENOMEM;
    return 0;
}

/* Bring both kept lists up to date for a pass at `now`. */
static void update_lists(struct gs_engine *eng, gs_time now)
{
    size_t nfresh = 0;
    eng->nmoved = 0;
    eng->nyoung = filter(eng, eng->young, eng->nyoung, LIST_YOUNG, now);
    eng->naged = filter(eng, eng->aged, eng->naged, LIST_AGED, now);
    for (size_t i = eng->phead; i < eng->ptail; i++) {
        int job = eng->pending[i];
        struct job *j = &eng->jobs[job];
        if (j->state != GS_JOB_PENDING || j->in_order != LIST_NONE)
            continue;
        if (aging(eng, j, now)) {
            j->in_order = LIST_AGED;
            eng->moved[eng->nmoved++] = list_key(eng, job, LIST_AGED);
        } else {
            j->in_order = LIST_YOUNG;
            eng->fresh[nfresh++] = list_key(eng, job, LIST_YOUNG);
        }
    }
    qsort(eng->fresh, nfresh, sizeof *eng->fresh, cmp_order);
    merge_into(eng->young, eng->nyoung, eng->fresh, nfresh);
    eng->nyoung += nfresh;
    qsort(eng->moved, eng->nmoved, sizeof *eng->moved, cmp_order);
    merge_into(eng->aged, eng->naged, eng->moved, eng->nmoved);
    eng->naged += eng->nmoved;
}

/* The key an aged-list entry is merged under at `now`: its effective
 * priority then. */
static struct order_key aged_key_at(const struct gs_engine *eng, const struct order_key *k,
                                    gs_time now)
{
    const struct job *j = &eng->jobs[k->job];
    struct order_key at = { effective_priority(eng, j, now), k->submit, k->job };
    return at;
}

/* eng->order = young and aged merged by effective priority at `now`. */
static size_t merge_lists(struct gs_engine *eng, gs_time now)
{
    size_t y = 0, a = 0, n = 0;
    struct order_key ka = { 0, 0, -1 };
    if (eng->naged > 0)
        ka = aged_key_at(eng, &eng->aged[0], now);
    while (y < eng->nyoung || a < eng->naged) {
        if (a == eng->naged || (y < eng->nyoung && cmp_order(&eng->young[y], &ka) < 0)) {
            eng->order[n++] = eng->young[y++];
            continue;
        }
        eng->order[n++] = ka;
        if (++a < eng->naged)
            ka = aged_key_at(eng, &eng->aged[a], now);
    }
    return n;
}

int gs_queue_order(struct gs_engine *eng, gs_time now)
{
    if (gs_grow((void **)&eng->order, &eng->order_cap, eng->npending + 1, sizeof *eng->order))
        return GS_ENOMEM;
    if (eng->pol.queue_policy == GS_QUEUE_FIFO) { /* no lists: the queue's own order */
        size_t n = 0;
        for (size_t i = eng->phead; i < eng->ptail; i++) {
            int job = eng->pending[i];
            if (eng->jobs[job].state == GS_JOB_PENDING)
                eng->order[n++] = list_key(eng, job, LIST_YOUNG);
        }
        return (int)n;
    }
    if (grow_lists(eng) < 0)
        return GS_ENOMEM;
    update_lists(eng, now);
    return (int)merge_lists(eng, now);
}

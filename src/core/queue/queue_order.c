/* queue_order.c - the priority order (gs_queue_priority_ops) in which a
 * pass visits the pending jobs (queue_private.h).  fifo is in
 * queue_fifo.c, the registry of orders in queue_dispatch.c.
 *
 * priority and priority_with_backfill:
 *   effective = priority + aging_rate * max(0, wait - max_wait_before_aging) / 1h
 * highest first, ties by submit time, then submission order (handle).
 *
 * Integers.  Priorities are compared as int64 in milli-points x ms per hour
 * (GS_PRIO_SCALE, queue_private.h): aging_rate is taken in steps of 0.001
 * points per hour, and effective x scale = priority x scale + aging_milli x
 * extra wait in ms, exactly, with no rounding.  (Before, a double; the two
 * orders agree whenever aging_rate is a multiple of 0.001, which every
 * shipped policy is, and the double's rounding did not merge two distinct
 * values.)
 *
 * Kept lists.  Only one thing about the order changes with time: a job
 * past max_wait_before_aging gains aging_rate points per hour, the same for
 * every such job.  So two lists are kept across passes, each sorted by a
 * key that never changes:
 *   young: not yet aging, by priority;
 *   aged:  aging, by c = priority x scale - aging_milli x submit, since
 *          effective(t) x scale = c + aging_milli x (t - max_wait) for all.
 * A pass is then a merge of the two lists read lazily: it costs the jobs it
 * visits, not the queue.  Keeping the lists costs what changed:
 *   - new (or requeued) jobs are found from the end of the queue array
 *     (it only grows at the end; a compaction restarts the scan), sorted
 *     and merged in;
 *   - young jobs whose aging begins come off a heap by submit time;
 *   - entries of jobs that left the queue are not removed at once: an entry
 *     is live while its job is pending, in that list, and the entry's `seq`
 *     is the job's current one.  Dead entries a pass walks over are dropped
 *     at its end (paid by the walk); when dead entries outnumber the pending
 *     jobs, both lists are compacted (amortised O(1) per departure).
 * Two aged jobs compare by c, which is their effective priority at every
 * instant, so the order is deterministic and never oscillates.
 */
#include "core/queue/queue_private.h"
#include "core/queue/qclass.h"
#include "core/queue/queue_estidx.h"
#include "core/base/satmath.h"
#include "core/base/alloc.h"

#include <math.h>
#include <stdlib.h>

#define PREFETCH_AHEAD 4 /* entries */

static int64_t milli_rate(const struct gs_policy *pol);

struct gs_qstate *gs_queue_state(struct gs_engine *eng)
{
    if (!eng->q) {
        struct gs_qstate *q = gs_calloc(1, sizeof *q);
        size_t nn = (size_t)gs_cluster_node_count(eng->cl);
        if (q) {
            q->alloc.parts = gs_calloc(nn, sizeof *q->alloc.parts);
            q->alloc.cap = (int)nn;
            q->view = gs_calloc(nn, sizeof *q->view);
            q->blocked = gs_calloc(nn, sizeof *q->blocked);
            q->cls = gs_qclass_create();
            q->est = gs_qest_create();
        }
        if (!q || !q->alloc.parts || !q->view || !q->blocked || !q->cls || !q->est) {
            gs_queue_state_free(q);
            return NULL;
        }
        q->last_pass = GS_TIME_NONE;
        q->aging_milli = milli_rate(&eng->pol);
        eng->q = q;
    }
    return eng->q;
}

void gs_queue_state_free(struct gs_qstate *q)
{
    if (!q)
        return;
    gs_free(q->jobs);
    gs_free(q->young.k);
    gs_free(q->aged.k);
    gs_free(q->young.c);
    gs_free(q->aged.c);
    gs_free(q->heap);
    gs_free(q->fresh);
    gs_free(q->moved);
    gs_free(q->visited);
    gs_free(q->joined);
    gs_free(q->fskip);
    gs_free(q->fcode);
    gs_qest_free(q->est);
    gs_free(q->alloc.parts);
    gs_free(q->view);
    gs_free(q->blocked);
    gs_free(q->hold);
    gs_qclass_free(q->cls);
    gs_free(q);
}

static int aging(const struct gs_engine *eng, const struct job *j, gs_time now)
{
    return eng->pol.aging_rate > 0 && now - j->submit - eng->pol.max_wait_before_aging > 0;
}

/* aging_rate in milli-points per hour, rounded. */
static int64_t milli_rate(const struct gs_policy *pol)
{
    double r = pol->aging_rate > 0 ? pol->aging_rate * 1000.0 : 0;
    return r >= 9e15 ? (int64_t)9e15 : (int64_t)llround(r);
}

static int64_t rate_of(const struct gs_engine *eng)
{
    return eng->q ? eng->q->aging_milli : milli_rate(&eng->pol);
}

/* Effective priority x scale of an aged job with list key `c` at `now`:
 * c + aging_milli x (now - max_wait), which is priority x scale +
 * aging_milli x (now - submit - max_wait) (see the header). */
static int64_t aged_at(const struct gs_engine *eng, int64_t c, gs_time now)
{
    return gs_sat_add(c, gs_sat_mul(rate_of(eng), now - eng->pol.max_wait_before_aging));
}

static int64_t aged_key(const struct gs_engine *eng, const struct job *j)
{
    return gs_sat_sub(gs_sat_mul(j->priority, GS_PRIO_SCALE), gs_sat_mul(rate_of(eng), j->submit));
}

int64_t gs_queue_base_prio(const struct job *j)
{
    return gs_sat_mul(j->priority, GS_PRIO_SCALE);
}

static int64_t priority_eff_prio(const struct gs_engine *eng, const struct job *j, gs_time now)
{
    if (!aging(eng, j, now))
        return gs_queue_base_prio(j);
    return aged_at(eng, aged_key(eng, j), now);
}

int gs_qorder_cmp(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->handle > y->handle) - (x->handle < y->handle);
}

/* A new entry for `job` in `list` (see the header); it becomes the job's
 * only live entry. */
static struct order_key new_key(struct gs_engine *eng, int job, int list)
{
    struct job *j = &eng->jobs[job];
    int64_t prio = list == LIST_AGED ? aged_key(eng, j) : gs_sat_mul(j->priority, GS_PRIO_SCALE);
    if (++eng->q->seq == 0)
        eng->q->seq = 1;
    gs_queue_job(eng, job)->in_order = (int8_t)list;
    gs_queue_job(eng, job)->order_seq = eng->q->seq;
    /* a job whose launch failed goes ahead of its peers (lifecycle.c) */
    struct order_key k = { prio, j->front ? GS_TIME_NONE : j->submit, job, eng->q->seq,
                           j->handle, (int8_t)gs_qclass_of(eng, j) };
    return k;
}

/* Forget a dead entry: if it was its job's current one, the job is no
 * longer listed (it is re-added if it comes back to the queue). */
static void drop(struct gs_engine *eng, const struct order_key *k)
{
    struct gs_qjob *qj = gs_queue_job(eng, k->job);
    if (qj->order_seq == k->seq && eng->jobs[k->job].state != GS_JOB_PENDING) {
        qj->in_order = LIST_NONE;
        qj->order_seq = 0;
    }
}

/* Remove the dead entries of [from, to) of `l`, keeping the order; the
 * live ones move to the end of the range and the head follows. */
static void compact_range(struct gs_engine *eng, struct qlist *l, int list, size_t from,
                          size_t to)
{
    size_t w = to;
    for (size_t i = to; i-- > from;) {
        if (gs_qorder_live(eng, &l->k[i], list)) {
            l->k[--w] = l->k[i];
            l->c[w] = l->c[i];
        } else
            drop(eng, &l->k[i]);
    }
    l->head = w;
}

/* Remove every dead entry of `l` (to the front of the array). */
static void compact_all(struct gs_engine *eng, struct qlist *l, int list)
{
    size_t out = 0;
    for (size_t i = l->head; i < l->n; i++) {
        if (gs_qorder_live(eng, &l->k[i], list)) {
            l->c[out] = l->c[i];
            l->k[out++] = l->k[i];
        } else
            drop(eng, &l->k[i]);
    }
    l->head = 0;
    l->n = out;
}

/* Merge the sorted src[0..m) into the list, in place from the back. */
static int merge_in(struct qlist *l, const struct order_key *src, size_t m)
{
    if (m == 0)
        return 0;
    if (gs_grow((void **)&l->k, &l->cap, l->n + m, sizeof *l->k) ||
        gs_grow((void **)&l->c, &l->ccap, l->n + m, sizeof *l->c))
        return GS_ENOMEM;
    struct order_key *dst = l->k + l->head;
    int8_t *dc = l->c + l->head;
    size_t n = l->n - l->head, out = n + m;
    l->n += m;
    while (m > 0) {
        if (n > 0 && gs_qorder_cmp(&dst[n - 1], &src[m - 1]) > 0) {
            dc[--out] = dc[--n];
            dst[out] = dst[n];
        } else {
            dst[--out] = src[--m];
            dc[out] = src[m].cls;
        }
    }
    return 0;
}

static void heap_push(struct gs_qstate *q, gs_time submit, int job)
{
    size_t i = q->nheap++;
    while (i > 0 && q->heap[(i - 1) / 2].submit > submit) {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = (struct aging_ent){ submit, job };
}

static void heap_pop(struct gs_qstate *q)
{
    struct aging_ent last = q->heap[--q->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->nheap)
            break;
        if (c + 1 < q->nheap && q->heap[c + 1].submit < q->heap[c].submit)
            c++;
        if (q->heap[c].submit >= last.submit)
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (q->nheap > 0)
        q->heap[i] = last;
}

/* Scratch room for `n` more new entries. */
static int grow_scratch(struct gs_qstate *q, size_t n)
{
    if (gs_grow((void **)&q->fresh, &q->fresh_cap, q->nfresh + n + 1, sizeof *q->fresh) ||
        gs_grow((void **)&q->moved, &q->moved_cap, q->nmoved + n + 1, sizeof *q->moved) ||
        gs_grow((void **)&q->heap, &q->heap_cap, q->nheap + n + 1, sizeof *q->heap) ||
        gs_grow((void **)&q->joined, &q->joined_cap, q->njoined + n + 1, sizeof *q->joined))
        return GS_ENOMEM;
    return 0;
}

/* Jobs that joined the queue since the last pass (new or requeued): the
 * queue array's new tail, or all of it after a compaction moved entries. */
int gs_queue_scan_joined(struct gs_engine *eng, gs_time now, int lists)
{
    struct gs_qstate *q = eng->q;
    size_t from = q->epoch == eng->pending_epoch && q->scan > eng->phead ? q->scan : eng->phead;
    if (from > eng->ptail)
        from = eng->phead;
    q->njoined = q->nfresh = q->nmoved = 0;
    if (from < eng->ptail && grow_scratch(q, eng->ptail - from) < 0)
        return GS_ENOMEM;
    for (size_t i = from; i < eng->ptail; i++) {
        int job = gs_eng_queued(eng, i);
        if (job < 0)
            continue;
        struct job *j = &eng->jobs[job];
        q->joined[q->njoined++] = job;
        gs_time e = gs_eng_estimate(eng, job);
        if (gs_qclass_note(q->cls, eng, job, e == GS_TIME_NONE ? GS_TIME_INF : e) < 0 ||
            gs_qest_note(q->est, eng, job, e == GS_TIME_NONE ? GS_TIME_INF : e) < 0)
            return GS_ENOMEM;
        if (!lists || (gs_queue_job(eng, job)->in_order != LIST_NONE && !j->front))
            continue; /* still listed (its entry comes back to life); a job
                         requeued to the front gets a new key below, which
                         kills its old entry */
        if (aging(eng, j, now)) {
            q->moved[q->nmoved++] = new_key(eng, job, LIST_AGED);
        } else {
            q->fresh[q->nfresh++] = new_key(eng, job, LIST_YOUNG);
            if (eng->pol.aging_rate > 0)
                heap_push(q, j->submit, job);
        }
    }
    q->scan = eng->ptail;
    q->epoch = eng->pending_epoch;
    return 0;
}

/* Young jobs whose aging has begun by `now` move to the aged list. */
static int move_aging(struct gs_engine *eng, gs_time now)
{
    struct gs_qstate *q = eng->q;
    while (q->nheap > 0 && now - q->heap[0].submit - eng->pol.max_wait_before_aging > 0) {
        int job = q->heap[0].job;
        heap_pop(q);
        struct job *j = &eng->jobs[job];
        struct gs_qjob *qj = gs_queue_job(eng, job);
        if (qj->in_order != LIST_YOUNG)
            continue; /* stale: dropped or already moved */
        if (j->state != GS_JOB_PENDING) {
            qj->in_order = LIST_NONE; /* re-added if it comes back */
            qj->order_seq = 0;
            continue;
        }
        if (gs_grow((void **)&q->moved, &q->moved_cap, q->nmoved + 1, sizeof *q->moved))
            return GS_ENOMEM;
        q->moved[q->nmoved++] = new_key(eng, job, LIST_AGED);
    }
    return 0;
}

/* Bring both kept lists up to date for a pass at `now`. */
static int update_lists(struct gs_engine *eng, gs_time now)
{
    struct gs_qstate *q = eng->q;
    if (gs_queue_scan_joined(eng, now, 1) < 0 || move_aging(eng, now) < 0)
        return GS_ENOMEM;
    if (q->nfresh > 1) /* qsort's array may not be NULL, even when empty */
        qsort(q->fresh, q->nfresh, sizeof *q->fresh, gs_qorder_cmp);
    if (q->nmoved > 1)
        qsort(q->moved, q->nmoved, sizeof *q->moved, gs_qorder_cmp);
    if (merge_in(&q->young, q->fresh, q->nfresh) < 0 ||
        merge_in(&q->aged, q->moved, q->nmoved) < 0)
        return GS_ENOMEM;
    size_t entries = (q->young.n - q->young.head) + (q->aged.n - q->aged.head);
    if (entries > 2 * eng->npending + 64) { /* dead entries outnumber live ones */
        compact_all(eng, &q->young, LIST_YOUNG);
        compact_all(eng, &q->aged, LIST_AGED);
    }
    return 0;
}

/* Skip dead entries from position *i of `l`. */
static void skip_dead(struct gs_engine *eng, const struct qlist *l, int list, size_t *i,
                      size_t *dead)
{
    while (*i < l->n && !gs_qorder_live(eng, &l->k[*i], list)) {
        (*i)++;
        (*dead)++;
    }
}

/* Ask for the job records of the entries a few places ahead of `from`: a
 * pass reads one job per entry in an order unrelated to the job table, and
 * does a job's work between two reads, so the loads would not overlap. */
static void prefetch_jobs(const struct gs_engine *eng, const struct qlist *l, size_t from)
{
    size_t i = from + PREFETCH_AHEAD;
    if (i < l->n)
        __builtin_prefetch(&eng->jobs[l->k[i].job]);
}

/* The aged entry at cur->a keyed by its effective priority at the pass. */
static void load_aged(struct gs_engine *eng, struct qcursor *cur)
{
    struct gs_qstate *q = eng->q;
    skip_dead(eng, &q->aged, LIST_AGED, &cur->a, &cur->dead);
    cur->ka.job = -1;
    if (cur->a < q->aged.n) {
        cur->ka = q->aged.k[cur->a];
        cur->ka.prio = gs_sat_add(cur->ka.prio, cur->shift); /* aged_at, hoisted */
    }
}

static int priority_begin(struct gs_engine *eng, gs_time now, struct qcursor *cur)
{
    struct gs_qstate *q = eng->q;
    if (update_lists(eng, now) < 0)
        return GS_ENOMEM;
    cur->y = q->young.head;
    cur->a = q->aged.head;
    cur->shift = gs_sat_mul(rate_of(eng), now - eng->pol.max_wait_before_aging);
    load_aged(eng, cur);
    return 0;
}

static int priority_next(struct gs_engine *eng, struct qcursor *cur)
{
    struct gs_qstate *q = eng->q;
    skip_dead(eng, &q->young, LIST_YOUNG, &cur->y, &cur->dead);
    if (cur->ka.job >= 0 && !gs_qorder_live(eng, &q->aged.k[cur->a], LIST_AGED))
        load_aged(eng, cur); /* left the queue since it was keyed (a start) */
    if (cur->y < q->young.n && (cur->ka.job < 0 || gs_qorder_cmp(&q->young.k[cur->y], &cur->ka) < 0)) {
        prefetch_jobs(eng, &q->young, cur->y + 1);
        return q->young.k[cur->y++].job;
    }
    if (cur->ka.job < 0)
        return -1;
    int job = cur->ka.job;
    cur->a++;
    prefetch_jobs(eng, &q->aged, cur->a);
    load_aged(eng, cur);
    return job;
}

static void priority_end(struct gs_engine *eng, const struct qcursor *cur)
{
    struct gs_qstate *q = eng->q;
    if (cur->dead == 0)
        return; /* nothing walked over has left the queue */
    /* what the pass walked over unread is read here only when the dead
     * entries it met are at least an eighth of the walk (else that would
     * cost what the skip saved): the others wait for a later pass or for
     * the compaction of update_lists (when they outnumber the live ones) */
    size_t walked = (cur->y - q->young.head) + (cur->a - q->aged.head);
    int whole = !cur->fast || cur->dead * 8 >= walked; /* amortised: the compaction
                                                         costs at most 8 per dead entry */
    compact_range(eng, &q->young, LIST_YOUNG, q->young.head, whole ? cur->y : cur->fy);
    compact_range(eng, &q->aged, LIST_AGED, q->aged.head, whole ? cur->a : cur->fa);
}

/* Whether aged entry `a` (list key) sorts ahead of young entry `y` at `t`:
 * the pass's own comparison (saturation and tie-breaks included). */
static int aged_ahead(const struct gs_engine *eng, const struct order_key *a,
                      const struct order_key *y, gs_time t)
{
    struct order_key k = *a;
    k.prio = aged_at(eng, a->prio, t);
    return gs_qorder_cmp(&k, y) < 0;
}

/* Whether aged entry `a`'s key has reached the saturation bound at `t`
 * (from then on it ties with every other saturated aged job). */
static int aged_saturated(const struct gs_engine *eng, const struct order_key *a, gs_time t)
{
    return aged_at(eng, a->prio, t) == INT64_MAX;
}

/* The first t in (now, GS_TIME_INF) at which pred(eng, a, y, t) holds, for a
 * predicate that once true stays true (an aged key only grows with t);
 * GS_TIME_INF if never.  `guess` (any value) only narrows the bisection. */
static gs_time first_true(const struct gs_engine *eng, const struct order_key *a,
                          const struct order_key *y, gs_time now, double guess,
                          int (*pred)(const struct gs_engine *, const struct order_key *,
                                      const struct order_key *, gs_time))
{
    gs_time lo = now, hi = GS_TIME_INF - 1; /* invariant: !pred(lo), pred(hi) */
    if (!pred(eng, a, y, hi))
        return GS_TIME_INF;
    if (pred(eng, a, y, now + 1))
        return now + 1;
    lo = now + 1;
    if (guess > (double)lo + 2 && guess < (double)hi - 2) {
        gs_time g = (gs_time)guess;
        if (!pred(eng, a, y, g - 2))
            lo = g - 2;
        if (pred(eng, a, y, g + 2))
            hi = g + 2;
    }
    while ((uint64_t)hi - (uint64_t)lo > 1) {
        gs_time mid = lo + (gs_time)(((uint64_t)hi - (uint64_t)lo) / 2);
        if (pred(eng, a, y, mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static int sat_pred(const struct gs_engine *eng, const struct order_key *a,
                    const struct order_key *y, gs_time t)
{
    (void)y;
    return aged_saturated(eng, a, t);
}

/* When aged `a` passes young `y` (which sorts ahead of it at now). */
static gs_time passes_at(const struct gs_engine *eng, const struct order_key *a,
                         const struct order_key *y, gs_time now)
{
    int64_t r = rate_of(eng);
    if (r <= 0)
        return GS_TIME_INF; /* aged keys do not move */
    /* c + r (t - max_wait) = y's key at t = max_wait + (y - c) / r */
    double g = (double)eng->pol.max_wait_before_aging +
               ((double)y->prio - (double)a->prio) / (double)r;
    return first_true(eng, a, y, now, g, aged_ahead);
}

static gs_time min_time(gs_time a, gs_time b)
{
    return a < b ? a : b;
}

/* The next live entry of `l` from *i (read-only walk). */
static const struct order_key *peek_live(const struct gs_engine *eng, const struct qlist *l,
                                         int list, size_t *i)
{
    while (*i < l->n && !gs_qorder_live(eng, &l->k[*i], list))
        (*i)++;
    return *i < l->n ? &l->k[*i] : NULL;
}

/* Changes among the aged jobs walked: two aged jobs keep their order until
 * the higher one's key saturates and ties (then the tie-breaks decide).
 * The first aged entry not saturated at `now` is the next to saturate. */
static gs_time next_saturation(const struct gs_engine *eng, const struct order_key *a,
                               gs_time now)
{
    return a ? first_true(eng, a, NULL, now, 0, sat_pred) : GS_TIME_INF;
}

/* Why this is every change of the walked prefix: young jobs keep their
 * keys and aged ones all gain the same amount, so (saturation aside) the
 * order changes only when an aged job passes a young one.  The first such
 * pass is between neighbours in the order (a young job directly ahead of
 * an aged one).  The whole queue is walked, whatever queue.max_job_test:
 * the continuations of a bounded pass try every job of the queue
 * (queue.c), so every neighbour counts. */
gs_time gs_queue_order_change_linear(const struct gs_engine *eng, gs_time now)
{
    const struct gs_qstate *q = eng->q;
    if (!q)
        return now;
    gs_time t = GS_TIME_INF;
    if (q->nheap > 0) /* a young job's aging begins (stale entries: sooner) */
        t = gs_time_add(gs_time_add(q->heap[0].submit, eng->pol.max_wait_before_aging), 1);
    size_t yi = q->young.head, ai = q->aged.head;
    const struct order_key *last_young = NULL, *unsat = NULL;
    int prev_young = 0;
    for (;;) {
        const struct order_key *y = peek_live(eng, &q->young, LIST_YOUNG, &yi);
        const struct order_key *a = peek_live(eng, &q->aged, LIST_AGED, &ai);
        if (a && !unsat && !aged_saturated(eng, a, now))
            unsat = a;
        if (!y && !a)
            break;
        if (y && (!a || !aged_ahead(eng, a, y, now))) {
            last_young = y;
            prev_young = 1;
            yi++;
        } else {
            if (prev_young)
                t = min_time(t, passes_at(eng, a, last_young, now));
            prev_young = 0;
            ai++;
        }
    }
    return min_time(t, next_saturation(eng, unsat, now));
}

/* First index of [from, n) of the aged list whose key at `now` is at most
 * `p` (the keys at now do not increase along the list). */
static size_t aged_lower(const struct gs_engine *eng, const struct qlist *l, size_t from,
                         int64_t p, gs_time now)
{
    size_t lo = from, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (aged_at(eng, l->k[mid].prio, now) > p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First index of [from, n) of the young list whose key is below `p`. */
static size_t young_below(const struct qlist *l, size_t from, int64_t p)
{
    size_t lo = from, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->k[mid].prio >= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First aged entry, in list order, not saturated at `now` (saturated keys
 * form a prefix of the list). */
static size_t first_unsat(const struct gs_engine *eng, const struct qlist *l, gs_time now)
{
    size_t lo = l->head, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (aged_saturated(eng, &l->k[mid], now))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* gs_queue_order_change_linear by groups of equal young keys: a young job
 * directly ahead of an aged one is the last live one of its group, the
 * aged one the first live aged job below that key if it sorts ahead of the
 * next live young job.  O(groups x log n).  0 (the caller walks) on an aged
 * key equal to a young one at `now` (tie-breaks interleave) or too many
 * groups; else 1 and *out. */
static int change_by_groups(const struct gs_engine *eng, gs_time now, gs_time *out)
{
    const struct gs_qstate *q = eng->q;
    const struct qlist *yl = &q->young, *al = &q->aged;
    size_t yi = yl->head, budget = 64 + (yl->n - yl->head) / 16;
    gs_time t = GS_TIME_INF;
    while (yi < yl->n) {
        if (budget-- == 0)
            return 0;
        int64_t p = yl->k[yi].prio;
        size_t ye = young_below(yl, yi, p), z = ye;
        while (z > yi && !gs_qorder_live(eng, &yl->k[z - 1], LIST_YOUNG))
            z--;
        if (z > yi) {
            size_t ai = aged_lower(eng, al, al->head, p, now);
            if (ai < al->n && aged_at(eng, al->k[ai].prio, now) == p)
                return 0;
            const struct order_key *a = peek_live(eng, al, LIST_AGED, &ai);
            if (!a)
                break; /* no aged job below this key, nor below any later one */
            size_t ni = ye;
            const struct order_key *yn = peek_live(eng, yl, LIST_YOUNG, &ni);
            int64_t ea = aged_at(eng, a->prio, now);
            if (yn && ea == yn->prio)
                return 0;
            if (!yn || ea > yn->prio)
                t = min_time(t, passes_at(eng, a, &yl->k[z - 1], now));
        }
        yi = ye;
    }
    *out = t;
    return 1;
}

gs_time gs_queue_order_change(const struct gs_engine *eng, gs_time now)
{
    const struct gs_qstate *q = eng->q;
    if (!q)
        return now;
    gs_time t;
    if (!change_by_groups(eng, now, &t))
        return gs_queue_order_change_linear(eng, now);
    if (q->nheap > 0) /* a young job's aging begins (stale entries: sooner) */
        t = min_time(t, gs_time_add(gs_time_add(q->heap[0].submit,
                                                eng->pol.max_wait_before_aging), 1));
    size_t u = first_unsat(eng, &q->aged, now);
    return min_time(t, next_saturation(eng, peek_live(eng, &q->aged, LIST_AGED, &u), now));
}

static int list_check(const struct qlist *l)
{
    for (size_t i = l->head; i < l->n; i++)
        if (l->c[i] != l->k[i].cls)
            return -1;
    return 0;
}

int gs_queue_order_check(const struct gs_engine *eng)
{
    const struct gs_qstate *q = eng->q;
    return !q || (list_check(&q->young) == 0 && list_check(&q->aged) == 0) ? 0 : -1;
}

void gs_queue_unlist(struct gs_engine *eng, int job)
{
    gs_queue_job(eng, job)->in_order = LIST_NONE;
    gs_queue_job(eng, job)->order_seq = 0;
}

/* Pass order of the pending jobs at `now`, computed afresh from the queue
 * array (read-only: the kept lists and the pass's joined/visited
 * bookkeeping are not touched, so listing never changes what a pass sees).
 * Same comparator as the pass: effective priority, then submit time (a job
 * requeued after a failed launch first), then handle. */
static int priority_list(const struct gs_engine *eng, gs_time now, int *out, size_t cap)
{
    size_t n = 0;
    struct order_key *k = gs_malloc((eng->npending + 1) * sizeof *k);
    if (!k)
        return GS_ENOMEM;
    for (size_t i = eng->phead; i < eng->ptail; i++) {
        int job = gs_eng_queued(eng, i);
        if (job < 0 || n >= eng->npending)
            continue;
        const struct job *j = &eng->jobs[job];
        k[n++] = (struct order_key){ priority_eff_prio(eng, j, now),
                                     j->front ? GS_TIME_NONE : j->submit, job, 0, j->handle, 0 };
    }
    qsort(k, n, sizeof *k, gs_qorder_cmp);
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = k[i].handle;
    gs_free(k);
    return (int)n;
}

/* Without aging the order only changes when a job arrives with a priority
 * above the head's (one with an equal priority sorts behind it: it was
 * submitted later); engine.c counts those in arrivals_ahead. */
static int priority_head_kept(const struct gs_engine *eng)
{
    return eng->pol.aging_rate <= 0 && eng->arrivals_ahead == 0;
}

/* Effective priority at `now`, then submit time, then submission order. */
static int priority_ahead(const struct gs_engine *eng, const struct job *a, const struct job *b,
                          gs_time now)
{
    int64_t pa = priority_eff_prio(eng, a, now), pb = priority_eff_prio(eng, b, now);
    if (pa != pb)
        return pa > pb;
    if (a->submit != b->submit)
        return a->submit < b->submit;
    return a->handle < b->handle;
}

const struct gs_queue_order_ops gs_queue_priority_ops = {
    .name = "priority",
    .begin = priority_begin,
    .next = priority_next,
    .end = priority_end,
    .list = priority_list,
    .eff_prio = priority_eff_prio,
    .head_kept = priority_head_kept,
    .ahead = priority_ahead,
    .skip = gs_qorder_skip,
};

int gs_engine_queue_key(const struct gs_engine *eng, int handle, struct gs_queue_key *k)
{
    if (gs_queue_order_of(eng->pol.queue_policy) != &gs_queue_priority_ops)
        return GS_ENOTSUP;
    int job = gs_eng_slot(eng, handle);
    if (job < 0 || eng->jobs[job].state != GS_JOB_PENDING)
        return GS_ENOENT;
    const struct job *j = &eng->jobs[job];
    gs_time now = eng->now == GS_TIME_NONE ? 0 : eng->now;
    k->prio = priority_eff_prio(eng, j, now); /* as priority_list keys it */
    k->submit = j->front ? GS_TIME_NONE : j->submit;
    k->handle = j->handle;
    if (eng->pol.aging_rate <= 0)
        k->until = GS_TIME_INF;
    else /* aging starts once now - submit - max_wait > 0 */
        k->until = aging(eng, j, now) ? now : gs_sat_add(j->submit, eng->pol.max_wait_before_aging);
    return 0;
}

int gs_queue_key_cmp(const struct gs_queue_key *a, const struct gs_queue_key *b)
{
    struct order_key x = { a->prio, a->submit, 0, 0, a->handle, 0 };
    struct order_key y = { b->prio, b->submit, 0, 0, b->handle, 0 };
    return gs_qorder_cmp(&x, &y);
}

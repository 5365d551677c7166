/* queue_order_skip.c - the priority order's skip hook (gs_queue_priority_ops
 * .skip, queue_private.h): the walk of a pass over the entries of the
 * classes it follows (queue_follow.c), reading their class bytes (struct
 * qlist) and, for the few it must, their keys.  The kept lists are
 * queue_order.c's.
 */
#include "core/queue/queue_private.h"
#include "core/base/satmath.h"

/* Whether young entry `y` sorts ahead of aged entry `a` (list key, keyed
 * at the pass by `shift`): gs_qorder_cmp(y, a keyed) < 0 without building the
 * keyed copy (skip_aged's inner loop). */
static int young_first(const struct order_key *y, const struct order_key *a, int64_t shift)
{
    int64_t ap = gs_sat_add(a->prio, shift);
    if (y->prio != ap)
        return y->prio > ap;
    if (y->submit != a->submit)
        return y->submit < a->submit;
    return y->handle < a->handle;
}

static int in_mask(int cls, uint64_t mask)
{
    return cls > 0 && ((mask >> (cls - 1)) & 1);
}

/* Entry `k` of `list` is walked over by a skip: recorded if its class is
 * in `rec`, its job listed for coding if in `code` and live.  0 or
 * GS_ENOMEM. */
static int note_skipped(struct gs_engine *eng, const struct order_key *k, int list, uint64_t rec,
                        uint64_t code)
{
    struct gs_qstate *q = eng->q;
    if (((rec >> (k->cls - 1)) & 1) && gs_qskip_add(q, k->job, k->seq, list, k->cls) < 0)
        return GS_ENOMEM;
    if (((code >> (k->cls - 1)) & 1) && gs_qorder_live(eng, k, list) && gs_qcode_add(q, k->job) < 0)
        return GS_ENOMEM;
    return 0;
}

/* Walk young entries of `mask` from cur->y while they sort ahead of the
 * keyed aged entry (cur->ka), noting each (note_skipped).  0 or
 * GS_ENOMEM. */
static int skip_young(struct gs_engine *eng, struct qcursor *cur, uint64_t mask, uint64_t rec,
                      uint64_t code)
{
    struct gs_qstate *q = eng->q;
    const struct qlist *y = &q->young;
    size_t i = cur->y;
    while (i < y->n && in_mask(y->c[i], mask) &&
           (cur->ka.job < 0 || gs_qorder_cmp(&y->k[i], &cur->ka) < 0)) {
        if (note_skipped(eng, &y->k[i], LIST_YOUNG, rec, code) < 0)
            return GS_ENOMEM;
        i++;
    }
    cur->y = i;
    return 0;
}

/* Point cur at aged entry `i`, keyed at the pass (no dead ones walked). */
static void key_aged(const struct gs_qstate *q, struct qcursor *cur, size_t i)
{
    cur->a = i;
    cur->ka.job = -1;
    if (i < q->aged.n) {
        cur->ka = q->aged.k[i];
        cur->ka.prio = gs_sat_add(cur->ka.prio, cur->shift); /* aged_at, hoisted */
    }
}

/* Walk aged entries of `mask` from cur->a while the young entry at cur->y
 * (if any) does not sort ahead of them, noting each (note_skipped; those
 * of no class in `rec` or `code` by their class byte alone); then key the
 * aged entry it stopped at into cur->ka.  0 or GS_ENOMEM. */
static int skip_aged(struct gs_engine *eng, struct qcursor *cur, uint64_t mask, uint64_t rec,
                     uint64_t code)
{
    struct gs_qstate *q = eng->q;
    const struct qlist *a = &q->aged;
    const struct order_key *yk = cur->y < q->young.n ? &q->young.k[cur->y] : NULL;
    size_t i = cur->a;
    uint64_t plain = mask & ~(rec | code); /* walked over reading nothing else */
    for (;;) {
        if (!yk) { /* the common run: class bytes only */
            const int8_t *c = a->c;
            while (i < a->n && in_mask(c[i], plain))
                i++;
        }
        if (i >= a->n || !in_mask(a->c[i], mask) || (yk && young_first(yk, &a->k[i], cur->shift)))
            break;
        if (note_skipped(eng, &a->k[i], LIST_AGED, rec, code) < 0)
            return GS_ENOMEM;
        i++;
    }
    if (i != cur->a)
        key_aged(q, cur, i);
    return 0;
}

/* The skip hook: the merge of priority_next over entries whose class is
 * in `mask`, reading keys only (a dead one is walked over too); those of
 * a class in `rec` are recorded in q->fskip, the live ones of a class in
 * `code` listed in q->fcode.  An entry of another class is where the skip
 * stops, unless its job left the queue: then it is walked over, as
 * priority_next would (so a dead entry does not end the run and hand the
 * pass a job of a skipped class).  Each list is walked in runs while its
 * entries come first in the merge (the aged key is built where a run
 * ends). */
int gs_qorder_skip(struct gs_engine *eng, struct qcursor *cur, uint64_t mask, uint64_t rec,
                   uint64_t code)
{
    struct gs_qstate *q = eng->q;
    const struct qlist *y = &q->young;
    for (;;) {
        int young = cur->y < y->n && (cur->ka.job < 0 || gs_qorder_cmp(&y->k[cur->y], &cur->ka) < 0);
        const struct order_key *k = young ? &y->k[cur->y] : cur->ka.job >= 0 ? &cur->ka : NULL;
        if (!k)
            return 0;
        if (!in_mask(k->cls, mask)) {
            /* the next entry to read; one that left the queue is walked
             * over here (as priority_next would) so that the run goes on */
            if (gs_qorder_live(eng, k, young ? LIST_YOUNG : LIST_AGED)) /* ka: its job, seq */
                return 0;
            cur->dead++;
            if (young)
                cur->y++;
            else
                key_aged(q, cur, cur->a + 1);
            continue;
        }
        if (!cur->fast) {
            cur->fast = 1;
            cur->fy = cur->y;
            cur->fa = cur->a;
        }
        if ((young ? skip_young(eng, cur, mask, rec, code) : skip_aged(eng, cur, mask, rec, code)) < 0)
            return GS_ENOMEM;
    }
}

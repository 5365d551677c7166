/* diagnose_follow.c - per-class wait timelines: followers.
 *
 * A pass that leaves a plain job of g GPUs untried because the pass memo
 * refuses every job of g GPUs with `resources` whatever its estimate
 * (queue.c, "followers") gives that job the code the exhaustive pass would
 * give it: the resource code of its class, the same for every such job.
 * Such a job is a follower of its class: instead of a code and an open
 * interval of its own, it reads the timeline of its class, one record per
 * change of the class's code (not one per job per pass).  The time it
 * waited under each code is the timeline's between the instant it began
 * following (ds->since) and the end of its open interval; a follower that
 * a pass tries again, or that leaves the queue, takes a code of its own
 * again (gs_diag_unfollow), with that time added to its segments.  Since
 * a job's segments are per code, splitting one interval of a code into
 * two changes no split: what a follower reads is what the exhaustive pass
 * records.
 *
 * Each record keeps the ms per code summed from the first record, so a
 * follower's split is two binary searches.  A timeline is emptied when
 * its class has no follower left.
 */
#include "core/diagnose/diagnose_private.h"
#include "core/base/alloc.h"

#include <string.h>

/* The last record at or before `x` (0 when x is before the first). */
static size_t rec_at(const struct ftl *tl, gs_time x)
{
    size_t lo = 0, hi = tl->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->t[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ms per code from the first record to `x`. */
static void tl_sum(const struct ftl *tl, gs_time x, gs_time out[GS_REASON_COUNT])
{
    memset(out, 0, GS_REASON_COUNT * sizeof *out);
    if (tl->n == 0 || x <= tl->t[0])
        return;
    size_t i = rec_at(tl, x);
    memcpy(out, tl->cum[i], GS_REASON_COUNT * sizeof *out);
    out[tl->code[i]] += x - tl->t[i];
}

static void span(const struct ftl *tl, gs_time from, gs_time to, gs_time out[GS_REASON_COUNT])
{
    gs_time a[GS_REASON_COUNT], b[GS_REASON_COUNT];
    if (to < from)
        to = from;
    tl_sum(tl, from, a);
    tl_sum(tl, to, b);
    for (int c = 0; c < GS_REASON_COUNT; c++)
        out[c] = b[c] - a[c];
}

void gs_diag_follow_split(const struct gs_diag_state *ds, int job, gs_time end,
                          gs_time out[GS_REASON_COUNT])
{
    gs_time d[GS_REASON_COUNT];
    span(&ds->tl[ds->fcls[job]], ds->since[job], end, d);
    for (int c = 0; c < GS_REASON_COUNT; c++)
        out[c] += d[c];
}

int gs_diag_follow_code(const struct gs_diag_state *ds, int job)
{
    const struct ftl *tl = &ds->tl[ds->fcls[job]];
    return tl->n ? tl->code[tl->n - 1] : GS_REASON_PRIORITY;
}

void gs_diag_unfollow(struct gs_diag_state *ds, int job, gs_time end)
{
    int g = ds->fcls[job];
    struct ftl *tl = &ds->tl[g];
    gs_time d[GS_REASON_COUNT];
    if (end < ds->since[job])
        end = ds->since[job];
    span(tl, ds->since[job], end, d);
    for (int c = 1; c < GS_REASON_COUNT; c++)
        gs_diag_add_wait(ds, job, c, d[c]);
    ds->code[job] = (int8_t)(tl->n ? tl->code[rec_at(tl, end)] : GS_REASON_PRIORITY);
    ds->since[job] = end;
    ds->fcls[job] = 0;
    if (--tl->followers == 0)
        tl->n = tl->cap_walk = 0; /* no reader left */
}

void gs_diag_follow(struct gs_diag_state *ds, int job, int g, int code, gs_time begin,
                    gs_time now)
{
    int8_t cur = ds->code[job];
    if (cur > 0)
        gs_diag_add_wait(ds, job, cur, now - ds->since[job]);
    else
        gs_diag_add_wait(ds, job, code, now - begin);
    ds->code[job] = DIAG_FOLLOW;
    ds->fcls[job] = (uint8_t)g;
    ds->since[job] = now;
    ds->tl[g].followers++;
}

int gs_diag_tl_note(struct gs_diag_state *ds, int g, int code, gs_time now)
{
    struct ftl *tl = &ds->tl[g];
    if (tl->n && tl->code[tl->n - 1] == code)
        return 0;
    if (tl->n && tl->t[tl->n - 1] == now) { /* the same instant: replace */
        tl->code[tl->n - 1] = (int8_t)code;
        return 0;
    }
    if (tl->n == tl->cap) {
        size_t cap = tl->cap ? 2 * tl->cap : 16;
        gs_time *t = gs_realloc(tl->t, cap * sizeof *t);
        if (!t)
            return GS_ENOMEM;
        tl->t = t;
        int8_t *c = gs_realloc(tl->code, cap * sizeof *c);
        if (!c)
            return GS_ENOMEM;
        tl->code = c;
        gs_time(*cum)[GS_REASON_COUNT] = gs_realloc(tl->cum, cap * sizeof *cum);
        if (!cum)
            return GS_ENOMEM;
        tl->cum = cum;
        tl->cap = cap;
    }
    size_t i = tl->n;
    tl_sum(tl, now, tl->cum[i]); /* over records 0..i-1 (zero for the first) */
    tl->t[i] = now;
    tl->code[i] = (int8_t)code;
    tl->n++;
    return 0;
}

void gs_diag_follow_free(struct gs_diag_state *ds)
{
    gs_free(ds->fcls);
    gs_free(ds->indiv);
    for (int g = 0; g <= DIAG_CLASSES; g++) {
        gs_free(ds->tl[g].t);
        gs_free(ds->tl[g].code);
        gs_free(ds->tl[g].cum);
    }
}

/* timers.c - the engine thread's timer heap (see timers.h). */
#include "daemon/timers.h"

#include <stdlib.h>

void gsd_timers_init(struct gsd_timers *ts)
{
    *ts = (struct gsd_timers){ 0 };
}

void gsd_timers_fini(struct gsd_timers *ts)
{
    for (size_t i = 0; i < ts->n; i++)
        ts->h[i]->pos = 0;
    free(ts->h);
    *ts = (struct gsd_timers){ 0 };
}

int gsd_timer_armed(const struct gsd_timer *t)
{
    return t->pos != 0;
}

static int before(const struct gsd_timer *a, const struct gsd_timer *b)
{
    return a->at < b->at || (a->at == b->at && a->order < b->order);
}

static void place(struct gsd_timers *ts, size_t i, struct gsd_timer *t)
{
    ts->h[i] = t;
    t->pos = i + 1;
}

/* Move the timer at index i up while it is before its parent. */
static void sift_up(struct gsd_timers *ts, size_t i)
{
    struct gsd_timer *t = ts->h[i];
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!before(t, ts->h[up]))
            break;
        place(ts, i, ts->h[up]);
        i = up;
    }
    place(ts, i, t);
}

/* Move the timer at index i down while a child is before it. */
static void sift_down(struct gsd_timers *ts, size_t i)
{
    struct gsd_timer *t = ts->h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= ts->n)
            break;
        if (c + 1 < ts->n && before(ts->h[c + 1], ts->h[c]))
            c++;
        if (!before(ts->h[c], t))
            break;
        place(ts, i, ts->h[c]);
        i = c;
    }
    place(ts, i, t);
}

/* Take the timer at index i out of the heap. */
static void remove_at(struct gsd_timers *ts, size_t i)
{
    struct gsd_timer *t = ts->h[i];
    t->pos = 0;
    struct gsd_timer *last = ts->h[--ts->n];
    if (i == ts->n)
        return;
    place(ts, i, last);
    if (i > 0 && before(last, ts->h[(i - 1) / 2]))
        sift_up(ts, i);
    else
        sift_down(ts, i);
}

int gsd_timer_add(struct gsd_timers *ts, struct gsd_timer *t, int64_t at)
{
    if (t->pos) {
        remove_at(ts, t->pos - 1);
    } else if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 64;
        struct gsd_timer **h = realloc(ts->h, cap * sizeof(struct gsd_timer *));
        if (!h)
            return -1;
        ts->h = h;
        ts->cap = cap;
    }
    t->at = at;
    t->order = ts->next_order++;
    ts->h[ts->n] = t;
    t->pos = ++ts->n;
    sift_up(ts, ts->n - 1);
    return 0;
}

void gsd_timer_cancel(struct gsd_timers *ts, struct gsd_timer *t)
{
    if (t->pos)
        remove_at(ts, t->pos - 1);
}

int64_t gsd_timer_next(const struct gsd_timers *ts)
{
    return ts->n ? ts->h[0]->at : -1;
}

struct gsd_timer *gsd_timer_pop_due(struct gsd_timers *ts, int64_t now)
{
    if (!ts->n || ts->h[0]->at > now)
        return NULL;
    struct gsd_timer *t = ts->h[0];
    remove_at(ts, 0);
    return t;
}

/* eta_due.c - the promises' bounds still to pass, by bound (eta_due.h). */
#include "sim/eta_due.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

static int ent_less(const struct gs_eta_due_ent *a, const struct gs_eta_due_ent *b)
{
    return a->bound != b->bound ? a->bound < b->bound : a->job < b->job;
}

int gs_eta_due_push(struct gs_eta_due *d, gs_time bound, int job)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 256;
        struct gs_eta_due_ent *h = gs_realloc(d->h, cap * sizeof *h);
        if (!h)
            return GS_ENOMEM;
        d->h = h;
        d->cap = cap;
    }
    size_t i = d->n++;
    d->h[i] = (struct gs_eta_due_ent){ bound, job };
    while (i > 0 && ent_less(&d->h[i], &d->h[(i - 1) / 2])) {
        struct gs_eta_due_ent t = d->h[i];
        d->h[i] = d->h[(i - 1) / 2];
        d->h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static void pop(struct gs_eta_due *d)
{
    d->h[0] = d->h[--d->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < d->n && ent_less(&d->h[l], &d->h[m]))
            m = l;
        if (r < d->n && ent_less(&d->h[r], &d->h[m]))
            m = r;
        if (m == i)
            return;
        struct gs_eta_due_ent t = d->h[i];
        d->h[i] = d->h[m];
        d->h[m] = t;
        i = m;
    }
}

void gs_eta_due_pass(struct gs_eta_due *d, gs_time now, struct gs_eta_cal *c,
                     struct gs_eta_rec *recs)
{
    while (d->n > 0 && d->h[0].bound < now) {
        int job = d->h[0].job;
        pop(d);
        gs_eta_cal_miss(c, &recs[job]);
    }
}

void gs_eta_due_free(struct gs_eta_due *d)
{
    gs_free(d->h);
    d->h = NULL;
    d->n = d->cap = 0;
}

/* eta.c - start-time promises at submit, their online calibration and
 * their accuracy (eta.h). */
#include "core/diagnose/eta.h"
#include "core/base/alloc.h"
#include "core/base/error.h"
#include "core/engine/engine.h"

#include <stdlib.h>
#include <string.h>

static void win_push(struct gs_eta_win *w, gs_time v)
{
    w->v[w->next] = v;
    w->next = (w->next + 1) % GS_ETA_WINDOW;
    if (w->n < GS_ETA_WINDOW)
        w->n++;
    w->dirty = 1;
}

/* k-th smallest (0-based) of a[0..n) by quickselect; reorders a. */
static gs_time select_kth(gs_time *a, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        gs_time pivot = a[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                gs_time t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

/* Nearest-rank quantile q (0 < q <= 1) of the window, cached until the
 * next push. */
static gs_time win_quantile(struct gs_eta_win *w, double q)
{
    if (!w->dirty)
        return w->cached;
    gs_time tmp[GS_ETA_WINDOW];
    memcpy(tmp, w->v, (size_t)w->n * sizeof *tmp);
    int k = (int)(q * w->n + 0.999999) - 1;
    k = k < 0 ? 0 : k >= w->n ? w->n - 1 : k;
    w->cached = select_kth(tmp, w->n, k);
    w->dirty = 0;
    return w->cached;
}

void gs_eta_cal_init(struct gs_eta_cal *c)
{
    memset(c, 0, sizeof *c);
}

gs_time gs_eta_cal_bound(struct gs_eta_cal *c, int cls, int basis, gs_time est)
{
    if (est == GS_TIME_NONE || cls < 0 || cls >= GS_SIZE_CLASSES || basis < 0 ||
        basis >= GS_ETA_BASES)
        return GS_TIME_NONE;
    struct gs_eta_win *w = &c->err[cls][basis];
    if (w->n < GS_ETA_MIN_SAMPLES)
        w = &c->err_class[cls];
    if (w->n < GS_ETA_MIN_SAMPLES)
        return GS_TIME_NONE;
    gs_time q = win_quantile(w, 0.9);
    return q > 0 ? gs_time_add(est, q) : est;
}

int gs_eta_promise(struct gs_engine *eng, int job, struct gs_eta_cal *c,
                   struct gs_eta_rec *out)
{
    struct gs_job_info ji;
    int rc = gs_engine_job_info(eng, job, &ji);
    if (rc < 0)
        return rc;
    memset(out, 0, sizeof *out);
    out->submit = ji.submit;
    out->size_class = gs_job_size_class(ji.gpus);
    out->est = gs_engine_now(eng);
    out->basis = GS_BASIS_NOW;
    if (ji.state == GS_JOB_PENDING) {
        struct gs_diag d;
        rc = gs_engine_explain(eng, job, &d);
        if (rc == GS_ENOMEM)
            return rc;
        if (rc == 0) {
            out->est = d.est_start;
            out->basis = d.est_basis;
        }
    }
    out->p90 = gs_eta_cal_bound(c, out->size_class, out->basis, out->est);
    struct gs_eta_win *w = &c->wait[out->size_class];
    out->naive_median = w->n ? gs_time_add(ji.submit, win_quantile(w, 0.5)) : ji.submit;
    out->recorded = 1;
    return 0;
}

void gs_eta_cal_observe(struct gs_eta_cal *c, struct gs_eta_rec *r, gs_time start)
{
    if (!r->recorded || r->observed || start == GS_TIME_NONE)
        return;
    r->observed = 1;
    win_push(&c->wait[r->size_class], start - r->submit);
    if (r->est == GS_TIME_NONE)
        return;
    win_push(&c->err[r->size_class][r->basis], start - r->est);
    win_push(&c->err_class[r->size_class], start - r->est);
}

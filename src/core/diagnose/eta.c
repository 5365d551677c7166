/* eta.c - start-time promises at submit, their online calibration and
 * their accuracy (eta.h). */
#include "core/diagnose/eta.h"
#include "core/base/alloc.h"
#include "core/base/error.h"
#include "core/engine/engine.h"

#include <stdlib.h>
#include <string.h>

/* First index of sorted[0..n) whose value is >= v. */
static int lower_bound(const gs_time *a, int n, gs_time v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void win_push(struct gs_eta_win *w, gs_time v)
{
    gs_time *a = w->sorted;
    w->shorth_ok = 0;
    if (w->pushed < GS_ETA_WINDOW)
        w->pushed++;
    if (w->n == GS_ETA_WINDOW && w->v[w->next] == v) { /* the same value leaves */
        w->next = (w->next + 1) % GS_ETA_WINDOW;
        return;
    }
    int j = lower_bound(a, w->n, v);
    if (w->n < GS_ETA_WINDOW) {
        memmove(a + j + 1, a + j, (size_t)(w->n - j) * sizeof *a);
        a[j] = v;
        w->n++;
    } else { /* the oldest value leaves: one move between its place i and v's */
        int i = lower_bound(a, w->n, w->v[w->next]);
        if (j > i) {
            memmove(a + i, a + i + 1, (size_t)(j - 1 - i) * sizeof *a);
            a[j - 1] = v;
        } else {
            memmove(a + j + 1, a + j, (size_t)(i - j) * sizeof *a);
            a[j] = v;
        }
    }
    w->v[w->next] = v;
    w->next = (w->next + 1) % GS_ETA_WINDOW;
}

/* Nearest-rank quantile q (0 < q <= 1) of the window (n > 0). */
static gs_time win_quantile(const struct gs_eta_win *w, double q)
{
    int k = (int)(q * w->n + 0.999999) - 1;
    k = k < 0 ? 0 : k >= w->n ? w->n - 1 : k;
    return w->sorted[k];
}

/* The middle of the shortest interval of sorted values that holds half of
 * the window (n > 0; ties: the lowest): the constant with the smallest
 * median |error| over the window. */
static gs_time win_shorth(struct gs_eta_win *w)
{
    if (w->shorth_ok) /* kept until the next push: a publish promises many jobs */
        return w->shorth;
    int h = (w->n + 1) / 2 - 1, best = 0;
    for (int i = 1; i + h < w->n; i++)
        if (w->sorted[i + h] - w->sorted[i] < w->sorted[best + h] - w->sorted[best])
            best = i;
    w->shorth = w->sorted[best] + (w->sorted[best + h] - w->sorted[best]) / 2;
    w->shorth_ok = 1;
    return w->shorth;
}

static void key_init(struct gs_eta_key *k)
{
    memset(k, 0, sizeof *k);
    k->level = 0.9;
}

void gs_eta_cal_init(struct gs_eta_cal *c)
{
    memset(c, 0, sizeof *c);
    for (int cl = 0; cl < GS_SIZE_CLASSES; cl++) {
        key_init(&c->cls[cl]);
        for (int b = 0; b < GS_ETA_BASES; b++) {
            key_init(&c->key[cl][b]);
            for (int q = 0; q < GS_ETA_BUCKETS; q++)
                key_init(&c->ahead[cl][b][q]);
        }
    }
}

/* The key a job's calibration reads: its class, basis and bucket, else
 * its class and basis, else its class, when the window `which` (0 =
 * shift, 1.. = abserr[which - 1]) has enough values; NULL otherwise. */
static struct gs_eta_key *key_for(struct gs_eta_cal *c, const struct gs_eta_rec *r, int which)
{
    struct gs_eta_key *k[3] = { &c->ahead[r->size_class][r->basis][r->bucket],
                                &c->key[r->size_class][r->basis], &c->cls[r->size_class] };
    for (int i = 0; i < 3; i++) {
        const struct gs_eta_win *w = which ? &k[i]->abserr[which - 1] : &k[i]->shift;
        if (w->n >= GS_ETA_MIN_SAMPLES)
            return k[i];
    }
    return NULL;
}

/* Bucket of `gpus` queued ahead: 0, then 1 + floor(log2), capped. */
static int bucket_of(int64_t gpus)
{
    int b = 0;
    while (gpus > 0 && b < GS_ETA_BUCKETS - 1) {
        b++;
        gpus >>= 1;
    }
    return b;
}

/* submit + max(0, (h + H) x ratio - H) rounded to the ms, ratio in
 * millionths. */
static gs_time scaled(gs_time submit, gs_time est, gs_time ratio_ppm)
{
    double h = (double)(est - submit) + GS_ETA_HORIZON_MS;
    double t = h * ((double)ratio_ppm / 1e6) - GS_ETA_HORIZON_MS;
    if (t < 0)
        t = 0;
    if (t > 1e15) /* the end of representable time is far beyond */
        t = 1e15;
    return gs_time_add(submit, (gs_time)(t + 0.5));
}

/* How many of the last `last` values pushed into `w` are at or below t. */
static int win_recent_le(const struct gs_eta_win *w, gs_time t, int last)
{
    int k = w->n < last ? w->n : last, in = 0;
    for (int i = 1; i <= k; i++)
        in += w->v[(w->next - i + GS_ETA_WINDOW) % GS_ETA_WINDOW] <= t;
    return in;
}

/* The candidate the point takes, from the key's past |errors|: the one
 * whose last GS_ETA_RECENT errors most often came within the threshold T
 * (the median error of the last points given to waiting jobs, c->err),
 * ties to the smaller median over the window; without T, the smallest
 * median; scale (2) without enough jobs. */
static int choose(struct gs_eta_cal *c, const struct gs_eta_rec *r)
{
    struct gs_eta_key *s = key_for(c, r, 1);
    int best = 2;
    if (!s)
        return best;
    int thr = c->err.n >= GS_ETA_MIN_SAMPLES;
    gs_time t = thr ? win_quantile(&c->err, 0.5) : 0;
    int in_best = thr ? win_recent_le(&s->abserr[best], t, GS_ETA_RECENT) : 0;
    for (int m = 0; m < GS_ETA_CANDIDATES; m++) {
        int in = thr ? win_recent_le(&s->abserr[m], t, GS_ETA_RECENT) : 0;
        if (in > in_best || (in == in_best && win_quantile(&s->abserr[m], 0.5) <
                                                  win_quantile(&s->abserr[best], 0.5))) {
            best = m;
            in_best = in;
        }
    }
    return best;
}

/* The point of a waiting job's promise: the per-key choice `point`, or a
 * naive predictor (the class median, else now) when it brought more than
 * GS_ETA_SWITCH_MARGIN more of the last GS_ETA_SWITCH waiting jobs within
 * T (the median of c->err) than the per-key choice did.  Reads 3 x
 * GS_ETA_SWITCH values. */
static gs_time naive_switch(const struct gs_eta_cal *c, const struct gs_eta_rec *r,
                            gs_time point)
{
    if (r->basis == GS_BASIS_NOW || r->naive_median == GS_TIME_NONE ||
        c->err.n < GS_ETA_MIN_SAMPLES || c->kerr.n < GS_ETA_MIN_SAMPLES)
        return point;
    gs_time t = win_quantile(&c->err, 0.5);
    int k = win_recent_le(&c->kerr, t, GS_ETA_SWITCH);
    int n = win_recent_le(&c->nerr, t, GS_ETA_SWITCH);
    int w = win_recent_le(&c->werr, t, GS_ETA_SWITCH);
    if (n > k + GS_ETA_SWITCH_MARGIN && n >= w)
        return r->naive_median;
    if (w > k + GS_ETA_SWITCH_MARGIN && w > n)
        return r->submit;
    return point;
}

void gs_eta_cal_apply(struct gs_eta_cal *c, struct gs_eta_rec *r)
{
    r->cal = r->est;
    r->p90 = r->p90_base = GS_TIME_NONE;
    r->chosen = -1;
    for (int m = 0; m < GS_ETA_CANDIDATES; m++)
        r->cand[m] = GS_TIME_NONE;
    struct gs_eta_key *k = r->est == GS_TIME_NONE ? NULL : key_for(c, r, 0);
    if (!k)
        return;
    r->cand[0] = r->est;
    r->cand[1] = gs_time_add(r->est, win_quantile(&k->shift, 0.5));
    r->cand[1] = r->cand[1] < r->submit ? r->submit : r->cand[1];
    r->cand[2] = scaled(r->submit, r->est, win_quantile(&k->ratio, 0.5));
    r->cand[3] = gs_time_add(r->submit, win_shorth(&k->wait));
    r->cand[4] = r->submit;
    r->cand[5] = gs_time_add(r->est, win_shorth(&k->shift));
    r->cand[5] = r->cand[5] < r->submit ? r->submit : r->cand[5];
    r->chosen = choose(c, r);
    r->cal = naive_switch(c, r, r->cand[r->chosen]);
    r->p90 = scaled(r->submit, r->est, win_quantile(&k->ratio, k->level));
    r->p90_base = r->p90;
    struct gs_eta_key *chain[3] = { &c->ahead[r->size_class][r->basis][r->bucket],
                                    &c->key[r->size_class][r->basis], &c->cls[r->size_class] };
    gs_time f = 0;
    for (int i = 0; i < 3; i++) { /* the widest factor of the job's keys */
        const struct gs_eta_key *x = chain[i];
        if (x->over.n < GS_ETA_MIN_SAMPLES)
            continue;
        gs_time fi = win_quantile(&x->over, x->level > GS_ETA_OVER_Q ? x->level : GS_ETA_OVER_Q);
        f = fi > f ? fi : f;
    }
    if (f > 1000000)
        r->p90 = scaled(r->submit, r->p90, f);
    if (k->level > 1) /* misses beyond the window's largest ratio: extrapolate */
        r->p90 = scaled(r->submit, r->p90,
                        (gs_time)((1 + GS_ETA_EXTRA * (k->level - 1)) * 1e6 + 0.5));
    r->p90 = r->p90 < r->cal ? r->cal : r->p90;
}

void gs_eta_promise_of(struct gs_eta_cal *c, gs_time submit, int gpus, gs_time now,
                       const struct gs_diag *d, struct gs_eta_rec *out)
{
    memset(out, 0, sizeof *out);
    out->submit = submit;
    out->size_class = gs_job_size_class(gpus);
    out->est = now;
    out->basis = GS_BASIS_NOW;
    if (d) {
        out->est = d->est_start;
        out->basis = d->est_basis;
        out->bucket = bucket_of(d->ahead_gpus);
    }
    struct gs_eta_win *w = &c->wait[out->size_class];
    out->naive_median = w->n ? gs_time_add(submit, win_quantile(w, 0.5)) : submit;
    gs_eta_cal_apply(c, out);
    out->recorded = 1;
}

int gs_eta_promise(struct gs_engine *eng, int job, struct gs_eta_cal *c,
                   struct gs_eta_rec *out)
{
    struct gs_job_info ji;
    int rc = gs_engine_job_info(eng, job, &ji);
    if (rc < 0)
        return rc;
    struct gs_diag d;
    int have = 0;
    if (ji.state == GS_JOB_PENDING) {
        rc = gs_engine_explain(eng, job, &d);
        if (rc == GS_ENOMEM)
            return rc;
        have = rc == 0;
    }
    gs_eta_promise_of(c, ji.submit, ji.gpus, gs_engine_now(eng), have ? &d : NULL, out);
    return 0;
}

static gs_time absdiff(gs_time a, gs_time b)
{
    return a > b ? a - b : b - a;
}

/* Move key k's level after a start at, or by, its bound (miss = 1: after). */
static void level_step(struct gs_eta_key *k, int miss)
{
    k->level += miss ? GS_ETA_GAMMA * 0.9 : -GS_ETA_GAMMA * 0.1;
    k->level = k->level < 0.5 ? 0.5 : k->level > GS_ETA_LEVEL_MAX ? GS_ETA_LEVEL_MAX : k->level;
}

static void key_observe(struct gs_eta_key *k, const struct gs_eta_rec *r, gs_time start)
{
    if (r->p90 != GS_TIME_NONE && !r->missed) /* adapt the level to the coverage reached */
        level_step(k, start > r->p90);
    if (r->p90 != GS_TIME_NONE)
        win_push(&k->over, (gs_time)(((double)(start - r->submit) + GS_ETA_HORIZON_MS) /
                                         ((double)(r->p90_base - r->submit) + GS_ETA_HORIZON_MS) * 1e6 + 0.5));
    win_push(&k->shift, start - r->est);
    win_push(&k->wait, start - r->submit);
    double ratio = ((double)(start - r->submit) + GS_ETA_HORIZON_MS) /
                   ((double)(r->est - r->submit) + GS_ETA_HORIZON_MS);
    win_push(&k->ratio, (gs_time)(ratio * 1e6 + 0.5));
    for (int m = 0; r->cand[0] != GS_TIME_NONE && m < GS_ETA_CANDIDATES; m++)
        win_push(&k->abserr[m], absdiff(start, r->cand[m]));
}

void gs_eta_cal_observe(struct gs_eta_cal *c, struct gs_eta_rec *r, gs_time start)
{
    if (!r->recorded || r->observed || start == GS_TIME_NONE)
        return;
    r->observed = 1;
    win_push(&c->wait[r->size_class], start - r->submit);
    if (r->est == GS_TIME_NONE)
        return;
    key_observe(&c->ahead[r->size_class][r->basis][r->bucket], r, start);
    key_observe(&c->key[r->size_class][r->basis], r, start);
    key_observe(&c->cls[r->size_class], r, start);
    if (r->basis == GS_BASIS_NOW || r->cal == GS_TIME_NONE)
        return;
    win_push(&c->err, absdiff(start, r->cal));
    if (r->naive_median == GS_TIME_NONE) /* a promise journalled without it */
        return;
    gs_time k = r->chosen >= 0 && r->cand[r->chosen] != GS_TIME_NONE ? r->cand[r->chosen]
                                                                     : r->cal;
    win_push(&c->kerr, absdiff(start, k));
    win_push(&c->nerr, absdiff(start, r->naive_median));
    win_push(&c->werr, absdiff(start, r->submit));
}

void gs_eta_cal_miss(struct gs_eta_cal *c, struct gs_eta_rec *r)
{
    if (!r->recorded || r->observed || r->missed || r->p90 == GS_TIME_NONE ||
        r->est == GS_TIME_NONE)
        return;
    r->missed = 1;
    level_step(&c->ahead[r->size_class][r->basis][r->bucket], 1);
    level_step(&c->key[r->size_class][r->basis], 1);
    level_step(&c->cls[r->size_class], 1);
}

#define KEYS_AHEAD (GS_SIZE_CLASSES * GS_ETA_BASES * GS_ETA_BUCKETS)
#define KEYS_KEY (KEYS_AHEAD + GS_SIZE_CLASSES * GS_ETA_BASES)
#define KEYS_CLS (KEYS_KEY + GS_SIZE_CLASSES)

int gs_eta_cal_keys_of(const struct gs_eta_rec *r, int keys[GS_ETA_OBS_KEYS])
{
    int cl = r->size_class, b = r->basis;
    keys[0] = KEYS_CLS + cl;
    if (r->est == GS_TIME_NONE)
        return 1;
    keys[1] = (cl * GS_ETA_BASES + b) * GS_ETA_BUCKETS + r->bucket;
    keys[2] = KEYS_AHEAD + cl * GS_ETA_BASES + b;
    keys[3] = KEYS_KEY + cl;
    if (b == GS_BASIS_NOW || r->cal == GS_TIME_NONE)
        return 4;
    keys[4] = GS_ETA_KEY_ERR;
    return 5;
}

/* Key `key`, or NULL for a class wait key or one out of range. */
static struct gs_eta_key *key_at(struct gs_eta_cal *c, int key)
{
    if (key < 0 || key >= KEYS_CLS)
        return NULL;
    if (key < KEYS_AHEAD)
        return &c->ahead[key / (GS_ETA_BASES * GS_ETA_BUCKETS)]
                        [key / GS_ETA_BUCKETS % GS_ETA_BASES][key % GS_ETA_BUCKETS];
    if (key < KEYS_KEY)
        return &c->key[(key - KEYS_AHEAD) / GS_ETA_BASES][(key - KEYS_AHEAD) % GS_ETA_BASES];
    return &c->cls[key - KEYS_KEY];
}

struct gs_eta_win *gs_eta_cal_win(struct gs_eta_cal *c, int key, int w)
{
    if (key == GS_ETA_KEY_ERR) {
        struct gs_eta_win *e[4] = { &c->err, &c->kerr, &c->nerr, &c->werr };
        return w >= 0 && w < 4 ? e[w] : NULL;
    }
    if (key >= KEYS_CLS && key < GS_ETA_NKEYS)
        return w == 0 ? &c->wait[key - KEYS_CLS] : NULL;
    struct gs_eta_key *k = key_at(c, key);
    if (!k || w < 0 || w >= GS_ETA_KEY_WINS)
        return NULL;
    if (w < 2)
        return w ? &k->ratio : &k->shift;
    if (w < 2 + GS_ETA_CANDIDATES)
        return &k->abserr[w - 2];
    return w == 2 + GS_ETA_CANDIDATES ? &k->over : &k->wait;
}

double *gs_eta_cal_level(struct gs_eta_cal *c, int key)
{
    struct gs_eta_key *k = key_at(c, key);
    return k ? &k->level : NULL;
}

static int cmp_time(const void *a, const void *b)
{
    gs_time x = *(const gs_time *)a, y = *(const gs_time *)b;
    return x < y ? -1 : x > y;
}

int gs_eta_win_set(struct gs_eta_win *w, const gs_time *v, int n, int next)
{
    if (n < 0 || n > GS_ETA_WINDOW || next < 0 || next >= GS_ETA_WINDOW ||
        (n < GS_ETA_WINDOW && next != n)) {
        memset(w, 0, sizeof *w);
        return GS_EINVAL;
    }
    if (v != w->v)
        memcpy(w->v, v, (size_t)n * sizeof *v);
    memcpy(w->sorted, w->v, (size_t)n * sizeof *v);
    qsort(w->sorted, (size_t)n, sizeof *v, cmp_time);
    w->n = n;
    w->next = next;
    w->pushed = w->shorth_ok = 0;
    return 0;
}

/* loop_eta.c - the daemon's start-time promises (docs/eta.md, section 6):
 * the promise made right after the pass that saw a job's submission
 * (journalled once, eta_* columns), the promise now of a queued job (at
 * every render of its object), the online calibration fed by each first
 * start, and the live calibration /metrics exports: the promises at
 * submit of the last GSD_ETA_WINDOW jobs that started, against their
 * actual first starts.  Engine thread only.
 */
#include "daemon/loop_eta.h"
#include "daemon/loop_private.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One started job's promise at submit against its first start. */
struct eta_seen {
    gs_time abserr;           /* |first start - calibrated point|, ms */
    int bound;                /* -1 no P90 bound, 0 started after it, 1 by it */
};

struct gsd_eta {
    struct gs_eta_cal cal;
    struct djob **fresh;      /* submitted this turn, promise not made yet */
    size_t nfresh, capfresh;
    struct eta_seen win[GSD_ETA_WINDOW];
    int nwin, next;
    int64_t promises, unknown, compared;
    int64_t missed;           /* censored misses told to the calibration */
    int unsaved;              /* entries added to the window since gsd_eta_save */
    int dirty;                /* counters changed since gsd_eta_save */
    unsigned char key_dirty[GS_ETA_NKEYS]; /* calibration keys changed since then */
    int cal_dirty;            /* some key_dirty is set */
    int cal_counts[GS_ETA_NKEYS * GS_ETA_KEY_WINS]; /* gsd_eta_load: slots read per window */
};

int gsd_eta_open(struct gsd_loop *lp)
{
    lp->eta = calloc(1, sizeof *lp->eta);
    if (!lp->eta)
        return -1;
    gs_eta_cal_init(&lp->eta->cal);
    return 0;
}

void gsd_eta_close(struct gsd_loop *lp)
{
    if (!lp->eta)
        return;
    free(lp->eta->fresh);
    free(lp->eta);
    lp->eta = NULL;
}

int gsd_eta_submitted(struct gsd_loop *lp, struct djob *d)
{
    struct gsd_eta *e = lp->eta;
    if (gsd_grow((void **)&e->fresh, &e->capfresh, e->nfresh + 1, sizeof(struct djob *)) < 0)
        return -1;
    e->fresh[e->nfresh++] = d;
    return 0;
}

/* The journal's name of a promise's basis; NULL = no promise. */
static const char *basis_of(const struct gs_eta_rec *r)
{
    return r->recorded ? gs_est_basis_name(r->basis) : NULL;
}

/* What the calibration needs of promise `r` when its job starts, beyond
 * the row's other eta_* columns: "p90_base bucket chosen cand... naive"
 * ("-" = none; naive: the naive class median, left out when unknown),
 * then " m" once its bound passed before the start and the calibration
 * was told (a censored miss: told once, across restarts), into buf. */
static void aux_of(const struct gs_eta_rec *r, char *buf, size_t n)
{
    gs_time t[3 + GS_ETA_CANDIDATES] = { r->p90_base, r->bucket, r->chosen };
    for (int m = 0; m < GS_ETA_CANDIDATES; m++)
        t[3 + m] = r->cand[m];
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < 3 + GS_ETA_CANDIDATES && len < n; i++) {
        const char *sep = i ? " " : "";
        if ((i == 0 || i > 2) && t[i] == GS_TIME_NONE)
            len += (size_t)snprintf(buf + len, n - len, "%s-", sep);
        else
            len += (size_t)snprintf(buf + len, n - len, "%s%lld", sep, (long long)t[i]);
    }
    if (r->naive_median != GS_TIME_NONE && len < n)
        len += (size_t)snprintf(buf + len, n - len, " %lld", (long long)r->naive_median);
    if (r->missed && len < n)
        snprintf(buf + len, n - len, " m");
}

/* Parse aux_of's text into r (p90_base, bucket, chosen, cand,
 * naive_median: GS_TIME_NONE when the text has none, as an older daemon
 * wrote it; missed).  0, or -1 when it is not that text (r unchanged). */
static int aux_parse(const char *s, struct gs_eta_rec *r)
{
    gs_time t[3 + GS_ETA_CANDIDATES];
    for (int i = 0; i < 3 + GS_ETA_CANDIDATES; i++) {
        while (*s == ' ')
            s++;
        char *end = NULL;
        if (*s == '-' && (s[1] == ' ' || !s[1])) {
            t[i] = GS_TIME_NONE;
            end = (char *)s + 1;
        } else {
            t[i] = strtoll(s, &end, 10);
            if (end == s)
                return -1;
        }
        s = end;
    }
    gs_time naive = GS_TIME_NONE;
    const char *p = s;
    while (*p == ' ')
        p++;
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        char *end = NULL;
        naive = strtoll(p, &end, 10);
        if (end == p)
            return -1;
        s = end;
    }
    int missed = !strcmp(s, " m");
    if (missed)
        s += 2;
    if (*s || t[1] < 0 || t[1] >= GS_ETA_BUCKETS || t[2] < -1 || t[2] >= GS_ETA_CANDIDATES)
        return -1;
    r->p90_base = t[0];
    r->bucket = (int)t[1];
    r->chosen = (int)t[2];
    for (int m = 0; m < GS_ETA_CANDIDATES; m++)
        r->cand[m] = t[3 + m];
    r->naive_median = naive;
    r->missed = missed;
    return 0;
}

/* Journal d's promise (its eta_* columns and eta_aux) in the turn's
 * transaction.  0, or -1 with err. */
static int write_promise(struct gsd_loop *lp, const struct djob *d, struct gs_error *err)
{
    char aux[32 * (4 + GS_ETA_CANDIDATES) + 4];
    aux_of(&d->eta, aux, sizeof aux);
    return gs_store_job_set_eta(lp->st, d->seq, d->eta.est, d->eta.cal, d->eta.p90,
                                basis_of(&d->eta), aux, err);
}

/* Whether d's promise can still become a censored miss: calibrated (its
 * aux known), with a bound, not told yet and its job not started (nor its
 * start decided). */
static int miss_open(const struct djob *d)
{
    const struct gs_eta_rec *r = &d->eta;
    return r->recorded && !r->observed && !r->missed && !d->eta_restored &&
           r->p90 != GS_TIME_NONE && r->est != GS_TIME_NONE && d->state != D_DONE &&
           d->ji.first_start == GS_TIME_NONE;
}

void gsd_eta_arm(struct gsd_loop *lp, struct djob *d)
{
    if (!miss_open(d))
        return;
    gs_time now = gsd_now(lp); /* due once the engine's clock is past the bound */
    double ms = ceil((double)(d->eta.p90 + 1 - now) / lp->sh.opts.clock_scale);
    int64_t mono = gsd_mono_ms();
    if (gsd_timer_add(&lp->timers, &d->eta_tm, mono + (ms > 0 ? (int64_t)ms : 0)) < 0)
        gsd_eta_due(lp, d); /* no memory for the timer: checked at the next turn */
}

void gsd_eta_due(struct gsd_loop *lp, struct djob *d)
{
    d->eta_due = 1;
    gsd_jl_add(lp, GSD_JL_ETA, d);
}

/* A job flagged by its bound's timer: when its bound has passed at the
 * turn's `now` and it has not started, the calibration is told the miss
 * (its three keys' levels rise, journalled with the keys) and the promise's
 * aux says so; a bound not yet passed (the clocks' rounding) is armed
 * again.  0, or -1 with err. */
static int miss_check(struct gsd_loop *lp, struct djob *d, gs_time now, struct gs_error *err)
{
    struct gsd_eta *e = lp->eta;
    d->eta_due = 0;
    if (!miss_open(d))
        return 0;
    if (now <= d->eta.p90) {
        gsd_eta_arm(lp, d);
        return 0;
    }
    int keys[GS_ETA_OBS_KEYS], n = gs_eta_cal_keys_of(&d->eta, keys);
    gs_eta_cal_miss(&e->cal, &d->eta);
    for (int i = 1; i < n && i < 4; i++) /* keys 1-3: the levels a miss moves */
        e->key_dirty[keys[i]] = 1;
    e->cal_dirty = 1;
    e->missed++;
    e->dirty = 1;
    return write_promise(lp, d, err);
}

/* The censored-miss checks of the jobs whose bound's timer fired. */
static int misses_turn(struct gsd_loop *lp, struct gs_error *err)
{
    size_t n;
    struct djob **v = gsd_jl_take(lp, GSD_JL_ETA, &n);
    gs_time now = gs_engine_now(lp->eng);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v[i]->eta_due)
            continue;
        if (rc == 0)
            rc = miss_check(lp, v[i], now, err);
        else
            gsd_jl_add(lp, GSD_JL_ETA, v[i]); /* a write failed: still flagged, kept */
    }
    free(v);
    return rc;
}

int gsd_eta_turn(struct gsd_loop *lp, struct gs_error *err)
{
    struct gsd_eta *e = lp->eta;
    if (misses_turn(lp, err) < 0) /* before this turn's promises, as the simulator */
        return -1;
    for (size_t i = 0; i < e->nfresh; i++) {
        struct djob *d = e->fresh[i];
        if (d->handle < 0 || d->state == D_DONE ||
            gs_eta_promise(lp->eng, d->handle, &e->cal, &d->eta) < 0)
            continue; /* out of memory: this job has no promise */
        e->promises++;
        e->unknown += d->eta.est == GS_TIME_NONE;
        e->dirty = 1;
        if (write_promise(lp, d, err) < 0)
            return -1;
        gsd_job_dirty(lp, d);
        gsd_eta_arm(lp, d);
    }
    e->nfresh = 0;
    return 0;
}

void gsd_eta_sync(struct gsd_loop *lp, struct djob *d)
{
    struct gs_eta_rec *r = &d->eta;
    gs_time s = d->ji.first_start;
    if (!r->recorded || r->observed || s == GS_TIME_NONE || d->ji.state == GS_JOB_STARTING)
        return;
    struct gsd_eta *e = lp->eta;
    if (!d->eta_restored) { /* restored without its aux (older journal): window only */
        int keys[GS_ETA_OBS_KEYS], n = gs_eta_cal_keys_of(r, keys);
        gs_eta_cal_observe(&e->cal, r, s);
        for (int i = 0; i < n; i++)
            e->key_dirty[keys[i]] = 1;
        e->cal_dirty = 1;
    }
    r->observed = 1;
    gsd_timer_cancel(&lp->timers, &d->eta_tm);
    if (r->cal == GS_TIME_NONE)
        return;
    e->compared++;
    e->win[e->next] = (struct eta_seen){ s > r->cal ? s - r->cal : r->cal - s,
                                         r->p90 == GS_TIME_NONE ? -1 : s <= r->p90 };
    e->next = (e->next + 1) % GSD_ETA_WINDOW;
    if (e->nwin < GSD_ETA_WINDOW)
        e->nwin++;
    e->dirty = 1;
    if (e->unsaved < GSD_ETA_WINDOW)
        e->unsaved++;
}

/* The meta keys of the counters and the window's cursor, and their values. */
#define ETA_COUNTERS 5
static void counter_keys(struct gsd_eta *e, const char **name, int64_t **v)
{
    static const char *const names[] = { "eta_promises", "eta_unknown", "eta_compared",
                                          "eta_missed", "eta_next" };
    int64_t *vals[] = { &e->promises, &e->unknown, &e->compared, &e->missed, NULL };
    for (int i = 0; i < ETA_COUNTERS; i++) {
        name[i] = names[i];
        v[i] = vals[i];
    }
}

/* Journal key `key` of the calibration: the ring slots its windows were
 * pushed into since the last save, its level and its windows' cursors
 * ("n:next" each). */
static int save_key(struct gsd_eta *e, struct gs_store *st, int key, struct gs_error *err)
{
    char cur[GS_ETA_KEY_WINS * 24];
    size_t len = 0;
    cur[0] = '\0';
    for (int w = 0; w < GS_ETA_KEY_WINS; w++) {
        struct gs_eta_win *x = gs_eta_cal_win(&e->cal, key, w);
        if (!x)
            break;
        for (int k = x->pushed < x->n ? x->pushed : x->n; k > 0; k--) {
            int slot = (x->next - k + GS_ETA_WINDOW) % GS_ETA_WINDOW;
            if (gs_store_eta_cal_slot_set(st, key * GS_ETA_KEY_WINS + w, slot, x->v[slot],
                                          err) < 0)
                return -1;
        }
        x->pushed = 0;
        len += (size_t)snprintf(cur + len, sizeof cur - len, "%s%d:%d", w ? " " : "", x->n,
                                x->next);
    }
    const double *lv = gs_eta_cal_level(&e->cal, key);
    return gs_store_eta_cal_key_set(st, key, lv ? *lv : 0, cur, err);
}

/* The calibration keys changed since the last save. */
static int save_cal(struct gsd_eta *e, struct gs_store *st, struct gs_error *err)
{
    for (int key = 0; e->cal_dirty && key < GS_ETA_NKEYS; key++)
        if (e->key_dirty[key]) {
            if (save_key(e, st, key, err) < 0)
                return -1;
            e->key_dirty[key] = 0;
        }
    e->cal_dirty = 0;
    return 0;
}

int gsd_eta_save(struct gsd_loop *lp, struct gs_error *err)
{
    struct gsd_eta *e = lp->eta;
    if (save_cal(e, lp->st, err) < 0)
        return -1;
    if (!e->dirty)
        return 0;
    for (int k = e->unsaved; k > 0; k--) { /* the slots written since the last save */
        int slot = (e->next - k + GSD_ETA_WINDOW) % GSD_ETA_WINDOW;
        if (gs_store_eta_slot_set(lp->st, slot, e->win[slot].abserr, e->win[slot].bound,
                                  err) < 0)
            return -1;
    }
    const char *name[ETA_COUNTERS];
    int64_t *v[ETA_COUNTERS];
    counter_keys(e, name, v);
    for (int i = 0; i < ETA_COUNTERS; i++)
        if (gs_store_meta_set(lp->st, name[i], v[i] ? *v[i] : e->next, err) < 0)
            return -1;
    e->unsaved = e->dirty = 0;
    return 0;
}

static void on_slot(void *arg, int slot, gs_time abserr, int bound)
{
    struct gsd_eta *e = arg;
    if (slot < 0 || slot >= GSD_ETA_WINDOW)
        return; /* not a slot of this daemon's window: ignored */
    e->win[slot] = (struct eta_seen){ abserr, bound < 0 ? -1 : bound > 0 };
    e->nwin++;
}

/* One "n:next" pair of a cursors text at *p into n, next; advances *p.
 * 0, or -1 when there is none. */
static int cursor_pair(const char **p, int *n, int *next)
{
    char *end;
    long a = strtol(*p, &end, 10);
    if (end == *p || *end != ':')
        return -1;
    const char *q = end + 1;
    long b = strtol(q, &end, 10);
    if (end == q || a < INT_MIN || a > INT_MAX || b < INT_MIN || b > INT_MAX)
        return -1;
    *n = (int)a;
    *next = (int)b;
    *p = end;
    return 0;
}

static void on_cal_key(void *arg, int key, double level, const char *cursors)
{
    struct gsd_eta *e = arg;
    double *lv = gs_eta_cal_level(&e->cal, key);
    if (lv)
        *lv = level;
    const char *p = cursors ? cursors : "";
    for (int w = 0; w < GS_ETA_KEY_WINS; w++) {
        struct gs_eta_win *x = gs_eta_cal_win(&e->cal, key, w);
        int n, next;
        if (!x || cursor_pair(&p, &n, &next) < 0)
            break;
        x->n = n; /* checked by gs_eta_win_set in load_cal */
        x->next = next;
    }
}

static void on_cal_slot(void *arg, int win, int slot, gs_time v)
{
    struct gsd_eta *e = arg;
    struct gs_eta_win *x = win < 0 ? NULL
                                   : gs_eta_cal_win(&e->cal, win / GS_ETA_KEY_WINS,
                                                    win % GS_ETA_KEY_WINS);
    if (!x || slot < 0 || slot >= GS_ETA_WINDOW)
        return;
    x->v[slot] = v;
    e->cal_counts[win]++;
}

/* The calibration of new promises from the journal; all of it or, when
 * any window is not whole, none (logged). */
static void load_cal(struct gsd_loop *lp)
{
    struct gsd_eta *e = lp->eta;
    gs_eta_cal_init(&e->cal);
    memset(e->key_dirty, 0, sizeof e->key_dirty);
    memset(e->cal_counts, 0, sizeof e->cal_counts);
    e->cal_dirty = 0;
    int bad = gs_store_eta_cal_load(lp->st, on_cal_key, on_cal_slot, e) < 0;
    for (int key = 0; !bad && key < GS_ETA_NKEYS; key++)
        for (int w = 0; w < GS_ETA_KEY_WINS; w++) {
            struct gs_eta_win *x = gs_eta_cal_win(&e->cal, key, w);
            if (x && (gs_eta_win_set(x, x->v, x->n, x->next) < 0 ||
                      e->cal_counts[key * GS_ETA_KEY_WINS + w] != x->n))
                bad = 1;
        }
    if (bad) {
        gsd_log("journal: the ETA calibration (tables eta_cal_key, eta_cal_slot) is"
                " unreadable or not whole: new promises start uncalibrated");
        gs_eta_cal_init(&e->cal);
    }
}

void gsd_eta_load(struct gsd_loop *lp)
{
    struct gsd_eta *e = lp->eta;
    load_cal(lp);
    const char *name[ETA_COUNTERS];
    int64_t *v[ETA_COUNTERS], next = 0;
    counter_keys(e, name, v);
    for (int i = 0; i < ETA_COUNTERS; i++) {
        int64_t x = 0;
        if (gs_store_meta_get(lp->st, name[i], &x) != 0)
            x = 0;
        *(v[i] ? v[i] : &next) = x;
    }
    e->nwin = 0;
    if (gs_store_eta_window(lp->st, on_slot, e) < 0) {
        gsd_log("journal: the ETA calibration window is unreadable: it starts empty");
        e->nwin = 0;
    }
    /* a window not yet full fills slots 0 .. nwin - 1 in order */
    e->next = e->nwin < GSD_ETA_WINDOW ? e->nwin
                                       : (int)(next >= 0 ? next % GSD_ETA_WINDOW : 0);
    e->unsaved = e->dirty = 0;
}

void gsd_eta_now(struct gsd_loop *lp, const struct djob *d, const struct gs_diag *dg,
                 struct gs_eta_rec *out)
{
    gs_eta_promise_of(&lp->eta->cal, d->submit, d->gpus, gsd_now(lp), dg, out);
}

void gsd_eta_api(const struct gs_eta_rec *r, struct gs_api_eta *out)
{
    *out = (struct gs_api_eta){ .start = r->cal, .p90 = r->p90, .engine = r->est,
                                .basis = basis_of(r) };
}

void gsd_eta_api_row(const struct gs_store_job *row, struct gs_api_eta *out)
{
    *out = (struct gs_api_eta){ .start = row->eta_cal, .p90 = row->eta_p90,
                                .engine = row->eta_est, .basis = row->eta_basis };
}

void gsd_eta_row(const struct djob *d, struct gs_store_job *row)
{
    const struct gs_eta_rec *r = &d->eta;
    row->eta_est = r->recorded ? r->est : GS_TIME_NONE;
    row->eta_cal = r->recorded ? r->cal : GS_TIME_NONE;
    row->eta_p90 = r->recorded ? r->p90 : GS_TIME_NONE;
    row->eta_basis = basis_of(r);
}

void gsd_eta_restore(struct djob *d, const struct gs_store_job *row)
{
    memset(&d->eta, 0, sizeof d->eta);
    if (!row->eta_basis)
        return;
    int b = 0;
    while (b < GS_ETA_BASES && strcmp(gs_est_basis_name(b), row->eta_basis) != 0)
        b++;
    /* a first start decided but not confirmed (starting, first run) was not
       compared yet: it is once confirmed (gsd_eta_sync) */
    int unconfirmed = row->state && !strcmp(row->state, "starting") && row->runs <= 1;
    d->eta = (struct gs_eta_rec){ .submit = row->submit, .est = row->eta_est,
                                  .cal = row->eta_cal, .p90 = row->eta_p90,
                                  .basis = b < GS_ETA_BASES ? b : GS_BASIS_UNKNOWN,
                                  .size_class = gs_job_size_class(row->gpus), .chosen = -1,
                                  .recorded = 1,
                                  .observed = row->first_start != GS_TIME_NONE && !unconfirmed };
    /* with its aux, its start feeds the calibration as without the restart */
    d->eta_restored = !row->eta_aux || aux_parse(row->eta_aux, &d->eta) < 0;
}

static int cmp_time(const void *a, const void *b)
{
    gs_time x = *(const gs_time *)a, y = *(const gs_time *)b;
    return x < y ? -1 : x > y;
}

void gsd_eta_calibration(const struct gsd_loop *lp, struct gsd_eta_cal_now *out)
{
    const struct gsd_eta *e = lp->eta;
    gs_time v[GSD_ETA_WINDOW];
    *out = (struct gsd_eta_cal_now){ .promises = e->promises, .unknown = e->unknown,
                                     .compared = e->compared, .missed = e->missed,
                                     .window = e->nwin,
                                     .median_abs_s = -1, .p90_coverage = -1 };
    int64_t bound = 0, covered = 0;
    for (int i = 0; i < e->nwin; i++) {
        v[i] = e->win[i].abserr;
        bound += e->win[i].bound >= 0;
        covered += e->win[i].bound == 1;
    }
    out->with_bound = bound;
    for (size_t i = 0; i < lp->nlive; i++) {
        const struct djob *d = lp->live[i];
        out->past_bound += d->eta.missed && !d->eta.observed && d->state != D_DONE;
    }
    if (bound)
        out->p90_coverage = (double)covered / (double)bound;
    if (!e->nwin)
        return;
    qsort(v, (size_t)e->nwin, sizeof *v, cmp_time);
    int mid = e->nwin / 2; /* an even count's median: the mean of the two middle values */
    double m = e->nwin % 2 ? (double)v[mid] : ((double)v[mid - 1] + (double)v[mid]) / 2;
    out->median_abs_s = m / 1000.0;
}

/* "# HELP" and "# TYPE" of one family. */

void gsd_eta_metrics(FILE *f, const struct gsd_loop *lp)
{
    struct gsd_eta_cal_now c;
    gsd_eta_calibration(lp, &c);
    gsd_metrics_head(f, "gpusched_eta_promises_total", "counter",
         "Start-time promises made at submit (kept in the journal).");
    fprintf(f, "gpusched_eta_promises_total %lld\n", (long long)c.promises);
    gsd_metrics_head(f, "gpusched_eta_unknown_total", "counter",
         "Promises without an estimate (basis unknown).");
    fprintf(f, "gpusched_eta_unknown_total %lld\n", (long long)c.unknown);
    gsd_metrics_head(f, "gpusched_eta_compared_total", "counter",
         "Jobs with a promised start that started (kept in the journal).");
    fprintf(f, "gpusched_eta_compared_total %lld\n", (long long)c.compared);
    gsd_metrics_head(f, "gpusched_eta_missed_total", "counter",
         "Promises whose P90 bound passed before their job started (censored misses,"
         " told to the calibration once; kept in the journal).");
    fprintf(f, "gpusched_eta_missed_total %lld\n", (long long)c.missed);
    gsd_metrics_head(f, "gpusched_eta_waiting_past_bound_jobs", "gauge",
         "Queued jobs still waiting past their P90 bound.");
    fprintf(f, "gpusched_eta_waiting_past_bound_jobs %lld\n", (long long)c.past_bound);
    gsd_metrics_head(f, "gpusched_eta_window_jobs", "gauge",
         "Started jobs in the calibration window (the last 512 compared).");
    fprintf(f, "gpusched_eta_window_jobs %d\n", c.window);
    gsd_metrics_head(f, "gpusched_eta_median_abs_error_seconds", "gauge",
         "Median |first start - promised start| over the window (NaN when empty).");
    if (c.median_abs_s < 0)
        fprintf(f, "gpusched_eta_median_abs_error_seconds NaN\n");
    else
        fprintf(f, "gpusched_eta_median_abs_error_seconds %.3f\n", c.median_abs_s);
    gsd_metrics_head(f, "gpusched_eta_window_bound_jobs", "gauge",
         "Jobs of the window whose promise had a P90 bound.");
    fprintf(f, "gpusched_eta_window_bound_jobs %lld\n", (long long)c.with_bound);
    gsd_metrics_head(f, "gpusched_eta_p90_coverage_ratio", "gauge",
         "Share of those that started by their P90 bound (target 0.9; NaN when none).");
    if (c.p90_coverage < 0)
        fprintf(f, "gpusched_eta_p90_coverage_ratio NaN\n");
    else
        fprintf(f, "gpusched_eta_p90_coverage_ratio %.6f\n", c.p90_coverage);
}

/* The promise keys of one dashboard queue item (`it`, job `d`): the promise
 * now ("estimate", with "start_in" and "p90_in" in seconds from `now`, null
 * when unknown) and the one at submit. */
static void decorate_item(struct gsd_loop *lp, json_t *it, const struct djob *d, gs_time now)
{
    struct gs_diag dg;
    struct gs_eta_rec r;
    struct gs_api_eta a, at;
    if (d->state != D_PENDING || d->handle < 0 || gs_engine_explain(lp->eng, d->handle, &dg) < 0)
        return;
    gsd_eta_now(lp, d, &dg, &r);
    gsd_eta_api(&r, &a);
    gsd_eta_api(&d->eta, &at);
    json_t *e = gs_api_eta_json(&a);
    if (e) {
        json_object_set_new(e, "start_in", r.cal == GS_TIME_NONE ? json_null()
                                              : json_real(gs_time_to_sec(r.cal - now)));
        json_object_set_new(e, "p90_in", r.p90 == GS_TIME_NONE ? json_null()
                                            : json_real(gs_time_to_sec(r.p90 - now)));
        json_object_set_new(it, "estimate", e);
    }
    json_object_set_new(it, "estimate_at_submit", gs_api_eta_json(at.basis ? &at : NULL));
}

void gsd_eta_dash(struct gsd_loop *lp, json_t *doc)
{
    json_t *items = json_object_get(json_object_get(doc, "queue"), "items"), *it;
    size_t i;
    gs_time now = gs_engine_now(lp->eng);
    json_array_foreach(items, i, it) {
        const struct djob *d = gsd_job_by_id(lp, json_string_value(json_object_get(it, "id")));
        if (d)
            decorate_item(lp, it, d, now);
    }
}

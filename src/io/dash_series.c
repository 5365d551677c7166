/* dash_series.c - the dashboard's history and its charts (dash_series.h). */
#include "io/dash_series.h"
#include "io/html_svg.h"
#include "io/dash.h"
#include "core/base/alloc.h"
#include "core/place/frag.h"
#include "core/metrics/metrics.h"
#include "core/base/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct wait_rec {
    gs_time start, wait;
    int cls, gpus;
};

struct gs_dash_series {
    struct gs_dash_sample s[GS_DASH_SAMPLES];
    int head, n;                     /* oldest at head, n kept */
    struct wait_rec w[GS_DASH_WAITS];
    int whead, wn;
    int64_t wtotal;                  /* waits ever added */
    int k;
};

struct gs_dash_series *gs_dash_series_create(void)
{
    return gs_calloc(1, sizeof(struct gs_dash_series));
}

void gs_dash_series_destroy(struct gs_dash_series *s)
{
    gs_free(s);
}

static const struct gs_dash_sample *at(const struct gs_dash_series *s, int i)
{
    return &s->s[(s->head + i) % GS_DASH_SAMPLES];
}

int gs_dash_series_due(const struct gs_dash_series *s, gs_time now, int interval_s)
{
    return s->n == 0 || now - at(s, s->n - 1)->t >= (gs_time)interval_s * GS_MS_PER_SEC;
}

void gs_dash_series_add(struct gs_dash_series *s, gs_time t, double util, int64_t sched,
                        int64_t frag_count, int64_t frag_topology, double frag_memory,
                        int pending, int k)
{
    if (s->n > 0 && t <= at(s, s->n - 1)->t)
        return;
    struct gs_dash_sample v = { t, util, frag_memory, sched, frag_count, frag_topology, pending, k };
    if (s->n < GS_DASH_SAMPLES) {
        s->s[(s->head + s->n++) % GS_DASH_SAMPLES] = v;
    } else {
        s->s[s->head] = v;
        s->head = (s->head + 1) % GS_DASH_SAMPLES;
    }
    s->k = k;
}

void gs_dash_series_add_wait(struct gs_dash_series *s, gs_time start, gs_time wait, int gpus)
{
    struct wait_rec r = { start, wait, gs_job_size_class(gpus), gpus };
    s->wtotal++;
    if (s->wn < GS_DASH_WAITS) {
        s->w[(s->whead + s->wn++) % GS_DASH_WAITS] = r;
    } else {
        s->w[s->whead] = r;
        s->whead = (s->whead + 1) % GS_DASH_WAITS;
    }
}

int gs_dash_series_sample(struct gs_dash_series *s, const struct gs_engine *eng, gs_time now)
{
    return gs_dash_series_sample_k(s, eng, now, 0);
}

int gs_dash_series_sample_k(struct gs_dash_series *s, const struct gs_engine *eng, gs_time now,
                            int k)
{
    if (s->n > 0 && now <= at(s, s->n - 1)->t)
        return s->n;
    gs_time since = s->n > 0 ? at(s, s->n - 1)->t : GS_TIME_NONE;
    for (int slot = 0; slot < gs_engine_slot_count(eng); slot++) { /* jobs held, not handles */
        struct gs_job_info ji;
        int j = gs_engine_slot_handle(eng, slot);
        if (j >= 0 && gs_engine_job_info(eng, j, &ji) == 0 && ji.first_start != GS_TIME_NONE &&
            ji.first_start > since && ji.first_start <= now)
            gs_dash_series_add_wait(s, ji.first_start, ji.first_start - ji.submit, ji.gpus);
    }
    const struct gs_cluster *cl = gs_engine_cluster(eng);
    struct gs_cluster_stats st = gs_cluster_stats(cl);
    struct gs_dash_kstats ks;
    gs_dash_kstats(cl, k > 0 ? k : st.k, &ks);
    double util = st.gpus ? (double)st.used_milli / GS_MILLI_GPU / (double)st.gpus : 0;
    gs_dash_series_add(s, now, util, ks.sched, ks.frag_count, ks.frag_topology,
                       gs_frag_memory(cl, NULL), gs_engine_pending_count(eng), ks.k);
    return s->n;
}

int gs_dash_series_count(const struct gs_dash_series *s)
{
    return s->n;
}

const struct gs_dash_sample *gs_dash_series_at(const struct gs_dash_series *s, int i)
{
    return i >= 0 && i < s->n ? at(s, i) : NULL;
}

int64_t gs_dash_series_waits_total(const struct gs_dash_series *s)
{
    return s->wtotal;
}

int gs_dash_series_wait_newest(const struct gs_dash_series *s, int i, gs_time *start,
                               gs_time *wait, int *gpus)
{
    if (i < 0 || i >= s->wn)
        return GS_ENOENT;
    const struct wait_rec *r = &s->w[(s->whead + s->wn - 1 - i) % GS_DASH_WAITS];
    *start = r->start;
    *wait = r->wait;
    *gpus = r->gpus;
    return 0;
}

json_t *gs_dash_series_info(const struct gs_dash_series *s)
{
    if (s->n == 0)
        return json_pack("{s:i, s:n, s:n}", "samples", 0, "from", "to");
    return json_pack("{s:i, s:f, s:f, s:i}", "samples", s->n, "from",
                     gs_time_to_sec(at(s, 0)->t), "to", gs_time_to_sec(at(s, s->n - 1)->t),
                     "k", at(s, s->n - 1)->k);
}

/* ---- charts ------------------------------------------------------------------ */

#define CW 560
#define CH 220

/* x of sample i in the chosen unit (hours or minutes before the last sample). */
struct axis {
    double unit_ms;
    const char *label;
    double lo;
};

static struct axis time_axis(const struct gs_dash_series *s)
{
    double span = (double)(at(s, s->n - 1)->t - at(s, 0)->t);
    struct axis a = { 60000.0, "minutes before now", 0 };
    if (span > 3 * 3600e3) {
        a.unit_ms = 3600e3;
        a.label = "hours before now";
    }
    a.lo = -span / a.unit_ms;
    return a;
}

static double xval(const struct gs_dash_series *s, const struct axis *a, int i)
{
    return (double)(at(s, i)->t - at(s, s->n - 1)->t) / a->unit_ms;
}

/* A chart on its own memstream: open, axes; the caller draws, close_chart ends. */
static FILE *open_chart(char **buf, size_t *len, const char *id, const char *label,
                        struct svg_plot *p, const struct axis *a, double yhi, const char *ylabel,
                        svg_tick_fn yt)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        return NULL;
    svg_open(f, id, CW, CH, label);
    *p = (struct svg_plot){ f, 56, 26, CW - 72, CH - 70, a->lo, 0, 0, yhi, 0 };
    svg_axes(p, a->label, ylabel, svg_tick_num, yt);
    return f;
}

/* `buf` is read after fclose: open_memstream sets it at flush and close. */
static json_t *close_chart(FILE *f, char **buf)
{
    svg_close(f);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    json_t *o = bad || !*buf ? NULL : json_string(*buf);
    free(*buf); /* open_memstream's buffer comes from malloc */
    return o;
}

static json_t *util_chart(const struct gs_dash_series *s, const struct axis *a, double *xs,
                          double *ys)
{
    char *buf = NULL;
    size_t len = 0;
    struct svg_plot p;
    FILE *f = open_chart(&buf, &len, "chart-dash-util", "util_alloc over time", &p, a, 1,
                         "share of GPUs", svg_tick_pct);
    if (!f)
        return NULL;
    for (int i = 0; i < s->n; i++) {
        xs[i] = xval(s, a, i);
        ys[i] = at(s, i)->util;
    }
    svg_line(&p, xs, ys, s->n, "#1f77b4", 1.6, 1, "util_alloc");
    char l[48];
    snprintf(l, sizeof l, "util_alloc (now %.1f%%)", 100 * at(s, s->n - 1)->util);
    const char *labels[] = { l }, *colors[] = { "#1f77b4" };
    svg_legend(f, 64, 16, labels, colors, 1);
    return close_chart(f, &buf);
}

/* Shade each run of samples with S_k >= 1 up to the next sample. */
static int sk_windows(const struct gs_dash_series *s, const struct svg_plot *p,
                      const struct axis *a)
{
    int nwin = 0;
    for (int i = 0; i < s->n; i++) {
        if (at(s, i)->sched < 1)
            continue;
        int e = i;
        while (e + 1 < s->n && at(s, e + 1)->sched >= 1)
            e++;
        double x0 = svg_x(p, xval(s, a, i)), x1 = svg_x(p, xval(s, a, e + 1 < s->n ? e + 1 : e));
        fprintf(p->f, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\" fill=\"#c7e9c0\"/>\n",
                x0, p->y0, x1 - x0 > 1 ? x1 - x0 : 1, p->h);
        nwin++;
        i = e;
    }
    return nwin;
}

static json_t *sk_chart(const struct gs_dash_series *s, const struct axis *a, double *xs,
                        double *ys)
{
    double ymax = 1;
    for (int i = 0; i < s->n; i++) {
        xs[i] = xval(s, a, i);
        ys[i] = (double)at(s, i)->sched;
        ymax = ys[i] > ymax ? ys[i] : ymax;
    }
    char *buf = NULL, l1[48], l2[64];
    size_t len = 0;
    struct svg_plot p;
    FILE *f = open_chart(&buf, &len, "chart-dash-sk", "schedulability S_k over time", &p, a,
                         ceil(ymax * 1.1), "k-GPU jobs placeable", svg_tick_num);
    if (!f)
        return NULL;
    int nwin = sk_windows(s, &p, a);
    svg_line(&p, xs, ys, s->n, "#333", 1.4, 1, "S_k");
    int k0 = at(s, 0)->k, k1 = at(s, s->n - 1)->k, same = 1;
    for (int i = 0; i < s->n; i++)
        same &= at(s, i)->k == k1;
    if (same)
        snprintf(l1, sizeof l1, "S_%d (now %lld)", k1, (long long)at(s, s->n - 1)->sched);
    else /* k follows the largest waiting job */
        snprintf(l1, sizeof l1, "S_k, k %d..%d (now S_%d = %lld)", k0 < k1 ? k0 : k1,
                 k0 < k1 ? k1 : k0, k1, (long long)at(s, s->n - 1)->sched);
    snprintf(l2, sizeof l2, "S_k >= 1 (%d window%s)", nwin, nwin == 1 ? "" : "s");
    const char *labels[] = { l1, l2 }, *colors[] = { "#333", "#c7e9c0" };
    svg_legend(f, 64, 16, labels, colors, 2);
    return close_chart(f, &buf);
}

static json_t *frag_chart(const struct gs_dash_series *s, const struct axis *a, double *xs,
                          double *ys)
{
    double ymax = 1;
    for (int i = 0; i < s->n; i++) {
        const struct gs_dash_sample *v = at(s, i);
        double m = fmax(fmax((double)v->frag_count, (double)v->frag_topology), v->frag_memory);
        ymax = m > ymax ? m : ymax;
    }
    char *buf = NULL;
    size_t len = 0;
    struct svg_plot p;
    FILE *f = open_chart(&buf, &len, "chart-dash-frag", "fragmentation by form over time", &p,
                         a, ceil(ymax * 1.1), "free GPUs unusable", svg_tick_num);
    if (!f)
        return NULL;
    static const char *const names[] = { "count", "topology", "memory" };
    static const char *const colors[] = { "#ff7f0e", "#bcbd22", "#8c564b" };
    for (int form = 0; form < 3; form++) {
        for (int i = 0; i < s->n; i++) {
            const struct gs_dash_sample *v = at(s, i);
            xs[i] = xval(s, a, i);
            ys[i] = form == 0 ? (double)v->frag_count
                    : form == 1 ? (double)v->frag_topology : v->frag_memory;
        }
        svg_line(&p, xs, ys, s->n, colors[form], form == 2 ? -1.4 : 1.4, 1, names[form]);
    }
    svg_legend(f, 64, 16, names, colors, 3);
    return close_chart(f, &buf);
}

/* p50 / p90 / p99 of the waits of jobs that started inside the window,
 * per size class, as an HTML table. */
static json_t *waits_table(const struct gs_dash_series *s)
{
    gs_time t0 = at(s, 0)->t;
    double *v = gs_malloc((size_t)(s->wn ? s->wn : 1) * sizeof *v);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = v ? open_memstream(&buf, &len) : NULL;
    if (!f) {
        gs_free(v);
        return NULL;
    }
    fputs("<table id=\"dash-waits\"><thead><tr><th>job size</th><th class=\"n\">started</th>"
          "<th class=\"n\">wait p50</th><th class=\"n\">p90</th><th class=\"n\">p99</th>"
          "<th class=\"n\">max</th></tr></thead><tbody>", f);
    for (int c = 0; c <= GS_SIZE_CLASSES; c++) {
        size_t n = 0;
        for (int i = 0; i < s->wn; i++) {
            const struct wait_rec *r = &s->w[(s->whead + i) % GS_DASH_WAITS];
            if (r->start >= t0 && (c == GS_SIZE_CLASSES || r->cls == c))
                v[n++] = gs_time_to_sec(r->wait);
        }
        struct gs_pctl p;
        gs_pctl_compute(&p, v, n);
        char a[16], b[16], d[16], m[16];
        svg_tick_dur(a, sizeof a, p.p50);
        svg_tick_dur(b, sizeof b, p.p90);
        svg_tick_dur(d, sizeof d, p.p99);
        svg_tick_dur(m, sizeof m, p.max);
        const char *cname = c < GS_SIZE_CLASSES ? gs_size_class_name(c) : "all";
        fputs("<tr data-class=\"", f);
        html_text(f, cname);
        fputs("\"><td>", f);
        html_text(f, cname);
        fprintf(f, "%s</td><td class=\"n\">%zu</td>",
                c == GS_SIZE_CLASSES ? " jobs" : c == 0 ? " GPU" : " GPUs", n);
        if (n)
            fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                       "<td class=\"n\">%s</td></tr>", a, b, d, m);
        else
            fputs("<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>"
                  "<td class=\"n\">-</td></tr>", f);
    }
    fputs("</tbody></table>", f);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    gs_free(v);
    json_t *o = bad || !buf ? NULL : json_string(buf);
    free(buf);
    return o;
}

json_t *gs_dash_series_charts(const struct gs_dash_series *s)
{
    json_t *o = json_object();
    if (!o || s->n < 2)
        return o;
    double *xs = gs_malloc(GS_DASH_SAMPLES * sizeof *xs), *ys = gs_malloc(GS_DASH_SAMPLES * sizeof *ys);
    struct axis a = time_axis(s);
    if (!xs || !ys ||
        json_object_set_new(o, "util", util_chart(s, &a, xs, ys)) < 0 ||
        json_object_set_new(o, "sk", sk_chart(s, &a, xs, ys)) < 0 ||
        json_object_set_new(o, "frag", frag_chart(s, &a, xs, ys)) < 0 ||
        json_object_set_new(o, "waits", waits_table(s)) < 0) {
        json_decref(o);
        o = NULL;
    }
    gs_free(xs);
    gs_free(ys);
    return o;
}

/* html_report.c - the HTML report's page and per-run charts
 * (html_report.h).  Comparison and what-if sections: html_compare.c. */
#include "report/html_report.h"
#include "report/html_private.h"
#include "report/report.h"
#include "io/report_diag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const gs_html_class_colors[GS_SIZE_CLASSES] = { "#9ecae1", "#4292c6", "#08519c",
                                                            "#e6550d" };
const char *const gs_html_reason_colors[GS_REASON_COUNT] = {
    "#cccccc", "#d62728", "#ff7f0e", "#bcbd22", "#8c564b",
    "#9467bd", "#1f77b4", "#17becf", "#7f7f7f",
};
const char *const gs_html_run_colors[8] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                            "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };

void gs_html_begin(FILE *f, const char *title, const char *subtitle)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
    html_text(f, title);
    fputs("</title>\n<style>\n"
          "body{font-family:sans-serif;margin:24px auto;max-width:980px;color:#222}\n"
          "h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #ccc}\n"
          "p.cap{color:#555;font-size:13px;max-width:900px}\n"
          "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
          "padding:3px 6px;text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}\n"
          ".fired{color:#fff;background:#d62728;padding:1px 5px;border-radius:3px}\n"
          ".okay{color:#fff;background:#2ca02c;padding:1px 5px;border-radius:3px}\n"
          "#verdict{background:#fff8e1;border-left:4px solid #f0b400;padding:8px 12px}\n"
          "p.empty{color:#a00;font-style:italic}#meta th,#meta td{text-align:left}\n"
          "</style></head>\n<body>\n<h1>", f);
    html_text(f, title);
    fputs("</h1>\n<p class=\"cap\">", f);
    html_text(f, subtitle);
    fputs("</p>\n", f);
}

void gs_html_meta(FILE *f, const char *cluster, const char *trace,
                  const char *const *policies, int npol, const struct gs_policy *pol)
{
    fputs("<table id=\"meta\"><tr><th>cluster</th><td>", f);
    html_text(f, cluster ? cluster : "-");
    fputs("</td></tr><tr><th>trace</th><td>", f);
    html_text(f, trace ? trace : "-");
    fputs("</td></tr><tr><th>policy</th><td>", f);
    for (int i = 0; i < npol; i++) {
        fputs(i ? ", " : "", f);
        html_text(f, policies[i] ? policies[i] : "defaults");
    }
    if (pol)
        fprintf(f, " (%s: queue %s, placement %s, backfill %s, estimate %s)",
                npol > 1 ? "the first" : "that is", gs_policy_queue_name(pol->queue_policy),
                gs_policy_strategy_name(pol->strategy),
                gs_policy_backfill_name(gs_policy_backfill_mode(pol)),
                gs_policy_estimate_name(pol->estimate));
    fputs("</td></tr></table>\n", f);
}

int gs_html_end(FILE *f)
{
    fputs("<script>document.body.setAttribute('data-charts',"
          "String(document.querySelectorAll('svg.chart').length));"
          "document.body.setAttribute('data-ready','1');</script>\n</body></html>\n", f);
    return ferror(f) ? GS_EIO : 0;
}

void gs_html_section(FILE *f, const char *title, const char *caption)
{
    fputs("<section><h2>", f);
    html_text(f, title);
    fputs("</h2>\n<p class=\"cap\">", f);
    html_text(f, caption);
    fputs("</p>\n", f);
}

/* ---- time axis ---------------------------------------------------------------- */

/* Bucket i's midpoint in hours since the start of the timeline. */
static double bucket_h(const struct gs_timeline *tl, int i)
{
    return ((double)i + 0.5) * (double)tl->width / 3.6e6;
}

static double span_h(const struct gs_timeline *tl)
{
    return (double)(tl->end - tl->t0) / 3.6e6;
}

/* util_effective per bucket: each completed job's useful GPU-ms (work x
 * share) spread evenly over [first start, end]. */
static void effective_series(const struct gs_timeline *tl, const struct gs_engine *eng,
                             int nb, double *eff)
{
    memset(eff, 0, (size_t)nb * sizeof *eff);
    for (int j = 0; eng && j < gs_engine_job_count(eng); j++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, j, &ji);
        if (ji.state != GS_JOB_DONE || ji.end <= ji.first_start)
            continue;
        double per_ms = (double)ji.work * ji.gpus * ji.milli / GS_MILLI_GPU /
                        (double)(ji.end - ji.first_start);
        gs_time a = ji.first_start;
        while (a < ji.end) {
            int i = (int)((a - tl->t0) / tl->width);
            if (i < 0 || i >= nb)
                break;
            gs_time edge = tl->t0 + (gs_time)(i + 1) * tl->width, e = ji.end < edge ? ji.end : edge;
            eff[i] += per_ms * (double)(e - a);
            a = e;
        }
    }
    for (int i = 0; i < nb; i++)
        eff[i] = tl->covered_ms[i] > 0 ? eff[i] / ((double)tl->gpus * tl->covered_ms[i]) : 0;
}

static void util_chart(FILE *f, const struct gs_html_run *r)
{
    const struct gs_timeline *tl = r->tl;
    int nb = gs_timeline_buckets(tl);
    double xs[GS_TL_BUCKETS], al[GS_TL_BUCKETS], ef[GS_TL_BUCKETS];
    for (int i = 0; i < nb; i++) {
        xs[i] = bucket_h(tl, i);
        al[i] = gs_timeline_alloc(tl, i);
    }
    effective_series(tl, r->eng, nb, ef);
    gs_html_section(f, "GPU utilization over time",
                    "util_alloc: share of the cluster's GPUs allocated to jobs. util_effective: "
                    "useful work of completed jobs (at full speed) spread over their runs, so "
                    "slow-downs, checkpoint time and lost or killed work do not count. Under 60% "
                    "of util_alloc means GPUs are held but not really used.");
    svg_open(f, "chart-util", 900, 300, "util_alloc and util_effective over time");
    struct svg_plot p = { f, 60, 30, 820, 220, 0, span_h(tl), 0, 1, 0 };
    svg_axes(&p, "time since the first event (hours)", "share of GPUs", svg_tick_hours,
             svg_tick_pct);
    svg_line(&p, xs, al, nb, gs_html_run_colors[0], 1.5, 0, "util_alloc");
    svg_line(&p, xs, ef, nb, gs_html_run_colors[2], -1.5, 0, "util_effective");
    char l1[64], l2[64];
    snprintf(l1, sizeof l1, "util_alloc (mean %.1f%%)", 100 * r->sum->util_alloc);
    snprintf(l2, sizeof l2, "util_effective (mean %.1f%%)", 100 * r->sum->util_effective);
    const char *labels[] = { l1, l2 }, *colors[] = { gs_html_run_colors[0], gs_html_run_colors[2] };
    svg_legend(f, 70, 18, labels, colors, 2);
    svg_close(f);
    fputs("</section>\n", f);
}

/* Shade the continuous windows with S_k >= 1, merging those closer than
 * half a pixel. */
static void windows(const struct svg_plot *p, const struct gs_timeline *tl)
{
    double open = -1, close = -1;
    for (size_t i = 0; i + 1 < tl->nwin; i += 2) {
        double a = svg_x(p, (double)(tl->win[i] - tl->t0) / 3.6e6);
        double b = svg_x(p, (double)(tl->win[i + 1] - tl->t0) / 3.6e6);
        if (open >= 0 && a - close < 0.5) {
            close = b;
            continue;
        }
        if (open >= 0)
            fprintf(p->f, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                          "height=\"%.1f\" fill=\"#c7e9c0\"/>\n",
                    open, p->y0, close - open > 0.5 ? close - open : 0.5, p->h);
        open = a;
        close = b;
    }
    if (open >= 0)
        fprintf(p->f, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\" fill=\"#c7e9c0\"/>\n",
                open, p->y0, close - open > 0.5 ? close - open : 0.5, p->h);
}

static void sk_chart(FILE *f, const struct gs_html_run *r)
{
    const struct gs_timeline *tl = r->tl;
    int nb = gs_timeline_buckets(tl), k = r->sum->sched.k;
    double xs[GS_TL_BUCKETS], ys[GS_TL_BUCKETS], ymax = 1;
    for (int i = 0; i < nb; i++) {
        xs[i] = bucket_h(tl, i);
        ys[i] = gs_timeline_sched(tl, i);
        ymax = ys[i] > ymax ? ys[i] : ymax;
    }
    char cap[512];
    snprintf(cap, sizeof cap,
             "S_%d: how many %d-GPU jobs could start at once under the NVLink topology rule "
             "(time-weighted mean per interval). Green: continuous windows with S_%d >= 1, "
             "when a %d-GPU job could start. Mean %.2f; S_%d >= 1 during %.1f%% of the time "
             "in %lld windows (longest %.1f h).",
             k, k, k, k, r->sum->sched.mean, k, 100 * r->sum->sched.share_ge1,
             (long long)r->sum->sched.windows, r->sum->sched.win_max / 3600);
    gs_html_section(f, "Schedulability S_k over time", cap);
    svg_open(f, "chart-sk", 900, 300, "schedulability S_k over time with windows");
    struct svg_plot p = { f, 60, 30, 820, 220, 0, span_h(tl), 0, ceil(ymax), 0 };
    svg_axes(&p, "time since the first event (hours)", "k-GPU jobs placeable", svg_tick_hours,
             svg_tick_num);
    windows(&p, tl);
    svg_line(&p, xs, ys, nb, "#333", 1.2, 0, "mean S_k");
    char l1[48], l2[48];
    snprintf(l1, sizeof l1, "mean S_%d", k);
    snprintf(l2, sizeof l2, "window with S_%d >= 1", k);
    const char *labels[] = { l1, l2 }, *colors[] = { "#333", "#c7e9c0" };
    svg_legend(f, 70, 18, labels, colors, 2);
    svg_close(f);
    fputs("</section>\n", f);
}

/* Wait CDF lines: one per (cdf, class) given, on a log time axis. */
void gs_html_cdf_chart(FILE *f, const char *id, const struct gs_wait_cdf *const *cdfs,
                       const int *classes, const char *const *labels, const char *const *colors,
                       int n)
{
    double hi = 60;
    for (int i = 0; i < n; i++)
        if (cdfs[i]->n[classes[i]])
            hi = fmax(hi, cdfs[i]->q[classes[i]][GS_CDF_POINTS - 1]);
    svg_open(f, id, 900, 320, "cumulative distribution of queue waits");
    struct svg_plot p = { f, 60, 30, 820, 230, 1, hi * 1.2, 0, 1, 1 };
    svg_axes(&p, "queue wait (log scale; waits under 1 s drawn at 1 s)", "share of jobs",
             svg_tick_dur, svg_tick_pct);
    double xs[GS_CDF_POINTS], ys[GS_CDF_POINTS];
    for (int i = 0; i < n; i++) {
        int c = classes[i];
        if (!cdfs[i]->n[c])
            continue;
        for (int k = 0; k < GS_CDF_POINTS; k++) {
            xs[k] = cdfs[i]->q[c][k] < 1 ? 1 : cdfs[i]->q[c][k];
            ys[k] = k / (GS_CDF_POINTS - 1.0);
        }
        svg_line(&p, xs, ys, GS_CDF_POINTS, colors[i], 1.8, 1, labels[i]);
    }
    svg_legend(f, 70, 18, labels, colors, n);
    svg_close(f);
}

static void cdf_chart(FILE *f, const struct gs_html_run *r, const struct gs_wait_cdf *cdf)
{
    const struct gs_wait_cdf *cdfs[GS_SIZE_CLASSES + 1];
    int classes[GS_SIZE_CLASSES + 1], n = 0;
    const char *labels[GS_SIZE_CLASSES + 1], *colors[GS_SIZE_CLASSES + 1];
    char names[GS_SIZE_CLASSES + 1][48];
    for (int c = 0; c <= GS_SIZE_CLASSES; c++) {
        if (!cdf->n[c])
            continue;
        cdfs[n] = cdf;
        classes[n] = c;
        snprintf(names[n], sizeof names[n], "%s%s (%lld jobs)",
                 c < GS_SIZE_CLASSES ? gs_size_class_name(c) : "all",
                 c < GS_SIZE_CLASSES ? " GPU" : " jobs", (long long)cdf->n[c]);
        labels[n] = names[n];
        colors[n] = c < GS_SIZE_CLASSES ? gs_html_class_colors[c] : "#222";
        n++;
    }
    char cap[256], a[16], b[16], c[16];
    gs_report_fmt_dur(a, sizeof a, r->sum->wait.p50);
    gs_report_fmt_dur(b, sizeof b, r->sum->wait.p90);
    gs_report_fmt_dur(c, sizeof c, r->sum->wait.p99);
    snprintf(cap, sizeof cap, "Share of jobs that started within a given wait, per job size "
                              "(GPUs asked). Overall p50 %s, p90 %s, p99 %s.", a, b, c);
    gs_html_section(f, "Queue wait distribution by job size", cap);
    if (!cdf->n[GS_SIZE_CLASSES])
        fputs("<p class=\"empty\">No data: no job started.</p>\n", f);
    else
        gs_html_cdf_chart(f, "chart-cdf", cdfs, classes, labels, colors, n);
    fputs("</section>\n", f);
}

/* Waits as the CLI's `sim` table prints them (gs_report_fmt_dur). */
static void wait_cell(FILE *f, const struct gs_pctl *p, double v)
{
    char d[16];
    gs_report_fmt_dur(d, sizeof d, v);
    fprintf(f, "<td>%s</td>", p->n ? d : "-");
}

static void key_figures(FILE *f, const struct gs_html_run *r)
{
    const struct gs_summary *s = r->sum;
    fputs("<section><h2>Key figures</h2><table><tr><th>jobs</th><th>rejected</th><th>GPUs</th>"
          "<th>span</th><th>wait p50</th><th>p90</th><th>p99</th><th>util_alloc</th>"
          "<th>util_effective</th><th>jobs per GPU-day</th><th>mean S_k</th></tr>\n", f);
    fprintf(f, "<tr><td>%lld</td><td>%lld</td><td>%lld</td><td>%.2fh</td>", (long long)s->jobs,
            (long long)s->rejected, (long long)s->gpus,
            gs_time_to_sec(s->span_end - s->span_start) / 3600);
    wait_cell(f, &s->wait, s->wait.p50);
    wait_cell(f, &s->wait, s->wait.p90);
    wait_cell(f, &s->wait, s->wait.p99);
    fprintf(f, "<td>%.1f%%</td><td>%.1f%%</td><td>%.3f</td><td>%.2f</td></tr></table>\n"
               "<p class=\"cap\">Units as in <code>gpusched sim</code>: waits in s, m or h; "
               "util_alloc (GPUs allocated) beside util_effective (useful work) as shares of "
               "the cluster's GPU-time.</p></section>\n",
            100 * s->util_alloc, 100 * s->util_effective, s->jobs_per_gpu_day, s->sched.mean);
}

static void symptoms_list(FILE *f, const struct gs_html_run *r)
{
    struct gs_symptoms y;
    gs_symptoms_check(&y, r->sum, r->pol);
    gs_html_section(f, "Symptom checks",
                    "The seed's five cases of 'GPUs are there but jobs do not run', each with "
                    "its threshold (docs/diagnosis.md).");
    fputs("<ul id=\"symptoms\">\n", f);
    char msg[512];
    for (int i = 0; i < GS_SYM_COUNT; i++) {
        gs_report_symptom_msg(msg, sizeof msg, &y, i);
        fprintf(f, "<li><span class=\"%s\">%s</span> <b>%s</b>: ", y.s[i].fired ? "fired" : "okay",
                y.s[i].fired ? "FIRED" : "ok", gs_symptom_name(i));
        html_text(f, msg);
        fputs("</li>\n", f);
    }
    fputs("</ul></section>\n", f);
}

void gs_html_run_sections(FILE *f, const struct gs_html_run *r)
{
    struct gs_wait_cdf built;
    const struct gs_wait_cdf *cdf = r->cdf;
    if (!cdf && r->eng) {
        gs_wait_cdf_build(&built, r->eng);
        cdf = &built;
    }
    key_figures(f, r);
    if (r->tl && gs_timeline_buckets(r->tl) > 0) {
        util_chart(f, r);
        sk_chart(f, r);
    } else if (r->tl) {
        gs_html_section(f, "GPU utilization and S_k over time", "");
        fputs("<p class=\"empty\">No data: the run has no events (an empty trace).</p>"
              "</section>\n", f);
    }
    if (cdf)
        cdf_chart(f, r, cdf);
    if (r->eta && r->eng && r->neta > 0) /* an empty trace promised nothing */
        gs_html_eta_chart(f, r);
    if (r->eng && r->tl && gs_timeline_buckets(r->tl) > 0)
        gs_html_heatmap(f, r);
    gs_html_reasons_chart(f, "chart-reasons", &r->sum, &r->name, 1, 1);
    symptoms_list(f, r);
}

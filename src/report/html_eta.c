/* html_eta.c - the HTML report's predicted-against-actual chart of the
 * start-time promises (docs/eta.md): one dot per job whose promise was
 * not "now" (at most GS_HTML_ETA_DOTS, every k-th), the calibrated
 * predicted wait against the actual wait on log axes, with the diagonal. */
#include "report/html_private.h"
#include "report/report.h"

#include <math.h>

#define GS_HTML_ETA_DOTS 2000

/* Tick of a log10-seconds axis: the duration 10^v. */
static void tick_logdur(char *buf, size_t n, double v)
{
    svg_tick_dur(buf, n, pow(10, v));
}

/* log10 of a wait in seconds, waits under 1 s at 1 s. */
static double lg(gs_time ms)
{
    double s = gs_time_to_sec(ms);
    return log10(s < 1 ? 1 : s);
}

/* Whether job j has a promise that was not "now" and a first start;
 * fills its predicted and actual waits (ms). */
static int dot_of(const struct gs_html_run *r, size_t j, gs_time *pred, gs_time *act)
{
    const struct gs_eta_rec *e = &r->eta[j];
    struct gs_job_info ji;
    if (!e->recorded || e->cal == GS_TIME_NONE || e->basis == GS_BASIS_NOW ||
        gs_engine_job_info(r->eng, (int)j, &ji) < 0 || ji.first_start == GS_TIME_NONE)
        return 0;
    *pred = e->cal - e->submit;
    *act = ji.first_start - e->submit;
    return 1;
}

void gs_html_eta_chart(FILE *f, const struct gs_html_run *r)
{
    size_t n = 0;
    double hi = 2; /* 100 s at least */
    gs_time p, a;
    for (size_t j = 0; j < r->neta; j++)
        if (dot_of(r, j, &p, &a)) {
            n++;
            hi = fmax(hi, fmax(lg(p), lg(a)));
        }
    char cap[320];
    snprintf(cap, sizeof cap, "Each dot is a job that had to wait when it was submitted: the "
             "calibrated wait promised at its submit (x) against the wait it got (y), both on "
             "log scales; on the diagonal the promise was exact. %zu jobs%s.", n,
             n > GS_HTML_ETA_DOTS ? ", every k-th drawn" : "");
    gs_html_section(f, "Promised against actual start", cap);
    if (n == 0) {
        fputs("<p class=\"empty\">No data: no job waited after a promise.</p></section>\n", f);
        return;
    }
    hi = ceil(hi * 10 + 1) / 10;
    svg_open(f, "chart-eta", 900, 420, "promised against actual wait");
    struct svg_plot pl = { f, 60, 30, 820, 330, 0, hi, 0, hi, 0 };
    svg_axes(&pl, "promised wait at submit (log scale)", "actual wait (log scale)", tick_logdur,
             tick_logdur);
    double xs[2] = { 0, hi }, ys[2] = { 0, hi };
    svg_line(&pl, xs, ys, 2, "#999", -1, 0, "promise = actual");
    size_t step = n > GS_HTML_ETA_DOTS ? (n + GS_HTML_ETA_DOTS - 1) / GS_HTML_ETA_DOTS : 1, k = 0;
    for (size_t j = 0; j < r->neta; j++) {
        if (!dot_of(r, j, &p, &a) || k++ % step)
            continue;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" fill=\"%s\" fill-opacity=\"0.5\"/>\n",
                svg_x(&pl, lg(p)), svg_y(&pl, lg(a)),
                gs_html_class_colors[r->eta[j].size_class]);
    }
    const char *labels[GS_SIZE_CLASSES], *colors[GS_SIZE_CLASSES];
    char names[GS_SIZE_CLASSES][24];
    for (int c = 0; c < GS_SIZE_CLASSES; c++) {
        snprintf(names[c], sizeof names[c], "%s GPU", gs_size_class_name(c));
        labels[c] = names[c];
        colors[c] = gs_html_class_colors[c];
    }
    svg_legend(f, 70, 18, labels, colors, GS_SIZE_CLASSES);
    svg_close(f);
    fputs("</section>\n", f);
}

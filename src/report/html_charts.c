/* html_charts.c - the occupancy heatmap, the waiting-reason bars and the
 * compare / whatif sections of the HTML report. */
#include "report/html_private.h"
#include "report/report_whatif.h"
#include "core/base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define HM_COLS 300
#define HM_MAX_ROWS 256

/* ---- GPU occupancy heatmap -------------------------------------------------------- */

/* One heatmap cell: the allocated GPU-time of each size class in it, as a
 * share of the cell's GPU-time (rows x slice). */
struct hm_cell {
    float share[GS_SIZE_CLASSES];
};

/* Add the job's last run to the grid: each GPU adds, to the cells of its
 * row, the part of each time slice it was held (times its GPU share). */
static void paint_job(struct hm_cell *grid, int rows, const struct gs_html_run *r, int job)
{
    const struct gs_timeline *tl = r->tl;
    const struct gs_cluster *cl = gs_engine_cluster(r->eng);
    struct gs_job_info ji;
    struct gs_alloc a;
    if (gs_engine_job_info(r->eng, job, &ji) < 0 || ji.first_start == GS_TIME_NONE ||
        gs_engine_job_alloc(r->eng, job, &a) < 0)
        return;
    gs_time end = ji.end == GS_TIME_NONE ? tl->end : ji.end, span = tl->end - tl->t0;
    if (span <= 0 || end <= ji.start)
        return;
    double slice = (double)span / HM_COLS, t0 = (double)(ji.start - tl->t0),
           t1 = (double)(end - tl->t0);
    int c0 = (int)(t0 / slice), c1 = (int)(t1 / slice) + 1;
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 > HM_COLS ? HM_COLS : c1;
    int cls = gs_job_size_class(ji.gpus);
    int64_t gpus = gs_cluster_gpu_count(cl);
    double per_row = (double)gpus / rows, share = (double)ji.milli / GS_MILLI_GPU;
    for (int i = 0; i < a.nparts; i++) {
        int first = gs_cluster_node_first_gpu(cl, a.parts[i].node);
        for (uint64_t m = a.parts[i].mask; m; m &= m - 1) {
            int row = (int)((first + __builtin_ctzll(m)) * (int64_t)rows / gpus);
            struct hm_cell *cell = grid + (size_t)row * HM_COLS;
            for (int c = c0; c < c1; c++) {
                double lo = c * slice, hi = lo + slice;
                double busy = (t1 < hi ? t1 : hi) - (t0 > lo ? t0 : lo);
                if (busy > 0)
                    cell[c].share[cls] += (float)(share * busy / (slice * per_row));
            }
        }
    }
}

/* A cell's colour (size class holding most of it) and its allocated share
 * in tenths (0 = idle), so runs of equal cells become one rect. */
static int cell_key(const struct hm_cell *c)
{
    double total = 0;
    int top = 0;
    for (int k = 0; k < GS_SIZE_CLASSES; k++) {
        total += c->share[k];
        top = c->share[k] > c->share[top] ? k : top;
    }
    int tenths = (int)(total * 10 + 0.5);
    tenths = tenths > 10 ? 10 : tenths;
    return tenths ? top * 16 + tenths : 0;
}

/* Each cell coloured by the size class holding most of it, with opacity the
 * allocated share of the cell (a cell half allocated is drawn half strong). */
static void draw_grid(const struct svg_plot *p, const struct hm_cell *grid, int rows)
{
    double cw = p->w / HM_COLS, rh = p->h / rows;
    for (int row = 0; row < rows; row++) {
        const struct hm_cell *cell = grid + (size_t)row * HM_COLS;
        for (int c = 0; c < HM_COLS;) {
            int key = cell_key(&cell[c]), e = c + 1;
            while (e < HM_COLS && cell_key(&cell[e]) == key)
                e++;
            if (key)
                fprintf(p->f, "<rect class=\"cell\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                              "height=\"%.2f\" fill=\"%s\" fill-opacity=\"%.1f\"/>\n",
                        p->x0 + c * cw, p->y0 + row * rh, (e - c) * cw, rh,
                        gs_html_class_colors[key / 16], (key % 16) / 10.0);
            c = e;
        }
    }
}

/* Allocated share of all cells: what the heatmap paints, for the caption. */
static double painted_share(const struct hm_cell *grid, int rows)
{
    double sum = 0;
    for (size_t i = 0; i < (size_t)rows * HM_COLS; i++)
        for (int k = 0; k < GS_SIZE_CLASSES; k++)
            sum += grid[i].share[k];
    return rows > 0 ? sum / ((double)rows * HM_COLS) : 0;
}

/* Node names at their first row (when there are few nodes). */
static void node_labels(const struct svg_plot *p, const struct gs_cluster *cl, int rows)
{
    int nn = gs_cluster_node_count(cl);
    int64_t gpus = gs_cluster_gpu_count(cl);
    for (int n = 0; nn <= 40 && n < nn; n++) {
        double y = p->y0 + (double)gs_cluster_node_first_gpu(cl, n) * rows / (double)gpus *
                               (p->h / rows);
        fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
                      "stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                      "font-family=\"sans-serif\" font-size=\"9\">",
                p->x0, y, p->x0 + p->w, y, p->x0 - 3, y + 9);
        html_text(p->f, gs_cluster_node_name(cl, n));
        fputs("</text>\n", p->f);
    }
}

void gs_html_heatmap(FILE *f, const struct gs_html_run *r)
{
    const struct gs_cluster *cl = gs_engine_cluster(r->eng);
    int64_t gpus = gs_cluster_gpu_count(cl);
    int rows = gpus > HM_MAX_ROWS ? HM_MAX_ROWS : (int)gpus;
    struct hm_cell *grid = gs_calloc((size_t)rows * HM_COLS, sizeof *grid);
    if (!grid)
        return;
    for (int j = 0; j < gs_engine_job_count(r->eng); j++)
        paint_job(grid, rows, r, j);
    char cap[600];
    double painted = painted_share(grid, rows);
    snprintf(cap, sizeof cap,
             "Which GPUs were allocated when, coloured by the size of the job holding them; "
             "the stronger the colour, the larger the allocated share of the cell (white: "
             "idle). Rows are GPUs in node order%s; columns are %d time slices of %.2f h. The "
             "painted share is %.1f%% of the picture, util_alloc %.1f%%. Scattered small jobs "
             "on every node are what keeps large jobs waiting. Preempted jobs show their last "
             "run only.",
             gpus > HM_MAX_ROWS ? " (each row groups several GPUs)" : "", HM_COLS,
             (double)(r->tl->end - r->tl->t0) / HM_COLS / 3.6e6, 100 * painted,
             100 * r->sum->util_alloc);
    gs_html_section(f, "GPU occupancy", cap);
    if (painted <= 0) {
        fputs("<p class=\"empty\">No data: no job ran on the cluster.</p></section>\n", f);
        gs_free(grid);
        return;
    }
    svg_open(f, "chart-heatmap", 900, 340, "GPU occupancy over time by job size");
    struct svg_plot p = { f, 60, 30, 820, 260, 0, (double)(r->tl->end - r->tl->t0) / 3.6e6,
                          0, 1, 0 };
    svg_axes(&p, "time since the first event (hours)", "GPUs (node order)", svg_tick_hours,
             NULL);
    draw_grid(&p, grid, rows);
    node_labels(&p, cl, rows);
    const char *labels[GS_SIZE_CLASSES];
    char names[GS_SIZE_CLASSES][24];
    for (int c = 0; c < GS_SIZE_CLASSES; c++) {
        snprintf(names[c], sizeof names[c], "%s GPU job", gs_size_class_name(c));
        labels[c] = names[c];
    }
    svg_legend(f, 70, 18, labels, gs_html_class_colors, GS_SIZE_CLASSES);
    svg_close(f);
    fputs("</section>\n", f);
    gs_free(grid);
}

/* ---- waiting reasons --------------------------------------------------------------- */

/* GPU-hours of class `cls` (< 0: all) under code c. */
static double gh(const struct gs_summary *s, int cls, int c)
{
    double h = 0;
    for (int z = 0; z < GS_SIZE_CLASSES; z++)
        if (cls < 0 || z == cls)
            h += s->waits.gpu_h[c][z];
    return h;
}

static double bar_total(const struct gs_summary *s, int cls)
{
    double total = 0;
    for (int c = 0; c < GS_REASON_COUNT; c++)
        total += gh(s, cls, c);
    return total;
}

/* One stacked bar; `scale` GPU-hours take the full width w, so all bars of
 * a chart share one scale. */
static void reason_bar(FILE *f, double x0, double y, double w, double scale,
                       const struct gs_summary *s, int cls, const char *label)
{
    double total = bar_total(s, cls), x = x0;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-family=\"sans-serif\" "
               "font-size=\"11\">", x0 - 6, y + 13);
    html_text(f, label);
    fputs("</text>\n", f);
    for (int c = 0; total > 0 && c < GS_REASON_COUNT; c++) {
        double h = gh(s, cls, c), bw = w * h / scale;
        if (h <= 0)
            continue;
        fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"18\" "
                   "fill=\"%s\"><title>%s: %.1f GPU-hours (%.1f%%)</title></rect>\n",
                x, y, bw, gs_html_reason_colors[c], gs_reason_name(c), h, 100 * h / total);
        x += bw;
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" font-size=\"11\">"
               "%.1f GPU-h</text>\n", x + 6, y + 13, total);
}

void gs_html_reasons_chart(FILE *f, const char *id, const struct gs_summary *const *sums,
                           const char *const *names, int n, int per_class)
{
    int rows = per_class ? 1 : n, classes[GS_SIZE_CLASSES + 1];
    classes[0] = -1;
    for (int z = 0; per_class && z < GS_SIZE_CLASSES; z++) {
        double h = 0;
        for (int c = 0; c < GS_REASON_COUNT; c++)
            h += gh(sums[0], z, c);
        if (h > 0)
            classes[rows++] = z;
    }
    gs_html_section(f, "Why jobs waited",
                    "Waiting GPU-hours (time waited x GPUs asked) split by the reason each job "
                    "had at each scheduling pass: shortage (not enough idle GPUs), count / "
                    "topology / memory fragmentation (enough idle GPUs, wrong places), quota, "
                    "priority (behind a blocked job), reservation (GPUs held for a big job), "
                    "partition. All bars share one scale (the longest is the most "
                    "GPU-hours). Hover a segment for its hours.");
    double scale = 0;
    for (int i = 0; i < rows; i++) {
        double t = bar_total(per_class ? sums[0] : sums[i], per_class ? classes[i] : -1);
        scale = t > scale ? t : scale;
    }
    if (scale <= 0) {
        fputs("<p class=\"empty\">No data: no job waited, so there is nothing to split by "
              "reason.</p></section>\n", f);
        return;
    }
    svg_open(f, id, 900, 70 + rows * 28, "waiting GPU-hours by reason");
    for (int i = 0; i < rows; i++) {
        double y = 44 + 28 * i;
        char label[80];
        int cls = per_class ? classes[i] : -1;
        const struct gs_summary *s = per_class ? sums[0] : sums[i];
        if (per_class && cls >= 0)
            snprintf(label, sizeof label, "%s GPU jobs", gs_size_class_name(cls));
        else
            snprintf(label, sizeof label, "%s", per_class ? "all jobs" : names[i]);
        reason_bar(f, 170, y, 600, scale, s, cls, label);
    }
    const char *labels[GS_REASON_COUNT];
    for (int c = 0; c < GS_REASON_COUNT; c++)
        labels[c] = c ? gs_reason_name(c) : "unclassified";
    svg_legend(f, 10, 20, labels + 1, gs_html_reason_colors + 1, GS_REASON_COUNT - 1);
    svg_close(f);
    fputs("</section>\n", f);
}

/* ---- compare and whatif ------------------------------------------------------------ */

static void pctl_cells(FILE *f, const struct gs_pctl *p)
{
    char a[16], b[16], c[16];
    gs_report_short_dur(a, sizeof a, p->p50);
    gs_report_short_dur(b, sizeof b, p->p90);
    gs_report_short_dur(c, sizeof c, p->p99);
    fprintf(f, "<td>%s</td><td>%s</td><td>%s</td>", a, b, c);
}

static void table_head(FILE *f, const char *id, const char *first)
{
    fprintf(f, "<table id=\"%s\"><tr><th>%s</th><th>GPUs</th><th>wait p50</th><th>p90</th>"
               "<th>p99</th>", id, first);
    for (int c = 0; c < GS_SIZE_CLASSES; c++)
        fprintf(f, "<th>%s GPU p90</th>", gs_size_class_name(c));
    fputs("<th>util_alloc</th><th>util_effective</th><th>mean S_k</th><th>S_k&gt;=1</th>"
          "</tr>\n", f);
}

static void table_row(FILE *f, const char *name, const struct gs_summary *s)
{
    char d[16];
    fputs("<tr><td>", f);
    html_text(f, name);
    fprintf(f, "</td><td>%lld</td>", (long long)s->gpus);
    pctl_cells(f, &s->wait);
    for (int c = 0; c < GS_SIZE_CLASSES; c++) {
        gs_report_short_dur(d, sizeof d, s->wait_by_size[c].p90);
        fprintf(f, "<td>%s</td>", s->wait_by_size[c].n ? d : "-");
    }
    fprintf(f, "<td>%.1f%%</td><td>%.1f%%</td><td>%.2f</td><td>%.0f%%</td></tr>\n",
            100 * s->util_alloc, 100 * s->util_effective, s->sched.mean,
            100 * s->sched.share_ge1);
}

static void overlay_cdf(FILE *f, const char *id, const struct gs_wait_cdf *const *cdfs,
                        const char *const *names, int n)
{
    int classes[GS_WHATIF_MAX_RUNS];
    const char *colors[GS_WHATIF_MAX_RUNS];
    for (int i = 0; i < n; i++) {
        classes[i] = GS_SIZE_CLASSES;
        colors[i] = gs_html_run_colors[i % 8];
    }
    gs_html_cdf_chart(f, id, cdfs, classes, names, colors, n);
}

void gs_html_compare_sections(FILE *f, const struct gs_html_run *runs, int n)
{
    n = n > GS_WHATIF_MAX_RUNS ? GS_WHATIF_MAX_RUNS : n;
    gs_html_section(f, "Policies side by side",
                    "Every policy replays the same trace on the same cluster. Waits in s, m "
                    "or h.");
    table_head(f, "table-compare", "policy");
    for (int i = 0; i < n; i++)
        table_row(f, runs[i].name, runs[i].sum);
    fputs("</table></section>\n", f);
    const struct gs_wait_cdf *cdfs[GS_WHATIF_MAX_RUNS];
    const struct gs_summary *sums[GS_WHATIF_MAX_RUNS];
    const char *names[GS_WHATIF_MAX_RUNS];
    for (int i = 0; i < n; i++) {
        cdfs[i] = runs[i].cdf;
        sums[i] = runs[i].sum;
        names[i] = runs[i].name;
    }
    gs_html_section(f, "Queue wait distribution per policy",
                    "Share of all jobs that started within a given wait.");
    overlay_cdf(f, "chart-compare-cdf", cdfs, names, n);
    fputs("</section>\n", f);
    gs_html_reasons_chart(f, "chart-compare-reasons", sums, names, n, 0);
}

void gs_html_whatif_sections(FILE *f, const struct gs_whatif *w)
{
    char text[8192];
    gs_report_whatif_verdict(text, sizeof text, w);
    gs_html_section(f, "What if: fragmentation or shortage?",
                    "actual: the cluster and policy as given; fluid: the same GPUs with no node "
                    "or NVLink-domain boundaries (the fragmentation-free bound); then each "
                    "alternative policy, and added nodes under the current policy.");
    table_head(f, "table-whatif", "run");
    for (int i = 0; i < w->nruns; i++)
        table_row(f, w->runs[i].name, &w->runs[i].sum);
    fputs("</table>\n<p id=\"verdict\">", f);
    html_text(f, text);
    fputs("</p></section>\n", f);
    const struct gs_wait_cdf *cdfs[GS_WHATIF_MAX_RUNS];
    const char *names[GS_WHATIF_MAX_RUNS];
    for (int i = 0; i < w->nruns; i++) {
        cdfs[i] = &w->runs[i].cdf;
        names[i] = w->runs[i].name;
    }
    gs_html_section(f, "Queue wait distribution per run",
                    "Share of all jobs that started within a given wait, for each what-if run.");
    overlay_cdf(f, "chart-whatif-cdf", cdfs, names, w->nruns);
    fputs("</section>\n", f);
}

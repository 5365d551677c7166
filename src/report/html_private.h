/* html_private.h - shared by html_report.c and html_charts.c. */
#ifndef GS_REPORT_HTML_PRIVATE_H
#define GS_REPORT_HTML_PRIVATE_H

#include "report/html_report.h"
#include "io/html_svg.h"

extern const char *const gs_html_class_colors[GS_SIZE_CLASSES];
extern const char *const gs_html_reason_colors[GS_REASON_COUNT];
extern const char *const gs_html_run_colors[8];

/* <section>, <h2>title</h2> and a caption paragraph (caller closes). */
void gs_html_section(FILE *f, const char *title, const char *caption);

/* Wait CDFs: line i draws class classes[i] of cdfs[i]. */
void gs_html_cdf_chart(FILE *f, const char *id, const struct gs_wait_cdf *const *cdfs,
                       const int *classes, const char *const *labels, const char *const *colors,
                       int n);

/* GPU x time occupancy of the run's jobs, coloured by size class. */
void gs_html_heatmap(FILE *f, const struct gs_html_run *r);

/* Stacked bars of waiting GPU-hours by reason: with `per_class`, one bar
 * for all jobs and one per size class of sums[0]; else one bar (all jobs)
 * per summary. */
void gs_html_reasons_chart(FILE *f, const char *id, const struct gs_summary *const *sums,
                           const char *const *names, int n, int per_class);

/* Promised against actual wait of the jobs whose promise was not "now"
 * (r->eta; html_eta.c). */
void gs_html_eta_chart(FILE *f, const struct gs_html_run *r);

#endif

/* html_report.h - one self-contained HTML file with the charts of a
 * simulation, a comparison or a what-if (`--html FILE` on sim, compare and
 * whatif).  Charts are inline SVG with titles, axes, units and legends;
 * the page needs no network and no JavaScript (a two-line script only
 * marks the page as loaded for tests).
 *
 * Charts (element ids, for tests):
 *   chart-util      util_alloc and util_effective over time
 *   chart-sk        S_k over time, continuous windows with S_k >= 1 shaded
 *   chart-cdf       wait CDF per size class
 *   chart-heatmap   GPU occupancy (GPU x time, coloured by job size)
 *   chart-reasons   waiting GPU-hours by reason, per size class
 *   chart-eta       promised against actual wait (sim: docs/eta.md)
 *   chart-compare-cdf / chart-compare-reasons   compare: one per policy
 *   chart-whatif-cdf, table-whatif, verdict     whatif
 */
#ifndef GS_REPORT_HTML_REPORT_H
#define GS_REPORT_HTML_REPORT_H

#include <stdio.h>

#include "core/engine/engine.h"
#include "core/metrics/metrics.h"
#include "core/policy/policy.h"
#include "sim/timeline.h"
#include "sim/whatif.h"

/* What the charts of one run draw; any pointer but `sum` may be NULL (the
 * charts that need it are then left out with a note). */
struct gs_html_run {
    const char *name;
    const struct gs_summary *sum;
    const struct gs_engine *eng;     /* job records: heatmap, util_effective */
    const struct gs_timeline *tl;    /* util_alloc and S_k over time */
    const struct gs_policy *pol;
    const struct gs_wait_cdf *cdf;   /* else built from eng */
    const struct gs_eta_rec *eta;    /* promises per engine handle (sim), or NULL */
    size_t neta;
};

/* Page head, styles and the title block. */
void gs_html_begin(FILE *f, const char *title, const char *subtitle);

/* The charts of one run: key figures, utilization, S_k, wait CDFs, GPU
 * occupancy, waiting reasons and the symptom checks. */
void gs_html_run_sections(FILE *f, const struct gs_html_run *r);

/* `compare`: the table of policies, their wait CDFs and waiting reasons. */
void gs_html_compare_sections(FILE *f, const struct gs_html_run *runs, int n);

/* `whatif`: the table of runs, the verdict and the wait CDF of each run. */
void gs_html_whatif_sections(FILE *f, const struct gs_whatif *w);

/* Close the page.  Returns 0, or GS_EIO when writing failed. */
int gs_html_end(FILE *f);

/* A table naming what the page is about: the cluster and trace files and
 * the policy files (NULL = the defaults), with the first policy's queue,
 * placement, backfill and estimate when `pol` is given. */
void gs_html_meta(FILE *f, const char *cluster, const char *trace,
                  const char *const *policies, int npol, const struct gs_policy *pol);

#endif

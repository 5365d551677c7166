/* html_out.h - `--html FILE` for sim, compare and whatif: record the
 * timeline of a run while it replays, then write the report
 * (io/html_report.h). */
#ifndef GS_CLI_HTML_OUT_H
#define GS_CLI_HTML_OUT_H

#include "core/policy/policy.h"
#include "sim/sim.h"
#include "sim/timeline.h"
#include "sim/whatif.h"

struct cli_html {
    int on;
    /* what the page names at its top (borrowed; set with cli_html_names) */
    const char *cluster, *trace;
    const char *const *policies;
    int npol;
    struct gs_timeline tl;
    void (*prev_tick)(void *arg, const struct gs_sim_tick *t);
    void *prev_arg;
};

/* Start (`on` = 0: everything below is a no-op). */
void cli_html_init(struct cli_html *h, int on);

/* The input files the page names (borrowed until cli_html_fini). */
void cli_html_names(struct cli_html *h, const char *cluster, const char *trace,
                    const char *const *policies, int npol);

/* Hook the timeline recorder into `o` (chaining any on_tick already set). */
void cli_html_opts(struct cli_html *h, struct gs_sim_opts *o);

/* Write the report of one run to `path`.  Returns 0 or 1 (error printed). */
int cli_html_sim(const char *path, struct cli_html *h, const struct gs_sim_result *r,
                 const struct gs_policy *pol, const char *subtitle);

/* Write the comparison of n runs (the first one recorded by `h`). */
int cli_html_compare(const char *path, struct cli_html *h, const struct gs_sim_result *first,
                     const struct gs_summary *const *sums, const struct gs_policy *const *pols,
                     const char *const *names, const struct gs_wait_cdf *cdfs, int n);

/* Write the what-if report (the actual run recorded by `h`). */
int cli_html_whatif(const char *path, struct cli_html *h, const struct gs_whatif *w,
                    const struct gs_policy *pol);

/* Free the recorder; NULL is a no-op. */
void cli_html_fini(struct cli_html *h);

#endif

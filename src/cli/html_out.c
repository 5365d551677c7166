/* html_out.c - the `--html FILE` option of sim, compare and whatif. */
#include "cli/html_out.h"
#include "cli/cli.h"
#include "cli/cli_out.h"
#include "report/html_report.h"
#include "report/report_fail.h"

#include <string.h>

void cli_html_init(struct cli_html *h, int on)
{
    memset(h, 0, sizeof *h);
    h->on = on;
    gs_timeline_init(&h->tl);
}

void cli_html_names(struct cli_html *h, const char *cluster, const char *trace,
                    const char *const *policies, int npol)
{
    h->cluster = cluster;
    h->trace = trace;
    h->policies = policies;
    h->npol = npol;
}

static void tick(void *arg, const struct gs_sim_tick *t)
{
    struct cli_html *h = arg;
    gs_timeline_sample(&h->tl, t);
    if (h->prev_tick)
        h->prev_tick(h->prev_arg, t);
}

void cli_html_opts(struct cli_html *h, struct gs_sim_opts *o)
{
    if (!h->on)
        return;
    h->prev_tick = o->on_tick;
    h->prev_arg = o->arg;
    o->on_tick = tick;
    o->arg = h;
}

void cli_html_fini(struct cli_html *h)
{
    if (h)
        gs_timeline_fini(&h->tl);
}

static FILE *open_page(const char *cmd, struct cli_out *o, const char *path, const char *title,
                       const char *sub, const struct cli_html *h, const struct gs_policy *pol)
{
    if (cli_out_open(cmd, o, path))
        return NULL;
    gs_html_begin(o->f, title, sub);
    static const char *const none[1] = { NULL };
    gs_html_meta(o->f, h->cluster, h->trace, h->npol ? h->policies : none, h->npol ? h->npol : 1,
                 pol);
    return o->f;
}

/* The page appears under its name only when every write succeeded. */
static int close_page(const char *cmd, struct cli_out *o)
{
    int bad = gs_html_end(o->f) < 0;
    return cli_out_finish(cmd, o, !bad) || bad ? 1 : 0;
}

int cli_html_sim(const char *path, struct cli_html *h, const struct gs_sim_result *r,
                 const struct gs_policy *pol, const char *subtitle)
{
    gs_timeline_close(&h->tl, r->summary.span_end);
    struct cli_out o;
    FILE *f = open_page("sim", &o, path, "gpusched simulation report", subtitle, h, pol);
    if (!f)
        return 1;
    struct gs_html_run run = { "simulation", &r->summary, r->engine, &h->tl, pol, NULL,
                               r->eta, r->neta };
    gs_html_run_sections(f, &run);
    if (r->fail)
        gs_report_fail_html(f, r->engine, r->fail);
    return close_page("sim", &o);
}

int cli_html_compare(const char *path, struct cli_html *h, const struct gs_sim_result *first,
                     const struct gs_summary *const *sums, const struct gs_policy *const *pols,
                     const char *const *names, const struct gs_wait_cdf *cdfs, int n)
{
    struct gs_html_run runs[GS_WHATIF_MAX_RUNS];
    n = n > GS_WHATIF_MAX_RUNS ? GS_WHATIF_MAX_RUNS : n;
    gs_timeline_close(&h->tl, sums[0]->span_end);
    for (int i = 0; i < n; i++) {
        struct gs_html_run r = { names[i], sums[i], NULL, NULL, pols[i], &cdfs[i], NULL, 0 };
        runs[i] = r;
    }
    struct cli_out o;
    FILE *f = open_page("compare", &o, path, "gpusched policy comparison",
                        "The same trace on the same cluster under each policy; the detailed "
                        "charts below are for the first policy.", h, pols[0]);
    if (!f)
        return 1;
    gs_html_compare_sections(f, runs, n);
    runs[0].eng = first->engine;
    runs[0].tl = &h->tl;
    gs_html_run_sections(f, &runs[0]);
    return close_page("compare", &o);
}

int cli_html_whatif(const char *path, struct cli_html *h, const struct gs_whatif *w,
                    const struct gs_policy *pol)
{
    gs_timeline_close(&h->tl, w->runs[0].sum.span_end);
    struct cli_out o;
    FILE *f = open_page("whatif", &o, path, "gpusched what-if: fragmentation or shortage?",
                        "The trace on the actual cluster, on the fluid cluster, under other "
                        "policies and with added nodes; the detailed charts below are for the "
                        "actual run.", h, pol);
    if (!f)
        return 1;
    gs_html_whatif_sections(f, w);
    struct gs_html_run run = { "actual", &w->runs[0].sum, w->actual.engine, &h->tl, pol,
                               &w->runs[0].cdf, NULL, 0 };
    gs_html_run_sections(f, &run);
    return close_page("whatif", &o);
}

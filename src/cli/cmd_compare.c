/* cmd_compare.c - `gpusched compare`: several policies on one trace. */
#include "cli/cli.h"
#include "cli/html_out.h"
#include "io/report.h"
#include "io/report_preempt.h"
#include "sim/sim.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POLICIES 32

static const char *const compare_help =
    "usage: gpusched compare --cluster C.yaml --trace T.csv --policy A.yaml\n"
    "                        --policy B.yaml ... [--json] [--html FILE]\n"
    "\n"
    "Run every policy on the same trace and print one table: queue-wait p50/p90/p99\n"
    "overall and per size class, util_alloc, schedulability, jobs_per_gpu_day, the\n"
    "number of backfilled jobs and the accuracy of the duration estimates\n"
    "(median and p90 of estimate/actual, share underestimated).\n"
    "\n"
    "  --html FILE   also write a self-contained HTML report with charts\n";

struct run {
    const char *path;
    char name[64];
    struct gs_policy pol;
    struct gs_summary sum;
    struct gs_wait_cdf cdf;
    int ok;
};

static void policy_name(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, n, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0))
        *dot = '\0';
}

/* Replay under r's policy; `keep` (may be NULL) receives the result with
 * its engine (the HTML report draws the first run). */
static int run_one(struct run *r, const struct gs_cluster *cl, const struct gs_trace *tr,
                   const struct gs_sim_opts *opts, struct gs_sim_result *keep)
{
    struct gs_sim_result res0, *res = keep ? keep : &res0;
    struct gs_error err = { 0 };
    if (gs_sim_run(cl, &r->pol, tr, opts, res, &err) < 0)
        return cli_failf("compare", 1, "%s: %s", r->path, err.msg);
    r->sum = res->summary;
    res->summary.teams = NULL; /* moved into r->sum */
    res->summary.nteams = 0;
    res->summary.pre.teams = NULL;
    res->summary.pre.nteams = 0;
    gs_wait_cdf_build(&r->cdf, res->engine);
    if (!keep)
        gs_sim_result_fini(res);
    r->ok = 1;
    return 0;
}

static void print_table(const struct run *runs, int n)
{
    printf("%-22s %9s %9s %9s %7s %7s %7s %8s %9s %15s\n", "policy", "wait p50", "p90", "p99",
           "alloc", "S_k", "S>=1", "jobs/GPU", "backfill", "est/act p50/p90");
    for (int i = 0; i < n; i++) {
        const struct gs_summary *s = &runs[i].sum;
        printf("%-22.22s %8.0fs %8.0fs %8.0fs %6.1f%% %7.2f %6.1f%% %8.3f %9lld %7.2f/%-7.2f\n",
               runs[i].name, s->wait.p50, s->wait.p90, s->wait.p99, 100 * s->util_alloc,
               s->sched.mean, 100 * s->sched.share_ge1, s->jobs_per_gpu_day,
               (long long)s->backfilled, s->estimate.ratio_p50, s->estimate.ratio_p90);
    }
    printf("\nqueue wait by size class (seconds, p50 / p90 / p99)\n%-22s", "policy");
    for (int c = 0; c < GS_SIZE_CLASSES; c++)
        printf(" %26s", gs_size_class_name(c));
    printf("\n");
    for (int i = 0; i < n; i++) {
        printf("%-22.22s", runs[i].name);
        for (int c = 0; c < GS_SIZE_CLASSES; c++) {
            const struct gs_pctl *p = &runs[i].sum.wait_by_size[c];
            char cell[64];
            if (p->n)
                snprintf(cell, sizeof cell, "%.0f / %.0f / %.0f", p->p50, p->p90, p->p99);
            else
                snprintf(cell, sizeof cell, "-");
            printf(" %26s", cell);
        }
        printf("\n");
    }
}

/* Inference SLO, training waits and preemption cost, when any run has
 * something to say there. */
static void print_class_table(const struct run *runs, int n)
{
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= gs_report_preempt_relevant(&runs[i].sum);
    if (!any)
        return;
    printf("\ninference SLO, training waits and preemption cost\n");
    gs_report_class_header(stdout);
    for (int i = 0; i < n; i++)
        gs_report_class_row(stdout, runs[i].name, &runs[i].sum);
}

static int write_html(const char *path, struct cli_html *h, const struct gs_sim_result *first,
                      const struct run *runs, int n)
{
    const struct gs_summary *sums[MAX_POLICIES];
    const struct gs_policy *pols[MAX_POLICIES];
    const char *names[MAX_POLICIES];
    struct gs_wait_cdf *cdfs = calloc((size_t)n, sizeof *cdfs);
    if (!cdfs)
        return cli_failf("compare", 1, "out of memory");
    for (int i = 0; i < n; i++) {
        sums[i] = &runs[i].sum;
        pols[i] = &runs[i].pol;
        names[i] = runs[i].name;
        cdfs[i] = runs[i].cdf;
    }
    int status = cli_html_compare(path, h, first, sums, pols, names, cdfs, n);
    free(cdfs);
    return status;
}

static json_t *runs_json(const struct run *runs, int n)
{
    json_t *arr = json_array();
    for (int i = 0; arr && i < n; i++) {
        json_t *o = gs_report_summary_json(&runs[i].sum, &runs[i].pol);
        if (o)
            json_object_set_new(o, "name", json_string(runs[i].name));
        json_array_append_new(arr, o);
    }
    return json_pack("{s:o}", "policies", arr);
}

static int parse_args(int argc, char **argv, const char **cluster, const char **trace,
                      struct run *runs, int *n, int *json, const char **html)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "trace", required_argument, NULL, 't' },
        { "policy", required_argument, NULL, 'p' },  { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },          { "html", required_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': *cluster = optarg; break;
        case 't': *trace = optarg; break;
        case 'p':
            if (*n == MAX_POLICIES)
                return cli_failf("compare", 2, "at most %d policies", MAX_POLICIES);
            runs[(*n)++].path = optarg;
            break;
        case 'j': *json = 1; break;
        case 'H': *html = optarg; break;
        case 'h': fputs(compare_help, stdout); return 0;
        default: fputs(compare_help, stderr); return 2;
        }
    }
    if (optind < argc)
        return cli_failf("compare", 2, "unexpected argument '%s'", argv[optind]);
    if (!*cluster || !*trace || *n == 0)
        return cli_failf("compare", 2, "--cluster, --trace and --policy are required");
    return -1;
}

int cmd_compare(int argc, char **argv)
{
    static struct run runs[MAX_POLICIES];
    const char *cluster = NULL, *trace = NULL, *html = NULL;
    int n = 0, json = 0, loaded = 0;
    memset(runs, 0, sizeof runs);
    int st = parse_args(argc, argv, &cluster, &trace, runs, &n, &json, &html);
    if (st >= 0)
        return st;
    struct gs_cluster *cl = cli_load_cluster("compare", cluster);
    struct gs_trace *tr = cl ? cli_load_trace("compare", trace, 1) : NULL;
    int status = tr ? 0 : 1;
    for (; status == 0 && loaded < n; loaded++) {
        policy_name(runs[loaded].path, runs[loaded].name, sizeof runs[loaded].name);
        if (cli_load_policy("compare", runs[loaded].path, &runs[loaded].pol) < 0)
            status = 1;
    }
    struct cli_html h;
    struct gs_sim_opts o = { 0 };
    struct gs_sim_result first;
    memset(&first, 0, sizeof first);
    cli_html_init(&h, html != NULL);
    cli_html_opts(&h, &o);
    for (int i = 0; status == 0 && i < n; i++)
        status = run_one(&runs[i], cl, tr, i == 0 ? &o : NULL, i == 0 ? &first : NULL);
    if (status == 0 && html)
        status = write_html(html, &h, &first, runs, n);
    gs_sim_result_fini(&first);
    cli_html_fini(&h);
    if (status == 0 && json)
        cli_print_json(runs_json(runs, n));
    else if (status == 0) {
        print_table(runs, n);
        print_class_table(runs, n);
    }
    for (int i = 0; i < n; i++) {
        if (i < loaded)
            gs_policy_fini(&runs[i].pol);
        gs_summary_fini(&runs[i].sum);
    }
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    return status;
}

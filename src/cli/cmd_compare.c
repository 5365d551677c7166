/* cmd_compare.c - `gpusched compare`: several policies on one trace. */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/html_out.h"
#include "cli/progress_out.h"
#include "io/failures_yaml.h"
#include "report/report.h"
#include "report/report_fail.h"
#include "report/report_preempt.h"
#include "sim/sim.h"

#include <assert.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POLICIES GS_CLI_MAX_POLICIES

static const char *const compare_help =
    "usage: gpusched compare --cluster C.yaml --trace T.csv --policy A.yaml\n"
    "                        --policy B.yaml ... [--json] [--html FILE]\n"
    "                        [--failures F.yaml]\n"
    "\n"
    "Run every policy on the same trace and print one table: queue-wait p50/p90/p99\n"
    "overall and per size class, util_alloc, schedulability, jobs_per_gpu_day, the\n"
    "number of backfilled jobs and the accuracy of the duration estimates\n"
    "(median and p90 of estimate/actual, share underestimated).\n"
    "\n"
    "  --html FILE   also write a self-contained HTML report with charts\n"
    "  --failures F  random node failures drawn in every run, the same for each\n"
    "                policy (docs/failures.md): adds ETTR, lost GPU-h and failure\n"
    "                counts per policy (a table; `failures` in --json); F.yaml's\n"
    "                node_events log is replayed in every run too\n";

/* One policy's replay; path, name and policy are borrowed from the
 * arguments and the loaded inputs. */
struct run {
    const char *path, *name;
    const struct gs_policy *pol;
    struct gs_summary sum;
    struct gs_wait_cdf cdf;
    json_t *fail;        /* owned: the failures object (--failures), or NULL */
};

struct compare_args {
    const char *cluster, *trace, *html, *failures;
    struct gs_failure_model model;
    struct gs_failures_extra fex; /* F.yaml's node_events */
    struct gs_node_events ne;     /* its log, loaded against the cluster */
    const char *policies[MAX_POLICIES];
    int npol, json;
};

/* Replay under r's policy; `keep` (may be NULL) receives the result with
 * its engine (the HTML report draws the first run). */
static int run_one(struct run *r, const struct gs_cluster *cl, const struct gs_trace *tr,
                   const struct gs_sim_opts *opts, struct gs_sim_result *keep)
{
    struct gs_sim_result res0 = { 0 }, *res = keep ? keep : &res0;
    struct gs_error err = { 0 };
    if (gs_sim_run(cl, r->pol, tr, opts, res, &err) < 0)
        return cli_failf("compare", 1, "%s: %s", r->path, err.msg);
    r->sum = res->summary;
    res->summary.teams = NULL; /* moved into r->sum */
    res->summary.nteams = 0;
    res->summary.pre.teams = NULL;
    res->summary.pre.nteams = 0;
    gs_wait_cdf_build(&r->cdf, res->engine);
    if (res->fail && !(r->fail = gs_report_fail_json(res->engine, res->fail))) {
        if (!keep)
            gs_sim_result_fini(res);
        return cli_failf("compare", 1, "out of memory");
    }
    if (!keep)
        gs_sim_result_fini(res);
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

/* --failures: what they cost under each policy. */
static void print_fail_table(const struct run *runs, int n)
{
    if (!runs[0].fail)
        return;
    printf("\nnode failures (one process, drawn while each run has jobs)\n"
           "%-22s %8s %8s %8s %12s %8s %13s\n",
           "policy", "failures", "runs", "jobs", "lost GPU-h", "ETTR", "largest ETTR");
    for (int i = 0; i < n; i++) {
        const json_t *f = runs[i].fail, *l = json_object_get(f, "largest");
        printf("%-22.22s %8lld %8lld %8lld %12.1f %8.4f %13.4f\n", runs[i].name,
               (long long)json_integer_value(json_object_get(f, "events")),
               (long long)json_integer_value(json_object_get(f, "runs_ended")),
               (long long)json_integer_value(json_object_get(f, "jobs_hit")),
               json_number_value(json_object_get(f, "lost_gpu_s")) / 3600,
               json_number_value(json_object_get(f, "ettr")),
               json_number_value(json_object_get(l, "ettr")));
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
    assert(n >= 1 && n <= MAX_POLICIES); /* compare needs a --policy */
    struct gs_wait_cdf *cdfs = calloc((size_t)n, sizeof *cdfs);
    if (!cdfs)
        return cli_failf("compare", 1, "out of memory");
    for (int i = 0; i < n; i++) {
        sums[i] = &runs[i].sum;
        pols[i] = runs[i].pol;
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
        json_t *o = gs_report_summary_json(&runs[i].sum, runs[i].pol);
        if (o)
            json_object_set_new(o, "name", json_string(runs[i].name));
        if (o && runs[i].fail)
            json_object_set(o, "failures", runs[i].fail);
        json_array_append_new(arr, o);
    }
    return json_pack("{s:o}", "policies", arr);
}

static int compare_opt(int c, const char *val, void *arg)
{
    struct compare_args *a = arg;
    switch (c) {
    case 'c': a->cluster = val; break;
    case 't': a->trace = val; break;
    case 'p':
        if (a->npol == MAX_POLICIES)
            return cli_failf("compare", -1, "at most %d policies", MAX_POLICIES);
        a->policies[a->npol++] = val;
        break;
    case 'j': a->json = 1; break;
    case 'H': a->html = val; break;
    case 'F': a->failures = val; break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "trace", required_argument, NULL, 't' },
        { "policy", required_argument, NULL, 'p' },  { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },          { "html", required_argument, NULL, 'H' },
        { "failures", required_argument, NULL, 'F' },
        { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "compare", compare_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, compare_opt, a);
    if (st >= 0)
        return st;
    if (!a->cluster || !a->trace || a->npol == 0)
        return cli_failf("compare", 2, "--cluster, --trace and --policy are required");
    return -1;
}

/* Replay every policy, then print the table or JSON and write the HTML. */
static int run_all(const struct compare_args *a, const struct gs_cli_inputs *in,
                   struct run *runs, int n)
{
    struct cli_html h;
    struct gs_sim_opts o = { 0 };
    o.failures = a->failures ? &a->model : NULL;
    o.node_events = a->fex.events[0] ? &a->ne : NULL;
    struct gs_sim_result first;
    memset(&first, 0, sizeof first);
    cli_html_init(&h, a->html != NULL);
    cli_html_names(&h, a->cluster, a->trace, a->policies, a->npol);
    cli_html_opts(&h, &o);
    int status = 0;
    for (int i = 0; status == 0 && i < n; i++) {
        struct cli_progress prog;
        struct gs_sim_opts rest = { 0 }, *oi = i == 0 ? &o : &rest;
        rest.failures = o.failures;
        rest.node_events = o.node_events;
        cli_progress_init(&prog, "compare", runs[i].name, in->trace);
        cli_progress_opts(&prog, oi);
        status = run_one(&runs[i], in->cluster, in->trace,
                         i == 0 || prog.on || o.failures ? oi : NULL,
                         i == 0 ? &first : NULL);
        cli_progress_done(&prog, status == 0);
    }
    if (status == 0 && first.engine && gs_cli_check_rejected("compare", first.engine))
        status = 1;
    if (status == 0 && a->html)
        status = write_html(a->html, &h, &first, runs, n);
    gs_sim_result_fini(&first);
    cli_html_fini(&h);
    if (status == 0 && a->json)
        status = cli_print_json(runs_json(runs, n));
    else if (status == 0) {
        print_table(runs, n);
        print_class_table(runs, n);
        print_fail_table(runs, n);
    }
    return status;
}

/* F.yaml's node_events: the log replayed in every run with the draws. */
static int load_log(struct compare_args *a, const struct gs_cli_inputs *in)
{
    struct gs_error err = { 0 };
    if (gs_failures_extra_events(&a->fex, in->cluster, gs_trace_epoch(in->trace), &a->ne,
                                 &err) == 0)
        return 0;
    cli_fail("compare", &err);
    return -1;
}

int cmd_compare(int argc, char **argv)
{
    static struct run runs[MAX_POLICIES];
    struct compare_args a;
    memset(&a, 0, sizeof a);
    memset(runs, 0, sizeof runs);
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct gs_cli_inputs in;
    gs_cli_inputs_init(&in, "compare");
    int status = 1;
    struct gs_error err = { 0 };
    if (a.failures && gs_failures_load_yaml_ex(a.failures, &a.model, &a.fex, &err) < 0) {
        cli_fail("compare", &err);
    } else if (gs_cli_inputs_load(&in, a.cluster, a.trace, 1, a.policies, a.npol) == 0 &&
               load_log(&a, &in) == 0) {
        for (int i = 0; i < a.npol; i++) {
            runs[i] = (struct run){ .path = a.policies[i], .name = in.names[i],
                                    .pol = &in.pols[i] };
            gs_cli_warn_load("compare", in.cluster, &in.pols[i], in.names[i], in.trace);
        }
        status = run_all(&a, &in, runs, a.npol);
    }
    for (int i = 0; i < a.npol; i++) {
        gs_summary_fini(&runs[i].sum);
        json_decref(runs[i].fail);
    }
    gs_node_events_fini(&a.ne);
    gs_cli_inputs_fini(&in);
    return status;
}

/* cmd_whatif.c - `gpusched whatif`: fragmentation or shortage?  The trace
 * on the actual cluster, on the fluid cluster, under other policies and
 * with added nodes; one table and a verdict (sim/whatif.h). */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/html_out.h"
#include "cli/progress_out.h"
#include "cli/whatif_fail_out.h"
#include "io/failures_yaml.h"
#include "io/node_events_csv.h"
#include "report/report_whatif.h"
#include "sim/whatif.h"
#include "sim/whatif_fail.h"

#include <jansson.h>
#include <string.h>

#define MAX_POLICIES 16
#define MAX_ADDS 16

static const char *const whatif_help =
    "usage: gpusched whatif --cluster C.yaml --trace T.csv [--policy P.yaml ...]\n"
    "                       [--add-nodes 1,2,4] [--json] [--html FILE]\n"
    "       gpusched whatif --cluster C.yaml --trace T.csv --failures F.yaml [--policy P]\n"
    "                       [--min-gpus G] [--spares 0,1,2,4] [--node-events E.csv] [--json]\n"
    "\n"
    "Is the queue caused by fragmentation or by a real shortage of GPUs?  Replays\n"
    "the trace (1) as is, under the first policy; (2) on the fluid cluster: the\n"
    "same GPUs with no node or NVLink-domain boundaries (the fragmentation-free\n"
    "bound); (3) under each further policy; (4) with N more nodes shaped like the\n"
    "cluster's most common node, under the first policy.  Prints one table\n"
    "(wait p50/p90/p99 overall and per size class, util_alloc, util_effective,\n"
    "S_k) and a verdict with numbers: how much of the p90/p99 wait is\n"
    "fragmentation, how much a policy change recovers, how much more nodes\n"
    "would, whether even the fluid cluster queues, and when complex scheduling\n"
    "is unnecessary (docs/diagnosis.md).\n"
    "\n"
    "  --cluster FILE    cluster YAML\n"
    "  --trace FILE      trace CSV (.gz accepted)\n"
    "  --policy FILE     policy YAML; repeat for alternatives (default: defaults)\n"
    "  --add-nodes LIST  comma-separated node counts to add, e.g. 1,2,4\n"
    "  --json            print JSON {runs, verdict}\n"
    "  --html FILE       also write a self-contained HTML report\n"
    "\n"
    "With --failures (docs/failures.md, \"Advice\"): for the jobs that matter (those\n"
    "of the most GPUs, or of at least --min-gpus), their ETTR and GPU-hours lost to\n"
    "node failures against their checkpoint interval (Young/Daly's sqrt(2 C M) x\n"
    "1/4 ... 4, and the current one) and the number of hot spare nodes (policy\n"
    "spares.nodes, for jobs of their size), every run with the same failures; and\n"
    "which change helps them most.  Only the first policy is used.\n"
    "  --failures F      the failure model (node_mtbf, repair, seed, ...)\n"
    "  --min-gpus G      the jobs that matter: G GPUs or more (default: the largest)\n"
    "  --spares LIST     spare-node counts to try (default 0,1,2,4; at most 8)\n"
    "  --node-events E   node events replayed in every run too (as sim's)\n";

struct whatif_args {
    const char *cluster, *trace, *html;
    const char *pol_paths[MAX_POLICIES];
    int npol;
    int add[MAX_ADDS];
    int nadd;
    int json;
    const char *failures, *node_events; /* --failures: the failure advice */
    int min_gpus;
    int spares[GS_WFAIL_MAX_SPARES];
    int nspares;
};

static int parse_spares(const char *text, struct whatif_args *a)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    a->nspares = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        long long v;
        if (a->nspares == GS_WFAIL_MAX_SPARES)
            return cli_failf("whatif", -1, "--spares: at most %d counts", GS_WFAIL_MAX_SPARES);
        if (cli_parse_long("whatif", "--spares", tok, 0, 65536, &v) < 0)
            return -1;
        a->spares[a->nspares++] = (int)v;
    }
    return a->nspares ? 0 : cli_failf("whatif", -1, "--spares: expected counts, e.g. 0,1,2");
}

static int parse_adds(const char *text, struct whatif_args *a)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        long long v;
        if (a->nadd == MAX_ADDS)
            return cli_failf("whatif", -1, "--add-nodes: at most %d counts", MAX_ADDS);
        if (cli_parse_long("whatif", "--add-nodes", tok, 1, 4096, &v) < 0)
            return -1;
        a->add[a->nadd++] = (int)v;
    }
    return 0;
}

static int whatif_opt(int c, const char *val, void *arg)
{
    struct whatif_args *a = arg;
    switch (c) {
    case 'c': a->cluster = val; break;
    case 't': a->trace = val; break;
    case 'p':
        if (a->npol == MAX_POLICIES)
            return cli_failf("whatif", -1, "at most %d policies", MAX_POLICIES);
        a->pol_paths[a->npol++] = val;
        break;
    case 'n': return parse_adds(val, a);
    case 'j': a->json = 1; break;
    case 'H': a->html = val; break;
    case 'F': a->failures = val; break;
    case 'N': a->node_events = val; break;
    case 's': return parse_spares(val, a);
    case 'g': {
        long long v;
        if (cli_parse_long("whatif", "--min-gpus", val, 1, 1000000000, &v) < 0)
            return -1;
        a->min_gpus = (int)v;
        break;
    }
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct whatif_args *a)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "trace", required_argument, NULL, 't' },
        { "policy", required_argument, NULL, 'p' },  { "add-nodes", required_argument, NULL, 'n' },
        { "json", no_argument, NULL, 'j' },          { "html", required_argument, NULL, 'H' },
        { "failures", required_argument, NULL, 'F' }, { "node-events", required_argument, NULL, 'N' },
        { "spares", required_argument, NULL, 's' },   { "min-gpus", required_argument, NULL, 'g' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "whatif", whatif_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, whatif_opt, a);
    if (st >= 0)
        return st;
    if (!a->cluster || !a->trace)
        return cli_failf("whatif", 2, "--cluster and --trace are required (see --help)");
    if (!a->failures && (a->node_events || a->nspares || a->min_gpus))
        return cli_failf("whatif", 2, "--min-gpus, --spares and --node-events need --failures");
    if (a->failures && (a->nadd || a->html || a->npol > 1))
        return cli_failf("whatif", 2, "--failures takes one --policy and no --add-nodes or "
                                      "--html");
    return -1;
}

/* Wrap `text` at ~78 columns on stdout. */
static void print_wrapped(const char *text)
{
    int col = 0;
    for (const char *p = text; *p;) {
        size_t w = strcspn(p, " ");
        if (col > 0 && col + (int)w + 1 > 78) {
            putchar('\n');
            col = 0;
        } else if (col > 0) {
            putchar(' ');
            col++;
        }
        fwrite(p, 1, w, stdout);
        col += (int)w;
        p += w;
        while (*p == ' ')
            p++;
    }
    putchar('\n');
}

static int report(const struct whatif_args *a, struct gs_whatif *w, struct cli_html *h,
                  const struct gs_policy *pol)
{
    char text[8192];
    if (a->json) {
        if (cli_print_json(gs_report_whatif_json(w)))
            return 1;
    } else {
        gs_report_whatif_table(stdout, w);
        gs_report_whatif_verdict(text, sizeof text, w);
        printf("\n");
        print_wrapped(text);
    }
    return a->html ? cli_html_whatif(a->html, h, w, pol) : 0;
}

static int run(const struct whatif_args *a, const struct gs_cli_inputs *in)
{
    struct cli_html h;
    cli_html_init(&h, a->html != NULL);
    cli_html_names(&h, a->cluster, a->trace, a->pol_paths, a->npol);
    struct gs_sim_opts opts = { 0 };
    cli_html_opts(&h, &opts);
    struct cli_progress prog;
    cli_progress_init(&prog, "whatif", "actual run", in->trace);
    cli_progress_opts(&prog, &opts);
    static struct gs_whatif w; /* large: keep it off the stack */
    struct gs_error err = { 0 };
    int status = 0;
    int rc = gs_whatif_run(&w, in->cluster, in->trace, in->pols, in->names, in->npol, a->add,
                           a->nadd, &opts, &err);
    cli_progress_done(&prog, rc >= 0);
    if (rc < 0)
        status = cli_fail("whatif", &err);
    else if (gs_cli_check_rejected("whatif", w.actual.engine))
        status = 1;
    else
        status = report(a, &w, &h, &in->pols[0]);
    gs_whatif_fini(&w);
    cli_html_fini(&h);
    return status;
}

/* --failures: the checkpoint interval x spares grid and its verdict. */
static int run_failures(const struct whatif_args *a, const struct gs_cli_inputs *in)
{
    struct gs_failure_model m;
    struct gs_node_events ne = { 0 };
    struct gs_error err = { 0 };
    static struct gs_wfail w; /* large: keep it off the stack */
    static struct gs_failures_extra fex; /* F.yaml's node_events */
    if (gs_failures_load_yaml_ex(a->failures, &m, &fex, &err) < 0 ||
        (a->node_events && gs_node_events_load(a->node_events, in->cluster,
                                               gs_trace_epoch(in->trace), &ne, &err) < 0) ||
        gs_failures_extra_events(&fex, in->cluster, gs_trace_epoch(in->trace), &ne, &err) < 0) {
        gs_node_events_fini(&ne);
        return cli_fail("whatif", &err);
    }
    struct gs_wfail_opts o = { a->min_gpus, a->nspares ? a->spares : NULL, a->nspares };
    int rc = gs_wfail_run(&w, in->cluster, &in->pols[0], in->trace, &m,
                          a->node_events || fex.events[0] ? &ne : NULL, &o, &err);
    gs_node_events_fini(&ne);
    if (rc < 0)
        return cli_fail("whatif", &err);
    if (a->json)
        return cli_print_json(cli_wfail_json(&w)) ? 1 : 0;
    char text[2048];
    cli_wfail_table(stdout, &w, &m);
    cli_wfail_verdict(text, sizeof text, &w);
    printf("\n");
    print_wrapped(text);
    return 0;
}

int cmd_whatif(int argc, char **argv)
{
    struct whatif_args a;
    memset(&a, 0, sizeof a);
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct gs_cli_inputs in;
    gs_cli_inputs_init(&in, "whatif");
    /* no --policy: one run under the defaults (pol_paths[0] is NULL) */
    int npol = a.npol ? a.npol : 1;
    int status = 1;
    if (gs_cli_inputs_load(&in, a.cluster, a.trace, 1, a.pol_paths, npol) == 0) {
        for (int i = 0; i < in.npol; i++)
            gs_cli_warn_load("whatif", in.cluster, &in.pols[i], in.names[i], in.trace);
        status = a.failures ? run_failures(&a, &in) : run(&a, &in);
    }
    gs_cli_inputs_fini(&in);
    return status;
}

/* cmd_import_openb.c - `gpusched import --format openb`: the FGD paper's
 * Alibaba trace (io/import_openb.h) into a native cluster YAML and trace. */
#include "cli/cli.h"
#include "cli/cli_out.h"
#include "cli/cli_load.h"
#include "cli/progress_out.h"
#include "io/import_openb.h"
#include "io/trace_csv.h"


static const char *const openb_help =
    "usage: gpusched import --format openb --nodes NODES.csv --pods PODS.csv\n"
    "                       [--cluster-out C.yaml] [--trace-out T.csv] [--json]\n"
    "\n"
    "Convert Alibaba's cluster-trace-gpu-v2023 (\"openb\", the FGD paper's data,\n"
    "shared/traces/openb/) into native formats.  Nodes become cluster nodes (one\n"
    "NVLink domain each: openb has no topology) with CPU and memory; pods become\n"
    "jobs with gpus, gpu_share (gpu_milli / 1000), cpu, host_mem_gb, gpu_model\n"
    "(gpu_spec, alternatives kept as A|B), queue (qos), submit (creation_time)\n"
    "and duration (deletion - scheduled).  A report of what was read, defaulted\n"
    "and dropped goes to stderr (--json: to stdout as JSON).  docs/formats.md\n"
    "has the field mapping.\n"
    "\n"
    "  --nodes FILE        openb_node_list_*.csv\n"
    "  --pods FILE         openb_pod_list_*.csv\n"
    "  --cluster-out FILE  write the cluster YAML here (- = stdout)\n"
    "  --trace-out FILE    write the trace CSV here (- = stdout)\n"
    "  --json              print the report as JSON on stdout\n";

struct openb_args {
    const char *nodes, *pods, *cluster_out, *trace_out;
    int json;
};

static int openb_opt(int c, const char *val, void *arg)
{
    struct openb_args *a = arg;
    switch (c) {
    case 'f': break; /* already dispatched on */
    case 'n': a->nodes = val; break;
    case 'p': a->pods = val; break;
    case 'c': a->cluster_out = val; break;
    case 't': a->trace_out = val; break;
    case 'j': a->json = 1; break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct openb_args *a)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },    { "nodes", required_argument, NULL, 'n' },
        { "pods", required_argument, NULL, 'p' },      { "cluster-out", required_argument, NULL, 'c' },
        { "trace-out", required_argument, NULL, 't' }, { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },            { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "import", openb_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, openb_opt, a);
    if (st >= 0)
        return st;
    if (!a->nodes || !a->pods)
        return cli_failf("import", 2, "--nodes and --pods are required (see --format openb "
                                      "--help)");
    return -1;
}

/* Both files are renamed into place only when both were written. */
static int write_outputs(const struct openb_args *a, const struct gs_openb_result *r)
{
    struct gs_error err = { 0 };
    struct cli_out c = { 0 }, t = { 0 };
    int st = 0;
    if (a->cluster_out) {
        st = cli_out_open("import", &c, a->cluster_out);
        if (!st && gs_openb_write_cluster_yaml(c.f, r, &err) < 0)
            st = cli_fail("import", &err);
        st = st ? st : cli_out_close("import", &c);
    }
    if (!st && a->trace_out) {
        st = cli_out_open("import", &t, a->trace_out);
        if (!st && gs_trace_write_csv(t.f, r->trace, &err) < 0)
            st = cli_fail("import", &err);
        st = st ? st : cli_out_close("import", &t);
    }
    if (!st && a->cluster_out)
        st = cli_out_commit("import", &c);
    if (!st && a->trace_out)
        st = cli_out_commit("import", &t);
    cli_out_discard(&c);
    cli_out_discard(&t);
    return st;
}

int cli_import_openb(int argc, char **argv)
{
    struct openb_args a = { 0 };
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct gs_openb_result r;
    struct gs_error err = { 0 };
    struct cli_import_progress prog;
    int rc = gs_openb_load_progress(a.nodes, a.pods, cli_import_progress_init(&prog), &r, &err);
    cli_import_progress_done(&prog, rc >= 0);
    if (rc < 0)
        return cli_fail("import", &err);
    int status = write_outputs(&a, &r);
    gs_openb_report(a.json ? stdout : stderr, &r, a.json);
    gs_openb_result_fini(&r);
    return status;
}

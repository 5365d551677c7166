/* cmd_import_sacct.c - `gpusched import --format sacct`: Slurm accounting
 * (io/import_sacct.h) into a native trace and a cluster YAML. */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/progress_out.h"
#include "io/import_sacct.h"

#include <inttypes.h>
#include <jansson.h>
#include <string.h>

static const char *const sacct_help =
    "usage: gpusched import --format sacct --in FILE [--trace-out T.csv]\n"
    "                       [--cluster-out C.yaml] [--gpus-per-node N] [--json]\n"
    "\n"
    "Convert Slurm accounting into a native trace: the output of `sacct --json`\n"
    "or of `sacct -P` (`--parsable2`) with a header and any of the columns\n"
    "JobID, Submit, Start, End, Elapsed, Timelimit, AllocTRES, ReqTRES, NNodes,\n"
    "NodeList, Partition, Account, User, JobName, State, Priority (JobID, Submit,\n"
    "Start, End or Elapsed, AllocTRES or ReqTRES are required), e.g.\n"
    "\n"
    "  sacct -a -X -D -P -S 2026-11-01 -E now \\\n"
    "    --format=JobID,Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,NNodes,\\\n"
    "NodeList,Partition,Account,User,JobName,State,Priority > acct.txt\n"
    "\n"
    "Steps are skipped (only each job's allocation counts).  The rows of one\n"
    "JobID (sacct -D lists every run of a requeued job) are one job: submit is\n"
    "its first Submit, duration the Elapsed of its last run, GPUs that run's\n"
    "gres/gpu; earlier runs are counted as lost work.  Every dropped or\n"
    "defaulted row is counted by reason on stderr (--json: stdout), with where\n"
    "each reason first occurred.  docs/slurm.md has the field mapping.\n"
    "\n"
    "  --in FILE            sacct output (.gz read directly; - = stdin)\n"
    "  --trace-out FILE     write the trace here (- = stdout)\n"
    "  --cluster-out FILE   write a cluster YAML of the nodes in the node lists\n"
    "  --gpus-per-node N    GPUs of each node in that YAML (default 8)\n"
    "  --json               print the report as JSON on stdout\n";

struct sacct_args {
    const char *in, *trace_out, *cluster_out;
    long long gpn;
    int json;
};

static int sacct_opt(int c, const char *val, void *arg)
{
    struct sacct_args *a = arg;
    switch (c) {
    case 'f': break;
    case 'i': a->in = val; break;
    case 't': a->trace_out = val; break;
    case 'c': a->cluster_out = val; break;
    case 'g': return cli_parse_long("import", "--gpus-per-node", val, 1, 64, &a->gpn);
    case 'j': a->json = 1; break;
    }
    return 0;
}

static const char *const drop_names[GS_SACCT_DROP_COUNT] = {
    "never_started", "running", "duplicate", "fields", "value",
};
static const char *const state_names[GS_SACCT_STATE_COUNT] = {
    "completed", "cancelled", "failed", "timeout", "preempted", "node_fail", "out_of_memory",
    "other",
};

static void summary(FILE *f, const struct sacct_args *a, const struct gs_sacct_stats *s)
{
    int64_t dropped = 0;
    for (int i = 0; i < GS_SACCT_DROP_COUNT; i++)
        dropped += s->dropped[i];
    fprintf(f, "gpusched import: %s: %" PRId64 " rows: %" PRId64 " jobs %s%s, %" PRId64
               " steps skipped, %" PRId64 " earlier runs of %" PRId64 " requeued jobs counted"
               " as lost work (%.0f GPU-s), %" PRId64 " rows dropped.\n",
            a->in, s->rows, s->jobs, a->trace_out ? "written to " : "converted",
            a->trace_out ? a->trace_out : "", s->steps, s->runs_lost, s->requeued_jobs,
            s->lost_gpu_s, dropped);
    for (int i = 0; i < GS_SACCT_DROP_COUNT; i++)
        if (s->dropped[i])
            fprintf(f, "  dropped %-14s %" PRId64 " (first: %s)\n", drop_names[i],
                    s->dropped[i], s->first_drop[i]);
    fprintf(f, "  defaulted: %" PRId64 " without a time limit, %" PRId64 " without an account"
               " (team default), %" PRId64 " GPUs from ReqTRES, %" PRId64 " priority clamped"
               " to 1e9; %" PRId64 " CPU-only jobs kept (0 GPUs), %" PRId64 " multi-node.\n",
            s->no_limit, s->no_account, s->from_req_tres, s->priority_clamped, s->cpu_only,
            s->multi_node);
    fprintf(f, "  final states:");
    for (int i = 0; i < GS_SACCT_STATE_COUNT; i++)
        fprintf(f, " %s %" PRId64, state_names[i], s->state[i]);
    fprintf(f, "; %.1f GPU-hours; time 0 = UNIX %" PRId64 ".\n", s->gpu_hours, s->submit_min);
}

static json_t *report_json(const struct sacct_args *a, const struct gs_sacct_stats *s)
{
    json_t *drop = json_object(), *first = json_object(), *states = json_object();
    for (int i = 0; i < GS_SACCT_DROP_COUNT; i++) {
        json_object_set_new(drop, drop_names[i], json_integer(s->dropped[i]));
        if (s->dropped[i])
            json_object_set_new(first, drop_names[i], json_string(s->first_drop[i]));
    }
    for (int i = 0; i < GS_SACCT_STATE_COUNT; i++)
        json_object_set_new(states, state_names[i], json_integer(s->state[i]));
    return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I,"
                     " s:I, s:o, s:I, s:f}",
                     "file", a->in, "rows", (json_int_t)s->rows, "jobs", (json_int_t)s->jobs,
                     "steps", (json_int_t)s->steps, "dropped", drop, "first_drop", first,
                     "requeued_jobs", (json_int_t)s->requeued_jobs, "runs_lost",
                     (json_int_t)s->runs_lost, "lost_gpu_s", s->lost_gpu_s, "no_limit",
                     (json_int_t)s->no_limit, "no_account", (json_int_t)s->no_account,
                     "from_req_tres", (json_int_t)s->from_req_tres, "priority_clamped",
                     (json_int_t)s->priority_clamped, "cpu_only", (json_int_t)s->cpu_only,
                     "multi_node", (json_int_t)s->multi_node, "states", states, "submit_min",
                     (json_int_t)s->submit_min, "gpu_hours", s->gpu_hours);
}

static int write_out(const char *path, const struct gs_sacct_result *r, int cluster, int gpn)
{
    FILE *f = cli_open_out("import", path);
    if (!f)
        return 1;
    struct gs_error err = { 0 };
    int rc = cluster ? gs_sacct_write_cluster_yaml(f, r, gpn, &err)
                     : gs_sacct_write_csv(f, r, &err);
    int st = cli_close("import", f, path);
    if (rc < 0)
        return cli_failf("import", 1, "%s: %s", path, err.msg);
    if (cluster && rc > 0)
        fprintf(stderr, "gpusched import: %s: %d jobs need more than %d GPUs per node: raise"
                        " --gpus-per-node\n", path, rc, gpn);
    return st ? 1 : 0;
}

int cli_import_sacct(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },      { "in", required_argument, NULL, 'i' },
        { "trace-out", required_argument, NULL, 't' },   { "cluster-out", required_argument, NULL, 'c' },
        { "gpus-per-node", required_argument, NULL, 'g' }, { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },              { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "import", sacct_help, opts };
    struct sacct_args a = { .gpn = 8 };
    int st = gs_cli_parse(&cmd, argc, argv, sacct_opt, &a);
    if (st >= 0)
        return st;
    if (!a.in)
        return cli_failf("import", 2, "--in is required (see --format sacct --help)");
    if (a.json && a.trace_out && strcmp(a.trace_out, "-") == 0)
        return cli_failf("import", 2, "--json and --trace-out - both want stdout");
    struct gs_sacct_result r;
    struct gs_error err = { 0 };
    struct cli_import_progress prog;
    int rc = gs_sacct_load_progress(a.in, cli_import_progress_init(&prog), &r, &err);
    cli_import_progress_done(&prog, rc >= 0);
    if (rc < 0)
        return cli_fail("import", &err);
    st = a.trace_out ? write_out(a.trace_out, &r, 0, 0) : 0;
    if (st == 0 && a.cluster_out)
        st = write_out(a.cluster_out, &r, 1, (int)a.gpn);
    if (st == 0) {
        summary(stderr, &a, &r.stats);
        if (a.json)
            cli_print_json(report_json(&a, &r.stats));
    }
    gs_sacct_result_fini(&r);
    return st;
}

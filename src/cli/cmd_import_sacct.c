/* cmd_import_sacct.c - `gpusched import --format sacct`: Slurm accounting
 * (io/import_sacct.h) into a native trace and a cluster YAML. */
#include "cli/cli.h"
#include "cli/cli_capacity.h"
#include "cli/cli_load.h"
#include "cli/progress_out.h"
#include "io/import_sacct.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const sacct_help =
    "usage: gpusched import --format sacct --in FILE [--trace-out T.csv]\n"
    "                       [--cluster-out C.yaml] [--gpus-per-node N] [--json]\n"
    "                       [--node-events-out E.csv [--cap-window S]\n"
    "                        [--cap-users N] [--cap-quantile Q]]\n"
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
    "  --json               print the report as JSON on stdout\n"
    "  --node-events-out FILE  write the capacity inferred from the log as node\n"
    "                      events for the nodes of --cluster-out (sim --node-events):\n"
    "                      per 12 h window, the GPUs in use while 1-GPU one-node\n"
    "                      jobs of at least 2 users waited over 60 s; stops where\n"
    "                      jobs waited while nothing ran for 1 h (io/capacity.h,\n"
    "                      docs/slurm.md)\n"
    CLI_CAP_HELP;

struct sacct_args {
    const char *in, *trace_out, *cluster_out;
    long long gpn;
    int json;
    struct cli_cap_args cap;
};

static int sacct_opt(int c, const char *val, void *arg)
{
    struct sacct_args *a = arg;
    int cap = cli_cap_opt(&a->cap, c, val);
    if (cap != 0)
        return cap < 0 ? -1 : 0;
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

static int cmp_user(const void *x, const void *y)
{
    const char *const *a = x, *const *b = y;
    return strcmp(*a ? *a : "", *b ? *b : "");
}

/* The jobs as capacity records (io/capacity.h), times in seconds since the
 * first submit: start and end of the last run; evidence = 1-GPU jobs on
 * one node (they fit any node with a free GPU); users numbered in name
 * order.  A requeued job (runs > 1) is no evidence and waits for nothing:
 * its last run started after earlier runs, not after a wait, and those
 * runs' usage is missing (sacct -D gives their times but the trace keeps
 * only the last).  Returns the count, or -1 (out of memory). */
static long cap_records(const struct gs_sacct_result *r, struct gs_cap_record **out)
{
    size_t n = gs_trace_count(r->trace);
    struct gs_cap_record *v = calloc(n ? n : 1, sizeof *v);
    const char **users = calloc(n ? n : 1, sizeof *users);
    if (!v || !users) {
        free(v);
        free(users);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        users[i] = gs_trace_job(r->trace, i)->user;
    qsort(users, n, sizeof *users, cmp_user);
    for (size_t i = 0; i < n; i++) {
        const struct gs_job_spec *s = gs_trace_job(r->trace, i);
        const struct gs_sacct_job_extra *x = &r->extra[i];
        const char *u = s->user;
        const char **hit = bsearch(&u, users, n, sizeof *users, cmp_user);
        while (hit && hit > users && cmp_user(hit - 1, &u) == 0)
            hit--; /* the first of equal names: one id per name */
        int64_t sub = s->submit / GS_MS_PER_SEC;
        int requeued = x->runs > 1;
        v[i] = (struct gs_cap_record){ requeued || x->start < sub ? x->start : sub, x->start,
                                       x->end > x->start ? x->end : x->start, s->gpus,
                                       !requeued && s->gpus == 1 && x->nodes <= 1,
                                       hit ? (int)(hit - users) : -1 };
    }
    free(users);
    *out = v;
    return (long)n;
}

/* Infer the capacity and write it as node events for the nodes of
 * --cluster-out (cli_capacity.h). */
static int write_capacity(const struct gs_sacct_result *r, const struct sacct_args *a)
{
    struct gs_cap_record *v = NULL;
    char **names = NULL;
    int nn = 0;
    struct gs_error err = { 0 };
    long n = cap_records(r, &v);
    if (n < 0)
        return cli_failf("import", 1, "out of memory");
    if (gs_sacct_node_names(r, &names, &nn, &err) < 0) {
        free(v);
        return cli_fail("import", &err);
    }
    int st = nn == 0 ? cli_failf("import", 1, "--node-events-out: the log names no nodes")
                     : cli_cap_write(&a->cap, v, (size_t)n, (int)a->gpn, nn, NULL, names);
    gs_sacct_node_names_free(names, nn);
    free(v);
    return st;
}

int cli_import_sacct(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },      { "in", required_argument, NULL, 'i' },
        { "trace-out", required_argument, NULL, 't' },   { "cluster-out", required_argument, NULL, 'c' },
        { "gpus-per-node", required_argument, NULL, 'g' }, { "json", no_argument, NULL, 'j' },
        CLI_CAP_OPTIONS,
        { "help", no_argument, NULL, 'h' },              { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "import", sacct_help, opts };
    struct sacct_args a = { .gpn = 8, .cap = { .quantile = -1 } };
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
    if (st == 0 && a.cap.events_out)
        st = write_capacity(&r, &a);
    if (st == 0) {
        summary(stderr, &a, &r.stats);
        if (a.json)
            cli_print_json(report_json(&a, &r.stats));
    }
    gs_sacct_result_fini(&r);
    return st;
}

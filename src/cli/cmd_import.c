/* cmd_import.c - `gpusched import`: public traces -> the native trace format.
 *
 * Each input format is one function with its own options and help; the
 * command only finds --format and hands it the whole argument list.  To add
 * a format (say `--format openb --nodes N.csv --pods P.csv`), write
 * `static int import_openb(int argc, char **argv)` with its own getopt
 * table and add a row to `formats`.  Options of one format mean nothing to
 * another (aaic's --nodes is a node count; openb's would be a file).
 */
#include "cli/cli.h"
#include "cli/cli_out.h"
#include "cli/cli_load.h"
#include "cli/cli_capacity.h"
#include "cli/progress_out.h"
#include "io/capacity.h"
#include "io/import_aaic.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct format {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static int import_aaic(int argc, char **argv);

static const struct format formats[] = {
    { "aaic", import_aaic, "AIST AI Cloud GPU batch-queue log (aistairc/aaic-workload-old)" },
    { "openb", cli_import_openb, "Alibaba GPU-sharing cluster trace of the FGD paper (nodes + pods)" },
    { "sacct", cli_import_sacct, "Slurm accounting: sacct --json or sacct -P (docs/slurm.md)" },
};

#define NFORMATS (sizeof formats / sizeof formats[0])

static void import_usage(FILE *f)
{
    fputs("usage: gpusched import --format FORMAT [format options]\n"
          "\n"
          "Convert a public or accounting trace into the native trace CSV (and,\n"
          "where the format says enough, a cluster YAML).  Formats:\n",
          f);
    for (size_t i = 0; i < NFORMATS; i++)
        fprintf(f, "  %-8s %s\n", formats[i].name, formats[i].summary);
    fputs("\nRun 'gpusched import --format FORMAT --help' for a format's options.\n", f);
    fputs(gs_cli_common_help, f);
}

/* The value of --format in argv (NULL if absent); stops at "--". */
static const char *find_format(int argc, char **argv)
{
    for (int i = 1; i < argc && argv[i]; i++) {
        if (strcmp(argv[i], "--") == 0)
            return NULL;
        if (strcmp(argv[i], "--format") == 0)
            return i + 1 < argc ? argv[i + 1] : "";
        if (strncmp(argv[i], "--format=", 9) == 0)
            return argv[i] + 9;
    }
    return NULL;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && argv[i]; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

int cmd_import(int argc, char **argv)
{
    const char *fmt = find_format(argc, argv);
    if (!fmt) {
        if (wants_help(argc, argv)) {
            import_usage(stdout);
            return 0;
        }
        import_usage(stderr);
        return cli_failf("import", 2, "--format is required");
    }
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(fmt, formats[i].name) == 0)
            return formats[i].run(argc, argv);
    import_usage(stderr);
    return cli_failf("import", 2, "--format: unknown format '%s'", fmt);
}

/* ---- --format aaic ----------------------------------------------------- */

static const char *const aaic_help =
    "usage: gpusched import --format aaic --in FILE.csv[.gz] [--trace-out T.csv]\n"
    "                       [--cluster-out C.yaml] [--nodes N] [--json]\n"
    "                       [--node-events-out E.csv [--cap-window S]\n"
    "                        [--cap-users N] [--cap-quantile Q]]\n"
    "\n"
    "Convert an AIST AI Cloud (AAIC) batch-queue log (shared/traces/aaic/) into a\n"
    "native trace.  Exact duplicate records (all fields but id identical) are\n"
    "dropped; multi-node jobs take whole 8-GPU nodes (gpus = nodes x 8);\n"
    "walltime_req becomes time_limit, group the team (\"g<group>\"), user \"u<user>\",\n"
    "queue the queue column; submit is shifted so the first job submits at 0; the\n"
    "actual walltime is the duration.  The trace also carries columns the\n"
    "simulator ignores: nodes, termcode and observed_wait (the real scheduler's\n"
    "wait, seconds).  A summary goes to stderr: rows, duplicates and rows\n"
    "dropped, jobs written, observed wait p50/p90/p99, GPU-hours and load.\n"
    "\n"
    "  --in FILE           the AAIC CSV (.gz is read directly; - = stdin)\n"
    "  --trace-out FILE    write the trace here (- = stdout); without it only the\n"
    "                      summary is produced\n"
    "  --cluster-out FILE  write a cluster YAML of N nodes x 8 GPUs\n"
    "  --nodes N           nodes of the cluster YAML and of the load figure\n"
    "                      (default 40; 32-40 nodes were under the batch scheduler)\n"
    "  --json              print the summary as JSON on stdout as well\n"
    "  --node-events-out FILE  write the capacity inferred from the log as node\n"
    "                      events for the N-node cluster (sim --node-events): per\n"
    "                      12 h window, the GPUs in use while 1-GPU jobs of queues\n"
    "                      0-1 waited over 60 s; stops where jobs waited while\n"
    "                      nothing ran for 1 h (io/capacity.h, docs/aaic-replay.md)\n"
    CLI_CAP_HELP
    "\n"
    "The AAIC log requires the acknowledgement \"The AAIC workload log was\n"
    "graciously provided by AIRC, AIST.\" (see shared/traces/README.md).\n";

struct aaic_args {
    const char *in, *trace_out, *cluster_out;
    long long nodes;
    int json;
    struct cli_cap_args cap;
};

static int aaic_opt(int c, const char *val, void *arg)
{
    struct aaic_args *a = arg;
    int cap = cli_cap_opt(&a->cap, c, val);
    if (cap != 0)
        return cap < 0 ? -1 : 0;
    switch (c) {
    case 'f': break; /* already dispatched on */
    case 'i': a->in = val; break;
    case 't': a->trace_out = val; break;
    case 'c': a->cluster_out = val; break;
    case 'n': return cli_parse_long("import", "--nodes", val, 1, 4096, &a->nodes);
    case 'j': a->json = 1; break;
    }
    return 0;
}

static int aaic_parse_args(int argc, char **argv, struct aaic_args *a)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "in", required_argument, NULL, 'i' },
        { "trace-out", required_argument, NULL, 't' },
        { "cluster-out", required_argument, NULL, 'c' },
        { "nodes", required_argument, NULL, 'n' },
        CLI_CAP_OPTIONS,
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "import", aaic_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, aaic_opt, a);
    if (st >= 0)
        return st;
    if (!a->in)
        return cli_failf("import", 2, "--in is required (see --format aaic --help)");
    if (a->json && a->trace_out && strcmp(a->trace_out, "-") == 0)
        return cli_failf("import", 2, "--json and --trace-out - both want stdout");
    return -1;
}

static double span_days(const struct gs_aaic_stats *s)
{
    return (double)(s->span_end - s->submit_min) / 86400.0;
}

static double load(const struct gs_aaic_stats *s, long long nodes)
{
    double days = span_days(s);
    return days > 0 ? s->gpu_hours / (days * 24.0 * (double)nodes * GS_AAIC_NODE_GPUS) : 0;
}

static void aaic_summary(FILE *f, const struct aaic_args *a, const struct gs_aaic_stats *s)
{
    const int64_t *d = s->dropped, *tc = s->termcode;
    fprintf(f, "gpusched import: %s: %" PRId64 " rows; %" PRId64 " exact duplicate rows dropped; "
               "%" PRId64 " rows dropped (%" PRId64 " no submit time, %" PRId64 " no duration, "
               "%" PRId64 " no GPUs, %" PRId64 " wider than a node); %" PRId64 " jobs %s%s",
            a->in, s->rows, s->duplicates, d[0] + d[1] + d[2] + d[3], d[GS_AAIC_DROP_SUBMIT],
            d[GS_AAIC_DROP_DURATION], d[GS_AAIC_DROP_GPUS], d[GS_AAIC_DROP_WIDE], s->jobs,
            a->trace_out ? "written to " : "converted (no --trace-out)",
            a->trace_out ? a->trace_out : "");
    fprintf(f, " (%" PRId64 " repeated ids renamed ID-2, ID-3, ...).\n", s->ids_renamed);
    fprintf(f, "  %" PRId64 " multi-node jobs take whole 8-GPU nodes (%" PRId64 " of them asked "
               "for fewer than 8 GPUs per node).\n",
            s->multi_node, s->multi_node_partial);
    fprintf(f, "  duration = walltime (%" PRId64 " differ from time_end - time_start; %" PRId64
               " used it because walltime was missing); time_limit = walltime_req (%" PRId64
               " jobs have none, %" PRId64 " ran longer; median walltime_req/walltime %.1f).\n",
            s->walltime_mismatch, s->duration_fallback, s->no_limit, s->over_limit,
            s->req_ratio_p50);
    fprintf(f, "  observed wait (waittime) of %" PRId64 " jobs: p50 %.0f s, p90 %.0f s, p99 %.0f s,"
               " mean %.0f s, max %.0f s (%" PRId64 " from time_start - time_submit, %" PRId64
               " disagree with it, %" PRId64 " unknown).\n",
            s->wait.n, s->wait.p50, s->wait.p90, s->wait.p99, s->wait.mean, s->wait.max,
            s->wait_fallback, s->wait_mismatch, s->wait_unknown);
    fprintf(f, "  %.0f GPU-hours (%.0f with multi-node jobs on whole nodes) over %.1f days: "
               "load %.2f on %lld x 8 GPUs.  termcode 0/1/2/3/4/other: %" PRId64 "/%" PRId64
               "/%" PRId64 "/%" PRId64 "/%" PRId64 "/%" PRId64 ".  AAIC logs no job name, so "
               "name is \"-\".\n",
            s->gpu_hours, s->gpu_hours_alloc, span_days(s), load(s, a->nodes), a->nodes, tc[0],
            tc[1], tc[2], tc[3], tc[4], tc[5]);
}

static json_t *aaic_json(const struct aaic_args *a, const struct gs_aaic_stats *s)
{
    const struct gs_pctl *w = &s->wait;
    return json_pack(
        "{s:s, s:I, s:I, s:{s:I, s:I, s:I, s:I}, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
        " s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:f, s:f, s:f, s:f, s:f},"
        " s:f, s:f, s:f, s:I, s:f, s:f}",
        "file", a->in, "rows", (json_int_t)s->rows, "duplicates", (json_int_t)s->duplicates,
        "dropped", "submit", (json_int_t)s->dropped[GS_AAIC_DROP_SUBMIT], "duration",
        (json_int_t)s->dropped[GS_AAIC_DROP_DURATION], "gpus",
        (json_int_t)s->dropped[GS_AAIC_DROP_GPUS], "wide",
        (json_int_t)s->dropped[GS_AAIC_DROP_WIDE], "jobs", (json_int_t)s->jobs, "ids_renamed",
        (json_int_t)s->ids_renamed, "multi_node", (json_int_t)s->multi_node,
        "multi_node_partial", (json_int_t)s->multi_node_partial, "duration_fallback",
        (json_int_t)s->duration_fallback, "walltime_mismatch", (json_int_t)s->walltime_mismatch,
        "no_limit", (json_int_t)s->no_limit, "over_limit", (json_int_t)s->over_limit,
        "wait_fallback", (json_int_t)s->wait_fallback, "wait_mismatch",
        (json_int_t)s->wait_mismatch, "wait_unknown", (json_int_t)s->wait_unknown, "termcode",
        "0", (json_int_t)s->termcode[0], "1", (json_int_t)s->termcode[1], "2",
        (json_int_t)s->termcode[2], "3", (json_int_t)s->termcode[3], "4",
        (json_int_t)s->termcode[4], "other", (json_int_t)s->termcode[5], "observed_wait", "n",
        (json_int_t)w->n, "p50", w->p50, "p90", w->p90, "p99", w->p99, "mean", w->mean, "max",
        w->max, "gpu_hours", s->gpu_hours, "gpu_hours_alloc", s->gpu_hours_alloc, "days",
        span_days(s), "nodes", (json_int_t)a->nodes, "load", load(s, a->nodes),
        "req_ratio_p50", s->req_ratio_p50);
}

static int write_trace(struct cli_out *o, const char *path, const struct gs_aaic_result *r)
{
    if (cli_out_open("import", o, path))
        return 1;
    struct gs_error err = { 0 };
    if (gs_aaic_write_csv(o->f, r, &err) < 0) {
        cli_out_discard(o);
        return cli_failf("import", 1, "%s: %s", path, err.msg);
    }
    return cli_out_close("import", o);
}

static int write_cluster(struct cli_out *o, const char *path, int nodes)
{
    if (cli_out_open("import", o, path))
        return 1;
    struct gs_error err = { 0 };
    if (gs_aaic_write_cluster_yaml(o->f, nodes, &err) < 0) {
        cli_out_discard(o);
        return cli_failf("import", 1, "%s: %s", path, err.msg);
    }
    return cli_out_close("import", o);
}

/* Trace and cluster files are renamed into place only when both were
 * written. */
static int write_files(const struct aaic_args *a, const struct gs_aaic_result *r)
{
    struct cli_out t = { 0 }, c = { 0 };
    int st = a->trace_out ? write_trace(&t, a->trace_out, r) : 0;
    if (st == 0 && a->cluster_out)
        st = write_cluster(&c, a->cluster_out, (int)a->nodes);
    if (st == 0 && a->trace_out)
        st = cli_out_commit("import", &t);
    if (st == 0 && a->cluster_out)
        st = cli_out_commit("import", &c);
    cli_out_discard(&t);
    cli_out_discard(&c);
    return st;
}

/* The AAIC jobs as capacity records (io/capacity.h): start = submit +
 * observed wait, end = start + duration; evidence = 1-GPU jobs of queues 0
 * and 1 (queue 2 had its own cap of 16 jobs and queue 3 waited days even
 * on a quiet cluster: docs/aaic-replay.md, section 3.5).  Jobs without an
 * observed wait are left out.  Returns the count, or -1 (out of memory). */
static long cap_records(const struct gs_aaic_result *r, struct gs_cap_record **out)
{
    size_t n = gs_trace_count(r->trace), k = 0;
    struct gs_cap_record *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct gs_job_spec *s = gs_trace_job(r->trace, i);
        if (r->observed_wait[i] == GS_TIME_NONE)
            continue;
        int64_t sub = s->submit / GS_MS_PER_SEC;
        int64_t start = sub + r->observed_wait[i] / GS_MS_PER_SEC;
        int64_t dur = gs_trace_duration(r->trace, i) / GS_MS_PER_SEC;
        const char *q = s->queue ? s->queue : "";
        int user = s->user && s->user[0] == 'u' ? (int)strtol(s->user + 1, NULL, 10) : -1;
        v[k++] = (struct gs_cap_record){ sub, start, start + (dur > 0 ? dur : 0), s->gpus,
                                         s->gpus == 1 && (!strcmp(q, "0") || !strcmp(q, "1")),
                                         user >= 0 && user < 1000000 ? user : -1 };
    }
    *out = v;
    return (long)k;
}

/* Infer the capacity (at most --nodes nodes) and write it as node events
 * for the nodes aaic-1 .. aaic-<nodes> of --cluster-out (cli_capacity.h). */
static int write_capacity(const struct gs_aaic_result *r, const struct aaic_args *a)
{
    struct gs_cap_record *v = NULL;
    long n = cap_records(r, &v);
    if (n < 0)
        return cli_failf("import", 1, "out of memory");
    int st = cli_cap_write(&a->cap, v, (size_t)n, GS_AAIC_NODE_GPUS, (int)a->nodes, "aaic-",
                           NULL);
    free(v);
    return st;
}

static int import_aaic(int argc, char **argv)
{
    struct aaic_args a = { NULL, NULL, NULL, 40, 0, { NULL, 0, 0, -1 } };
    int st = aaic_parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct gs_aaic_result r;
    struct gs_error err = { 0 };
    struct cli_import_progress prog;
    int rc = gs_aaic_load_progress(a.in, cli_import_progress_init(&prog), &r, &err);
    cli_import_progress_done(&prog, rc >= 0);
    if (rc < 0)
        return cli_fail("import", &err);
    st = write_files(&a, &r);
    if (st == 0 && a.cap.events_out)
        st = write_capacity(&r, &a);
    if (st == 0) {
        aaic_summary(stderr, &a, &r.stats);
        if (a.json)
            st = cli_print_json(aaic_json(&a, &r.stats));
    }
    gs_aaic_result_fini(&r);
    return st;
}

/* cmd_sim.c - `gpusched sim`: replay a trace and report. */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/cli_out.h"
#include "cli/html_out.h"
#include "io/failures_yaml.h"
#include "io/node_events_csv.h"
#include "cli/progress_out.h"
#include "cli/start_latency.h"
#include "io/job_fields.h"
#include "report/report.h"
#include "report/report_fail.h"
#include "sim/sim.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static const char *const sim_help =
    "usage: gpusched sim --cluster C.yaml --trace T.csv [--policy P.yaml]\n"
    "                    [--out DIR] [--json] [--html FILE] [--node-events E.csv]\n"
    "                    [--failures F.yaml] [--start-latency-from URL|FILE]\n"
    "\n"
    "Replay the trace on the cluster under the policy (defaults: fifo + pack)\n"
    "and print the summary: queue-wait percentiles overall, per size class and\n"
    "per team, util_alloc, util_effective, jobs_per_gpu_day, schedulability S_k\n"
    "and fragmentation.\n"
    "\n"
    "  --cluster FILE  cluster YAML (docs/formats.md)\n"
    "  --trace FILE    trace CSV, .gz accepted\n"
    "  --policy FILE   policy YAML (docs/policy.md)\n"
    "  --out DIR       also write DIR/summary.json, DIR/jobs.csv, DIR/timeline.csv;\n"
    "                  jobs.csv: id, submit, start, end, wait, gpus, placement,\n"
    "                  state, team, class, preemptions, lost_gpu_s,\n"
    "                  checkpoint_gpu_s, restore_gpu_s, wait_reason\n"
    "                  (docs/metrics.md).  The files are written under temporary\n"
    "                  names and renamed when the run succeeded: a failed run\n"
    "                  leaves DIR as it was\n"
    "  --json          print the summary as JSON instead of a table\n"
    "  --html FILE     also write a self-contained HTML report with charts\n"
    "  --check         verify every engine invariant after every step (slow; tests)\n"
    "  --node-events F nodes going down, draining, coming back: CSV time,node,state\n"
    "                  (down | drain | up; optional gpu column), docs/formats.md\n"
    "  --failures F    random node failures drawn during the run: YAML node_mtbf,\n"
    "                  repair, seed, distribution (exponential | weibull), shape\n"
    "                  (docs/failures.md); adds the summary's `failures` object\n"
    "                  (ETTR, lost GPU-s) and jobs.csv's columns ettr,\n"
    "                  lost_gpu_s_failure, restarts at the end\n"
    "  --start-latency-from SRC  the policy's start_latency.median and .sigma\n"
    "                  from what gpuschedd measured (decision to running, engine\n"
    "                  time): SRC is its URL (GET /v1/cluster) or a file with\n"
    "                  that answer or `gpusched start-latency --json`'s; for\n"
    "                  live-vs-sim comparisons (docs/daemon.md)\n";

struct sim_args {
    const char *cluster, *trace, *policy, *out, *html, *node_events, *latency_from, *failures;
    struct gs_failure_model model;
    struct gs_failures_extra fex; /* F.yaml's node_events */
    int json, check;
};

static int sim_opt(int c, const char *val, void *arg)
{
    struct sim_args *a = arg;
    switch (c) {
    case 'c': a->cluster = val; break;
    case 't': a->trace = val; break;
    case 'p': a->policy = val; break;
    case 'o': a->out = val; break;
    case 'j': a->json = 1; break;
    case 'k': a->check = 1; break;
    case 'H': a->html = val; break;
    case 'N': a->node_events = val; break;
    case 'L': a->latency_from = val; break;
    case 'F': a->failures = val; break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct sim_args *a)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "trace", required_argument, NULL, 't' },
        { "policy", required_argument, NULL, 'p' },  { "out", required_argument, NULL, 'o' },
        { "json", no_argument, NULL, 'j' },          { "check", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },          { "html", required_argument, NULL, 'H' },
        { "node-events", required_argument, NULL, 'N' },
        { "start-latency-from", required_argument, NULL, 'L' },
        { "failures", required_argument, NULL, 'F' },
        { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "sim", sim_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, sim_opt, a);
    if (st >= 0)
        return st;
    if (!a->cluster || !a->trace)
        return cli_failf("sim", 2, "--cluster and --trace are required (see --help)");
    return -1;
}

/* The three files of --out DIR: written to temporary names and renamed
 * together only when the run and every write succeeded. */
struct out_files {
    struct cli_out timeline, summary, jobs;
    char paths[3][4096];
};

static void on_tick(void *arg, const struct gs_sim_tick *t)
{
    struct out_files *o = arg;
    if (o->timeline.f)
        gs_report_timeline_row(o->timeline.f, t);
}

static int open_in(const char *dir, const char *name, struct cli_out *o, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    return cli_out_open("sim", o, path);
}

/* The summary JSON plus, when the trace gave ISO-8601 submit times,
 * time_zero {iso, unix}: the absolute time of time 0 (docs/metrics.md). */
static json_t *summary_json(const struct gs_sim_result *r, const struct gs_policy *pol,
                            int64_t epoch)
{
    json_t *j = gs_report_summary_json(&r->summary, pol);
    if (j && r->fail)
        json_object_set_new(j, "failures", gs_report_fail_json(r->engine, r->fail));
    char iso[40];
    if (j && epoch != GS_TIME_NONE && gs_format_iso8601(epoch, iso, sizeof iso) > 0)
        json_object_set_new(j, "time_zero", json_pack("{s:s, s:f}", "iso", iso, "unix",
                                                      (double)epoch / 1000));
    if (j && r->eta)
        json_object_set_new(j, "eta", gs_report_eta_json(r->engine, r->eta, r->neta));
    return j;
}

static int write_outputs(const struct sim_args *a, struct out_files *o,
                         const struct gs_sim_result *r, const struct gs_policy *pol,
                         int64_t epoch)
{
    if (open_in(a->out, "summary.json", &o->summary, o->paths[1], sizeof o->paths[1]))
        return 1;
    json_t *j = summary_json(r, pol, epoch);
    int bad = !j || json_dumpf(j, o->summary.f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0;
    fputc('\n', o->summary.f);
    json_decref(j);
    if (cli_out_close("sim", &o->summary) || bad)
        return 1;
    if (open_in(a->out, "jobs.csv", &o->jobs, o->paths[2], sizeof o->paths[2]))
        return 1;
    gs_report_jobs_csv_all(o->jobs.f, r->engine, epoch, r->eta, r->neta, r->fail);
    return cli_out_close("sim", &o->jobs);
}

/* Rename all three, or remove the temporaries and say what DIR holds. */
static int finish_outputs(const char *dir, struct out_files *o, int ok)
{
    struct cli_out *all[3] = { &o->timeline, &o->summary, &o->jobs };
    int bad = !ok;
    for (int i = 0; i < 3 && !bad; i++)
        bad = !all[i]->closed_ok;
    for (int i = 0; i < 3 && !bad; i++)
        if (cli_out_commit("sim", all[i]))
            return cli_failf("sim", 1, "%s: only some files were replaced (see above)", dir);
    if (!bad)
        return 0;
    for (int i = 0; i < 3; i++)
        cli_out_discard(all[i]);
    return cli_failf("sim", 1, "%s: nothing written (files there, if any, are from an "
                               "earlier run)", dir);
}

/* --failures in the text report: one paragraph from the summary's object. */
static void print_failures(const struct gs_sim_result *r)
{
    json_t *f = gs_report_fail_json(r->engine, r->fail);
    if (!f)
        return;
    const json_t *l = json_object_get(f, "largest"), *e = json_object_get(f, "ettr");
    printf("\nnode failures: %lld, runs ended %lld, jobs hit %lld, lost %.1f GPU-h, ETTR %s",
           (long long)json_integer_value(json_object_get(f, "events")),
           (long long)json_integer_value(json_object_get(f, "runs_ended")),
           (long long)json_integer_value(json_object_get(f, "jobs_hit")),
           json_number_value(json_object_get(f, "lost_gpu_s")) / 3600,
           json_is_real(e) ? "" : "-");
    if (json_is_real(e))
        printf("%.4f", json_real_value(e));
    if (json_is_object(l) && json_is_real(json_object_get(l, "ettr")))
        printf(" (largest job %s, %lld GPUs: ETTR %.4f, %lld restarts)",
               json_string_value(json_object_get(l, "id")),
               (long long)json_integer_value(json_object_get(l, "gpus")),
               json_real_value(json_object_get(l, "ettr")),
               (long long)json_integer_value(json_object_get(l, "restarts")));
    printf("\n");
    json_decref(f);
}

static int run(const struct sim_args *a, const struct gs_cluster *cl,
               const struct gs_policy *pol, const struct gs_trace *tr,
               const struct gs_node_events *ne)
{
    struct out_files files;
    memset(&files, 0, sizeof files);
    if (a->out) {
        if (mkdir(a->out, 0777) < 0 && errno != EEXIST)
            return cli_failf("sim", 1, "%s: %s", a->out, strerror(errno));
        if (open_in(a->out, "timeline.csv", &files.timeline, files.paths[0],
                    sizeof files.paths[0]))
            return 1;
        gs_report_timeline_header(files.timeline.f);
    }
    struct gs_sim_opts o = { on_tick, NULL, &files, a->check, ne,
                             a->failures ? &a->model : NULL, 1 };
    struct cli_html h;
    cli_html_init(&h, a->html != NULL);
    cli_html_names(&h, a->cluster, a->trace, &a->policy, 1);
    cli_html_opts(&h, &o);
    struct cli_progress prog;
    cli_progress_init(&prog, "sim", NULL, tr);
    cli_progress_opts(&prog, &o);
    struct gs_sim_result r;
    struct gs_error err = { 0 };
    int rc = gs_sim_run(cl, pol, tr, &o, &r, &err);
    cli_progress_done(&prog, rc >= 0);
    if (files.timeline.f && cli_out_close("sim", &files.timeline))
        rc = rc < 0 ? rc : -1;
    if (rc < 0) {
        if (err.code)
            cli_fail("sim", &err);
        if (a->out)
            finish_outputs(a->out, &files, 0);
        cli_html_fini(&h);
        return 1;
    }
    int status = gs_cli_check_rejected("sim", r.engine);
    if (status == 0 && a->out)
        status = write_outputs(a, &files, &r, pol, gs_trace_epoch(tr));
    if (a->out && finish_outputs(a->out, &files, status == 0))
        status = 1;
    if (status == 0 && a->html &&
        cli_html_sim(a->html, &h, &r, pol, "One replay of the trace on the cluster."))
        status = 1;
    cli_html_fini(&h);
    if (a->json)
        status |= cli_print_json(summary_json(&r, pol, gs_trace_epoch(tr)));
    else {
        char iso[40];
        if (gs_trace_epoch(tr) != GS_TIME_NONE &&
            gs_format_iso8601(gs_trace_epoch(tr), iso, sizeof iso) > 0)
            printf("time 0 = %s (the trace's earliest submit; times below are seconds after "
                   "it)\n", iso);
        gs_report_summary_text(stdout, &r.summary, pol);
        if (r.fail)
            print_failures(&r);
    }
    gs_sim_result_fini(&r);
    return status;
}

static int load_node_events(const struct sim_args *a, const struct gs_cli_inputs *in,
                            struct gs_node_events *ne)
{
    if (!a->node_events)
        return 0;
    struct gs_error err = { 0 };
    if (gs_node_events_load(a->node_events, in->cluster, gs_trace_epoch(in->trace), ne,
                            &err) == 0)
        return 0;
    cli_fail("sim", &err);
    return -1;
}

static int load_failures(struct sim_args *a)
{
    if (!a->failures)
        return 0;
    struct gs_error err = { 0 };
    if (gs_failures_load_yaml_ex(a->failures, &a->model, &a->fex, &err) == 0)
        return 0;
    cli_fail("sim", &err);
    return -1;
}

/* F.yaml's node_events: its log beside --node-events' (one sorted list). */
static int load_failure_events(const struct sim_args *a, const struct gs_cli_inputs *in,
                               struct gs_node_events *ne)
{
    struct gs_error err = { 0 };
    if (!a->failures ||
        gs_failures_extra_events(&a->fex, in->cluster, gs_trace_epoch(in->trace), ne, &err) == 0)
        return 0;
    cli_fail("sim", &err);
    return -1;
}

/* --start-latency-from: the daemon's measured latency into the policy. */
static int load_latency(const struct sim_args *a, struct gs_policy *pol)
{
    if (!a->latency_from)
        return 0;
    struct cli_start_latency l = { 0, 0, 0 };
    if (cli_start_latency_read("sim", a->latency_from, &l) != 0)
        return -1;
    cli_start_latency_apply(&l, pol);
    fprintf(stderr, "gpusched sim: start latency from %s: median %.3f s, sigma %.3f (%lld starts"
                    " measured)\n", a->latency_from, l.median, l.sigma, (long long)l.starts);
    return 0;
}

int cmd_sim(int argc, char **argv)
{
    struct sim_args a = { 0 };
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct gs_cli_inputs in;
    gs_cli_inputs_init(&in, "sim");
    int status = 1;
    /* the policy before the trace: the order sim has always reported errors in */
    struct gs_node_events ne = { 0 };
    if (gs_cli_inputs_cluster(&in, a.cluster) == 0 &&
        gs_cli_inputs_policies(&in, &a.policy, 1) == 0 &&
        gs_cli_inputs_trace(&in, a.trace, 1) == 0 && load_node_events(&a, &in, &ne) == 0 &&
        load_failures(&a) == 0 && load_failure_events(&a, &in, &ne) == 0 &&
        load_latency(&a, &in.pols[0]) == 0) {
        gs_cli_warn_load("sim", in.cluster, &in.pols[0], NULL, in.trace);
        status = run(&a, in.cluster, &in.pols[0], in.trace,
                     a.node_events || (a.failures && a.fex.events[0]) ? &ne : NULL);
    }
    gs_node_events_fini(&ne);
    gs_cli_inputs_fini(&in);
    return status;
}

/* cli_load.c - command-line reading and input loading shared by the
 * subcommands (cli_load.h). */
#include "cli/cli_load.h"
#include "cli/cli.h"
#include "core/engine/engine.h"
#include "sim/offered.h"

#include <stdio.h>
#include <string.h>

/* Options every command takes (cli_load.h), read here so no command can
 * forget one.  Process-wide settings of this one CLI invocation, like
 * getopt's own optind: a file-static is the honest shape for them. */
enum { OPT_STRICT = 0x7f01, OPT_PROGRESS, OPT_VERSION };
static struct gs_cli_common common;

const struct gs_cli_common *gs_cli_common(void)
{
    return &common;
}

static int common_opt(const struct gs_cli_cmd *cmd, int c)
{
    if (c == OPT_STRICT)
        common.strict = 1;
    else if (c == OPT_PROGRESS)
        common.progress = 1;
    else if (c == OPT_VERSION)
        printf("gpusched %s %s\n", cmd->name, gs_version_string());
    return c == OPT_VERSION;
}

int gs_cli_parse(const struct gs_cli_cmd *cmd, int argc, char **argv, gs_cli_opt_fn on_opt,
                 void *arg)
{
    static const struct option extra[] = {
        { "strict", no_argument, NULL, OPT_STRICT },
        { "progress", no_argument, NULL, OPT_PROGRESS },
        { "version", no_argument, NULL, OPT_VERSION },
    };
    enum { MAX_OPTS = 64 };
    struct option opts[MAX_OPTS + 4];
    size_t n = 0;
    while (n < MAX_OPTS && cmd->opts[n].name)
        n++;
    memcpy(opts, cmd->opts, n * sizeof *opts);
    memcpy(opts + n, extra, sizeof extra);
    memset(&opts[n + 3], 0, sizeof opts[n + 3]);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(cmd->help, stdout);
            fputs(gs_cli_common_help, stdout);
            return 0;
        }
        if (c == '?') {
            fputs(cmd->help, stderr);
            return 2;
        }
        if (c >= OPT_STRICT && c <= OPT_VERSION) {
            if (common_opt(cmd, c))
                return 0;
            continue;
        }
        if (on_opt(c, optarg, arg) < 0)
            return 2;
    }
    if (optind < argc)
        return cli_failf(cmd->name, 2, "unexpected argument '%s'", argv[optind]);
    return -1;
}

const char gs_cli_common_help[] =
    "\n"
    "Options every command takes:\n"
    "  --strict        treat input the run cannot use as an error: an empty\n"
    "                  trace, jobs that can never fit the cluster (rejected)\n"
    "  --progress      progress on stderr (simulated time, jobs finished, rate,\n"
    "                  ETA) also when stderr is not a terminal (on by default when\n"
    "                  it is); sim, compare (each policy), whatif (actual run),\n"
    "                  fill (each seed), import (bytes read, rows parsed)\n"
    "  --version       print the version and exit\n"
    "  -h, --help      print this help and exit\n";

void gs_cli_inputs_init(struct gs_cli_inputs *in, const char *cmd)
{
    memset(in, 0, sizeof *in);
    in->cmd = cmd;
}

int gs_cli_inputs_cluster(struct gs_cli_inputs *in, const char *path)
{
    in->cluster = cli_load_cluster(in->cmd, path);
    return in->cluster ? 0 : -1;
}

int gs_cli_inputs_trace(struct gs_cli_inputs *in, const char *path, int need_duration)
{
    in->trace = cli_load_trace(in->cmd, path, need_duration);
    if (!in->trace)
        return -1;
    if (gs_trace_count(in->trace) == 0) {
        if (common.strict)
            return cli_failf(in->cmd, -1, "%s: the trace has no jobs (--strict)", path);
        cli_failf(in->cmd, 0, "warning: %s: the trace has no jobs; every figure below is "
                              "empty", path);
    }
    return 0;
}

int gs_cli_check_rejected(const char *cmd, const struct gs_engine *eng)
{
    int n = 0, shown = 0;
    char ids[256] = "";
    for (int j = 0; j < gs_engine_job_count(eng); j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, j, &ji) < 0 || ji.state != GS_JOB_REJECTED)
            continue;
        n++;
        if (shown < 5) {
            size_t len = strlen(ids);
            snprintf(ids + len, sizeof ids - len, "%s%s (%d GPUs)", shown ? ", " : "", ji.id,
                     ji.gpus);
            shown++;
        }
    }
    if (n == 0)
        return 0;
    cli_failf(cmd, 0, "%s: %d job%s can never run on this cluster and %s rejected "
                      "(counted as 'rejected' in the summary): %s%s",
              common.strict ? "error" : "warning", n, n == 1 ? "" : "s",
              n == 1 ? "was" : "were", ids, n > shown ? ", ..." : "");
    return common.strict ? 1 : 0;
}

/* "seed-policy" from "examples/seed-policy.yaml"; "defaults" for NULL. */
static void policy_name(const char *path, char *out, size_t n)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path ? path : "defaults";
    snprintf(out, n, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0))
        *dot = '\0';
}

int gs_cli_inputs_policies(struct gs_cli_inputs *in, const char *const *paths, int n)
{
    for (int i = 0; i < n; i++) {
        int k = in->npol;
        if (k == GS_CLI_MAX_POLICIES)
            return cli_failf(in->cmd, -1, "at most %d policies", GS_CLI_MAX_POLICIES);
        policy_name(paths[i], in->name_buf[k], sizeof in->name_buf[k]);
        in->names[k] = in->name_buf[k];
        if (cli_load_policy(in->cmd, paths[i], &in->pols[k]) < 0)
            return -1;
        in->npol++;
    }
    return 0;
}

int gs_cli_inputs_load(struct gs_cli_inputs *in, const char *cluster, const char *trace,
                       int need_duration, const char *const *policies, int n)
{
    if (gs_cli_inputs_cluster(in, cluster) < 0 || gs_cli_inputs_trace(in, trace, need_duration) < 0)
        return -1;
    return gs_cli_inputs_policies(in, policies, n);
}

void gs_cli_inputs_fini(struct gs_cli_inputs *in)
{
    if (!in)
        return;
    for (int i = 0; i < in->npol; i++)
        gs_policy_fini(&in->pols[i]);
    in->npol = 0;
    gs_trace_destroy(in->trace);
    in->trace = NULL;
    gs_cluster_destroy(in->cluster);
    in->cluster = NULL;
}

void gs_cli_warn_load(const char *cmd, const struct gs_cluster *cl, const struct gs_policy *pol,
                      const char *name, const struct gs_trace *tr)
{
    struct gs_offered o;
    gs_offered_compute(&o, cl, pol, tr);
    const char *pn = name ? name : "the policy";
    char span[32];
    if (o.span_s < 2 * 86400)
        snprintf(span, sizeof span, "%.2f h", o.span_s / 3600);
    else
        snprintf(span, sizeof span, "%.1f days", o.span_s / 86400);
    if (o.steady && o.load > 1.0)
        cli_failf(cmd, 0, "warning: the trace offers %.2f x the cluster's capacity (%.1f "
                          "GPU-hours asked over %s of arrivals on %lld GPUs): the queue "
                          "grows without bound while jobs arrive",
                  o.load, o.gpu_hours, span, (long long)o.gpus);
    if (o.quota_gpus > 0) {
        char load[96] = "";
        if (o.steady && o.span_s > 0)
            snprintf(load, sizeof load, "; the trace offers %.2f x that%s", o.quota_load,
                     o.quota_load > 1.0 ? ", so the queue grows without bound" : "");
        cli_failf(cmd, 0, "warning: under %s every job is under a strict team quota and the "
                          "quotas add up to %lld of the %lld GPUs: at most %lld can ever be "
                          "busy%s",
                  pn, (long long)o.quota_gpus, (long long)o.gpus, (long long)o.quota_gpus, load);
    }
    for (int i = 0; i < o.nteams; i++) {
        const struct gs_offered_team *t = &o.teams[i];
        if (t->load > 1.0)
            cli_failf(cmd, 0, "warning: under %s team %s asks for %.1f GPUs on average against "
                              "its quota of %d (%.2f x): its queue grows without bound",
                      pn, t->team, t->mean_gpus, t->quota, t->load);
        if (t->too_wide > 0)
            cli_failf(cmd, 0, "warning: under %s %lld job%s of team %s ask%s for more than its "
                              "quota of %d GPUs and can never start",
                      pn, (long long)t->too_wide, t->too_wide == 1 ? "" : "s", t->team,
                      t->too_wide == 1 ? "s" : "", t->quota);
    }
}

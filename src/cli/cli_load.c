/* cli_load.c - command-line reading and input loading shared by the
 * subcommands (cli_load.h). */
#include "cli/cli_load.h"
#include "cli/cli.h"

#include <string.h>

int gs_cli_parse(const struct gs_cli_cmd *cmd, int argc, char **argv, gs_cli_opt_fn on_opt,
                 void *arg)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", cmd->opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(cmd->help, stdout);
            return 0;
        }
        if (c == '?') {
            fputs(cmd->help, stderr);
            return 2;
        }
        if (on_opt(c, optarg, arg) < 0)
            return 2;
    }
    if (optind < argc)
        return cli_failf(cmd->name, 2, "unexpected argument '%s'", argv[optind]);
    return -1;
}

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
    return in->trace ? 0 : -1;
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

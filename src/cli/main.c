/* main.c - `gpusched`: dispatch to one subcommand per file. */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/client.h"
#include "cli/start_latency.h"

#include <string.h>

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    { "sim", cmd_sim, "replay a job trace on a cluster under a policy and report metrics" },
    { "frag", cmd_frag, "schedulability and fragmentation of one cluster snapshot" },
    { "compare", cmd_compare, "run several policies on one trace, one table" },
    { "whatif", cmd_whatif, "fragmentation or shortage? the trace on a fluid cluster, other policies, more nodes" },
    { "fill", cmd_fill, "FGD's fill experiment: unallocated GPUs and fragmentation as a cluster fills" },
    { "gen", cmd_gen, "generate a seeded synthetic workload trace" },
    { "slurm-conf", cmd_slurm_conf, "render a private Slurm cluster's conf files (scripts/slurm-local.sh)" },
    { "import", cmd_import, "convert a public trace (AAIC, ...) into the native trace format" },
    { "submit", cmd_submit, "submit a job to gpuschedd (the command after --)" },
    { "queue", cmd_queue, "gpuschedd's jobs in queue order, with states and reasons" },
    { "show", cmd_show, "one job's fields" },
    { "why", cmd_why, "why a job waits: reasons with numbers, what unblocks it, estimated start (--from-slurm: a Slurm job)" },
    { "cancel", cmd_cancel, "cancel a pending or running job" },
    { "checkpoint", cmd_checkpoint, "a running job reports that it has saved a checkpoint" },
    { "nodes", cmd_nodes, "gpuschedd's nodes: state, free GPUs per domain" },
    { "drain", cmd_drain, "drain a node or GPU (running jobs finish, nothing new starts) --reason" },
    { "resume", cmd_resume, "return a node, or one GPU (NODE:GPU), to service" },
    { "replay", cmd_replay, "submit a trace to gpuschedd in (scaled) real time" },
    { "start-latency", cmd_start_latency, "gpuschedd's measured start latency as sim's policy keys" },
    { "backup", cmd_backup, "a consistent copy of a running gpuschedd's journal (on its host)" },
    { "jobs", cmd_jobs, "ended jobs from the journal, filtered, as sacct lists them" },
    { "history", cmd_history, "every event of a job with its time (submitted ... ended)" },
    { "down", cmd_down, "take a node (or GPU) out of service: its runs end, its jobs requeue" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: gpusched <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'gpusched <command> --help' for a command's options;\n"
               "'gpusched --version' prints the version.\n");
}

/* -h, --help and --version for every command, whatever its own parser
 * takes: --version (before a `--`) prints the version and returns 0; -h
 * becomes --help, which every command's parser answers with its help on
 * stdout.  Returns -1 when the command should run. */
static int common_flags(const char *name, int argc, char **argv)
{
    static char help[] = "--help";
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--version") == 0) {
            printf("gpusched %s %s\n", name, gs_version_string());
            return cli_close_stdout(name);
        }
        if (strcmp(argv[i], "-h") == 0)
            argv[i] = help;
    }
    return -1;
}

int main(int argc, char **argv)
{
    cli_guard_std_fds();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return cli_close_stdout("help");
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("gpusched %s\n", gs_version_string());
        return cli_close_stdout("version");
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            int early = common_flags(commands[i].name, argc - 1, argv + 1);
            if (early >= 0)
                return early;
            int st = commands[i].run(argc - 1, argv + 1);
            return cli_close_stdout(commands[i].name) && st == 0 ? 1 : st;
        }
    fprintf(stderr, "gpusched: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

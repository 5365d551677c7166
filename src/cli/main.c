/* main.c - `gpusched`: dispatch to one subcommand per file. */
#include "cli/cli.h"

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
    { "why", cli_why_slurm, "why a Slurm job waits: Slurm's reason beside gpusched's (--from-slurm)" },
    { "import", cmd_import, "convert a public trace (AAIC, ...) into the native trace format" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: gpusched <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'gpusched <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gpusched: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

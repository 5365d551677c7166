/* cli_capacity.h - `import ... --node-events-out`: the capacity inferred
 * from a job log (io/capacity.h) written as node events, shared by the
 * importers that know submit, start, end and size (aaic, sacct).  Each
 * importer turns its jobs into gs_cap_record (which jobs are evidence is
 * the format's business) and hands them here; the inference, its
 * parameters on the command line, the file and the summary with the
 * check are this module's, written once. */
#ifndef GS_CLI_CLI_CAPACITY_H
#define GS_CLI_CLI_CAPACITY_H

#include <getopt.h>
#include <stddef.h>

#include "io/capacity.h"

/* The options, as parsed; zero-initialise, then set quantile = -1. */
struct cli_cap_args {
    const char *events_out;          /* --node-events-out, NULL = none */
    long long window, users;         /* --cap-window, --cap-users; 0 = default */
    double quantile;                 /* --cap-quantile; < 0 = default */
};

/* getopt_long rows of the four options (vals 'e', 'W', 'U', 'Q'), to put
 * in a command's table. */
#define CLI_CAP_OPTIONS                                                                     \
    { "node-events-out", required_argument, NULL, 'e' },                                    \
        { "cap-window", required_argument, NULL, 'W' },                                     \
        { "cap-users", required_argument, NULL, 'U' },                                      \
        { "cap-quantile", required_argument, NULL, 'Q' }

/* Help lines of --cap-window, --cap-users and --cap-quantile (the
 * --node-events-out line is the format's: it says what evidence is). */
#define CLI_CAP_HELP                                                                        \
    "  --cap-window S      seconds per capacity window (default 43200)\n"                   \
    "  --cap-users N       users waiting at an evidence instant (default 2)\n"              \
    "  --cap-quantile Q    quantile of the usage while evidence waits (0.95)\n"

/* Handle option `c` if it is one of CLI_CAP_OPTIONS: returns 1 when it was
 * (a bad value has printed its error and returns -1), 0 when `c` is not
 * one of them. */
int cli_cap_opt(struct cli_cap_args *a, int c, const char *val);

/* Infer the capacity of the `n` records (not modified) with nodes of
 * `node_gpus` GPUs, at most `nodes` of them, and write it to
 * a->events_out as node events for the nodes names[0 .. nodes-1] (NULL:
 * <prefix>1 .. <prefix><nodes>; the nodes last in that order are drained
 * first); times are the records' own.  Prints a one-line summary with the
 * check (usage above the capacity) on stderr.  Returns the exit status: 0,
 * or 1 after printing the error. */
int cli_cap_write(const struct cli_cap_args *a, const struct gs_cap_record *v, size_t n,
                  int node_gpus, int nodes, const char *prefix, char *const *names);

#endif

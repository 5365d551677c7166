/* cli_load.h - the front half that the subcommands share: reading a command
 * line with getopt_long, and loading the cluster, trace and policies that a
 * replay needs, with one cleanup for all of them.
 */
#ifndef GS_CLI_CLI_LOAD_H
#define GS_CLI_CLI_LOAD_H

#include <getopt.h>

#include "core/cluster/cluster.h"
#include "core/policy/policy.h"
#include "workload/trace.h"

/* The most policies one struct gs_cli_inputs holds (compare's limit). */
#define GS_CLI_MAX_POLICIES 32

/* Room for a policy's display name, NUL included. */
#define GS_CLI_NAME_LEN 64

/* One subcommand's command line.  Everything is borrowed, usually from
 * static storage. */
struct gs_cli_cmd {
    const char *name;          /* "sim": prefixes its error messages */
    const char *help;          /* printed by --help and after a bad option */
    const struct option *opts; /* getopt_long table ending in a zero row; --help is 'h' */
};

/* Called once per option other than --help: `c` is the option's `val` in the
 * table and `val` its argument (NULL for a flag); `arg` is the caller's.
 * Returns 0, or a negative value after printing its own error. */
typedef int (*gs_cli_opt_fn)(int c, const char *val, void *arg);

/* Read argv (argv[0] is the subcommand) with getopt_long over cmd->opts,
 * handing each option to on_opt.  Returns -1 when the command should go on
 * (every option read, no operand left), else the exit status to return:
 * 0 after --help (the help on stdout), 2 after an unknown option (the help
 * on stderr, after getopt's message), after an operand ("gpusched CMD:
 * unexpected argument 'X'") or after on_opt failed. */
int gs_cli_parse(const struct gs_cli_cmd *cmd, int argc, char **argv, gs_cli_opt_fn on_opt,
                 void *arg);

#include "io/version.h"

/* Options that gs_cli_parse accepts for every command (besides -h/--help):
 * --strict, --progress, --version. */
struct gs_cli_common {
    int strict;   /* --strict: an empty trace or a rejected job is an error */
    int progress; /* --progress: progress on stderr even when it is not a terminal */
};

/* The common options read by the last gs_cli_parse (borrowed, static). */
const struct gs_cli_common *gs_cli_common(void);

/* Their help text, printed after each command's own by --help. */
extern const char gs_cli_common_help[];

struct gs_engine;

/* After a replay: when jobs were rejected (they can never fit the cluster),
 * print "gpusched CMD: warning: N jobs can never run ... : ID (G GPUs), ..."
 * on stderr (the first five ids).  Returns 1 when --strict makes that an
 * error ("error:" instead of "warning:"), else 0. */
int gs_cli_check_rejected(const char *cmd, const struct gs_engine *eng);

/* Before a replay: warn on stderr when the queue can only grow (offered load
 * above capacity, quotas that cap the busy GPUs, a team over its quota, jobs
 * wider than their team's quota), with the numbers (sim/offered.h).  `name`
 * labels the policy in messages (NULL: "the policy"). */
void gs_cli_warn_load(const char *cmd, const struct gs_cluster *cl, const struct gs_policy *pol,
                      const char *name, const struct gs_trace *tr);

/* What a replay reads: a cluster, a trace and policies.  The struct owns what
 * it has loaded and must not be copied or moved (names points into it). */
struct gs_cli_inputs {
    const char *cmd;                  /* borrowed: the prefix of error messages */
    struct gs_cluster *cluster;       /* NULL until loaded */
    struct gs_trace *trace;           /* NULL until loaded */
    int npol;                         /* policies loaded: pols[0 .. npol-1] */
    struct gs_policy pols[GS_CLI_MAX_POLICIES];
    const char *names[GS_CLI_MAX_POLICIES]; /* display names, into name_buf */
    char name_buf[GS_CLI_MAX_POLICIES][GS_CLI_NAME_LEN];
};

/* Start empty; `cmd` ("sim") is borrowed for the struct's lifetime. */
void gs_cli_inputs_init(struct gs_cli_inputs *in, const char *cmd);

/* Load the cluster YAML at `path` into in->cluster.  Returns 0, or -1 after
 * printing "gpusched CMD: message". */
int gs_cli_inputs_cluster(struct gs_cli_inputs *in, const char *path);

/* Load the trace CSV at `path` (.gz accepted) into in->trace;
 * `need_duration` as for gs_trace_load_csv.  A trace without jobs gets a
 * warning on stderr (an error under --strict).  Returns 0, or -1 after
 * printing the error. */
int gs_cli_inputs_trace(struct gs_cli_inputs *in, const char *path, int need_duration);

/* Load the n policies at paths[0 .. n-1] in order after those already
 * loaded (a NULL path gives the defaults), each named after its file
 * ("seed-policy" for examples/seed-policy.yaml; "defaults" for NULL).
 * Stops at the first failure: returns 0, or -1 after printing the error;
 * the policies loaded before it stay owned by `in`.  The caller keeps n
 * within GS_CLI_MAX_POLICIES in all. */
int gs_cli_inputs_policies(struct gs_cli_inputs *in, const char *const *paths, int n);

/* The cluster, then the trace, then the policies (the order in which
 * compare and whatif report errors), stopping at the first failure.  n may
 * be 0.
 * Returns 0, or -1 after printing the error. */
int gs_cli_inputs_load(struct gs_cli_inputs *in, const char *cluster, const char *trace,
                       int need_duration, const char *const *policies, int n);

/* Free everything loaded; `in` may be NULL.  The struct may be reused after
 * gs_cli_inputs_init. */
void gs_cli_inputs_fini(struct gs_cli_inputs *in);

#endif

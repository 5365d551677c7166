/* cli.h - helpers shared by the subcommands of `gpusched`. */
#ifndef GS_CLI_CLI_H
#define GS_CLI_CLI_H

#include <stdio.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "core/policy/policy.h"
#include "workload/trace.h"

/* Each subcommand: argc/argv start at the subcommand name.  Returns the
 * process exit status (0 ok, 1 runtime error, 2 usage error). */
int cmd_sim(int argc, char **argv);
int cmd_frag(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_fill(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_slurm_conf(int argc, char **argv);
/* cmd_backup.c: `gpusched backup --state DIR --to FILE`. */
int cmd_backup(int argc, char **argv);

/* `gpusched why JOBID --from-slurm` (cmd_why_slurm.c): the daemon's `why`
 * client command calls it when --from-slurm is given. */
int cli_why_slurm(int argc, char **argv);

/* `gpusched import --format openb` (cmd_import_openb.c). */
int cli_import_openb(int argc, char **argv);

/* `gpusched import --format sacct` (cmd_import_sacct.c). */
int cli_import_sacct(int argc, char **argv);

/* Print "gpusched CMD: message" to stderr; returns 1. */
int cli_fail(const char *cmd, const struct gs_error *err);

/* Print "gpusched CMD: <formatted>" to stderr; returns `status`. */
int cli_failf(const char *cmd, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Loaders that print their own error and return NULL / negative. */
struct gs_cluster *cli_load_cluster(const char *cmd, const char *path);
int cli_load_policy(const char *cmd, const char *path, struct gs_policy *out);
struct gs_trace *cli_load_trace(const char *cmd, const char *path, int need_duration);

/* Open `path` for writing ("-" = stdout); prints an error and returns NULL
 * on failure.  Close with cli_close. */
FILE *cli_open_out(const char *cmd, const char *path);
int cli_close(const char *cmd, FILE *f, const char *path);

/* Parse a non-negative integer / double option; prints an error and returns
 * -1 on failure. */
int cli_parse_long(const char *cmd, const char *opt, const char *text, long long min,
                   long long max, long long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *text, double min,
                     double max, double *out);

/* Reopen any of descriptors 0-2 that the caller closed onto /dev/null (stdout
 * read-only, so writes to it fail and are reported instead of going into the
 * next file opened).  main calls it first. */
void cli_guard_std_fds(void);

/* Flush and close stdout; on any write error (full disk, closed pipe, closed
 * descriptor) print "gpusched CMD: stdout: write failed: REASON" and return 1,
 * else 0.  main calls it after every command so no command can exit 0 with
 * output lost. */
int cli_close_stdout(const char *cmd);

/* Print a JSON value (jansson json_t *) to stdout, indented, and decref it.
 * Returns 0, or 1 when `json` is NULL (a builder ran out of memory; the
 * message is printed) or dumping failed: callers fail the command. */
int cli_print_json(void *json);

#endif

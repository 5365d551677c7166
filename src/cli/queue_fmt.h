/* queue_fmt.h - the columns of `gpusched queue` (docs/client.md "queue"):
 * a field list (--format), the Slurm state codes of -t and the ST column,
 * and the text of one job object per field.  Times are computed from the
 * answer's `now` (the daemon's clock when it answered). */
#ifndef GS_CLI_QUEUE_FMT_H
#define GS_CLI_QUEUE_FMT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_QFMT_MAX 32

/* One column: a field of the table in queue_fmt.c, its width (0: none) and
 * alignment. */
struct cli_qcol {
    int field;
    int width;
    int right;
};

/* A parsed --format with the output switches. */
struct cli_qfmt {
    struct cli_qcol col[CLI_QFMT_MAX];
    int n;
    int parsable; /* --parsable: fields joined by '|', no padding */
    int noheader; /* --noheader */
};

/* The --format field names with their meaning, for the help text. */
extern const char *const cli_qfmt_fields_help;

/* Parse a comma-separated field list ("jobid,user,st,time:12"; names are
 * case-insensitive, ":W" sets the width) into f's columns; NULL gives the
 * default columns (JOBID TEAM USER GPUS STATE TIME WAIT NODELIST(REASON)).
 * Returns 0, or -1 with the bad field named in why[n]. */
int cli_qfmt_parse(const char *spec, struct cli_qfmt *f, char *why, size_t n);

/* Widen the automatic columns (JOBID, NAME) to the longest value of `jobs`
 * (at most 40 characters). */
void cli_qfmt_fit(struct cli_qfmt *f, const json_t *jobs);

/* Print the header line unless f->noheader. */
void cli_qfmt_header(const struct cli_qfmt *f, FILE *out);

/* Print job object `job`'s line; `now` is the answer's now_epoch. */
void cli_qfmt_row(const struct cli_qfmt *f, const json_t *job, double now, FILE *out);

/* A placement "node-1:0,node-1:1,node-2:3" as "node-1:0-1,node-2:3"
 * (io/placement.h, RUNS) into out[size] (truncated with "..."). */
void cli_qfmt_placement(const char *placement, char *out, size_t size);

/* A placement text (any form of io/placement.h; NULL = "") rewritten in
 * `style` (enum gs_placement_style) into out[size], snprintf's contract:
 * returns the length the whole text needs.  Text that does not parse is
 * copied as it is. */
size_t cli_placement_restyle(const char *text, int style, char *out, size_t size);

/* Job states for -t/--state, one bit each (CLI_QST_*). */
enum {
    CLI_QST_PENDING = 1 << 0, CLI_QST_STARTING = 1 << 1, CLI_QST_RUNNING = 1 << 2,
    CLI_QST_STOPPING = 1 << 3, CLI_QST_COMPLETED = 1 << 4, CLI_QST_FAILED = 1 << 5,
    CLI_QST_CANCELLED = 1 << 6, CLI_QST_KILLED = 1 << 7, CLI_QST_REJECTED = 1 << 8,
    CLI_QST_TIMEOUT = 1 << 9,
    CLI_QST_LIVE = 0xf,  /* pending .. stopping */
    CLI_QST_ALL = 0x3ff,
};

/* Parse a comma-separated state list: gpusched names (pending, starting,
 * running, stopping, done, completed, failed, cancelled, killed, rejected,
 * timeout, all) or Slurm codes (PD, CF, R, CG, CD, F, CA, TO; KI and RJ for
 * killed and rejected, which Slurm lacks), case-insensitive, into *mask.
 * Returns 0, or -1 with the bad entry named in why[n]. */
int cli_qstate_parse(const char *list, unsigned *mask, char *why, size_t n);

/* Whether `s` is one of the entries of the comma-separated `list` (exact
 * match; a NULL `s` is in no list). */
int cli_in_list(const char *list, const char *s);

/* The state bit of job object `job` (its outcome when it ended); 0 when
 * its state is unknown. */
unsigned cli_qstate_of(const json_t *job);

/* The gpusched name of a single-bit state mask (NULL when not one bit). */
const char *cli_qstate_name(unsigned bit);

#endif

/* import_sacct_private.h - between the sacct readers (import_sacct_read.c:
 * JSON and -P text into rows) and the conversion (import_sacct.c: rows
 * into jobs).  Not for other modules. */
#ifndef GS_IO_IMPORT_SACCT_PRIVATE_H
#define GS_IO_IMPORT_SACCT_PRIVATE_H

#include "io/import_sacct.h"

#define GS_SACCT_NONE INT64_MIN   /* a time Slurm does not know */

/* One run of one job as sacct reports it.  Strings are borrowed from the
 * input (the JSON document or the copied text) until conversion ends. */
struct gs_sacct_row {
    char id[64];
    int64_t submit, start, end;   /* UNIX s, GS_SACCT_NONE = unknown */
    int64_t elapsed;              /* s, -1 = not given */
    gs_time limit;                /* ms, 0 = none */
    int64_t gpus;
    int from_req;                 /* gpus taken from ReqTRES */
    int nnodes;
    int64_t priority;             /* -1 = not given */
    const char *nodelist, *partition, *account, *user, *name, *state; /* "" = none */
    char *own;                    /* JSON rows: the strings above, copied (gs_free) */
    int line;                     /* -P line or JSON index + 1 */
};

/* A growing list of rows plus the statistics the readers fill. */
struct gs_sacct_rows {
    struct gs_sacct_row *v;
    size_t n, cap;
    struct gs_sacct_stats *stats;
    const char *name;
    int json;                     /* rows are JSON jobs[line - 1] */
    struct gs_io_progress *prog;  /* NULL, or rows counted here (io/ioutil.h) */
};

/* "FILE:LINE" of a -P row or "FILE: jobs[I]" of a JSON one, into buf. */
const char *gs_sacct_where(const struct gs_sacct_rows *rows, int line, char *buf, size_t n);

/* Append a row (copied); GS_ENOMEM on failure. */
int gs_sacct_rows_push(struct gs_sacct_rows *rows, const struct gs_sacct_row *r);

/* Count a dropped row under `reason`, keeping the first message. */
void gs_sacct_drop(struct gs_sacct_rows *rows, int reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Read `sacct --json` / `sacct -P` text into rows.  `text` is a private
 * copy the -P reader may write into (NUL-terminated at text[len]); -P rows
 * borrow from it.  The JSON reader parses one job object at a time (a
 * month of accounting is hundreds of MB: a whole jansson tree would take
 * ~15x that in memory) and copies each row's strings into row.own. */
int gs_sacct_read_json(const char *text, size_t len, struct gs_sacct_rows *rows,
                       struct gs_error *err);
int gs_sacct_read_pipe(char *text, size_t len, struct gs_sacct_rows *rows,
                       struct gs_error *err);

#endif

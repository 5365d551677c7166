/* cli_out.h - output files that appear whole or not at all.
 *
 * A command writes each output to a temporary file beside it
 * (DIR/.NAME.tmp.PID) and renames it over NAME only once everything it
 * writes succeeded, so a failing run (a bad trace, a full disk, a memory
 * limit, a signal) never leaves a partial file that looks complete nor a new
 * file beside old ones from an earlier run.  "-" is stdout; a path that
 * exists and is not a regular file (/dev/null, /dev/full, a FIFO) is written
 * in place, since it cannot be renamed over.  A run stopped by SIGINT,
 * SIGTERM, SIGHUP or SIGPIPE removes its temporary files before it dies
 * (SIGKILL cannot be caught: what it leaves is named .NAME.tmp.PID, never
 * NAME).
 */
#ifndef GS_CLI_CLI_OUT_H
#define GS_CLI_CLI_OUT_H

#include <stdio.h>

struct cli_out {
    FILE *f;          /* NULL once closed or discarded */
    const char *path; /* borrowed: the final name */
    char tmp[4096];   /* temporary name; "" when written in place */
    int closed_ok;    /* closed without error, waiting for commit */
};

/* Open `path` ("-" = stdout) for writing as described above.  Returns 0, or
 * 1 after printing "gpusched CMD: PATH: reason" (o->f is then NULL). */
int cli_out_open(const char *cmd, struct cli_out *o, const char *path);

/* Flush and close o->f, checking every write.  Returns 0 (the temporary file
 * waits for cli_out_commit), or 1 after printing the error and removing the
 * temporary file. */
int cli_out_close(const char *cmd, struct cli_out *o);

/* Rename the closed temporary file onto its name.  Returns 0, or 1 after
 * printing the error (the temporary file is removed). */
int cli_out_commit(const char *cmd, struct cli_out *o);

/* Close (if still open) and remove the temporary file; the final name is left
 * as it was.  Safe on a zeroed, failed or already finished cli_out. */
void cli_out_discard(struct cli_out *o);

/* One file alone: close it, then commit when `ok` and the close succeeded,
 * else discard.  Returns 0 when the file is in place, 1 otherwise. */
int cli_out_finish(const char *cmd, struct cli_out *o, int ok);

#endif

/* progress_out.h - progress of a replay on stderr: simulated time reached,
 * jobs finished, rate and ETA.  On when stderr is a terminal (one line
 * rewritten in place, 4 times a second) or with --progress (a line every 2 s
 * of wall time, for logs); always a last line when on.  The environment
 * variable GPUSCHED_PROGRESS_SECONDS sets the seconds between lines (the
 * tests set 0: a line at every count).
 */
#ifndef GS_CLI_PROGRESS_OUT_H
#define GS_CLI_PROGRESS_OUT_H

#include "io/ioutil.h"
#include "sim/sim.h"
#include "workload/trace.h"

struct cli_progress {
    int on, tty;
    const char *cmd, *label;
    double t0, last;          /* wall seconds (monotonic) */
    gs_time first, end;       /* first and last submit of the trace */
    size_t njobs;
    long finished;
    gs_time now;
    void (*prev_tick)(void *arg, const struct gs_sim_tick *t);
    gs_observer_fn prev_event;
    void *prev_arg;
};

/* Set up for a replay of `tr` by command `cmd`; `label` (may be NULL) names
 * the run ("actual", a policy).  Off unless stderr is a terminal or
 * --progress was given. */
void cli_progress_init(struct cli_progress *p, const char *cmd, const char *label,
                       const struct gs_trace *tr);

/* Chain into `o` (keeping its callbacks and their argument). */
void cli_progress_opts(struct cli_progress *p, struct gs_sim_opts *o);

/* The last line ("done ...", or "stopped" when `ok` is 0). */
void cli_progress_done(struct cli_progress *p, int ok);

/* Progress of `gpusched import` on stderr, on under the same rule: while a
 * file is read, its bytes of the total (when known), MB/s and ETA; while it
 * is parsed, the rows, the bytes of the text, rows/s and ETA; while the
 * rows become jobs, how many of them (the ETA is that phase's own); a last
 * line with the rows read.  The readers count through `io` (io/ioutil.h). */
struct cli_import_progress {
    struct gs_io_progress io;
    int on, tty;
    double t0, last, phase_t0; /* wall seconds (monotonic) */
    int phase;                 /* io.phase of the last call */
    const char *phase_name;    /* io.name of the last line */
};

/* Set up; returns the hook to give the loader (gs_*_load_progress), NULL
 * when progress is off. */
struct gs_io_progress *cli_import_progress_init(struct cli_import_progress *p);

/* The last line ("done: N rows read ...", or "stopped" when `ok` is 0). */
void cli_import_progress_done(struct cli_import_progress *p, int ok);

#endif

/* progress_out.c - replay progress on stderr (progress_out.h). */
#include "cli/progress_out.h"
#include "cli/cli_load.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds between lines: 0.25 on a terminal, 2 for logs, or what
 * GPUSCHED_PROGRESS_SECONDS says (the tests set 0: a line at every call). */
static double every(int tty)
{
    const char *e = getenv("GPUSCHED_PROGRESS_SECONDS");
    char *end;
    double s = e && *e ? strtod(e, &end) : -1;
    return e && *e && *end == '\0' && s >= 0 ? s : tty ? 0.25 : 2.0;
}

static void fmt_h(char *buf, size_t n, double sec)
{
    if (sec < 2 * 86400)
        snprintf(buf, n, "%.1f h", sec / 3600);
    else
        snprintf(buf, n, "%.1f d", sec / 86400);
}

void cli_progress_init(struct cli_progress *p, const char *cmd, const char *label,
                       const struct gs_trace *tr)
{
    *p = (struct cli_progress){ 0 };
    p->tty = isatty(STDERR_FILENO);
    p->on = p->tty || gs_cli_common()->progress;
    p->cmd = cmd;
    p->label = label;
    p->njobs = gs_trace_count(tr);
    for (size_t i = 0; i < p->njobs; i++) {
        gs_time s = gs_trace_job(tr, i)->submit;
        p->first = i == 0 || s < p->first ? s : p->first;
        p->end = i == 0 || s > p->end ? s : p->end;
    }
    p->t0 = p->last = wall();
}

static void line(struct cli_progress *p, const char *state)
{
    char at[32], of[32];
    double el = wall() - p->t0, sim = gs_time_to_sec(p->now - p->first),
           tot = gs_time_to_sec(p->end - p->first);
    double frac = p->njobs ? (double)p->finished / (double)p->njobs : 1;
    fmt_h(at, sizeof at, sim);
    fmt_h(of, sizeof of, tot);
    fprintf(stderr, "%sgpusched %s: %s%s%s%s simulated %s (arrivals end at %s), %ld of %zu jobs "
                    "finished (%.0f%%), %.1f s, %.0f jobs/s",
            p->tty && !*state ? "\r" : "", p->cmd, p->label ? p->label : "",
            p->label ? ": " : "", state, *state ? ":" : "", at, of, p->finished, p->njobs,
            100 * frac, el, el > 0 ? (double)p->finished / el : 0);
    if (!*state && frac > 0.01 && frac < 1)
        fprintf(stderr, ", ETA %.0f s", el / frac - el);
    fputs(p->tty && !*state ? "   " : "\n", stderr);
}

static void tick(void *arg, const struct gs_sim_tick *t)
{
    struct cli_progress *p = arg;
    p->now = t->time;
    double w = wall();
    if (w - p->last >= every(p->tty)) {
        p->last = w;
        line(p, "");
    }
    if (p->prev_tick)
        p->prev_tick(p->prev_arg, t);
}

static void event(void *arg, const struct gs_event *ev)
{
    struct cli_progress *p = arg;
    if (ev->kind == GS_EV_FINISH || ev->kind == GS_EV_REJECT || ev->kind == GS_EV_KILL ||
        ev->kind == GS_EV_CANCEL)
        p->finished++;
    if (p->prev_event)
        p->prev_event(p->prev_arg, ev);
}

void cli_progress_opts(struct cli_progress *p, struct gs_sim_opts *o)
{
    if (!p->on)
        return;
    p->prev_tick = o->on_tick;
    p->prev_event = o->on_event;
    p->prev_arg = o->arg;
    o->on_tick = tick;
    o->on_event = event;
    o->arg = p;
}

void cli_progress_done(struct cli_progress *p, int ok)
{
    if (!p->on)
        return;
    if (p->tty)
        fputc('\n', stderr);
    line(p, ok ? "done" : "stopped");
}

/* ---- import ------------------------------------------------------------ */

static void import_line(struct cli_import_progress *p)
{
    static const char *const verb[] = { "reading", "parsing", "converting" };
    const struct gs_io_progress *io = &p->io;
    double w = wall(), el = w - p->phase_t0;
    double mb = (double)io->bytes / 1e6, tot = (double)io->total / 1e6, frac = -1;
    fprintf(stderr, "%sgpusched import: %s %s: ", p->tty ? "\r" : "", verb[io->phase],
            io->name ? io->name : "-");
    if (io->phase == GS_IO_CONVERTING) {
        frac = io->njobs > 0 ? (double)io->jobs / (double)io->njobs : 1;
        fprintf(stderr, "%" PRId64 " of %" PRId64 " rows (%.0f%%), %.1f s", io->jobs, io->njobs,
                100 * frac, w - p->t0);
    } else {
        frac = io->total > 0 ? (double)io->bytes / (double)io->total : -1;
        if (io->phase == GS_IO_PARSING)
            fprintf(stderr, "%" PRId64 " rows, ", io->rows);
        if (frac >= 0)
            fprintf(stderr, "%.1f of %.1f MB (%.0f%%)", mb, tot, 100 * frac);
        else
            fprintf(stderr, "%.1f MB", mb);
        if (io->phase == GS_IO_PARSING)
            fprintf(stderr, ", %.1f s, %.0f rows/s", w - p->t0,
                    el > 0 ? (double)io->rows / el : 0);
        else
            fprintf(stderr, ", %.1f s, %.1f MB/s", w - p->t0, el > 0 ? mb / el : 0);
    }
    if (frac > 0.01 && frac < 1 && el > 0)
        fprintf(stderr, ", ETA %.0f s", el / frac - el);
    fputs(p->tty ? "   " : "\n", stderr);
}

static void import_tick(void *arg, const struct gs_io_progress *io)
{
    struct cli_import_progress *p = arg;
    double w = wall();
    if (io->phase != p->phase || io->name != p->phase_name) {
        p->phase = io->phase;
        p->phase_name = io->name;
        p->phase_t0 = w;
    }
    if (w - p->last >= every(p->tty)) {
        p->last = w;
        import_line(p);
    }
}

struct gs_io_progress *cli_import_progress_init(struct cli_import_progress *p)
{
    *p = (struct cli_import_progress){ 0 };
    p->tty = isatty(STDERR_FILENO);
    p->on = p->tty || gs_cli_common()->progress;
    p->t0 = p->last = p->phase_t0 = wall();
    p->io.fn = import_tick;
    p->io.arg = p;
    return p->on ? &p->io : NULL;
}

void cli_import_progress_done(struct cli_import_progress *p, int ok)
{
    if (!p->on)
        return;
    double el = wall() - p->t0;
    fprintf(stderr, "%sgpusched import: %s: %" PRId64 " rows read (last input %s), %.1f s, "
                    "%.0f rows/s\n",
            p->tty ? "\n" : "", ok ? "done" : "stopped", p->io.rows,
            p->io.name ? p->io.name : "-", el, el > 0 ? (double)p->io.rows / el : 0);
}

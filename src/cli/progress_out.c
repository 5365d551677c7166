/* progress_out.c - replay progress on stderr (progress_out.h). */
#include "cli/progress_out.h"
#include "cli/cli_load.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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
    if (w - p->last >= (p->tty ? 0.25 : 2.0)) {
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

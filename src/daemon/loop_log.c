/* loop_log.c - info lines of the job and node lifecycle (loop_log.h). */
#include "daemon/loop_log.h"
#include "daemon/log.h"

#include <stdio.h>

#include "io/timefmt.h"

/* " (team T, user U, N GPUs)" */
static void who(const struct djob *d, char *buf, size_t n)
{
    snprintf(buf, n, "team %s, user %s, %d GPU%s", d->team, d->user, d->gpus,
             d->gpus == 1 ? "" : "s");
}

void gsd_log_job_event(const struct gsd_loop *lp, const struct djob *d, int kind)
{
    (void)lp;
    char w[256];
    if (!gsd_log_enabled(GSD_LOG_INFO))
        return;
    who(d, w, sizeof w);
    if (kind == GS_EV_START)
        gsd_logl(GSD_LOG_INFO, "job %s start: attempt %d on %.200s (%s)", d->id, d->ji.attempts,
                 d->placement ? d->placement : "-", w);
    else if (kind == GS_EV_PREEMPT)
        gsd_logl(GSD_LOG_INFO, "job %s preempted: attempt %d stops, the job is requeued (%s)",
                 d->id, d->ji.attempts, w);
    else if (kind == GS_EV_FAIL)
        gsd_logl(GSD_LOG_INFO, "job %s run failed (node down or launch failed): attempt %d, %s (%s)",
                 d->id, d->ji.attempts, d->state == D_DONE ? "no attempts left" : "requeued", w);
}

void gsd_log_job_end(const struct gsd_loop *lp, const struct djob *d, int was)
{
    (void)lp;
    if (was == D_DONE || d->state != D_DONE || !gsd_log_enabled(GSD_LOG_INFO))
        return;
    char w[256], code[32] = "", ran[48] = "";
    who(d, w, sizeof w);
    if (d->ji.exit_code >= 0)
        snprintf(code, sizeof code, ", exit code %d", d->ji.exit_code);
    if (d->ji.start != GS_TIME_NONE && d->ji.end != GS_TIME_NONE && d->ji.end >= d->ji.start)
        snprintf(ran, sizeof ran, ", ran %.1f s", (double)(d->ji.end - d->ji.start) / 1000.0);
    const char *oc = gsd_outcome_name(d->outcome);
    gsd_logl(GSD_LOG_INFO, "job %s end: %s%s%s, attempt %d (%s)", d->id, oc ? oc : "done", code,
             ran, d->ji.attempts, w);
}

void gsd_log_node(const struct gsd_loop *lp, const char *node, int gpu, int st,
                  const char *reason)
{
    (void)lp;
    char at[160];
    if (gpu >= 0)
        snprintf(at, sizeof at, "node %s gpu %d", node, gpu);
    else
        snprintf(at, sizeof at, "node %s", node);
    gsd_logl(GSD_LOG_INFO, "%s %s%s%s%s", at, gsd_node_state_name(st),
             reason && *reason ? " (reason: " : "", reason && *reason ? reason : "",
             reason && *reason ? ")" : "");
}

/* job_record.c - the parts of the full job record the daemon words itself:
 * why a job ended, from its journal row (outcome, exit code, attempts). */
#define _GNU_SOURCE
#include "daemon/loop_shared.h"

#include <stdio.h>
#include <string.h>

/* "exited 3", "killed by signal 9" of an exit status as the supervisor
 * records it (128 + N for signal N). */
static void exit_words(int code, char *buf, size_t n)
{
    if (code > 128 && code < 128 + 65)
        snprintf(buf, n, "killed by signal %d", code - 128);
    else
        snprintf(buf, n, "exited %d", code);
}

const char *gsd_end_reason(const struct gs_store_job *r, char *buf, size_t n)
{
    if (strcmp(r->state, "done") != 0 || !r->outcome || n == 0)
        return NULL;
    char ex[48];
    exit_words(r->exit_code, ex, sizeof ex);
    const char *o = r->outcome;
    if (!strcmp(o, "completed"))
        snprintf(buf, n, "completed: exited 0");
    else if (!strcmp(o, "failed") && r->exit_code >= 0)
        snprintf(buf, n, "failed: %s", ex);
    else if (!strcmp(o, "failed"))
        snprintf(buf, n, "failed: attempt %d did not run to an exit (launch failure or "
                         "node failure; no retry left)", r->attempts);
    else if (!strcmp(o, "timeout"))
        snprintf(buf, n, "timeout: stopped at its time limit");
    else if (!strcmp(o, "killed"))
        snprintf(buf, n, "killed: stopped at the policy's run-time cap");
    else if (!strcmp(o, "cancelled"))
        snprintf(buf, n, r->start != GS_TIME_NONE ? "cancelled while running"
                                                  : "cancelled before it started");
    else if (!strcmp(o, "rejected"))
        snprintf(buf, n, "rejected: it can never run on this cluster as configured");
    else
        snprintf(buf, n, "%s", o);
    return buf;
}

char *gsd_out_name(const struct gsd_loop *lp, const char *id, int attempt, const char *sfx,
                   char *buf, size_t n)
{
    return gs_api_out_path(gsd_shared_ofc(lp)->out_dir, id, attempt, sfx, buf, n);
}

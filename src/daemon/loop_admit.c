/* loop_admit.c - refusal at the door: a submit the engine could never run on
 * this cluster as configured is answered 400 before anything is journaled,
 * by the engine's own test (gs_engine_possible, the one gs_engine_submit
 * makes before it rejects a job), with the field to blame and the reason.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"

#include <stdio.h>
#include <string.h>

int gsd_admit_check(struct gsd_loop *lp, struct gsd_cmd *c, gs_time now)
{
    struct gs_job_spec spec = c->sub->row.spec;
    spec.submit = now;
    if (!spec.id || !*spec.id)
        spec.id = "-"; /* the daemon names it after the door */
    struct gs_error err;
    gs_error_clear(&err);
    int rc = gs_engine_possible(lp->eng, &spec, &err);
    if (rc == 1 || rc < 0)
        return 0; /* a bad spec: gs_engine_submit answers it as before */
    char field[32] = "";
    const char *colon = strchr(err.msg, ':');
    if (colon && (size_t)(colon - err.msg) < sizeof field)
        memcpy(field, err.msg, (size_t)(colon - err.msg));
    c->status = 400;
    c->body = gsd_error_json(400, "never_runs", field, "%s", err.msg);
    return 1;
}

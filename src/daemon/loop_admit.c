/* loop_admit.c - refusal at the door: a submit the engine could never run on
 * this cluster as configured is answered 400 before anything is journaled,
 * by the engine's own test (gs_engine_possible, the one gs_engine_submit
 * makes before it rejects a job), with the field to blame and the reason;
 * and `submit --test-only`: where and when the job would start were it
 * submitted now (gs_engine_probe), with nothing submitted or journaled.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diagnose/diagnose.h"
#include "io/api_codec.h"
#include "io/placement.h"
#include "io/report_diag.h"

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

/* The node names of an allocation, and its placement text
 * ("node-1:0,node-1:1", io/placement.h LIST) as a JSON string. */
static json_t *alloc_text(const struct gs_cluster *cl, const struct gs_alloc *a, json_t *nodes)
{
    for (int p = 0; p < a->nparts; p++)
        json_array_append_new(nodes, json_string(gs_cluster_node_name(cl, a->parts[p].node)));
    size_t len = gs_placement_format(NULL, 0, cl, a->parts, a->nparts, GS_PLACEMENT_LIST);
    char *pl = malloc(len + 1);
    if (!pl)
        return NULL;
    gs_placement_format(pl, len + 1, cl, a->parts, a->nparts, GS_PLACEMENT_LIST);
    json_t *v = json_string(pl);
    free(pl);
    return v;
}

/* The answer's object of a probe that ran. */
static json_t *probe_json(struct gsd_loop *lp, const struct gs_diag *dg,
                          const struct gs_alloc *a, gs_time now)
{
    char t[40], detail[512], unblock[512];
    json_t *o = json_object(), *nodes = json_array();
    if (!o || !nodes) {
        json_decref(o);
        json_decref(nodes);
        return NULL;
    }
    int is_now = dg->reason == GS_REASON_NONE && a;
    gs_time at = is_now ? now : dg->est_start;
    json_t *pl = a ? alloc_text(gs_engine_cluster(lp->eng), a, nodes) : json_null();
    json_object_set_new(o, "test_only", json_true());
    json_object_set_new(o, "would_start", json_string(is_now ? "now"
                                                      : at == GS_TIME_NONE ? "unknown"
                                                                           : "later"));
    json_object_set_new(o, "estimated_start", at == GS_TIME_NONE
                                                  ? json_null()
                                                  : json_string(gs_api_rfc3339(at, t, sizeof t)));
    json_object_set_new(o, "estimated_start_epoch",
                        at == GS_TIME_NONE ? json_null() : json_real((double)at / 1000.0));
    json_object_set_new(o, "basis", json_string(gs_est_basis_name(is_now ? GS_BASIS_NOW
                                                                          : dg->est_basis)));
    json_object_set_new(o, "placement", pl);
    json_object_set_new(o, "nodes", nodes);
    json_object_set_new(o, "est_duration_s", dg->est_duration == GS_TIME_NONE
                                                 ? json_null()
                                                 : json_real((double)dg->est_duration / 1000.0));
    if (!is_now) {
        gs_report_diag_detail(detail, sizeof detail, lp->eng, dg);
        gs_report_diag_unblock(unblock, sizeof unblock, lp->eng, dg);
        json_object_set_new(o, "reason", json_pack("{s:s, s:s, s:s}", "code",
                                                   gs_reason_name(dg->reason), "detail", detail,
                                                   "unblock", unblock));
    }
    return o;
}

int gsd_probe_answer(struct gsd_loop *lp, struct gsd_cmd *c, gs_time now)
{
    struct gs_job_spec spec = c->sub->row.spec;
    spec.submit = now;
    if (!spec.id || !*spec.id)
        spec.id = "-";
    struct gs_error err;
    gs_error_clear(&err);
    struct gs_diag dg;
    const struct gs_alloc *a;
    int rc = gs_engine_probe(lp->eng, &spec, &dg, &a, &err);
    if (rc == 0 && gsd_admit_check(lp, c, now))
        return 0; /* 400 never_runs, as the submit would get */
    if (rc <= 0) {
        c->status = rc == GS_ENOMEM ? 500 : 400;
        c->body = gsd_error_json(c->status, rc == GS_ENOMEM ? "internal" : "invalid", NULL,
                                 "%s", err.msg);
        return 0;
    }
    c->body = gsd_json_text(probe_json(lp, &dg, a, now));
    c->status = c->body ? 200 : 500;
    return 0;
}

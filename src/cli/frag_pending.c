/* frag_pending.c - pending reasons for the queue of a snapshot. */
#include "cli/frag_pending.h"
#include "cli/cli.h"
#include "core/diagnose/diagnose.h"
#include "io/report_diag.h"
#include "io/placement.h"
#include "sim/snapshot_run.h"

#include <string.h>

/* A started job's GPUs, "node-3:0,1,2" (io/placement.h, NODES). */
static void placement_text(char *buf, size_t n, const struct gs_engine *eng, int job)
{
    struct gs_alloc a;
    buf[0] = '\0';
    if (gs_engine_job_alloc(eng, job, &a) == 0)
        gs_placement_format(buf, n, gs_engine_cluster(eng), a.parts, a.nparts,
                            GS_PLACEMENT_NODES);
}

static json_t *started_json(const struct gs_engine *eng, int job)
{
    struct gs_job_info ji;
    char where[512], detail[600];
    gs_engine_job_info(eng, job, &ji);
    placement_text(where, sizeof where, eng, job);
    snprintf(detail, sizeof detail, "fits now: the scheduler starts it on %s", where);
    return json_pack("{s:s, s:s, s:s, s:s, s:[], s:s}", "id", ji.id, "reason", "none",
                     "detail", detail, "unblock", "nothing: it fits now", "reasons",
                     "placement", where);
}

static void print_one(const json_t *o)
{
    printf("  %-16s %-24s %s\n", json_string_value(json_object_get(o, "id")),
           json_string_value(json_object_get(o, "reason")),
           json_string_value(json_object_get(o, "detail")));
    if (strcmp(json_string_value(json_object_get(o, "reason")), "none") == 0)
        return;
    printf("  %-16s %-24s unblock: %s\n", "", "",
           json_string_value(json_object_get(o, "unblock")));
    const json_t *in = json_object_get(o, "est_in");
    const char *basis = json_string_value(json_object_get(o, "est_basis"));
    if (json_is_number(in))
        printf("  %-16s %-24s estimated start: in %.0f s (%s)\n", "", "",
               json_number_value(in), basis);
    else
        printf("  %-16s %-24s estimated start: unknown (running jobs without a duration"
               " estimate)\n", "", "");
}

static int report(struct gs_engine *eng, int first, json_t *out)
{
    if (!out)
        printf("\nqueued jobs (one scheduling pass under the policy):\n");
    for (int job = first; job < gs_engine_job_count(eng); job++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, job, &ji);
        json_t *o = NULL;
        if (ji.state == GS_JOB_PENDING) {
            struct gs_diag d;
            if (gs_engine_explain(eng, job, &d) < 0)
                return cli_failf("frag", 1, "out of memory");
            o = gs_report_diag_json(eng, &d);
        } else if (ji.state == GS_JOB_RUNNING) {
            o = started_json(eng, job);
        } else {
            o = json_pack("{s:s, s:s, s:s}", "id", ji.id, "reason", "none", "detail",
                          "can never fit this cluster (rejected)");
        }
        if (!o)
            return cli_failf("frag", 1, "out of memory");
        if (out) {
            json_array_append_new(out, o);
        } else {
            print_one(o);
            json_decref(o);
        }
    }
    return 0;
}

int frag_pending(const char *policy_path, const struct gs_cluster *idle,
                 const struct gs_cluster *busy, const struct gs_snapshot *snap, json_t *out)
{
    if (!snap->queue || gs_trace_count(snap->queue) == 0)
        return 0;
    struct gs_policy pol;
    if (cli_load_policy("frag", policy_path, &pol) < 0)
        return 1;
    struct gs_error err = { 0 };
    int first = 0;
    struct gs_snapshot_jobs run;
    gs_snapshot_jobs_view(snap, &run);
    struct gs_engine *eng = gs_snapshot_run_jobs(idle, busy, &pol, snap->queue, snap->time, &run,
                                                 &first, &err);
    int status = eng ? report(eng, first, out) : cli_fail("frag", &err);
    gs_engine_destroy(eng);
    gs_policy_fini(&pol);
    return status;
}

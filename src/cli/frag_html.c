/* frag_html.c - the dashboard page of a snapshot (frag_html.h). */
#include "cli/frag_html.h"
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "core/base/alloc.h"
#include "io/dash.h"
#include "io/snapshot_json.h"
#include "sim/snapshot_run.h"

static int write_page(const char *path, struct gs_engine *eng, int first,
                      const struct gs_cluster *busy, const unsigned char *node_state)
{
    int nq = gs_engine_job_count(eng) - first;
    int *handles = gs_malloc((size_t)(nq > 0 ? nq : 1) * sizeof *handles);
    for (int i = 0; handles && i < nq; i++)
        handles[i] = first + i;
    int *queue = handles ? gs_dash_pass_order(eng, handles, nq, 1, &nq) : NULL;
    gs_free(handles);
    if (!queue)
        return cli_failf("frag", 1, "out of memory");
    struct gs_dash_src src = { .source = "snapshot", .cl = busy, .eng = eng,
                               .jobs_before = first, .node_state = node_state, .queue = queue,
                               .nqueue = nq, .q_limit = GS_DASH_PAGE_MAX,
                               .r_limit = GS_DASH_PAGE_MAX };
    struct gs_error err = { 0 };
    json_t *doc = gs_dash_json(&src, &err);
    gs_free(queue);
    if (!doc)
        return cli_fail("frag", &err);
    FILE *f = cli_open_out("frag", path);
    int bad = !f || gs_dash_page_write(f, doc, NULL, 0) < 0;
    json_decref(doc);
    return (f && cli_close("frag", f, path)) || bad ? 1 : 0;
}

int frag_html(const char *path, const char *policy_path, const struct gs_cluster *idle,
              const struct gs_cluster *busy, const struct gs_snapshot *snap)
{
    struct gs_policy pol;
    if (cli_load_policy("frag", policy_path, &pol) < 0)
        return 1;
    struct gs_error err = { 0 };
    int first = 0;
    struct gs_trace *empty = snap->queue ? NULL : gs_trace_create();
    struct gs_snapshot_jobs run; /* the snapshot's running jobs keep their ids */
    gs_snapshot_jobs_view(snap, &run);
    struct gs_engine *eng = gs_snapshot_run_jobs(idle, busy, &pol,
                                                 snap->queue ? snap->queue : empty, snap->time,
                                                 &run, &first, &err);
    /* enum gs_dash_node has gs_node_state's order (up, drain, down) */
    int status = eng ? write_page(path, eng, first, busy, snap->node_state)
                     : cli_fail("frag", &err);
    gs_engine_destroy(eng);
    gs_trace_destroy(empty);
    gs_policy_fini(&pol);
    return status;
}

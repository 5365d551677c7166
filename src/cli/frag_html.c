/* frag_html.c - the dashboard page of a snapshot (frag_html.h). */
#include "cli/frag_html.h"
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "core/alloc.h"
#include "io/dash.h"
#include "sim/snapshot_run.h"

#include <stdlib.h>

/* Pass order of the snapshot's queue: the engine's order without aging
 * (everything was submitted at the snapshot time): priority, then submit
 * time, then handle (docs/architecture.md, "Ordering"). */
struct pass_key {
    int priority;
    gs_time submit;
    int job;
};

static int cmp_pass(const void *a, const void *b)
{
    const struct pass_key *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

/* The queue's handles (first .. last job) in pass order, gs_malloc'd. */
static int *pass_order(const struct gs_engine *eng, int first, int nq)
{
    struct pass_key *k = gs_malloc((size_t)(nq > 0 ? nq : 1) * sizeof *k);
    int *queue = gs_malloc((size_t)(nq > 0 ? nq : 1) * sizeof *queue);
    if (!k || !queue) {
        gs_free(k);
        gs_free(queue);
        return NULL;
    }
    for (int i = 0; i < nq; i++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, first + i, &ji);
        k[i] = (struct pass_key){ ji.priority, ji.submit, first + i };
    }
    qsort(k, (size_t)nq, sizeof *k, cmp_pass);
    for (int i = 0; i < nq; i++)
        queue[i] = k[i].job;
    gs_free(k);
    return queue;
}

static int write_page(const char *path, struct gs_engine *eng, int first,
                      const struct gs_cluster *busy, const unsigned char *node_state)
{
    int nq = gs_engine_job_count(eng) - first;
    int *queue = pass_order(eng, first, nq);
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
              const struct gs_cluster *busy, const struct gs_snapshot *snap,
              const unsigned char *node_state)
{
    struct gs_policy pol;
    if (cli_load_policy("frag", policy_path, &pol) < 0)
        return 1;
    struct gs_error err = { 0 };
    int first = 0;
    struct gs_trace *empty = snap->queue ? NULL : gs_trace_create();
    struct gs_engine *eng = gs_snapshot_run(idle, busy, &pol, snap->queue ? snap->queue : empty,
                                            snap->time, &first, &err);
    int status = eng ? write_page(path, eng, first, busy, node_state) : cli_fail("frag", &err);
    gs_engine_destroy(eng);
    gs_trace_destroy(empty);
    gs_policy_fini(&pol);
    return status;
}

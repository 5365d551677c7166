/* fuzz_report.c - libFuzzer target for a whole command's output paths, not
 * only its parser: the input is a trace CSV; whatever parses is replayed
 * (`gpusched sim` on a fixed two-node cluster whose node names need CSV
 * quoting) and every report is written - jobs.csv, timeline rows, the
 * summary JSON - then checked: jobs.csv must read back through the
 * project's CSV reader with one row per job and the header's field count
 * (RFC 4180 quoting of any id, team or node name), and the summary JSON
 * must be complete (no value dropped: it dumps and reloads with the same
 * team count).  No crash, leak or UB on anything the reader accepts. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "io/cluster_yaml.h"
#include "io/csv.h"
#include "report/report.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char cluster_yaml[] =
    "cluster:\n  gpu_types:\n    H100: { memory_gb: 80 }\n  nodes:\n"
    "    - { name: \"n,1\", gpus: 8, gpu_type: H100, nvlink_domains: [4, 4] }\n"
    "    - { name: \"n \\\"2\\\"\", gpus: 4, gpu_type: H100 }\n";

static void tick(void *arg, const struct gs_sim_tick *t)
{
    gs_report_timeline_row(arg, t);
}

/* jobs.csv reads back: header + one record per job, same field count. */
static void check_jobs_csv(char *text, size_t len, int jobs)
{
    struct gs_csv c;
    struct gs_error err;
    long line;
    char *buf = realloc(text, len + 1);
    if (!buf || gs_csv_open(&c, buf, len, "jobs.csv", GS_CSV_QUOTES | GS_CSV_TRIM, &err) < 0)
        fz_fail("jobs.csv does not open", err.msg);
    int rows = 0, rc;
    size_t nf = 0;
    while ((rc = gs_csv_next(&c, &line, &err)) > 0) {
        if (rows == 0)
            nf = c.nf;
        else if (c.nf != nf)
            fz_fail("a jobs.csv row has another field count than the header", NULL);
        rows++;
    }
    if (rc < 0)
        fz_fail("jobs.csv does not read back", err.msg);
    if (rows != jobs + 1)
        fz_fail("jobs.csv lost rows", NULL);
    gs_csv_close(&c);
    free(buf);
}

static void check_summary(const struct gs_sim_result *r)
{
    json_t *j = gs_report_summary_json(&r->summary, NULL);
    char *s = j ? json_dumps(j, 0) : NULL;
    json_t *back = s ? json_loads(s, 0, NULL) : NULL;
    json_t *teams = back ? json_object_get(back, "wait_by_team") : NULL;
    if (!teams || (int)json_object_size(teams) != r->summary.nteams)
        fz_fail("the summary JSON dropped a value", NULL);
    free(s);
    json_decref(j);
    json_decref(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_error err;
    struct gs_trace *tr = gs_trace_parse_csv((const char *)data, size, "fuzz.csv", 1, &err);
    if (!tr || gs_trace_count(tr) > 200) { /* keep each run short */
        gs_trace_destroy(tr);
        return 0;
    }
    struct gs_cluster *cl = gs_cluster_parse_yaml(cluster_yaml, strlen(cluster_yaml), "c.yaml",
                                                  &err);
    if (!cl)
        fz_fail("the fixed cluster does not load", err.msg);
    struct gs_policy pol;
    gs_policy_init(&pol);
    FILE *tl = fopen("/dev/null", "w");
    struct gs_sim_opts o = { .on_tick = tick, .arg = tl, .check = 1 };
    struct gs_sim_result r;
    if (gs_sim_run(cl, &pol, tr, &o, &r, &err) == 0) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f || gs_report_jobs_csv_at(f, r.engine, 1498903200000LL) < 0 || fclose(f) != 0)
            fz_fail("jobs.csv could not be written", NULL);
        check_jobs_csv(text, len, gs_engine_job_count(r.engine));
        check_summary(&r);
        gs_sim_result_fini(&r);
    }
    if (tl)
        fclose(tl);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
    gs_trace_destroy(tr);
    return 0;
}

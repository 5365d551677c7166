/* fuzz_sacct.c - libFuzzer target for the sacct importer
 * (io/import_sacct.h, gs_sacct_parse: `sacct --json` or `sacct -P`).
 * Besides "no crash, no leak, no UB" it checks:
 *   - on success, that no row is lost without a count: rows = steps +
 *     dropped (all reasons) + jobs + runs_lost, jobs = trace length = the
 *     final states counted; the trace is in submit order starting at 0
 *     with durations >= 0 and GPUs >= 0;
 *   - that what imports can be written (gs_sacct_write_csv) and read back
 *     by the native trace reader with the same jobs and durations;
 *   - on error, that the return code is err.code (EINVAL or ENOMEM), `out`
 *     holds nothing and the message names the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "io/import_sacct.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_counts(const struct gs_sacct_result *r)
{
    const struct gs_sacct_stats *s = &r->stats;
    int64_t dropped = 0, states = 0;
    for (int i = 0; i < GS_SACCT_DROP_COUNT; i++)
        dropped += s->dropped[i];
    for (int i = 0; i < GS_SACCT_STATE_COUNT; i++)
        states += s->state[i];
    if (s->rows != s->steps + dropped + s->jobs + s->runs_lost)
        fz_fail("rows != steps + dropped + jobs + runs_lost", NULL);
    if ((size_t)s->jobs != gs_trace_count(r->trace) || states != s->jobs)
        fz_fail("jobs, trace length and state counts disagree", NULL);
    gs_time prev = 0;
    for (size_t i = 0; i < gs_trace_count(r->trace); i++) {
        const struct gs_job_spec *j = gs_trace_job(r->trace, i);
        if (j->submit < prev || (i == 0 && j->submit != 0) || j->gpus < 0 ||
            gs_trace_duration(r->trace, i) < 0 || r->extra[i].runs < 1 || !r->extra[i].nodelist)
            fz_fail("job out of order or with an impossible value", j->id);
        prev = j->submit;
    }
}

static void round_trip(const struct gs_sacct_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct gs_error err;
    if (!f)
        abort();
    if (gs_sacct_write_csv(f, r, &err) != 0)
        fz_fail("gs_sacct_write_csv failed", err.msg);
    fclose(f);
    gs_trace_destroy(fz_trace_reads_back(r->trace, text, len, 1));
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gs_sacct_result r;
    struct gs_error err;
    int rc = gs_sacct_parse(text, size, "fuzz.txt", &r, &err);
    if (rc == 0) {
        check_counts(&r);
        round_trip(&r);
        gs_sacct_result_fini(&r);
        return 0;
    }
    if (rc != err.code || (rc != GS_EINVAL && rc != GS_ENOMEM))
        fz_fail("the return code is not err.code (EINVAL or ENOMEM)", err.msg);
    if (r.trace || r.extra)
        fz_fail("a failed import left something in out", err.msg);
    if (strncmp(err.msg, "fuzz.txt", 8) != 0)
        fz_fail("the error message does not start with the file name", err.msg);
    return 0;
}

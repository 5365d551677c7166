/* fuzz_aaic.c - libFuzzer target for the AAIC log importer
 * (io/import_aaic.h, gs_aaic_parse).  Besides "no crash, no leak, no UB"
 * it checks:
 *   - on success, that no row is lost without a count: every non-blank
 *     line after the header is a row, and rows = duplicates + dropped (all
 *     reasons) + jobs, jobs = trace length = termcodes counted; the trace
 *     is in submit order starting at 0;
 *   - that what imports can be written (gs_aaic_write_csv) and read back
 *     by the native trace reader with the same jobs and durations;
 *   - on error, that the return code is err.code, `out` holds nothing and
 *     the message names the file ("fuzz.csv:LINE..." with a real line). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "io/import_aaic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int aaic_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static void check_counts(const struct gs_aaic_result *r, const char *text, size_t len)
{
    const struct gs_aaic_stats *s = &r->stats;
    size_t lines = fz_count_lines(text, len, 1, aaic_blank);
    if (lines < 1 || (int64_t)(lines - 1) != s->rows)
        fz_fail("rows is not the number of non-blank lines after the header", NULL);
    int64_t dropped = 0, codes = 0;
    for (int i = 0; i < GS_AAIC_DROP_COUNT; i++)
        dropped += s->dropped[i];
    for (int i = 0; i <= GS_AAIC_TERMCODES; i++)
        codes += s->termcode[i];
    if (s->rows != s->duplicates + dropped + s->jobs)
        fz_fail("rows != duplicates + dropped + jobs", NULL);
    if ((size_t)s->jobs != gs_trace_count(r->trace) || codes != s->jobs)
        fz_fail("jobs, trace length and termcode counts disagree", NULL);
    gs_time prev = 0;
    for (size_t i = 0; i < gs_trace_count(r->trace); i++) {
        const struct gs_job_spec *j = gs_trace_job(r->trace, i);
        if (j->submit < prev || (i == 0 && j->submit != 0) || j->gpus < 1 ||
            gs_trace_duration(r->trace, i) < 0 || r->nodes[i] < 1)
            fz_fail("job out of order or with an impossible value", j->id);
        prev = j->submit;
    }
}

static void round_trip(const struct gs_aaic_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct gs_error err;
    if (!f)
        abort();
    if (gs_aaic_write_csv(f, r, &err) != 0)
        fz_fail("gs_aaic_write_csv failed", err.msg);
    fclose(f);
    gs_trace_destroy(fz_trace_reads_back(r->trace, text, len, 1));
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gs_aaic_result r;
    struct gs_error err;
    int rc = gs_aaic_parse(text, size, "fuzz.csv", &r, &err);
    if (rc == 0) {
        check_counts(&r, text, size);
        round_trip(&r);
        gs_aaic_result_fini(&r);
        return 0;
    }
    if (rc != err.code || (rc != GS_EINVAL && rc != GS_ENOMEM))
        fz_fail("the return code is not err.code (EINVAL or ENOMEM)", err.msg);
    if (r.trace || r.observed_wait || r.termcode || r.nodes)
        fz_fail("a failed import left something in out", err.msg);
    fz_check_place(&err, "fuzz.csv", text, size);
    return 0;
}

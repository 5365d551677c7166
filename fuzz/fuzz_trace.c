/* fuzz_trace.c - libFuzzer target for the CSV trace reader.  Besides "no
 * crash, no leak, no UB" it checks a property: whatever parses must survive
 * a write/read round trip unchanged (gs_trace_write_csv output is valid
 * input with the same jobs), and writing is then a fixed point. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/trace_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_job(const struct gs_job_spec *a, const struct gs_job_spec *b)
{
    return same_str(a->id, b->id) && a->submit == b->submit && a->gpus == b->gpus &&
           a->milli == b->milli && a->mem_mib == b->mem_mib && a->topology == b->topology &&
           a->priority == b->priority && a->klass == b->klass && same_str(a->team, b->team) &&
           same_str(a->user, b->user) && same_str(a->name, b->name) &&
           same_str(a->queue, b->queue) && same_str(a->gpu_model, b->gpu_model) &&
           same_str(a->mig, b->mig) && a->time_limit == b->time_limit &&
           a->ckpt_interval == b->ckpt_interval && a->ckpt_cost == b->ckpt_cost &&
           a->restore_cost == b->restore_cost && a->cpu_milli == b->cpu_milli &&
           a->host_mem_mib == b->host_mem_mib;
}

/* Write `tr` to a malloc'd string. */
static char *write_csv(const struct gs_trace *tr, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        abort();
    struct gs_error err;
    if (gs_trace_write_csv(f, tr, &err) != 0)
        abort();
    fclose(f);
    return text;
}

static void round_trip(const struct gs_trace *tr)
{
    size_t len, len2;
    char *text = write_csv(tr, &len);
    struct gs_error err;
    struct gs_trace *again = gs_trace_parse_csv(text, len, "rt.csv", 0, &err);
    if (!again) {
        fprintf(stderr, "written trace does not parse: %s\n%s", err.msg, text);
        abort();
    }
    if (gs_trace_count(again) != gs_trace_count(tr))
        abort();
    for (size_t i = 0; i < gs_trace_count(tr); i++) {
        if (!same_job(gs_trace_job(tr, i), gs_trace_job(again, i)) ||
            gs_trace_duration(tr, i) != gs_trace_duration(again, i)) {
            fprintf(stderr, "job %zu changed in the round trip:\n%s", i, text);
            abort();
        }
    }
    char *text2 = write_csv(again, &len2);
    if (len != len2 || memcmp(text, text2, len) != 0)
        abort();
    free(text);
    free(text2);
    gs_trace_destroy(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_error err;
    /* the first byte picks need_duration so both paths are explored */
    int need_duration = size > 0 && (data[0] & 1);
    struct gs_trace *tr = gs_trace_parse_csv((const char *)data, size, "fuzz.csv",
                                             need_duration, &err);
    if (tr) {
        round_trip(tr);
        gs_trace_destroy(tr);
    }
    return 0;
}

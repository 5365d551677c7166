/* fuzz_trace.c - libFuzzer target for the CSV trace reader.  Besides "no
 * crash, no leak, no UB" it checks a property: whatever parses must survive
 * a write/read round trip unchanged (gs_trace_write_csv output is valid
 * input with the same jobs), and writing is then a fixed point. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "io/trace_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    struct gs_trace *again = fz_trace_reads_back(tr, text, len, 0);
    char *text2 = write_csv(again, &len2);
    if (len != len2 || memcmp(text, text2, len) != 0)
        fz_fail("writing the read-back trace gives other bytes", NULL);
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

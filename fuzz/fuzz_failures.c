/* fuzz_failures.c - libFuzzer target for the failure model YAML reader
 * (`sim --failures`).  On error the code equals err.code and the message
 * starts with the file name; on success the model passes
 * gs_failure_model_check and a day of failures on 4 nodes draws cleanly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/failures_yaml.h"
#include "sim/failures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_error err = { 0 };
    struct gs_failure_model m;
    int rc = gs_failures_parse_yaml((const char *)data, size, "fuzz.yaml", &m, &err);
    if (rc != 0) {
        if (rc != err.code || strncmp(err.msg, "fuzz.yaml", 9) != 0)
            abort();
        return 0;
    }
    if (gs_failure_model_check(&m, &err) != 0)
        abort();
    struct gs_fail_stream s;
    struct gs_node_events ev = { 0 };
    if (gs_fail_stream_init(&s, &m, 4, &err) != 0)
        abort();
    /* at most a day, and not past a few thousand events (tiny MTBFs) */
    gs_time until = (gs_time)86400 * 1000;
    if (m.mtbf_s < 60)
        until = (gs_time)(m.mtbf_s * 1000 * 100) + 1;
    if (gs_fail_stream_draw(&s, until, &ev) != 0)
        abort();
    for (size_t i = 1; i < ev.n; i++)
        if (ev.ev[i].time < ev.ev[i - 1].time)
            abort();
    gs_node_events_fini(&ev);
    gs_fail_stream_fini(&s);
    return 0;
}

/* fuzz_api.c - libFuzzer target for the daemon's submit request decoder
 * (io/api_codec.c).  On error nothing is owned and the status is 400 or
 * 413 with a code; on success the command is a NULL-terminated non-empty
 * argv, every env entry is KEY=VALUE, and the body re-encoded by jansson
 * decodes to the same spec (the journal stores the body that way and the
 * restarted daemon decodes it again). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/api_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_spec(const struct gs_job_spec *a, const struct gs_job_spec *b)
{
    if (a->gpus != b->gpus || a->milli != b->milli || a->mem_mib != b->mem_mib ||
        a->priority != b->priority || a->klass != b->klass || a->topology != b->topology ||
        a->time_limit != b->time_limit || a->ckpt_interval != b->ckpt_interval ||
        a->ckpt_cost != b->ckpt_cost || a->restore_cost != b->restore_cost ||
        a->cpu_milli != b->cpu_milli || a->host_mem_mib != b->host_mem_mib ||
        a->mem_bw != b->mem_bw || (!a->id) != (!b->id) || (a->id && strcmp(a->id, b->id)) ||
        (!a->team) != (!b->team) || (a->team && strcmp(a->team, b->team)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_api_submit s;
    struct gs_api_error e;
    int rc = gs_api_submit_decode((const char *)data, size, &s, &e);
    if (rc < 0) {
        if ((rc != -400 && rc != -413) || !e.code[0] || s.strs || s.json)
            abort();
        char *body = gs_api_error_body(&e);
        if (!body)
            abort();
        free(body);
        return 0;
    }
    if (s.argc < 1 || !s.argv || !s.argv[0] || s.argv[s.argc] || !s.argv[0][0])
        abort();
    for (int i = 0; i < s.nenv; i++)
        if (!strchr(s.env[i], '=') || s.env[i][0] == '=')
            abort();
    char *again = json_dumps(s.json, JSON_COMPACT);
    struct gs_api_submit t;
    if (!again || gs_api_submit_decode(again, strlen(again), &t, &e) != 0)
        abort();
    same_spec(&s.row.spec, &t.row.spec);
    if (t.argc != s.argc || t.nenv != s.nenv)
        abort();
    free(again);
    gs_api_submit_fini(&t);
    gs_api_submit_fini(&s);
    return 0;
}

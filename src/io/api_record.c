/* api_record.c - the request half of a job object: what was asked for
 * (name, command, working directory, limits, class, GPU request, output
 * paths), read back from the submit body the journal keeps, with the
 * trace format's defaults made explicit (api_codec.h). */
#include "io/api_codec.h"

#include <stdio.h>
#include <string.h>

static const char *const topo_names[] = { "auto", "domain", "node", "any" };

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *strv(char *const *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(v[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* The GPU request: count, share, memory, model, MIG profile, topology. */
static json_t *gpu_request(const struct gs_job_spec *sp)
{
    json_t *g = json_object();
    if (!g)
        return NULL;
    int bad = json_object_set_new(g, "count", json_integer(sp->gpus)) |
              json_object_set_new(g, "share", json_real((double)sp->milli / 1000.0)) |
              json_object_set_new(g, "mem_gb", sp->mem_mib > 0
                                                   ? json_real((double)sp->mem_mib / 1024.0)
                                                   : json_null()) |
              json_object_set_new(g, "model", str_or_null(sp->gpu_model)) |
              json_object_set_new(g, "mig", str_or_null(sp->mig && *sp->mig ? sp->mig : NULL)) |
              json_object_set_new(g, "topology",
                                  json_string(sp->topology >= 0 && sp->topology < 4
                                                  ? topo_names[sp->topology] : "auto"));
    if (bad) {
        json_decref(g);
        return NULL;
    }
    return g;
}

char *gs_api_out_path(const char *dir, const char *id, int attempt, const char *sfx, char *buf,
                      size_t n)
{
    int w = snprintf(buf, n, "%s/%s.%d.%s", dir, id, attempt, sfx);
    if (w < 0 || (size_t)w >= n)
        buf[0] = '\0';
    return buf;
}

/* The attempt's output file: the request's path, else the default one. */
static json_t *out_file(const struct gs_api_job *j, const char *given, const char *sfx)
{
    char buf[4200];
    if (given)
        return json_string(given);
    if (j->attempts < 1 || !j->out_dir || !j->id)
        return json_null();
    return json_string(gs_api_out_path(j->out_dir, j->id, j->attempts, sfx, buf, sizeof buf));
}

int gs_api_job_add_request(json_t *o, const struct gs_api_job *j)
{
    struct gs_api_submit s;
    struct gs_api_error e;
    if (!j->request || gs_api_submit_decode(j->request, strlen(j->request), &s, &e) < 0)
        return 0; /* nothing to add: the object says what the row says */
    const struct gs_job_spec *sp = &s.row.spec;
    int bad = json_object_set_new(o, "name", str_or_null(sp->name)) |
              json_object_set_new(o, "command", strv(s.argv, s.argc)) |
              json_object_set_new(o, "cwd", str_or_null(s.cwd)) |
              json_object_set_new(o, "time_limit_s", sp->time_limit > 0
                                                         ? json_integer(sp->time_limit / 1000)
                                                         : json_null()) |
              json_object_set_new(o, "priority", json_integer(sp->priority)) |
              json_object_set_new(o, "class", json_string(sp->klass == GS_CLASS_INFER
                                                              ? "inference" : "training")) |
              json_object_set_new(o, "queue", str_or_null(sp->queue)) |
              json_object_set_new(o, "gpu_request", gpu_request(sp)) |
              json_object_set_new(o, "checkpoint_interval_s",
                                  sp->ckpt_interval > 0
                                      ? json_integer(sp->ckpt_interval / 1000) : json_null()) |
              json_object_set_new(o, "stdout", out_file(j, s.out, "out")) |
              json_object_set_new(o, "stderr", out_file(j, s.err, "err"));
    gs_api_submit_fini(&s);
    return bad ? -1 : 0;
}

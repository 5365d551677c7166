/* job_request.c - build the body of POST /v1/jobs from options or a spec. */
#include "io/job_request.h"
#include "io/job_fields.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VAL_MAX 128 /* longest canonical text of a numeric or enum column */

/* The canonical text `t` of column `col` as a JSON value. */
static json_t *json_value(int col, const char *t)
{
    if (gs_jcol_is_string(col))
        return json_string(t);
    char *end;
    double d = strtod(t, &end);
    if (end == t || *end) /* topology, class */
        return json_string(t);
    if (d == floor(d) && fabs(d) < 9007199254740992.0) /* 2^53: exact as an integer */
        return json_integer((json_int_t)d);
    return json_real(d);
}

/* Format column `col` of `spec` and store it under its name. */
static int put_col(json_t *req, int col, const struct gs_job_spec *spec, gs_time duration,
                   struct gs_error *err)
{
    const char *name = gs_jcol_name(col);
    json_t *v;
    if (gs_jcol_is_string(col)) {
        /* unbounded: copy the spec's string itself (job_fields.h) */
        const char *s = NULL;
        switch (col) {
        case GS_JCOL_ID: s = spec->id; break;
        case GS_JCOL_MIG: s = spec->mig; break;
        case GS_JCOL_TEAM: s = spec->team; break;
        case GS_JCOL_USER: s = spec->user; break;
        case GS_JCOL_NAME: s = spec->name; break;
        case GS_JCOL_QUEUE: s = spec->queue; break;
        case GS_JCOL_GPU_MODEL: s = spec->gpu_model; break;
        }
        if (!s)
            return 0;
        v = json_string(s);
    } else {
        char buf[VAL_MAX];
        int n = gs_jcol_format(col, spec, duration, buf, sizeof buf);
        if (n < 0)
            return gs_errorf(err, GS_EINVAL, "%s: value does not format", name);
        if (n == 0)
            return 0; /* a default with no text of its own */
        v = json_value(col, buf);
    }
    if (!v || json_object_set_new(req, name, v) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

int gs_job_request_set(json_t *req, int col, const char *text, struct gs_error *err)
{
    if (col < 0 || col >= GS_JCOL_COUNT)
        return gs_errorf(err, GS_EINVAL, "no such column");
    if (!text || !*text)
        return gs_errorf(err, GS_EINVAL, "%s: empty value", gs_jcol_name(col));
    struct gs_job_row row;
    gs_job_row_init(&row);
    int rc = gs_job_row_set(&row, col, text, err);
    if (rc < 0)
        return rc;
    if (gs_jcol_is_string(col)) {
        json_t *v = json_string(text);
        if (!v || json_object_set_new(req, gs_jcol_name(col), v) < 0)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        return 0;
    }
    /* an explicit default ("--topology auto") formats to ""; say it anyway */
    char buf[VAL_MAX];
    int n = gs_jcol_format(col, &row.spec, row.duration, buf, sizeof buf);
    if (n < 0)
        return gs_errorf(err, GS_EINVAL, "%s: '%s' does not format", gs_jcol_name(col), text);
    json_t *v = n ? json_value(col, buf) : json_value(col, text);
    if (!v || json_object_set_new(req, gs_jcol_name(col), v) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

int gs_job_request_from_spec(json_t *req, const struct gs_job_spec *spec, gs_time duration,
                             struct gs_error *err)
{
    for (int col = 0; col < GS_JCOL_COUNT; col++) {
        if (col == GS_JCOL_SUBMIT || (col == GS_JCOL_DURATION && duration == GS_TIME_NONE))
            continue;
        if (col != GS_JCOL_GPUS && col != GS_JCOL_ID &&
            gs_jcol_is_default(col, spec, duration))
            continue;
        int rc = put_col(req, col, spec, duration, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gs_job_request_command(json_t *req, int argc, char *const *argv, struct gs_error *err)
{
    if (argc < 1 || !argv[0] || !*argv[0])
        return gs_errorf(err, GS_EINVAL, "command: a command is required (after --)");
    json_t *a = json_array();
    if (!a)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    for (int i = 0; i < argc; i++)
        if (json_array_append_new(a, json_string(argv[i])) < 0) {
            json_decref(a);
            return gs_errorf(err, GS_EINVAL, "command: argument %d is not UTF-8", i);
        }
    if (json_object_set_new(req, "command", a) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

static int is_name(const char *s, size_t n)
{
    if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

int gs_job_request_env(json_t *req, const char *assignment, struct gs_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || !is_name(assignment, (size_t)(eq - assignment)))
        return gs_errorf(err, GS_EINVAL, "env: '%.40s' is not KEY=VALUE", assignment);
    json_t *env = json_object_get(req, "env");
    if (!env) {
        env = json_object();
        if (!env || json_object_set_new(req, "env", env) < 0)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
    }
    char key[256];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof key)
        return gs_errorf(err, GS_EINVAL, "env: name longer than %zu bytes", sizeof key - 1);
    memcpy(key, assignment, n);
    key[n] = '\0';
    json_t *v = json_string(eq + 1);
    if (!v)
        return gs_errorf(err, GS_EINVAL, "env: value of %s is not UTF-8", key);
    if (json_object_set_new(env, key, v) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

int gs_job_request_option_col(const char *name)
{
    char buf[64];
    size_t n = strlen(name);
    if (n >= sizeof buf)
        return GS_ENOENT;
    for (size_t i = 0; i <= n; i++)
        buf[i] = name[i] == '-' ? '_' : name[i];
    int col = gs_jcol_find(buf, n);
    return col == GS_JCOL_SUBMIT ? GS_ENOENT : col;
}

const char *gs_job_request_option_name(int col, char *buf, size_t size)
{
    const char *s = gs_jcol_name(col);
    size_t i = 0;
    for (; s[i] && i + 1 < size; i++)
        buf[i] = s[i] == '_' ? '-' : s[i];
    if (size)
        buf[i] = '\0';
    return buf;
}

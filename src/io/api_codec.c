/* api_codec.c - submit request decoding and job object encoding. */
#include "io/api_codec.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/names.h"

/* Replace bytes outside printable ASCII: messages quote (and truncate)
 * client input, which may be any UTF-8, cut mid-sequence. */
static void ascii_only(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            *s = '?';
}

int gs_api_errorf(struct gs_api_error *e, int status, const char *code, const char *field,
                  const char *fmt, ...)
{
    if (e) {
        e->status = status;
        snprintf(e->code, sizeof e->code, "%s", code ? code : "error");
        snprintf(e->field, sizeof e->field, "%s", field ? field : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
        ascii_only(e->field);
        ascii_only(e->message);
    }
    return -status;
}

char *gs_api_error_body(const struct gs_api_error *e)
{
    json_t *o = json_pack("{s:{s:s, s:s, s:s?}}", "error", "code", e->code, "message",
                          e->message, "field", e->field[0] ? e->field : NULL);
    if (!o)
        return NULL;
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

/* A zeroed buffer of len + 1 bytes owned by the request; NULL on ENOMEM. */
static char *keep_alloc(struct gs_api_submit *r, size_t len)
{
    if (r->nstrs == r->capstrs) {
        size_t cap = r->capstrs ? 2 * r->capstrs : 16;
        char **p = realloc(r->strs, cap * sizeof *p);
        if (!p)
            return NULL;
        r->strs = p;
        r->capstrs = cap;
    }
    char *c = calloc(1, len + 1);
    if (!c)
        return NULL;
    r->strs[r->nstrs++] = c;
    return c;
}

/* Keep a copy of `s` (len bytes) owned by the request; NULL on ENOMEM. */
static char *keep(struct gs_api_submit *r, const char *s, size_t len)
{
    char *c = keep_alloc(r, len);
    if (c)
        memcpy(c, s, len);
    return c;
}

static int oom(struct gs_api_error *e)
{
    return gs_api_errorf(e, 500, "internal", NULL, "out of memory");
}

/* A JSON string holding no NUL (jansson rejects \u0000 by default). */
static int want_string(json_t *v, const char *field, const char **out, struct gs_api_error *e)
{
    if (!json_is_string(v))
        return gs_api_errorf(e, 400, "invalid", field, "%s: expected a string", field);
    *out = json_string_value(v);
    return 0;
}

/* A trace column given as a JSON string or number, through job_fields. */
static int set_column(struct gs_api_submit *r, int col, const char *key, json_t *v,
                      struct gs_api_error *e)
{
    char num[64];
    const char *text;
    if (json_is_null(v) && col != GS_JCOL_ID)
        return 0;
    if (json_is_string(v)) {
        text = json_string_value(v);
    } else if (json_is_integer(v)) {
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        text = num;
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d == floor(d) && fabs(d) < 9e15)
            snprintf(num, sizeof num, "%.0f", d);
        else
            snprintf(num, sizeof num, "%.17g", d);
        text = num;
    } else {
        return gs_api_errorf(e, 400, "invalid", key, "%s: expected a string or a number",
                             key);
    }
    char *copy = keep(r, text, strlen(text));
    if (!copy)
        return oom(e);
    struct gs_error err;
    gs_error_clear(&err);
    if (gs_job_row_set(&r->row, col, copy, &err) < 0)
        return gs_api_errorf(e, 400, "invalid", key, "%s", err.msg);
    if (col == GS_JCOL_ID)
        r->has_id = 1;
    return 0;
}

/* A NULL-terminated array of `n` owned strings. */
static char **string_array(struct gs_api_submit *r, size_t n)
{
    return (char **)(void *)keep_alloc(r, (n + 1) * sizeof(char *));
}

static int set_command(struct gs_api_submit *r, json_t *v, struct gs_api_error *e)
{
    if (!json_is_array(v) || json_array_size(v) == 0)
        return gs_api_errorf(e, 400, "invalid", "command",
                             "command: expected a non-empty array of strings");
    size_t n = json_array_size(v);
    if (n > 4096)
        return gs_api_errorf(e, 400, "invalid", "command", "command: more than 4096 arguments");
    r->argv = string_array(r, n);
    if (!r->argv)
        return oom(e);
    for (size_t i = 0; i < n; i++) {
        json_t *a = json_array_get(v, i);
        if (!json_is_string(a))
            return gs_api_errorf(e, 400, "invalid", "command",
                                 "command[%zu]: expected a string", i);
        r->argv[i] = (char *)json_string_value(a);
    }
    if (!r->argv[0] || r->argv[0][0] == '\0')
        return gs_api_errorf(e, 400, "invalid", "command", "command[0]: empty program name");
    r->argc = (int)n;
    return 0;
}

static int env_name_ok(const char *k)
{
    if (!*k || (*k >= '0' && *k <= '9'))
        return 0;
    for (; *k; k++)
        if (!(*k == '_' || (*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
              (*k >= '0' && *k <= '9')))
            return 0;
    return 1;
}

static int set_env(struct gs_api_submit *r, json_t *v, struct gs_api_error *e)
{
    if (!json_is_object(v))
        return gs_api_errorf(e, 400, "invalid", "env", "env: expected an object of strings");
    size_t n = json_object_size(v), i = 0;
    r->env = string_array(r, n);
    if (!r->env)
        return oom(e);
    const char *k;
    json_t *val;
    json_object_foreach(v, k, val) {
        if (!env_name_ok(k))
            return gs_api_errorf(e, 400, "invalid", "env", "env: '%.40s' is not a variable name",
                                 k);
        if (gs_name_env_reserved(k)) {
            char field[64];
            snprintf(field, sizeof field, "env.%.40s", k);
            return gs_api_errorf(e, 400, "reserved", field,
                                 "%s: set by the scheduler, a request may not set it", field);
        }
        if (!json_is_string(val))
            return gs_api_errorf(e, 400, "invalid", "env", "env.%.40s: expected a string", k);
        size_t kl = strlen(k), vl = strlen(json_string_value(val));
        char *kv = keep_alloc(r, kl + 1 + vl);
        if (!kv)
            return oom(e);
        snprintf(kv, kl + vl + 2, "%s=%s", k, json_string_value(val));
        r->env[i++] = kv;
    }
    r->nenv = (int)i;
    return 0;
}

static int set_path(struct gs_api_submit *r, const char *key, json_t *v, char **dst,
                    struct gs_api_error *e)
{
    const char *s = NULL;
    int rc = want_string(v, key, &s, e);
    if (rc < 0)
        return rc;
    if (!s || !*s)
        return gs_api_errorf(e, 400, "invalid", key, "%s: empty path", key);
    *dst = keep(r, s, strlen(s));
    return *dst ? 0 : oom(e);
}

static int set_key(struct gs_api_submit *r, const char *k, json_t *v, struct gs_api_error *e)
{
    if (!strcmp(k, "command"))
        return set_command(r, v, e);
    if (!strcmp(k, "env"))
        return set_env(r, v, e);
    if (!strcmp(k, "cwd"))
        return set_path(r, k, v, &r->cwd, e);
    if (!strcmp(k, "stdout"))
        return set_path(r, k, v, &r->out, e);
    if (!strcmp(k, "stderr"))
        return set_path(r, k, v, &r->err, e);
    int col = gs_jcol_find(k, strlen(k));
    if (col < 0)
        return gs_api_errorf(e, 400, "unknown_field", k, "unknown field '%.60s'", k);
    if (col == GS_JCOL_SUBMIT)
        return 0; /* the daemon's clock gives the submit time */
    return set_column(r, col, k, v, e);
}

/* One name of the request against names.h; NULL = absent. */
static int check_one(const char *field, const char *v, int kind, size_t max,
                     struct gs_api_error *e)
{
    char why[96];
    if (!v || gs_name_check(v, strlen(v), kind, max, why, sizeof why) == 0)
        return 0;
    return gs_api_errorf(e, 400, "invalid", field, "%s: %s", field, why);
}

/* The names and labels a job is logged and displayed under (names.h). */
static int check_names(const struct gs_api_submit *r, struct gs_api_error *e)
{
    const struct gs_job_spec *sp = &r->row.spec;
    int rc = r->has_id ? check_one("id", sp->id, GS_NAME_ID, 0, e) : 0;
    if (rc == 0)
        rc = check_one("team", sp->team, GS_NAME_ACCOUNT, 0, e);
    if (rc == 0)
        rc = check_one("user", sp->user, GS_NAME_ACCOUNT, 0, e);
    if (rc == 0)
        rc = check_one("queue", sp->queue, GS_NAME_ACCOUNT, 0, e);
    if (rc == 0)
        rc = check_one("name", sp->name, GS_NAME_TEXT, GS_NAME_JOBNAME_MAX, e);
    if (rc == 0)
        rc = check_one("gpu_model", sp->gpu_model, GS_NAME_TEXT, GS_NAME_ACCOUNT_MAX, e);
    if (rc == 0)
        rc = check_one("mig", sp->mig, GS_NAME_TEXT, GS_NAME_ACCOUNT_MAX, e);
    if (rc == 0)
        rc = check_one("cwd", r->cwd, GS_NAME_TEXT, GS_NAME_PATH_MAX, e);
    if (rc == 0)
        rc = check_one("stdout", r->out, GS_NAME_TEXT, GS_NAME_PATH_MAX, e);
    if (rc == 0)
        rc = check_one("stderr", r->err, GS_NAME_TEXT, GS_NAME_PATH_MAX, e);
    return rc;
}

int gs_api_submit_decode(const char *body, size_t len, struct gs_api_submit *out,
                         struct gs_api_error *e)
{
    memset(out, 0, sizeof *out);
    gs_job_row_init(&out->row);
    if (len > GS_API_BODY_MAX)
        return gs_api_errorf(e, 413, "too_large", NULL, "request body over %zu bytes",
                             GS_API_BODY_MAX);
    json_error_t je;
    out->json = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!out->json)
        return gs_api_errorf(e, 400, "malformed_json", NULL, "malformed JSON at line %d: %s",
                             je.line, je.text);
    int rc = 0;
    if (!json_is_object(out->json))
        rc = gs_api_errorf(e, 400, "invalid", NULL, "expected a JSON object");
    const char *k;
    json_t *v;
    if (rc == 0) {
        json_object_foreach(out->json, k, v) {
            rc = set_key(out, k, v, e);
            if (rc < 0)
                break;
        }
    }
    if (rc == 0 && !out->argv)
        rc = gs_api_errorf(e, 400, "missing", "command",
                           "command: required (an array: program and arguments)");
    if (rc == 0)
        rc = check_names(out, e);
    if (rc < 0)
        gs_api_submit_fini(out);
    return rc;
}

int gs_api_submit_set_id(struct gs_api_submit *s, const char *id)
{
    char *c = keep(s, id, strlen(id));
    if (!c)
        return -500;
    s->row.spec.id = c;
    return 0;
}

void gs_api_submit_fini(struct gs_api_submit *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nstrs; i++)
        free(s->strs[i]);
    free(s->strs);
    json_decref(s->json);
    memset(s, 0, sizeof *s);
    gs_job_row_init(&s->row);
}

char *gs_api_rfc3339(gs_time t, char *buf, size_t n)
{
    time_t sec = (time_t)(t >= 0 ? t / 1000 : (t - 999) / 1000);
    int ms = (int)(t - (gs_time)sec * 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    size_t w = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
    if (ms)
        snprintf(buf + w, n - w, ".%03dZ", ms);
    else
        snprintf(buf + w, n - w, "Z");
    return buf;
}

/* Set "NAME" (RFC 3339 or null) and "NAME_epoch" (seconds or null). */
static int set_time(json_t *o, const char *name, gs_time t)
{
    char key[32], buf[40];
    snprintf(key, sizeof key, "%s_epoch", name);
    if (t == GS_TIME_NONE)
        return json_object_set_new(o, name, json_null()) |
               json_object_set_new(o, key, json_null());
    return json_object_set_new(o, name, json_string(gs_api_rfc3339(t, buf, sizeof buf))) |
           json_object_set_new(o, key, json_real((double)t / 1000.0));
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *reason_json(const struct gs_api_job *j)
{
    json_t *r = json_object();
    if (!r)
        return NULL;
    char buf[40];
    int bad = json_object_set_new(r, "code", json_string(j->reason_code)) |
              json_object_set_new(r, "detail", str_or_null(j->reason_detail)) |
              json_object_set_new(r, "unblock", str_or_null(j->reason_unblock));
    if (j->estimated_start == GS_TIME_NONE)
        bad |= json_object_set_new(r, "estimated_start", json_null()) |
               json_object_set_new(r, "estimated_start_epoch", json_null());
    else
        bad |= json_object_set_new(
                   r, "estimated_start",
                   json_string(gs_api_rfc3339(j->estimated_start, buf, sizeof buf))) |
               json_object_set_new(r, "estimated_start_epoch",
                                   json_real((double)j->estimated_start / 1000.0));
    if (bad) {
        json_decref(r);
        return NULL;
    }
    return r;
}

json_t *gs_api_eta_json(const struct gs_api_eta *e)
{
    if (!e)
        return json_null();
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = set_time(o, "start", e->start) | set_time(o, "p90", e->p90) |
              set_time(o, "engine_start", e->engine) |
              json_object_set_new(o, "basis", str_or_null(e->basis));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The promise keys of a job object: "estimate" (pending jobs) and
 * "estimate_at_submit". */
static int set_etas(json_t *o, const struct gs_api_job *j)
{
    const struct gs_api_eta *at = &j->estimate_at_submit;
    json_t *sub = gs_api_eta_json(at->basis ? at : NULL);
    int bad = sub ? json_object_set_new(o, "estimate_at_submit", sub) : -1;
    if (j->estimate.basis) {
        json_t *now = gs_api_eta_json(&j->estimate);
        bad |= now ? json_object_set_new(o, "estimate", now) : -1;
    }
    return bad;
}

json_t *gs_api_job_json(const struct gs_api_job *j)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = json_object_set_new(o, "id", json_string(j->id)) |
              json_object_set_new(o, "state", json_string(j->state)) |
              json_object_set_new(o, "outcome", str_or_null(j->outcome)) |
              json_object_set_new(o, "team", json_string(j->team ? j->team : "default")) |
              json_object_set_new(o, "user", json_string(j->user ? j->user : "-")) |
              json_object_set_new(o, "gpus", json_integer(j->gpus));
    bad |= set_time(o, "submit", j->submit) | set_time(o, "start", j->start) |
           set_time(o, "end", j->end) | set_time(o, "first_start", j->first_start);
    bad |= json_object_set_new(o, "placement", str_or_null(j->placement)) |
           json_object_set_new(o, "attempts", json_integer(j->attempts)) |
           json_object_set_new(o, "preemptions", json_integer(j->preemptions)) |
           json_object_set_new(o, "lost_gpu_s", json_real(j->lost_gpu_s)) |
           json_object_set_new(o, "exit_code",
                               j->exit_code < 0 ? json_null() : json_integer(j->exit_code));
    if (j->launch_error)
        bad |= json_object_set_new(o, "launch_error", json_string(j->launch_error));
    if (j->spare_rights)
        bad |= json_object_set_new(o, "spare_rights", json_true());
    if (j->reason_code) {
        json_t *r = reason_json(j);
        bad |= r ? json_object_set_new(o, "reason", r) : -1;
    }
    if (j->request)
        bad |= gs_api_job_add_request(o, j);
    bad |= json_object_set_new(o, "end_reason", str_or_null(j->end_reason));
    bad |= set_etas(o, j);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

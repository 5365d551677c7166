/* import_sacct_read.c - `sacct --json` and `sacct -P` text into rows
 * (import_sacct_private.h). */
#define _DEFAULT_SOURCE /* strcasecmp */
#include "io/import_sacct_private.h"
#include "core/base/alloc.h"
#include "io/slurm_util.h"
#include "io/job_fields.h"
#include "io/ioutil.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TIME_S 9000000000000LL /* 9e12 s, the trace's bound */
#define SHOW 40

/* The first of the row's strings that is not UTF-8 (the trace it becomes
 * must load, and JSON reports hold it), or NULL. */
static const char *not_utf8(const struct gs_sacct_row *r)
{
    const char *const v[] = { r->id, r->partition, r->account, r->user, r->name };
    const char *const names[] = { "JobID", "Partition", "Account", "User", "JobName" };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] && gs_utf8_invalid_at(v[i]) >= 0)
            return names[i];
    return NULL;
}

int gs_sacct_rows_push(struct gs_sacct_rows *rows, const struct gs_sacct_row *r)
{
    const char *bad = not_utf8(r);
    if (bad) {
        if (rows->json)
            gs_sacct_drop(rows, GS_SACCT_DROP_VALUE, "%s: jobs[%d]: %s: not valid UTF-8",
                          rows->name, r->line - 1, bad);
        else
            gs_sacct_drop(rows, GS_SACCT_DROP_VALUE, "%s:%d: %s: not valid UTF-8", rows->name,
                          r->line, bad);
        return 0;
    }
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? rows->cap * 2 : 256;
        void *v = gs_realloc(rows->v, cap * sizeof *rows->v);
        if (!v)
            return GS_ENOMEM;
        rows->v = v;
        rows->cap = cap;
    }
    rows->v[rows->n++] = *r;
    return 0;
}

void gs_sacct_drop(struct gs_sacct_rows *rows, int reason, const char *fmt, ...)
{
    if (rows->stats->dropped[reason]++ > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rows->stats->first_drop[reason], sizeof rows->stats->first_drop[reason], fmt, ap);
    va_end(ap);
}

const char *gs_sacct_where(const struct gs_sacct_rows *rows, int line, char *buf, size_t n)
{
    if (rows->json)
        snprintf(buf, n, "%s: jobs[%d]", rows->name, line - 1);
    else
        snprintf(buf, n, "%s:%d", rows->name, line);
    return buf;
}

static void row_init(struct gs_sacct_row *r, int line)
{
    memset(r, 0, sizeof *r);
    r->submit = r->start = r->end = GS_SACCT_NONE;
    r->elapsed = -1;
    r->priority = -1;
    r->nnodes = 1;
    r->nodelist = r->partition = r->account = r->user = r->name = r->state = "";
    r->line = line;
}

/* ---- -P ------------------------------------------------------------------ */

enum pcol {
    P_JOBID, P_JOBIDRAW, P_SUBMIT, P_START, P_END, P_ELAPSED, P_ELAPSEDRAW, P_TIMELIMIT,
    P_TIMELIMITRAW, P_ALLOCTRES, P_REQTRES, P_NNODES, P_NODELIST, P_PARTITION, P_ACCOUNT,
    P_USER, P_JOBNAME, P_STATE, P_PRIORITY, P_COUNT
};

static const char *const pcol_names[P_COUNT] = {
    "JobID", "JobIDRaw", "Submit", "Start", "End", "Elapsed", "ElapsedRaw", "Timelimit",
    "TimelimitRaw", "AllocTRES", "ReqTRES", "NNodes", "NodeList", "Partition", "Account",
    "User", "JobName", "State", "Priority",
};

/* Split `line` in place at '|' into f[0 .. max-1]; returns the number of
 * fields (which may exceed max: the rest are not stored). */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Split at '|', each field trimmed of surrounding blanks (sacct pads
 * nothing, and the trace reader trims, so a padded value would not read
 * back the same). */
static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        char *bar = strchr(p, '|');
        if (bar)
            *bar = '\0';
        char *e = p + strlen(p);
        while (e > p && is_blank(e[-1]))
            *--e = '\0';
        while (is_blank(*p))
            p++;
        if (n < max)
            f[n] = p;
        n++;
        if (!bar)
            break;
        p = bar + 1;
    }
    return n;
}

static char *next_line(char **p, int *lineno)
{
    char *s = *p;
    if (!s || !*s)
        return NULL;
    char *nl = strchr(s, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = s + strlen(s);
    }
    size_t n = strlen(s);
    if (n && s[n - 1] == '\r')
        s[n - 1] = '\0';
    (*lineno)++;
    return s;
}

static int map_header(char *line, int *col_of, int *nf, const char *name, struct gs_error *err)
{
    char *f[256];
    *nf = split(line, f, 256);
    if (*nf > 256)
        return gs_errorf(err, GS_EINVAL, "%s:1: more than 256 columns", name);
    for (int c = 0; c < P_COUNT; c++)
        col_of[c] = -1;
    for (int i = 0; i < *nf; i++)
        for (int c = 0; c < P_COUNT; c++)
            if (col_of[c] < 0 && strcasecmp(f[i], pcol_names[c]) == 0)
                col_of[c] = i;
    if (col_of[P_JOBID] < 0)
        col_of[P_JOBID] = col_of[P_JOBIDRAW];
    if (col_of[P_ELAPSED] < 0)
        col_of[P_ELAPSED] = col_of[P_ELAPSEDRAW];
    if (col_of[P_TIMELIMIT] < 0)
        col_of[P_TIMELIMIT] = col_of[P_TIMELIMITRAW];
    const char *missing = col_of[P_JOBID] < 0    ? "JobID"
                          : col_of[P_SUBMIT] < 0 ? "Submit"
                          : col_of[P_START] < 0  ? "Start"
                          : (col_of[P_END] < 0 && col_of[P_ELAPSED] < 0) ? "End or Elapsed"
                          : (col_of[P_ALLOCTRES] < 0 && col_of[P_REQTRES] < 0)
                              ? "AllocTRES or ReqTRES"
                              : NULL;
    if (missing)
        return gs_errorf(err, GS_EINVAL, "%s:1: no %s column in the header (sacct -P"
                         " --format=JobID,Submit,Start,End,Elapsed,AllocTRES,...)", name,
                         missing);
    return 0;
}

static const char *field(char **f, const int *col_of, int c)
{
    return col_of[c] >= 0 ? f[col_of[c]] : "";
}

/* Elapsed: [D-]HH:MM:SS, or plain seconds (ElapsedRaw). */
static int parse_elapsed(const char *t, int64_t *s)
{
    gs_time ms;
    char *end;
    if (gs_slurm_parse_duration(t, &ms) == 0) {
        *s = ms / 1000;
        return 0;
    }
    long long v = strtoll(t, &end, 10);
    if (end == t || *end || v < 0 || v > MAX_TIME_S)
        return -1;
    *s = v;
    return 0;
}

static int parse_int(const char *t, int64_t max, int64_t *v)
{
    char *end;
    long long x = strtoll(t, &end, 10);
    if (end == t || *end || x < 0 || x > max)
        return -1;
    *v = x;
    return 0;
}

/* Fill the row's times; returns the name of a bad field or NULL. */
static const char *pipe_times(struct gs_sacct_row *r, char **f, const int *col_of)
{
    if (gs_slurm_parse_time(field(f, col_of, P_SUBMIT), &r->submit) != 0)
        return "Submit";
    int rc;
    if ((rc = gs_slurm_parse_time(field(f, col_of, P_START), &r->start)) < 0)
        return "Start";
    if (rc == 1)
        r->start = GS_SACCT_NONE;
    if (col_of[P_END] >= 0) {
        if ((rc = gs_slurm_parse_time(field(f, col_of, P_END), &r->end)) < 0)
            return "End";
        if (rc == 1)
            r->end = GS_SACCT_NONE;
    }
    if (col_of[P_ELAPSED] >= 0 && parse_elapsed(field(f, col_of, P_ELAPSED), &r->elapsed) < 0)
        return "Elapsed";
    if (col_of[P_TIMELIMIT] >= 0 &&
        gs_slurm_parse_limit(field(f, col_of, P_TIMELIMIT), &r->limit) < 0)
        return "Timelimit";
    /* no End column: a run that is not RUNNING ended Elapsed after Start */
    const char *st = field(f, col_of, P_STATE);
    if (col_of[P_END] < 0 && r->start != GS_SACCT_NONE && r->elapsed >= 0 &&
        strncmp(st, "RUNNING", 7) != 0 && strncmp(st, "SUSPENDED", 9) != 0)
        r->end = r->start + r->elapsed;
    return NULL;
}

static const char *pipe_rest(struct gs_sacct_row *r, char **f, const int *col_of)
{
    int64_t v;
    const char *alloc = field(f, col_of, P_ALLOCTRES), *req = field(f, col_of, P_REQTRES);
    r->gpus = *alloc ? gs_slurm_tres_gpus(alloc) : 0;
    if (r->gpus < 0)
        return "AllocTRES";
    if (!*alloc && *req) {
        if ((r->gpus = gs_slurm_tres_gpus(req)) < 0)
            return "ReqTRES";
        r->from_req = 1;
    }
    if (*field(f, col_of, P_NNODES)) {
        if (parse_int(field(f, col_of, P_NNODES), 1000000, &v) < 0)
            return "NNodes";
        r->nnodes = (int)v;
    }
    if (*field(f, col_of, P_PRIORITY) &&
        parse_int(field(f, col_of, P_PRIORITY), INT64_MAX / 2, &r->priority) < 0)
        return "Priority";
    r->nodelist = field(f, col_of, P_NODELIST);
    r->partition = field(f, col_of, P_PARTITION);
    r->account = field(f, col_of, P_ACCOUNT);
    r->user = field(f, col_of, P_USER);
    r->name = field(f, col_of, P_JOBNAME);
    r->state = field(f, col_of, P_STATE);
    return NULL;
}

static int pipe_row(struct gs_sacct_rows *rows, char *line, int lineno, const int *col_of,
                    int nf)
{
    char *f[256];
    int n = split(line, f, 256);
    rows->stats->rows++;
    if (n != nf) {
        gs_sacct_drop(rows, GS_SACCT_DROP_FIELDS, "%s:%d: %d fields, the header has %d",
                      rows->name, lineno, n, nf);
        return 0;
    }
    const char *id = field(f, col_of, P_JOBID);
    if (strchr(id, '.')) {
        rows->stats->steps++;
        return 0;
    }
    struct gs_sacct_row r;
    row_init(&r, lineno);
    const char *bad = strlen(id) == 0 || strlen(id) >= sizeof r.id ? "JobID" : NULL;
    if (!bad)
        snprintf(r.id, sizeof r.id, "%s", id);
    if (!bad)
        bad = pipe_times(&r, f, col_of);
    if (!bad)
        bad = pipe_rest(&r, f, col_of);
    if (bad) {
        const char *v = col_of[P_JOBID] >= 0 && !strcmp(bad, "JobID") ? id : "";
        for (int c = 0; c < P_COUNT; c++)
            if (col_of[c] >= 0 && strcmp(pcol_names[c], bad) == 0)
                v = f[col_of[c]];
        gs_sacct_drop(rows, GS_SACCT_DROP_VALUE, "%s:%d: %s: '%.*s' does not parse", rows->name,
                      lineno, bad, SHOW, v);
        return 0;
    }
    return gs_sacct_rows_push(rows, &r);
}

int gs_sacct_read_pipe(char *text, size_t len, struct gs_sacct_rows *rows,
                       struct gs_error *err)
{
    char *p = text, *line;
    int lineno = 0, col_of[P_COUNT], nf = 0, have_header = 0;
    while ((line = next_line(&p, &lineno))) {
        if (!*line)
            continue;
        if (!have_header) {
            int rc = map_header(line, col_of, &nf, rows->name, err);
            if (rc < 0)
                return rc;
            have_header = 1;
            continue;
        }
        if (pipe_row(rows, line, lineno, col_of, nf) < 0)
            return gs_errorf(err, GS_ENOMEM, "%s: out of memory", rows->name);
        gs_io_progress_row(rows->prog, (size_t)(p - text), len);
    }
    if (!have_header)
        return gs_errorf(err, GS_EINVAL, "%s: no header line (sacct -P prints one)",
                         rows->name);
    return 0;
}

/* ---- --json -------------------------------------------------------------- */

/* A number, or {"set": true, "number": N} ({"infinite": true} and unset
 * are "none").  Returns 1 with *v, 0 for none. */
static int jnum(const json_t *x, int64_t *v)
{
    if (json_is_object(x)) {
        if (json_is_true(json_object_get(x, "infinite")) ||
            !json_is_true(json_object_get(x, "set")))
            return 0;
        x = json_object_get(x, "number");
    }
    if (!json_is_integer(x))
        return 0;
    *v = (int64_t)json_integer_value(x);
    return 1;
}

static const char *jstr(const json_t *o, const char *key)
{
    const json_t *x = json_object_get(o, key);
    if (json_is_array(x))
        x = json_array_get(x, 0);
    return json_is_string(x) ? json_string_value(x) : "";
}

/* GPUs of a TRES list [{type: "gres", name: "gpu", count}]: the untyped
 * entry, else the sum of "gpu:TYPE" ones. */
static int64_t jtres_gpus(const json_t *list)
{
    int64_t untyped = -1, typed = 0, v;
    for (size_t i = 0; json_is_array(list) && i < json_array_size(list); i++) {
        const json_t *t = json_array_get(list, i);
        const char *name = jstr(t, "name");
        if (strcmp(jstr(t, "type"), "gres") != 0 || strncmp(name, "gpu", 3) != 0 ||
            !jnum(json_object_get(t, "count"), &v) || v < 0)
            continue;
        if (name[3] == '\0')
            untyped = v;
        else if (name[3] == ':')
            typed += v;
    }
    return untyped >= 0 ? untyped : typed;
}

static int64_t jtime(const json_t *tm, const char *key)
{
    int64_t v;
    return jnum(json_object_get(tm, key), &v) && v > 0 && v <= MAX_TIME_S ? v : GS_SACCT_NONE;
}

static int json_row(struct gs_sacct_rows *rows, const json_t *j, size_t i)
{
    struct gs_sacct_row r;
    int64_t v, task;
    row_init(&r, (int)(i + 1));
    rows->stats->rows++;
    const json_t *arr = json_object_get(j, "array"), *tm = json_object_get(j, "time");
    if (!jnum(json_object_get(j, "job_id"), &v) || v < 0) {
        gs_sacct_drop(rows, GS_SACCT_DROP_VALUE, "%s: jobs[%zu]: no job_id", rows->name, i);
        return 0;
    }
    int64_t ajob;
    if (jnum(json_object_get(arr, "task_id"), &task) && jnum(json_object_get(arr, "job_id"), &ajob) &&
        ajob > 0)
        snprintf(r.id, sizeof r.id, "%" PRId64 "_%" PRId64, ajob, task);
    else
        snprintf(r.id, sizeof r.id, "%" PRId64, v);
    r.submit = jtime(tm, "submission");
    r.start = jtime(tm, "start");
    r.end = jtime(tm, "end");
    if (jnum(json_object_get(tm, "elapsed"), &v) && v >= 0 && v <= MAX_TIME_S)
        r.elapsed = v;
    if (jnum(json_object_get(tm, "limit"), &v) && v > 0 && v < 4294967294LL)
        r.limit = (gs_time)v * 60000;
    if (r.submit == GS_SACCT_NONE) {
        gs_sacct_drop(rows, GS_SACCT_DROP_VALUE, "%s: jobs[%zu] (%s): no time.submission",
                      rows->name, i, r.id);
        return 0;
    }
    const json_t *tres = json_object_get(j, "tres");
    r.gpus = jtres_gpus(json_object_get(tres, "allocated"));
    if (r.gpus == 0 && (v = jtres_gpus(json_object_get(tres, "requested"))) > 0) {
        r.gpus = v;
        r.from_req = 1;
    }
    if (jnum(json_object_get(j, "allocation_nodes"), &v) && v > 0 && v <= 1000000)
        r.nnodes = (int)v;
    if (jnum(json_object_get(j, "priority"), &v) && v >= 0)
        r.priority = v;
    r.nodelist = jstr(j, "nodes");
    r.partition = jstr(j, "partition");
    r.account = jstr(j, "account");
    r.user = jstr(j, "user");
    r.name = jstr(j, "name");
    const json_t *st = json_object_get(j, "state");
    r.state = json_is_object(st) ? jstr(st, "current") : jstr(j, "state");
    return gs_sacct_rows_push(rows, &r);
}

/* Copy the row's strings into one buffer it owns. */
static int own_strings(struct gs_sacct_row *r)
{
    const char **f[] = { &r->nodelist, &r->partition, &r->account, &r->user, &r->name,
                         &r->state };
    size_t n = 0;
    for (size_t i = 0; i < 6; i++)
        n += strlen(*f[i]) + 1;
    char *p = r->own = gs_malloc(n);
    if (!p)
        return GS_ENOMEM;
    for (size_t i = 0; i < 6; i++) { /* trimmed, as the -P reader's fields */
        const char *s = *f[i];
        while (is_blank(*s) || *s == '\n')
            s++;
        size_t k = strlen(s);
        while (k > 0 && (is_blank(s[k - 1]) || s[k - 1] == '\n'))
            k--;
        memcpy(p, s, k);
        p[k] = '\0';
        *f[i] = p;
        p += k + 1;
    }
    return 0;
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* One JSON value at *p (any type); advances *p past it.  NULL with `err`
 * naming the byte offset on a syntax error. */
static json_t *next_value(struct gs_sacct_rows *rows, const char *text, const char **p,
                          const char *end, struct gs_error *err)
{
    json_error_t jerr;
    json_t *v = json_loadb(*p, (size_t)(end - *p), JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK,
                           &jerr);
    if (!v) {
        gs_errorf(err, GS_EINVAL, "%s: byte %lld: json: %s", rows->name,
                  (long long)(*p - text) + jerr.position, jerr.text);
        return NULL;
    }
    *p += jerr.position;
    return v;
}

static int syntax(struct gs_sacct_rows *rows, const char *text, const char *p, const char *what,
                  struct gs_error *err)
{
    return gs_errorf(err, GS_EINVAL, "%s: byte %lld: json: expected %s", rows->name,
                     (long long)(p - text), what);
}

/* The elements of the "jobs" list, one object at a time; *p is at '['. */
static int read_jobs(const char *text, const char **pp, const char *end,
                     struct gs_sacct_rows *rows, struct gs_error *err)
{
    const char *p = skip_ws(*pp + 1, end);
    for (size_t i = 0; p < end && *p != ']'; i++) {
        json_t *j = next_value(rows, text, &p, end, err);
        if (!j)
            return err->code;
        size_t before = rows->n;
        int rc = 0;
        if (!json_is_object(j)) {
            rows->stats->rows++;
            gs_sacct_drop(rows, GS_SACCT_DROP_VALUE, "%s: jobs[%zu]: not an object", rows->name,
                          i);
        } else if ((rc = json_row(rows, j, i)) == 0 && rows->n > before) {
            rc = own_strings(&rows->v[rows->n - 1]);
        }
        json_decref(j);
        if (rc < 0)
            return gs_errorf(err, GS_ENOMEM, "%s: out of memory", rows->name);
        gs_io_progress_row(rows->prog, (size_t)(p - text), (size_t)(end - text));
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p = skip_ws(p + 1, end);
        else if (p >= end || *p != ']')
            return syntax(rows, text, p, "',' or ']' in the jobs list", err);
    }
    if (p >= end)
        return syntax(rows, text, p, "']' closing the jobs list", err);
    *pp = p + 1;
    return 0;
}

int gs_sacct_read_json(const char *text, size_t len, struct gs_sacct_rows *rows,
                       struct gs_error *err)
{
    const char *end = text + len, *p = skip_ws(text, end);
    int have_jobs = 0;
    rows->json = 1;
    if (p >= end || *p != '{')
        return syntax(rows, text, p, "an object", err);
    for (p = skip_ws(p + 1, end); p < end && *p != '}';) {
        json_t *key = next_value(rows, text, &p, end, err);
        if (!key)
            return err->code;
        int is_jobs = json_is_string(key) && strcmp(json_string_value(key), "jobs") == 0;
        int is_str = json_is_string(key);
        json_decref(key);
        p = skip_ws(p, end);
        if (!is_str || p >= end || *p != ':')
            return syntax(rows, text, p, "\"key\": value", err);
        p = skip_ws(p + 1, end);
        if (is_jobs && p < end && *p == '[') {
            int rc = read_jobs(text, &p, end, rows, err);
            if (rc < 0)
                return rc;
            have_jobs = 1;
        } else {
            json_t *v = next_value(rows, text, &p, end, err); /* meta, errors: skipped */
            if (!v)
                return err->code;
            json_decref(v);
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p = skip_ws(p + 1, end);
        else if (p >= end || *p != '}')
            return syntax(rows, text, p, "',' or '}'", err);
    }
    if (!have_jobs)
        return gs_errorf(err, GS_EINVAL, "%s: no \"jobs\" list (sacct --json prints one)",
                         rows->name);
    return 0;
}

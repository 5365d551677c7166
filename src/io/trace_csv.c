/* trace_csv.c - the native trace format: CSV with a header.
 *
 * Records come from the project's one CSV reader (io/csv.h), which
 * tokenizes one mutable copy of the input in place, so a million-row trace
 * costs no allocation per field; gs_trace_add copies the strings it keeps.  Column conversion lives in io/job_fields.c, shared
 * with the snapshot reader.
 */
#include "io/trace_csv.h"
#include "core/base/alloc.h"
#include "core/base/strtab.h"
#include "io/csv.h"
#include "io/ioutil.h"
#include "io/job_fields.h"

#include <stdint.h>
#include <string.h>

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Header state: the column of each field (-1 = ignored). */
struct header {
    int *map;
    size_t ncols;
    int has[GS_JCOL_COUNT];
};

static char *trim(char *s)
{
    while (is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && is_blank(s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int read_header(struct gs_csv *c, struct header *h, int need_duration,
                       struct gs_error *err)
{
    long line = 1;
    int rc = gs_csv_next(c, &line, err);
    if (rc == 0)
        return gs_errorf(err, GS_EINVAL, "%s: empty input; a header line is required",
                         c->name);
    if (rc < 0)
        return rc;
    h->ncols = c->nf;
    h->map = gs_calloc(h->ncols, sizeof *h->map);
    if (!h->map)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    for (size_t i = 0; i < h->ncols; i++) {
        c->f[i] = trim(c->f[i]);
        for (size_t j = 0; j < i && *c->f[i]; j++)   /* unnamed columns are ignored */
            if (strcmp(c->f[i], c->f[j]) == 0)
                return gs_errorf(err, GS_EINVAL, "%s:%ld: duplicate column '%.40s'",
                                 c->name, line, c->f[i]);
        h->map[i] = gs_jcol_find(c->f[i], strlen(c->f[i]));
        if (h->map[i] >= 0)
            h->has[h->map[i]] = 1;
        else
            h->map[i] = -1;
    }
    static const int required[] = { GS_JCOL_ID, GS_JCOL_SUBMIT, GS_JCOL_DURATION };
    for (int i = 0; i < (need_duration ? 3 : 2); i++)
        if (!h->has[required[i]])
            return gs_errorf(err, GS_EINVAL, "%s:%ld: missing required column '%s'",
                             c->name, line, gs_jcol_name(required[i]));
    return 0;
}

/* Submit times of one trace are all seconds or all ISO-8601. */
struct submits {
    int kind;           /* of the first row */
    gs_time min;
};

static int read_row(struct gs_csv *c, const struct header *h, long line, int need_duration,
                    struct gs_job_row *row, struct gs_error *err)
{
    gs_job_row_init(row);
    if (c->nf != h->ncols)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: row has %zu fields, the header has %zu",
                         c->name, line, c->nf, h->ncols);
    for (size_t i = 0; i < h->ncols; i++) {
        if (h->map[i] < 0)
            continue;
        int rc = gs_job_row_set(row, h->map[i], c->f[i], err);
        if (rc < 0)
            return gs_error_prefix(err, rc, "%s:%ld: ", c->name, line);
    }
    if (need_duration && row->duration == GS_TIME_NONE)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: duration: empty, but the simulator needs it",
                         c->name, line);
    int rc = gs_job_row_check(row, err);
    return rc < 0 ? gs_error_prefix(err, rc, "%s:%ld: ", c->name, line) : 0;
}

static int check_submit(struct gs_csv *c, long line, const struct gs_job_row *row,
                        struct submits *s, struct gs_error *err)
{
    if (s->kind == GS_SUBMIT_NONE) {
        s->kind = row->submit_kind;
        s->min = row->spec.submit;
    } else if (s->kind != row->submit_kind) {
        return gs_errorf(err, GS_EINVAL,
                         "%s:%ld: submit: mixes %s and %s times; use one form per trace",
                         c->name, line, s->kind == GS_SUBMIT_ISO ? "ISO-8601" : "numeric",
                         s->kind == GS_SUBMIT_ISO ? "numeric" : "ISO-8601");
    }
    if (row->spec.submit < s->min)
        s->min = row->spec.submit;
    return 0;
}

/* Reject NUL bytes up front: every field is used as a C string. */

/* Ids seen so far and the line each was first used on: a repeated id is an
 * error here, where the line is known, not later in the engine (which can
 * only say "job A: id already used"). */
struct seen_ids {
    struct gs_strtab *ids;
    long *lines;
    size_t cap;
};

static int check_id(struct gs_csv *c, struct seen_ids *seen, const char *id, long line,
                    struct gs_error *err)
{
    int n = gs_strtab_count(seen->ids);
    int k = gs_strtab_intern(seen->ids, id);
    if (k >= 0 && k < n && seen->lines)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: id '%s' already used on line %ld", c->name,
                         line, id, seen->lines[k]);
    if (k < 0 || gs_grow((void **)&seen->lines, &seen->cap, (size_t)k + 1,
                         sizeof *seen->lines) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    seen->lines[k] = line;
    return 0;
}

static int read_rows(struct gs_csv *c, const struct header *h, int need_duration,
                     struct gs_trace *tr, struct submits *s, struct seen_ids *seen,
                     struct gs_error *err)
{
    struct gs_job_row row;
    long line;
    int rc;
    while ((rc = gs_csv_next(c, &line, err)) > 0) {
        if ((rc = read_row(c, h, line, need_duration, &row, err)) < 0 ||
            (rc = check_submit(c, line, &row, s, err)) < 0 ||
            (rc = check_id(c, seen, row.spec.id, line, err)) < 0)
            return rc;
        int k = gs_trace_add(tr, &row.spec, row.duration);
        if (k < 0 || gs_trace_set_line(tr, (size_t)k, line) < 0)
            return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    }
    return rc;
}

static int parse_rows(struct gs_csv *c, const struct header *h, int need_duration,
                      struct gs_trace *tr, struct gs_error *err)
{
    struct submits s = { GS_SUBMIT_NONE, 0 };
    struct seen_ids seen = { gs_strtab_create(), NULL, 0 };
    int rc = seen.ids ? read_rows(c, h, need_duration, tr, &s, &seen, err)
                      : gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    gs_strtab_destroy(seen.ids);
    gs_free(seen.lines);
    if (rc < 0)
        return rc;
    if (s.kind == GS_SUBMIT_ISO) {
        for (size_t i = 0; i < gs_trace_count(tr); i++)
            gs_trace_job_mut(tr, i)->submit -= s.min;
        gs_trace_set_epoch(tr, s.min);
    }
    return 0;
}

/* Parse `buf` (n bytes plus a spare NUL at buf[n]; modified in place). */
static struct gs_trace *parse_buf(char *buf, size_t n, const char *name, int need_duration,
                                  struct gs_error *err)
{
    struct gs_csv c;
    struct header h = { NULL, 0, { 0 } };
    struct gs_trace *tr = NULL;
    if (gs_csv_open(&c, buf, n, gs_io_name(name), GS_CSV_QUOTES | GS_CSV_TRIM, err) < 0 ||
        read_header(&c, &h, need_duration, err) < 0)
        goto out;
    tr = gs_trace_create();
    if (tr && gs_trace_set_source(tr, c.name) < 0) {
        gs_trace_destroy(tr);
        tr = NULL;
    }
    if (!tr) {
        gs_errorf(err, GS_ENOMEM, "%s: out of memory", c.name);
        goto out;
    }
    if (parse_rows(&c, &h, need_duration, tr, err) < 0) {
        gs_trace_destroy(tr);
        tr = NULL;
    }
out:
    gs_free(h.map);
    gs_csv_close(&c);
    return tr;
}

struct gs_trace *gs_trace_parse_csv(const char *text, size_t len, const char *name,
                                    int need_duration, struct gs_error *err)
{
    char *buf = len < SIZE_MAX ? gs_malloc(len + 1) : NULL;
    if (!buf) {
        gs_errorf(err, GS_ENOMEM, "%s: out of memory", gs_io_name(name));
        return NULL;
    }
    if (len)
        memcpy(buf, text, len);
    buf[len] = '\0';
    struct gs_trace *tr = parse_buf(buf, len, name, need_duration, err);
    gs_free(buf);
    return tr;
}

struct gs_trace *gs_trace_load_csv(const char *path, int need_duration, struct gs_error *err)
{
    char *buf;
    size_t len;
    if (gs_read_file(path, &buf, &len, err) < 0)
        return NULL;
    struct gs_trace *tr = parse_buf(buf, len, path, need_duration, err);
    gs_free(buf);
    return tr;
}

/* --- writer ------------------------------------------------------------- */

static void write_row(FILE *f, const int *use, const struct gs_job_spec *s, gs_time dur)
{
    char buf[64];
    int first = 1;
    for (int col = 0; col < GS_JCOL_COUNT; col++) {
        if (!use[col])
            continue;
        if (!first)
            putc(',', f);
        first = 0;
        if (gs_jcol_is_string(col)) {
            const char *str = col == GS_JCOL_ID ? s->id
                              : col == GS_JCOL_MIG ? s->mig
                              : col == GS_JCOL_TEAM ? s->team
                              : col == GS_JCOL_USER ? s->user
                              : col == GS_JCOL_NAME ? s->name
                              : col == GS_JCOL_QUEUE ? s->queue : s->gpu_model;
            gs_csv_put(f, str);
        } else if (gs_jcol_format(col, s, dur, buf, sizeof buf) > 0) {
            fputs(buf, f);
        }
    }
    putc('\n', f);
}

int gs_trace_write_csv(FILE *f, const struct gs_trace *tr, struct gs_error *err)
{
    int use[GS_JCOL_COUNT];
    size_t n = gs_trace_count(tr);
    for (int col = 0; col < GS_JCOL_COUNT; col++) {
        use[col] = col <= GS_JCOL_GPUS;
        for (size_t i = 0; i < n && !use[col]; i++)
            use[col] = !gs_jcol_is_default(col, gs_trace_job(tr, i), gs_trace_duration(tr, i));
    }
    for (int col = 0, first = 1; col < GS_JCOL_COUNT; col++) {
        if (use[col]) {
            fprintf(f, "%s%s", first ? "" : ",", gs_jcol_name(col));
            first = 0;
        }
    }
    putc('\n', f);
    for (size_t i = 0; i < n; i++)
        write_row(f, use, gs_trace_job(tr, i), gs_trace_duration(tr, i));
    if (fflush(f) != 0 || ferror(f))
        return gs_errorf(err, GS_EIO, "writing the trace failed");
    return 0;
}

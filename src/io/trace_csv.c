/* trace_csv.c - the native trace format: CSV with a header.
 *
 * The reader works on one mutable copy of the input: fields are unquoted
 * and NUL-terminated in place (unescaping only ever shrinks a field), so a
 * million-row trace costs no allocation per field; gs_trace_add copies the
 * strings it keeps.  Column conversion lives in io/job_fields.c, shared
 * with the snapshot reader.
 */
#include "io/trace_csv.h"
#include "core/alloc.h"
#include "io/ioutil.h"
#include "io/job_fields.h"

#include <stdint.h>
#include <string.h>

/* Reader state: the buffer, the position and line of the next byte, and
 * the fields of the current record (pointers into the buffer). */
struct csv {
    char *b;
    size_t n, pos;
    long line;
    const char *name;
    char **f;
    size_t nf, fcap;
};

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static int is_end(char ch)
{
    return ch == ',' || ch == '\n' || ch == '\r';
}

/* Unquote a quoted field starting at b[p] (just after the opening quote)
 * in place.  Returns the position after the closing quote, or 0 when the
 * input ends first. */
static size_t unquote(struct csv *c, size_t p, char **text)
{
    char *b = c->b;
    size_t w = p;
    *text = b + p;
    for (; p < c->n; p++) {
        char ch = b[p];
        if (ch == '"') {
            if (p + 1 < c->n && b[p + 1] == '"') {
                b[w++] = '"';
                p++;
                continue;
            }
            b[w] = '\0';    /* w <= p: the closing quote is already read */
            return p + 1;
        }
        if (ch == '\n' || (ch == '\r' && (p + 1 >= c->n || b[p + 1] != '\n')))
            c->line++;
        b[w++] = ch;
    }
    return 0;
}

/* Read one field at c->pos; *last is set when it ends its record.  On
 * return the field is NUL-terminated and c->pos is past its delimiter. */
static int read_field(struct csv *c, char **text, int *quoted, int *last,
                      struct gs_error *err)
{
    char *b = c->b;
    size_t p = c->pos, end;
    long at = c->line;
    while (p < c->n && is_blank(b[p]))
        p++;
    *quoted = p < c->n && b[p] == '"';
    if (*quoted) {
        if ((p = unquote(c, p + 1, text)) == 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: unterminated quoted field",
                             c->name, at);
        while (p < c->n && is_blank(b[p]))
            p++;
        if (p < c->n && !is_end(b[p]))
            return gs_errorf(err, GS_EINVAL, "%s:%ld: text after a closing quote",
                             c->name, c->line);
        end = p;    /* nothing to cut: unquote terminated the text */
    } else {
        *text = b + p;
        while (p < c->n && !is_end(b[p]))
            p++;
        end = p;
        while (end > (size_t)(*text - b) && is_blank(b[end - 1]))
            end--;
    }
    char delim = p < c->n ? b[p] : '\0';
    *last = delim != ',';
    if (delim == '\r' && p + 1 < c->n && b[p + 1] == '\n')
        p++;
    if (delim == '\n' || delim == '\r')
        c->line++;
    c->pos = p < c->n ? p + 1 : c->n;
    if (!*quoted)
        b[end] = '\0';  /* after reading delim; b[n] is the spare NUL byte */
    return 0;
}

/* Read the next non-blank record into c->f.  Returns 1, 0 at the end of
 * the input, or a negative code.  *line is the record's first line. */
static int next_record(struct csv *c, long *line, struct gs_error *err)
{
    for (;;) {
        if (c->pos >= c->n)
            return 0;
        *line = c->line;
        c->nf = 0;
        int last = 0, quoted = 0, rc;
        while (!last) {
            char *text;
            if ((rc = read_field(c, &text, &quoted, &last, err)) < 0)
                return rc;
            if (gs_grow((void **)&c->f, &c->fcap, c->nf + 1, sizeof *c->f) < 0)
                return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
            c->f[c->nf++] = text;
        }
        if (!(c->nf == 1 && !quoted && c->f[0][0] == '\0'))
            return 1;
    }
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

static int read_header(struct csv *c, struct header *h, int need_duration,
                       struct gs_error *err)
{
    long line = 1;
    int rc = next_record(c, &line, err);
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

static int read_row(struct csv *c, const struct header *h, long line, int need_duration,
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
    return 0;
}

static int check_submit(struct csv *c, long line, const struct gs_job_row *row,
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
static int check_nul(const struct csv *c, struct gs_error *err)
{
    const char *z = memchr(c->b, '\0', c->n);
    if (!z)
        return 0;
    long line = 1;
    for (const char *p = c->b; p < z; p++)
        line += *p == '\n';
    return gs_errorf(err, GS_EINVAL, "%s:%ld: NUL byte in the input", c->name, line);
}

static int parse_rows(struct csv *c, const struct header *h, int need_duration,
                      struct gs_trace *tr, struct gs_error *err)
{
    struct submits s = { GS_SUBMIT_NONE, 0 };
    struct gs_job_row row;
    long line;
    int rc;
    while ((rc = next_record(c, &line, err)) > 0) {
        if ((rc = read_row(c, h, line, need_duration, &row, err)) < 0 ||
            (rc = check_submit(c, line, &row, &s, err)) < 0)
            return rc;
        if (gs_trace_add(tr, &row.spec, row.duration) < 0)
            return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    }
    if (rc < 0)
        return rc;
    if (s.kind == GS_SUBMIT_ISO) {
        for (size_t i = 0; i < gs_trace_count(tr); i++)
            gs_trace_job_mut(tr, i)->submit -= s.min;
        gs_trace_set_origin(tr, s.min);
    }
    return 0;
}

/* Parse `buf` (n bytes plus a spare NUL at buf[n]; modified in place). */
static struct gs_trace *parse_buf(char *buf, size_t n, const char *name, int need_duration,
                                  struct gs_error *err)
{
    struct csv c = { buf, n, 0, 1, gs_io_name(name), NULL, 0, 0 };
    struct header h = { NULL, 0, { 0 } };
    struct gs_trace *tr = NULL;
    if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        c.pos = 3;
    if (check_nul(&c, err) < 0 || read_header(&c, &h, need_duration, err) < 0)
        goto out;
    tr = gs_trace_create();
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
    gs_free(c.f);
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

/* A string cell, quoted when the reader would otherwise split or trim it. */
static void write_str(FILE *f, const char *s)
{
    size_t n = strlen(s);
    int quote = n > 0 && (strpbrk(s, ",\"\r\n") || is_blank(s[0]) || is_blank(s[n - 1]));
    if (!quote) {
        fputs(s, f);
        return;
    }
    putc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', f);
        putc(*s, f);
    }
    putc('"', f);
}

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
            write_str(f, str ? str : "");
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

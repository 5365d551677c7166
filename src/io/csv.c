/* csv.c - the project's CSV reader and the quoting of CSV output fields
 * (csv.h). */
#include "io/csv.h"
#include "core/base/alloc.h"
#include "io/ioutil.h"

#include <string.h>

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

int gs_csv_needs_quotes(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (is_blank(s[0]) || is_blank(s[n - 1]))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            return 1;
    return 0;
}

void gs_csv_put_n(FILE *f, const char *s, size_t n)
{
    if (!gs_csv_needs_quotes(s, n)) {
        fwrite(s, 1, n, f);
        return;
    }
    putc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            putc('"', f);
        putc(s[i], f);
    }
    putc('"', f);
}

void gs_csv_put(FILE *f, const char *s)
{
    if (s)
        gs_csv_put_n(f, s, strlen(s));
}

/* ---- reader ------------------------------------------------------------ */

/* Whether b[p] ends a field: a comma or a line break.  Without
 * GS_CSV_QUOTES a lone CR is data (only LF, or CRLF, ends a record). */
static int is_end(const struct gs_csv *c, size_t p)
{
    char ch = c->b[p];
    if (ch == ',' || ch == '\n')
        return 1;
    return ch == '\r' && ((c->flags & GS_CSV_QUOTES) || (p + 1 < c->n && c->b[p + 1] == '\n'));
}

int gs_csv_open(struct gs_csv *c, char *buf, size_t n, const char *name, int flags,
                struct gs_error *err)
{
    memset(c, 0, sizeof *c);
    c->flags = flags;
    c->b = buf;
    c->n = n;
    c->line = 1;
    c->name = name;
    buf[n] = '\0';
    if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        c->pos = c->line_start = 3;
    const char *z = memchr(buf, '\0', n);
    if (!z)
        return 0;
    long line = 1;
    for (const char *p = buf; p < z; p++)
        line += *p == '\n';
    return gs_errorf(err, GS_EINVAL, "%s:%ld: NUL byte in the input", name, line);
}

/* Count a line break at b[p] ('\n', or a '\r' not followed by '\n'). */
static void line_break(struct gs_csv *c, size_t p)
{
    char ch = c->b[p];
    if (ch == '\n' || (ch == '\r' && (p + 1 >= c->n || c->b[p + 1] != '\n'))) {
        c->line++;
        c->line_start = p + 1;
    }
}

/* Unquote a quoted field starting at b[p] (just after the opening quote)
 * in place.  Returns the position after the closing quote, or 0 when the
 * input ends first. */
static size_t unquote(struct gs_csv *c, size_t p, char **text)
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
        line_break(c, p);
        b[w++] = ch;
    }
    return 0;
}

/* Read one field at c->pos; *last is set when it ends its record.  On
 * return the field is NUL-terminated and c->pos is past its delimiter. */
static int read_field(struct gs_csv *c, char **text, size_t *col, int *quoted, int *last,
                      struct gs_error *err)
{
    char *b = c->b;
    size_t p = c->pos, end;
    long at = c->line;
    int trim = (c->flags & GS_CSV_TRIM) != 0;
    while (trim && p < c->n && is_blank(b[p]))
        p++;
    *col = p - c->line_start + 1;
    *quoted = (c->flags & GS_CSV_QUOTES) && p < c->n && b[p] == '"';
    if (*quoted) {
        if ((p = unquote(c, p + 1, text)) == 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: unterminated quoted field", c->name, at);
        while (p < c->n && is_blank(b[p]))
            p++;
        if (p < c->n && !is_end(c, p))
            return gs_errorf(err, GS_EINVAL, "%s:%ld: text after a closing quote", c->name,
                             c->line);
        end = p;    /* nothing to cut: unquote terminated the text */
    } else {
        *text = b + p;
        while (p < c->n && !is_end(c, p))
            p++;
        end = p;
        while (trim && end > (size_t)(*text - b) && is_blank(b[end - 1]))
            end--;
    }
    char delim = p < c->n ? b[p] : '\0';
    *last = delim != ',';
    if (delim == '\r' && p + 1 < c->n && b[p + 1] == '\n')
        p++;
    if (delim == '\n' || delim == '\r') {
        c->line++;
        c->line_start = p + 1;
    }
    c->pos = p < c->n ? p + 1 : c->n;
    if (!*quoted)
        b[end] = '\0';  /* after reading delim; b[n] is the spare NUL byte */
    return 0;
}

static int push_field(struct gs_csv *c, char *text, size_t col)
{
    if (gs_grow((void **)&c->f, &c->fcap, c->nf + 1, sizeof *c->f) < 0 ||
        gs_grow((void **)&c->col, &c->ccap, c->nf + 1, sizeof *c->col) < 0)
        return GS_ENOMEM;
    c->col[c->nf] = col;
    c->f[c->nf++] = text;
    return 0;
}

int gs_csv_next(struct gs_csv *c, long *line, struct gs_error *err)
{
    for (;;) {
        if (c->pos >= c->n)
            return 0;
        *line = c->line;
        c->nf = 0;
        int last = 0, quoted = 0, rc;
        while (!last) {
            char *text;
            size_t col;
            if ((rc = read_field(c, &text, &col, &quoted, &last, err)) < 0)
                return rc;
            if (push_field(c, text, col) < 0)
                return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
        }
        if (!(c->nf == 1 && !quoted && c->f[0][0] == '\0')) {
            gs_io_progress_row(c->prog, c->pos, c->n);
            return 1;
        }
    }
}

void gs_csv_close(struct gs_csv *c)
{
    if (!c)
        return;
    gs_free(c->f);
    gs_free(c->col);
    c->f = NULL;
    c->col = NULL;
    c->nf = c->fcap = c->ccap = 0;
}

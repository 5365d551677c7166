/* yaml_util.c - libyaml document helpers with located errors. */
#include "io/yaml_util.h"
#include "core/base/alloc.h"
#include "io/ioutil.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOW 40   /* characters of a bad value quoted in messages */

static int parser_error(const yaml_parser_t *p, const char *name, struct gs_error *err)
{
    if (p->error == YAML_MEMORY_ERROR)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", name);
    return gs_errorf(err, GS_EINVAL, "%s:%lu: yaml: %s%s%s", name,
                     (unsigned long)p->problem_mark.line + 1,
                     p->problem ? p->problem : "syntax error", p->context ? " " : "",
                     p->context ? p->context : "");
}

/* Every value is used as a C string: reject "\0" escapes. */
static int check_nul(struct gs_yaml *y, struct gs_error *err)
{
    for (yaml_node_t *n = y->doc.nodes.start; n < y->doc.nodes.top; n++)
        if (n->type == YAML_SCALAR_NODE &&
            strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
            return gs_yaml_error(y, n, GS_EINVAL, err, "NUL character in a value");
    return 0;
}

/* libyaml's scanner re-checks every open flow level for each token, so
 * "[[[[...]]]]" costs time quadratic in its depth (20,000 levels take
 * seconds).  No configuration nests flow collections deeply: a quick scan
 * that skips comments and quoted text rejects such input before libyaml
 * sees it.  Returns the 1-based line where MAX_FLOW_DEPTH is passed, or 0. */
#define MAX_FLOW_DEPTH 256

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static long flow_too_deep(const char *t, size_t len)
{
    long line = 1;
    int depth = 0;
    char quote = 0, prev = '\n';
    for (size_t i = 0; i < len; prev = t[i++]) {
        char ch = t[i];
        line += ch == '\n';
        if (quote) {
            if (ch == '\\' && quote == '"' && i + 1 < len)
                line += t[++i] == '\n';
            else if (ch == quote)
                quote = 0;
        } else if (ch == '#' && is_space(prev)) {
            while (i + 1 < len && t[i + 1] != '\n')
                i++;
        } else if ((ch == '\'' || ch == '"') &&
                   (is_space(prev) || prev == '[' || prev == '{' || prev == ',' || prev == ':')) {
            quote = ch;
        } else if (ch == '[' || ch == '{') {
            if (++depth > MAX_FLOW_DEPTH)
                return line;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
    return 0;
}

int gs_yaml_load(struct gs_yaml *y, const char *text, size_t len, const char *name,
                 struct gs_error *err)
{
    yaml_parser_t p;
    memset(y, 0, sizeof *y);
    y->name = gs_io_name(name);
    long deep = flow_too_deep(text, len);
    if (deep)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: [ ] or { } nested more than %d deep",
                         y->name, deep, MAX_FLOW_DEPTH);
    if (!yaml_parser_initialize(&p))
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", y->name);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int rc = 0;
    if (!yaml_parser_load(&p, &y->doc)) {
        rc = parser_error(&p, y->name, err);
    } else {
        y->loaded = 1;
        yaml_document_t next;
        if (!yaml_parser_load(&p, &next)) {
            rc = parser_error(&p, y->name, err);
        } else {
            yaml_node_t *root = yaml_document_get_root_node(&next);
            if (root)
                rc = gs_yaml_error(y, root, GS_EINVAL, err,
                                   "a second YAML document; put everything in one");
            yaml_document_delete(&next);
        }
    }
    yaml_parser_delete(&p);
    if (rc == 0) {
        y->visits_left = 4 * (long)(y->doc.nodes.top - y->doc.nodes.start) + 64;
        rc = check_nul(y, err);
    }
    return rc;
}

void gs_yaml_fini(struct gs_yaml *y)
{
    if (y && y->loaded)
        yaml_document_delete(&y->doc);
    if (y)
        y->loaded = 0;
}

yaml_node_t *gs_yaml_root(struct gs_yaml *y)
{
    return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *gs_yaml_node(struct gs_yaml *y, int id)
{
    return yaml_document_get_node(&y->doc, id);
}

long gs_yaml_line(const yaml_node_t *n)
{
    return (long)n->start_mark.line + 1;
}

int gs_yaml_is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *t = (const char *)n->data.scalar.value;
    return !*t || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
           !strcmp(t, "NULL");
}

const char *gs_yaml_text(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

const char *gs_yaml_kind(const yaml_node_t *n)
{
    return n->type == YAML_MAPPING_NODE    ? "a mapping"
           : n->type == YAML_SEQUENCE_NODE ? "a sequence"
                                           : "a value";
}

int gs_yaml_error(struct gs_yaml *y, const yaml_node_t *n, int code, struct gs_error *err,
                  const char *fmt, ...)
{
    if (!err)
        return code;
    char msg[GS_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gs_errorf(err, code, "%s:%ld: %s", y->name, gs_yaml_line(n), msg);
}

int gs_yaml_visit(struct gs_yaml *y, const yaml_node_t *n, struct gs_error *err)
{
    if (--y->visits_left < 0)
        return gs_yaml_error(y, n, GS_EINVAL, err,
                             "aliases expand the document too much");
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    const yaml_node_t *x = *(const yaml_node_t *const *)a, *z = *(const yaml_node_t *const *)b;
    int c = strcmp((const char *)x->data.scalar.value, (const char *)z->data.scalar.value);
    /* equal keys: the later one (in the file) sorts last, so it is reported */
    return c ? c : (x > z) - (x < z);
}

int gs_yaml_check_keys(struct gs_yaml *y, const yaml_node_t *m, const char *path,
                       struct gs_error *err)
{
    size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
    if (n == 0)
        return 0;
    /* the key nodes' addresses, sorted by text to find duplicates */
    const yaml_node_t **keys = gs_calloc(n, sizeof(const yaml_node_t *));
    if (!keys)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", y->name);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        keys[i] = gs_yaml_node(y, m->data.mapping.pairs.start[i].key);
        if (!keys[i] || keys[i]->type != YAML_SCALAR_NODE)
            rc = gs_yaml_error(y, keys[i] ? keys[i] : m, GS_EINVAL, err,
                               "%s%skeys must be plain values", path, *path ? ": " : "");
    }
    if (rc == 0)
        qsort(keys, n, sizeof(const yaml_node_t *), cmp_key);
    for (size_t i = 1; i < n && rc == 0; i++)
        if (strcmp(gs_yaml_text(keys[i - 1]), gs_yaml_text(keys[i])) == 0)
            rc = gs_yaml_error(y, keys[i], GS_EINVAL, err, "%s%sduplicate key '%.*s'", path,
                               *path ? ": " : "", SHOW, gs_yaml_text(keys[i]));
    gs_free(keys);
    return rc;
}

/* "got 'text'" or "got a mapping" for a message about node `n`. */
static int expected(struct gs_yaml *y, const yaml_node_t *n, const char *path,
                    const char *what, struct gs_error *err)
{
    const char *t = gs_yaml_text(n);
    if (!t)
        return gs_yaml_error(y, n, GS_EINVAL, err, "%s: expected %s, got %s", path, what,
                             gs_yaml_kind(n));
    return gs_yaml_error(y, n, GS_EINVAL, err, "%s: expected %s, got '%.*s%s'", path, what,
                         SHOW, t, strlen(t) > SHOW ? "..." : "");
}

int gs_yaml_int(struct gs_yaml *y, const yaml_node_t *n, const char *path, long min, long max,
                long *out, struct gs_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "an integer %ld-%ld", min, max);
    const char *t = gs_yaml_text(n);
    const char *d = t && (*t == '+' || *t == '-') ? t + 1 : t;
    if (!t || !*d || strspn(d, "0123456789") != strlen(d))
        return expected(y, n, path, what, err);
    errno = 0;
    long v = strtol(t, NULL, 10);
    if (errno == ERANGE || v < min || v > max)
        return expected(y, n, path, what, err);
    *out = v;
    return 0;
}

int gs_yaml_number(struct gs_yaml *y, const yaml_node_t *n, const char *path, double min,
                   double max, double *out, struct gs_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "a number in [%g, %g]", min, max);
    const char *t = gs_yaml_text(n);
    if (!t || !*t || strspn(t, "0123456789.eE+-") != strlen(t))
        return expected(y, n, path, what, err);
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < min || v > max)
        return expected(y, n, path, what, err);
    *out = v;
    return 0;
}

int gs_yaml_string(struct gs_yaml *y, const yaml_node_t *n, const char *path,
                   const char **out, struct gs_error *err)
{
    if (n->type != YAML_SCALAR_NODE)
        return expected(y, n, path, "a string", err);
    *out = gs_yaml_is_null(n) ? "" : gs_yaml_text(n);
    return 0;
}

/* node_events_csv.c - node-event files (see node_events_csv.h). */
#include "io/node_events_csv.h"
#include "core/base/alloc.h"
#include "io/ioutil.h"
#include "io/job_fields.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { COL_TIME, COL_NODE, COL_STATE, COL_GPU, NCOLS };

static const char *const col_names[NCOLS] = { "time", "node", "state", "gpu" };

#define MAX_FIELDS 64
#define SHOW 40

struct reader {
    const char *name;
    long line;
    const struct gs_cluster *cl;
    gs_time origin;
    int col[NCOLS];          /* field index of each column, -1 = absent */
    int nfields;             /* fields of the header */
};

/* Split `s` (modified) at commas into trimmed fields; returns the count or
 * -1 when there are more than MAX_FIELDS. */
static int split(char *s, char **f)
{
    int n = 0;
    for (char *p = s;;) {
        if (n == MAX_FIELDS)
            return -1;
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        char *e = p + strlen(p);
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            *--e = '\0';
        f[n++] = p;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

static int fail(const struct reader *r, struct gs_error *err, const char *col, const char *t,
                const char *what)
{
    return gs_errorf(err, GS_EINVAL, "%s:%ld: %s: '%.*s%s' %s", r->name, r->line, col, SHOW, t,
                     strlen(t) > SHOW ? "..." : "", what);
}

static int header(struct reader *r, char **f, int n, struct gs_error *err)
{
    for (int c = 0; c < NCOLS; c++)
        r->col[c] = -1;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < NCOLS; c++)
            if (strcmp(f[i], col_names[c]) == 0) {
                if (r->col[c] >= 0)
                    return gs_errorf(err, GS_EINVAL, "%s:%ld: column '%s' given twice",
                                     r->name, r->line, col_names[c]);
                r->col[c] = i;
            }
    for (int c = 0; c < COL_GPU; c++)
        if (r->col[c] < 0)
            return gs_errorf(err, GS_EINVAL,
                             "%s:%ld: missing column '%s' (the header needs time,node,state)",
                             r->name, r->line, col_names[c]);
    r->nfields = n;
    return 0;
}

static int parse_time(const struct reader *r, const char *t, gs_time *out,
                      struct gs_error *err)
{
    if (t[0] >= '0' && t[0] <= '9' && strlen(t) >= 5 && t[4] == '-') {
        int64_t ms;
        if (gs_parse_iso8601(t, &ms) < 0)
            return fail(r, err, "time", t, "is not an ISO-8601 time (2017-07-01T00:00:00Z)");
        if (r->origin == GS_TIME_NONE)
            return fail(r, err, "time", t, "is ISO-8601 but the trace's times are numeric");
        if (ms < r->origin)
            return fail(r, err, "time", t, "is before the trace's first submission");
        *out = ms - r->origin;
        return 0;
    }
    char *end;
    errno = 0;
    double s = strtod(t, &end);
    if (!*t || *end || errno || !isfinite(s) || s < 0 || s > 9e12 ||
        strspn(t, "0123456789.eE+-") != strlen(t))
        return fail(r, err, "time", t, "is not a time in seconds >= 0 or ISO-8601");
    *out = gs_time_from_sec(s);
    return 0;
}

static int parse_state(const struct reader *r, const char *t, int *out, struct gs_error *err)
{
    static const char *const names[] = { "up", "drain", "down" };
    for (int i = 0; i < 3; i++)
        if (strcmp(t, names[i]) == 0) {
            *out = i; /* GS_NODE_UP, GS_NODE_DRAIN, GS_NODE_DOWN */
            return 0;
        }
    return fail(r, err, "state", t, "is not one of down, drain, up");
}

static int parse_gpu(const struct reader *r, const char *t, int node, int *out,
                     struct gs_error *err)
{
    if (!*t) {
        *out = -1;
        return 0;
    }
    char *end;
    errno = 0;
    long g = strtol(t, &end, 10);
    if (*end || errno || t[0] == '-' || t[0] == '+' || g >= gs_cluster_node_gpus(r->cl, node))
        return fail(r, err, "gpu", t, "is not a GPU index of the node");
    *out = (int)g;
    return 0;
}

static int row(struct reader *r, char **f, int n, struct gs_node_events *out,
               struct gs_error *err)
{
    if (n != r->nfields)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: expected %d fields, got %d", r->name,
                         r->line, r->nfields, n);
    struct gs_node_event e = { 0, 0, -1, 0 };
    const char *node = f[r->col[COL_NODE]];
    int rc = parse_time(r, f[r->col[COL_TIME]], &e.time, err);
    if (rc < 0)
        return rc;
    if ((e.node = gs_cluster_find_node(r->cl, node)) < 0)
        return fail(r, err, "node", node, "is not a node of the cluster");
    if ((rc = parse_state(r, f[r->col[COL_STATE]], &e.state, err)) < 0)
        return rc;
    if (r->col[COL_GPU] >= 0 && (rc = parse_gpu(r, f[r->col[COL_GPU]], e.node, &e.gpu, err)) < 0)
        return rc;
    if (gs_node_events_append(out, &e) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

static int parse_lines(struct reader *r, char *buf, struct gs_node_events *out,
                       struct gs_error *err)
{
    char *f[MAX_FIELDS];
    int have_header = 0;
    for (char *line = buf, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        r->line++;
        if (line[strspn(line, " \t\r")] == '\0' || line[0] == '#')
            continue;
        int n = split(line, f);
        if (n < 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: more than %d fields", r->name, r->line,
                             MAX_FIELDS);
        int rc = have_header ? row(r, f, n, out, err) : header(r, f, n, err);
        if (rc < 0)
            return rc;
        have_header = 1;
    }
    if (!have_header)
        return gs_errorf(err, GS_EINVAL, "%s: empty (the header needs time,node,state)",
                         r->name);
    return 0;
}

int gs_node_events_parse(const char *text, size_t len, const char *name,
                         const struct gs_cluster *cl, gs_time iso_origin,
                         struct gs_node_events *out, struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (memchr(text, '\0', len))
        return gs_errorf(err, GS_EINVAL, "%s: contains a NUL byte", gs_io_name(name));
    char *buf = gs_malloc(len + 1);
    if (!buf)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    memcpy(buf, text, len);
    buf[len] = '\0';
    struct reader r = { gs_io_name(name), 0, cl, iso_origin, { 0 }, 0 };
    int rc = parse_lines(&r, buf, out, err);
    gs_free(buf);
    if (rc < 0)
        gs_node_events_fini(out);
    else
        gs_node_events_sort(out);
    return rc;
}

int gs_node_events_load(const char *path, const struct gs_cluster *cl, gs_time iso_origin,
                        struct gs_node_events *out, struct gs_error *err)
{
    char *data;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = gs_read_file(path, &data, &len, err);
    if (rc < 0)
        return rc;
    rc = gs_node_events_parse(data, len, path, cl, iso_origin, out, err);
    gs_free(data);
    return rc;
}

int gs_node_events_write(FILE *f, const struct gs_cluster *cl,
                         const struct gs_node_events *ev, struct gs_error *err)
{
    static const char *const names[] = { "up", "drain", "down" };
    int gpu = 0;
    for (size_t i = 0; i < ev->n; i++)
        gpu |= ev->ev[i].gpu >= 0;
    fprintf(f, gpu ? "time,node,gpu,state\n" : "time,node,state\n");
    for (size_t i = 0; i < ev->n; i++) {
        const struct gs_node_event *e = &ev->ev[i];
        fprintf(f, "%lld.%03lld,%s", (long long)(e->time / 1000), (long long)(e->time % 1000),
                gs_cluster_node_name(cl, e->node));
        if (gpu && e->gpu >= 0)
            fprintf(f, ",%d", e->gpu);
        else if (gpu)
            fputc(',', f);
        fprintf(f, ",%s\n", names[e->state]);
    }
    if (ferror(f))
        return gs_errorf(err, GS_EIO, "write error");
    return 0;
}

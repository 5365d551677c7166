/* import_openb.c - the openb (FGD) trace into native formats (see
 * import_openb.h).  The files are plain CSV without quoting, read strictly
 * (the header's rules): every row has the header's fields, numbers are
 * plain integers within what the native cluster and trace formats hold,
 * so whatever imports can be written and read back. */
#include "io/import_openb.h"
#include "core/base/alloc.h"
#include "core/cluster/cluster.h"
#include "core/policy/policy.h"
#include "core/base/strtab.h"
#include "io/csv.h"
#include "io/ioutil.h"
#include "io/job_fields.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 16                   /* more than either file may have */
#define MAX_MILLI 1000000000000LL     /* cpu_milli: 1e9 cores, the cluster and trace limit */
#define MAX_MIB 1000000000000LL       /* memory_mib: < 1e9 GB, the cluster and trace limit */
#define MAX_SEC 9000000000000LL       /* times: 9e12 s, the native trace's limit */
#define MAX_POD_GPUS 1000000          /* num_gpu: the native trace's limit */

/* One CSV file being read through the project's reader (io/csv.h): a
 * private copy of its text, the current record's line and fields. */
struct csv {
    const char *name;
    char *buf;                /* owned copy of the text (plus a spare byte) */
    struct gs_csv r;
    long line;                /* line of the current record */
    size_t ncols;             /* fields of the current record */
    size_t hcols;             /* fields of the header line */
    char **f;                 /* r.f: the fields */
};

/* A column the importer knows: its name and, for a number, its largest
 * value (-1 = text). */
struct colspec {
    const char *name;
    int64_t max;
};

enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_NCOL };

static const struct colspec node_cols[N_NCOL] = {
    [N_SN] = { "sn", -1 },
    [N_CPU] = { "cpu_milli", MAX_MILLI },
    [N_MEM] = { "memory_mib", MAX_MIB },
    [N_GPU] = { "gpu", GS_MAX_NODE_GPUS },
    [N_MODEL] = { "model", -1 },
};

enum { P_NAME, P_CPU, P_MEM, P_NGPU, P_MILLI, P_SPEC, P_QOS, P_PHASE, P_CREATE, P_DELETE,
       P_SCHED, P_NCOL };

static const struct colspec pod_cols[P_NCOL] = {
    [P_NAME] = { "name", -1 },
    [P_CPU] = { "cpu_milli", MAX_MILLI },
    [P_MEM] = { "memory_mib", MAX_MIB },
    [P_NGPU] = { "num_gpu", MAX_POD_GPUS },
    [P_MILLI] = { "gpu_milli", GS_MILLI_GPU },
    [P_SPEC] = { "gpu_spec", -1 },
    [P_QOS] = { "qos", -1 },
    [P_PHASE] = { "pod_phase", -1 },
    [P_CREATE] = { "creation_time", MAX_SEC },
    [P_DELETE] = { "deletion_time", MAX_SEC },
    [P_SCHED] = { "scheduled_time", MAX_SEC },
};

static const struct {
    const char *model;
    int64_t mib;
} known_mem[] = {
    { "P100", 16280 }, { "T4", 15109 }, { "V100M16", 16160 }, { "V100M32", 32510 },
    { "A10", 22731 },  { "A100", 81251 },
};

/* Next non-empty record: 1, 0 at the end of the file, or a negative code
 * (an unterminated quote; `err` may be NULL for the scan that ignores it). */
static int next_line(struct csv *c, struct gs_error *err)
{
    int rc = gs_csv_next(&c->r, &c->line, err);
    c->f = c->r.f;
    c->ncols = rc > 0 ? c->r.nf : 0;
    return rc;
}

/* Start reading a private copy of text[0..len) (after a UTF-8 byte order
 * mark).  NUL bytes are an error (fields are C strings). */
static int open_csv(struct csv *c, const char *text, size_t len, const char *name,
                    struct gs_error *err)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->buf = len < SIZE_MAX ? gs_malloc(len + 1) : NULL;
    if (!c->buf)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", name);
    if (len)
        memcpy(c->buf, text, len);
    int rc = gs_csv_open(&c->r, c->buf, len, name, 0, err); /* no quoting, every byte kept */
    if (rc < 0) {
        gs_free(c->buf);
        c->buf = NULL;
    }
    return rc;
}

static void close_csv(struct csv *c)
{
    gs_csv_close(&c->r);
    gs_free(c->buf);
    c->buf = NULL;
}

/* Read the header line into col[] (the position of each of the `n`
 * columns of `spec`, -1 = absent).  Unknown and duplicate columns are
 * errors: a misspelt column would otherwise lose its values. */
static int read_header(struct csv *c, const struct colspec *spec, int n, int *col,
                       struct gs_error *err)
{
    for (int k = 0; k < n; k++)
        col[k] = -1;
    int rc = next_line(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return gs_errorf(err, GS_EINVAL, "%s: empty file", c->name);
    if (c->ncols > MAX_COLS)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: header has %zu columns, at most %d", c->name,
                         c->line, c->ncols, MAX_COLS);
    c->hcols = c->ncols;
    for (size_t i = 0; i < c->ncols; i++) {
        int k = 0;
        while (k < n && strcmp(spec[k].name, c->f[i]) != 0)
            k++;
        if (k == n || col[k] >= 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: %s column '%.40s'", c->name, c->line,
                             k == n ? "unknown" : "duplicate", c->f[i]);
        col[k] = (int)i;
    }
    return 0;
}

/* Next data row: 1, 0 at the end of the file, or GS_EINVAL when its field
 * count is not the header's. */
static int next_row(struct csv *c, struct gs_error *err)
{
    int rc = next_line(c, err);
    if (rc <= 0)
        return rc;
    if (c->ncols != c->hcols)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: row has %zu fields, the header has %zu",
                         c->name, c->line, c->ncols, c->hcols);
    return 1;
}

/* Field `col` of the current line; "" when absent. */
static const char *field(const struct csv *c, int col)
{
    return col >= 0 && (size_t)col < c->ncols ? c->f[col] : "";
}

/* Integer field in [0, spec->max] (empty = missing: returns 0 with
 * *present = 0 and *v = 0). */
static int int_field(const struct csv *c, int col, const struct colspec *spec, int64_t *v,
                     int *present, struct gs_error *err)
{
    const char *t = field(c, col);
    int64_t x = 0;
    size_t i = 0;
    *present = 0;
    *v = 0;
    if (!*t)
        return 0;
    for (; t[i] >= '0' && t[i] <= '9'; i++)
        if (x <= spec->max)     /* stops growing past the bound: no overflow */
            x = x * 10 + (t[i] - '0');
    if (t[i] || x > spec->max)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: %s: '%.30s' is not an integer in [0, %" PRId64
                         "]", c->name, c->line, spec->name, t, spec->max);
    *v = x;
    *present = 1;
    return 0;
}

/* Node and model names go into the cluster YAML, double-quoted: printable
 * ASCII without spaces, quotes, backslashes (which would need escapes) or
 * brackets (a node name's range syntax, node-[1-4]). */
static int bad_name(const char *s)
{
    for (; *s; s++)
        if (*s < '!' || *s > '~' || strchr("\"\\[]", *s))
            return 1;
    return 0;
}

static int name_error(const struct csv *c, const char *col, const char *s,
                      struct gs_error *err)
{
    return gs_errorf(err, GS_EINVAL,
                     "%s:%ld: %s: '%.30s' is not a name (printable ASCII; no spaces, "
                     "quotes, backslashes or brackets)",
                     c->name, c->line, col, s);
}

static int model_index(struct gs_openb_stats *st, const char *model)
{
    for (int i = 0; i < st->nmodels; i++)
        if (strcmp(st->models[i], model) == 0)
            return i;
    if (st->nmodels >= GS_OPENB_MAX_MODELS || strlen(model) >= sizeof st->models[0])
        return -1;
    snprintf(st->models[st->nmodels], sizeof st->models[0], "%s", model);
    st->model_mem_defaulted[st->nmodels] = 1;
    for (size_t k = 0; k < sizeof known_mem / sizeof known_mem[0]; k++)
        if (strcmp(known_mem[k].model, model) == 0)
            st->model_mem_defaulted[st->nmodels] = 0;
    return st->nmodels++;
}

static int read_node(struct csv *c, const int *col, struct gs_strtab *names,
                     struct gs_openb_result *out, struct gs_error *err)
{
    struct gs_openb_node nd;
    memset(&nd, 0, sizeof nd);
    const char *sn = field(c, col[N_SN]), *model = field(c, col[N_MODEL]);
    int present, rc;
    int64_t gpus;
    if (!*sn || strlen(sn) >= sizeof nd.name)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: sn: missing or too long", c->name, c->line);
    if (bad_name(sn))
        return name_error(c, "sn", sn, err);
    if (gs_strtab_find(names, sn) >= 0)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: sn: '%s' is not unique", c->name, c->line,
                         sn);
    if (out->nnodes >= GS_OPENB_MAX_NODES)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: more than %d nodes", c->name, c->line,
                         GS_OPENB_MAX_NODES);
    snprintf(nd.name, sizeof nd.name, "%s", sn);
    if ((rc = int_field(c, col[N_CPU], &node_cols[N_CPU], &nd.cpu_milli, &present, err)) < 0 ||
        (rc = int_field(c, col[N_MEM], &node_cols[N_MEM], &nd.mem_mib, &present, err)) < 0 ||
        (rc = int_field(c, col[N_GPU], &node_cols[N_GPU], &gpus, &present, err)) < 0)
        return rc;
    nd.gpus = (int)gpus;
    if (nd.gpus > 0) {
        if (bad_name(model))
            return name_error(c, "model", model, err);
        int m = model_index(&out->stats, *model ? model : "gpu");
        if (m < 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: model: too many or too long", c->name,
                             c->line);
        snprintf(nd.model, sizeof nd.model, "%s", out->stats.models[m]);
        out->stats.model_gpus[m] += nd.gpus;
        out->stats.gpu_nodes++;
        out->stats.gpus += nd.gpus;
    }
    if (gs_grow((void **)&out->nodes, &out->nodes_cap, out->nnodes + 1, sizeof *out->nodes) < 0 ||
        gs_strtab_intern(names, nd.name) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    out->nodes[out->nnodes++] = nd;
    out->stats.nodes++;
    return 0;
}

static int read_nodes(const char *text, size_t len, const char *path,
                      struct gs_openb_result *out, struct gs_io_progress *prog, struct gs_error *err)
{
    struct csv c;
    int col[N_NCOL];
    int rc = open_csv(&c, text, len, path, err);
    if (rc < 0)
        return rc;
    gs_io_progress_parse(prog, path);
    rc = read_header(&c, node_cols, N_NCOL, col, err);
    c.r.prog = prog; /* rows after the header */
    if (rc == 0 && (col[N_SN] < 0 || col[N_GPU] < 0))
        rc = gs_errorf(err, GS_EINVAL, "%s:%ld: header needs sn and gpu columns", path, c.line);
    struct gs_strtab *names = rc == 0 ? gs_strtab_create() : NULL;
    if (rc == 0 && !names)
        rc = gs_errorf(err, GS_ENOMEM, "%s: out of memory", path);
    while (rc == 0 && (rc = next_row(&c, err)) > 0)
        rc = read_node(&c, col, names, out, err);
    gs_strtab_destroy(names);
    close_csv(&c);
    return rc;
}

/* Whether one of the `|`-separated alternatives of `spec` is a model of
 * the node list. */
static int spec_known(const struct gs_openb_stats *st, const char *spec)
{
    for (const char *p = spec;; p++) {
        size_t n = strcspn(p, "|");
        for (int i = 0; i < st->nmodels; i++)
            if (strlen(st->models[i]) == n && memcmp(st->models[i], p, n) == 0)
                return 1;
        p += n;
        if (!*p)
            return 0;
    }
}

/* Times of one pod: submit, and the duration rule of the header. */
static void pod_times(const int64_t *t, const int *has, struct gs_openb_stats *st,
                      struct gs_job_spec *s, gs_time *dur)
{
    int64_t end = has[P_DELETE] ? t[P_DELETE] : st->span_end;
    s->submit = has[P_CREATE] ? t[P_CREATE] * GS_MS_PER_SEC : 0;
    *dur = GS_TIME_NONE;
    if (!has[P_CREATE]) {
        st->no_times++;
        return;
    }
    if (!has[P_DELETE])
        st->still_running++;
    int64_t from = has[P_SCHED] ? t[P_SCHED] : t[P_CREATE];
    if (!has[P_SCHED])
        st->never_scheduled++;
    *dur = (end > from ? end - from : 0) * GS_MS_PER_SEC;
}

/* GPUs, share and their counts of one pod. */
static void pod_gpus(const int64_t *t, const int *has, struct gs_openb_stats *st,
                     struct gs_job_spec *s)
{
    int64_t milli = has[P_MILLI] ? t[P_MILLI] : GS_MILLI_GPU;
    s->gpus = (int)t[P_NGPU];       /* <= MAX_POD_GPUS */
    if (s->gpus == 0) {
        st->cpu_only++;
        st->milli_ignored += has[P_MILLI] && milli > 0;
    } else if (milli > 0 && milli < GS_MILLI_GPU && s->gpus == 1) {
        s->milli = (int)milli;
        st->shared++;
    } else {
        st->share_multi += milli > 0 && milli < GS_MILLI_GPU;
        st->whole++;
    }
    st->gpu_request_milli += (int64_t)s->gpus * s->milli;
}

/* Pod names seen so far and the line of each: a name is a job id, and a
 * trace with one id twice does not load. */
struct pod_names {
    struct gs_strtab *tab;
    long *line;
    size_t cap;
};

static int check_name(const struct csv *c, struct pod_names *pn, const char *name,
                      struct gs_error *err)
{
    int n = gs_strtab_count(pn->tab);
    int k = gs_strtab_intern(pn->tab, name);
    if (k >= 0 && k < n && pn->line)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: name: '%s' already used on line %ld",
                         c->name, c->line, name, pn->line[k]);
    if (k < 0 || gs_grow((void **)&pn->line, &pn->cap, (size_t)k + 1, sizeof *pn->line) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    pn->line[k] = c->line;
    return 0;
}

static int read_pod(struct csv *c, const int *col, struct gs_openb_result *out,
                    struct pod_names *pn, struct gs_error *err)
{
    struct gs_openb_stats *st = &out->stats;
    int64_t t[P_NCOL];
    int has[P_NCOL], rc;
    static const int nums[] = { P_CPU, P_MEM, P_NGPU, P_MILLI, P_CREATE, P_DELETE, P_SCHED };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if ((rc = int_field(c, col[nums[i]], &pod_cols[nums[i]], &t[nums[i]], &has[nums[i]],
                            err)) < 0)
            return rc;
    const char *name = field(c, col[P_NAME]), *spec = field(c, col[P_SPEC]);
    const char *qos = field(c, col[P_QOS]);
    if (!*name)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: name: missing", c->name, c->line);
    const char *const strs[3] = { name, spec, qos }, *const cols[3] = { "name", "gpu_spec",
                                                                        "qos" };
    for (int k = 0; k < 3; k++) {
        long at = gs_utf8_invalid_at(strs[k]);
        if (at >= 0) /* the trace it becomes must load, and JSON hold it */
            return gs_errorf(err, GS_EINVAL, "%s:%ld: %s: not valid UTF-8 (byte 0x%02X at "
                             "offset %ld)", c->name, c->line, cols[k],
                             (unsigned)(unsigned char)strs[k][at], at);
    }
    if ((rc = check_name(c, pn, name, err)) < 0)
        return rc;
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = name;
    s.cpu_milli = t[P_CPU];
    s.host_mem_mib = t[P_MEM];
    s.gpu_model = *spec ? spec : NULL;
    s.queue = *qos ? qos : NULL;
    st->pods++;
    pod_gpus(t, has, st, &s);
    if (*spec) {
        st->spec_pods++;
        st->spec_unknown += !spec_known(st, spec);
    }
    st->phase_dropped += *field(c, col[P_PHASE]) != '\0';
    gs_time dur;
    pod_times(t, has, st, &s, &dur);
    if (gs_trace_add(out->trace, &s, dur) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", c->name);
    return 0;
}

/* First pass over its own copy of the text: the latest time in the file
 * (end of the trace).  Bad values are skipped here; the second pass reports
 * them. */
static int span_end(const char *text, size_t len, const char *path, const int *col,
                        int64_t *end, struct gs_error *err)
{
    struct csv c;
    *end = 0;
    int rc = open_csv(&c, text, len, path, err);
    if (rc == 0 && next_line(&c, NULL) > 0) { /* the header, read before */
        struct gs_error e;
        while (next_line(&c, NULL) > 0) {
            for (int k = P_CREATE; k <= P_SCHED; k++) {
                int64_t v;
                int has;
                if (int_field(&c, col[k], &pod_cols[k], &v, &has, &e) == 0 && has && v > *end)
                    *end = v;
            }
        }
    }
    close_csv(&c);
    return rc;
}

static int read_pods(const char *text, size_t len, const char *path,
                     struct gs_openb_result *out, struct gs_io_progress *prog, struct gs_error *err)
{
    struct csv c;
    int col[P_NCOL];
    int rc = open_csv(&c, text, len, path, err);
    if (rc < 0)
        return rc;
    gs_io_progress_parse(prog, path);
    rc = read_header(&c, pod_cols, P_NCOL, col, err);
    c.r.prog = prog; /* rows after the header */
    if (rc == 0 && (col[P_NAME] < 0 || col[P_NGPU] < 0))
        rc = gs_errorf(err, GS_EINVAL, "%s:%ld: header needs name and num_gpu columns", path,
                       c.line);
    if (rc == 0) /* the reader splits its text in place: the scan reads its own copy */
        rc = span_end(text, len, path, col, &out->stats.span_end, err);
    struct pod_names pn = { gs_strtab_create(), NULL, 0 };
    if (rc == 0 && !pn.tab)
        rc = gs_errorf(err, GS_ENOMEM, "%s: out of memory", path);
    while (rc == 0 && (rc = next_row(&c, err)) > 0)
        rc = read_pod(&c, col, out, &pn, err);
    gs_strtab_destroy(pn.tab);
    gs_free(pn.line);
    close_csv(&c);
    return rc;
}

/* gs_openb_parse counting records through `prog` (may be NULL). */
static int parse_texts(const char *nodes_text, size_t nodes_len, const char *pods_text,
                       size_t pods_len, const char *nodes_name, const char *pods_name,
                       struct gs_openb_result *out, struct gs_io_progress *prog,
                       struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    out->trace = gs_trace_create();
    if (!out->trace)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", gs_io_name(nodes_name));
    int rc = read_nodes(nodes_text, nodes_len, gs_io_name(nodes_name), out, prog, err);
    if (rc == 0)
        rc = read_pods(pods_text, pods_len, gs_io_name(pods_name), out, prog, err);
    if (rc < 0)
        gs_openb_result_fini(out);
    return rc;
}

int gs_openb_parse(const char *nodes_text, size_t nodes_len, const char *pods_text,
                   size_t pods_len, const char *nodes_name, const char *pods_name,
                   struct gs_openb_result *out, struct gs_error *err)
{
    return parse_texts(nodes_text, nodes_len, pods_text, pods_len, nodes_name, pods_name, out,
                       NULL, err);
}

int gs_openb_load(const char *nodes_path, const char *pods_path, struct gs_openb_result *out,
                  struct gs_error *err)
{
    return gs_openb_load_progress(nodes_path, pods_path, NULL, out, err);
}

int gs_openb_load_progress(const char *nodes_path, const char *pods_path,
                           struct gs_io_progress *prog, struct gs_openb_result *out,
                           struct gs_error *err)
{
    char *nodes = NULL, *pods = NULL;
    size_t nodes_len = 0, pods_len = 0;
    memset(out, 0, sizeof *out);
    int rc = gs_read_file_progress(nodes_path, &nodes, &nodes_len, prog, err);
    if (rc == 0)
        rc = gs_read_file_progress(pods_path, &pods, &pods_len, prog, err);
    if (rc == 0)
        rc = parse_texts(nodes, nodes_len, pods, pods_len, nodes_path, pods_path, out, prog,
                         err);
    gs_free(nodes);
    gs_free(pods);
    return rc;
}

static int64_t model_mem(const char *model)
{
    for (size_t k = 0; k < sizeof known_mem / sizeof known_mem[0]; k++)
        if (strcmp(known_mem[k].model, model) == 0)
            return known_mem[k].mib;
    return GS_OPENB_DEFAULT_GPU_MIB;
}

int gs_openb_write_cluster_yaml(FILE *f, const struct gs_openb_result *r, struct gs_error *err)
{
    const struct gs_openb_stats *st = &r->stats;
    fprintf(f, "# Imported from the openb node list (Alibaba cluster-trace-gpu-v2023, FGD\n"
               "# ATC'23) by `gpusched import --format openb`.  openb gives no NVLink\n"
               "# topology: every node is one domain.  GPU memory from the FGD artifact's\n"
               "# table; models it does not list are assumed %d GB.\n",
            GS_OPENB_DEFAULT_GPU_MIB / 1024);
    fprintf(f, "cluster:\n  gpu_types:\n");
    for (int i = 0; i < st->nmodels; i++)
        fprintf(f, "    \"%s\": { memory_gb: %.4f }%s\n", st->models[i],
                (double)model_mem(st->models[i]) / 1024.0,
                st->model_mem_defaulted[i] ? "   # assumed" : "");
    if (st->nmodels == 0)
        fprintf(f, "    gpu: { memory_gb: 32 }\n");
    fprintf(f, "  nodes:\n");
    for (size_t i = 0; i < r->nnodes; i++) {
        const struct gs_openb_node *n = &r->nodes[i];
        fprintf(f, "    - { name: \"%s\", gpus: %d", n->name, n->gpus);
        if (n->gpus > 0)
            fprintf(f, ", gpu_type: \"%s\"", n->model);
        fprintf(f, ", cpu: %.3f, memory_gb: %.4f }\n", (double)n->cpu_milli / 1000.0,
                (double)n->mem_mib / 1024.0);
    }
    return ferror(f) ? gs_errorf(err, GS_EIO, "write failed") : 0;
}

static json_t *report_json(const struct gs_openb_result *r)
{
    const struct gs_openb_stats *s = &r->stats;
    json_t *models = json_object();
    for (int i = 0; models && i < s->nmodels; i++)
        json_object_set_new(models, s->models[i],
                            json_pack("{s:I, s:b}", "gpus", (json_int_t)s->model_gpus[i],
                                      "memory_assumed", s->model_mem_defaulted[i]));
    return json_pack(
        "{s:{s:I, s:I, s:I, s:o, s:s}, s:{s:I, s:I, s:I, s:I, s:f},"
        " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
        "nodes", "total", (json_int_t)s->nodes, "gpu_nodes", (json_int_t)s->gpu_nodes, "gpus",
        (json_int_t)s->gpus, "models", models, "topology", "one NVLink domain per node (assumed)",
        "pods", "total", (json_int_t)s->pods, "cpu_only", (json_int_t)s->cpu_only, "shared",
        (json_int_t)s->shared, "whole", (json_int_t)s->whole, "gpu_request",
        (double)s->gpu_request_milli / GS_MILLI_GPU, "defaulted_or_dropped", "no_times",
        (json_int_t)s->no_times, "still_running", (json_int_t)s->still_running,
        "never_scheduled", (json_int_t)s->never_scheduled, "share_multi_gpu_taken_whole",
        (json_int_t)s->share_multi, "gpu_milli_ignored_cpu_only", (json_int_t)s->milli_ignored,
        "gpu_spec_unknown_model", (json_int_t)s->spec_unknown, "gpu_spec_pods",
        (json_int_t)s->spec_pods, "pod_phase_dropped", (json_int_t)s->phase_dropped);
}

void gs_openb_report(FILE *f, const struct gs_openb_result *r, int json)
{
    const struct gs_openb_stats *s = &r->stats;
    if (json) {
        json_t *j = report_json(r);
        if (j)
            json_dumpf(j, f, JSON_INDENT(2));
        fputc('\n', f);
        json_decref(j);
        return;
    }
    fprintf(f, "nodes: %lld (%lld with GPUs, %lld GPUs); topology: one domain per node "
               "(openb has none)\n",
            (long long)s->nodes, (long long)s->gpu_nodes, (long long)s->gpus);
    for (int i = 0; i < s->nmodels; i++)
        fprintf(f, "  model %s: %lld GPUs%s\n", s->models[i], (long long)s->model_gpus[i],
                s->model_mem_defaulted[i] ? ", GPU memory assumed" : "");
    fprintf(f, "pods: %lld (%lld CPU-only, %lld GPU-sharing, %lld whole-GPU), GPU request "
               "%.1f GPUs\n",
            (long long)s->pods, (long long)s->cpu_only, (long long)s->shared,
            (long long)s->whole, (double)s->gpu_request_milli / GS_MILLI_GPU);
    fprintf(f, "defaulted: %lld without times (submit 0, no duration), %lld still running "
               "(ran to the trace end), %lld never scheduled (duration = time alive)\n",
            (long long)s->no_times, (long long)s->still_running, (long long)s->never_scheduled);
    fprintf(f, "dropped: pod_phase of %lld pods; gpu_milli of %lld CPU-only pods; share of "
               "%lld multi-GPU pods (taken whole); %lld of %lld gpu_spec name no model of "
               "the node list\n",
            (long long)s->phase_dropped, (long long)s->milli_ignored, (long long)s->share_multi,
            (long long)s->spec_unknown, (long long)s->spec_pods);
}

void gs_openb_result_fini(struct gs_openb_result *r)
{
    if (!r)
        return;
    gs_free(r->nodes);
    gs_trace_destroy(r->trace);
    r->nodes = NULL;
    r->trace = NULL;
    r->nnodes = 0;
}

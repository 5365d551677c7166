/* import_openb.c - the openb (FGD) trace into native formats (see
 * import_openb.h).  The files are plain CSV without quoting. */
#include "io/import_openb.h"
#include "core/alloc.h"
#include "core/policy.h"
#include "io/ioutil.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 16

/* One CSV file being read: its text, the current line and column map. */
struct csv {
    const char *name;
    char *buf;
    size_t len, pos;
    long line;
    int ncols;
    char *f[MAX_COLS];
};

static const struct {
    const char *model;
    int64_t mib;
} known_mem[] = {
    { "P100", 16280 }, { "T4", 15109 }, { "V100M16", 16160 }, { "V100M32", 32510 },
    { "A10", 22731 },  { "A100", 81251 },
};

/* Next line split in place into fields; returns the field count, 0 at the
 * end of the file. */
static int next_line(struct csv *c)
{
    while (c->pos < c->len) {
        char *s = c->buf + c->pos;
        char *e = memchr(s, '\n', c->len - c->pos);
        size_t n = e ? (size_t)(e - s) : c->len - c->pos;
        c->pos += n + (e ? 1 : 0);
        c->line++;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        s[n] = '\0';
        if (n == 0)
            continue;
        c->ncols = 0;
        for (char *p = s; c->ncols < MAX_COLS;) {
            c->f[c->ncols++] = p;
            char *comma = strchr(p, ',');
            if (!comma)
                break;
            *comma = '\0';
            p = comma + 1;
        }
        return c->ncols;
    }
    return 0;
}

static int open_csv(struct csv *c, const char *path, struct gs_error *err)
{
    memset(c, 0, sizeof *c);
    c->name = path;
    return gs_read_file(path, &c->buf, &c->len, err); /* NUL-terminated */
}

static int col_index(const struct csv *hdr, const char *name)
{
    for (int i = 0; i < hdr->ncols; i++)
        if (strcmp(hdr->f[i], name) == 0)
            return i;
    return -1;
}

/* Integer field (empty = missing: returns 0 and *present = 0). */
static int int_field(const struct csv *c, int col, int64_t *v, int *present,
                     struct gs_error *err)
{
    *present = 0;
    *v = 0;
    if (col < 0 || col >= c->ncols || !*c->f[col])
        return 0;
    char *end;
    errno = 0;
    double d = strtod(c->f[col], &end);
    if (*end || errno || d < 0 || d > 9e15)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: '%.30s' is not a number >= 0", c->name,
                         c->line, c->f[col]);
    *v = (int64_t)(d + 0.5);
    *present = 1;
    return 0;
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

static int read_node(struct csv *c, const int *col, struct gs_openb_result *out,
                     struct gs_error *err)
{
    struct gs_openb_node nd;
    memset(&nd, 0, sizeof nd);
    int present, rc;
    int64_t gpus;
    if (col[0] >= c->ncols || !*c->f[col[0]] || strlen(c->f[col[0]]) >= sizeof nd.name)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: sn: missing or too long", c->name, c->line);
    snprintf(nd.name, sizeof nd.name, "%s", c->f[col[0]]);
    if ((rc = int_field(c, col[1], &nd.cpu_milli, &present, err)) < 0 ||
        (rc = int_field(c, col[2], &nd.mem_mib, &present, err)) < 0 ||
        (rc = int_field(c, col[3], &gpus, &present, err)) < 0)
        return rc;
    if (gpus > 64)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: gpu: at most 64 per node", c->name, c->line);
    nd.gpus = (int)gpus;
    const char *model = col[4] >= 0 && col[4] < c->ncols ? c->f[col[4]] : "";
    if (nd.gpus > 0) {
        int m = model_index(&out->stats, *model ? model : "gpu");
        if (m < 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: model: too many or too long", c->name,
                             c->line);
        snprintf(nd.model, sizeof nd.model, "%s", out->stats.models[m]);
        out->stats.model_gpus[m] += nd.gpus;
        out->stats.gpu_nodes++;
        out->stats.gpus += nd.gpus;
    }
    if (gs_grow((void **)&out->nodes, &out->nodes_cap, out->nnodes + 1, sizeof *out->nodes) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    out->nodes[out->nnodes++] = nd;
    out->stats.nodes++;
    return 0;
}

static int read_nodes(const char *path, struct gs_openb_result *out, struct gs_error *err)
{
    struct csv c;
    int rc = open_csv(&c, path, err);
    if (rc < 0)
        return rc;
    if (next_line(&c) == 0)
        rc = gs_errorf(err, GS_EINVAL, "%s: empty file", path);
    struct csv hdr = c;
    int col[5] = { col_index(&hdr, "sn"), col_index(&hdr, "cpu_milli"),
                   col_index(&hdr, "memory_mib"), col_index(&hdr, "gpu"),
                   col_index(&hdr, "model") };
    if (rc == 0 && (col[0] < 0 || col[3] < 0))
        rc = gs_errorf(err, GS_EINVAL, "%s:1: header needs sn and gpu columns", path);
    while (rc == 0 && next_line(&c) > 0)
        rc = read_node(&c, col, out, err);
    gs_free(c.buf);
    return rc;
}

/* Column indexes of the pods file. */
enum { P_NAME, P_CPU, P_MEM, P_NGPU, P_MILLI, P_SPEC, P_QOS, P_PHASE, P_CREATE, P_DELETE,
       P_SCHED, P_NCOL };

static int spec_known(const struct gs_openb_stats *st, const char *spec)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|"))
        for (int i = 0; i < st->nmodels; i++)
            if (strcmp(st->models[i], tok) == 0)
                return 1;
    return 0;
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

static int read_pod(struct csv *c, const int *col, struct gs_openb_result *out,
                    struct gs_error *err)
{
    struct gs_openb_stats *st = &out->stats;
    int64_t t[P_NCOL];
    int has[P_NCOL], rc;
    static const int nums[] = { P_CPU, P_MEM, P_NGPU, P_MILLI, P_CREATE, P_DELETE, P_SCHED };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if ((rc = int_field(c, col[nums[i]], &t[nums[i]], &has[nums[i]], err)) < 0)
            return rc;
    if (col[P_NAME] >= c->ncols || !*c->f[col[P_NAME]])
        return gs_errorf(err, GS_EINVAL, "%s:%ld: name: missing", c->name, c->line);
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = c->f[col[P_NAME]];
    s.gpus = (int)(t[P_NGPU] > 1000000 ? 1000000 : t[P_NGPU]);
    s.cpu_milli = t[P_CPU];
    s.host_mem_mib = t[P_MEM];
    const char *spec = col[P_SPEC] >= 0 && col[P_SPEC] < c->ncols ? c->f[col[P_SPEC]] : "";
    const char *qos = col[P_QOS] >= 0 && col[P_QOS] < c->ncols ? c->f[col[P_QOS]] : "";
    s.gpu_model = *spec ? spec : NULL;
    s.queue = *qos ? qos : NULL;
    int64_t milli = has[P_MILLI] ? t[P_MILLI] : GS_MILLI_GPU;
    st->pods++;
    if (s.gpus == 0) {
        st->cpu_only++;
        st->milli_ignored += has[P_MILLI] && milli > 0;
    } else if (milli > 0 && milli < GS_MILLI_GPU && s.gpus == 1) {
        s.milli = (int)milli;
        st->shared++;
    } else {
        st->share_multi += milli > 0 && milli < GS_MILLI_GPU;
        st->whole++;
    }
    st->gpu_request_milli += (int64_t)s.gpus * s.milli;
    if (*spec) {
        st->spec_pods++;
        st->spec_unknown += !spec_known(st, spec);
    }
    st->phase_dropped += col[P_PHASE] >= 0 && col[P_PHASE] < c->ncols && *c->f[col[P_PHASE]];
    gs_time dur;
    pod_times(t, has, st, &s, &dur);
    if (gs_trace_add(out->trace, &s, dur) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

/* First pass: the latest time in the file (end of the trace). */
static int64_t span_end(struct csv c, const int *col)
{
    int64_t end = 0;
    struct gs_error e;
    while (next_line(&c) > 0) {
        for (int k = P_CREATE; k <= P_SCHED; k++) {
            int64_t v;
            int has;
            if (int_field(&c, col[k], &v, &has, &e) == 0 && has && v > end)
                end = v;
        }
    }
    return end;
}

static int read_pods(const char *path, struct gs_openb_result *out, struct gs_error *err)
{
    static const char *const names[P_NCOL] = {
        "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
        "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time",
    };
    struct csv c;
    int rc = open_csv(&c, path, err);
    if (rc < 0)
        return rc;
    int col[P_NCOL];
    if (next_line(&c) == 0)
        rc = gs_errorf(err, GS_EINVAL, "%s: empty file", path);
    for (int k = 0; k < P_NCOL; k++)
        col[k] = rc == 0 ? col_index(&c, names[k]) : -1;
    if (rc == 0 && (col[P_NAME] < 0 || col[P_NGPU] < 0))
        rc = gs_errorf(err, GS_EINVAL, "%s:1: header needs name and num_gpu columns", path);
    if (rc == 0) {
        /* the scan splits lines in place: scan a copy */
        struct csv copy = c;
        copy.buf = gs_malloc(c.len + 1);
        if (!copy.buf) {
            rc = gs_errorf(err, GS_ENOMEM, "out of memory");
        } else {
            memcpy(copy.buf, c.buf, c.len + 1);
            out->stats.span_end = span_end(copy, col);
            gs_free(copy.buf);
        }
    }
    while (rc == 0 && next_line(&c) > 0)
        rc = read_pod(&c, col, out, err);
    gs_free(c.buf);
    return rc;
}

int gs_openb_load(const char *nodes_path, const char *pods_path, struct gs_openb_result *out,
                  struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    out->trace = gs_trace_create();
    if (!out->trace)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int rc = read_nodes(nodes_path, out, err);
    if (rc == 0)
        rc = read_pods(pods_path, out, err);
    if (rc < 0)
        gs_openb_result_fini(out);
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
        fprintf(f, "    %s: { memory_gb: %.4f }%s\n", st->models[i],
                (double)model_mem(st->models[i]) / 1024.0,
                st->model_mem_defaulted[i] ? "   # assumed" : "");
    if (st->nmodels == 0)
        fprintf(f, "    gpu: { memory_gb: 32 }\n");
    fprintf(f, "  nodes:\n");
    for (size_t i = 0; i < r->nnodes; i++) {
        const struct gs_openb_node *n = &r->nodes[i];
        fprintf(f, "    - { name: %s, gpus: %d", n->name, n->gpus);
        if (n->gpus > 0)
            fprintf(f, ", gpu_type: %s", n->model);
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

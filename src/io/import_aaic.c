/* import_aaic.c - AAIC batch-queue log -> native trace (see import_aaic.h).
 *
 * Three passes over an array of parsed rows: read (strict: every field an
 * integer or empty), de-duplicate (open-addressing hash of the twelve
 * fields other than id), then convert the survivors in submit order.  Lines
 * come from the project's CSV reader (io/csv.h) in plain mode: the log has
 * no quoting, so a quote is data (and an integer field holding one is an
 * error, as before).
 */
#include "io/import_aaic.h"
#include "core/base/alloc.h"
#include "io/csv.h"
#include "io/ioutil.h"
#include "core/policy/policy.h"
#include "io/job_fields.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The log's columns, in its own order. */
enum {
    C_ID, C_USER, C_GROUP, C_QUEUE, C_NODES, C_GPUS, C_WALLTIME_REQ, C_TERMCODE,
    C_SUBMIT, C_START, C_END, C_WAITTIME, C_WALLTIME, NCOLS
};

static const char *const col_names[NCOLS] = {
    "id", "user", "group", "queue", "nodes", "gpus", "walltime_req", "termcode",
    "time_submit", "time_start", "time_end", "waittime", "walltime",
};

#define MISSING INT64_MIN   /* an empty field */
/* Largest |value|: 9e12 s, the native trace's limit for times (MAX_SECONDS
 * in io/job_fields.c), so every imported time can be written and read
 * back; still far beyond any UNIX time.  13 digits. */
#define MAX_ABS 9000000000000LL
#define SHOW 40             /* characters of a bad value quoted in messages */

/* One data row as read. */
struct row {
    int64_t v[NCOLS];
    long line;
    int64_t occurrence;     /* 1 = first row with this id, 2 = second, ... */
};

struct reader {
    struct gs_csv csv;      /* the project's CSV reader over a private copy */
    long line;              /* line of the current record */
    const char *name;
    int map[NCOLS];         /* header position of each column */
    struct row *rows;
    size_t nrows, cap;
    struct gs_io_progress *prog; /* rows after the header counted here */
};

/* Parse a strict decimal integer [-]digits: GS_EINVAL when it is not one,
 * GS_ERANGE when |v| > MAX_ABS. */
static int parse_int(const char *t, size_t len, int64_t *out)
{
    size_t i = len > 0 && t[0] == '-' ? 1 : 0, start = i;
    if (i == len)
        return GS_EINVAL;
    int64_t v = 0;
    for (; i < len; i++) {
        if (t[i] < '0' || t[i] > '9')
            return GS_EINVAL;
        if (v <= MAX_ABS)   /* stops growing past the bound: no overflow */
            v = v * 10 + (t[i] - '0');
    }
    if (v > MAX_ABS)
        return GS_ERANGE;
    *out = start ? -v : v;
    return 0;
}

static int read_header(struct reader *r, struct gs_error *err)
{
    struct gs_csv *f = &r->csv;
    int rc = gs_csv_next(f, &r->line, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return gs_errorf(err, GS_EINVAL, "%s: empty input; the AAIC header line is required",
                         r->name);
    for (int c = 0; c < NCOLS; c++)
        r->map[c] = -1;
    for (size_t i = 0; i < f->nf; i++) {
        if (i >= NCOLS)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: header has %zu columns, AAIC has %d",
                             r->name, r->line, f->nf, NCOLS);
        const char *t = f->f[i];
        size_t len = strlen(t);
        int c = 0;
        while (c < NCOLS && strcmp(col_names[c], t) != 0)
            c++;
        if (c == NCOLS || r->map[c] >= 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld:%zu: %s column '%.*s' in the AAIC header",
                             r->name, r->line, f->col[i],
                             c == NCOLS ? "unknown" : "duplicate", (int)(len < SHOW ? len : SHOW),
                             t);
        r->map[c] = (int)i;
    }
    for (int c = 0; c < NCOLS; c++)
        if (r->map[c] < 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld: missing AAIC column '%s'", r->name,
                             r->line, col_names[c]);
    return 0;
}

/* Fields that must be present: the ones that name the job and its owner. */
static int required(int c)
{
    return c == C_ID || c == C_USER || c == C_GROUP || c == C_QUEUE;
}

static int read_row(struct reader *r, struct row *row, struct gs_error *err)
{
    const struct gs_csv *f = &r->csv;
    if (f->nf != NCOLS)
        return gs_errorf(err, GS_EINVAL, "%s:%ld: row has %zu fields, the header has %d",
                         r->name, r->line, f->nf, NCOLS);
    row->line = r->line;
    row->occurrence = 1;
    for (int c = 0; c < NCOLS; c++) {
        size_t i = (size_t)r->map[c], col = f->col[i];
        const char *t = f->f[i];
        size_t len = strlen(t);
        int64_t v = MISSING;
        int rc = len > 0 ? parse_int(t, len, &v) : 0;
        if (rc < 0)
            return gs_errorf(err, GS_EINVAL, "%s:%ld:%zu: %s: '%.*s' is %s", r->name, r->line,
                             col, col_names[c], (int)(len < SHOW ? len : SHOW), t,
                             rc == GS_ERANGE ? "out of range (|value| <= 9000000000000)"
                                             : "not an integer");
        if (required(c) && (v == MISSING || v < 0))
            return gs_errorf(err, GS_EINVAL, "%s:%ld:%zu: %s: %s", r->name, r->line, col,
                             col_names[c],
                             v == MISSING ? "empty, but every row needs it"
                                          : "must not be negative");
        row->v[c] = v;
    }
    return 0;
}

static int read_rows(struct reader *r, struct gs_error *err)
{
    int rc;
    while ((rc = gs_csv_next(&r->csv, &r->line, err)) > 0) {
        if (gs_grow((void **)&r->rows, &r->cap, r->nrows + 1, sizeof *r->rows) < 0)
            return gs_errorf(err, GS_ENOMEM, "%s: out of memory", r->name);
        if ((rc = read_row(r, &r->rows[r->nrows], err)) < 0)
            return rc;
        r->nrows++;
    }
    return rc;
}

/* ---- de-duplication ---------------------------------------------------- */

static uint64_t row_hash(const struct row *row)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int c = C_USER; c < NCOLS; c++) {
        h ^= (uint64_t)row->v[c];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return h;
}

static int same_record(const struct row *a, const struct row *b)
{
    for (int c = C_USER; c < NCOLS; c++)
        if (a->v[c] != b->v[c])
            return 0;
    return 1;
}

/* Keep the first row of each record (file order), compacting rows[] in
 * place.  Returns the number dropped or GS_ENOMEM. */
static int64_t dedup(struct row *rows, size_t *n)
{
    size_t cap = 16;
    while (cap < *n * 2)
        cap *= 2;
    size_t *slot = gs_malloc(cap * sizeof *slot); /* index + 1; 0 = empty */
    if (!slot)
        return GS_ENOMEM;
    memset(slot, 0, cap * sizeof *slot);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        size_t h = (size_t)row_hash(&rows[i]) & (cap - 1);
        int dup = 0;
        for (; slot[h]; h = (h + 1) & (cap - 1))
            if ((dup = same_record(&rows[slot[h] - 1], &rows[i])) != 0)
                break;
        if (dup)
            continue;
        rows[kept] = rows[i];
        slot[h] = ++kept;
    }
    gs_free(slot);
    int64_t dropped = (int64_t)(*n - kept);
    *n = kept;
    return dropped;
}

/* ---- conversion -------------------------------------------------------- */

/* Order rows by (id, line). */
static int cmp_id_line(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->v[C_ID] != y->v[C_ID])
        return x->v[C_ID] < y->v[C_ID] ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Order rows by (time_submit, id, line): the trace order. */
static int cmp_submit(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->v[C_SUBMIT] != y->v[C_SUBMIT])
        return x->v[C_SUBMIT] < y->v[C_SUBMIT] ? -1 : 1;
    return cmp_id_line(a, b);
}

/* Number repeated ids 2, 3, ... in file order (line order); returns how
 * many rows repeat an earlier id.  Reorders rows[] (convert sorts them
 * again by submit time). */
static int64_t number_ids(struct row *rows, size_t n)
{
    if (n < 2)
        return 0;
    qsort(rows, n, sizeof *rows, cmp_id_line);
    int64_t renamed = 0;
    for (size_t i = 1; i < n; i++) {
        if (rows[i].v[C_ID] == rows[i - 1].v[C_ID]) {
            rows[i].occurrence = rows[i - 1].occurrence + 1;
            renamed++;
        }
    }
    return renamed;
}

static int known(int64_t v)
{
    return v != MISSING && v >= 0;
}

/* The reason to drop `row`, or -1 to keep it. */
static int drop_reason(const struct row *row)
{
    const int64_t *v = row->v;
    if (!known(v[C_SUBMIT]))
        return GS_AAIC_DROP_SUBMIT;
    if (!known(v[C_WALLTIME]) &&
        !(known(v[C_START]) && known(v[C_END]) && v[C_END] >= v[C_START]))
        return GS_AAIC_DROP_DURATION;
    if (!known(v[C_NODES]) || !known(v[C_GPUS]) || v[C_NODES] == 0 || v[C_GPUS] == 0)
        return GS_AAIC_DROP_GPUS;
    if (v[C_GPUS] > GS_AAIC_NODE_GPUS || v[C_NODES] > GS_AAIC_MAX_NODES)
        return GS_AAIC_DROP_WIDE;
    return -1;
}

/* Duration in seconds; counts fallbacks and mismatches. */
static int64_t row_duration(const struct row *row, struct gs_aaic_stats *st)
{
    const int64_t *v = row->v;
    int have_span = known(v[C_START]) && known(v[C_END]) && v[C_END] >= v[C_START];
    if (!known(v[C_WALLTIME])) {
        st->duration_fallback++;
        return v[C_END] - v[C_START];
    }
    if (have_span && v[C_END] - v[C_START] != v[C_WALLTIME])
        st->walltime_mismatch++;
    return v[C_WALLTIME];
}

/* Observed wait in seconds, or -1 when unknown. */
static int64_t row_wait(const struct row *row, struct gs_aaic_stats *st)
{
    const int64_t *v = row->v;
    int have_start = known(v[C_START]) && v[C_START] >= v[C_SUBMIT];
    if (known(v[C_WAITTIME])) {
        if (have_start && v[C_START] - v[C_SUBMIT] != v[C_WAITTIME])
            st->wait_mismatch++;
        return v[C_WAITTIME];
    }
    if (have_start) {
        st->wait_fallback++;
        return v[C_START] - v[C_SUBMIT];
    }
    st->wait_unknown++;
    return -1;
}

/* Scratch for the summary percentiles. */
struct acc {
    double *wait, *ratio;
    size_t nwait, nratio;
};

static void fill_spec(const struct row *row, struct gs_job_spec *s, char (*str)[32],
                      struct gs_aaic_stats *st)
{
    const int64_t *v = row->v;
    gs_job_spec_init(s);
    if (row->occurrence > 1)
        snprintf(str[0], 32, "%" PRId64 "-%" PRId64, v[C_ID], row->occurrence);
    else
        snprintf(str[0], 32, "%" PRId64, v[C_ID]);
    snprintf(str[1], 32, "g%" PRId64, v[C_GROUP]);
    snprintf(str[2], 32, "u%" PRId64, v[C_USER]);
    snprintf(str[3], 32, "%" PRId64, v[C_QUEUE]);
    s->id = str[0];
    s->team = str[1];
    s->user = str[2];
    s->queue = str[3];
    s->name = "-";
    s->submit = (v[C_SUBMIT] - st->submit_min) * GS_MS_PER_SEC;
    s->topology = GS_TOPO_AUTO;
    if (v[C_NODES] > 1) {
        st->multi_node++;
        st->multi_node_partial += v[C_GPUS] < GS_AAIC_NODE_GPUS;
        s->gpus = (int)(v[C_NODES] * GS_AAIC_NODE_GPUS);
    } else {
        s->gpus = (int)v[C_GPUS];
    }
    if (known(v[C_WALLTIME_REQ]) && v[C_WALLTIME_REQ] > 0)
        s->time_limit = v[C_WALLTIME_REQ] * GS_MS_PER_SEC;
    else
        st->no_limit++;
}

/* Convert row `row` into job `i` of `out`. */
static int convert_row(const struct row *row, size_t i, struct gs_aaic_result *out,
                       struct acc *acc)
{
    struct gs_aaic_stats *st = &out->stats;
    struct gs_job_spec s;
    char str[4][32];
    fill_spec(row, &s, str, st);
    int64_t dur = row_duration(row, st), wait = row_wait(row, st);
    const int64_t *v = row->v;
    if (s.time_limit > 0 && dur * GS_MS_PER_SEC > s.time_limit)
        st->over_limit++;
    if (s.time_limit > 0 && dur > 0)
        acc->ratio[acc->nratio++] = (double)v[C_WALLTIME_REQ] / (double)dur;
    int64_t tc = v[C_TERMCODE];
    st->termcode[tc >= 0 && tc < GS_AAIC_TERMCODES ? tc : GS_AAIC_TERMCODES]++;
    out->termcode[i] = tc >= 0 && tc <= 1000 ? (int)tc : -1;
    out->nodes[i] = (int)v[C_NODES];
    out->observed_wait[i] = wait < 0 ? GS_TIME_NONE : wait * GS_MS_PER_SEC;
    if (wait >= 0)
        acc->wait[acc->nwait++] = (double)wait;
    int64_t end = v[C_SUBMIT] + (wait > 0 ? wait : 0) + dur;
    if (end > st->span_end)
        st->span_end = end;
    st->gpu_hours += (double)v[C_NODES] * (double)v[C_GPUS] * (double)dur / 3600.0;
    st->gpu_hours_alloc += (double)s.gpus * (double)dur / 3600.0;
    return gs_trace_add(out->trace, &s, dur * GS_MS_PER_SEC) < 0 ? GS_ENOMEM : 0;
}

static int alloc_result(struct gs_aaic_result *out, size_t n, struct acc *acc)
{
    size_t m = n ? n : 1;
    out->trace = gs_trace_create();
    out->observed_wait = gs_malloc(m * sizeof *out->observed_wait);
    out->termcode = gs_malloc(m * sizeof *out->termcode);
    out->nodes = gs_malloc(m * sizeof *out->nodes);
    acc->wait = gs_malloc(m * sizeof *acc->wait);
    acc->ratio = gs_malloc(m * sizeof *acc->ratio);
    acc->nwait = acc->nratio = 0;
    if (!out->trace || !out->observed_wait || !out->termcode || !out->nodes || !acc->wait ||
        !acc->ratio)
        return GS_ENOMEM;
    return 0;
}

/* Drop unusable rows (compacting), then convert the rest in submit order. */
static int convert(struct row *rows, size_t n, struct gs_aaic_result *out,
                   struct gs_io_progress *prog)
{
    struct gs_aaic_stats *st = &out->stats;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int why = drop_reason(&rows[i]);
        if (why >= 0)
            st->dropped[why]++;
        else
            rows[kept++] = rows[i];
    }
    gs_io_progress_job(prog, 0, kept); /* before the sort, the slow part */
    if (kept > 1)
        qsort(rows, kept, sizeof *rows, cmp_submit);
    st->submit_min = kept ? rows[0].v[C_SUBMIT] : 0;
    st->span_end = st->submit_min;
    struct acc acc = { NULL, NULL, 0, 0 };
    int rc = alloc_result(out, kept, &acc);
    for (size_t i = 0; rc == 0 && i < kept; i++) {
        rc = convert_row(&rows[i], i, out, &acc);
        gs_io_progress_job(prog, i + 1, kept);
    }
    if (rc == 0) {
        st->jobs = (int64_t)kept;
        gs_pctl_compute(&st->wait, acc.wait, acc.nwait);
        struct gs_pctl ratio;
        gs_pctl_compute(&ratio, acc.ratio, acc.nratio);
        st->req_ratio_p50 = ratio.p50;
    }
    gs_free(acc.wait);
    gs_free(acc.ratio);
    return rc;
}

void gs_aaic_result_fini(struct gs_aaic_result *r)
{
    if (!r)
        return;
    gs_trace_destroy(r->trace);
    gs_free(r->observed_wait);
    gs_free(r->termcode);
    gs_free(r->nodes);
    memset(r, 0, sizeof *r);
}

static int process(struct reader *r, struct gs_aaic_result *out, struct gs_error *err)
{
    int rc = read_header(r, err);
    r->csv.prog = r->prog;
    if (rc == 0)
        rc = read_rows(r, err);
    if (rc < 0)
        return rc;
    out->stats.rows = (int64_t)r->nrows;
    int64_t d = dedup(r->rows, &r->nrows);
    if (d < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", r->name);
    out->stats.duplicates = d;
    out->stats.ids_renamed = number_ids(r->rows, r->nrows);
    if (convert(r->rows, r->nrows, out, r->prog) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", r->name);
    return 0;
}

/* gs_aaic_parse counting records through `prog` (may be NULL). */
static int parse_text(const char *text, size_t len, const char *name, void *res,
                      struct gs_io_progress *prog, struct gs_error *err)
{
    struct gs_aaic_result *out = res;
    struct reader r;
    memset(&r, 0, sizeof r);
    r.name = gs_io_name(name);
    memset(out, 0, sizeof *out);
    /* the CSV reader tokenizes in place: a private copy (the log has no
     * quoting: plain fields, blanks trimmed) */
    char *buf = len < SIZE_MAX ? gs_malloc(len + 1) : NULL;
    int rc = buf ? 0 : gs_errorf(err, GS_ENOMEM, "%s: out of memory", r.name);
    if (buf) {
        if (len)
            memcpy(buf, text, len);
        rc = gs_csv_open(&r.csv, buf, len, r.name, GS_CSV_TRIM, err);
        r.prog = prog;
        gs_io_progress_parse(prog, r.name);
    }
    if (rc == 0)
        rc = process(&r, out, err);
    gs_csv_close(&r.csv);
    gs_free(buf);
    gs_free(r.rows);
    if (rc < 0)
        gs_aaic_result_fini(out);
    return rc;
}

int gs_aaic_parse(const char *text, size_t len, const char *name,
                  struct gs_aaic_result *out, struct gs_error *err)
{
    return parse_text(text, len, name, out, NULL, err);
}

int gs_aaic_load(const char *path, struct gs_aaic_result *out, struct gs_error *err)
{
    return gs_aaic_load_progress(path, NULL, out, err);
}

int gs_aaic_load_progress(const char *path, struct gs_io_progress *prog,
                          struct gs_aaic_result *out, struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    return gs_io_load(path, parse_text, out, prog, err);
}

/* ---- writers ----------------------------------------------------------- */

static const int trace_cols[] = {
    GS_JCOL_ID, GS_JCOL_SUBMIT, GS_JCOL_DURATION, GS_JCOL_GPUS, GS_JCOL_TEAM,
    GS_JCOL_USER, GS_JCOL_NAME, GS_JCOL_QUEUE, GS_JCOL_TIME_LIMIT,
};

#define NTRACE_COLS (sizeof trace_cols / sizeof trace_cols[0])

/* Every string this importer writes is digits and letters ("g3", "-"),
 * so no cell needs quoting. */
static void write_job(FILE *f, const struct gs_aaic_result *r, size_t i)
{
    const struct gs_job_spec *s = gs_trace_job(r->trace, i);
    gs_time dur = gs_trace_duration(r->trace, i);
    char buf[64];
    for (size_t c = 0; c < NTRACE_COLS; c++) {
        if (c)
            putc(',', f);
        if (trace_cols[c] == GS_JCOL_NAME)
            fputs(s->name ? s->name : "-", f);
        else if (gs_jcol_format(trace_cols[c], s, dur, buf, sizeof buf) > 0)
            fputs(buf, f);
    }
    fprintf(f, ",%d,", r->nodes[i]);
    if (r->termcode[i] >= 0)
        fprintf(f, "%d", r->termcode[i]);
    putc(',', f);
    if (r->observed_wait[i] != GS_TIME_NONE)
        fprintf(f, "%" PRId64, r->observed_wait[i] / GS_MS_PER_SEC);
    putc('\n', f);
}

int gs_aaic_write_csv(FILE *f, const struct gs_aaic_result *r, struct gs_error *err)
{
    for (size_t c = 0; c < NTRACE_COLS; c++)
        fprintf(f, "%s%s", c ? "," : "", gs_jcol_name(trace_cols[c]));
    fputs(",nodes,termcode,observed_wait\n", f);
    size_t n = r->trace ? gs_trace_count(r->trace) : 0;
    for (size_t i = 0; i < n; i++)
        write_job(f, r, i);
    if (fflush(f) != 0 || ferror(f))
        return gs_errorf(err, GS_EIO, "writing the trace failed");
    return 0;
}

int gs_aaic_write_cluster_yaml(FILE *f, int nodes, struct gs_error *err)
{
    if (nodes < 1)
        return gs_errorf(err, GS_EINVAL, "nodes: must be at least 1, got %d", nodes);
    fprintf(f,
            "# AIST AI Cloud (AAIC) batch partition, written by `gpusched import --format aaic`.\n"
            "# Known (shared/traces/README.md, aaic/): 50 GPU nodes, of which 32-40 were under\n"
            "# the batch scheduler; each node has 20 CPU cores, 8 GPUs, 256 GiB RAM, 480 GB SSD;\n"
            "# multi-node jobs take all 8 GPUs of each node, single-node jobs take 1-8 and may\n"
            "# share a node.\n"
            "# Assumed: %d nodes (the node count of the batch partition varied); the GPU model\n"
            "# is not stated in the trace, so \"aaic-gpu\" with 16 GB stands for it (AAIC jobs\n"
            "# request no GPU memory, so the size does not affect a replay); one NVLink\n"
            "# domain of 8 GPUs per node (the intra-node topology is not in the trace).\n"
            "cluster:\n"
            "  gpu_types:\n"
            "    aaic-gpu: { memory_gb: 16 }\n"
            "  nodes:\n"
            "    - name: aaic-[1-%d]\n"
            "      gpus: %d\n"
            "      gpu_type: aaic-gpu\n"
            "      nvlink_domains: [%d]\n",
            nodes, nodes, GS_AAIC_NODE_GPUS, GS_AAIC_NODE_GPUS);
    if (fflush(f) != 0 || ferror(f))
        return gs_errorf(err, GS_EIO, "writing the cluster failed");
    return 0;
}

/* import_sacct.c - sacct rows into jobs, and the writers (import_sacct.h). */
#include "io/import_sacct.h"
#include "core/base/alloc.h"
#include "io/import_sacct_private.h"
#include "io/ioutil.h"
#include "io/slurm_util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PRIORITY 1000000000

/* A job before submit times are shifted. */
struct pjob {
    const struct gs_sacct_row *last;
    int64_t submit, first_start, duration;
    int runs;
};

static int cmp_rows(const void *a, const void *b)
{
    const struct gs_sacct_row *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    if (c)
        return c;
    /* runs in start order; not started last */
    int64_t sx = x->start == GS_SACCT_NONE ? INT64_MAX : x->start;
    int64_t sy = y->start == GS_SACCT_NONE ? INT64_MAX : y->start;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_jobs(const void *a, const void *b)
{
    const struct pjob *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return strcmp(x->last->id, y->last->id);
}

static int state_of(const char *s)
{
    static const char *const names[] = { "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
                                         "PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY" };
    size_t n = strcspn(s, " ");
    for (int i = 0; i < GS_SACCT_OTHER; i++)
        if (strlen(names[i]) == n && strncmp(s, names[i], n) == 0)
            return i;
    return GS_SACCT_OTHER;
}

static int same_run(const struct gs_sacct_row *a, const struct gs_sacct_row *b)
{
    return a->start == b->start && a->end == b->end && a->submit == b->submit &&
           a->gpus == b->gpus;
}

/* One JobID's rows r[0 .. n-1] (sorted) into a job, or a drop. */
static void group_to_job(struct gs_sacct_rows *rows, const struct gs_sacct_row *r, size_t n,
                         struct pjob *out, size_t *njobs)
{
    struct gs_sacct_stats *st = rows->stats;
    const struct gs_sacct_row *last = NULL;
    char wb[128];
#define W(line) gs_sacct_where(rows, (line), wb, sizeof wb)
    int64_t submit = INT64_MAX, first_start = GS_SACCT_NONE;
    size_t started = 0, unstarted = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && same_run(&r[i], &r[i - 1])) {
            gs_sacct_drop(rows, GS_SACCT_DROP_DUPLICATE, "%s: job %s: the same run as"
                          " an earlier row", W(r[i].line), r[i].id);
            continue;
        }
        submit = r[i].submit < submit ? r[i].submit : submit;
        if (r[i].start == GS_SACCT_NONE) {
            unstarted++;
            continue;
        }
        if (first_start == GS_SACCT_NONE)
            first_start = r[i].start;
        last = &r[i];
        started++;
    }
    for (size_t i = 0; i < unstarted; i++)
        gs_sacct_drop(rows, GS_SACCT_DROP_NEVER_STARTED, "%s: job %s (%s) never started",
                      W(r[n - 1].line), r[n - 1].id, r[n - 1].state);
    if (!last)
        return;
    if (last->end == GS_SACCT_NONE) {
        for (size_t i = 0; i < started; i++)
            gs_sacct_drop(rows, GS_SACCT_DROP_RUNNING, "%s: job %s is still running (no"
                          " End)", W(last->line), last->id);
        return;
    }
    int64_t dur = last->elapsed >= 0 ? last->elapsed : last->end - last->start;
    if (dur < 0 || last->end < last->start) { /* the job is dropped: all its runs */
        for (size_t i = 0; i < started; i++)
            gs_sacct_drop(rows, GS_SACCT_DROP_VALUE, "%s: job %s: End before Start",
                          W(last->line), last->id);
        return;
    }
    for (size_t i = 0; i < n; i++) { /* earlier runs: lost work */
        if (&r[i] == last || r[i].start == GS_SACCT_NONE || (i > 0 && same_run(&r[i], &r[i - 1])))
            continue;
        st->runs_lost++;
        int64_t e = r[i].elapsed >= 0 ? r[i].elapsed
                    : r[i].end != GS_SACCT_NONE ? r[i].end - r[i].start : 0;
        st->lost_gpu_s += (double)r[i].gpus * (double)(e > 0 ? e : 0);
    }
    st->requeued_jobs += started > 1;
    out[(*njobs)++] = (struct pjob){ last, submit, first_start, dur, (int)started };
}

struct names {
    char *buf;
    size_t len, cap;
};

static int add_name(const char *name, void *arg)
{
    struct names *nm = arg;
    size_t n = strlen(name);
    if (nm->len + n + 2 > nm->cap) {
        size_t cap = (nm->len + n + 2) * 2;
        char *b = gs_realloc(nm->buf, cap);
        if (!b)
            return GS_ENOMEM;
        nm->buf = b;
        nm->cap = cap;
    }
    if (nm->len)
        nm->buf[nm->len++] = ' ';
    memcpy(nm->buf + nm->len, name, n + 1);
    nm->len += n;
    return 0;
}

/* The node list expanded and space separated (owned), "" for none. */
static char *expand_nodes(const char *list)
{
    struct names nm = { NULL, 0, 0 };
    if (*list && !strchr(list, ' ') && strcmp(list, "None") != 0 &&
        gs_slurm_hostlist_expand(list, add_name, &nm) < 0) {
        gs_free(nm.buf);
        nm.buf = NULL;
        nm.len = 0;
    }
    if (!nm.buf) {
        nm.buf = gs_malloc(1);
        if (nm.buf)
            nm.buf[0] = '\0';
    }
    return nm.buf;
}

static int add_job(struct gs_sacct_result *res, const struct pjob *j, int64_t base, size_t idx)
{
    const struct gs_sacct_row *r = j->last;
    struct gs_sacct_stats *st = &res->stats;
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = r->id;
    s.submit = (j->submit - base) * 1000;
    s.gpus = r->gpus > 1000000 ? 1000000 : (int)r->gpus;
    s.team = *r->account ? r->account : NULL;
    s.user = *r->user ? r->user : NULL;
    s.name = *r->name ? r->name : NULL;
    s.queue = *r->partition ? r->partition : NULL;
    s.time_limit = r->limit;
    s.priority = r->priority < 0 ? 0 : r->priority > MAX_PRIORITY ? MAX_PRIORITY
                                                                   : (int)r->priority;
    st->priority_clamped += r->priority > MAX_PRIORITY;
    st->no_limit += r->limit == 0;
    st->no_account += !*r->account;
    st->from_req_tres += r->from_req;
    st->cpu_only += r->gpus == 0;
    st->multi_node += r->nnodes > 1;
    st->gpu_hours += (double)s.gpus * (double)j->duration / 3600.0;
    struct gs_sacct_job_extra *x = &res->extra[idx];
    x->start = r->start - base;
    x->end = r->end - base;
    x->first_start = j->first_start - base;
    x->nodes = r->nnodes;
    x->runs = j->runs;
    x->state = state_of(r->state);
    st->state[x->state]++;
    if (!(x->nodelist = expand_nodes(r->nodelist)) ||
        gs_trace_add(res->trace, &s, j->duration * 1000) < 0)
        return GS_ENOMEM;
    return 0;
}

static int convert(struct gs_sacct_rows *rows, struct gs_sacct_result *res, struct gs_error *err)
{
    gs_io_progress_job(rows->prog, 0, rows->n);
    if (rows->n)
        qsort(rows->v, rows->n, sizeof *rows->v, cmp_rows);
    struct pjob *jobs = gs_malloc((rows->n ? rows->n : 1) * sizeof *jobs);
    if (!jobs)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    size_t nj = 0;
    for (size_t i = 0, k; i < rows->n; i = k) {
        for (k = i + 1; k < rows->n && strcmp(rows->v[k].id, rows->v[i].id) == 0; k++)
            ;
        group_to_job(rows, rows->v + i, k - i, jobs, &nj);
    }
    if (nj)
        qsort(jobs, nj, sizeof *jobs, cmp_jobs);
    int64_t base = nj ? jobs[0].submit : 0;
    res->stats.submit_min = base;
    res->extra = gs_malloc((nj ? nj : 1) * sizeof *res->extra);
    int rc = res->extra ? 0 : GS_ENOMEM;
    if (res->extra)
        memset(res->extra, 0, (nj ? nj : 1) * sizeof *res->extra);
    for (size_t i = 0; i < nj && rc == 0; i++) {
        rc = add_job(res, &jobs[i], base, i);
        gs_io_progress_job(rows->prog, i + 1, nj);
    }
    res->stats.jobs = (int64_t)gs_trace_count(res->trace);
    gs_free(jobs);
    return rc < 0 ? gs_errorf(err, GS_ENOMEM, "out of memory") : 0;
}

/* gs_sacct_parse counting rows through `prog` (may be NULL). */
static int parse_text(const char *text, size_t len, const char *name, void *res,
                      struct gs_io_progress *prog, struct gs_error *err)
{
    struct gs_sacct_result *out = res;
    memset(out, 0, sizeof *out);
    name = gs_io_name(name);
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        i++;
    if (i == len)
        return gs_errorf(err, GS_EINVAL, "%s: empty input (expected sacct --json or -P)", name);
    int json = text[i] == '{';
    char *copy = json ? NULL : gs_malloc(len + 1); /* the -P reader splits in place */
    out->trace = gs_trace_create();
    struct gs_sacct_rows rows = { NULL, 0, 0, &out->stats, name, 0, prog };
    int rc = (copy || json) && out->trace ? 0 : gs_errorf(err, GS_ENOMEM, "out of memory");
    gs_io_progress_parse(prog, name);
    if (rc == 0 && json) {
        rc = gs_sacct_read_json(text, len, &rows, err);
    } else if (rc == 0 && copy) {
        memcpy(copy, text, len);
        copy[len] = '\0';
        rc = gs_sacct_read_pipe(copy, len, &rows, err);
    }
    if (rc == 0)
        rc = convert(&rows, out, err);
    for (size_t k = 0; k < rows.n; k++)
        gs_free(rows.v[k].own);
    gs_free(rows.v);
    gs_free(copy);
    if (rc < 0)
        gs_sacct_result_fini(out);
    return rc;
}

int gs_sacct_parse(const char *text, size_t len, const char *name, struct gs_sacct_result *out,
                   struct gs_error *err)
{
    return parse_text(text, len, name, out, NULL, err);
}

int gs_sacct_load(const char *path, struct gs_sacct_result *out, struct gs_error *err)
{
    return gs_sacct_load_progress(path, NULL, out, err);
}

int gs_sacct_load_progress(const char *path, struct gs_io_progress *prog,
                           struct gs_sacct_result *out, struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    return gs_io_load(path, parse_text, out, prog, err);
}

void gs_sacct_result_fini(struct gs_sacct_result *r)
{
    if (!r)
        return;
    size_t n = r->trace ? gs_trace_count(r->trace) : 0;
    for (size_t i = 0; r->extra && i < n; i++)
        gs_free(r->extra[i].nodelist);
    gs_free(r->extra);
    gs_trace_destroy(r->trace);
    memset(r, 0, sizeof *r);
}

/* ---- writers ----------------------------------------------------------- */

/* A CSV cell: quoted when it holds a comma, quote or line break. */
static void cell(FILE *f, const char *s)
{
    if (!s || !*s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static const char *const state_names[GS_SACCT_STATE_COUNT] = {
    "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY",
    "OTHER",
};

int gs_sacct_write_csv(FILE *f, const struct gs_sacct_result *r, struct gs_error *err)
{
    fputs("id,submit,duration,gpus,team,user,name,queue,priority,time_limit,nodes,nodelist,"
          "state,runs,observed_wait,start,end\n",
          f);
    for (size_t i = 0; i < gs_trace_count(r->trace); i++) {
        const struct gs_job_spec *s = gs_trace_job(r->trace, i);
        const struct gs_sacct_job_extra *x = &r->extra[i];
        cell(f, s->id);
        fprintf(f, ",%" PRId64 ",%" PRId64 ",%d,", s->submit / 1000,
                gs_trace_duration(r->trace, i) / 1000, s->gpus);
        cell(f, s->team); /* empty = the reader's "default" */
        fputc(',', f);
        cell(f, s->user);
        fputc(',', f);
        cell(f, s->name);
        fputc(',', f);
        cell(f, s->queue);
        fprintf(f, ",%d,", s->priority);
        if (s->time_limit > 0)
            fprintf(f, "%" PRId64, s->time_limit / 1000);
        fprintf(f, ",%d,", x->nodes);
        cell(f, x->nodelist);
        fprintf(f, ",%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64 "\n", state_names[x->state],
                x->runs, x->first_start - s->submit / 1000, x->start, x->end);
    }
    if (fflush(f) != 0 || ferror(f))
        return gs_errorf(err, GS_EIO, "write failed");
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int gs_sacct_write_cluster_yaml(FILE *f, const struct gs_sacct_result *r, int gpus_per_node,
                                struct gs_error *err)
{
    size_t n = 0, cap = 0;
    char **names = NULL;
    int over = 0;
    for (size_t i = 0; i < gs_trace_count(r->trace); i++) {
        const struct gs_sacct_job_extra *x = &r->extra[i];
        int g = gs_trace_job(r->trace, i)->gpus, nn = x->nodes > 0 ? x->nodes : 1;
        over += (g + nn - 1) / nn > gpus_per_node;
        for (char *p = x->nodelist; p && *p;) {
            size_t len = strcspn(p, " ");
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                char **nv = gs_realloc(names, cap * sizeof *names);
                if (!nv) {
                    gs_free(names);
                    return gs_errorf(err, GS_ENOMEM, "out of memory");
                }
                names = nv;
            }
            names[n++] = p;
            p += len;
            if (*p)
                p++;
        }
    }
    /* names point into space-separated lists: compare up to the space */
    char **v = gs_malloc((n ? n : 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; v && i < n; i++) {
        size_t len = strcspn(names[i], " ");
        v[m] = gs_malloc(len + 1);
        if (!v[m])
            break;
        memcpy(v[m], names[i], len);
        v[m++][len] = '\0';
    }
    gs_free(names);
    if (m)
        qsort(v, m, sizeof *v, cmp_str);
    fprintf(f, "# Nodes named in the sacct node lists (gpusched import --format sacct).\n"
               "# sacct gives no node sizes: %d GPUs per node, one NVLink domain and 80 GB\n"
               "# GPUs are assumed; edit to match the hardware.\ncluster:\n  gpu_types:\n"
               "    gpu: { memory_gb: 80 }\n  nodes:\n", gpus_per_node);
    for (size_t i = 0; i < m; i++) {
        if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
            fprintf(f, "    - { name: \"%s\", gpus: %d, gpu_type: gpu }\n", v[i], gpus_per_node);
    }
    for (size_t i = 0; i < m; i++)
        gs_free(v[i]);
    gs_free(v);
    if (fflush(f) != 0 || ferror(f))
        return gs_errorf(err, GS_EIO, "write failed");
    return over;
}

int gs_sacct_node_names(const struct gs_sacct_result *r, char ***names, int *count,
                        struct gs_error *err)
{
    size_t n = 0, cap = 0;
    char **v = NULL;
    *names = NULL;
    *count = 0;
    for (size_t i = 0; i < gs_trace_count(r->trace); i++) {
        for (const char *p = r->extra[i].nodelist; p && *p;) {
            size_t len = strcspn(p, " ");
            char *s = len ? gs_malloc(len + 1) : NULL;
            if ((len && !s) || (s && gs_grow((void **)&v, &cap, n + 1, sizeof *v))) {
                gs_free(s);
                gs_sacct_node_names_free(v, (int)n);
                return gs_errorf(err, GS_ENOMEM, "out of memory");
            }
            if (s) {
                memcpy(s, p, len);
                s[len] = '\0';
                v[n++] = s;
            }
            p += len;
            p += *p == ' ';
        }
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_str);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && strcmp(v[i], v[m - 1]) == 0)
            gs_free(v[i]);
        else
            v[m++] = v[i];
    }
    *names = v;
    *count = (int)m;
    return 0;
}

void gs_sacct_node_names_free(char **names, int count)
{
    for (int i = 0; names && i < count; i++)
        gs_free(names[i]);
    gs_free(names);
}

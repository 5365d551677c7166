/* trace.c - in-memory job traces. */
#include "workload/trace.h"
#include "core/base/alloc.h"
#include "core/base/arena.h"

#include <stdlib.h>
#include <string.h>

struct gs_trace {
    struct gs_job_spec *jobs;
    gs_time *dur;
    size_t n, cap, dur_cap;
    struct gs_arena strings;
    int64_t epoch_ms;           /* UNIX ms of time 0, GS_TIME_NONE = unknown */
    const char *source;         /* file the jobs came from (in strings), or NULL */
    long *lines;                /* line of each job in it (0 = unknown), or NULL */
    size_t lines_cap;
};

struct gs_trace *gs_trace_create(void)
{
    struct gs_trace *tr = gs_calloc(1, sizeof *tr);
    if (tr) {
        gs_arena_init(&tr->strings);
        tr->epoch_ms = GS_TIME_NONE;
    }
    return tr;
}

void gs_trace_set_epoch(struct gs_trace *tr, int64_t unix_ms)
{
    tr->epoch_ms = unix_ms;
}

int64_t gs_trace_epoch(const struct gs_trace *tr)
{
    return tr->epoch_ms;
}

void gs_trace_destroy(struct gs_trace *tr)
{
    if (!tr)
        return;
    gs_free(tr->jobs);
    gs_free(tr->dur);
    gs_free(tr->lines);
    gs_arena_fini(&tr->strings);
    gs_free(tr);
}

/* Copy an optional string into the arena; *ok cleared on failure. */
static const char *copy(struct gs_trace *tr, const char *s, int *ok)
{
    if (!s)
        return NULL;
    char *p = gs_arena_strdup(&tr->strings, s);
    if (!p)
        *ok = 0;
    return p;
}

int gs_trace_add(struct gs_trace *tr, const struct gs_job_spec *spec, gs_time duration)
{
    if (gs_grow((void **)&tr->jobs, &tr->cap, tr->n + 1, sizeof *tr->jobs) ||
        gs_grow((void **)&tr->dur, &tr->dur_cap, tr->n + 1, sizeof *tr->dur))
        return GS_ENOMEM;
    struct gs_job_spec s = *spec;
    int ok = 1;
    s.id = copy(tr, spec->id, &ok);
    s.team = copy(tr, spec->team, &ok);
    s.user = copy(tr, spec->user, &ok);
    s.name = copy(tr, spec->name, &ok);
    s.queue = copy(tr, spec->queue, &ok);
    s.gpu_model = copy(tr, spec->gpu_model, &ok);
    s.mig = copy(tr, spec->mig, &ok);
    if (!ok)
        return GS_ENOMEM;
    tr->jobs[tr->n] = s;
    tr->dur[tr->n] = duration;
    return (int)tr->n++;
}

int gs_trace_set_source(struct gs_trace *tr, const char *name)
{
    int ok = 1;
    tr->source = copy(tr, name, &ok);
    return ok ? 0 : GS_ENOMEM;
}

int gs_trace_set_line(struct gs_trace *tr, size_t i, long line)
{
    size_t old = tr->lines_cap;
    if (gs_grow((void **)&tr->lines, &tr->lines_cap, i + 1, sizeof *tr->lines) < 0)
        return GS_ENOMEM;
    for (size_t k = old; k < tr->lines_cap; k++)
        tr->lines[k] = 0;
    tr->lines[i] = line;
    return 0;
}

int gs_trace_where(const struct gs_trace *tr, size_t i, const char **source, long *line)
{
    *source = tr->source;
    *line = tr->lines && i < tr->lines_cap ? tr->lines[i] : 0;
    return tr->source && *line > 0;
}

size_t gs_trace_count(const struct gs_trace *tr) { return tr->n; }
const struct gs_job_spec *gs_trace_job(const struct gs_trace *tr, size_t i) { return &tr->jobs[i]; }
struct gs_job_spec *gs_trace_job_mut(struct gs_trace *tr, size_t i) { return &tr->jobs[i]; }
gs_time gs_trace_duration(const struct gs_trace *tr, size_t i) { return tr->dur[i]; }
void gs_trace_set_duration(struct gs_trace *tr, size_t i, gs_time d) { tr->dur[i] = d; }

/* Merge sort of indexes by submit time: stable, so equal times keep trace
 * order (qsort is not stable). */
static void merge_sort(size_t *v, size_t *tmp, size_t n, const struct gs_job_spec *jobs)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(v, tmp, h, jobs);
    merge_sort(v + h, tmp, n - h, jobs);
    if (jobs[v[h - 1]].submit <= jobs[v[h]].submit)
        return;
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = jobs[v[j]].submit < jobs[v[i]].submit ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

size_t *gs_trace_order(const struct gs_trace *tr)
{
    if (tr->n == 0)
        return NULL;
    size_t *v = gs_malloc(tr->n * sizeof *v);
    size_t *tmp = gs_malloc(tr->n * sizeof *tmp);
    if (!v || !tmp) {
        gs_free(v);
        gs_free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < tr->n; i++)
        v[i] = i;
    merge_sort(v, tmp, tr->n, tr->jobs);
    gs_free(tmp);
    return v;
}


/* snapshot_running.c - running jobs and node states of a cluster snapshot
 * (snapshot_running.h). */
#include "io/snapshot_running.h"
#include "core/base/alloc.h"
#include "io/ioutil.h"
#include "io/job_fields.h"
#include "io/placement.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 1024        /* nodes of one running job */
#define MAX_SECONDS 9.0e12

static int read_start(const json_t *v, gs_time *out)
{
    int64_t ms;
    if (json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) <= MAX_SECONDS) {
        *out = gs_time_from_sec(json_number_value(v));
        return 0;
    }
    if (json_is_string(v) && gs_parse_iso8601(json_string_value(v), &ms) == 0 && ms >= 0) {
        *out = ms;
        return 0;
    }
    return GS_EINVAL;
}

/* A trace-column value as cell text. */
static const char *cell(const json_t *v, char *buf, size_t n)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v))
        snprintf(buf, n, "%" PRId64, (int64_t)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, n, "%.17g", json_real_value(v));
    else
        return NULL;
    return buf;
}

struct run_entry {
    struct gs_job_row row;
    char cells[GS_JCOL_COUNT][32]; /* numbers as text: string fields point here */
    gs_time start;
    const char *placement;
    int gpus_given;
};

static int read_entry_keys(const char *name, size_t idx, const json_t *o, struct run_entry *e,
                           struct gs_error *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (strcmp(key, "placement") == 0) {
            if (!json_is_string(v))
                return gs_errorf(err, GS_EINVAL, "%s: running[%zu].placement: expected a"
                                 " string \"node:gpu,...\"", name, idx);
            e->placement = json_string_value(v);
        } else if (strcmp(key, "start") == 0) {
            if (read_start(v, &e->start) < 0)
                return gs_errorf(err, GS_EINVAL, "%s: running[%zu].start: expected seconds"
                                 " >= 0 or an ISO-8601 string", name, idx);
        } else {
            int col = gs_jcol_find(key, strlen(key)), rc;
            if (col < 0)
                continue; /* unknown keys ignored, as in a trace */
            /* one buffer per column: a string field keeps pointing at it */
            const char *t = cell(v, e->cells[col], sizeof e->cells[col]);
            if (!t)
                return gs_errorf(err, GS_EINVAL, "%s: running[%zu].%s: expected a number or a"
                                 " string", name, idx, key);
            if ((rc = gs_job_row_set(&e->row, col, t, err)) < 0)
                return gs_error_prefix(err, rc, "%s: running[%zu].", name, idx);
            e->gpus_given |= col == GS_JCOL_GPUS;
        }
    }
    return 0;
}

static int read_entry(const char *name, struct gs_cluster *cl, size_t idx, const json_t *o,
                      struct gs_snapshot *out, struct gs_error *err)
{
    if (!json_is_object(o))
        return gs_errorf(err, GS_EINVAL, "%s: running[%zu]: expected an object", name, idx);
    struct run_entry e = { .start = GS_TIME_NONE };
    gs_job_row_init(&e.row);
    int rc = read_entry_keys(name, idx, o, &e, err);
    if (rc < 0)
        return rc;
    if (!e.row.spec.id || !e.placement || e.start == GS_TIME_NONE)
        return gs_errorf(err, GS_EINVAL, "%s: running[%zu]: 'id', 'placement' and 'start' are"
                         " required", name, idx);
    struct gs_alloc_part parts[MAX_PARTS];
    int np = gs_placement_parse(cl, e.placement, parts, MAX_PARTS, err), gpus = 0;
    if (np < 0)
        return gs_error_prefix(err, GS_EINVAL, "%s: running[%zu].placement: ", name, idx);
    for (int i = 0; i < np; i++)
        gpus += __builtin_popcountll(parts[i].mask);
    if (np == 0)
        return gs_errorf(err, GS_EINVAL, "%s: running[%zu].placement: no GPUs", name, idx);
    if (e.gpus_given && e.row.spec.gpus != gpus)
        return gs_errorf(err, GS_EINVAL, "%s: running[%zu]: gpus %d but the placement has %d",
                         name, idx, e.row.spec.gpus, gpus);
    e.row.spec.gpus = gpus;
    if (e.row.submit_kind == GS_SUBMIT_NONE || e.row.spec.submit > e.start)
        e.row.spec.submit = e.start;
    struct gs_alloc *a = &out->run_alloc[idx];
    memset(a, 0, sizeof *a);
    if (gs_trace_add(out->running, &e.row.spec, GS_TIME_NONE) < 0 ||
        !(a->parts = gs_malloc((size_t)np * sizeof *a->parts)))
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", name);
    memcpy(a->parts, parts, (size_t)np * sizeof *parts);
    a->nparts = a->cap = np;
    a->milli = GS_MILLI_GPU;
    a->mem_mib = gs_cluster_gpu_type_mem(cl, gs_cluster_node_gpu_type(cl, parts[0].node));
    out->run_start[idx] = e.start;
    if ((rc = gs_cluster_alloc(cl, a, err)) < 0)
        return gs_error_prefix(err, rc, "%s: running[%zu] (%s): ", name, idx,
                               e.row.spec.id);
    return 0;
}

int gs_snapshot_read_running(const char *name, struct gs_cluster *cl, const json_t *arr,
                             struct gs_snapshot *out, struct gs_error *err)
{
    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return gs_errorf(err, GS_EINVAL, "%s: running: expected a list of jobs", name);
    size_t n = json_array_size(arr);
    out->running = gs_trace_create();
    out->run_start = gs_malloc((n ? n : 1) * sizeof *out->run_start);
    out->run_alloc = gs_malloc((n ? n : 1) * sizeof *out->run_alloc);
    if (!out->running || !out->run_start || !out->run_alloc)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", name);
    memset(out->run_alloc, 0, (n ? n : 1) * sizeof *out->run_alloc);
    for (size_t i = 0; i < n; i++) {
        int rc = read_entry(name, cl, i, json_array_get(arr, i), out, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Take every idle GPU of `node` (drained or down). */
static int hold_node(const char *name, struct gs_cluster *cl, int node, struct gs_error *err)
{
    uint64_t idle = gs_cluster_idle_mask(cl, node);
    if (!idle)
        return 0;
    struct gs_alloc_part part = { node, idle };
    struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &part, .milli = GS_MILLI_GPU,
                          .mem_mib = gs_cluster_gpu_type_mem(
                              cl, gs_cluster_node_gpu_type(cl, node)) };
    int rc = gs_cluster_alloc(cl, &a, err);
    return rc < 0 ? gs_error_prefix(err, rc, "%s: nodes.%s: ", name,
                                    gs_cluster_node_name(cl, node))
                  : 0;
}

int gs_snapshot_read_nodes(const char *name, struct gs_cluster *cl, const json_t *nodes,
                           struct gs_snapshot *out, struct gs_error *err)
{
    static const char *const states[] = { "up", "drain", "down" };
    if (!nodes)
        return 0;
    if (!json_is_object(nodes))
        return gs_errorf(err, GS_EINVAL, "%s: nodes: expected an object of node: state", name);
    int nn = gs_cluster_node_count(cl);
    out->node_state = gs_malloc(nn > 0 ? (size_t)nn : 1);
    if (!out->node_state)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", name);
    memset(out->node_state, GS_NODE_UP, nn > 0 ? (size_t)nn : 1);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)nodes, key, v) {
        int node = gs_cluster_find_node(cl, key), st = -1;
        if (node < 0)
            return gs_errorf(err, GS_EINVAL, "%s: nodes.%.60s: no such node in the cluster",
                             name, key);
        for (int i = 0; i < 3 && json_is_string(v); i++)
            st = strcmp(json_string_value(v), states[i]) == 0 ? i : st;
        if (st < 0)
            return gs_errorf(err, GS_EINVAL, "%s: nodes.%.60s: expected \"up\", \"drain\" or"
                             " \"down\"", name, key);
        out->node_state[node] = (uint8_t)st;
    }
    for (int n = 0; n < nn; n++) {
        int rc = out->node_state[n] != GS_NODE_UP ? hold_node(name, cl, n, err) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

void gs_snapshot_jobs_view(const struct gs_snapshot *s, struct gs_snapshot_jobs *out)
{
    out->jobs = s->running;
    out->start = s->run_start;
    out->allocs = s->run_alloc;
    out->node_state = s->node_state;
}

void gs_snapshot_running_fini(struct gs_snapshot *s)
{
    size_t n = s->running ? gs_trace_count(s->running) : 0;
    for (size_t i = 0; s->run_alloc && i < n; i++)
        gs_free(s->run_alloc[i].parts);
    gs_trace_destroy(s->running);
    gs_free(s->run_start);
    gs_free(s->run_alloc);
    gs_free(s->node_state);
    s->running = NULL;
    s->run_start = NULL;
    s->run_alloc = NULL;
    s->node_state = NULL;
}

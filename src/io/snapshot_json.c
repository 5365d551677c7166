/* snapshot_json.c - cluster snapshot for `gpusched frag` (JSON, jansson).
 * Busy GPUs are allocated on the caller's cluster; queue entries use the
 * trace columns through io/job_fields.c, exactly as the CSV reader does. */
#include "io/snapshot_json.h"
#include "core/base/alloc.h"
#include "io/ioutil.h"
#include "io/job_fields.h"
#include "io/snapshot_running.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_SECONDS 9.0e12   /* as for trace times: 9e15 ms fits gs_time */

struct reader {
    const char *name;
    struct gs_cluster *cl;
    gs_time time;
};

/* `time`: seconds (number) or an ISO-8601 string (UNIX time). */
static int read_time(struct reader *r, const json_t *v, struct gs_error *err)
{
    int64_t ms;
    if (json_is_number(v)) {
        double s = json_number_value(v);
        if (!(s >= 0 && s <= MAX_SECONDS))
            return gs_errorf(err, GS_EINVAL, "%s: time: %g is not a time in seconds >= 0",
                             r->name, s);
        r->time = gs_time_from_sec(s);
        return 0;
    }
    if (json_is_string(v) && gs_parse_iso8601(json_string_value(v), &ms) == 0 && ms >= 0) {
        r->time = ms;
        return 0;
    }
    return gs_errorf(err, GS_EINVAL, "%s: time: expected seconds >= 0 or an ISO-8601 string",
                     r->name);
}

/* A GPU index in 0..GS_MAX_NODE_GPUS, or -1 for anything else. */
static long gpu_index(const json_t *v)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > GS_MAX_NODE_GPUS)
        return -1;
    return (long)json_integer_value(v);
}

/* One busy entry: 3 or {"gpu": 3, "share": 0.5, "mem_gb": 40}.  Sets the
 * GPU index (-1 = not a valid index), share (milli) and memory (MiB, -1 =
 * in proportion to the share). */
static int read_busy_entry(struct reader *r, const char *path, const json_t *e, long *gpu,
                           int *milli, int64_t *mem, struct gs_error *err)
{
    *milli = GS_MILLI_GPU;
    *mem = -1;
    *gpu = gpu_index(e);
    if (json_is_integer(e))
        return 0;
    if (!json_is_object(e))
        return gs_errorf(err, GS_EINVAL, "%s: %s: expected a GPU index or an object", r->name,
                         path);
    const char *key;
    json_t *v;
    json_t *g = json_object_get(e, "gpu");
    if (!g)
        return gs_errorf(err, GS_EINVAL, "%s: %s: missing 'gpu'", r->name, path);
    *gpu = gpu_index(g);
    json_object_foreach((json_t *)e, key, v) {
        double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (strcmp(key, "gpu") == 0)
            continue;
        if (strcmp(key, "share") == 0) {
            if (!(x > 0 && x <= 1))
                return gs_errorf(err, GS_EINVAL, "%s: %s.share: expected a number in (0, 1]",
                                 r->name, path);
            *milli = (int)lround(x * GS_MILLI_GPU);
            *milli = *milli < 1 ? 1 : *milli;
        } else if (strcmp(key, "mem_gb") == 0) {
            if (!(x >= 0 && x <= 1e9))
                return gs_errorf(err, GS_EINVAL, "%s: %s.mem_gb: expected a size in GB >= 0",
                                 r->name, path);
            *mem = llround(x * 1024);
        } else {
            return gs_errorf(err, GS_EINVAL, "%s: %s: unknown key '%.40s'", r->name, path, key);
        }
    }
    return 0;
}

static int read_busy_node(struct reader *r, const char *node_name, const json_t *list,
                          struct gs_error *err)
{
    int node = gs_cluster_find_node(r->cl, node_name);
    if (node < 0)
        return gs_errorf(err, GS_EINVAL, "%s: busy.%.60s: no such node in the cluster",
                         r->name, node_name);
    if (!json_is_array(list))
        return gs_errorf(err, GS_EINVAL, "%s: busy.%.60s: expected a list of GPUs", r->name,
                         node_name);
    int ngpus = gs_cluster_node_gpus(r->cl, node);
    int64_t cap = ngpus ? gs_cluster_gpu_type_mem(r->cl, gs_cluster_node_gpu_type(r->cl, node))
                        : 0;
    uint64_t seen = 0;
    for (size_t i = 0; i < json_array_size(list); i++) {
        char path[96];
        snprintf(path, sizeof path, "busy.%.60s[%zu]", node_name, i);
        long gpu = -1;
        int milli, rc;
        int64_t mem;
        if ((rc = read_busy_entry(r, path, json_array_get(list, i), &gpu, &milli, &mem, err)) < 0)
            return rc;
        if (gpu < 0 || gpu >= ngpus)
            return gs_errorf(err, GS_EINVAL, "%s: %s: no GPU with that index (the node has %d)",
                             r->name, path, ngpus);
        if (seen & (1ULL << gpu))
            return gs_errorf(err, GS_EINVAL, "%s: %s: GPU %ld listed twice", r->name, path,
                             gpu);
        seen |= 1ULL << gpu;
        struct gs_alloc_part part = { node, 1ULL << gpu };
        struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &part, .milli = milli,
                              .mem_mib = mem >= 0 ? mem : cap * milli / GS_MILLI_GPU };
        if ((rc = gs_cluster_alloc(r->cl, &a, err)) < 0)
            return gs_error_prefix(err, rc, "%s: %s: ", r->name, path);
    }
    return 0;
}

static int read_busy(struct reader *r, const json_t *busy, struct gs_error *err)
{
    if (!json_is_object(busy))
        return gs_errorf(err, GS_EINVAL, "%s: busy: expected an object of node: [GPUs]",
                         r->name);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)busy, key, v) {
        int rc = read_busy_node(r, key, v, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* A queue value as the text a CSV cell would hold ("" for null). */
static int value_text(const json_t *v, char *buf, size_t size, const char **out)
{
    if (json_is_string(v))
        *out = json_string_value(v);
    else if (json_is_integer(v))
        snprintf(buf, size, "%" PRId64, (int64_t)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, size, "%.17g", json_real_value(v));
    else if (json_is_null(v))
        buf[0] = '\0';
    else
        return GS_EINVAL;
    if (!json_is_string(v))
        *out = buf;
    return 0;
}

static int read_job(struct reader *r, size_t idx, const json_t *o, struct gs_trace *q,
                    struct gs_error *err)
{
    if (!json_is_object(o))
        return gs_errorf(err, GS_EINVAL, "%s: queue[%zu]: expected an object", r->name, idx);
    struct gs_job_row row;
    gs_job_row_init(&row);
    const char *key, *text = "";
    json_t *v;
    /* One buffer per column: string fields of the row borrow their text until
     * gs_trace_add copies it, so a number written for "id" must not share a
     * buffer with the next number ("gpus") and turn into it. */
    char buf[GS_JCOL_COUNT][64];
    json_object_foreach((json_t *)o, key, v) {
        int col = gs_jcol_find(key, strlen(key)), rc;
        if (col < 0)
            continue;   /* unknown columns are ignored, as in a CSV trace */
        if (value_text(v, buf[col], sizeof buf[col], &text) < 0)
            return gs_errorf(err, GS_EINVAL, "%s: queue[%zu].%s: expected a number or a string",
                             r->name, idx, key);
        if ((rc = gs_job_row_set(&row, col, text, err)) < 0)
            return gs_error_prefix(err, rc, "%s: queue[%zu].", r->name, idx);
    }
    if (!row.spec.id)
        return gs_errorf(err, GS_EINVAL, "%s: queue[%zu]: missing 'id'", r->name, idx);
    if (row.submit_kind == GS_SUBMIT_NONE)
        row.spec.submit = r->time;
    else if (row.spec.submit < 0)
        return gs_errorf(err, GS_EINVAL, "%s: queue[%zu].submit: before 1970", r->name, idx);
    if (gs_trace_add(q, &row.spec, row.duration) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", r->name);
    return 0;
}

static int read_queue(struct reader *r, const json_t *queue, struct gs_trace *q,
                      struct gs_error *err)
{
    if (!json_is_array(queue))
        return gs_errorf(err, GS_EINVAL, "%s: queue: expected a list of jobs", r->name);
    for (size_t i = 0; i < json_array_size(queue); i++) {
        int rc = read_job(r, i, json_array_get(queue, i), q, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Top level: time first (queue entries default to it), then busy, queue. */
static int read_root(struct reader *r, json_t *root, struct gs_trace *q, struct gs_snapshot *out,
                     struct gs_error *err)
{
    if (!json_is_object(root))
        return gs_errorf(err, GS_EINVAL, "%s: expected a JSON object at the top level",
                         r->name);
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "time") != 0 && strcmp(key, "busy") != 0 && strcmp(key, "queue") != 0 &&
            strcmp(key, "running") != 0 && strcmp(key, "nodes") != 0)
            return gs_errorf(err, GS_EINVAL, "%s: unknown key '%.40s'", r->name, key);
    }
    int rc = 0;
    json_t *t = json_object_get(root, "time"), *busy = json_object_get(root, "busy"),
           *queue = json_object_get(root, "queue");
    if (t && (rc = read_time(r, t, err)) < 0)
        return rc;
    if ((rc = gs_snapshot_read_running(r->name, r->cl, json_object_get(root, "running"), out,
                                       err)) < 0)
        return rc;
    if (busy && (rc = read_busy(r, busy, err)) < 0)
        return rc;
    if ((rc = gs_snapshot_read_nodes(r->name, r->cl, json_object_get(root, "nodes"), out,
                                     err)) < 0)
        return rc;
    if (queue && (rc = read_queue(r, queue, q, err)) < 0)
        return rc;
    return 0;
}

int gs_snapshot_parse_json(const char *text, size_t len, const char *name,
                           struct gs_cluster *cl, struct gs_snapshot *out,
                           struct gs_error *err)
{
    struct reader r = { gs_io_name(name), cl, 0 };
    json_error_t jerr;
    memset(out, 0, sizeof *out);
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return gs_errorf(err, GS_EINVAL, "%s:%d: json: %s", r.name, jerr.line, jerr.text);
    struct gs_trace *q = gs_trace_create();
    int rc = q ? read_root(&r, root, q, out, err)
               : gs_errorf(err, GS_ENOMEM, "%s: out of memory", r.name);
    json_decref(root);
    if (rc < 0) {
        gs_trace_destroy(q);
        gs_snapshot_fini(out);
        return rc;
    }
    out->time = r.time;
    out->queue = q;
    return 0;
}

int gs_snapshot_load_json(const char *path, struct gs_cluster *cl, struct gs_snapshot *out,
                          struct gs_error *err)
{
    char *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = gs_read_file(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    rc = gs_snapshot_parse_json(buf, len, path, cl, out, err);
    gs_free(buf);
    return rc;
}

void gs_snapshot_fini(struct gs_snapshot *s)
{
    if (!s)
        return;
    gs_trace_destroy(s->queue);
    s->queue = NULL;
    gs_snapshot_running_fini(s);
}

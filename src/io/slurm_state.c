/* slurm_state.c - squeue/sinfo JSON -> snapshot document (slurm_state.h). */
#include "io/slurm_state.h"
#include "io/slurm_util.h"
#include "io/placement.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NO_VALUE 4294967294LL   /* Slurm's NO_VAL / INFINITE as 32-bit ints */
#define GPU_MEM_MIB ((int64_t)80 * 1024) /* assumed: Slurm does not know GPU memory */

/* An integer field: a number, or 22.05+'s {"set": true, "number": N}
 * ({"infinite": true} or Slurm's NO_VAL = none).  Returns 1 and sets *v,
 * or 0 when absent or unset. */
static int int_field(const json_t *o, const char *key, int64_t *v)
{
    const json_t *x = json_object_get(o, key);
    if (json_is_object(x)) {
        if (json_is_true(json_object_get(x, "infinite")) ||
            !json_is_true(json_object_get(x, "set")))
            return 0;
        x = json_object_get(x, "number");
    }
    if (!json_is_integer(x) || json_integer_value(x) >= NO_VALUE)
        return 0;
    *v = (int64_t)json_integer_value(x);
    return 1;
}

static const char *str_field(const json_t *o, const char *key)
{
    const json_t *x = json_object_get(o, key);
    if (json_is_array(x)) /* 23.02+: job_state is a list of flags */
        x = json_array_get(x, 0);
    return json_is_string(x) ? json_string_value(x) : "";
}

static int has_flag(const json_t *flags, const char *flag)
{
    for (size_t i = 0; json_is_array(flags) && i < json_array_size(flags); i++)
        if (json_is_string(json_array_get(flags, i)) &&
            strcmp(json_string_value(json_array_get(flags, i)), flag) == 0)
            return 1;
    return 0;
}

/* "up", "drain" or "down" for one sinfo node. */
static const char *node_state(const json_t *n)
{
    const char *s = str_field(n, "state");
    const json_t *flags = json_object_get(n, "state_flags");
    if (!strncmp(s, "down", 4) || !strncmp(s, "fail", 4) || !strncmp(s, "unknown", 7) ||
        !strncmp(s, "future", 6) || has_flag(flags, "NOT_RESPONDING"))
        return "down";
    if (!strncmp(s, "drain", 5) || has_flag(flags, "DRAIN") || has_flag(flags, "FAIL") ||
        has_flag(flags, "MAINTENANCE"))
        return "drain";
    return "up";
}

/* GPU type of a typed GRES "gpu:a100:8" ("gpu" when untyped or per-GPU
 * types g0, g1, ...). */
static void gres_type(const char *gres, char *out, size_t n)
{
    snprintf(out, n, "gpu");
    const char *p = strncmp(gres, "gpu:", 4) == 0 ? gres + 4 : NULL;
    const char *colon = p ? strchr(p, ':') : NULL;
    if (!colon || (p[0] == 'g' && p[1] >= '0' && p[1] <= '9'))
        return;
    size_t len = (size_t)(colon - p);
    if (len > 0 && len < n)
        snprintf(out, n, "%.*s", (int)len, p);
}

static int read_nodes(const json_t *root, struct gs_slurm_state *out, json_t *states,
                      struct gs_error *err)
{
    const json_t *arr = json_object_get(root, "nodes");
    if (!json_is_array(arr))
        return gs_errorf(err, GS_EINVAL, "sinfo: expected a 'nodes' list (sinfo --json)");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *n = json_array_get(arr, i);
        const char *name = str_field(n, "name"), *gres = str_field(n, "gres");
        if (!*name || strlen(name) > GS_NAME_MAX)
            return gs_errorf(err, GS_EINVAL, "sinfo: nodes[%zu]: missing or long 'name'", i);
        if (json_object_get(states, name))
            continue; /* listed once per partition by some versions */
        int64_t gpus = gs_slurm_gres_gpus(gres);
        if (gpus < 0 || gpus > GS_MAX_NODE_GPUS)
            return gs_errorf(err, GS_EINVAL, "sinfo: nodes[%zu].gres: '%.60s' is not a GRES"
                             " list with at most %d GPUs", i, gres, GS_MAX_NODE_GPUS);
        char type[GS_NAME_MAX + 1];
        gres_type(gres, type, sizeof type);
        const char *st = node_state(n);
        json_array_append_new(out->nodes,
                              json_pack("{s:s, s:I, s:s, s:s, s:s}", "name", name, "gpus",
                                        (json_int_t)gpus, "gpu_type", type, "state", st,
                                        "reason", str_field(n, "reason")));
        json_object_set_new(states, name, json_string(st));
    }
    return 0;
}

struct place_ctx {
    const json_t *detail;
    size_t i;
    char text[8192];
    int gpus;
    int bad;
};

static int place_node(const char *name, void *arg)
{
    struct place_ctx *c = arg;
    const json_t *d = json_array_get(c->detail, c->i++);
    uint64_t mask;
    if (!json_is_string(d))
        return 0; /* no GRES detail for this node: no GPU there */
    if (gs_slurm_gres_idx(json_string_value(d), &mask) < 0) {
        c->bad = 1;
        return GS_EINVAL;
    }
    if (!mask)
        return 0;
    size_t len = strlen(c->text);
    struct gs_placement_entry e = { name, strlen(name), mask, 0 };
    if (len && len + 1 < sizeof c->text) /* the NODES style: nodes apart by spaces */
        c->text[len++] = ' ';
    gs_placement_format_entries(c->text + len, sizeof c->text - len, &e, 1, GS_PLACEMENT_NODES);
    c->gpus += __builtin_popcountll(mask);
    return 0;
}

/* Team, user, name, priority, time limit and partition common to running
 * and pending entries. */
static void common_keys(json_t *e, const json_t *j)
{
    int64_t v;
    const char *acct = str_field(j, "account");
    json_object_set_new(e, "team", json_string(*acct ? acct : "default"));
    if (*str_field(j, "user_name"))
        json_object_set_new(e, "user", json_string(str_field(j, "user_name")));
    if (*str_field(j, "name"))
        json_object_set_new(e, "name", json_string(str_field(j, "name")));
    if (*str_field(j, "partition"))
        json_object_set_new(e, "queue", json_string(str_field(j, "partition")));
    if (int_field(j, "priority", &v) && v <= 1000000000)
        json_object_set_new(e, "priority", json_integer(v));
    if (int_field(j, "time_limit", &v) && v > 0)
        json_object_set_new(e, "time_limit", json_integer(v * 60));
    if (int_field(j, "submit_time", &v) && v > 0)
        json_object_set_new(e, "submit", json_integer(v));
}

static int read_running(const json_t *j, size_t i, const char *id, json_t *running,
                        struct gs_error *err)
{
    struct place_ctx c = { .detail = json_object_get(j, "gres_detail") };
    int64_t start;
    c.text[0] = '\0';
    if (!json_is_array(c.detail) || json_array_size(c.detail) == 0)
        return 0; /* holds no GPU */
    int rc = gs_slurm_hostlist_expand(str_field(j, "nodes"), place_node, &c);
    if (rc < 0)
        return gs_errorf(err, GS_EINVAL, "squeue: jobs[%zu] (%s).%s: '%.60s' is not %s", i, id,
                         c.bad ? "gres_detail" : "nodes",
                         c.bad ? json_string_value(json_array_get(c.detail, c.i - 1))
                               : str_field(j, "nodes"),
                         c.bad ? "a GRES detail with IDX" : "a node list");
    if (c.gpus == 0)
        return 0;
    if (!int_field(j, "start_time", &start))
        return gs_errorf(err, GS_EINVAL, "squeue: jobs[%zu] (%s): running without start_time",
                         i, id);
    json_t *e = json_pack("{s:s, s:s, s:I}", "id", id, "placement", c.text, "start",
                          (json_int_t)start);
    common_keys(e, j);
    json_object_del(e, "submit"); /* a requeued job's submit can follow its start */
    json_array_append_new(running, e);
    return 1;
}

/* GPUs a pending job asks for. */
static int64_t pending_gpus(const json_t *j)
{
    int64_t nodes = 1, tasks = 1, g;
    int_field(j, "node_count", &nodes);
    int_field(j, "tasks", &tasks);
    if ((g = gs_slurm_gres_gpus(str_field(j, "tres_per_job"))) > 0)
        return g;
    if ((g = gs_slurm_gres_gpus(str_field(j, "tres_per_node"))) > 0)
        return g * (nodes > 0 ? nodes : 1);
    if ((g = gs_slurm_gres_gpus(str_field(j, "tres_per_task"))) > 0)
        return g * (tasks > 0 ? tasks : 1);
    return g < 0 ? g : 0;
}

static int read_job(const json_t *j, size_t i, json_t *running, json_t *queue,
                    struct gs_slurm_state *out, struct gs_error *err)
{
    int64_t jid;
    char id[64];
    if (!int_field(j, "job_id", &jid))
        return gs_errorf(err, GS_EINVAL, "squeue: jobs[%zu]: missing 'job_id'", i);
    int64_t task;
    if (int_field(j, "array_task_id", &task) && int_field(j, "array_job_id", &jid))
        snprintf(id, sizeof id, "%" PRId64 "_%" PRId64, jid, task);
    else
        snprintf(id, sizeof id, "%" PRId64, jid);
    const char *st = str_field(j, "job_state");
    if (!strcmp(st, "RUNNING") || !strcmp(st, "COMPLETING") || !strcmp(st, "SUSPENDED")) {
        int rc = read_running(j, i, id, running, err);
        out->jobs_running += rc > 0;
        return rc < 0 ? rc : 0;
    }
    if (strcmp(st, "PENDING") != 0) {
        out->jobs_other++;
        return 0;
    }
    int64_t gpus = pending_gpus(j);
    if (gpus < 0)
        return gs_errorf(err, GS_EINVAL, "squeue: jobs[%zu] (%s): bad GPU request in"
                         " tres_per_node/tres_per_job", i, id);
    json_t *e = json_pack("{s:s, s:I, s:s}", "id", id, "gpus", (json_int_t)gpus,
                          "slurm_reason", str_field(j, "state_reason"));
    common_keys(e, j);
    json_array_append_new(queue, e);
    out->jobs_pending++;
    return 0;
}

static int read_jobs(const json_t *root, json_t *running, json_t *queue,
                     struct gs_slurm_state *out, struct gs_error *err)
{
    const json_t *arr = json_object_get(root, "jobs");
    if (!json_is_array(arr))
        return gs_errorf(err, GS_EINVAL, "squeue: expected a 'jobs' list (squeue --json)");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        int rc = read_job(json_array_get(arr, i), i, running, queue, out, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The command's JSON, or NULL with `err` set: not JSON, not an object, or
 * a non-empty "errors" list (squeue and sinfo exit 0 with
 * {"errors": [{"description": "Failed while looking for jobs", ...}]} when
 * the controller does not answer). */
static json_t *load(const char *what, const char *text, size_t len, struct gs_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        gs_errorf(err, GS_EINVAL, "%s: json line %d: %s", what, jerr.line, jerr.text);
        return NULL;
    }
    const json_t *errs = json_object_get(root, "errors");
    if (!json_is_object(root)) {
        gs_errorf(err, GS_EINVAL, "%s: expected a JSON object", what);
    } else if (json_is_array(errs) && json_array_size(errs) > 0) {
        const json_t *e = json_array_get(errs, 0);
        gs_errorf(err, GS_EIO, "%s: %s (%s): is Slurm reachable (SLURM_CONF)?", what,
                  *str_field(e, "description") ? str_field(e, "description") : "error",
                  *str_field(e, "error") ? str_field(e, "error") : "no detail");
    } else {
        return root;
    }
    json_decref(root);
    return NULL;
}

int gs_slurm_check(const char *what, const char *text, size_t len, struct gs_error *err)
{
    json_t *root = load(what, text, len, err);
    json_decref(root);
    return root ? 0 : err->code;
}

int gs_slurm_state_parse(const char *squeue, size_t squeue_len, const char *sinfo,
                         size_t sinfo_len, int64_t now, struct gs_slurm_state *out,
                         struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *sq = load("squeue", squeue, squeue_len, err), *si = NULL;
    if (!sq || !(si = load("sinfo", sinfo, sinfo_len, err))) {
        json_decref(sq);
        return err ? err->code : GS_EINVAL;
    }
    json_t *states = json_object(), *running = json_array(), *queue = json_array();
    out->nodes = json_array();
    int rc = read_nodes(si, out, states, err);
    if (rc == 0)
        rc = read_jobs(sq, running, queue, out, err);
    /* only the nodes that are not up go into the snapshot */
    const char *key;
    json_t *v, *tmp;
    json_object_foreach_safe(states, tmp, key, v) {
        if (strcmp(json_string_value(v), "up") == 0)
            json_object_del(states, key);
    }
    out->snapshot = json_pack("{s:I, s:o, s:o, s:o}", "time", (json_int_t)now, "nodes", states,
                              "running", running, "queue", queue);
    json_decref(sq);
    json_decref(si);
    if (rc == 0 && (!out->snapshot || !out->nodes))
        rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    if (rc < 0)
        gs_slurm_state_fini(out);
    return rc;
}

struct gs_cluster *gs_slurm_state_cluster(const struct gs_slurm_state *st, int k,
                                          struct gs_error *err)
{
    struct gs_cluster *cl = gs_cluster_create();
    if (!cl) {
        gs_errorf(err, GS_ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(st->nodes); i++) {
        const json_t *n = json_array_get(st->nodes, i);
        const char *type = json_string_value(json_object_get(n, "gpu_type"));
        int t = gs_cluster_find_gpu_type(cl, type);
        if (t < 0)
            t = gs_cluster_add_gpu_type(cl, type, GPU_MEM_MIB, err);
        struct gs_node_spec spec = { .name = json_string_value(json_object_get(n, "name")),
                                     .gpus = (int)json_integer_value(json_object_get(n, "gpus")),
                                     .gpu_type = t };
        if (t < 0 || gs_cluster_add_node(cl, &spec, err) < 0) {
            gs_cluster_destroy(cl);
            return NULL;
        }
    }
    if (gs_cluster_seal(cl, k, err) < 0) {
        gs_cluster_destroy(cl);
        return NULL;
    }
    return cl;
}

void gs_slurm_state_write_cluster(FILE *f, const struct gs_slurm_state *st)
{
    fputs("# Read from Slurm (sinfo --json) by gpusched; GPU memory is assumed (80 GB),\n"
          "# one NVLink domain per node: edit to match the hardware.\ncluster:\n"
          "  gpu_types:\n",
          f);
    json_t *seen = json_object();
    for (size_t i = 0; i < json_array_size(st->nodes); i++) {
        const char *t = json_string_value(json_object_get(json_array_get(st->nodes, i),
                                                          "gpu_type"));
        if (!json_object_get(seen, t))
            fprintf(f, "    \"%s\": { memory_gb: %d }\n", t, (int)(GPU_MEM_MIB / 1024));
        json_object_set_new(seen, t, json_true());
    }
    json_decref(seen);
    fputs("  nodes:\n", f);
    for (size_t i = 0; i < json_array_size(st->nodes); i++) {
        const json_t *n = json_array_get(st->nodes, i);
        fprintf(f, "    - { name: \"%s\", gpus: %d, gpu_type: \"%s\" }\n",
                json_string_value(json_object_get(n, "name")),
                (int)json_integer_value(json_object_get(n, "gpus")),
                json_string_value(json_object_get(n, "gpu_type")));
    }
}

void gs_slurm_state_fini(struct gs_slurm_state *st)
{
    if (!st)
        return;
    json_decref(st->snapshot);
    json_decref(st->nodes);
    st->snapshot = st->nodes = NULL;
}

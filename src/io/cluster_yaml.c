/* cluster_yaml.c - the cluster file (YAML, DESIGN.md section 3; every key
 * is listed in docs/formats.md). */
#include "io/cluster_yaml.h"
#include "core/base/alloc.h"
#include "io/cluster_mig_yaml.h"
#include "io/ioutil.h"
#include "io/yaml_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most nodes one file may describe (after range expansion): far beyond any
 * real cluster, small enough that a fuzzed "n[1-999999999]" stays cheap. */
#define MAX_NODES 65536
#define DEFAULT_TYPE "gpu"
#define DEFAULT_TYPE_GB 80
#define PATH_MAX_LEN 96

struct reader {
    struct gs_yaml y;
    struct gs_cluster *cl;
    int nnodes;         /* expanded so far */
    struct gs_mig_yaml mig; /* node entries with mig:, applied after sealing */
};

/* One node entry being read; `spec.name` is filled per expanded name. */
struct entry {
    struct gs_node_spec spec;
    const char *pattern;
    const yaml_node_t *name_node;
    const yaml_node_t *mig_node;  /* mig: value, NULL = none */
    int idx;
};

static int unknown_key(struct reader *r, const yaml_node_t *k, const char *path,
                       struct gs_error *err)
{
    return gs_yaml_error(&r->y, k, GS_EINVAL, err, "%s%sunknown key '%.40s'", path,
                         *path ? ": " : "", gs_yaml_text(k));
}

static int want_mapping(struct reader *r, const yaml_node_t *n, const char *path,
                        struct gs_error *err)
{
    if (n->type != YAML_MAPPING_NODE)
        return gs_yaml_error(&r->y, n, GS_EINVAL, err, "%s: expected a mapping, got %s",
                             path, gs_yaml_kind(n));
    return gs_yaml_check_keys(&r->y, n, path, err);
}

/* gpu_types: { NAME: { memory_gb: N } } */
static int read_gpu_type(struct reader *r, const yaml_node_t *k, const yaml_node_t *v,
                         struct gs_error *err)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "gpu_types.%.40s", gs_yaml_text(k));
    int rc = want_mapping(r, v, path, err);
    if (rc < 0)
        return rc;
    double gb = -1;
    int model = gs_mig_model_find(gs_yaml_text(k)); /* inferred from the name, -1 = none */
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        const yaml_node_t *pk = gs_yaml_node(&r->y, p->key), *pv = gs_yaml_node(&r->y, p->value);
        char kpath[PATH_MAX_LEN];
        if (strcmp(gs_yaml_text(pk), "mig") == 0) {
            snprintf(kpath, sizeof kpath, "%.60s.mig", path);
            if ((rc = gs_mig_yaml_model(&r->y, pv, kpath, &model, err)) < 0)
                return rc;
            continue;
        }
        if (strcmp(gs_yaml_text(pk), "memory_gb") != 0)
            return unknown_key(r, pk, path, err);
        snprintf(kpath, sizeof kpath, "%.60s.memory_gb", path);
        if ((rc = gs_yaml_number(&r->y, pv, kpath, 0.001, 1e6, &gb, err)) < 0)
            return rc;
    }
    if (gb < 0)
        return gs_yaml_error(&r->y, v, GS_EINVAL, err, "%s: missing 'memory_gb'", path);
    rc = gs_cluster_add_gpu_type(r->cl, gs_yaml_text(k), llround(gb * 1024), err);
    if (rc < 0)
        return gs_error_prefix(err, rc, "%s:%ld: %s: ", r->y.name, gs_yaml_line(k), path);
    gs_cluster_set_gpu_type_mig(r->cl, rc, model < 0 ? -1 : model);
    return 0;
}

static int read_gpu_types(struct reader *r, const yaml_node_t *v, struct gs_error *err)
{
    int rc;
    if (!v || gs_yaml_is_null(v)) {
        rc = gs_cluster_add_gpu_type(r->cl, DEFAULT_TYPE, (int64_t)DEFAULT_TYPE_GB * 1024, err);
        return rc < 0 ? gs_error_prefix(err, rc, "%s: ", r->y.name) : 0;
    }
    if ((rc = want_mapping(r, v, "gpu_types", err)) < 0)
        return rc;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++)
        if ((rc = read_gpu_type(r, gs_yaml_node(&r->y, p->key),
                                gs_yaml_node(&r->y, p->value), err)) < 0)
            return rc;
    return 0;
}

/* nvlink_domains: [4, 4] */
static int read_domains(struct reader *r, const yaml_node_t *v, const char *path,
                        struct gs_node_spec *s, struct gs_error *err)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return gs_yaml_error(&r->y, v, GS_EINVAL, err,
                             "%s: expected a list of GPU counts such as [4, 4], got %s", path,
                             gs_yaml_kind(v));
    yaml_node_item_t *it = v->data.sequence.items.start;
    int n = (int)(v->data.sequence.items.top - it);
    if (n < 1 || n > GS_MAX_NODE_DOMAINS)
        return gs_yaml_error(&r->y, v, GS_EINVAL, err, "%s: expected 1-%d domains, got %d",
                             path, GS_MAX_NODE_DOMAINS, n);
    for (int i = 0; i < n; i++) {
        char ipath[PATH_MAX_LEN];
        long size;
        snprintf(ipath, sizeof ipath, "%.80s[%d]", path, i);
        int rc = gs_yaml_int(&r->y, gs_yaml_node(&r->y, it[i]), ipath, 1, GS_MAX_NODE_GPUS,
                             &size, err);
        if (rc < 0)
            return rc;
        s->domain_sizes[i] = (int)size;
    }
    s->ndomains = n;
    return 0;
}

static int read_type_ref(struct reader *r, const yaml_node_t *v, const char *path,
                         struct gs_node_spec *s, struct gs_error *err)
{
    const char *t;
    int rc = gs_yaml_string(&r->y, v, path, &t, err);
    if (rc < 0)
        return rc;
    s->gpu_type = gs_cluster_find_gpu_type(r->cl, t);
    if (s->gpu_type < 0)
        return gs_yaml_error(&r->y, v, GS_EINVAL, err, "%s: '%.40s' is not defined in gpu_types",
                             path, t);
    return 0;
}

/* One key of a node entry. */
static int read_node_key(struct reader *r, struct entry *e, const yaml_node_t *k,
                         const yaml_node_t *v, struct gs_error *err)
{
    const char *key = gs_yaml_text(k);
    char path[PATH_MAX_LEN];
    struct gs_node_spec *s = &e->spec;
    long n;
    double x;
    int rc;
    snprintf(path, sizeof path, "nodes[%d].%.40s", e->idx, key);
    if (strcmp(key, "name") == 0) {
        e->name_node = v;
        return gs_yaml_string(&r->y, v, path, &e->pattern, err);
    } else if (strcmp(key, "gpus") == 0) {
        if ((rc = gs_yaml_int(&r->y, v, path, 0, GS_MAX_NODE_GPUS, &n, err)) == 0)
            s->gpus = (int)n;
        return rc;
    } else if (strcmp(key, "gpu_type") == 0) {
        return read_type_ref(r, v, path, s, err);
    } else if (strcmp(key, "nvlink_domains") == 0) {
        return read_domains(r, v, path, s, err);
    } else if (strcmp(key, "rack") == 0) {
        return gs_yaml_string(&r->y, v, path, &s->rack, err);
    } else if (strcmp(key, "mig") == 0) {
        e->mig_node = v;
        return 0;
    } else if (strcmp(key, "domain") == 0) {
        return gs_yaml_string(&r->y, v, path, &s->mdomain, err);
    } else if (strcmp(key, "cpu") == 0) {
        if ((rc = gs_yaml_number(&r->y, v, path, 0, 1e9, &x, err)) == 0)
            s->cpu_milli = llround(x * 1000);
        return rc;
    } else if (strcmp(key, "memory_gb") == 0) {
        if ((rc = gs_yaml_number(&r->y, v, path, 0, 1e9, &x, err)) == 0)
            s->mem_mib = llround(x * 1024);
        return rc;
    }
    snprintf(path, sizeof path, "nodes[%d]", e->idx);
    return unknown_key(r, k, path, err);
}

static int add_one(struct reader *r, struct entry *e, const char *name, struct gs_error *err)
{
    if (++r->nnodes > MAX_NODES)
        return gs_yaml_error(&r->y, e->name_node, GS_EINVAL, err,
                             "nodes[%d].name: more than %d nodes in the cluster", e->idx,
                             MAX_NODES);
    e->spec.name = name;
    int rc = gs_cluster_add_node(r->cl, &e->spec, err);
    if (rc < 0)
        return gs_error_prefix(err, rc, "%s:%ld: nodes[%d].name: ", r->y.name,
                               gs_yaml_line(e->name_node), e->idx);
    return 0;
}

static int range_error(struct reader *r, struct entry *e, const char *why,
                       struct gs_error *err)
{
    return gs_yaml_error(&r->y, e->name_node, GS_EINVAL, err,
                         "nodes[%d].name: '%.60s': %s", e->idx, e->pattern, why);
}

static int expand(struct reader *r, struct entry *e, const char *pat, char *out, size_t olen,
                  struct gs_error *err);

/* One bracket item "7", "01-10": parse it and expand the rest for each
 * number.  `p` points at the item and is advanced past it. */
static int expand_item(struct reader *r, struct entry *e, const char **p, const char *rest,
                       char *out, size_t olen, struct gs_error *err)
{
    const char *s = *p;
    size_t w = strspn(s, "0123456789");
    if (w == 0 || w > 9)
        return range_error(r, e, "expected numbers like [1-4] or [01-10,12]", err);
    long lo = strtol(s, NULL, 10), hi = lo;
    s += w;
    if (*s == '-') {
        size_t w2 = strspn(++s, "0123456789");
        if (w2 == 0 || w2 > 9)
            return range_error(r, e, "expected numbers like [1-4] or [01-10,12]", err);
        hi = strtol(s, NULL, 10);
        s += w2;
    }
    if (hi < lo)
        return range_error(r, e, "range ends before it starts", err);
    if (*s != ',' && *s != ']')
        return range_error(r, e, "expected numbers like [1-4] or [01-10,12]", err);
    *p = s;
    for (long v = lo; v <= hi; v++) {
        int n = snprintf(out + olen, GS_NAME_MAX - olen, "%0*ld", (int)w, v);
        if (n < 0 || olen + (size_t)n >= GS_NAME_MAX)
            return range_error(r, e, "name too long", err);
        int rc = expand(r, e, rest, out, olen + (size_t)n, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Expand the bracket ranges of `pat` (appended to out[0..olen)) and add a
 * node for every name.  Several brackets multiply, the first varying
 * slowest.  Recursion depth is bounded: each level adds at least one
 * character to a name shorter than GS_NAME_MAX. */
static int expand(struct reader *r, struct entry *e, const char *pat, char *out, size_t olen,
                  struct gs_error *err)
{
    size_t pre = strcspn(pat, "[]");
    if (olen + pre >= GS_NAME_MAX)
        return range_error(r, e, "name too long", err);
    memcpy(out + olen, pat, pre);
    olen += pre;
    out[olen] = '\0';
    if (pat[pre] == '\0')
        return add_one(r, e, out, err);
    if (pat[pre] == ']')
        return range_error(r, e, "']' without '['", err);
    const char *close = strchr(pat + pre, ']');
    if (!close)
        return range_error(r, e, "'[' without ']'", err);
    const char *p = pat + pre + 1;
    for (;;) {
        int rc = expand_item(r, e, &p, close + 1, out, olen, err);
        if (rc < 0)
            return rc;
        if (*p == ']')
            return 0;
        p++;    /* ',' */
    }
}

static int read_node(struct reader *r, const yaml_node_t *v, int idx, struct gs_error *err)
{
    char path[PATH_MAX_LEN];
    struct entry e = { .idx = idx, .spec.gpus = -1, .spec.gpu_type = -1 };
    snprintf(path, sizeof path, "nodes[%d]", idx);
    int rc = want_mapping(r, v, path, err);
    if (rc < 0)
        return rc;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
         rc == 0 && p < v->data.mapping.pairs.top; p++)
        rc = read_node_key(r, &e, gs_yaml_node(&r->y, p->key), gs_yaml_node(&r->y, p->value),
                           err);
    if (rc < 0)
        return rc;
    if (!e.pattern || e.spec.gpus < 0)
        return gs_yaml_error(&r->y, v, GS_EINVAL, err, "%s: missing '%s'", path,
                             e.pattern ? "gpus" : "name");
    if (!*e.pattern)
        return gs_yaml_error(&r->y, e.name_node, GS_EINVAL, err, "%s.name: empty", path);
    if (e.spec.gpu_type < 0 && e.spec.gpus > 0) {
        if (gs_cluster_gpu_type_count(r->cl) != 1)
            return gs_yaml_error(&r->y, v, GS_EINVAL, err,
                                 "%s: missing 'gpu_type' (%d gpu types are defined)", path,
                                 gs_cluster_gpu_type_count(r->cl));
        e.spec.gpu_type = 0;
    }
    int sum = 0;
    for (int d = 0; d < e.spec.ndomains; d++)
        sum += e.spec.domain_sizes[d];
    if (e.spec.ndomains > 0 && sum != e.spec.gpus)
        return gs_yaml_error(&r->y, v, GS_EINVAL, err,
                             "%s.nvlink_domains: sum to %d but the node has %d gpus", path,
                             sum, e.spec.gpus);
    char name[GS_NAME_MAX];
    int first = r->nnodes;
    if ((rc = expand(r, &e, e.pattern, name, 0, err)) < 0)
        return rc;
    if (e.mig_node && r->nnodes > first &&
        gs_mig_yaml_add(&r->mig, first, r->nnodes - 1, idx, e.mig_node) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", r->y.name);
    return 0;
}

static int read_nodes(struct reader *r, const yaml_node_t *v, struct gs_error *err)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return gs_yaml_error(&r->y, v, GS_EINVAL, err, "nodes: expected a list, got %s",
                             gs_yaml_kind(v));
    yaml_node_item_t *it = v->data.sequence.items.start;
    int n = (int)(v->data.sequence.items.top - it);
    for (int i = 0; i < n; i++) {
        int rc = read_node(r, gs_yaml_node(&r->y, it[i]), i, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The `cluster:` mapping: gpu_types first (nodes refer to them), then nodes. */
static int read_cluster(struct reader *r, const yaml_node_t *c, struct gs_error *err)
{
    const yaml_node_t *types = NULL, *nodes = NULL;
    int rc = want_mapping(r, c, "cluster", err);
    if (rc < 0)
        return rc;
    for (yaml_node_pair_t *p = c->data.mapping.pairs.start;
         rc == 0 && p < c->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = gs_yaml_node(&r->y, p->key);
        if (strcmp(gs_yaml_text(k), "gpu_types") == 0)
            types = gs_yaml_node(&r->y, p->value);
        else if (strcmp(gs_yaml_text(k), "nodes") == 0)
            nodes = gs_yaml_node(&r->y, p->value);
        else
            rc = unknown_key(r, k, "cluster", err);
    }
    if (rc < 0 || (rc = read_gpu_types(r, types, err)) < 0)
        return rc;
    if (!nodes)
        return gs_yaml_error(&r->y, c, GS_EINVAL, err, "cluster: missing 'nodes'");
    if ((rc = read_nodes(r, nodes, err)) < 0)
        return rc;
    if ((rc = gs_cluster_seal(r->cl, 0, err)) < 0)
        return gs_error_prefix(err, rc, "%s:%ld: nodes: ", r->y.name, gs_yaml_line(nodes));
    return gs_mig_yaml_apply(&r->mig, &r->y, r->cl, err);
}

static int read_root(struct reader *r, struct gs_error *err)
{
    const yaml_node_t *root = gs_yaml_root(&r->y), *cluster = NULL;
    if (!root || gs_yaml_is_null(root))
        return gs_errorf(err, GS_EINVAL, "%s: empty document; expected 'cluster:'", r->y.name);
    int rc = want_mapping(r, root, "top level", err);
    if (rc < 0)
        return rc;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         rc == 0 && p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = gs_yaml_node(&r->y, p->key);
        if (strcmp(gs_yaml_text(k), "cluster") == 0)
            cluster = gs_yaml_node(&r->y, p->value);
        else
            rc = unknown_key(r, k, "", err);
    }
    if (rc < 0)
        return rc;
    if (!cluster)
        return gs_yaml_error(&r->y, root, GS_EINVAL, err, "missing 'cluster:'");
    return read_cluster(r, cluster, err);
}

struct gs_cluster *gs_cluster_parse_yaml(const char *text, size_t len, const char *name,
                                         struct gs_error *err)
{
    struct reader r = { .nnodes = 0 };
    int rc = gs_yaml_load(&r.y, text, len, name, err);
    if (rc == 0) {
        r.cl = gs_cluster_create();
        rc = r.cl ? read_root(&r, err)
                  : gs_errorf(err, GS_ENOMEM, "%s: out of memory", gs_io_name(name));
    }
    gs_yaml_fini(&r.y);
    gs_mig_yaml_fini(&r.mig);
    if (rc < 0) {
        gs_cluster_destroy(r.cl);
        return NULL;
    }
    return r.cl;
}

struct gs_cluster *gs_cluster_load_yaml(const char *path, struct gs_error *err)
{
    char *buf;
    size_t len;
    if (gs_read_file(path, &buf, &len, err) < 0)
        return NULL;
    struct gs_cluster *cl = gs_cluster_parse_yaml(buf, len, path, err);
    gs_free(buf);
    return cl;
}

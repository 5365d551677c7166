/* failures_yaml.c - the failure model file (failures_yaml.h). */
#include "io/failures_yaml.h"
#include "core/base/alloc.h"
#include "core/policy/policy.h"
#include "io/ioutil.h"
#include "io/node_events_csv.h"
#include "io/yaml_util.h"

#include <math.h>
#include <string.h>

/* A duration value of key `key` (node `v`) in seconds, >= min_s (strictly
 * greater when `positive`). */
static int duration(struct gs_yaml *y, const yaml_node_t *v, const char *key, int positive,
                    double *out, struct gs_error *err)
{
    const char *t = gs_yaml_text(v);
    gs_time ms;
    if (!t || gs_parse_duration(t, &ms) < 0 || (positive && ms <= 0))
        return gs_yaml_error(y, v, GS_EINVAL, err,
                             "%s: expected a duration%s (90, 30m, 4h, 2d), got %s%.40s%s", key,
                             positive ? " > 0" : "", t ? "'" : "", t ? t : gs_yaml_kind(v),
                             t ? "'" : "");
    *out = gs_time_to_sec(ms);
    return 0;
}

static int distribution(struct gs_yaml *y, const yaml_node_t *v, int *out,
                        struct gs_error *err)
{
    const char *t = gs_yaml_text(v);
    if (t && strcmp(t, "exponential") == 0)
        *out = GS_FAIL_EXPONENTIAL;
    else if (t && strcmp(t, "weibull") == 0)
        *out = GS_FAIL_WEIBULL;
    else
        return gs_yaml_error(y, v, GS_EINVAL, err,
                             "distribution: expected exponential or weibull, got %s%.40s%s",
                             t ? "'" : "", t ? t : gs_yaml_kind(v), t ? "'" : "");
    return 0;
}

/* node_events: PATH (relative: to the YAML's directory), into ex. */
static int events_key(struct gs_yaml *y, const yaml_node_t *v, const char *name,
                      struct gs_failures_extra *ex, struct gs_error *err)
{
    const char *t = gs_yaml_text(v);
    if (!ex)
        return gs_yaml_error(y, v, GS_EINVAL, err, "node_events: not available in this "
                                                   "command (sim, compare and whatif replay it)");
    if (!t || !*t)
        return gs_yaml_error(y, v, GS_EINVAL, err, "node_events: expected a file path, got %s",
                             t ? "''" : gs_yaml_kind(v));
    const char *slash = t[0] == '/' ? NULL : strrchr(name, '/');
    int dir = slash ? (int)(slash - name) + 1 : 0, w;
    w = snprintf(ex->events, sizeof ex->events, "%.*s%s", dir, name, t);
    if (w < 0 || (size_t)w >= sizeof ex->events)
        return gs_yaml_error(y, v, GS_EINVAL, err, "node_events: path too long");
    snprintf(ex->where, sizeof ex->where, "%s:%ld", name, gs_yaml_line(v));
    return 0;
}

/* One key of the top mapping; `seen` marks keys found (bit per key). */
static int one_key(struct gs_yaml *y, const yaml_node_t *k, const yaml_node_t *v,
                   struct gs_failure_model *m, unsigned *seen, const yaml_node_t **shape_at,
                   struct gs_failures_extra *ex, struct gs_error *err)
{
    const char *key = gs_yaml_text(k);
    if (strcmp(key, "node_events") == 0)
        return events_key(y, v, y->name, ex, err);
    long seed;
    int rc;
    if (strcmp(key, "node_mtbf") == 0) {
        *seen |= 1;
        return duration(y, v, key, 1, &m->mtbf_s, err);
    }
    if (strcmp(key, "repair") == 0) {
        *seen |= 2;
        return duration(y, v, key, 0, &m->repair_s, err);
    }
    if (strcmp(key, "gpu_mtbf") == 0) { /* per-GPU failures (docs/failures.md) */
        *seen |= 4;
        return duration(y, v, key, 1, &m->gpu_mtbf_s, err);
    }
    if (strcmp(key, "seed") == 0) {
        rc = gs_yaml_int(y, v, key, 0, 2147483647L, &seed, err);
        m->seed = (uint64_t)seed;
        return rc;
    }
    if (strcmp(key, "distribution") == 0)
        return distribution(y, v, &m->dist, err);
    if (strcmp(key, "shape") == 0) {
        *shape_at = v;
        return gs_yaml_number(y, v, key, 0.05, 100, &m->shape, err);
    }
    return gs_yaml_error(y, k, GS_EINVAL, err,
                         "%s: unknown key (node_mtbf, gpu_mtbf, repair, seed, distribution, "
                         "shape, node_events)", key);
}

static int walk(struct gs_yaml *y, const yaml_node_t *root, struct gs_failure_model *m,
                struct gs_failures_extra *ex, struct gs_error *err)
{
    int rc = gs_yaml_check_keys(y, root, "", err);
    unsigned seen = 0;
    const yaml_node_t *shape_at = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         rc == 0 && p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = gs_yaml_node(y, p->key), *v = gs_yaml_node(y, p->value);
        if ((rc = gs_yaml_visit(y, v, err)) == 0)
            rc = one_key(y, k, v, m, &seen, &shape_at, ex, err);
    }
    if (rc < 0)
        return rc;
    if (!(seen & 5) || !(seen & 2)) /* node_mtbf may be left out with gpu_mtbf */
        return gs_yaml_error(y, root, GS_EINVAL, err, "%s: required key missing",
                             !(seen & 5) ? "node_mtbf" : "repair");
    if (m->dist == GS_FAIL_WEIBULL && !shape_at)
        return gs_yaml_error(y, root, GS_EINVAL, err,
                             "shape: required key missing (distribution is weibull)");
    if (m->dist != GS_FAIL_WEIBULL && shape_at)
        return gs_yaml_error(y, shape_at, GS_EINVAL, err,
                             "shape: only with distribution: weibull");
    return 0;
}

static int parse(const char *text, size_t len, const char *name, struct gs_failure_model *out,
                 struct gs_failures_extra *ex, struct gs_error *err)
{
    struct gs_yaml y;
    memset(&y, 0, sizeof y);
    struct gs_failure_model m = { 1, 0, 0, GS_FAIL_EXPONENTIAL, 1, 0 };
    int rc = gs_yaml_load(&y, text, len, name, err);
    const yaml_node_t *root = rc == 0 ? gs_yaml_root(&y) : NULL;
    if (rc == 0 && (!root || root->type != YAML_MAPPING_NODE))
        rc = root ? gs_yaml_error(&y, root, GS_EINVAL, err,
                                  "expected a mapping (node_mtbf:, repair:, ...), got %s",
                                  gs_yaml_kind(root))
                  : gs_errorf(err, GS_EINVAL, "%s: empty file: node_mtbf and repair are "
                                              "required", name);
    if (rc == 0 && root && root->type == YAML_MAPPING_NODE)
        rc = walk(&y, root, &m, ex, err);
    gs_yaml_fini(&y);
    if (rc == 0)
        *out = m;
    return rc;
}

int gs_failures_parse_yaml(const char *text, size_t len, const char *name,
                           struct gs_failure_model *out, struct gs_error *err)
{
    return parse(text, len, name, out, NULL, err);
}

static int load(const char *path, struct gs_failure_model *out, struct gs_failures_extra *ex,
                struct gs_error *err)
{
    char *buf;
    size_t len;
    int rc = gs_read_file(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    rc = parse(buf, len, path, out, ex, err);
    gs_free(buf);
    return rc;
}

int gs_failures_load_yaml(const char *path, struct gs_failure_model *out,
                          struct gs_error *err)
{
    return load(path, out, NULL, err);
}

int gs_failures_load_yaml_ex(const char *path, struct gs_failure_model *out,
                             struct gs_failures_extra *ex, struct gs_error *err)
{
    ex->events[0] = ex->where[0] = '\0';
    return load(path, out, ex, err);
}

int gs_failures_extra_events(const struct gs_failures_extra *ex, const struct gs_cluster *cl,
                             gs_time iso_origin, struct gs_node_events *ne,
                             struct gs_error *err)
{
    if (!ex->events[0])
        return 0;
    struct gs_node_events log = { 0 };
    struct gs_error e2 = { 0 };
    int rc = gs_node_events_load(ex->events, cl, iso_origin, &log, &e2);
    if (rc == GS_EIO)
        rc = gs_errorf(err, rc, "%s: node_events: %s", ex->where, e2.msg);
    else if (rc < 0)
        *err = e2;
    for (size_t i = 0; rc == 0 && i < log.n; i++)
        if (gs_node_events_append(ne, &log.ev[i]) < 0)
            rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    gs_node_events_fini(&log);
    if (rc == 0)
        gs_node_events_sort(ne); /* stable: ties keep ne's first */
    return rc;
}

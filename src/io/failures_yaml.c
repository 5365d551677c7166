/* failures_yaml.c - the failure model file (failures_yaml.h). */
#include "io/failures_yaml.h"
#include "core/base/alloc.h"
#include "core/policy/policy.h"
#include "io/ioutil.h"
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

/* One key of the top mapping; `seen` marks keys found (bit per key). */
static int one_key(struct gs_yaml *y, const yaml_node_t *k, const yaml_node_t *v,
                   struct gs_failure_model *m, unsigned *seen, const yaml_node_t **shape_at,
                   struct gs_error *err)
{
    const char *key = gs_yaml_text(k);
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
                         "%s: unknown key (node_mtbf, repair, seed, distribution, shape)", key);
}

static int walk(struct gs_yaml *y, const yaml_node_t *root, struct gs_failure_model *m,
                struct gs_error *err)
{
    int rc = gs_yaml_check_keys(y, root, "", err);
    unsigned seen = 0;
    const yaml_node_t *shape_at = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         rc == 0 && p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = gs_yaml_node(y, p->key), *v = gs_yaml_node(y, p->value);
        if ((rc = gs_yaml_visit(y, v, err)) == 0)
            rc = one_key(y, k, v, m, &seen, &shape_at, err);
    }
    if (rc < 0)
        return rc;
    if (!(seen & 1) || !(seen & 2))
        return gs_yaml_error(y, root, GS_EINVAL, err, "%s: required key missing",
                             !(seen & 1) ? "node_mtbf" : "repair");
    if (m->dist == GS_FAIL_WEIBULL && !shape_at)
        return gs_yaml_error(y, root, GS_EINVAL, err,
                             "shape: required key missing (distribution is weibull)");
    if (m->dist != GS_FAIL_WEIBULL && shape_at)
        return gs_yaml_error(y, shape_at, GS_EINVAL, err,
                             "shape: only with distribution: weibull");
    return 0;
}

int gs_failures_parse_yaml(const char *text, size_t len, const char *name,
                           struct gs_failure_model *out, struct gs_error *err)
{
    struct gs_yaml y;
    memset(&y, 0, sizeof y);
    struct gs_failure_model m = { 1, 0, 0, GS_FAIL_EXPONENTIAL, 1 };
    int rc = gs_yaml_load(&y, text, len, name, err);
    const yaml_node_t *root = rc == 0 ? gs_yaml_root(&y) : NULL;
    if (rc == 0 && (!root || root->type != YAML_MAPPING_NODE))
        rc = root ? gs_yaml_error(&y, root, GS_EINVAL, err,
                                  "expected a mapping (node_mtbf:, repair:, ...), got %s",
                                  gs_yaml_kind(root))
                  : gs_errorf(err, GS_EINVAL, "%s: empty file: node_mtbf and repair are "
                                              "required", name);
    if (rc == 0 && root && root->type == YAML_MAPPING_NODE)
        rc = walk(&y, root, &m, err);
    gs_yaml_fini(&y);
    if (rc == 0)
        *out = m;
    return rc;
}

int gs_failures_load_yaml(const char *path, struct gs_failure_model *out,
                          struct gs_error *err)
{
    char *buf;
    size_t len;
    int rc = gs_read_file(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    rc = gs_failures_parse_yaml(buf, len, path, out, err);
    gs_free(buf);
    return rc;
}

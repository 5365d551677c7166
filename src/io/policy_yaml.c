/* policy_yaml.c - the policy file: every scalar leaf goes to gs_policy_set
 * by its dotted path, so core/policy.c's key table alone decides what is
 * valid.  This file only knows YAML shapes and asks core which one a path
 * takes: a section (sub-keys), a map (queue.quota: NAME -> value), a list
 * of mappings (partitions), a multi-valued key (partitions.nodes) or a
 * single value. */
#include "io/policy_yaml.h"
#include "core/base/alloc.h"
#include "io/ioutil.h"
#include "io/yaml_util.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PATH_LEN 128
#define MAX_DEPTH 16    /* sections nest two deep; this only stops cycles */
/* Entries in one map (teams in queue.quota): the key table keeps maps as
 * arrays searched linearly, so an unbounded map costs quadratic time. */
#define MAX_MAP_ENTRIES 10000

struct walker {
    struct gs_yaml y;
    struct gs_policy *p;
};

/* YAML 1.1 booleans (plain style only: a quoted "yes" is a string) become
 * "true"/"false", the spelling the key table uses; nulls become "". */
static const char *leaf_text(const yaml_node_t *v)
{
    static const char *const yes[] = { "true", "yes", "on", NULL };
    static const char *const no[] = { "false", "no", "off", NULL };
    const char *t = gs_yaml_text(v);
    if (v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return t;
    if (gs_yaml_is_null(v))
        return "";
    for (int i = 0; yes[i]; i++)
        if (strcasecmp(t, yes[i]) == 0)
            return "true";
    for (int i = 0; no[i]; i++)
        if (strcasecmp(t, no[i]) == 0)
            return "false";
    return t;
}

static int set_leaf(struct walker *w, const char *path, const yaml_node_t *v,
                    struct gs_error *err)
{
    int rc = gs_policy_set(w->p, path, leaf_text(v), err);
    if (rc < 0)
        return gs_error_prefix(err, rc, "%s:%ld: ", w->y.name, gs_yaml_line(v));
    return 0;
}

/* A mapping or sequence `v` where a single value belongs (key node `k`).
 * If the key is unknown (or not supported yet) say that, as a scalar there
 * would. */
static int not_a_value(struct walker *w, const char *path, const yaml_node_t *k,
                       const yaml_node_t *v, struct gs_error *err)
{
    struct gs_policy scratch;
    struct gs_error probe;
    gs_policy_init(&scratch);
    int rc = gs_policy_set(&scratch, path, "", &probe);
    gs_policy_fini(&scratch);
    if (rc == GS_ENOENT || rc == GS_ENOTSUP) {
        if (err)
            *err = probe;
        return gs_error_prefix(err, rc, "%s:%ld: ", w->y.name, gs_yaml_line(k));
    }
    return gs_yaml_error(&w->y, k, GS_EINVAL, err, "%s: expected a single value, got %s",
                         path, gs_yaml_kind(v));
}

static int join(struct walker *w, const yaml_node_t *k, const char *path, char *out,
                struct gs_error *err)
{
    int n = snprintf(out, PATH_LEN, "%s%s%s", path, *path ? "." : "", gs_yaml_text(k));
    if (n < 0 || n >= PATH_LEN)
        return gs_yaml_error(&w->y, k, GS_EINVAL, err, "key path too long");
    return 0;
}

/* Set `path` from `v`, which must be a scalar; otherwise the error points
 * at node `at` (the entry's key, or the item itself). */
static int set_scalar(struct walker *w, const char *path, const yaml_node_t *at,
                      const yaml_node_t *v, struct gs_error *err)
{
    if (v->type != YAML_SCALAR_NODE)
        return gs_yaml_error(&w->y, at, GS_EINVAL, err, "%s: expected a value, got %s", path,
                             gs_yaml_kind(v));
    return set_leaf(w, path, v, err);
}

/* Entries of a map key (queue.quota): NAME: scalar. */
static int walk_entries(struct walker *w, const yaml_node_t *m, const char *path,
                        struct gs_error *err)
{
    if (m->data.mapping.pairs.top - m->data.mapping.pairs.start > MAX_MAP_ENTRIES)
        return gs_yaml_error(&w->y, m, GS_EINVAL, err, "%s: more than %d entries", path,
                             MAX_MAP_ENTRIES);
    int rc = gs_yaml_check_keys(&w->y, m, path, err);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         rc == 0 && p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = gs_yaml_node(&w->y, p->key), *v = gs_yaml_node(&w->y, p->value);
        char sub[PATH_LEN];
        if ((rc = gs_yaml_visit(&w->y, v, err)) < 0 || (rc = join(w, k, path, sub, err)) < 0)
            break;
        rc = set_scalar(w, sub, k, v, err);
    }
    return rc;
}

static int walk_section(struct walker *w, const yaml_node_t *m, const char *path, int depth,
                        struct gs_error *err);

/* A key that takes several values (partitions.nodes): each scalar of the
 * sequence is set in turn. */
static int walk_multi(struct walker *w, const yaml_node_t *seq, const char *path,
                      struct gs_error *err)
{
    int rc = 0;
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         rc == 0 && it < seq->data.sequence.items.top; it++) {
        const yaml_node_t *v = gs_yaml_node(&w->y, *it);
        if ((rc = gs_yaml_visit(&w->y, v, err)) < 0)
            break;
        rc = set_scalar(w, path, v, v, err);
    }
    return rc;
}

/* A list of mappings (partitions): one item per mapping, keys set as
 * path.key on the item just added. */
static int walk_list(struct walker *w, const yaml_node_t *seq, const char *path, int depth,
                     struct gs_error *err)
{
    int rc = 0;
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         rc == 0 && it < seq->data.sequence.items.top; it++) {
        const yaml_node_t *v = gs_yaml_node(&w->y, *it);
        if ((rc = gs_yaml_visit(&w->y, v, err)) < 0)
            break;
        if (v->type != YAML_MAPPING_NODE)
            return gs_yaml_error(&w->y, v, GS_EINVAL, err, "%s[%d]: expected a mapping, got %s",
                                 path, (int)(it - seq->data.sequence.items.start),
                                 gs_yaml_kind(v));
        if ((rc = gs_policy_list_add(w->p, path, err)) < 0)
            return gs_error_prefix(err, rc, "%s:%ld: ", w->y.name, gs_yaml_line(v));
        rc = walk_section(w, v, path, depth + 1, err);
    }
    return rc;
}

/* The value `v` of key `k`, whose full path is `path`.  Shape errors
 * point at the key's line (a block value starts on the next line). */
static int walk_value(struct walker *w, const char *path, const yaml_node_t *k,
                      const yaml_node_t *v, int depth, struct gs_error *err)
{
    int section = gs_policy_is_section(path), map = gs_policy_is_map(path);
    if (gs_policy_is_list(path)) {
        if (v->type == YAML_SEQUENCE_NODE)
            return walk_list(w, v, path, depth, err);
        if (gs_yaml_is_null(v))
            return 0;
        return gs_yaml_error(&w->y, k, GS_EINVAL, err, "%s: expected a list of mappings, got %s",
                             path, gs_yaml_kind(v));
    }
    if (v->type == YAML_SEQUENCE_NODE && gs_policy_is_multi(path))
        return walk_multi(w, v, path, err);
    if (v->type == YAML_MAPPING_NODE) {
        if (map)
            return walk_entries(w, v, path, err);
        if (section)
            return walk_section(w, v, path, depth + 1, err);
        return not_a_value(w, path, k, v, err);
    }
    if (v->type == YAML_SEQUENCE_NODE) {
        if (map || section)
            return gs_yaml_error(&w->y, k, GS_EINVAL, err, "%s: expected a mapping, got %s",
                                 path, gs_yaml_kind(v));
        return not_a_value(w, path, k, v, err);
    }
    if (gs_yaml_is_null(v) && (map || section))
        return 0;   /* "queue:" with nothing under it */
    if (section)
        return gs_yaml_error(&w->y, v, GS_EINVAL, err, "%s: expected a mapping, got '%.40s'",
                             path, gs_yaml_text(v));
    return set_leaf(w, path, v, err);
}

static int walk_section(struct walker *w, const yaml_node_t *m, const char *path, int depth,
                        struct gs_error *err)
{
    if (depth > MAX_DEPTH)
        return gs_yaml_error(&w->y, m, GS_EINVAL, err, "%s: nested too deeply", path);
    int rc = gs_yaml_check_keys(&w->y, m, path, err);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         rc == 0 && p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = gs_yaml_node(&w->y, p->key), *v = gs_yaml_node(&w->y, p->value);
        char sub[PATH_LEN];
        if ((rc = gs_yaml_visit(&w->y, v, err)) < 0 || (rc = join(w, k, path, sub, err)) < 0)
            break;
        rc = walk_value(w, sub, k, v, depth, err);
    }
    return rc;
}

int gs_policy_parse_yaml(const char *text, size_t len, const char *name,
                         struct gs_policy *out, struct gs_error *err)
{
    struct walker w = { .p = out };
    gs_policy_init(out);
    int rc = gs_yaml_load(&w.y, text, len, name, err);
    const yaml_node_t *root = rc == 0 ? gs_yaml_root(&w.y) : NULL;
    if (root && root->type == YAML_MAPPING_NODE)
        rc = walk_section(&w, root, "", 0, err);
    else if (root && !gs_yaml_is_null(root))
        rc = gs_yaml_error(&w.y, root, GS_EINVAL, err,
                           "expected a mapping of sections (queue:, placement:, ...), got %s",
                           gs_yaml_kind(root));
    gs_yaml_fini(&w.y);
    if (rc < 0)
        gs_policy_fini(out);
    return rc;
}

int gs_policy_load_yaml(const char *path, struct gs_policy *out, struct gs_error *err)
{
    char *buf;
    size_t len;
    gs_policy_init(out);
    int rc = gs_read_file(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    rc = gs_policy_parse_yaml(buf, len, path, out, err);
    gs_free(buf);
    return rc;
}

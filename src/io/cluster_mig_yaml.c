/* cluster_mig_yaml.c - MIG layouts in the cluster file (see
 * cluster_mig_yaml.h). */
#include "io/cluster_mig_yaml.h"
#include "core/base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_LEN 96

int gs_mig_yaml_add(struct gs_mig_yaml *m, int first, int last, int idx, const yaml_node_t *v)
{
    if (gs_grow((void **)&m->e, &m->cap, m->n + 1, sizeof *m->e) < 0)
        return GS_ENOMEM;
    m->e[m->n].first = first;
    m->e[m->n].last = last;
    m->e[m->n].idx = idx;
    m->e[m->n].v = v;
    m->n++;
    return 0;
}

void gs_mig_yaml_fini(struct gs_mig_yaml *m)
{
    gs_free(m->e);
    m->e = NULL;
    m->n = m->cap = 0;
}

int gs_mig_yaml_model(struct gs_yaml *y, const yaml_node_t *v, const char *path, int *model,
                      struct gs_error *err)
{
    const char *t;
    int rc = gs_yaml_string(y, v, path, &t, err);
    if (rc < 0)
        return rc;
    *model = gs_mig_model_find(t);
    if (*model < 0)
        return gs_yaml_error(y, v, GS_EINVAL, err,
                             "%s: '%.40s' is not a MIG geometry (A100-40GB, A100-80GB, "
                             "H100-80GB)",
                             path, t);
    return 0;
}

/* One layout item "PROFILE", "PROFILE@START" or "PROFILE*COUNT". */
static int add_item(struct gs_yaml *y, const yaml_node_t *v, const char *path, int model,
                    struct gs_mig_layout *l, struct gs_error *err)
{
    const char *t;
    int rc = gs_yaml_string(y, v, path, &t, err);
    if (rc < 0)
        return rc;
    char name[32];
    size_t n = strcspn(t, "@*");
    long start = -1, count = 1;
    char *end = NULL;
    if (n == 0 || n >= sizeof name)
        return gs_yaml_error(y, v, GS_EINVAL, err, "%s: expected PROFILE[@START|*N], got '%.40s'",
                             path, t);
    memcpy(name, t, n);
    name[n] = '\0';
    if (t[n] == '@')
        start = strtol(t + n + 1, &end, 10);
    else if (t[n] == '*')
        count = strtol(t + n + 1, &end, 10);
    if ((end && (*end || end == t + n + 1)) || start < -1 || start >= GS_MIG_MEM_SLICES ||
        count < 1 || count > GS_MIG_MAX_INSTANCES)
        return gs_yaml_error(y, v, GS_EINVAL, err, "%s: expected PROFILE[@START|*N], got '%.40s'",
                             path, t);
    int prof = gs_mig_profile_find(name);
    if (prof < 0 || !gs_mig_geom(model, prof))
        return gs_yaml_error(y, v, GS_EINVAL, err, "%s: %s has no MIG profile '%.30s'", path,
                             gs_mig_model_name(model), name);
    for (long i = 0; i < count; i++)
        if (gs_mig_layout_add(model, l, prof, (int)start) < 0)
            return gs_yaml_error(y, v, GS_EINVAL, err,
                                 "%s: '%.30s' does not fit the %s layout (slices taken, "
                                 "start not allowed, or more than 7 compute slices)",
                                 path, t, gs_mig_model_name(model));
    return 0;
}

static int read_layout(struct gs_yaml *y, const yaml_node_t *v, const char *path, int model,
                       struct gs_mig_layout *l, struct gs_error *err)
{
    memset(l, 0, sizeof *l);
    if (v->type != YAML_SEQUENCE_NODE)
        return gs_yaml_error(y, v, GS_EINVAL, err,
                             "%s: expected a list of MIG profiles such as [3g.20gb, 4g.20gb], "
                             "got %s",
                             path, gs_yaml_kind(v));
    int i = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++, i++) {
        char ipath[PATH_LEN];
        snprintf(ipath, sizeof ipath, "%.80s[%d]", path, i);
        int rc = add_item(y, gs_yaml_node(y, *it), ipath, model, l, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* "0-3", "5" or "1,3,5" into a GPU mask of a node with `gpus` GPUs. */
static int gpu_mask(const char *t, int gpus, uint64_t *mask)
{
    *mask = 0;
    for (const char *p = t; *p;) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p)
            return -1;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p)
                return -1;
        }
        if (lo < 0 || hi < lo || hi >= gpus)
            return -1;
        for (long g = lo; g <= hi; g++)
            *mask |= 1ULL << g;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return *mask ? 0 : -1;
}

static int set_gpus(struct gs_cluster *cl, int first, int last, uint64_t mask,
                    const struct gs_mig_layout *l, struct gs_error *err)
{
    for (int n = first; n <= last; n++)
        for (uint64_t m = mask; m; m &= m - 1) {
            int rc = gs_cluster_set_mig(cl, n, __builtin_ctzll(m), l, err);
            if (rc < 0)
                return rc;
        }
    return 0;
}

static int apply_entry(const struct gs_mig_yaml_entry *e, struct gs_yaml *y,
                       struct gs_cluster *cl, struct gs_error *err)
{
    char path[PATH_LEN];
    snprintf(path, sizeof path, "nodes[%d].mig", e->idx);
    int gpus = gs_cluster_node_gpus(cl, e->first), type = gs_cluster_node_gpu_type(cl, e->first);
    int model = gpus > 0 ? gs_cluster_gpu_type_mig(cl, type) : -1;
    if (model < 0)
        return gs_yaml_error(y, e->v, GS_EINVAL, err,
                             "%s: GPU type '%.40s' has no MIG geometry (give it mig: "
                             "A100-40GB | A100-80GB | H100-80GB in gpu_types)",
                             path, gpus > 0 ? gs_cluster_gpu_type_name(cl, type) : "(none)");
    struct gs_mig_layout l;
    int rc;
    if (e->v->type != YAML_MAPPING_NODE) {
        if ((rc = read_layout(y, e->v, path, model, &l, err)) < 0)
            return rc;
        return set_gpus(cl, e->first, e->last, gpus >= 64 ? ~0ULL : (1ULL << gpus) - 1, &l, err);
    }
    if ((rc = gs_yaml_check_keys(y, e->v, path, err)) < 0)
        return rc;
    for (yaml_node_pair_t *p = e->v->data.mapping.pairs.start; p < e->v->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = gs_yaml_node(y, p->key), *v = gs_yaml_node(y, p->value);
        char kpath[PATH_LEN];
        uint64_t mask;
        snprintf(kpath, sizeof kpath, "%.50s.%.30s", path, gs_yaml_text(k));
        if (gpu_mask(gs_yaml_text(k), gpus, &mask) < 0)
            return gs_yaml_error(y, k, GS_EINVAL, err,
                                 "%s: expected GPU indexes of the node (0-%d) such as 0-3 or "
                                 "1,5",
                                 kpath, gpus - 1);
        if ((rc = read_layout(y, v, kpath, model, &l, err)) < 0 ||
            (rc = set_gpus(cl, e->first, e->last, mask, &l, err)) < 0)
            return rc;
    }
    return 0;
}

int gs_mig_yaml_apply(const struct gs_mig_yaml *m, struct gs_yaml *y, struct gs_cluster *cl,
                      struct gs_error *err)
{
    for (size_t i = 0; i < m->n; i++) {
        int rc = apply_entry(&m->e[i], y, cl, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

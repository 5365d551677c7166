/* whatif_cluster.c - the cluster variants of `whatif`: the fluid cluster
 * and the cluster with added nodes (whatif.h), and wait distributions. */
#include "sim/whatif.h"
#include "core/base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_types(struct gs_cluster *dst, const struct gs_cluster *src,
                      struct gs_error *err)
{
    for (int t = 0; t < gs_cluster_gpu_type_count(src); t++) {
        int rc = gs_cluster_add_gpu_type(dst, gs_cluster_gpu_type_name(src, t),
                                         gs_cluster_gpu_type_mem(src, t), err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The spec of node `n` of `cl` (name and labels borrowed from `cl`). */
static void spec_of_node(const struct gs_cluster *cl, int n, struct gs_node_spec *s)
{
    memset(s, 0, sizeof *s);
    s->name = gs_cluster_node_name(cl, n);
    s->gpus = gs_cluster_node_gpus(cl, n);
    s->gpu_type = gs_cluster_node_gpu_type(cl, n);
    if (s->gpu_type < 0)
        s->gpu_type = 0;
    s->ndomains = s->gpus > 0 ? gs_cluster_node_domains(cl, n) : 0;
    for (int d = 0; d < s->ndomains; d++)
        s->domain_sizes[d] = __builtin_popcountll(gs_cluster_domain_mask(cl, n, d));
    int rack = gs_cluster_node_rack(cl, n), md = gs_cluster_node_mdomain(cl, n);
    s->rack = rack >= 0 ? gs_cluster_label_name(cl, rack) : NULL;
    s->mdomain = md >= 0 ? gs_cluster_label_name(cl, md) : NULL;
    s->cpu_milli = gs_cluster_node_cpu(cl, n);
    s->mem_mib = gs_cluster_node_mem(cl, n);
}

static int same_shape(const struct gs_node_spec *a, const struct gs_node_spec *b)
{
    if (a->gpus != b->gpus || a->gpu_type != b->gpu_type || a->ndomains != b->ndomains)
        return 0;
    for (int d = 0; d < a->ndomains; d++)
        if (a->domain_sizes[d] != b->domain_sizes[d])
            return 0;
    return 1;
}

/* Index of the node whose shape is the most common (first on ties). */
static int common_node(const struct gs_cluster *cl)
{
    int best = 0, best_n = 0, nn = gs_cluster_node_count(cl);
    for (int i = 0; i < nn; i++) {
        struct gs_node_spec a, b;
        spec_of_node(cl, i, &a);
        int c = 0;
        for (int j = 0; j < nn; j++) {
            spec_of_node(cl, j, &b);
            c += same_shape(&a, &b);
        }
        if (c > best_n || (a.gpus > 0 && gs_cluster_node_gpus(cl, best) == 0)) {
            best = i;
            best_n = c;
        }
        if (best_n * 2 > nn)
            break; /* a majority: no other shape can beat it */
    }
    return best;
}

/* A new cluster with the GPU types of `cl` and no nodes yet; NULL with
 * `err` set on failure. */
static struct gs_cluster *create_like(const struct gs_cluster *cl, struct gs_error *err)
{
    struct gs_cluster *c = gs_cluster_create();
    if (!c) {
        gs_errorf(err, GS_ENOMEM, "out of memory");
        return NULL;
    }
    if (copy_types(c, cl, err) < 0) {
        gs_cluster_destroy(c);
        return NULL;
    }
    return c;
}

/* Seal `c` with the S_k job size of `cl` when building it went well (rc >=
 * 0) and return it; otherwise, or when sealing fails, destroy it and return
 * NULL (`err` set by the failed step). */
static struct gs_cluster *seal_like(struct gs_cluster *c, const struct gs_cluster *cl, int rc,
                                    struct gs_error *err)
{
    if (rc >= 0)
        rc = gs_cluster_seal(c, gs_cluster_stats(cl).k, err);
    if (rc < 0) {
        gs_cluster_destroy(c);
        return NULL;
    }
    return c;
}

struct gs_cluster *gs_cluster_add_like(const struct gs_cluster *cl, int n, struct gs_error *err)
{
    struct gs_cluster *c = create_like(cl, err);
    if (!c)
        return NULL;
    int rc = 0;
    struct gs_node_spec s;
    for (int i = 0; rc >= 0 && i < gs_cluster_node_count(cl); i++) {
        spec_of_node(cl, i, &s);
        rc = gs_cluster_add_node(c, &s, err);
    }
    spec_of_node(cl, common_node(cl), &s);
    char name[GS_NAME_MAX];
    for (int i = 1; rc >= 0 && i <= n; i++) {
        snprintf(name, sizeof name, "added-%d", i);
        s.name = name;
        rc = gs_cluster_add_node(c, &s, err);
    }
    return seal_like(c, cl, rc, err);
}

/* Fluid nodes for GPU type `t`: its GPUs in nodes of up to 64, one NVLink
 * domain each, all in the multi-node NVLink domain "fluid-<type>". */
static int add_fluid_type(struct gs_cluster *c, const struct gs_cluster *cl, int t,
                          struct gs_error *err)
{
    int64_t total = 0;
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        if (gs_cluster_node_gpu_type(cl, n) == t)
            total += gs_cluster_node_gpus(cl, n);
    char name[GS_NAME_MAX], md[GS_NAME_MAX];
    snprintf(md, sizeof md, "fluid-%.40s", gs_cluster_gpu_type_name(cl, t));
    for (int i = 1; total > 0; i++) {
        struct gs_node_spec s;
        memset(&s, 0, sizeof s);
        snprintf(name, sizeof name, "fluid-%.40s-%d", gs_cluster_gpu_type_name(cl, t), i);
        s.name = name;
        s.gpus = total > GS_MAX_NODE_GPUS ? GS_MAX_NODE_GPUS : (int)total;
        s.gpu_type = t;
        s.mdomain = md;
        int rc = gs_cluster_add_node(c, &s, err);
        if (rc < 0)
            return rc;
        total -= s.gpus;
    }
    return 0;
}

struct gs_cluster *gs_cluster_fluid(const struct gs_cluster *cl, struct gs_error *err)
{
    struct gs_cluster *c = create_like(cl, err);
    if (!c)
        return NULL;
    int rc = 0;
    for (int t = 0; rc >= 0 && t < gs_cluster_gpu_type_count(cl); t++)
        rc = add_fluid_type(c, cl, t, err);
    return seal_like(c, cl, rc, err);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gs_wait_cdf_build(struct gs_wait_cdf *out, const struct gs_engine *eng)
{
    memset(out, 0, sizeof *out);
    size_t n = (size_t)gs_engine_job_count(eng);
    double *v[GS_SIZE_CLASSES + 1];
    size_t cnt[GS_SIZE_CLASSES + 1] = { 0 };
    int ok = 1;
    for (int c = 0; c <= GS_SIZE_CLASSES; c++)
        ok &= (v[c] = gs_malloc((n ? n : 1) * sizeof *v[c])) != NULL;
    for (size_t j = 0; ok && j < n; j++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, (int)j, &ji);
        if (ji.first_start == GS_TIME_NONE)
            continue;
        double w = gs_time_to_sec(ji.first_start - ji.submit);
        int c = gs_job_size_class(ji.gpus);
        v[c][cnt[c]++] = w;
        v[GS_SIZE_CLASSES][cnt[GS_SIZE_CLASSES]++] = w;
    }
    for (int c = 0; ok && c <= GS_SIZE_CLASSES; c++) {
        qsort(v[c], cnt[c], sizeof *v[c], cmp_double);
        out->n[c] = (int64_t)cnt[c];
        for (int i = 0; cnt[c] && i < GS_CDF_POINTS; i++)
            out->q[c][i] = gs_percentile_sorted(v[c], cnt[c], i / (GS_CDF_POINTS - 1.0));
    }
    for (int c = 0; c <= GS_SIZE_CLASSES; c++)
        gs_free(v[c]);
}

struct gs_cluster *gs_cluster_reordered(const struct gs_cluster *cl, const int *order,
                                        struct gs_error *err)
{
    struct gs_cluster *c = create_like(cl, err);
    if (!c)
        return NULL;
    int rc = 0;
    struct gs_node_spec s;
    for (int i = 0; rc >= 0 && i < gs_cluster_node_count(cl); i++) {
        spec_of_node(cl, order[i], &s);
        rc = gs_cluster_add_node(c, &s, err);
    }
    return seal_like(c, cl, rc, err);
}

/* frag_json.c - the frag document (frag_json.h); moved here from
 * cli/cmd_frag.c so that gpuschedd's GET /v1/cluster writes the same one. */
#include "io/frag_json.h"

#include <stdio.h>

#include "core/place/frag.h"

void gs_frag_queue_init(struct gs_shape_dist *d)
{
    d->n = 0;
}

void gs_frag_queue_add(const struct gs_cluster *cl, struct gs_shape_dist *d,
                       const struct gs_job_spec *spec)
{
    struct gs_shape s;
    gs_frag_shape_of_spec(cl, spec, 0, &s);
    gs_shape_dist_add_distinct(d, &s);
}

json_t *gs_frag_units_json(const struct gs_cluster *cl, int k)
{
    json_t *units = json_array();
    char name[GS_NAME_MAX + 16];
    for (int n = 0; units && n < gs_cluster_node_count(cl); n++) {
        uint64_t idle = gs_cluster_idle_mask(cl, n);
        int nd = gs_cluster_node_domains(cl, n);
        if (k > gs_cluster_node_gpus(cl, n)) {
            if (gs_cluster_node_gpus(cl, n) > 0 &&
                __builtin_popcountll(idle) == gs_cluster_node_gpus(cl, n))
                json_array_append_new(units, json_string(gs_cluster_node_name(cl, n)));
            continue;
        }
        if (k > gs_cluster_max_domain(cl) || nd == 1) {
            if (gs_cluster_node_sched(cl, n, idle, k) > 0)
                json_array_append_new(units, json_string(gs_cluster_node_name(cl, n)));
            continue;
        }
        for (int d = 0; d < nd; d++) {
            if (__builtin_popcountll(idle & gs_cluster_domain_mask(cl, n, d)) >= k) {
                snprintf(name, sizeof name, "%s/d%d", gs_cluster_node_name(cl, n), d);
                json_array_append_new(units, json_string(name));
            }
        }
    }
    return units;
}

static json_t *nodes_json(const struct gs_cluster *cl, int k)
{
    json_t *arr = json_array();
    for (int n = 0; arr && n < gs_cluster_node_count(cl); n++) {
        uint64_t idle = gs_cluster_idle_mask(cl, n);
        json_t *doms = json_array();
        for (int d = 0; doms && d < gs_cluster_node_domains(cl, n); d++)
            json_array_append_new(
                doms, json_integer(__builtin_popcountll(idle & gs_cluster_domain_mask(cl, n, d))));
        json_array_append_new(arr, json_pack("{s:s, s:i, s:i, s:o, s:i}", "name",
                                             gs_cluster_node_name(cl, n), "gpus",
                                             gs_cluster_node_gpus(cl, n), "free",
                                             __builtin_popcountll(idle), "domains_free", doms,
                                             "sched", gs_cluster_node_sched(cl, n, idle, k)));
    }
    return arr;
}

/* Memory and MIG fragmentation and, with a queue, FGD's expected
 * fragmentation w.r.t. the queued shapes (docs/placement.md). */
static void extra_json(json_t *frag, const struct gs_cluster *cl, const struct gs_shape_dist *d)
{
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    json_object_set_new(frag, "memory", json_real(gs_frag_memory(cl, d)));
    if (s.mig_gpus > 0)
        json_object_set_new(frag, "mig", json_real(gs_frag_mig(cl, d)));
    if (d->n > 0) {
        struct gs_frag_total t;
        gs_frag_cluster(cl, d, &t);
        json_object_set_new(frag, "expected",
                            json_pack("{s:f, s:f}", "gpus", t.frag_milli / GS_MILLI_GPU,
                                      "ratio", t.free_milli ? t.frag_milli / t.free_milli : 0));
    }
}

json_t *gs_frag_json(const struct gs_cluster *cl, gs_time time, struct gs_shape_dist *queue)
{
    gs_shape_dist_equal_weights(queue);
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    json_t *o = json_pack("{s:f, s:I, s:I}", "time", gs_time_to_sec(time), "gpus",
                          (json_int_t)s.gpus, "free_gpus", (json_int_t)s.idle_gpus);
    if (!o)
        return NULL;
    json_object_set_new(o, "schedulability",
                        json_pack("{s:i, s:I, s:o}", "k", s.k, "value", (json_int_t)s.sched,
                                  "units", gs_frag_units_json(cl, s.k)));
    json_t *frag = json_pack("{s:I, s:I}", "count", (json_int_t)s.frag_count, "topology",
                             (json_int_t)s.frag_topology);
    if (frag)
        extra_json(frag, cl, queue);
    json_object_set_new(o, "fragmentation", frag);
    if (s.mig_gpus > 0)
        json_object_set_new(o, "mig", json_pack("{s:I, s:I}", "gpus", (json_int_t)s.mig_gpus,
                                                "free_slices", (json_int_t)s.mig_free_compute));
    json_object_set_new(o, "nodes", nodes_json(cl, s.k));
    return o;
}

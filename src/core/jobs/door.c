/* door.c - why a job can never run: the message gs_engine_possible gives
 * when the engine's own test (partition, then a placement on the idle
 * cluster) says no.  The decision is the engine's; this only names the
 * request field to blame and the cluster's numbers beside it, checked
 * from the plainest cause (no partition, no such GPU model, more GPUs
 * than there are) to the subtlest (a topology no placement meets).
 */
#include "core/jobs/jobs.h"

#include <stdio.h>
#include <string.h>

#include "core/base/error.h"
#include "core/cluster/cluster.h"

/* What the nodes the request may use hold. */
struct door_sum {
    int64_t gpus;      /* GPUs of an allowed type */
    int64_t max_mem;   /* largest per-GPU memory among them, MiB */
    int max_node;      /* most such GPUs on one node */
    int max_domain;    /* largest NVLink domain among those nodes */
    int64_t max_cpu, max_host_mem;
};

static int type_ok(const struct gs_request *r, int t)
{
    if (r->gpu_types)
        return t >= 0 && t < 64 && (r->gpu_types >> t & 1);
    return r->gpu_type < 0 || r->gpu_type == t;
}

static void sum_nodes(const struct gs_cluster *cl, const struct gs_request *r,
                      struct door_sum *s)
{
    memset(s, 0, sizeof *s);
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        if (r->nodes_allowed && !r->nodes_allowed[n])
            continue;
        if (gs_cluster_node_cpu(cl, n) > s->max_cpu)
            s->max_cpu = gs_cluster_node_cpu(cl, n);
        if (gs_cluster_node_mem(cl, n) > s->max_host_mem)
            s->max_host_mem = gs_cluster_node_mem(cl, n);
        int t = gs_cluster_node_gpu_type(cl, n), g = gs_cluster_node_gpus(cl, n);
        if (!type_ok(r, t))
            continue;
        s->gpus += g;
        if (g > s->max_node)
            s->max_node = g;
        if (gs_cluster_gpu_type_mem(cl, t) > s->max_mem)
            s->max_mem = gs_cluster_gpu_type_mem(cl, t);
        for (int d = 0; d < gs_cluster_node_domains(cl, n); d++) {
            int dg = __builtin_popcountll(gs_cluster_domain_mask(cl, n, d));
            if (dg > s->max_domain)
                s->max_domain = dg;
        }
    }
}

/* The qualifiers of the numbers: the model asked for (" H100") and the
 * partition whose nodes they are (" in partition P"). */
static void where_text(const struct gs_engine *eng, const struct gs_job_spec *spec, int part,
                       char *model, size_t nm, char *in, size_t ni)
{
    model[0] = in[0] = '\0';
    if (spec->gpu_model && *spec->gpu_model)
        snprintf(model, nm, " %.40s", spec->gpu_model);
    const char *pname = part > 0 ? eng->pol.partitions[part - 1].name : NULL;
    if (part > 0 && eng->pol.partitions[part - 1].nnodes > 0)
        snprintf(in, ni, " in partition %.40s", pname && *pname ? pname : "(unnamed)");
}

static void models_text(const struct gs_cluster *cl, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 0; t < gs_cluster_gpu_type_count(cl) && len + 2 < n; t++) {
        int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
                         gs_cluster_gpu_type_name(cl, t));
        if (w < 0)
            break;
        len += (size_t)w;
        if (len >= n)
            len = n - 1;
    }
}

/* The cause among the resources' sizes, or 0 when every size fits. */
static int size_refusal(const struct gs_engine *eng, const struct gs_job_spec *spec,
                        const struct gs_request *r, int part, struct gs_error *err)
{
    struct door_sum s;
    sum_nodes(eng->cl, r, &s);
    char where[64], in[64];
    where_text(eng, spec, part, where, sizeof where, in, sizeof in);
    if (r->gpus > s.gpus)
        return gs_errorf(err, GS_EINVAL, "gpus: %d requested, the cluster has %lld%s GPUs%s",
                         r->gpus, (long long)s.gpus, where, in);
    if (r->mem_mib > 0 && r->mem_mib > s.max_mem)
        return gs_errorf(err, GS_EINVAL,
                         "gpu_mem_gb: %g GB per GPU requested, the largest%s GPU%s has %g GB",
                         (double)r->mem_mib / 1024.0, where, in, (double)s.max_mem / 1024.0);
    if (r->cpu_milli > 0 && r->cpu_milli > s.max_cpu)
        return gs_errorf(err, GS_EINVAL, "cpu: %g cores requested, the largest node has %g",
                         (double)r->cpu_milli / 1000.0, (double)s.max_cpu / 1000.0);
    if (r->host_mem_mib > 0 && r->host_mem_mib > s.max_host_mem)
        return gs_errorf(err, GS_EINVAL,
                         "host_mem_gb: %g GB requested, the largest node has %g GB",
                         (double)r->host_mem_mib / 1024.0, (double)s.max_host_mem / 1024.0);
    if (r->topology == GS_TOPO_DOMAIN && r->gpus > s.max_domain)
        return gs_errorf(err, GS_EINVAL,
                         "topology: domain: %d GPUs requested in one NVLink domain, the "
                         "largest%s has %d", r->gpus, in, s.max_domain);
    if (r->topology == GS_TOPO_NODE && r->gpus > s.max_node)
        return gs_errorf(err, GS_EINVAL,
                         "topology: node: %d GPUs requested on one node, the largest%s has %d",
                         r->gpus, in, s.max_node);
    return 0;
}

void gs_eng_refusal(const struct gs_engine *eng, const struct gs_job_spec *spec,
                    const struct gs_request *req, int part, struct gs_error *err)
{
    if (!req) {
        gs_errorf(err, GS_EINVAL, "class: no partition of the policy admits %s jobs",
                  spec->klass == GS_CLASS_INFER ? "inference" : "training");
        return;
    }
    char models[256];
    if (req->gpu_type == -2) {
        models_text(eng->cl, models, sizeof models);
        gs_errorf(err, GS_EINVAL, "gpu_model: no node has a %.60s GPU (the cluster has %s)",
                  spec->gpu_model ? spec->gpu_model : "", models);
        return;
    }
    if (size_refusal(eng, spec, req, part, err) < 0)
        return;
    if (req->mig)
        gs_errorf(err, GS_EINVAL, "mig: no GPU can hold a %.20s instance", spec->mig);
    else
        gs_errorf(err, GS_EINVAL,
                  "%s: no placement on this cluster can hold %d GPUs%s (at most %d per node, "
                  "%d per NVLink domain)",
                  spec->topology != GS_TOPO_AUTO ? "topology" : "gpus", req->gpus,
                  req->topology == GS_TOPO_AUTO ? " in whole NVLink domains" : "",
                  gs_cluster_max_node_gpus(eng->cl), gs_cluster_max_domain(eng->cl));
}

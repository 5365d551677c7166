/* whatif.c - replay one trace on the variants of whatif.h and draw the
 * verdict from the waits. */
#include "sim/whatif.h"
#include "core/alloc.h"

#include <stdio.h>
#include <string.h>

/* Replay and keep the summary and wait distribution as run `kind`. */
static int run_one(struct gs_whatif *w, int kind, const char *name, int added,
                   const struct gs_cluster *cl, const struct gs_policy *pol,
                   const struct gs_trace *tr, const struct gs_sim_opts *opts,
                   struct gs_error *err)
{
    struct gs_sim_result res = { 0 }, *r = kind == GS_WHATIF_ACTUAL ? &w->actual : &res;
    int rc = gs_sim_run(cl, pol, tr, opts, r, err);
    if (rc < 0) {
        if (err) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            gs_errorf(err, rc, "%s: %s", name, msg);
        }
        return rc;
    }
    struct gs_whatif_run *run = &w->runs[w->nruns++];
    run->kind = kind;
    snprintf(run->name, sizeof run->name, "%s", name);
    run->added_nodes = added;
    run->gpus = gs_cluster_gpu_count(cl);
    run->sum = r->summary;                   /* moved: the result keeps none of it */
    memset(&r->summary, 0, sizeof r->summary);
    gs_wait_cdf_build(&run->cdf, r->engine);
    if (r != &w->actual)
        gs_sim_result_fini(r);
    return 0;
}

/* The trace with every job's topology set to `any`. */
static struct gs_trace *trace_any(const struct gs_trace *tr)
{
    struct gs_trace *t = gs_trace_create();
    for (size_t i = 0; t && i < gs_trace_count(tr); i++) {
        struct gs_job_spec s = *gs_trace_job(tr, i);
        s.topology = GS_TOPO_ANY;
        if (gs_trace_add(t, &s, gs_trace_duration(tr, i)) < 0) {
            gs_trace_destroy(t);
            return NULL;
        }
    }
    return t;
}

static int node_bound_partitions(const struct gs_policy *p)
{
    for (int i = 0; i < p->npartitions; i++)
        if (p->partitions[i].nnodes > 0)
            return 1;
    return 0;
}

static int run_fluid(struct gs_whatif *w, const struct gs_cluster *cl, const struct gs_policy *pol,
                     const char *name, const struct gs_trace *tr, struct gs_error *err)
{
    if (node_bound_partitions(pol)) {
        snprintf(w->fluid_note, sizeof w->fluid_note,
                 "no fluid run: the policy binds partitions to nodes");
        return 0;
    }
    struct gs_cluster *fc = gs_cluster_fluid(cl, err);
    struct gs_trace *ft = fc ? trace_any(tr) : NULL;
    struct gs_policy fp;
    int rc = fc ? 0 : (err ? err->code : GS_ENOMEM);
    if (rc == 0 && !ft)
        rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    if (rc == 0 && gs_policy_copy(&fp, pol) < 0)
        rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    if (rc == 0) {
        fp.slow_pcie = fp.slow_network = 1.0; /* no boundary: no split slow-down */
        fp.sched_k = gs_cluster_stats(cl).k;
        fp.topology = GS_TOPO_ANY;
        rc = run_one(w, GS_WHATIF_FLUID, name, 0, fc, &fp, ft, NULL, err);
        gs_policy_fini(&fp);
    }
    gs_trace_destroy(ft);
    gs_cluster_destroy(fc);
    return rc;
}

static int run_nodes(struct gs_whatif *w, const struct gs_cluster *cl,
                     const struct gs_policy *pol, const struct gs_trace *tr, int n,
                     struct gs_error *err)
{
    struct gs_cluster *c = gs_cluster_add_like(cl, n, err);
    if (!c)
        return err ? err->code : GS_ENOMEM;
    char name[32];
    snprintf(name, sizeof name, "+%d node%s", n, n == 1 ? "" : "s");
    int rc = run_one(w, GS_WHATIF_NODES, name, n, c, pol, tr, NULL, err);
    gs_cluster_destroy(c);
    return rc;
}

/* The seed's boundary table: one node of at most 8 GPUs, uniform jobs,
 * inference only. */
static void boundaries(struct gs_whatif_verdict *v, const struct gs_cluster *cl,
                       const struct gs_trace *tr)
{
    size_t n = gs_trace_count(tr), infer = 0, count[GS_MAX_NODE_GPUS + 2] = { 0 };
    int64_t half = (gs_cluster_gpu_count(cl) + 1) / 2;
    for (size_t i = 0; i < n; i++) {
        const struct gs_job_spec *s = gs_trace_job(tr, i);
        infer += s->klass == GS_CLASS_INFER;
        v->wide_jobs += s->gpus >= half;
        int g = s->milli < GS_MILLI_GPU ? GS_MAX_NODE_GPUS + 1
                : s->gpus > GS_MAX_NODE_GPUS ? GS_MAX_NODE_GPUS : s->gpus;
        count[g]++;
    }
    int best = 0;
    for (int g = 1; g <= GS_MAX_NODE_GPUS + 1; g++)
        if (count[g] > count[best])
            best = g;
    v->uniform_gpus = best;
    v->uniform_share = n ? (double)count[best] / (double)n : 0;
    if (gs_cluster_node_count(cl) == 1 && gs_cluster_gpu_count(cl) <= 8)
        v->bounds |= GS_BOUND_ONE_NODE;
    if (n && v->uniform_share >= GS_WHATIF_UNIFORM)
        v->bounds |= GS_BOUND_UNIFORM;
    if (n && infer == n)
        v->bounds |= GS_BOUND_INFER_ONLY;
}

static void policy_figures(struct gs_whatif *w, double gap)
{
    struct gs_whatif_verdict *v = &w->v;
    const struct gs_pctl *a = &w->runs[0].sum.wait;
    v->best_policy = -1;
    for (int i = 1; i < w->nruns; i++) {
        if (w->runs[i].kind != GS_WHATIF_POLICY)
            continue;
        const struct gs_pctl *p = &w->runs[i].sum.wait, *b;
        if (v->best_policy >= 0) {
            b = &w->runs[v->best_policy].sum.wait;
            if (p->p90 > b->p90 || (p->p90 == b->p90 && p->p99 >= b->p99))
                continue;
        }
        v->best_policy = i;
    }
    if (v->best_policy < 0)
        return;
    const struct gs_pctl *b = &w->runs[v->best_policy].sum.wait;
    v->policy_gain90 = a->p90 - b->p90;
    v->policy_gain99 = a->p99 - b->p99;
    v->policy_recovered = gap > 0 ? v->policy_gain90 / gap : 0;
}

static void verdict(struct gs_whatif *w, const struct gs_cluster *cl, const struct gs_trace *tr)
{
    struct gs_whatif_verdict *v = &w->v;
    const struct gs_pctl *a = &w->runs[0].sum.wait;
    const struct gs_whatif_run *fluid = NULL;
    v->best_fluid = -1;
    for (int i = 0; i < w->nruns; i++) {
        if (w->runs[i].kind != GS_WHATIF_FLUID)
            continue;
        if (!fluid)
            fluid = &w->runs[i];
        if (v->best_fluid < 0 || w->runs[i].sum.wait.p90 < w->runs[v->best_fluid].sum.wait.p90)
            v->best_fluid = i;
    }
    v->p90[0] = a->p90;
    v->p99[0] = a->p99;
    if (fluid) {
        v->p90[1] = fluid->sum.wait.p90;
        v->p99[1] = fluid->sum.wait.p99;
        v->p90[2] = a->p90 > v->p90[1] ? a->p90 - v->p90[1] : 0;
        v->p99[2] = a->p99 > v->p99[1] ? a->p99 - v->p99[1] : 0;
        v->frag_share90 = a->p90 > 0 ? v->p90[2] / a->p90 : 0;
        v->frag_share99 = a->p99 > 0 ? v->p99[2] / a->p99 : 0;
        v->best_fluid_share = a->p90 > 0 ? w->runs[v->best_fluid].sum.wait.p90 / a->p90 : 0;
    }
    policy_figures(w, v->p90[2]);
    v->util_alloc = w->runs[0].sum.util_alloc;
    if (a->p90 < GS_WHATIF_NO_QUEUE_S)
        v->call = GS_VERDICT_NO_QUEUE;
    else if (!fluid)
        v->call = GS_VERDICT_UNKNOWN;
    else if (v->best_fluid_share >= GS_WHATIF_SHORTAGE)
        v->call = GS_VERDICT_SHORTAGE;
    else
        v->call = v->p90[2] >= v->policy_gain90 ? GS_VERDICT_FRAGMENTATION : GS_VERDICT_POLICY;
    boundaries(v, cl, tr);
}

int gs_whatif_run(struct gs_whatif *out, const struct gs_cluster *cl, const struct gs_trace *tr,
                  const struct gs_policy *pols, const char *const *names, int npol,
                  const int *add, int nadd, const struct gs_sim_opts *opts,
                  struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (npol < 1 || nadd < 0 || 2 * npol + nadd > GS_WHATIF_MAX_RUNS)
        return gs_errorf(err, GS_EINVAL, "whatif: 1 to %d policies and node counts in all",
                         GS_WHATIF_MAX_RUNS - 1);
    int rc = run_one(out, GS_WHATIF_ACTUAL, "actual", 0, cl, &pols[0], tr, opts, err);
    if (rc == 0)
        rc = run_fluid(out, cl, &pols[0], "fluid", tr, err);
    for (int i = 1; rc == 0 && i < npol; i++) {
        char fname[64];
        snprintf(fname, sizeof fname, "fluid + %.50s", names[i]);
        rc = run_one(out, GS_WHATIF_POLICY, names[i], 0, cl, &pols[i], tr, NULL, err);
        if (rc == 0 && !out->fluid_note[0])
            rc = run_fluid(out, cl, &pols[i], fname, tr, err);
    }
    for (int i = 0; rc == 0 && i < nadd; i++)
        rc = run_nodes(out, cl, &pols[0], tr, add[i], err);
    if (rc < 0) {
        gs_whatif_fini(out);
        return rc;
    }
    verdict(out, cl, tr);
    return 0;
}

void gs_whatif_fini(struct gs_whatif *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nruns; i++)
        gs_summary_fini(&w->runs[i].sum);
    w->nruns = 0;
    gs_sim_result_fini(&w->actual);
}

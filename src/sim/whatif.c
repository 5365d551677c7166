/* whatif.c - replay one trace on the variants of whatif.h and draw the
 * verdict from the waits. */
#include "sim/whatif.h"
#include "core/base/alloc.h"

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
    gs_whatif_judge(out, cl, tr);
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

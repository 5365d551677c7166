/* whatif_verdict.c - the whatif verdict: wait attributed by cause, checked
 * against the counterfactual runs (whatif.h, docs/diagnosis.md section 4).
 */
#include "sim/whatif.h"
#include "core/diagnose/diagnose.h"

#include <string.h>

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

static double rel_gain(double actual, double run)
{
    return actual > 0 ? (actual - run) / actual : 0;
}

double gs_whatif_gain(const struct gs_whatif *w, int i)
{
    const struct gs_pctl *a = &w->runs[0].sum.wait, *r = &w->runs[i].sum.wait;
    return rel_gain(a->p90, r->p90) + rel_gain(a->p99, r->p99);
}

/* Whether run i cuts the actual p90 or p99 by GS_WHATIF_HELPS. */
static int helps(const struct gs_whatif *w, int i)
{
    const struct gs_pctl *a = &w->runs[0].sum.wait, *r = &w->runs[i].sum.wait;
    return rel_gain(a->p90, r->p90) >= GS_WHATIF_HELPS ||
           rel_gain(a->p99, r->p99) >= GS_WHATIF_HELPS;
}

/* The fluid run under the current policy and the best fluid run of all:
 * the fragmentation part of the tails and the bound. */
static const struct gs_whatif_run *fluid_figures(struct gs_whatif *w)
{
    struct gs_whatif_verdict *v = &w->v;
    const struct gs_pctl *a = &w->runs[0].sum.wait;
    const struct gs_whatif_run *fluid = NULL;
    v->best_fluid = -1;
    for (int i = 0; i < w->nruns; i++) {
        if (w->runs[i].kind != GS_WHATIF_FLUID)
            continue;
        if (!fluid) {
            fluid = &w->runs[i];
            v->fluid_helps = helps(w, i);
        }
        if (v->best_fluid < 0 || gs_whatif_gain(w, i) > gs_whatif_gain(w, v->best_fluid))
            v->best_fluid = i;
    }
    v->p90[0] = a->p90;
    v->p99[0] = a->p99;
    if (!fluid)
        return NULL;
    v->p90[1] = fluid->sum.wait.p90;
    v->p99[1] = fluid->sum.wait.p99;
    v->p90[2] = a->p90 > v->p90[1] ? a->p90 - v->p90[1] : 0;
    v->p99[2] = a->p99 > v->p99[1] ? a->p99 - v->p99[1] : 0;
    v->frag_share90 = a->p90 > 0 ? v->p90[2] / a->p90 : 0;
    v->frag_share99 = a->p99 > 0 ? v->p99[2] / a->p99 : 0;
    const struct gs_pctl *b = &w->runs[v->best_fluid].sum.wait;
    v->best_fluid_share = a->p90 > 0 ? b->p90 / a->p90 : 0;
    v->best_fluid_share99 = a->p99 > 0 ? b->p99 / a->p99 : 0;
    v->bound_keeps = v->best_fluid_share >= GS_WHATIF_SHORTAGE &&
                     v->best_fluid_share99 >= GS_WHATIF_SHORTAGE;
    return fluid;
}

/* Alternative policies and added nodes, ranked by gs_whatif_gain (ties:
 * run order); the best policy and the best capacity run. */
static void rank_fixes(struct gs_whatif *w)
{
    struct gs_whatif_verdict *v = &w->v;
    const struct gs_pctl *a = &w->runs[0].sum.wait;
    v->best_policy = v->best_capacity = -1;
    v->nrank = 0;
    for (int i = 1; i < w->nruns; i++) {
        int kind = w->runs[i].kind;
        if (kind != GS_WHATIF_POLICY && kind != GS_WHATIF_NODES)
            continue;
        int at = v->nrank++;
        while (at > 0 && gs_whatif_gain(w, v->rank[at - 1]) < gs_whatif_gain(w, i)) {
            v->rank[at] = v->rank[at - 1];
            at--;
        }
        v->rank[at] = i;
        int *best = kind == GS_WHATIF_POLICY ? &v->best_policy : &v->best_capacity;
        if (*best < 0 || gs_whatif_gain(w, i) > gs_whatif_gain(w, *best))
            *best = i;
        if (kind == GS_WHATIF_POLICY && helps(w, i))
            v->policy_helps = 1;
    }
    if (v->best_policy < 0)
        return;
    const struct gs_pctl *b = &w->runs[v->best_policy].sum.wait;
    v->policy_gain90 = a->p90 - b->p90;
    v->policy_gain99 = a->p99 - b->p99;
    v->policy_recovered = v->p90[2] > 0 ? v->policy_gain90 / v->p90[2] : 0;
}

/* Shares of the actual run's waiting job-hours per group. */
static void attribute(struct gs_whatif_verdict *v, const struct gs_wait_reasons *r)
{
    double h[GS_REASON_COUNT] = { 0 };
    for (int c = 0; c < GS_REASON_COUNT; c++)
        for (int k = 0; k < GS_SIZE_CLASSES; k++)
            h[c] += r->job_h[c][k];
    double all = 0;
    for (int c = GS_REASON_NONE + 1; c < GS_REASON_COUNT; c++)
        all += h[c];
    v->wait_job_h = all;
    if (all <= 0)
        return;
    v->frag_form[0] = h[GS_REASON_COUNT_FRAG] / all;
    v->frag_form[1] = h[GS_REASON_TOPOLOGY_FRAG] / all;
    v->frag_form[2] = h[GS_REASON_MEMORY_FRAG] / all;
    v->priority_share = h[GS_REASON_PRIORITY] / all;
    v->reservation_share = h[GS_REASON_RESERVATION] / all;
    v->share[GS_GROUP_SHORTAGE] = h[GS_REASON_SHORTAGE] / all;
    v->share[GS_GROUP_FRAG] = v->frag_form[0] + v->frag_form[1] + v->frag_form[2];
    v->share[GS_GROUP_QUOTA] = (h[GS_REASON_QUOTA] + h[GS_REASON_PARTITION]) / all;
    v->share[GS_GROUP_POLICY] = v->priority_share + v->reservation_share;
}

/* "Behind a blocked job" is the queue rules' fault only if a policy shows
 * it; otherwise the jobs ahead waited for GPUs (shortage) or for GPUs in
 * the right place (fragmentation). */
static void resolve(struct gs_whatif_verdict *v, int have_fluid)
{
    memcpy(v->resolved, v->share, sizeof v->resolved);
    v->priority_to = GS_GROUP_POLICY;
    if (v->policy_helps || !have_fluid)
        return;
    if (v->bound_keeps)
        v->priority_to = GS_GROUP_SHORTAGE;
    else if (v->fluid_helps)
        v->priority_to = GS_GROUP_FRAG;
    else
        return;
    v->resolved[GS_GROUP_POLICY] -= v->priority_share;
    v->resolved[v->priority_to] += v->priority_share;
}

static int pick_cause(const struct gs_whatif_verdict *v, int have_fluid)
{
    static const int cause_of[GS_GROUPS] = { GS_CAUSE_SHORTAGE, GS_CAUSE_FRAGMENTATION,
                                             GS_CAUSE_QUOTA, GS_CAUSE_POLICY };
    int top = 0;
    for (int g = 1; g < GS_GROUPS; g++)
        if (v->resolved[g] > v->resolved[top])
            top = g;
    if (v->resolved[top] < GS_WHATIF_DOMINANT)
        return GS_CAUSE_MIXED;
    /* a shortage is one no scheduling removes: the bound must agree */
    if (top == GS_GROUP_SHORTAGE && have_fluid && !v->bound_keeps)
        return GS_CAUSE_MIXED;
    return cause_of[top];
}

/* The old four-way call, kept for readers of verdict.call. */
static int old_call(const struct gs_whatif_verdict *v, int have_fluid)
{
    if (v->cause == GS_CAUSE_NONE)
        return GS_VERDICT_NO_QUEUE;
    if (!have_fluid)
        return GS_VERDICT_UNKNOWN;
    if (v->cause == GS_CAUSE_SHORTAGE)
        return GS_VERDICT_SHORTAGE;
    return v->p90[2] >= v->policy_gain90 ? GS_VERDICT_FRAGMENTATION : GS_VERDICT_POLICY;
}

void gs_whatif_judge(struct gs_whatif *w, const struct gs_cluster *cl, const struct gs_trace *tr)
{
    struct gs_whatif_verdict *v = &w->v;
    const struct gs_pctl *a = &w->runs[0].sum.wait;
    int have_fluid = fluid_figures(w) != NULL;
    rank_fixes(w);
    attribute(v, &w->runs[0].sum.waits);
    resolve(v, have_fluid);
    v->util_alloc = w->runs[0].sum.util_alloc;
    if (a->p90 < GS_WHATIF_NO_QUEUE_S && a->p99 < GS_WHATIF_NO_QUEUE_P99_S)
        v->cause = GS_CAUSE_NONE;
    else
        v->cause = pick_cause(v, have_fluid);
    v->call = old_call(v, have_fluid);
    boundaries(v, cl, tr);
}

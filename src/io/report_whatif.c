/* report_whatif.c - the whatif table and verdict (report_whatif.h). */
#include "io/report_whatif.h"
#include "io/ioutil.h"
#include "io/report.h"

#include <string.h>

const char *gs_whatif_call_name(int call)
{
    static const char *const names[] = { "no_queue", "fragmentation", "policy", "shortage",
                                         "unknown" };
    return call >= 0 && call <= GS_VERDICT_UNKNOWN ? names[call] : "?";
}

void gs_report_short_dur(char *buf, size_t n, double sec)
{
    if (sec < 60)
        snprintf(buf, n, "%.0fs", sec);
    else if (sec < 3600)
        snprintf(buf, n, "%.0fm", sec / 60);
    else if (sec < 100 * 3600)
        snprintf(buf, n, "%.1fh", sec / 3600);
    else
        snprintf(buf, n, "%.0fh", sec / 3600);
}

static void triple(char *buf, size_t n, const struct gs_pctl *p)
{
    char a[16], b[16], c[16];
    if (!p->n) {
        snprintf(buf, n, "-");
        return;
    }
    gs_report_short_dur(a, sizeof a, p->p50);
    gs_report_short_dur(b, sizeof b, p->p90);
    gs_report_short_dur(c, sizeof c, p->p99);
    snprintf(buf, n, "%s/%s/%s", a, b, c);
}

void gs_report_whatif_table(FILE *f, const struct gs_whatif *w)
{
    char cell[64];
    fprintf(f, "%-22s %5s %17s", "run", "GPUs", "wait p50/p90/p99");
    for (int c = 0; c < GS_SIZE_CLASSES; c++) {
        snprintf(cell, sizeof cell, "%s GPU", gs_size_class_name(c));
        fprintf(f, " %17s", cell);
    }
    fprintf(f, " %6s %6s %5s %5s\n", "alloc", "effect", "S_k", "S>=1");
    for (int i = 0; i < w->nruns; i++) {
        const struct gs_summary *s = &w->runs[i].sum;
        triple(cell, sizeof cell, &s->wait);
        fprintf(f, "%-22.22s %5lld %17s", w->runs[i].name, (long long)w->runs[i].gpus, cell);
        for (int c = 0; c < GS_SIZE_CLASSES; c++) {
            triple(cell, sizeof cell, &s->wait_by_size[c]);
            fprintf(f, " %17s", cell);
        }
        fprintf(f, " %5.1f%% %5.1f%% %5.2f %4.0f%%\n", 100 * s->util_alloc,
                100 * s->util_effective, s->sched.mean, 100 * s->sched.share_ge1);
    }
}

static const struct gs_whatif_run *find_kind(const struct gs_whatif *w, int kind)
{
    for (int i = 0; i < w->nruns; i++)
        if (w->runs[i].kind == kind)
            return &w->runs[i];
    return NULL;
}

static void frag_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    const struct gs_whatif_run *fl = find_kind(w, GS_WHATIF_FLUID);
    char a[16], b[16], c[16], d[16];
    if (!fl) {
        gs_catf(buf, n, "Fragmentation: not measured (%s). ", w->fluid_note);
        return;
    }
    gs_report_short_dur(a, sizeof a, v->p90[0]);
    gs_report_short_dur(b, sizeof b, v->p90[1]);
    gs_report_short_dur(c, sizeof c, v->p99[0]);
    gs_report_short_dur(d, sizeof d, v->p99[1]);
    gs_catf(buf, n, "Fragmentation: on the fluid cluster (the same %lld GPUs with no node or "
                    "NVLink-domain boundaries) the p90 wait goes from %s to %s and the p99 from %s "
                    "to %s, so %.0f%% of the p90 and %.0f%% of the p99 wait is fragmentation. ",
            (long long)fl->gpus, a, b, c, d, 100 * v->frag_share90, 100 * v->frag_share99);
    if (v->p90[1] > v->p90[0])
        gs_catf(buf, n,
                "The fluid cluster is slower at the p90: without boundaries wide jobs start "
                "sooner and the many small jobs queued behind them wait longer, so "
                "fragmentation is not what sets this p90. ");
    int big = gs_job_size_class(w->runs[0].sum.sched.k);
    for (int cls = big; cls < GS_SIZE_CLASSES; cls++) {
        const struct gs_pctl *ab = &w->runs[0].sum.wait_by_size[cls],
                             *fb = &fl->sum.wait_by_size[cls];
        if (!ab->n || ab->p90 <= 0)
            continue;
        gs_report_short_dur(a, sizeof a, ab->p90);
        gs_report_short_dur(b, sizeof b, fb->p90);
        gs_catf(buf, n, "For %s-GPU jobs the p90 goes from %s to %s. ", gs_size_class_name(cls),
                a, b);
    }
}

static void policy_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    char a[16], b[16];
    if (v->best_policy < 0) {
        gs_catf(buf, n, "Policy: no alternative policy was given. ");
        return;
    }
    const struct gs_whatif_run *p = &w->runs[v->best_policy];
    gs_report_short_dur(a, sizeof a, p->sum.wait.p90);
    gs_report_short_dur(b, sizeof b, p->sum.wait.p99);
    gs_catf(buf, n,
            "Policy: the best alternative, %s, gives p90 %s and p99 %s (%+.1f h and %+.1f h",
            p->name, a, b, -v->policy_gain90 / 3600, -v->policy_gain99 / 3600);
    if (v->p90[2] > 0 && v->policy_recovered <= 1)
        gs_catf(buf, n, "; it recovers %.0f%% of the fragmentation part of the p90",
                100 * v->policy_recovered);
    else if (v->p90[2] > 0)
        gs_catf(buf, n, "; more than the whole fragmentation part of the p90");
    gs_catf(buf, n, "). ");
}

static void nodes_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    int any = 0;
    char a[16], b[16];
    const struct gs_summary *act = &w->runs[0].sum;
    for (int i = 0; i < w->nruns; i++) {
        const struct gs_whatif_run *r = &w->runs[i];
        if (r->kind != GS_WHATIF_NODES)
            continue;
        gs_report_short_dur(a, sizeof a, r->sum.wait.p90);
        gs_report_short_dur(b, sizeof b, r->sum.wait.p99);
        gs_catf(buf, n, "%s%s (%lld GPUs): p90 %s, p99 %s, util_alloc %.0f%% (now %.0f%%)",
                any ? "; " : "Capacity: ", r->name, (long long)r->gpus, a, b,
                100 * r->sum.util_alloc, 100 * act->util_alloc);
        any = 1;
    }
    if (any)
        gs_catf(buf, n, ". ");
}

static void call_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    char a[16], b[16], c[16];
    gs_report_short_dur(a, sizeof a, v->p90[2]);
    gs_report_short_dur(b, sizeof b, v->policy_gain90 > 0 ? v->policy_gain90 : 0);
    const struct gs_whatif_run *bf = v->best_fluid >= 0 ? &w->runs[v->best_fluid] : NULL;
    gs_report_short_dur(c, sizeof c, bf ? bf->sum.wait.p90 : 0);
    switch (v->call) {
    case GS_VERDICT_NO_QUEUE:
        gs_catf(buf, n,
                "Verdict: no queue worth fixing (p90 under 5 min); neither a new policy nor "
                "more GPUs is needed. ");
        break;
    case GS_VERDICT_FRAGMENTATION:
        gs_catf(buf, n,
                "Verdict: scheduling can help, and placement most - removing fragmentation "
                "saves %s of the p90, more than the best policy change (%s), and the best "
                "fragmentation-free run (%s) waits p90 %s. Fix scheduling before buying GPUs: "
                "on a fragmented cluster added nodes mostly lower util_alloc (the seed's "
                "68%% + 4 h becoming 55%% + 4 h). ", a, b, bf ? bf->name : "-", c);
        break;
    case GS_VERDICT_POLICY:
        gs_catf(buf, n, "Verdict: scheduling can help, and the queue rules most - the best policy "
                        "saves %s of the p90, more than removing fragmentation (%s), and the best "
                        "fragmentation-free run (%s) waits p90 %s. Change the policy before buying "
                        "GPUs. ", b, a, bf ? bf->name : "-", c);
        break;
    case GS_VERDICT_SHORTAGE:
        gs_catf(buf, n,
                "Verdict: past the point where scheduling can help - even the "
                "fragmentation-free cluster under the best policy (%s) queues, p90 %s "
                "(%.0f%% of the actual p90): this is a shortage of GPUs, and capacity is what "
                "shortens it. ", bf ? bf->name : "-", c, 100 * v->best_fluid_share);
        if (v->wide_jobs > 0)
            gs_catf(buf, n,
                    "At util_alloc %.0f%% the shortage is one of simultaneous capacity: "
                    "%lld jobs ask for at least half of the cluster's GPUs and must wait "
                    "for most of it to drain. ", 100 * v->util_alloc, (long long)v->wide_jobs);
        break;
    default:
        gs_catf(buf, n, "Verdict: unknown without the fluid run. ");
        break;
    }
}

static void bounds_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    if (!v->bounds) {
        gs_catf(buf, n, "None of the seed's cases where complex scheduling is unnecessary applies "
                        "(one node of <= 8 GPUs; %.1f%% of jobs share one size, under 95%%; "
                        "not inference only).", 100 * v->uniform_share);
        return;
    }
    gs_catf(buf, n, "Complex scheduling is unnecessary here:");
    if (v->bounds & GS_BOUND_ONE_NODE)
        gs_catf(buf, n, " one node of <= 8 GPUs, so a simple queue is enough;");
    if (v->bounds & GS_BOUND_UNIFORM) {
        if (v->uniform_gpus > GS_MAX_NODE_GPUS)
            gs_catf(buf, n, " %.0f%% of jobs ask for the same GPU share, so FIFO is enough;",
                    100 * v->uniform_share);
        else
            gs_catf(buf, n, " %.0f%% of jobs ask for %d GPUs (uniform jobs), so FIFO is enough;",
                    100 * v->uniform_share, v->uniform_gpus);
    }
    if (v->bounds & GS_BOUND_INFER_ONLY)
        gs_catf(buf, n, " inference only, so share GPUs by memory (MIG or time-slicing);");
    size_t len = strlen(buf);
    if (len > 0 && buf[len - 1] == ';')
        buf[len - 1] = '.';
}

void gs_report_whatif_verdict(char *buf, size_t n, const struct gs_whatif *w)
{
    buf[0] = '\0';
    frag_sentence(buf, n, w);
    policy_sentence(buf, n, w);
    nodes_sentence(buf, n, w);
    call_sentence(buf, n, w);
    bounds_sentence(buf, n, w);
}

static const char *kind_name(int kind)
{
    static const char *const names[] = { "actual", "fluid", "policy", "nodes" };
    return kind >= 0 && kind <= GS_WHATIF_NODES ? names[kind] : "?";
}

static json_t *run_json(const struct gs_whatif_run *r)
{
    const struct gs_summary *s = &r->sum;
    json_t *by = json_object();
    for (int c = 0; by && c < GS_SIZE_CLASSES; c++)
        json_object_set_new(by, gs_size_class_name(c), gs_report_pctl_json(&s->wait_by_size[c]));
    return json_pack("{s:s, s:s, s:I, s:i, s:o, s:o, s:f, s:f, s:f, s:{s:i, s:f, s:f}}", "name",
                     r->name, "kind", kind_name(r->kind), "gpus", (json_int_t)r->gpus,
                     "added_nodes", r->added_nodes, "wait", gs_report_pctl_json(&s->wait),
                     "wait_by_size", by, "util_alloc", s->util_alloc, "util_effective",
                     s->util_effective, "jobs_per_gpu_day", s->jobs_per_gpu_day,
                     "schedulability", "k", s->sched.k, "mean", s->sched.mean, "share_ge1",
                     s->sched.share_ge1);
}

json_t *gs_report_whatif_json(const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    char text[4096];
    gs_report_whatif_verdict(text, sizeof text, w);
    json_t *runs = json_array();
    for (int i = 0; runs && i < w->nruns; i++)
        json_array_append_new(runs, run_json(&w->runs[i]));
    json_t *bounds = json_pack("{s:b, s:b, s:b, s:i, s:f}", "one_node",
                               (v->bounds & GS_BOUND_ONE_NODE) != 0, "uniform_jobs",
                               (v->bounds & GS_BOUND_UNIFORM) != 0, "inference_only",
                               (v->bounds & GS_BOUND_INFER_ONLY) != 0, "dominant_gpus",
                               v->uniform_gpus, "dominant_share", v->uniform_share);
    json_t *verdict = json_pack(
        "{s:s, s:s, s:{s:f, s:f, s:f, s:f}, s:{s:f, s:f, s:f, s:f}, s:o, s:f, s:f, s:f, s:o}",
        "call", gs_whatif_call_name(v->call), "text", text, "p90", "actual", v->p90[0], "fluid",
        v->p90[1], "fragmentation", v->p90[2], "share", v->frag_share90, "p99", "actual",
        v->p99[0], "fluid", v->p99[1], "fragmentation", v->p99[2], "share", v->frag_share99,
        "best_policy",
        v->best_policy >= 0 ? json_string(w->runs[v->best_policy].name) : json_null(),
        "policy_gain_p90", v->policy_gain90, "policy_gain_p99", v->policy_gain99,
        "policy_recovered", v->policy_recovered, "boundaries", bounds);
    if (verdict)
        json_object_set_new(verdict, "wide_jobs", json_integer(v->wide_jobs));
    if (verdict && v->best_fluid >= 0) {
        json_object_set_new(verdict, "best_fluid", json_string(w->runs[v->best_fluid].name));
        json_object_set_new(verdict, "best_fluid_share", json_real(v->best_fluid_share));
    }
    return json_pack("{s:o, s:o}", "runs", runs, "verdict", verdict);
}

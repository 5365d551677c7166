/* report_verdict.c - the whatif verdict as a paragraph and as JSON
 * (report_whatif.h; the rules are in sim/whatif_verdict.c).
 *
 * The paragraph goes: why the jobs waited (attribution), what the fluid
 * bound allows, which fix shortens which tail by how much (ranked), the
 * verdict with its cause, and the seed's boundary cases - each sentence
 * built from the same numbers the JSON carries, so the two never disagree.
 */
#include "report/report_whatif.h"
#include "io/ioutil.h"
#include "report/report.h"

#include <string.h>

#define SHOW_FIXES 6 /* ranked fixes named in the paragraph */

static const char *const group_names[GS_GROUPS] = { "shortage", "fragmentation", "quota",
                                                    "queue rules" };

static void dur(char *buf, size_t n, double sec)
{
    gs_report_short_dur(buf, n, sec);
}

/* "p50 A -> B, p90 C -> D, p99 E -> F" of run i against the actual run. */
static void tails(char *buf, size_t n, const struct gs_whatif *w, int i)
{
    const struct gs_pctl *a = &w->runs[0].sum.wait, *r = &w->runs[i].sum.wait;
    const double av[3] = { a->p50, a->p90, a->p99 }, rv[3] = { r->p50, r->p90, r->p99 };
    static const char *const q[3] = { "p50", "p90", "p99" };
    for (int k = 0; k < 3; k++) {
        char x[16], y[16];
        dur(x, sizeof x, av[k]);
        dur(y, sizeof y, rv[k]);
        gs_catf(buf, n, "%s%s %s -> %s", k ? ", " : "", q[k], x, y);
    }
}

/* The size class and tail (p90 or p99) that run i shortens most, in hours. */
static void biggest_cut(char *buf, size_t n, const struct gs_whatif *w, int i)
{
    double best = 0;
    int cls = -1, q99 = 0;
    for (int c = 0; c < GS_SIZE_CLASSES; c++) {
        const struct gs_pctl *a = &w->runs[0].sum.wait_by_size[c],
                             *r = &w->runs[i].sum.wait_by_size[c];
        if (!a->n)
            continue;
        if (a->p90 - r->p90 > best) { best = a->p90 - r->p90; cls = c; q99 = 0; }
        if (a->p99 - r->p99 > best) { best = a->p99 - r->p99; cls = c; q99 = 1; }
    }
    if (cls < 0)
        return;
    const struct gs_pctl *a = &w->runs[0].sum.wait_by_size[cls],
                         *r = &w->runs[i].sum.wait_by_size[cls];
    char x[16], y[16];
    dur(x, sizeof x, q99 ? a->p99 : a->p90);
    dur(y, sizeof y, q99 ? r->p99 : r->p90);
    gs_catf(buf, n, " (most: %s-GPU jobs' %s %s -> %s)", gs_size_class_name(cls),
            q99 ? "p99" : "p90", x, y);
}

static void attribution_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    if (v->wait_job_h <= 0) {
        gs_catf(buf, n, "Why they waited: no job waited. ");
        return;
    }
    gs_catf(buf, n,
            "Why they waited (%.1f job-hours of waiting in the actual run): shortage %.0f%%, "
            "fragmentation %.0f%% (count %.0f%%, topology %.0f%%, memory %.0f%%), quota %.0f%%, "
            "behind blocked jobs (priority) %.0f%%, held for reservations %.0f%%. ",
            v->wait_job_h, 100 * v->share[GS_GROUP_SHORTAGE], 100 * v->share[GS_GROUP_FRAG],
            100 * v->frag_form[0], 100 * v->frag_form[1], 100 * v->frag_form[2],
            100 * v->share[GS_GROUP_QUOTA], 100 * v->priority_share,
            100 * v->reservation_share);
    if (v->priority_to != GS_GROUP_POLICY && v->priority_share > 0)
        gs_catf(buf, n,
                "No alternative policy shortens the p90 or p99 by %.0f%%, so the time behind "
                "blocked jobs is counted as %s: the jobs ahead waited for %s. ",
                100 * GS_WHATIF_HELPS, group_names[v->priority_to],
                v->priority_to == GS_GROUP_SHORTAGE ? "GPUs that are not there (the fluid "
                                                      "bound keeps half of both tails)"
                                                    : "GPUs in the right place (the fluid "
                                                      "cluster shortens a tail)");
}

static void bound_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    int fl = -1;
    for (int i = 0; i < w->nruns && fl < 0; i++)
        if (w->runs[i].kind == GS_WHATIF_FLUID)
            fl = i;
    if (fl < 0) {
        gs_catf(buf, n, "Fragmentation bound: not measured (%s). ", w->fluid_note);
        return;
    }
    gs_catf(buf, n, "Fragmentation bound: on the fluid cluster (the same %lld GPUs with no "
                    "node or NVLink-domain boundaries: a bound on what any placement could "
                    "give, not a policy) under the same policy, ",
            (long long)w->runs[fl].gpus);
    tails(buf, n, w, fl);
    gs_catf(buf, n, "; so %.0f%% of the p90 and %.0f%% of the p99 is fragmentation",
            100 * v->frag_share90, 100 * v->frag_share99);
    if (v->p90[1] > v->p90[0] || v->p99[1] > v->p99[0])
        gs_catf(buf, n, " (a fluid tail is longer: without boundaries wide jobs start sooner "
                        "and jobs queued behind them wait longer)");
    if (v->best_fluid != fl) {
        gs_catf(buf, n, "; the best bound, %s, ", w->runs[v->best_fluid].name);
        tails(buf, n, w, v->best_fluid);
    }
    gs_catf(buf, n, ". ");
}

static void fixes_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    if (v->nrank == 0) {
        gs_catf(buf, n, "Fixes: no alternative policy or added nodes were given. ");
        return;
    }
    gs_catf(buf, n, "Fixes, best first (by the relative cut of p90 plus p99): ");
    for (int r = 0; r < v->nrank && r < SHOW_FIXES; r++) {
        int i = v->rank[r];
        gs_catf(buf, n, "%s%s (%lld GPUs): ", r ? "; " : "", w->runs[i].name,
                (long long)w->runs[i].gpus);
        tails(buf, n, w, i);
        biggest_cut(buf, n, w, i);
    }
    if (v->nrank > SHOW_FIXES)
        gs_catf(buf, n, "; and %d more in the table", v->nrank - SHOW_FIXES);
    gs_catf(buf, n, ". ");
}

/* "NAME (p90 A -> B, p99 C -> D)" or "none given". */
static void fix_ref(char *buf, size_t n, const struct gs_whatif *w, int i)
{
    if (i < 0) {
        gs_catf(buf, n, "none given");
        return;
    }
    char a[16], b[16], c[16], d[16];
    dur(a, sizeof a, w->runs[0].sum.wait.p90);
    dur(b, sizeof b, w->runs[i].sum.wait.p90);
    dur(c, sizeof c, w->runs[0].sum.wait.p99);
    dur(d, sizeof d, w->runs[i].sum.wait.p99);
    gs_catf(buf, n, "%s (p90 %s -> %s, p99 %s -> %s)", w->runs[i].name, a, b, c, d);
}

/* Which of the best policy and the best capacity run shortens more. */
static void policy_vs_capacity(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    gs_catf(buf, n, "Best policy: ");
    fix_ref(buf, n, w, v->best_policy);
    gs_catf(buf, n, "; best capacity: ");
    fix_ref(buf, n, w, v->best_capacity);
    if (v->best_policy >= 0 && v->best_capacity >= 0) {
        double more = w->runs[0].gpus > 0 ? (double)(w->runs[v->best_capacity].gpus -
                                                     w->runs[0].gpus) / (double)w->runs[0].gpus
                                          : 0;
        if (gs_whatif_gain(w, v->best_policy) >= gs_whatif_gain(w, v->best_capacity))
            gs_catf(buf, n, "; the policy change, on the same GPUs, shortens the tails more");
        else
            gs_catf(buf, n, "; the added capacity (%.0f%% more GPUs) shortens the tails more, "
                            "the policy change costs no hardware", 100 * more);
    }
    gs_catf(buf, n, ". ");
}

static void cause_sentence(char *buf, size_t n, const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    const double *r = v->resolved;
    gs_catf(buf, n, "Verdict: cause %s - ", gs_whatif_cause_name(v->cause));
    switch (v->cause) {
    case GS_CAUSE_NONE:
        gs_catf(buf, n, "no queue worth fixing (p90 under 5 min, p99 under 30 min); neither a "
                        "new policy nor more GPUs is needed. ");
        return;
    case GS_CAUSE_SHORTAGE:
        gs_catf(buf, n, "a shortage of GPUs: %.0f%% of the waiting is for GPUs that are not "
                        "there, and even the fluid bound keeps %.0f%% of the p90 and %.0f%% of "
                        "the p99, so scheduling cannot remove it; capacity shortens it. ",
                100 * r[GS_GROUP_SHORTAGE], 100 * v->best_fluid_share,
                100 * v->best_fluid_share99);
        break;
    case GS_CAUSE_FRAGMENTATION:
        gs_catf(buf, n, "fragmentation: %.0f%% of the waiting had enough idle GPUs in the "
                        "wrong places; fix placement before buying GPUs. ",
                100 * r[GS_GROUP_FRAG]);
        break;
    case GS_CAUSE_QUOTA:
        gs_catf(buf, n, "quota: %.0f%% of the waiting is jobs held by their team's quota; a "
                        "quota must leave room for the team's largest job, or let it borrow "
                        "idle GPUs. ",
                100 * r[GS_GROUP_QUOTA]);
        break;
    case GS_CAUSE_POLICY:
        gs_catf(buf, n, "the queue rules: %.0f%% of the waiting is behind blocked jobs or "
                        "held for reservations, and a policy change shortens it; change the "
                        "policy before buying GPUs. ",
                100 * r[GS_GROUP_POLICY]);
        break;
    default:
        gs_catf(buf, n, "no cause holds %.0f%% of the waiting (shortage %.0f%%, fragmentation "
                        "%.0f%%, quota %.0f%%, queue rules %.0f%%)%s. ",
                100 * GS_WHATIF_DOMINANT, 100 * r[GS_GROUP_SHORTAGE], 100 * r[GS_GROUP_FRAG],
                100 * r[GS_GROUP_QUOTA], 100 * r[GS_GROUP_POLICY],
                r[GS_GROUP_SHORTAGE] >= GS_WHATIF_DOMINANT
                    ? "; the waiting is mostly for GPUs, but the fluid bound removes more "
                      "than half of a tail, so scheduling can still help"
                    : "");
        break;
    }
    policy_vs_capacity(buf, n, w);
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
    /* "a simple queue is enough" only when nothing here says otherwise */
    int matters = v->policy_helps || v->cause == GS_CAUSE_POLICY || v->cause == GS_CAUSE_QUOTA ||
                  v->cause == GS_CAUSE_FRAGMENTATION;
    gs_catf(buf, n, "%s", matters ? "The seed's simple cases apply to the workload, but here "
                                    "the queue rules or placement still matter, so a plain "
                                    "FIFO is not enough:"
                                  : "Complex scheduling is unnecessary here:");
    if (v->bounds & GS_BOUND_ONE_NODE)
        gs_catf(buf, n, " one node of <= 8 GPUs;");
    if (v->bounds & GS_BOUND_UNIFORM) {
        if (v->uniform_gpus > GS_MAX_NODE_GPUS)
            gs_catf(buf, n, " %.0f%% of jobs ask for the same GPU share;", 100 * v->uniform_share);
        else
            gs_catf(buf, n, " %.0f%% of jobs ask for %d GPUs (uniform jobs);",
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
    attribution_sentence(buf, n, w);
    bound_sentence(buf, n, w);
    fixes_sentence(buf, n, w);
    cause_sentence(buf, n, w);
    bounds_sentence(buf, n, w);
}

/* {run, kind, gpus, p50, p90, p99, gain_p90, gain_p99, by_size: {cls: {p90, p99}}} */
static json_t *fix_json(const struct gs_whatif *w, int i)
{
    const struct gs_whatif_run *r = &w->runs[i];
    const struct gs_pctl *a = &w->runs[0].sum.wait, *p = &r->sum.wait;
    json_t *by = json_object();
    for (int c = 0; by && c < GS_SIZE_CLASSES; c++) {
        const struct gs_pctl *ac = &w->runs[0].sum.wait_by_size[c], *rc = &r->sum.wait_by_size[c];
        if (ac->n)
            json_object_set_new(by, gs_size_class_name(c),
                                json_pack("{s:f, s:f, s:f, s:f}", "p90", rc->p90, "p99", rc->p99,
                                          "cut_p90", ac->p90 - rc->p90, "cut_p99",
                                          ac->p99 - rc->p99));
    }
    return json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "run", r->name,
                     "kind", r->kind == GS_WHATIF_NODES ? "capacity" : "policy", "gpus",
                     (json_int_t)r->gpus,
                     "p50", p->p50, "p90", p->p90, "p99", p->p99, "cut_p50", a->p50 - p->p50,
                     "cut_p90", a->p90 - p->p90, "cut_p99", a->p99 - p->p99, "score",
                     gs_whatif_gain(w, i), "by_size", by);
}

static json_t *attribution_json(const struct gs_whatif_verdict *v)
{
    return json_pack("{s:f, s:f, s:{s:f, s:f, s:f, s:f}, s:f, s:f, s:f, s:s, s:{s:f, s:f, s:f, "
                     "s:f}}",
                     "waiting_job_hours", v->wait_job_h, "shortage", v->share[GS_GROUP_SHORTAGE],
                     "fragmentation", "total", v->share[GS_GROUP_FRAG], "count", v->frag_form[0],
                     "topology", v->frag_form[1], "memory", v->frag_form[2], "quota",
                     v->share[GS_GROUP_QUOTA], "priority", v->priority_share, "reservation",
                     v->reservation_share, "priority_counted_as",
                     v->priority_to == GS_GROUP_POLICY ? "policy"
                     : v->priority_to == GS_GROUP_SHORTAGE ? "shortage" : "fragmentation",
                     "resolved", "shortage", v->resolved[GS_GROUP_SHORTAGE], "fragmentation",
                     v->resolved[GS_GROUP_FRAG], "quota", v->resolved[GS_GROUP_QUOTA], "policy",
                     v->resolved[GS_GROUP_POLICY]);
}

static json_t *bound_json(const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    if (v->best_fluid < 0)
        return json_null();
    return json_pack("{s:s, s:f, s:f, s:f, s:f, s:b, s:{s:f, s:f, s:f, s:f}}", "best",
                     w->runs[v->best_fluid].name, "p90", w->runs[v->best_fluid].sum.wait.p90,
                     "p99", w->runs[v->best_fluid].sum.wait.p99, "share_p90",
                     v->best_fluid_share, "share_p99", v->best_fluid_share99, "keeps_half",
                     v->bound_keeps, "same_policy", "p90", v->p90[1], "p99", v->p99[1],
                     "fragmentation_share_p90", v->frag_share90, "fragmentation_share_p99",
                     v->frag_share99);
}

static json_t *bounds_json(const struct gs_whatif_verdict *v)
{
    return json_pack("{s:b, s:b, s:b, s:i, s:f}", "one_node", (v->bounds & GS_BOUND_ONE_NODE) != 0,
                     "uniform_jobs", (v->bounds & GS_BOUND_UNIFORM) != 0, "inference_only",
                     (v->bounds & GS_BOUND_INFER_ONLY) != 0, "dominant_gpus", v->uniform_gpus,
                     "dominant_share", v->uniform_share);
}

static json_t *name_or_null(const struct gs_whatif *w, int i)
{
    return i >= 0 ? json_string(w->runs[i].name) : json_null();
}

json_t *gs_report_verdict_json(const struct gs_whatif *w)
{
    const struct gs_whatif_verdict *v = &w->v;
    char text[8192];
    gs_report_whatif_verdict(text, sizeof text, w);
    json_t *fixes = json_array();
    for (int r = 0; fixes && r < v->nrank; r++)
        json_array_append_new(fixes, fix_json(w, v->rank[r]));
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:{s:f, s:f, s:f, s:f}, "
        "s:{s:f, s:f, s:f, s:f}, s:f, s:f, s:f, s:o, s:I}",
        "cause", gs_whatif_cause_name(v->cause), "call", gs_whatif_call_name(v->call), "text",
        text, "attribution", attribution_json(v), "bound", bound_json(w), "fixes", fixes,
        "best_policy", name_or_null(w, v->best_policy), "best_capacity",
        name_or_null(w, v->best_capacity), "policy_helps", v->policy_helps, "p90", "actual",
        v->p90[0], "fluid", v->p90[1], "fragmentation", v->p90[2], "share", v->frag_share90,
        "p99", "actual", v->p99[0], "fluid", v->p99[1], "fragmentation", v->p99[2], "share",
        v->frag_share99, "policy_gain_p90", v->policy_gain90, "policy_gain_p99",
        v->policy_gain99, "policy_recovered", v->policy_recovered, "boundaries", bounds_json(v),
        "wide_jobs", (json_int_t)v->wide_jobs);
    if (o && v->best_fluid >= 0) {
        json_object_set_new(o, "best_fluid", json_string(w->runs[v->best_fluid].name));
        json_object_set_new(o, "best_fluid_share", json_real(v->best_fluid_share));
    }
    return o;
}

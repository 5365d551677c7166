/* report_whatif.c - the whatif table and verdict (report_whatif.h). */
#include "report/report_whatif.h"
#include "io/ioutil.h"
#include "report/report.h"

#include <string.h>

const char *gs_whatif_cause_name(int cause)
{
    static const char *const names[] = { "none", "shortage", "fragmentation", "policy",
                                         "quota", "mixed" };
    return cause >= 0 && cause <= GS_CAUSE_MIXED ? names[cause] : "?";
}

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
    json_t *runs = json_array();
    for (int i = 0; runs && i < w->nruns; i++)
        json_array_append_new(runs, run_json(&w->runs[i]));
    return json_pack("{s:o, s:o}", "runs", runs, "verdict", gs_report_verdict_json(w));
}

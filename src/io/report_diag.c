/* report_diag.c - waiting reasons, symptoms and pending-job explanations
 * as text and JSON (report_diag.h). */
#include "io/report_diag.h"
#include "io/ioutil.h"

#include <string.h>

#define MIB_PER_GB 1024.0

static const char *node_name(const struct gs_engine *eng, int node)
{
    return node >= 0 ? gs_cluster_node_name(gs_engine_cluster(eng), node) : "-";
}

static const char *job_id(const struct gs_engine *eng, int job)
{
    struct gs_job_info ji;
    return job >= 0 && gs_engine_job_info(eng, job, &ji) == 0 ? ji.id : "-";
}

/* ---- waiting time by reason ---------------------------------------------- */

static json_t *reason_json(const struct gs_wait_reasons *w, int c)
{
    double gh = 0, jh = 0;
    json_t *by = json_object();
    for (int z = 0; z < GS_SIZE_CLASSES; z++) {
        gh += w->gpu_h[c][z];
        jh += w->job_h[c][z];
        json_object_set_new(by, gs_size_class_name(z), json_real(w->gpu_h[c][z]));
    }
    return json_pack("{s:f, s:f, s:f, s:o}", "gpu_hours", gh, "share",
                     w->total_gpu_h > 0 ? gh / w->total_gpu_h : 0.0, "job_hours", jh,
                     "gpu_hours_by_size", by);
}

/* Per size class: the share of that class's waiting GPU-hours per reason. */
static json_t *by_size_json(const struct gs_wait_reasons *w)
{
    json_t *o = json_object();
    for (int z = 0; o && z < GS_SIZE_CLASSES; z++) {
        double tot = 0;
        for (int c = 0; c < GS_REASON_COUNT; c++)
            tot += w->gpu_h[c][z];
        json_t *x = json_object();
        json_object_set_new(x, "gpu_hours", json_real(tot));
        for (int c = 1; c < GS_REASON_COUNT; c++)
            json_object_set_new(x, gs_reason_name(c), json_real(tot > 0 ? w->gpu_h[c][z] / tot : 0));
        json_object_set_new(o, gs_size_class_name(z), x);
    }
    return o;
}

void gs_report_waits_json(json_t *o, const struct gs_summary *s, const struct gs_policy *pol)
{
    const struct gs_wait_reasons *w = &s->waits;
    json_t *by = json_object();
    for (int c = 0; by && c < GS_REASON_COUNT; c++)
        if (c > 0 || w->total_gpu_h > 0)
            json_object_set_new(by, gs_reason_name(c), reason_json(w, c));
    json_object_set_new(o, "wait_reasons",
                        json_pack("{s:f, s:f, s:o, s:o}", "gpu_hours", w->total_gpu_h,
                                  "job_hours", w->total_job_h, "by_reason", by, "by_size",
                                  by_size_json(w)));
    struct gs_symptoms y;
    gs_symptoms_check(&y, s, pol);
    json_object_set_new(o, "symptoms", gs_report_symptoms_json(&y));
}

void gs_report_waits_text(FILE *f, const struct gs_summary *s, const struct gs_policy *pol)
{
    const struct gs_wait_reasons *w = &s->waits;
    if (w->total_gpu_h > 0) {
        fprintf(f, "\nwaiting GPU-hours by reason (%.1f in all; share per size class)\n",
                w->total_gpu_h);
        fprintf(f, "  %-24s %9s %7s", "reason", "GPU-h", "share");
        for (int z = 0; z < GS_SIZE_CLASSES; z++)
            fprintf(f, " %7s", gs_size_class_name(z));
        fprintf(f, "\n");
        for (int c = 0; c < GS_REASON_COUNT; c++) {
            double gh = 0;
            for (int z = 0; z < GS_SIZE_CLASSES; z++)
                gh += w->gpu_h[c][z];
            if (gh <= 0)
                continue;
            fprintf(f, "  %-24s %9.1f %6.1f%%", gs_reason_name(c), gh, 100 * gh / w->total_gpu_h);
            for (int z = 0; z < GS_SIZE_CLASSES; z++)
                fprintf(f, " %7.1f", w->gpu_h[c][z]);
            fprintf(f, "\n");
        }
    }
    struct gs_symptoms y;
    gs_symptoms_check(&y, s, pol);
    char msg[512];
    fprintf(f, "\nsymptoms (docs/diagnosis.md):\n");
    for (int i = 0; i < GS_SYM_COUNT; i++) {
        gs_report_symptom_msg(msg, sizeof msg, &y, i);
        fprintf(f, "  [%s] %s: %s\n", y.s[i].fired ? "FIRED" : "  ok ", gs_symptom_name(i), msg);
    }
}

/* ---- symptoms ---------------------------------------------------------------- */

static void lacks_text(char *buf, size_t n, int lacks)
{
    if (!lacks) {
        gs_catf(buf, n, "; the policy has aging, quotas and backfill: tune them (quota per team,"
                        " reservations for big jobs)");
        return;
    }
    gs_catf(buf, n, "; the policy lacks%s%s%s", lacks & GS_SYM_NO_AGING ? " aging" : "",
            lacks & GS_SYM_NO_QUOTA ? " quotas" : "",
            lacks & GS_SYM_NO_BACKFILL ? " backfill" : "");
    gs_catf(buf, n, ": add aging and team quotas, and backfill with reservations");
}

/* "yes"/"no" for one condition of a check. */
static const char *held(int c)
{
    return c ? "yes" : "no";
}

/* Every message names each condition its check tests, the threshold and the
 * measured value, waits in hours and shares in percent throughout. */
void gs_report_symptom_msg(char *buf, size_t n, const struct gs_symptoms *y, int id)
{
    const double *v = y->s[id].v;
    const char *big = gs_size_class_name(y->big_class);
    const double lw = GS_SYM_LONG_WAIT_S / 3600;
    buf[0] = '\0';
    switch (id) {
    case GS_SYM_FREE_BUT_QUEUED:
        gs_catf(buf, n, "fires when count + topology + memory fragmentation hold >= %.0f%% of all "
                        "waiting GPU-hours: %.0f%% (%.1f of %.1f GPU-h, %s); on average %.1f idle "
                        "GPUs could not serve a %d-GPU job - consolidate placement (pack)",
                100 * GS_SYM_FRAG_SHARE, 100 * v[0], v[1], v[2],
                held(y->s[id].fired), v[3], y->k);
        break;
    case GS_SYM_LONG_QUEUE_MODERATE:
        gs_catf(buf, n, "fires when wait p90 >= %.2f h: %.2f h (%s), and util_alloc <= %.0f%%: "
                        "%.0f%% (%s); p99 %.2f h - look at the fragmentation split",
                lw, v[0] / 3600, held(v[0] >= GS_SYM_LONG_WAIT_S), 100 * GS_SYM_MODERATE_ALLOC,
                100 * v[1], held(v[1] <= GS_SYM_MODERATE_ALLOC), v[2] / 3600);
        break;
    case GS_SYM_BIG_JOBS_WAIT:
        gs_catf(buf, n, "fires when %s-GPU p90 >= %.2f h: %.2f h (%s), and >= %.0f x the 1-GPU "
                        "p90 %.2f h (%s), and S_%d >= 1 less than %.0f%% of the time: %.0f%% (%s); "
                        "%.0f%% of their waiting GPU-hours were fragmentation - schedule by "
                        "NVLink domain",
                big, lw, v[0] / 3600, held(v[0] >= GS_SYM_LONG_WAIT_S), GS_SYM_BIG_RATIO,
                v[1] / 3600, held(v[0] >= GS_SYM_BIG_RATIO * v[1]), y->k,
                100 * GS_SYM_SK_SHARE, 100 * v[2], held(v[2] < GS_SYM_SK_SHARE), 100 * v[3]);
        break;
    case GS_SYM_SMALL_CROWD_BIG:
        gs_catf(buf, n, "fires when %s-GPU p90 >= %.2f h: %.2f h (%s), and >= %.0f x the 1-GPU "
                        "p90 %.2f h (%s), and shortage + priority + reservation + quota hold >= "
                        "%.0f%% of their waiting GPU-hours: %.0f%% (%s)",
                big, lw, v[0] / 3600, held(v[0] >= GS_SYM_LONG_WAIT_S), GS_SYM_BIG_RATIO,
                v[1] / 3600, held(v[0] >= GS_SYM_BIG_RATIO * v[1]), 100 * GS_SYM_TAKEN_SHARE,
                100 * v[2], held(v[2] >= GS_SYM_TAKEN_SHARE));
        lacks_text(buf, n, (int)v[3]);
        break;
    default:
        gs_catf(buf, n, "fires when util_alloc >= %.0f%%: %.0f%% (%s), and util_effective < "
                        "%.0f%% of util_alloc: %.0f%% (util_effective %.0f%%, %s) - check "
                        "cross-domain placements, GPU sharing and checkpoint cost",
                100 * GS_SYM_BUSY_ALLOC, 100 * v[0], held(v[0] >= GS_SYM_BUSY_ALLOC),
                100 * GS_SYM_EFFECTIVE, 100 * v[2], 100 * v[1], held(v[2] < GS_SYM_EFFECTIVE));
        break;
    }
}

json_t *gs_report_symptoms_json(const struct gs_symptoms *y)
{
    json_t *arr = json_array();
    char msg[512];
    for (int i = 0; arr && i < GS_SYM_COUNT; i++) {
        gs_report_symptom_msg(msg, sizeof msg, y, i);
        json_t *vals = json_array();
        for (int k = 0; vals && k < 4; k++)
            json_array_append_new(vals, json_real(y->s[i].v[k]));
        json_array_append_new(arr, json_pack("{s:s, s:b, s:s, s:o}", "name", gs_symptom_name(i),
                                             "fired", y->s[i].fired, "message", msg, "values",
                                             vals));
    }
    return arr;
}

/* ---- one pending job ------------------------------------------------------- */

static void domains_text(char *buf, size_t n, const struct gs_diag *d)
{
    for (int i = 0; i < d->best_node_ndom; i++)
        gs_catf(buf, n, "%s%d", i ? "+" : "", d->best_node_dom_free[i]);
}

static void resource_detail(char *buf, size_t n, const struct gs_engine *eng,
                            const struct gs_diag *d, int code)
{
    switch (code) {
    case GS_REASON_SHORTAGE:
        gs_catf(buf, n, "%lld GPUs free for it, needs %d", (long long)d->free_gpus, d->gpus);
        break;
    case GS_REASON_COUNT_FRAG:
        if (d->gpus > gs_cluster_max_node_gpus(gs_engine_cluster(eng)))
            gs_catf(buf, n, "%lld GPUs free, but a %d-GPU job needs whole idle nodes: there %s %d "
                            "(%lld GPUs) and at most %d idle on any other node",
                    (long long)d->free_gpus, d->gpus, d->whole_nodes_free == 1 ? "is" : "are",
                    d->whole_nodes_free, (long long)d->whole_nodes_gpus, d->rest_free);
        else
            gs_catf(buf, n, "%lld GPUs free, but no node has %d: the most on one node is %d (%s)",
                    (long long)d->free_gpus, d->gpus, d->best_node_free,
                    node_name(eng, d->best_node));
        break;
    case GS_REASON_TOPOLOGY_FRAG:
        gs_catf(buf, n, "%lld GPUs free; the largest block on one node is %d (%s) but split ",
                (long long)d->free_gpus, d->best_node_free, node_name(eng, d->best_node));
        domains_text(buf, n, d);
        gs_catf(buf, n, " across NVLink domains; the largest free block inside one domain is %d"
                        " (%s)", d->best_dom_free, node_name(eng, d->best_dom_node));
        break;
    case GS_REASON_MEMORY_FRAG:
        if (d->milli < GS_MILLI_GPU)
            gs_catf(buf, n, "%lld GPU%s a %.2f share free, but at most %.0f GB free memory "
                            "(needs %.0f GB)", (long long)d->mem_any_gpus,
                    d->mem_any_gpus == 1 ? " has" : "s have", d->milli / 1000.0,
                    d->best_mem_free_mib / MIB_PER_GB, d->mem_mib / MIB_PER_GB);
        else
            gs_catf(buf, n, "%lld GPUs free, but only %lld with %.0f GB per GPU",
                    (long long)d->mem_any_gpus, (long long)d->mem_ok_gpus, d->mem_mib / MIB_PER_GB);
        break;
    default:
        break;
    }
}

void gs_report_diag_detail(char *buf, size_t n, const struct gs_engine *eng,
                           const struct gs_diag *d)
{
    struct gs_job_info ji = { 0 };
    if (gs_engine_job_info(eng, d->job, &ji) < 0)
        ji.team = "-"; /* a job not submitted (gs_engine_probe) */
    buf[0] = '\0';
    switch (d->reason) {
    case GS_REASON_NONE:
        gs_catf(buf, n, "fits now (%lld GPUs free): starts at the next pass",
                (long long)d->free_gpus);
        break;
    case GS_REASON_QUOTA:
        gs_catf(buf, n, "team %s holds %.1f GPUs of its %d-GPU quota; this job needs %d more",
                ji.team, d->team_used_gpus, d->quota_gpus, d->gpus);
        break;
    case GS_REASON_PRIORITY:
        gs_catf(buf, n, "%d job%s ahead (%lld GPUs) must start first", d->ahead_jobs,
                d->ahead_jobs == 1 ? "" : "s", (long long)d->ahead_gpus);
        if (d->blocker >= 0)
            gs_catf(buf, n, "; the first blocked one is %s", job_id(eng, d->blocker));
        break;
    case GS_REASON_RESERVATION:
        gs_catf(buf, n, "fits the idle GPUs now, but %lld of them are held for reserved job %s "
                        "(from t=%.0f s) and it would still run then",
                (long long)d->reserved_idle_gpus, job_id(eng, d->holder),
                gs_time_to_sec(d->holder_start));
        break;
    case GS_REASON_PARTITION:
        if (d->partitioned)
            gs_catf(buf, n,
                    "its partition has %lld GPUs free; %lld usable GPUs are free outside it",
                    (long long)d->free_gpus, (long long)d->outside_free_gpus);
        else
            gs_catf(buf, n, "its partition is at its GPU quota; %lld GPUs are free in the cluster",
                    (long long)d->free_gpus);
        break;
    default:
        resource_detail(buf, n, eng, d, d->reason);
        break;
    }
}

void gs_report_diag_unblock(char *buf, size_t n, const struct gs_engine *eng,
                            const struct gs_diag *d)
{
    buf[0] = '\0';
    long long g = (long long)d->unblock_gpus;
    switch (d->reason) {
    case GS_REASON_SHORTAGE:
        gs_catf(buf, n, "%lld more GPU%s must be released", g, g == 1 ? "" : "s");
        break;
    case GS_REASON_COUNT_FRAG:
        if (d->unblock_node >= 0)
            gs_catf(buf, n, "free %lld more GPU%s on %s (pack jobs so nodes empty)", g,
                    g == 1 ? "" : "s", node_name(eng, d->unblock_node));
        else
            gs_catf(buf, n, "%lld more idle GPUs on whole nodes (pack jobs so nodes empty)", g);
        break;
    case GS_REASON_TOPOLOGY_FRAG:
        gs_catf(buf, n, "free %lld more GPU%s in one NVLink domain of %s, or accept a "
                        "cross-domain placement (topology: node; slower)",
                g, g == 1 ? "" : "s", node_name(eng, d->unblock_node));
        break;
    case GS_REASON_MEMORY_FRAG:
        gs_catf(buf, n, "%lld more GPU%s with enough free memory", g, g == 1 ? "" : "s");
        break;
    case GS_REASON_QUOTA:
        gs_catf(buf, n, "its team must release %lld GPU%s (or borrow idle quota)", g,
                g == 1 ? "" : "s");
        break;
    case GS_REASON_PRIORITY:
        gs_catf(buf, n, "the jobs ahead start (backfill lets it pass if it ends before them)");
        break;
    case GS_REASON_RESERVATION:
        gs_catf(buf, n, "reserved job %s starts, or a shorter run that ends before t=%.0f s",
                job_id(eng, d->holder), gs_time_to_sec(d->holder_start));
        break;
    case GS_REASON_PARTITION:
        gs_catf(buf, n, "GPUs free in its partition, or a partition that may borrow");
        break;
    default:
        gs_catf(buf, n, "nothing: it fits now");
        break;
    }
}

/* Idle-GPU figures shared by shortage, count and topology. */
static void resource_numbers(json_t *o, const struct gs_engine *eng, const struct gs_diag *d)
{
    json_t *doms = json_array();
    for (int i = 0; doms && i < d->best_node_ndom; i++)
        json_array_append_new(doms, json_integer(d->best_node_dom_free[i]));
    json_object_set_new(o, "gpus", json_integer(d->gpus));
    json_object_set_new(o, "free_gpus", json_integer(d->free_gpus));
    json_object_set_new(o, "cluster_free_gpus", json_integer(d->cluster_free_gpus));
    json_object_set_new(o, "largest_node_block", json_integer(d->best_node_free));
    json_object_set_new(o, "largest_node", json_string(node_name(eng, d->best_node)));
    json_object_set_new(o, "largest_node_domains_free", doms);
    json_object_set_new(o, "largest_domain_block", json_integer(d->best_dom_free));
    json_object_set_new(o, "largest_domain_node", json_string(node_name(eng, d->best_dom_node)));
    json_object_set_new(o, "whole_idle_nodes", json_integer(d->whole_nodes_free));
}

static void other_numbers(json_t *o, const struct gs_engine *eng, const struct gs_diag *d, int c)
{
    struct gs_job_info ji = { 0 };
    if (gs_engine_job_info(eng, d->job, &ji) < 0)
        ji.team = "-"; /* a job not submitted (gs_engine_probe) */
    if (c == GS_REASON_QUOTA) {
        json_object_set_new(o, "team", json_string(ji.team));
        json_object_set_new(o, "quota_gpus", json_integer(d->quota_gpus));
        json_object_set_new(o, "team_used_gpus", json_real(d->team_used_gpus));
    } else if (c == GS_REASON_PRIORITY) {
        json_object_set_new(o, "ahead_jobs", json_integer(d->ahead_jobs));
        json_object_set_new(o, "ahead_gpus", json_integer(d->ahead_gpus));
        json_object_set_new(o, "blocker", d->blocker >= 0 ? json_string(job_id(eng, d->blocker))
                                                          : json_null());
    } else if (c == GS_REASON_RESERVATION) {
        json_object_set_new(o, "reserved_idle_gpus", json_integer(d->reserved_idle_gpus));
        json_object_set_new(o, "holder", d->holder >= 0 ? json_string(job_id(eng, d->holder))
                                                        : json_null());
        json_object_set_new(o, "holder_start", d->holder >= 0
                                                   ? json_real(gs_time_to_sec(d->holder_start))
                                                   : json_null());
    } else if (c == GS_REASON_PARTITION) {
        const char *part = gs_engine_partition_name(eng, d->job);
        json_object_set_new(o, "partition", part ? json_string(part) : json_null());
        json_object_set_new(o, "free_gpus", json_integer(d->free_gpus));
        json_object_set_new(o, "outside_free_gpus", json_integer(d->outside_free_gpus));
    }
}

/* The numbers of one applicable code. */
static json_t *code_json(const struct gs_engine *eng, const struct gs_diag *d, int c)
{
    json_t *o = json_pack("{s:s}", "code", gs_reason_name(c));
    if (!o)
        return NULL;
    if (c == GS_REASON_SHORTAGE || c == GS_REASON_COUNT_FRAG || c == GS_REASON_TOPOLOGY_FRAG) {
        resource_numbers(o, eng, d);
    } else if (c == GS_REASON_MEMORY_FRAG) {
        json_object_set_new(o, "gpus", json_integer(d->gpus));
        json_object_set_new(o, "mem_gb", json_real(d->mem_mib / MIB_PER_GB));
        json_object_set_new(o, "gpus_free_any_memory", json_integer(d->mem_any_gpus));
        json_object_set_new(o, "gpus_free_enough_memory", json_integer(d->mem_ok_gpus));
        json_object_set_new(o, "best_free_mem_gb", json_real(d->best_mem_free_mib / MIB_PER_GB));
    } else {
        other_numbers(o, eng, d, c);
    }
    return o;
}

static json_t *time_or_null(gs_time t)
{
    return t == GS_TIME_NONE || t == GS_TIME_INF ? json_null() : json_real(gs_time_to_sec(t));
}

json_t *gs_report_diag_json(const struct gs_engine *eng, const struct gs_diag *d)
{
    char detail[512], unblock[256];
    gs_report_diag_detail(detail, sizeof detail, eng, d);
    gs_report_diag_unblock(unblock, sizeof unblock, eng, d);
    json_t *reasons = json_array();
    if (d->reason != GS_REASON_NONE)
        json_array_append_new(reasons, code_json(eng, d, d->reason));
    for (int c = 1; reasons && c < GS_REASON_COUNT; c++)
        if (c != d->reason && (d->codes & (1u << c)))
            json_array_append_new(reasons, code_json(eng, d, c));
    gs_time in = d->est_start == GS_TIME_NONE ? GS_TIME_NONE : d->est_start - gs_engine_now(eng);
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:o}", "id", job_id(eng, d->job),
                     "reason", gs_reason_name(d->reason), "detail", detail, "unblock", unblock,
                     "reasons", reasons, "est_start", time_or_null(d->est_start), "est_in",
                     time_or_null(in), "est_basis", gs_est_basis_name(d->est_basis),
                     "est_duration", time_or_null(d->est_duration));
}

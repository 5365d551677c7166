/* report.c - summary JSON/text and the jobs/timeline CSV files. */
#include "report/report.h"
#include "io/csv.h"
#include "io/job_fields.h"
#include "io/placement.h"
#include "io/report_diag.h"
#include "report/report_fail.h"
#include "report/report_preempt.h"
#include "core/diagnose/diagnose.h"
#include "core/metrics/preempt_metrics.h"

#include <stdlib.h>
#include <string.h>

void gs_report_fmt_sec(char *buf, size_t n, double sec)
{
    snprintf(buf, n, "%.3f", sec);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0')
        *end-- = '\0';
    if (end == dot)
        *end = '\0';
}

/* A statistic over nothing is unknown, not 0: null when `known` is false. */
static json_t *real_or_null(int known, double v)
{
    return known ? json_real(v) : json_null();
}

json_t *gs_report_pctl_json(const struct gs_pctl *p)
{
    int k = p->n > 0;
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)p->n, "p50",
                     real_or_null(k, p->p50), "p90", real_or_null(k, p->p90), "p99",
                     real_or_null(k, p->p99), "mean", real_or_null(k, p->mean), "max",
                     real_or_null(k, p->max));
}

static json_t *by_size_json(const struct gs_summary *s)
{
    json_t *o = json_object();
    for (int c = 0; o && c < GS_SIZE_CLASSES; c++)
        json_object_set_new(o, gs_size_class_name(c), gs_report_pctl_json(&s->wait_by_size[c]));
    return o;
}

static json_t *by_team_json(const struct gs_summary *s)
{
    json_t *o = json_object();
    for (int t = 0; o && t < s->nteams; t++)
        json_object_set_new(o, s->teams[t].team, gs_report_pctl_json(&s->teams[t].wait));
    return o;
}

static json_t *sched_json(const struct gs_summary *s)
{
    int span = s->span_end > s->span_start, w = s->sched.windows > 0;
    return json_pack("{s:i, s:o, s:o, s:{s:I, s:o, s:o, s:o, s:o}}", "k", s->sched.k, "mean",
                     real_or_null(span, s->sched.mean), "share_ge1",
                     real_or_null(span, s->sched.share_ge1), "windows", "count",
                     (json_int_t)s->sched.windows, "mean", real_or_null(w, s->sched.win_mean),
                     "p50", real_or_null(w, s->sched.win_p50), "p90",
                     real_or_null(w, s->sched.win_p90), "max", real_or_null(w, s->sched.win_max));
}

static json_t *policy_json(const struct gs_policy *p)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "queue", gs_policy_queue_name(p->queue_policy),
                     "placement", gs_policy_strategy_name(p->strategy), "backfill",
                     gs_policy_backfill_name(gs_policy_backfill_mode(p)), "duration_estimate",
                     gs_policy_estimate_name(p->estimate));
}

json_t *gs_report_summary_json(const struct gs_summary *s, const struct gs_policy *pol)
{
    json_t *o = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:f, s:f, s:f}}", "jobs",
        (json_int_t)s->jobs, "completed", (json_int_t)s->completed, "killed",
        (json_int_t)s->killed, "cancelled", (json_int_t)s->cancelled, "rejected",
        (json_int_t)s->rejected, "unfinished", (json_int_t)s->unfinished, "backfilled",
        (json_int_t)s->backfilled, "gpus", (json_int_t)s->gpus, "span", "start",
        gs_time_to_sec(s->span_start), "end", gs_time_to_sec(s->span_end), "seconds",
        gs_time_to_sec(s->span_end - s->span_start));
    if (!o)
        return NULL;
    if (s->failed > 0) /* node failures, live outcomes: only then, so old outputs stay */
        json_object_set_new(o, "failed", json_integer((json_int_t)s->failed));
    json_object_set_new(o, "wait", gs_report_pctl_json(&s->wait));
    json_object_set_new(o, "wait_by_size", by_size_json(s));
    json_object_set_new(o, "wait_by_team", by_team_json(s));
    json_object_set_new(o, "jct", gs_report_pctl_json(&s->jct));
    int span = s->span_end > s->span_start;
    json_object_set_new(o, "util_alloc", real_or_null(span, s->util_alloc));
    json_object_set_new(o, "util_effective", real_or_null(span, s->util_effective));
    json_object_set_new(o, "util_effective_note",
                        json_string(s->util_effective_modelled
                                        ? "useful work of completed jobs at full speed; "
                                          "slow-downs from split placement and GPU sharing "
                                          "(docs/placement.md), checkpoint time, lost and "
                                          "killed work are excluded"
                                        : "useful work of completed jobs; checkpoint time, "
                                          "lost and killed work are excluded, but slow-downs "
                                          "from placement and GPU sharing are not modelled"));
    json_object_set_new(o, "jobs_per_gpu_day", real_or_null(span, s->jobs_per_gpu_day));
    json_object_set_new(o, "schedulability", sched_json(s));
    json_object_set_new(o, "fragmentation",
                        json_pack("{s:o, s:o, s:o, s:o}", "count",
                                  real_or_null(span, s->frag.count), "topology",
                                  real_or_null(span, s->frag.topology), "memory",
                                  real_or_null(span, s->frag.memory), "mig",
                                  real_or_null(span, s->frag.mig)));
    int est = s->estimate.n > 0;
    json_object_set_new(o, "estimate_accuracy",
                        json_pack("{s:I, s:o, s:o, s:o}", "jobs", (json_int_t)s->estimate.n,
                                  "ratio_p50", real_or_null(est, s->estimate.ratio_p50),
                                  "ratio_p90", real_or_null(est, s->estimate.ratio_p90),
                                  "underestimated", real_or_null(est, s->estimate.under_share)));
    gs_report_preempt_json(o, s);
    gs_report_waits_json(o, s, pol);
    json_object_set_new(o, "queue",
                        json_pack("{s:I, s:I, s:I}", "passes", (json_int_t)s->queue.passes,
                                  "held_back", (json_int_t)s->queue.held_back, "skipped",
                                  (json_int_t)s->queue.skipped));
    if (pol)
        json_object_set_new(o, "policy", policy_json(pol));
    return o;
}

void gs_report_fmt_dur(char *buf, size_t n, double sec)
{
    if (sec < 60)
        snprintf(buf, n, "%.0fs", sec);
    else if (sec < 3600)
        snprintf(buf, n, "%.1fm", sec / 60);
    else
        snprintf(buf, n, "%.2fh", sec / 3600);
}

static void pctl_row(FILE *f, const char *label, const struct gs_pctl *p)
{
    char a[16], b[16], c[16], d[16], e[16];
    gs_report_fmt_dur(a, sizeof a, p->p50);
    gs_report_fmt_dur(b, sizeof b, p->p90);
    gs_report_fmt_dur(c, sizeof c, p->p99);
    gs_report_fmt_dur(d, sizeof d, p->mean);
    gs_report_fmt_dur(e, sizeof e, p->max);
    fprintf(f, "  %-12s %8lld %9s %9s %9s %9s %9s\n", label, (long long)p->n, a, b, c, d, e);
}

void gs_report_summary_text(FILE *f, const struct gs_summary *s, const struct gs_policy *pol)
{
    if (pol)
        fprintf(f, "policy: queue=%s placement=%s backfill=%s estimate=%s\n",
                gs_policy_queue_name(pol->queue_policy), gs_policy_strategy_name(pol->strategy),
                gs_policy_backfill_name(gs_policy_backfill_mode(pol)), gs_policy_estimate_name(pol->estimate));
    fprintf(f, "jobs: %lld (completed %lld, killed %lld, rejected %lld, unfinished %lld",
            (long long)s->jobs, (long long)s->completed, (long long)s->killed,
            (long long)s->rejected, (long long)s->unfinished);
    if (s->failed > 0)
        fprintf(f, ", failed %lld", (long long)s->failed);
    fprintf(f, ") on %lld GPUs over %.2f h\n", (long long)s->gpus,
            gs_time_to_sec(s->span_end - s->span_start) / 3600);
    fprintf(f, "\nqueue wait       %8s %9s %9s %9s %9s %9s\n", "jobs", "p50", "p90", "p99",
            "mean", "max");
    pctl_row(f, "all", &s->wait);
    for (int c = 0; c < GS_SIZE_CLASSES; c++) {
        char label[24];
        snprintf(label, sizeof label, "%s GPU", gs_size_class_name(c));
        if (s->wait_by_size[c].n)
            pctl_row(f, label, &s->wait_by_size[c]);
    }
    for (int t = 0; t < s->nteams; t++)
        pctl_row(f, s->teams[t].team, &s->teams[t].wait);
    pctl_row(f, "jct", &s->jct);
    fprintf(f, "\nutilization: util_alloc %.1f%%, util_effective %.1f%%%s,"
               " jobs_per_gpu_day %.3f\n",
            100 * s->util_alloc, 100 * s->util_effective,
            s->util_effective_modelled ? "" : " (slow-downs not modelled)",
            s->jobs_per_gpu_day);
    fprintf(f, "schedulability S_%d: mean %.2f, S>=1 %.1f%% of the time, %lld windows"
               " (mean %.2f h, longest %.2f h)\n",
            s->sched.k, s->sched.mean, 100 * s->sched.share_ge1, (long long)s->sched.windows,
            s->sched.win_mean / 3600, s->sched.win_max / 3600);
    fprintf(f, "fragmentation (mean idle GPUs unusable by a %d-GPU job): count %.1f,"
               " topology %.1f, memory %.1f\n",
            s->sched.k, s->frag.count, s->frag.topology, s->frag.memory);
    if (s->frag.mig > 0)
        fprintf(f, "MIG fragmentation (free instances no job asks for): %.2f GPUs\n",
                s->frag.mig);
    if (s->backfilled || s->killed)
        fprintf(f, "backfilled jobs: %lld, killed at the runtime cap: %lld\n",
                (long long)s->backfilled, (long long)s->killed);
    if (s->estimate.n)
        fprintf(f, "estimates: %lld jobs, estimate/actual p50 %.2f p90 %.2f,"
                   " underestimated %.1f%%\n",
                (long long)s->estimate.n, s->estimate.ratio_p50, s->estimate.ratio_p90,
                100 * s->estimate.under_share);
    gs_report_preempt_text(f, s);
    gs_report_waits_text(f, s, pol);
}

/* "node:gpu node:gpu ..." (io/placement.h, WORDS), as one CSV field
 * (quoted when a node name holds a comma, a quote or a line break). */
static void write_placement(FILE *f, const struct gs_engine *eng, int job)
{
    struct gs_alloc a;
    if (gs_engine_job_alloc(eng, job, &a) < 0)
        return;
    const struct gs_cluster *cl = gs_engine_cluster(eng);
    char small[256];
    size_t len = gs_placement_format(small, sizeof small, cl, a.parts, a.nparts,
                                     GS_PLACEMENT_WORDS);
    char *text = len < sizeof small ? small : malloc(len + 1);
    if (!text) { /* no memory for the whole field: its start, quoted */
        fprintf(f, "\"%s...\"", small);
        return;
    }
    if (text != small)
        gs_placement_format(text, len + 1, cl, a.parts, a.nparts, GS_PLACEMENT_WORDS);
    gs_csv_put_n(f, text, len);
    if (text != small)
        free(text);
}

static const char *state_name(int state)
{
    static const char *const names[] = { "pending",   "running",  "done",
                                         "killed",    "cancelled", "rejected",
                                         "starting",  "stopping", "failed" };
    return state >= 0 && state <= GS_JOB_FAILED ? names[state] : "?";
}

/* GPU-seconds of `ms` on `milli_gpus` (gpus x milli), exactly: the product
 * is in micro-GPU-seconds, printed with up to 6 decimals ("240", "0.25"). */
static void fmt_gpu_s(char *buf, size_t n, int64_t milli_gpus, gs_time ms)
{
    int64_t micro;
    if (__builtin_mul_overflow(milli_gpus, ms, &micro)) { /* past 9.2e12 GPU-s: not exact */
        snprintf(buf, n, "%.0f", (double)milli_gpus * (double)ms / 1e6);
        return;
    }
    snprintf(buf, n, "%lld.%06lld", (long long)(micro / 1000000), (long long)(micro % 1000000));
    char *end = buf + strlen(buf) - 1;
    while (*end == '0')
        *end-- = '\0';
    if (*end == '.')
        *end = '\0';
}

/* The columns after `team`: class, preemptions, lost_gpu_s,
 * checkpoint_gpu_s, restore_gpu_s, wait_reason. */
static void write_loss(FILE *f, const struct gs_engine *eng, int job, const struct gs_job_info *ji)
{
    int64_t mg = gs_job_info_milli_gpus(ji);
    char lost[32], ckpt[32], rest[32];
    fmt_gpu_s(lost, sizeof lost, mg, ji->lost);
    fmt_gpu_s(ckpt, sizeof ckpt, mg, ji->ckpt_wall);
    fmt_gpu_s(rest, sizeof rest, mg, ji->restore_wall);
    fprintf(f, ",%s,%d,%s,%s,%s,%s", gs_class_name(ji->klass), ji->preemptions, lost, ckpt, rest,
            gs_reason_name(gs_engine_wait_dominant(eng, job)));
}

/* ",ISO" of time t (ms after the epoch), or "," when there is none. */
static void iso_cell(FILE *f, int64_t epoch_ms, gs_time t)
{
    char buf[40];
    if (t != GS_TIME_NONE && gs_format_iso8601(epoch_ms + t, buf, sizeof buf) > 0)
        fprintf(f, ",%s", buf);
    else
        fputc(',', f);
}

int gs_report_jobs_csv(FILE *f, const struct gs_engine *eng)
{
    return gs_report_jobs_csv_at(f, eng, GS_TIME_NONE);
}

/* ",est,p90,basis,calibrated" of the promise recorded for handle j
 * (empty cells when there is none). */
static void eta_cells(FILE *f, const struct gs_eta_rec *eta, size_t neta, int j)
{
    const struct gs_eta_rec *r = eta && (size_t)j < neta ? &eta[j] : NULL;
    char e[32] = "", p[32] = "", c[32] = "";
    if (r && r->recorded && r->est != GS_TIME_NONE)
        gs_report_fmt_sec(e, sizeof e, gs_time_to_sec(r->est));
    if (r && r->recorded && r->p90 != GS_TIME_NONE)
        gs_report_fmt_sec(p, sizeof p, gs_time_to_sec(r->p90));
    if (r && r->recorded && r->cal != GS_TIME_NONE)
        gs_report_fmt_sec(c, sizeof c, gs_time_to_sec(r->cal));
    fprintf(f, ",%s,%s,%s,%s", e, p, r && r->recorded ? gs_est_basis_name(r->basis) : "", c);
}

int gs_report_jobs_csv_at(FILE *f, const struct gs_engine *eng, int64_t epoch_ms)
{
    return gs_report_jobs_csv_all(f, eng, epoch_ms, NULL, 0, NULL);
}

int gs_report_jobs_csv_fail(FILE *f, const struct gs_engine *eng, int64_t epoch_ms,
                            const struct gs_sim_fail *fail)
{
    return gs_report_jobs_csv_all(f, eng, epoch_ms, NULL, 0, fail);
}

int gs_report_jobs_csv_eta(FILE *f, const struct gs_engine *eng, int64_t epoch_ms,
                           const struct gs_eta_rec *eta, size_t neta)
{
    return gs_report_jobs_csv_all(f, eng, epoch_ms, eta, neta, NULL);
}

int gs_report_jobs_csv_all(FILE *f, const struct gs_engine *eng, int64_t epoch_ms,
                           const struct gs_eta_rec *eta, size_t neta,
                           const struct gs_sim_fail *fail)
{
    fprintf(f, "id,submit,start,end,wait,gpus,placement,state,team,"
               "class,preemptions,lost_gpu_s,checkpoint_gpu_s,restore_gpu_s,wait_reason%s%s",
            epoch_ms != GS_TIME_NONE ? ",submit_time,start_time,end_time" : "",
            eta ? ",est_start_at_submit,est_start_p90_at_submit,est_basis_at_submit,"
                  "est_start_cal_at_submit" : "");
    if (fail)
        gs_report_fail_csv_header(f, eng);
    fputc('\n', f);
    for (int j = 0; j < gs_engine_job_count(eng); j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue; /* retired */
        char sub[32], st[32] = "", en[32] = "", wa[32] = "";
        gs_report_fmt_sec(sub, sizeof sub, gs_time_to_sec(ji.submit));
        if (ji.first_start != GS_TIME_NONE) {
            gs_report_fmt_sec(st, sizeof st, gs_time_to_sec(ji.first_start));
            gs_report_fmt_sec(wa, sizeof wa, gs_time_to_sec(ji.first_start - ji.submit));
        }
        if (ji.end != GS_TIME_NONE)
            gs_report_fmt_sec(en, sizeof en, gs_time_to_sec(ji.end));
        gs_csv_put(f, ji.id);
        fprintf(f, ",%s,%s,%s,%s,%d,", sub, st, en, wa, ji.gpus);
        write_placement(f, eng, j);
        fprintf(f, ",%s,", state_name(ji.state));
        gs_csv_put(f, ji.team);
        write_loss(f, eng, j, &ji);
        if (epoch_ms != GS_TIME_NONE) {
            iso_cell(f, epoch_ms, ji.submit);
            iso_cell(f, epoch_ms, ji.first_start);
            iso_cell(f, epoch_ms, ji.end);
        }
        if (eta)
            eta_cells(f, eta, neta, j);
        if (fail)
            gs_report_fail_csv_row(f, eng, fail, j, &ji);
        fputc('\n', f);
    }
    return ferror(f) ? GS_EIO : 0;
}

void gs_report_timeline_header(FILE *f)
{
    fprintf(f, "time,allocated_gpus,free_gpus,sched,fragmented_gpus,pending,running\n");
}

void gs_report_timeline_row(FILE *f, const struct gs_sim_tick *t)
{
    const struct gs_cluster_stats *s = t->stats;
    char tb[32], ab[32];
    gs_report_fmt_sec(tb, sizeof tb, gs_time_to_sec(t->time));
    gs_report_fmt_sec(ab, sizeof ab, (double)s->used_milli / GS_MILLI_GPU);
    fprintf(f, "%s,%s,%lld,%lld,%lld,%d,%d\n", tb, ab, (long long)s->idle_gpus,
            (long long)s->sched, (long long)s->frag_count + (long long)s->frag_topology, t->pending,
            t->running);
}

/* metrics.c - GET /metrics in the Prometheus text exposition format 0.0.4
 * (docs/daemon.md lists every family).  Built on the engine thread from its
 * own counters, the live jobs and the cluster's incremental statistics.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/loop_eta.h"
#include "daemon/http_guard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gsd_hist_init(struct gsd_hist *h, const double *le, int n)
{
    memset(h, 0, sizeof *h);
    h->n = n < GSD_HIST_MAX ? n : GSD_HIST_MAX;
    memcpy(h->le, le, (size_t)h->n * sizeof *le);
}

void gsd_hist_add(struct gsd_hist *h, double v)
{
    int i = 0;
    while (i < h->n && v > h->le[i])
        i++;
    h->count[i]++;
    h->sum += v;
    h->total++;
}

/* Latencies below 1 ms (engine time) count as 1 ms: ln(0) has no value
 * and a driver is never faster than that. */
void gsd_latency_add(struct gsd_loop *lp, double seconds)
{
    double v = seconds > 0.001 ? seconds : 0.001;
    gsd_hist_add(&lp->start_lat_s, seconds > 0 ? seconds : 0);
    lp->start_lat.n++;
    lp->start_lat.sum += v;
    lp->start_lat.ln_sum += log(v);
    lp->start_lat.ln2_sum += log(v) * log(v);
}

void gsd_latency_get(const struct gsd_latency *l, double *median, double *sigma)
{
    *median = *sigma = 0;
    if (l->n == 0)
        return;
    double mean = l->ln_sum / (double)l->n;
    double var = l->ln2_sum / (double)l->n - mean * mean;
    *median = exp(mean);
    *sigma = var > 0 ? sqrt(var) : 0;
}

void gsd_metrics_label(FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fprintf(f, "\\%c", *v);
        else if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
}

void gsd_metrics_head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Histogram `name`; `scale` converts recorded units to the exposed one. */
static void hist(FILE *f, const char *name, const char *help, const struct gsd_hist *h,
                 double scale)
{
    gsd_metrics_head(f, name, "histogram", help);
    int64_t cum = 0;
    for (int i = 0; i < h->n; i++) {
        cum += h->count[i];
        fprintf(f, "%s_bucket{le=\"%g\"} %lld\n", name, h->le[i] * scale, (long long)cum);
    }
    cum += h->count[h->n];
    fprintf(f, "%s_bucket{le=\"+Inf\"} %lld\n", name, (long long)cum);
    fprintf(f, "%s_sum %.9g\n%s_count %lld\n", name, h->sum * scale, name, (long long)cum);
}

struct team_state {
    const char *team;
    int64_t n[D_DONE];
};

/* gpusched_jobs_ended_total: one series per (team, outcome), the teams
 * past the cap summed per outcome under "(other)" (metrics_teams.c). */
static void ended_jobs(FILE *f, struct gsd_loop *lp, const char **seen, size_t *nseen,
                       size_t cap)
{
    gsd_metrics_head(f, "gpusched_jobs_ended_total", "counter", "Jobs ended, by outcome and team.");
    int64_t other[O_TIMEOUT + 1] = { 0 };
    int any_other = 0;
    for (size_t i = 0; i < lp->ndone; i++) {
        const struct gsd_team_count *c = &lp->done[i];
        const char *t = seen ? gsd_team_label(c->team, seen, nseen, cap) : c->team;
        if (t != c->team && c->outcome >= 0 && c->outcome <= O_TIMEOUT) {
            other[c->outcome] += c->n;
            any_other = 1;
            continue;
        }
        fprintf(f, "gpusched_jobs_ended_total{outcome=\"%s\",team=\"",
                gsd_outcome_name(c->outcome));
        gsd_metrics_label(f, t);
        fprintf(f, "\"} %lld\n", (long long)c->n);
    }
    for (int o = 0; any_other && o <= O_TIMEOUT; o++)
        if (other[o] > 0)
            fprintf(f, "gpusched_jobs_ended_total{outcome=\"%s\",team=\"(other)\"} %lld\n",
                    gsd_outcome_name(o), (long long)other[o]);
}

static void live_jobs(FILE *f, struct gsd_loop *lp)
{
    gsd_metrics_head(f, "gpusched_jobs", "gauge", "Live jobs by state and team.");
    struct team_state *t = calloc(lp->nlive + 1, sizeof *t);
    size_t cap = gsd_metrics_teams_cap(), nseen = 0, nt = 0;
    const char **seen = malloc(cap * sizeof *seen);
    for (size_t i = 0; t && seen && i < lp->nlive; i++) {
        const struct djob *d = lp->live[i];
        if (d->state >= D_DONE)
            continue;
        const char *name = gsd_team_label(d->team, seen, &nseen, cap);
        size_t k = 0;
        while (k < nt && strcmp(t[k].team, name) != 0)
            k++;
        if (k == nt)
            t[nt++].team = name;
        t[k].n[d->state]++;
    }
    for (size_t k = 0; t && k < nt; k++)
        for (int s = 0; s < D_DONE; s++) {
            fprintf(f, "gpusched_jobs{state=\"%s\",team=\"", gsd_state_name(s));
            gsd_metrics_label(f, t[k].team);
            fprintf(f, "\"} %lld\n", (long long)t[k].n[s]);
        }
    free(t);
    ended_jobs(f, lp, seen, &nseen, cap);
    free(seen);
}

static void cluster(FILE *f, struct gsd_loop *lp)
{
    struct gs_cluster_stats s = gs_cluster_stats(gs_engine_cluster(lp->eng));
    gsd_metrics_head(f, "gpusched_gpus", "gauge", "GPUs in the cluster.");
    fprintf(f, "gpusched_gpus %lld\n", (long long)s.gpus);
    gsd_metrics_head(f, "gpusched_gpus_idle", "gauge", "GPUs with nothing on them.");
    fprintf(f, "gpusched_gpus_idle %lld\n", (long long)s.idle_gpus);
    gsd_metrics_head(f, "gpusched_schedulability", "gauge",
         "S_k: k-GPU jobs that could be placed at once now.");
    fprintf(f, "gpusched_schedulability{k=\"%d\"} %lld\n", s.k, (long long)s.sched);
    gsd_metrics_head(f, "gpusched_fragmentation_gpus", "gauge",
         "Idle GPUs a k-GPU job cannot use, by cause (count: per node; topology: NVLink).");
    fprintf(f, "gpusched_fragmentation_gpus{kind=\"count\",k=\"%d\"} %lld\n", s.k,
            (long long)s.frag_count);
    fprintf(f, "gpusched_fragmentation_gpus{kind=\"topology\",k=\"%d\"} %lld\n", s.k,
            (long long)s.frag_topology);
    gsd_metrics_head(f, "gpusched_engine_jobs_held", "gauge",
         "Jobs the engine holds (finished ones leave once journaled).");
    fprintf(f, "gpusched_engine_jobs_held %d\n", gs_engine_held_count(lp->eng));
    gsd_metrics_head(f, "gpusched_engine_job_records", "gauge",
         "Job records the engine has allocated (the peak of jobs held).");
    fprintf(f, "gpusched_engine_job_records %d\n", gs_engine_slot_count(lp->eng));
    gsd_metrics_head(f, "gpusched_util_alloc", "gauge",
         "DEPRECATED (removed in the next release): allocated share of all GPUs, down ones "
         "counted as allocated; use gpusched_gpu_allocation_ratio.");
    fprintf(f, "gpusched_util_alloc %.6f\n",
            s.gpus ? (double)s.used_milli / (double)(s.gpus * 1000) : 0.0);
}

char *gsd_metrics_text(struct gsd_loop *lp)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    live_jobs(f, lp);
    cluster(f, lp);
    hist(f, "gpusched_queue_wait_seconds", "Wait from submit to first start (engine time).",
         &lp->wait_s, 1);
    hist(f, "gpusched_pass_duration_seconds", "Scheduling pass (gs_engine_step) time.",
         &lp->pass_ms, 1e-3);
    hist(f, "gpusched_publish_duration_seconds",
         "Publishing the read state after a turn (engine thread).", &lp->publish_ms, 1e-3);
    hist(f, "gpusched_journal_commit_seconds", "Journal commit (one per loop turn) time.",
         &lp->commit_ms, 1e-3);
    hist(f, "gpusched_start_latency_seconds",
         "Start decision to confirmed running (engine time; the driver's start latency).",
         &lp->start_lat_s, 1);
    hist(f, "gpusched_launch_duration_seconds",
         "One supervisor's launch (run directory, fork, go) on the launcher thread.",
         &lp->launch_ms, 1e-3);
    double med, sig;
    gsd_latency_get(&lp->start_lat, &med, &sig);
    gsd_metrics_head(f, "gpusched_start_latency_median_seconds", "gauge",
         "exp(mean ln latency) of the confirmed starts: start_latency.median of sim.");
    fprintf(f, "gpusched_start_latency_median_seconds %.6f\n", med);
    gsd_metrics_head(f, "gpusched_start_latency_sigma", "gauge",
         "Standard deviation of ln latency: start_latency.sigma of sim.");
    fprintf(f, "gpusched_start_latency_sigma %.6f\n", sig);
    gsd_metrics_head(f, "gpusched_preemptions_total", "counter", "Preemptions decided.");
    fprintf(f, "gpusched_preemptions_total %lld\n", (long long)lp->preemptions);
    gsd_metrics_head(f, "gpusched_backend_errors_total", "counter",
         "Launch failures and supervisors lost without an exit record.");
    fprintf(f, "gpusched_backend_errors_total %lld\n",
            (long long)lp->backend_errors + (long long)lp->bctx.errors);
    gsd_metrics_head(f, "gpusched_launch_failures_total", "counter",
         "Launches that failed on the daemon's side (retried with back-off, not the job's "
         "failure), by reason.");
    for (int r = 0; r < GSD_LF_N; r++)
        fprintf(f, "gpusched_launch_failures_total{reason=\"%s\"} %lld\n",
                gsd_launch_fail_name[r], (long long)lp->launch_failures[r]);
    gsd_metrics_head(f, "gpusched_backend_gpu_mismatch_total", "counter",
         "Attempts that Slurm ran on other GPU indices than decided (the engine followed).");
    fprintf(f, "gpusched_backend_gpu_mismatch_total %lld\n",
            (long long)lp->bctx.gpu_mismatches);
    gsd_metrics_head(f, "gpusched_submits_total", "counter", "Jobs accepted since the daemon started.");
    fprintf(f, "gpusched_submits_total %lld\n", (long long)lp->submits);
    gsd_metrics_head(f, "gpusched_loop_turns_total", "counter", "Engine loop turns (journal commits).");
    fprintf(f, "gpusched_loop_turns_total %lld\n", (long long)lp->turns);
    gsd_metrics_head(f, "gpusched_http_deadline_closed_total", "counter",
         "Connections shut down because a request missed the whole-request deadline.");
    fprintf(f, "gpusched_http_deadline_closed_total %lld\n",
            (long long)gsd_guard_reaped_total());
    gsd_quar_metrics(f, lp);
    gsd_metrics_alert(f, lp); /* metrics_alert.c */
    gsd_eta_metrics(f, lp);
    fclose(f);
    return buf;
}

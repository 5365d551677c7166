/* metrics_alert.c - the /metrics series to alert on (issue 25, and the
 * failure numbers of issue 26): build info, GPUs by state and allocation
 * over the GPUs that are not down, node states, team use against quota,
 * pending jobs by reason, and what failures cost (failstats.c).  Names
 * follow Prometheus' conventions (base units, _ratio, _total, _seconds);
 * docs/metrics.md ("Live metrics") defines each series.
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "core/diagnose/diagnose.h"
#include "core/base/alloc.h"
#include "io/version.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>



/* gpusched_build_info{version, commit} 1, from "0.1 (commit abc1234)". */
static void build_info(FILE *f)
{
    const char *v = gs_version_string(), *c = strstr(v, " (commit ");
    char ver[64], commit[128];
    snprintf(ver, sizeof ver, "%.*s", c ? (int)(c - v) : (int)strlen(v), v);
    snprintf(commit, sizeof commit, "%s", c ? c + 9 : "unknown");
    char *close = strrchr(commit, ')');
    if (close)
        *close = '\0';
    gsd_metrics_head(f, "gpusched_build_info", "gauge", "Always 1: the daemon's version and commit.");
    fputs("gpusched_build_info{version=\"", f);
    gsd_metrics_label(f, ver);
    fputs("\",commit=\"", f);
    gsd_metrics_label(f, commit);
    fputs("\"} 1\n", f);
}

/* Per GPU (global index): the share its jobs hold, milli-GPU. */
static int *job_milli(struct gsd_loop *lp, const struct gs_cluster *cl)
{
    int n = gs_engine_running_count(lp->eng);
    int64_t gpus = gs_cluster_gpu_count(cl);
    int *jm = gs_calloc((size_t)(gpus > 0 ? gpus : 1), sizeof *jm);
    int *run = gs_malloc((size_t)(n > 0 ? n : 1) * sizeof *run);
    if (!jm || !run) {
        gs_free(jm);
        gs_free(run);
        return NULL;
    }
    n = gs_engine_running_list(lp->eng, run, (size_t)n);
    for (int i = 0; i < n; i++) {
        struct gs_job_info ji;
        struct gs_alloc a;
        if (gs_engine_job_info(lp->eng, run[i], &ji) < 0 ||
            gs_engine_job_alloc(lp->eng, run[i], &a) < 0)
            continue;
        for (int p = 0; p < a.nparts; p++) {
            int first = gs_cluster_node_first_gpu(cl, a.parts[p].node);
            for (uint64_t m = a.parts[p].mask; m; m &= m - 1)
                jm[first + __builtin_ctzll(m)] += ji.milli;
        }
    }
    gs_free(run);
    return jm;
}

enum { G_FREE, G_ALLOC, G_DOWN, G_DRAIN, G_N };

/* GPUs by state (each GPU in one: down, else allocated when a job holds a
 * share of it, else draining when it or its node drains, else free) and
 * the allocated share of the GPUs that are not down. */
static void gpu_states(FILE *f, struct gsd_loop *lp)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    int *jm = job_milli(lp, cl);
    int64_t n[G_N] = { 0 }, milli = 0;
    for (int node = 0; jm && node < gs_cluster_node_count(cl); node++) {
        int ns = gs_engine_node_state(lp->eng, node), first = gs_cluster_node_first_gpu(cl, node);
        for (int g = 0; g < gs_cluster_node_gpus(cl, node); g++) {
            int gs = gs_engine_gpu_state(lp->eng, node, g), m = jm[first + g];
            int st = ns == GS_NODE_DOWN || gs == GS_NODE_DOWN ? G_DOWN
                     : m > 0                                   ? G_ALLOC
                     : ns == GS_NODE_DRAIN || gs == GS_NODE_DRAIN ? G_DRAIN : G_FREE;
            n[st]++;
            if (st != G_DOWN)
                milli += m < GS_MILLI_GPU ? m : GS_MILLI_GPU;
        }
    }
    gs_free(jm);
    static const char *const names[G_N] = { "free", "allocated", "down", "draining" };
    gsd_metrics_head(f, "gpusched_gpus_by_state", "gauge",
         "GPUs by state: down; else allocated (a job holds a share); else draining; else free.");
    for (int s = 0; s < G_N; s++)
        fprintf(f, "gpusched_gpus_by_state{state=\"%s\"} %lld\n", names[s], (long long)n[s]);
    int64_t usable = n[G_FREE] + n[G_ALLOC] + n[G_DRAIN];
    gsd_metrics_head(f, "gpusched_gpu_allocation_ratio", "gauge",
         "Allocated GPU share over the GPUs that are not down (0..1).");
    fprintf(f, "gpusched_gpu_allocation_ratio %.6f\n",
            usable ? (double)milli / GS_MILLI_GPU / (double)usable : 0.0);
}

/* Node states: counts, and one series per node and state (1 = its state). */
static void node_states(FILE *f, struct gsd_loop *lp)
{
    static const int st[3] = { GS_NODE_UP, GS_NODE_DRAIN, GS_NODE_DOWN };
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    int nn = gs_cluster_node_count(cl);
    int64_t count[3] = { 0 };
    for (int n = 0; n < nn; n++)
        for (int s = 0; s < 3; s++)
            count[s] += gs_engine_node_state(lp->eng, n) == st[s];
    gsd_metrics_head(f, "gpusched_nodes", "gauge", "Nodes by state (up, drain, down).");
    for (int s = 0; s < 3; s++)
        fprintf(f, "gpusched_nodes{state=\"%s\"} %lld\n", gsd_node_state_name(st[s]),
                (long long)count[s]);
    gsd_metrics_head(f, "gpusched_node_state", "gauge", "1 for the node's state (up, drain, down), else 0.");
    for (int n = 0; n < nn; n++)
        for (int s = 0; s < 3; s++) {
            fputs("gpusched_node_state{node=\"", f);
            gsd_metrics_label(f, gs_cluster_node_name(cl, n));
            fprintf(f, "\",state=\"%s\"} %d\n", gsd_node_state_name(st[s]),
                    gs_engine_node_state(lp->eng, n) == st[s]);
        }
    /* gpusched_node_quarantined{node}: the place of node quarantine's gauge
     * (issue 26; drained by the daemon on the evidence of repeated
     * failures), written here with the node series once it exists. */
}

struct team_use {
    const char *team;
    double gpus;
};

static struct team_use *team_find(struct team_use *t, size_t *n, const char *team)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(t[i].team, team) == 0)
            return &t[i];
    t[*n] = (struct team_use){ team, 0 };
    return &t[(*n)++];
}

static void team_line(FILE *f, const char *name, const char *team, double v)
{
    fprintf(f, "%s{team=\"", name);
    gsd_metrics_label(f, team);
    fprintf(f, "\"} %.6g\n", v);
}

/* GPUs the teams' jobs hold (share-weighted) against their quota: every
 * team with a quota, and every team holding GPUs. */
static void teams(FILE *f, struct gsd_loop *lp)
{
    const struct gs_policy *pol = gs_engine_policy(lp->eng);
    size_t cap = lp->nlive + (size_t)pol->nquotas + 1, n = 0;
    struct team_use *t = calloc(cap, sizeof *t);
    if (!t)
        return;
    for (int q = 0; q < pol->nquotas; q++)
        team_find(t, &n, pol->quotas[q].team);
    for (size_t i = 0; i < lp->nlive; i++) {
        const struct djob *d = lp->live[i];
        if (gs_job_state_holds(d->ji.state))
            team_find(t, &n, d->team)->gpus += (double)gs_job_info_milli_gpus(&d->ji) / GS_MILLI_GPU;
    }
    gsd_metrics_head(f, "gpusched_team_allocated_gpus", "gauge",
         "GPUs the team's jobs hold (shares summed), teams with a quota or holding GPUs.");
    for (size_t i = 0; i < n; i++)
        team_line(f, "gpusched_team_allocated_gpus", t[i].team, t[i].gpus);
    gsd_metrics_head(f, "gpusched_team_quota_gpus", "gauge", "The team's GPU quota (teams with one).");
    for (size_t i = 0; i < n; i++)
        if (gs_policy_quota(pol, t[i].team) >= 0)
            team_line(f, "gpusched_team_quota_gpus", t[i].team, gs_policy_quota(pol, t[i].team));
    gsd_metrics_head(f, "gpusched_team_quota_usage_ratio", "gauge",
         "GPUs the team holds over its quota (1 = at quota; above 1 = borrowing).");
    for (size_t i = 0; i < n; i++) {
        int q = gs_policy_quota(pol, t[i].team);
        if (q > 0)
            team_line(f, "gpusched_team_quota_usage_ratio", t[i].team, t[i].gpus / q);
    }
    free(t);
}

/* Pending jobs by the reason of the last pass (docs/diagnosis.md codes). */
static void pending(FILE *f, struct gsd_loop *lp)
{
    int64_t n[GS_REASON_COUNT] = { 0 };
    for (size_t i = 0; i < lp->nlive; i++) {
        const struct djob *d = lp->live[i];
        if (d->handle < 0 || d->ji.state != GS_JOB_PENDING)
            continue;
        int r = gs_engine_wait_reason(lp->eng, d->handle);
        n[r >= 0 && r < GS_REASON_COUNT ? r : GS_REASON_NONE]++;
    }
    gsd_metrics_head(f, "gpusched_jobs_pending", "gauge",
         "Pending jobs by the reason of the last pass (none = fits, starts at the next).");
    for (int r = 0; r < GS_REASON_COUNT; r++)
        fprintf(f, "gpusched_jobs_pending{reason=\"%s\"} %lld\n", gs_reason_name(r),
                (long long)n[r]);
}

static void ratio(FILE *f, const char *jobs, double num, double den)
{
    if (den > 0)
        fprintf(f, "gpusched_job_ettr_ratio{jobs=\"%s\"} %.6f\n", jobs, num / den);
    else
        fprintf(f, "gpusched_job_ettr_ratio{jobs=\"%s\"} NaN\n", jobs);
}

/* What failures and preemption cost (failstats.c; kept across restarts). */
static void failures(FILE *f, struct gsd_loop *lp)
{
    const struct gsd_failstats *fs = &lp->fail;
    gsd_metrics_head(f, "gpusched_lost_gpu_seconds_total", "counter",
         "GPU-seconds of work lost (to be redone), by cause.");
    for (int c = 0; c < GSD_LOSS_N; c++)
        fprintf(f, "gpusched_lost_gpu_seconds_total{cause=\"%s\"} %.3f\n", gsd_loss_name[c],
                fs->lost_gpu_s[c]);
    gsd_metrics_head(f, "gpusched_job_restarts_total", "counter",
         "Runs that had started and were requeued, by cause.");
    for (int c = 0; c < GSD_LOSS_N; c++)
        if (c != GSD_LOSS_TIME_LIMIT)
            fprintf(f, "gpusched_job_restarts_total{cause=\"%s\"} %lld\n", gsd_loss_name[c],
                    (long long)fs->restarts[c]);
    gsd_metrics_head(f, "gpusched_node_failures_total", "counter",
         "Nodes (scope node) and single GPUs (scope gpu) that went down.");
    fprintf(f, "gpusched_node_failures_total{scope=\"node\"} %lld\n"
               "gpusched_node_failures_total{scope=\"gpu\"} %lld\n",
            (long long)fs->node_failures[0], (long long)fs->node_failures[1]);
    gsd_metrics_head(f, "gpusched_ended_job_useful_gpu_seconds_total", "counter",
         "Ended jobs: useful work (completed: all; else checkpointed) x GPUs.");
    fprintf(f, "gpusched_ended_job_useful_gpu_seconds_total %.3f\n", fs->useful_gpu_s);
    gsd_metrics_head(f, "gpusched_ended_job_wall_gpu_seconds_total", "counter",
         "Ended jobs: wall time from first start to end x GPUs.");
    fprintf(f, "gpusched_ended_job_wall_gpu_seconds_total %.3f\n", fs->wall_gpu_s);
    double ru, rw;
    gsd_fail_ettr_running(lp, &ru, &rw);
    gsd_metrics_head(f, "gpusched_job_ettr_ratio", "gauge",
         "Effective training time ratio, GPU-time weighted: running jobs now, ended jobs.");
    ratio(f, "running", ru, rw);
    ratio(f, "ended", fs->useful_gpu_s, fs->wall_gpu_s);
}

void gsd_metrics_alert(FILE *f, struct gsd_loop *lp)
{
    build_info(f);
    gpu_states(f, lp);
    node_states(f, lp);
    teams(f, lp);
    pending(f, lp);
    failures(f, lp);
}

/* failstats.c - what failures and preemption cost the live jobs (issue 26,
 * docs/metrics.md "Live metrics"): GPU-seconds of work lost by cause, runs
 * restarted by cause, node and GPU failures, and the effective training
 * time ratio (ETTR) of the jobs that ended.  Kept in the journal's meta
 * table (keys fail_*), written in the turn that changed them, so the
 * counters survive restarts and an outage's rebuild.
 *
 * Attribution, per job, from two copies of its engine record (the last one
 * seen and the new one; gsd_job_sync):
 * - work lost (gs_job_info.lost grew, or the work since the last checkpoint
 *   of a job failed for good): node_failure when its failures grew
 *   while a node or GPU went down (from gsd_fail_node_down until the
 *   caller clears lp->fail_ctx), other when
 *   they grew otherwise (its supervisor vanished, a lost launch), else
 *   preemption (a preemption or a grace-period drain);
 * - time_limit: a job stopped at its time limit (KILLED, timed_out) loses
 *   its work since its last checkpoint (work - saved), as the simulator's
 *   failures.lost_gpu_s_by_cause.time_limit;
 * - a restart is a run that had started (RUNNING or STOPPING) and was
 *   requeued: preemption when its preemptions grew, else the failure's cause;
 * - ETTR of an ended job: useful time (its work when it completed, else the
 *   work its checkpoints saved) over its wall time from first start to end,
 *   both weighted by its GPUs x share (report_fail.c's gs_report_job_ettr).
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const gsd_loss_name[GSD_LOSS_N] = { "preemption", "node_failure", "time_limit",
                                                "other" };

static double gpu_s(const struct gs_job_info *ji, gs_time ms)
{
    return (double)gs_job_info_milli_gpus(ji) * (double)ms / 1e6;
}

static int final_state(int st)
{
    return st == GS_JOB_DONE || st == GS_JOB_KILLED || st == GS_JOB_CANCELLED ||
           st == GS_JOB_FAILED;
}

static void ended(struct gsd_failstats *fs, const struct gs_job_info *ji)
{
    if (ji->first_start == GS_TIME_NONE || ji->end == GS_TIME_NONE || ji->end <= ji->first_start)
        return;
    gs_time useful = ji->state == GS_JOB_DONE ? ji->work : ji->saved;
    fs->useful_gpu_s += gpu_s(ji, useful);
    fs->wall_gpu_s += gpu_s(ji, ji->end - ji->first_start);
    fs->ended_jobs++;
}

void gsd_fail_account(struct gsd_loop *lp, const struct gs_job_info *old,
                      const struct gs_job_info *cur)
{
    struct gsd_failstats *fs = &lp->fail;
    int dpre = cur->preemptions - old->preemptions, dfail = cur->failures - old->failures;
    int cause = dfail > 0 ? (lp->fail_ctx ? GSD_LOSS_NODE_FAILURE : GSD_LOSS_OTHER)
                          : GSD_LOSS_PREEMPTION;
    if (cur->lost > old->lost) {
        fs->lost_gpu_s[cause] += gpu_s(cur, cur->lost - old->lost);
        fs->dirty = 1;
    }
    int had_run = old->state == GS_JOB_RUNNING || old->state == GS_JOB_STOPPING;
    if (dpre > 0) {
        fs->restarts[GSD_LOSS_PREEMPTION] += dpre;
        fs->dirty = 1;
    } else if (dfail > 0 && had_run && cur->state == GS_JOB_PENDING) {
        fs->restarts[cause] += dfail;
        fs->dirty = 1;
    }
    if (final_state(cur->state) && !final_state(old->state)) {
        gs_time unsaved = cur->work > cur->saved ? cur->work - cur->saved : 0;
        if (cur->state == GS_JOB_KILLED && cur->timed_out)
            fs->lost_gpu_s[GSD_LOSS_TIME_LIMIT] += gpu_s(cur, unsaved);
        else if (cur->state == GS_JOB_FAILED && dfail > 0 && had_run)
            fs->lost_gpu_s[cause] += gpu_s(cur, unsaved); /* failed for good */
        ended(fs, cur);
        fs->dirty = 1;
    }
}

void gsd_fail_node_down(struct gsd_loop *lp, int gpu_only)
{
    lp->fail_ctx = 1;
    lp->fail.node_failures[gpu_only ? 1 : 0]++;
    lp->fail.dirty = 1;
}

void gsd_fail_sync_all(struct gsd_loop *lp)
{
    lp->fail_ctx = 1;
    for (size_t i = 0; i < lp->nlive; i++)
        gsd_job_sync(lp, lp->live[i]);
    lp->fail_ctx = 0;
}

/* The meta keys and the values they hold (GPU-seconds kept as GPU-ms). */
struct key {
    char name[48];
    double *dv;
    int64_t *iv;
};

static int keys(struct gsd_failstats *fs, struct key *k)
{
    int n = 0;
    for (int c = 0; c < GSD_LOSS_N; c++) {
        snprintf(k[n].name, sizeof k[n].name, "fail_lost_gpu_ms:%s", gsd_loss_name[c]);
        k[n].dv = &fs->lost_gpu_s[c];
        k[n++].iv = NULL;
        snprintf(k[n].name, sizeof k[n].name, "fail_restarts:%s", gsd_loss_name[c]);
        k[n].dv = NULL;
        k[n++].iv = &fs->restarts[c];
    }
    static const char *const scope[2] = { "node", "gpu" };
    for (int s = 0; s < 2; s++) {
        snprintf(k[n].name, sizeof k[n].name, "fail_down:%s", scope[s]);
        k[n].dv = NULL;
        k[n++].iv = &fs->node_failures[s];
    }
    k[n] = (struct key){ "fail_ettr_useful_gpu_ms", &fs->useful_gpu_s, NULL };
    k[++n] = (struct key){ "fail_ettr_wall_gpu_ms", &fs->wall_gpu_s, NULL };
    k[++n] = (struct key){ "fail_ettr_jobs", NULL, &fs->ended_jobs };
    return n + 1;
}

#define NKEYS (2 * GSD_LOSS_N + 5)

int gsd_fail_save(struct gsd_loop *lp, struct gs_error *err)
{
    struct gsd_failstats *fs = &lp->fail;
    if (!fs->dirty)
        return 0;
    struct key k[NKEYS];
    int n = keys(fs, k);
    for (int i = 0; i < n; i++) {
        int64_t v = k[i].dv ? (int64_t)llround(*k[i].dv * 1000) : *k[i].iv;
        if (gs_store_meta_set(lp->st, k[i].name, v, err) < 0)
            return -1;
    }
    fs->dirty = 0;
    return 0;
}

void gsd_fail_load(struct gsd_loop *lp)
{
    struct gsd_failstats *fs = &lp->fail;
    memset(fs, 0, sizeof *fs);
    struct key k[NKEYS];
    int n = keys(fs, k);
    for (int i = 0; i < n; i++) {
        int64_t v = 0;
        if (gs_store_meta_get(lp->st, k[i].name, &v) != 0)
            continue;
        if (k[i].dv)
            *k[i].dv = (double)v / 1000;
        else
            *k[i].iv = v;
    }
}

void gsd_fail_ettr_running(struct gsd_loop *lp, double *useful, double *wall)
{
    *useful = *wall = 0;
    gs_time now = gs_engine_now(lp->eng);
    for (size_t i = 0; i < lp->nlive; i++) {
        struct gs_job_info ji; /* the engine's, its work up to its last call */
        if (lp->live[i]->handle < 0 || lp->live[i]->ji.state != GS_JOB_RUNNING ||
            gs_engine_job_info(lp->eng, lp->live[i]->handle, &ji) < 0 ||
            ji.state != GS_JOB_RUNNING || ji.first_start == GS_TIME_NONE ||
            now <= ji.first_start)
            continue;
        *useful += gpu_s(&ji, ji.work);
        *wall += gpu_s(&ji, now - ji.first_start);
    }
}

json_t *gsd_fail_json(struct gsd_loop *lp)
{
    const struct gsd_failstats *fs = &lp->fail;
    double ru, rw;
    gsd_fail_ettr_running(lp, &ru, &rw);
    json_t *lost = json_object(), *rs = json_object();
    for (int c = 0; lost && rs && c < GSD_LOSS_N; c++) {
        json_object_set_new(lost, gsd_loss_name[c], json_real(fs->lost_gpu_s[c]));
        json_object_set_new(rs, gsd_loss_name[c], json_integer(fs->restarts[c]));
    }
    return json_pack("{s:o, s:o, s:{s:I, s:I}, s:{s:o, s:o, s:I}}", "lost_gpu_s", lost,
                     "restarts", rs, "node_failures", "node", (json_int_t)fs->node_failures[0],
                     "gpu", (json_int_t)fs->node_failures[1], "ettr", "running",
                     rw > 0 ? json_real(ru / rw) : json_null(), "ended",
                     fs->wall_gpu_s > 0 ? json_real(fs->useful_gpu_s / fs->wall_gpu_s)
                                        : json_null(),
                     "ended_jobs", (json_int_t)fs->ended_jobs);
}

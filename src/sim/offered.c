/* offered.c - offered load of a trace on a cluster (offered.h). */
#include "sim/offered.h"

#include <string.h>

/* Index of the quota of `team`, or -1. */
static int quota_of(const struct gs_policy *pol, const char *team)
{
    for (int q = 0; q < pol->nquotas; q++)
        if (team && strcmp(pol->quotas[q].team, team) == 0)
            return q;
    return -1;
}

/* Keep the most loaded teams that are over 1 or have too-wide jobs, sorted
 * by load, most loaded first. */
static void keep_team(struct gs_offered *out, const struct gs_offered_team *t)
{
    if (t->load <= 1.0 && t->too_wide == 0)
        return;
    int n = out->nteams;
    if (n == GS_OFFERED_MAX_TEAMS) {
        if (out->teams[n - 1].load >= t->load)
            return;
        n--; /* the least loaded makes room */
    } else {
        out->nteams++;
    }
    while (n > 0 && out->teams[n - 1].load < t->load) {
        out->teams[n] = out->teams[n - 1];
        n--;
    }
    out->teams[n] = *t;
}

void gs_offered_compute(struct gs_offered *out, const struct gs_cluster *cl,
                        const struct gs_policy *pol, const struct gs_trace *tr)
{
    memset(out, 0, sizeof *out);
    out->gpus = gs_cluster_gpu_count(cl);
    size_t n = gs_trace_count(tr);
    int strict = pol && pol->quota_mode == GS_QUOTA_STRICT;
    int nq = strict ? pol->nquotas : 0;
    double team_ms[64] = { 0 };
    int64_t wide[64] = { 0 }, unquoted = 0;
    gs_time lo = 0, hi = 0;
    double ms = 0, dur_ms = 0, team_dur[64] = { 0 };
    int64_t team_n[64] = { 0 };
    for (size_t i = 0; i < n; i++) {
        const struct gs_job_spec *s = gs_trace_job(tr, i);
        gs_time d = gs_trace_duration(tr, i);
        double g = (double)s->gpus * s->milli / GS_MILLI_GPU * (d > 0 ? (double)d : 0);
        ms += g;
        dur_ms += d > 0 ? (double)d : 0;
        lo = i == 0 || s->submit < lo ? s->submit : lo;
        hi = i == 0 || s->submit > hi ? s->submit : hi;
        int q = nq ? quota_of(pol, s->team) : -1;
        if (q >= 0 && q < 64) {
            team_ms[q] += g;
            team_dur[q] += d > 0 ? (double)d : 0;
            team_n[q]++;
            wide[q] += s->gpus > pol->quotas[q].gpus;
        } else {
            unquoted++;
        }
    }
    out->span_s = gs_time_to_sec(hi - lo);
    out->gpu_hours = ms / 3.6e6;
    out->steady = n > 0 && (double)(hi - lo) >= GS_OFFERED_STEADY * dur_ms / (double)n;
    if (hi > lo && out->gpus > 0)
        out->load = ms / ((double)out->gpus * (double)(hi - lo));
    /* every job under a strict quota: together they may hold at most the sum */
    int64_t cap = 0;
    for (int q = 0; q < nq && q < 64; q++)
        cap += team_ms[q] > 0 ? pol->quotas[q].gpus : 0;
    if (nq && unquoted == 0 && cap < out->gpus) {
        out->quota_gpus = cap;
        out->quota_load = hi > lo && cap > 0 ? ms / ((double)cap * (double)(hi - lo)) : 0;
    }
    for (int q = 0; q < nq && q < 64; q++) {
        struct gs_offered_team t = { pol->quotas[q].team, pol->quotas[q].gpus, 0, 0, wide[q] };
        int steady = team_n[q] > 0 &&
                     (double)(hi - lo) >= GS_OFFERED_STEADY * team_dur[q] / (double)team_n[q];
        if (hi > lo && steady) {
            t.mean_gpus = team_ms[q] / (double)(hi - lo);
            t.load = t.quota > 0 ? t.mean_gpus / t.quota : (team_ms[q] > 0 ? 1e9 : 0);
        }
        keep_team(out, &t);
    }
}

/* metrics_teams.c - bounded label sets of the team-labelled metrics
 * (docs/daemon.md, "Metrics"): gpusched_jobs_ended_total series of a team
 * that no longer exists (no live job, no quota, every ended job purged by
 * retention) are dropped, and at most GSD_METRICS_TEAMS_MAX teams get label
 * sets of their own; the others are summed under team="(other)".
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"

#include <stdlib.h>
#include <string.h>

static int team_live(const struct gsd_loop *lp, const char *team)
{
    for (size_t i = 0; i < lp->nlive; i++)
        if (!strcmp(lp->live[i]->team, team))
            return 1;
    for (int q = 0; q < lp->pol.nquotas; q++)
        if (!strcmp(lp->pol.quotas[q].team, team))
            return 1;
    return 0;
}

/* Drop every entry of `team` when none of them is still in the journal
 * and the team has no live job and no quota. */
static void prune_team(struct gsd_loop *lp, const char *team)
{
    for (size_t i = 0; i < lp->ndone; i++)
        if (!strcmp(lp->done[i].team, team) && lp->done[i].kept > 0)
            return;
    if (team_live(lp, team))
        return;
    char *gone = strdup(team);
    if (!gone)
        return;
    size_t k = 0;
    for (size_t i = 0; i < lp->ndone; i++) {
        if (!strcmp(lp->done[i].team, gone))
            free(lp->done[i].team);
        else
            lp->done[k++] = lp->done[i];
    }
    lp->ndone = k;
    gsd_log("metrics: team %s has no job left (retention) and no quota: its series are no "
            "longer exported", gone);
    free(gone);
}

void gsd_count_purged(struct gsd_loop *lp, const char *team, const char *outcome)
{
    for (size_t i = 0; i < lp->ndone; i++)
        if (!strcmp(lp->done[i].team, team) &&
            !strcmp(gsd_outcome_name(lp->done[i].outcome), outcome)) {
            if (lp->done[i].kept > 0)
                lp->done[i].kept--;
            if (lp->done[i].kept == 0)
                prune_team(lp, team);
            return;
        }
}

size_t gsd_metrics_teams_cap(void)
{
    const char *env = getenv("GPUSCHEDD_METRICS_TEAMS"); /* tests */
    long v = env ? strtol(env, NULL, 10) : 0;
    return v > 0 && v < GSD_METRICS_TEAMS_MAX ? (size_t)v : GSD_METRICS_TEAMS_MAX;
}

const char *gsd_team_label(const char *team, const char **seen, size_t *nseen, size_t cap)
{
    for (size_t i = 0; i < *nseen; i++)
        if (!strcmp(seen[i], team))
            return team;
    if (*nseen < cap) {
        seen[(*nseen)++] = team;
        return team;
    }
    return "(other)";
}

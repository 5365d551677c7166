/* queue_quota.c - team quotas as the queue pass reads them: the kept
 * totals of unused and borrowed quota (O(1) per start or stop, never a walk
 * of every team) and the admission test of one job (strict or borrow;
 * docs/policy.md, queue.quota and queue.quota_mode).  Moved out of queue.c
 * unchanged. */
#include "core/queue/queue_private.h"

/* What team `t` adds to the quota totals: GPUs (milli) of its quota it
 * leaves unused, or holds beyond it. */
static void team_share(const struct gs_engine *eng, size_t t, int64_t *unused, int64_t *borrowed)
{
    *unused = *borrowed = 0;
    if (eng->team_quota[t] < 0)
        return;
    int64_t q = (int64_t)eng->team_quota[t] * GS_MILLI_GPU, used = eng->team_milli[t];
    if (used < q)
        *unused = q - used;
    else
        *borrowed = used - q;
}

/* Add (sign -1: remove) team `t`'s share to the kept totals. */
static void count_team(struct gs_engine *eng, size_t t, int sign)
{
    int64_t u, b;
    team_share(eng, t, &u, &b);
    eng->quota_unused += sign * u;
    eng->quota_borrowed += sign * b;
}

/* Change team `team`'s GPU usage (milli), keeping the totals in step. */
static void team_add(struct gs_engine *eng, int team, int64_t milli)
{
    count_team(eng, (size_t)team, -1);
    eng->team_milli[team] += milli;
    count_team(eng, (size_t)team, 1);
}

/* GS_HOOK_STARTED / GS_HOOK_STOPPED: the job's share joins / leaves its team's. */
static void team_started(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    const struct job *j = &eng->jobs[job];
    team_add(eng, j->team, (int64_t)j->gpus * j->milli);
}

static void team_stopped(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    const struct job *j = &eng->jobs[job];
    team_add(eng, j->team, -(int64_t)j->gpus * j->milli);
}

void gs_queue_team_set_quota(struct gs_engine *eng, int team, int quota)
{
    count_team(eng, (size_t)team, -1);
    eng->team_quota[team] = quota;
    count_team(eng, (size_t)team, 1);
}

void gs_queue_hooks(struct gs_eng_hooks *h)
{
    gs_eng_hook_add(h, GS_HOOK_STARTED, team_started);
    gs_eng_hook_add(h, GS_HOOK_STOPPED, team_stopped);
    h->team_quota = gs_queue_team_set_quota;
    gs_queue_slot_hooks(h);
}

void gs_queue_quota_recount(const struct gs_engine *eng, int64_t *unused, int64_t *borrowed)
{
    *unused = *borrowed = 0;
    for (size_t t = 0; t < eng->teams_cap; t++) {
        int64_t u, b;
        team_share(eng, t, &u, &b);
        *unused += u;
        *borrowed += b;
    }
}

int gs_queue_quota_ok(const struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    int quota = eng->team_quota[j->team];
    if (quota < 0)
        return 1;
    int64_t q = (int64_t)quota * GS_MILLI_GPU, used = eng->team_milli[j->team];
    int64_t need = (int64_t)j->gpus * j->milli;
    if (used + need <= q)
        return 1;
    /* quota modes are one comparison apart (strict stops here, borrow looks
     * at the idle quota of others), so no ops table for them */
    if (eng->pol.quota_mode != GS_QUOTA_BORROW)
        return 0;
    /* borrow: the part beyond the quota must fit in other teams' idle quota
     * that is not already lent out (the kept totals less this team's share:
     * O(1), not a walk of every team) */
    int64_t self_u, self_b;
    team_share(eng, (size_t)j->team, &self_u, &self_b);
    int64_t unused = eng->quota_unused - self_u, borrowed = eng->quota_borrowed - self_b;
    return used + need - q <= unused - borrowed;
}

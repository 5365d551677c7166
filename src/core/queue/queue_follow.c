/* queue_follow.c - followers: the jobs a pass leaves untried because they
 * fail with no side effect and one code for their whole class (docs/
 * policy.md, "Followers"; the wait accounting is diagnose_follow.c).
 *
 * Once the blocked head holds every reservation the pass may make (and its
 * plan did not fail), a plain job the memo refuses has no side effect: its
 * coarse reason is all the exhaustive pass leaves of it.  A class is
 * followed, with one kind of code for its jobs, when
 *   - resources: a count up to its own does not fit the idle GPUs before
 *     any count with a `reservation` entry (whatever the estimate), or
 *   - reservation: a count up to its own (before any that does not fit)
 *     has a `reservation` entry no longer than the smallest estimate of
 *     the class (queue_estidx.h): every job of it is refused as long.
 * The pass walks over followed classes in the order without reading their
 * jobs (gs_qfol_next, the order's skip hook), leaves any single job the
 * memo refuses untried (gs_qfol_skip), and ends when every class with
 * pending jobs is followed and no job that is not plain is pending
 * (gs_qfol_end).
 *
 * One kind per class per pass.  A class followed as `reservation` may
 * later in the pass be refused with `resources` (a job of fewer GPUs took
 * the last idle GPU): the exhaustive pass gives the jobs met before that
 * point the old code.  The jobs walked over are recorded (q->fskip), so
 * at such a change those of the class take the old coarse reason as their
 * own and count as tried (settle), and the class follows the new kind.
 * The reverse (a `reservation` entry of fewer GPUs comes after the class
 * was followed with `resources`) keeps the class as it is: its later jobs
 * are tried, as before reservation followers (settling every job walked
 * over would cost more).  After the pass the coarse reason of every untried pending
 * job of a class matches its kind (gs_qfol_finish: only when the kind
 * changed from the last pass, O(jobs of the class)).
 *
 * Needs the pass to see every job (max_job_test 0), no quota (a team's
 * quota test comes first), backfill, no retry.hold, and a last pass that
 * coded every pending job.
 */
#include "core/queue/queue_pass.h"
#include "core/queue/queue_estidx.h"
#include "core/base/alloc.h"

int gs_qfol_mode(const struct gs_engine *eng, const struct gs_qstate *q)
{
    /* retry.hold: a held job's class changes while it is listed (plain
       once its hold ends), so the walk could not trust the listed class */
    if (q->cls_off || eng->pol.max_job_test != 0 || eng->backfill == GS_BACKFILL_NONE ||
        eng->pol.retry_hold > 0 || !gs_qclass_enabled(eng))
        return 0;
    for (size_t t = 0; t < eng->teams_cap; t++)
        if (eng->team_quota[t] >= 0)
            return 0;
    return 1;
}

int gs_qfol_state(const struct pass *ps)
{
    return ps->blocked && ps->max_res > 0 && ps->nres >= ps->max_res && ps->failed_in == 0;
}

void gs_qfol_prefix(const struct pass *ps, struct gs_qfol_pre *p)
{
    const gs_time *lv = ps->fail_live[0], *vw = ps->fail_view[0];
    gs_time d = GS_TIME_INF;
    int misfit = 0;
    p->misfit[0] = 0;
    p->d[0] = GS_TIME_INF;
    for (int k = 1; k <= GS_QCLASS_MAX_GPUS; k++) {
        if (!misfit) { /* counts past the first misfit are not read */
            misfit = lv[k] == 0;
            if (!misfit && vw[k] < d)
                d = vw[k];
        }
        p->misfit[k] = (int8_t)misfit;
        p->d[k] = d;
    }
}

/* The kind class g would be followed with now, 0 = none (see the header;
 * the memo's rule, gs_qpass_memo_doomed, for every job of the class), from
 * the memo's prefix `p` (gs_qfol_prefix, of the memo as it is now). */
static int kind_now(struct pass *ps, struct gs_qstate *q, const struct gs_qfol_pre *p, int g)
{
    gs_time d = p->d[g]; /* shortest `reservation` entry before the first misfit */
    if (d == GS_TIME_INF)
        return p->misfit[g] ? GS_QFOL_RES : 0;
    gs_time m;
    if (!gs_qest_min(q->est, ps->eng, g, &m) || m < d)
        return 0;
    q->fol_index += m != GS_TIME_INF;
    return GS_QFOL_RSV;
}

/* The record of `k` is still its job's live entry, not tried in this pass. */
static int rec_live(const struct gs_engine *eng, const struct gs_qstate *q,
                    const struct qskip *k)
{
    const struct gs_qjob *qj = &q->jobs[k->job];
    return eng->jobs[k->job].state == GS_JOB_PENDING && qj->in_order == k->list &&
           qj->order_seq == k->seq && qj->tried_cycle != q->cycle;
}

/* `job`, refused by the memo with `reason` (no side effect), counts as
 * tried with that reason: what try_job and visit (queue.c) leave of such a
 * try, without the try.  0 or GS_ENOMEM. */
static int code_tried(struct gs_qstate *q, int job, int reason)
{
    if (gs_grow((void **)&q->visited, &q->visited_cap, q->nvisited + 1, sizeof *q->visited))
        return GS_ENOMEM;
    struct gs_qjob *qj = &q->jobs[job];
    qj->reason = (int8_t)reason;
    qj->tried_cycle = q->cycle;
    qj->keep_cycle = 0;
    q->visited[q->nvisited++] = job;
    return 0;
}

/* Class g changes kind: the jobs of g walked over so far take the old
 * kind's coarse reason as their own (tried, for the wait accounting), and
 * their records go.  0 or GS_ENOMEM. */
static int settle(struct pass *ps, struct gs_qstate *q, int g)
{
    struct gs_engine *eng = ps->eng;
    int reason = ps->fkind[g] == GS_QFOL_RSV ? GS_WAIT_RESERVATION : GS_WAIT_RESOURCES;
    for (int i = q->fhead[g]; i >= 0; i = q->fskip[i].next) {
        const struct qskip *k = &q->fskip[i];
        if (!rec_live(eng, q, k))
            continue;
        if (code_tried(q, k->job, reason) < 0)
            return GS_ENOMEM;
        q->fol_settled++;
    }
    q->fhead[g] = -1;
    return 0;
}

/* Class g's untried jobs hold `kind` from here on: 1, or 0 when the class
 * stays as it is (a class followed with `resources` is not turned into
 * one followed with `reservation`: its jobs are tried instead, as before
 * reservation followers, rather than settling every job walked over),
 * GS_ENOMEM. */
static int admit(struct pass *ps, struct gs_qstate *q, int g, int kind)
{
    if (ps->fkind[g] == GS_QFOL_RES && kind == GS_QFOL_RSV)
        return 0;
    if (ps->fkind[g] != 0 && ps->fkind[g] != kind && settle(ps, q, g) < 0)
        return GS_ENOMEM;
    ps->fkind[g] = (int8_t)kind;
    return 1;
}

int gs_qfol_skip(struct pass *ps, struct gs_qstate *q, int job)
{
    struct gs_engine *eng = ps->eng;
    struct job *j = &eng->jobs[job];
    int reason, g = gs_qclass_of(eng, j);
    if (!gs_qfol_state(ps) || g == 0)
        return 0;
    int pre = gs_qpass_memo_pre(ps, j, &reason);
    if (pre == 0 ||
        (pre < 0 && !gs_qpass_memo_doomed(ps, j, gs_qpass_dur(eng, job), &reason)))
        return 0;
    int kind = reason == GS_WAIT_RESERVATION ? GS_QFOL_RSV : GS_QFOL_RES;
    int ok = admit(ps, q, g, kind);
    if (ok < 0)
        return ok;
    if (ok == 0) { /* its class stays as it is: tried, as the try would leave it */
        ps->visits++;
        return code_tried(q, job, reason) < 0 ? GS_ENOMEM : 1;
    }
    const struct gs_qjob *qj = &q->jobs[job];
    if (kind == GS_QFOL_RSV && gs_qskip_add(q, job, qj->order_seq, qj->in_order, g) < 0)
        return GS_ENOMEM; /* only these are ever settled */
    q->fol_walked++;
    q->fol_rsv += kind == GS_QFOL_RSV;
    q->jobs[job].reason = (int8_t)reason; /* what try_backfill gives it */
    ps->visits++;
    return 1;
}

int gs_qfol_end(struct pass *ps, struct gs_qstate *q)
{
    if (ps->memo_ver == ps->fol_ver)
        return 0;
    ps->fol_ver = ps->memo_ver;
    if (!gs_qfol_state(ps) || gs_qclass_has(q->cls, ps->eng, 0))
        return 0;
    int8_t kind[GS_QCLASS_MAX_GPUS + 1] = { 0 };
    struct gs_qfol_pre pre;
    gs_qfol_prefix(ps, &pre);
    for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++) {
        if (!gs_qclass_has(q->cls, ps->eng, g))
            continue;
        kind[g] = (int8_t)kind_now(ps, q, &pre, g);
        if (kind[g] == 0 || (ps->fkind[g] == GS_QFOL_RES && kind[g] == GS_QFOL_RSV))
            return 0;
    }
    for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++)
        if (kind[g] && admit(ps, q, g, kind[g]) < 0)
            return GS_ENOMEM;
    q->jumped = 1;
    q->fol_ends++;
    q->reached++; /* the stop point, where the pass ends */
    q->stopped++;
    return 1;
}

/* The classes followed now (recomputed when the memo moved). */
static int mask_now(struct pass *ps, struct gs_qstate *q)
{
    if (ps->mask_ver == ps->memo_ver)
        return 0;
    ps->mask_ver = ps->memo_ver;
    ps->mask = ps->rec = ps->code = 0;
    struct gs_qfol_pre pre;
    gs_qfol_prefix(ps, &pre);
    for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++) {
        uint64_t bit = (uint64_t)1 << (g - 1);
        ps->knew[g] = (int8_t)kind_now(ps, q, &pre, g);
        int ok = ps->knew[g] ? admit(ps, q, g, ps->knew[g]) : 0;
        if (ok < 0)
            return GS_ENOMEM;
        if (ok)
            ps->mask |= bit;
        if (ok && ps->knew[g] == GS_QFOL_RSV) /* only these are ever settled */
            ps->rec |= bit;
        if (!ok && ps->knew[g] == GS_QFOL_RSV) /* kept on `resources` (admit) */
            ps->code |= bit;
    }
    ps->mask |= ps->code;
    return 0;
}

/* The jobs of classes in ps->code that the skip walked over: each is what
 * gs_qfol_skip leaves of it (refused as long in a class kept on
 * `resources`: tried, with `reservation`), in order.  0 or GS_ENOMEM. */
static int code_listed(struct pass *ps, struct gs_qstate *q)
{
    q->fol_coded += q->nfcode;
    for (size_t i = 0; i < q->nfcode; i++) {
        ps->visits++;
        if (code_tried(q, q->fcode[i], GS_WAIT_RESERVATION) < 0)
            return GS_ENOMEM;
    }
    q->nfcode = 0;
    return 0;
}

int gs_qfol_next(struct pass *ps, struct qcursor *cur)
{
    struct gs_engine *eng = ps->eng;
    struct gs_qstate *q = eng->q;
    if (ps->fol > 0 && eng->pol.spares_nodes == 0 && gs_qfol_state(ps)) {
        q->nfcode = 0;
        if (mask_now(ps, q) < 0 ||
            gs_queue_order_skip(eng, cur, ps->mask, ps->rec, ps->code) < 0 ||
            code_listed(ps, q) < 0) {
            ps->nomem = 1;
            return -1;
        }
    }
    return gs_queue_order_next(eng, cur);
}

void gs_qfol_finish(const struct pass *ps, struct gs_qstate *q)
{
    for (int g = 1; g <= GS_QCLASS_MAX_GPUS; g++) {
        int was = q->fkind[g] ? q->fkind[g] : GS_QFOL_RES;
        if (ps->fkind[g] == 0 || ps->fkind[g] == was)
            continue;
        gs_qclass_set_reason(q->cls, ps->eng, g, q->cycle,
                             ps->fkind[g] == GS_QFOL_RSV ? GS_WAIT_RESERVATION
                                                         : GS_WAIT_RESOURCES);
        q->fkind[g] = ps->fkind[g];
    }
}

/* queue.c - the queue pass: which pending jobs start, in which order.
 *
 * Order.  fifo: submission order (same instant: trace order).  priority and
 * priority_with_backfill: effective priority, highest first, where
 *   effective = priority + aging_rate * max(0, wait - max_wait_before_aging) / 1h
 * ties by submit time, then submission order.
 *
 * Head of line.  Jobs start in order while they fit.  The first job that
 * does not fit blocks the jobs behind it unless backfill is on.  A job held
 * back by its team's quota never blocks others (it waits with reason quota).
 *
 * Backfill.  The blocked job gets a reservation: the earliest time and the
 * exact GPUs (NVLink domain, node) it will get as running jobs end by their
 * estimates (profile.c).  Behind it, a job may start now only on GPUs that
 * no reservation holds during [now, now + its estimate) - so it either ends
 * before the reservation starts or stays off the reserved GPUs.  easy keeps
 * one reservation; conservative gives one to every blocked job, up to
 * queue.reservations.  Reservations are recomputed at every pass from the
 * current estimates, so a backfilled job that overruns its estimate delays
 * the reserved job until it ends, unless queue.runtime_cap stops it.
 *
 * Depth.  A pass costs what changed plus what it tries, never the whole
 * queue: the order is read lazily from kept lists (queue_order.c), quota
 * checks read kept totals, and wait accounting looks only at the jobs the
 * pass tried (diagnose.c).  queue.max_job_test bounds the jobs one pass
 * tries (Slurm's default_queue_depth / bf_max_job_test); the pending jobs
 * left untried are counted (gs_engine_queue_stats), and the pass is
 * continued at once where it stopped (bf_continue; walk below).
 * queue.min_pass_interval
 * holds back a pass due sooner than that after the last one; it runs at
 * gs_engine_next_wakeup.
 */
#include "core/queue/queue_pass.h"
#include "core/base/alloc.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

static void memo_fail(struct pass *ps, const struct job *j, gs_time dur, int live)
{
    if (!gs_qpass_plain(ps->eng, j))
        return;
    if (live && ps->fail_live[j->part][j->gpus] != 0) {
        ps->fail_live[j->part][j->gpus] = 0;
        ps->memo_ver++;
    } else if (!live && dur < ps->fail_view[j->part][j->gpus]) {
        ps->fail_view[j->part][j->gpus] = dur;
        ps->memo_ver++;
    }
}

/* Reservations overlapping [now, now + dur): those starting before its end. */
static int overlapping(const struct pass *ps, gs_time dur)
{
    gs_time end = gs_time_add(ps->now, dur);
    int k = 0;
    while (k < ps->nres && ps->res_start[k] < end)
        k++;
    return k;
}

/* Reserve for a blocked job: earliest start and GPUs. */
static int reserve(struct pass *ps, int job)
{
    struct gs_engine *eng = ps->eng;
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    gs_time dur = gs_qpass_dur(eng, job), start;
    int rc = gs_profile_earliest(eng->profile, eng->cl, ps->now, &req, eng->pol.strategy, dur,
                                 &start, ps->a);
    if (rc < 0)
        return rc;
    if (gs_profile_reserve(eng->profile, ps->a, start, gs_time_add(start, dur)) < 0)
        return GS_ENOMEM;
    if (start < ps->res_min)
        ps->res_min = start;
    if (ps->nres < (int)(sizeof ps->res_start / sizeof ps->res_start[0])) {
        int i = ps->nres++;
        while (i > 0 && ps->res_start[i - 1] > start) {
            ps->res_start[i] = ps->res_start[i - 1];
            i--;
        }
        ps->res_start[i] = start;
    }
    ps->view_k = -1;
    ps->memo_ver++;
    struct gs_event ev = { GS_EV_RESERVE, ps->now, job, ps->a, start, 0 };
    gs_eng_emit(eng, &ev);
    return 0;
}

/* A job that fits now but only if reservations are ignored waits with reason
 * `reservation`; one that does not fit the idle GPUs at all with
 * `resources`. */
static int classify_failure(struct pass *ps, int job, gs_time dur)
{
    struct gs_engine *eng = ps->eng;
    struct job *j = &eng->jobs[job];
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    int live = gs_place(eng->cl, NULL, &req, eng->pol.strategy, ps->a, NULL) < 0;
    gs_queue_job(eng, job)->reason = live ? GS_WAIT_RESOURCES : GS_WAIT_RESERVATION;
    memo_fail(ps, j, dur, live);
    return GS_ENOSPC;
}

/* Shared (fractional) jobs use the live state (a partly used GPU may take
 * them) but stay off GPUs that a reservation overlapping [now, now + dur)
 * holds. */
static int try_shared(struct pass *ps, int job, gs_time dur)
{
    struct gs_engine *eng = ps->eng;
    for (int n = 0; n < gs_cluster_node_count(eng->cl); n++)
        ps->held[n] = gs_profile_reserved_in(eng->profile, n, ps->now, dur);
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    req.blocked = ps->held;
    if (gs_place(eng->cl, NULL, &req, eng->pol.strategy, ps->a, NULL) < 0) {
        req.blocked = NULL;
        int live = gs_place(eng->cl, NULL, &req, eng->pol.strategy, ps->a, NULL) < 0;
        gs_queue_job(eng, job)->reason = live ? GS_WAIT_RESOURCES : GS_WAIT_RESERVATION;
        return GS_ENOSPC;
    }
    return gs_eng_start_placed(eng, job, ps->now, 1, ps->a);
}

/* A job behind the blocked one: start now only on GPUs that no reservation
 * overlapping [now, now + estimate) holds. */
static int try_backfill(struct pass *ps, int job)
{
    struct gs_engine *eng = ps->eng;
    struct job *j = &eng->jobs[job];
    int reason, pre = gs_qpass_memo_pre(ps, j, &reason);
    gs_time dur = pre == 1 ? 0 : gs_qpass_dur(eng, job);
    if (pre == 1 || (pre < 0 && gs_qpass_memo_doomed(ps, j, dur, &reason))) {
        gs_queue_job(eng, job)->reason = (int8_t)reason;
        return GS_ENOSPC;
    }
    if (j->milli < GS_MILLI_GPU)
        return try_shared(ps, job, dur);
    int k = overlapping(ps, dur);
    if (ps->view_k != k) {
        gs_profile_view_now(eng->profile, eng->cl, ps->now, dur, ps->view);
        ps->view_k = k;
    }
    int rc = gs_eng_try_start(eng, job, ps->now, ps->view, 1, ps->a);
    if (rc == 0) {
        const struct gs_alloc *a = ps->a;
        for (int i = 0; i < a->nparts; i++)
            ps->view[a->parts[i].node] &= ~a->parts[i].mask;
        return 0;
    }
    return rc == GS_ENOSPC ? classify_failure(ps, job, dur) : rc;
}

/* GPUs were freed mid-pass (preemption): drop the memo and cached view. */
static void forget(struct pass *ps)
{
    ps->view_k = -1;
    ps->memo_ver++;
    for (int m = 0; m < MEMO_GROUPS; m++)
        for (int g = 0; g <= MEMO_MAX_GPUS; g++)
            ps->fail_live[m][g] = ps->fail_view[m][g] = GS_TIME_INF;
}

static int plan(struct pass *ps, int job)
{
    if (ps->nres >= ps->max_res)
        return 0;
    int rc = reserve(ps, job);
    if (rc == GS_ENOSPC) {
        ps->memo_ver++;
        ps->plan_failed = 1; /* cannot be planned: backfilling could starve it */
        ps->failed_in |= gs_eng_part_queue_group(ps->eng, job);
    }
    return rc == GS_ENOMEM ? rc : 0;
}

static int try_job(struct pass *ps, int job)
{
    struct gs_engine *eng = ps->eng;
    struct job *j = &eng->jobs[job];
    if (!gs_eng_part_quota_ok(eng, job)) {
        gs_queue_job(eng, job)->reason = GS_WAIT_PARTITION;
        return GS_ENOSPC;
    }
    if (!gs_queue_quota_ok(eng, job)) {
        gs_queue_job(eng, job)->reason = GS_WAIT_QUOTA;
        return GS_ENOSPC;
    }
    /* head-of-line blocking holds within a queue group (partition) only */
    uint64_t grp = gs_eng_part_queue_group(eng, job);
    if ((ps->failed_in & grp) || ((ps->blocked_in & grp) && ps->max_res == 0)) {
        gs_queue_job(eng, job)->reason = GS_WAIT_PRIORITY;
        return GS_ENOSPC;
    }
    int rc = ps->blocked ? try_backfill(ps, job)
                         : gs_eng_try_start(eng, job, ps->now, NULL, 0, ps->a);
    if (rc == GS_ENOSPC) {
        rc = gs_eng_preempt_try(eng, job, ps->now);
        if (rc >= 0) {
            forget(ps); /* victims stopped: what failed before may fit now */
            ps->changed = 1;
        }
        if (rc == 1)
            rc = GS_ENOSPC; /* it waits for victims that are checkpointing */
    }
    if (rc != GS_ENOSPC) {
        if (rc == 0) {
            ps->view_k = -1; /* GPUs changed hands: cached view is stale */
            ps->changed = 1;
        }
        return rc;
    }
    ps->kept = !(ps->blocked_in & grp) || ps->nres < ps->max_res;
    if (!(ps->blocked_in & grp)) {
        if (!ps->blocked)
            ps->head = job;
        gs_queue_job(eng, job)->reason = GS_WAIT_RESOURCES;
        memo_fail(ps, j, 0, 1);
        ps->blocked = 1;
        ps->blocked_in |= grp;
        ps->memo_ver++;
    }
    rc = plan(ps, job);
    return rc < 0 ? rc : GS_ENOSPC;
}

/* Without backfill, a pass can start nothing when the last one ended at a
 * blocked head, no GPUs were released since, and the head cannot have
 * changed (the order's head_kept: under fifo new jobs join behind it;
 * under priority without aging no job arrived with a priority above the
 * head's).  Skipping such passes keeps a saturated queue O(1) per event
 * instead of a sort per arrival. */
static int nothing_can_change(const struct gs_engine *eng)
{
    if (eng->backfill != GS_BACKFILL_NONE || !eng->pass_blocked ||
        eng->releases != eng->pass_releases)
        return 0;
    return gs_queue_order_of(eng->pol.queue_policy)->head_kept(eng);
}

/* queue.min_pass_interval: a pass within the interval after the last one
 * is held back; the engine asks to be woken when it is due. */
static int held_back(struct gs_engine *eng, struct gs_qstate *q, gs_time now)
{
    gs_time gap = eng->pol.min_pass_interval;
    if (gap > 0 && q->last_pass != GS_TIME_NONE && now < gs_time_add(q->last_pass, gap)) {
        q->waiting = 1;
        q->deferred++;
        return 1;
    }
    q->waiting = 0;
    q->last_pass = now;
    q->passes++;
    return 0;
}

static void pass_init(struct pass *ps, struct gs_engine *eng, gs_time now)
{
    ps->eng = eng;
    ps->now = now;
    ps->a = &eng->q->alloc;
    ps->view = eng->q->view;
    ps->held = eng->q->blocked;
    ps->max_res = 0;
    ps->blocked = ps->plan_failed = 0;
    ps->head = -1;
    ps->blocked_in = ps->failed_in = 0;
    ps->view_k = -1;
    ps->nres = 0;
    ps->changed = 0;
    ps->n_start = eng->npending;
    ps->visits = 0;
    ps->peeked = -1;
    ps->res_min = GS_TIME_INF;
    ps->cls_on = ps->x_set = 0;
    ps->x_vis = 0;
    ps->memo_ver = 1;
    ps->checked_ver = 0;
    eng->q->nskip = 0;
    memset(eng->q->fhead, -1, sizeof eng->q->fhead);
    ps->nomem = 0;
    memset(ps->fkind, 0, sizeof ps->fkind);
    memset(ps->knew, 0, sizeof ps->knew);
    forget(ps);
    /* The backfill modes are not an ops table: they differ only in how
     * many reservations a pass keeps (none 0, easy 1, conservative
     * queue.reservations); everything else is the same code. */
    if (eng->backfill == GS_BACKFILL_EASY)
        ps->max_res = 1;
    else if (eng->backfill == GS_BACKFILL_CONSERVATIVE)
        ps->max_res = eng->pol.reservations;
}

/* Victims that `try_job` requeued (queue array from `tail`): they wait for
 * the next pass, and the wait accounting looks at them with the tried. */
static int note_requeued(struct gs_engine *eng, struct gs_qstate *q, size_t tail)
{
    if (tail == eng->ptail)
        return 0;
    if (gs_grow((void **)&q->visited, &q->visited_cap, q->nvisited + (eng->ptail - tail) + 1,
                sizeof *q->visited))
        return GS_ENOMEM;
    for (size_t i = tail; i < eng->ptail; i++) {
        gs_queue_unlist(eng, eng->pending[i]);
        q->visited[q->nvisited++] = eng->pending[i];
        gs_eng_preempt_note(eng, eng->pending[i], eng->now);
    }
    return 0;
}

/* Continuation (docs/policy.md, queue.max_job_test).  A pass that stops
 * at the bound with jobs untried sets q->cont; the engine then asks for the
 * next pass at once (or at min_pass_interval).  The passes from a fresh one
 * up to the one that reaches the end of the order form a cycle: a
 * continuation skips the jobs an earlier pass of the cycle tried, except
 * those that blocked their group or reserved (they shape what may start
 * behind them, so they are tried again, outside the bound), and tries the
 * next max_job_test others.  Every continuation tries at least one job no
 * pass of the cycle tried, so a cycle ends. */
static int cont_skip(const struct gs_qstate *q, const struct gs_qjob *qj, int cont)
{
    return cont && qj->tried_cycle == q->cycle && qj->keep_cycle != q->cycle;
}

/* Mark `job` tried in this cycle (kept: it blocked or reserved). */
static void cont_stamp(const struct gs_qstate *q, struct gs_qjob *qj, int kept)
{
    qj->tried_cycle = q->cycle;
    qj->keep_cycle = kept ? q->cycle : 0;
}

/* Try `job` and account for it.  Returns 1 if it started, 0 if not, or a
 * negative error. */
static int visit(struct pass *ps, struct gs_qstate *q, struct qcursor *cur, int job)
{
    struct gs_engine *eng = ps->eng;
    if (gs_grow((void **)&q->visited, &q->visited_cap, q->nvisited + 1, sizeof *q->visited))
        return GS_ENOMEM;
    q->visited[q->nvisited++] = job;
    size_t tail = eng->ptail;
    ps->kept = 0;
    int rc = try_job(ps, job);
    if (rc == 0 || eng->ptail != tail) {
        cur->dead++; /* its entry (or a victim's) is dead now */
        ps->memo_ver++; /* a class may have lost its shortest estimate */
    }
    if (rc != 0 && rc != GS_ENOSPC)
        return rc;
    cont_stamp(q, gs_queue_job(eng, job), ps->kept);
    if (note_requeued(eng, q, tail) < 0)
        return GS_ENOMEM;
    return rc == 0;
}

/* The stop point (qclass.h): whether every job left in this pass fails
 * with no side effect, so that only its wait code is left to give.  Checked
 * when the memo, the head or the reservations moved since the last check.
 * On reaching it, the pass state is kept in ps->sig; returns 1 when that
 * state is the one the last establishing pass left (the pass may end). */
static int class_stop(struct pass *ps, struct gs_qstate *q)
{
    if (!ps->cls_on || ps->x_set || ps->memo_ver == ps->checked_ver)
        return 0;
    ps->checked_ver = ps->memo_ver;
    int plan_failed = (ps->failed_in & 1) != 0; /* one queue group: partitions are off */
    if (!ps->blocked || (ps->nres < ps->max_res && !plan_failed))
        return 0; /* a later job could still reserve */
    int behind = plan_failed || ps->max_res == 0;
    if (!gs_qclass_doomed(q->cls, ps->eng, behind, ps->fail_live[0], ps->fail_view[0], &ps->sig))
        return 0;
    gs_qclass_sig_finish(q->cls, ps->eng, &ps->sig);
    ps->x_set = 1;
    ps->x_vis = q->nvisited;
    q->reached++;
    return gs_qclass_same(q->cls, &ps->sig);
}

/* The pass ends at its stop point: the jobs left hold the codes the last
 * establishing pass gave them, but for those it tried before its own stop
 * point and those new to the queue: try these (each fails with no side
 * effect, as in the exhaustive pass).  0 or GS_ENOMEM. */
static int class_settle(struct pass *ps, struct gs_qstate *q, struct qcursor *cur)
{
    struct gs_engine *eng = ps->eng;
    size_t n;
    const int *pre = gs_qclass_prefix(q->cls, &n);
    for (size_t k = 0; k < n + q->njoined; k++) {
        int job = k < n ? pre[k] : q->joined[k - n];
        if ((size_t)job >= eng->njobs || gs_eng_slot_free(eng, job))
            continue;
        if (eng->jobs[job].state != GS_JOB_PENDING ||
            gs_queue_job(eng, job)->tried_cycle == q->cycle)
            continue; /* gone, or tried already in this pass */
        int rc = visit(ps, q, cur, job);
        if (rc < 0)
            return rc;
    }
    q->stopped++;
    return 0;
}

/* Try the jobs in pass order from `cur`, at most queue.max_job_test of
 * them (a continuation by stamps: of those the cycle has not tried, plus
 * the kept ones); the pending jobs left untried are counted in
 * q->skipped.  Returns jobs started or a negative error. */
static int walk(struct pass *ps, struct gs_qstate *q, struct qcursor *cur, int cont)
{
    struct gs_engine *eng = ps->eng;
    size_t limit = eng->pol.max_job_test > 0 ? (size_t)eng->pol.max_job_test : SIZE_MAX;
    size_t n0 = eng->npending, tried = 0, visits = 0;
    int started = 0, job;
    while ((job = ps->peeked >= 0 ? ps->peeked : gs_qfol_next(ps, cur)) >= 0) {
        ps->peeked = -1;
        const struct gs_qjob *qj = gs_queue_job(eng, job);
        if (cont_skip(q, qj, cont))
            continue;
        if (ps->fol) {
            int sk = gs_qfol_skip(ps, q, job);
            if (sk < 0)
                return sk;
            if (sk)
                continue;
        }
        int kept = cont && qj->keep_cycle == q->cycle;
        if (!kept && tried >= limit) {
            q->cont = 1; /* jobs left untried: continue at once */
            ps->peeked = job; /* a resumption starts with it */
            break;
        }
        tried += !kept;
        visits++;
        ps->visits++;
        int rc = visit(ps, q, cur, job);
        if (rc < 0)
            return rc;
        started += rc;
        if (ps->fol && (rc = gs_qfol_end(ps, q)) != 0) {
            if (rc < 0)
                return rc;
            if (ps->visits < ps->n_start)
                ps->visits = ps->n_start; /* the rest follows, not skipped */
            break;
        }
        if (class_stop(ps, q)) {
            if (class_settle(ps, q, cur) < 0)
                return GS_ENOMEM;
            if (ps->visits < ps->n_start)
                ps->visits = ps->n_start; /* the rest is decided, not skipped */
            break;
        }
    }
    if (ps->nomem)
        return GS_ENOMEM;
    if (ps->fol > 0 && ps->visits < ps->n_start)
        ps->visits = ps->n_start; /* untried ones follow their class */
    /* untried: of the jobs pending when the pass began (all its segments),
     * or, in a continuation by stamps, of those pending now */
    size_t n = cont ? n0 : ps->n_start, done = cont ? visits : ps->visits;
    if (n > done)
        q->skipped += n - done;
    return started;
}

/* The bookkeeping after the last segment of a pass (its cursor `cur`,
 * `decided` = eng->decisions before it, `fresh` = it began a cycle). */
static int pass_finish(struct gs_engine *eng, struct gs_qstate *q, const struct pass *ps,
                       const struct qcursor *cur, uint64_t decided, int fresh)
{
    gs_queue_order_end(eng, cur);
    eng->pass_blocked = ps->blocked && eng->pol.npartitions == 0; /* one queue group */
    eng->pass_releases = eng->releases;
    eng->pass_head_prio = ps->blocked ? eng->jobs[ps->head].priority : INT_MAX;
    eng->arrivals_ahead = 0;
    if (fresh)
        q->cycle_busy = 0;
    q->cycle_busy |= ps->changed || eng->decisions != decided;
    q->quiet = !q->cycle_busy && !q->cont; /* the whole cycle, at its end */
    q->res_min = ps->res_min;
    q->quiet_npending = eng->npending;
    q->quiet_handles = eng->nhandles;
    q->quiet_releases = eng->releases;
    q->quiet_decisions = eng->decisions;
    q->tried += q->nvisited;
    q->fpass = ps->fol > 0;
    if (q->fpass) {
        gs_qclass_reps(q->cls, eng, q->frep);
        gs_qfol_finish(ps, q);
    }
    /* a pass that reached its stop point gave every job beyond it the code
     * of its class: the next pass may rely on that */
    if (!ps->cls_on || !ps->x_set || gs_qclass_establish(q->cls, &ps->sig, q->visited, ps->x_vis) < 0)
        gs_qclass_invalidate(q->cls);
    return eng->hooks.account_waits(eng, ps->now, 1);
}

/* A pass that stopped at the bound is held as it stands (its pass state,
 * cursor, reservations, tried jobs), with what the engine looked like
 * then.  The next pass resumes it, exactly where it stopped, if it comes
 * at the same instant with nothing changed in between (a simulation
 * always does: the continuation is due at once and no event lies between),
 * so the passes of one instant decide what one unbounded pass decides, bit
 * for bit.  Otherwise the held pass is closed as it stood and a
 * continuation by stamps (cont_skip) takes over. */
struct gs_qhold {
    struct pass ps;
    struct qcursor cur;
    uint64_t decided;           /* eng->decisions before the held pass began */
    int fresh;                  /* it began a cycle */
    uint64_t decisions, releases, epoch; /* the engine when it was held */
    size_t npending, ptail;
    int nhandles;
    int64_t quota_unused, quota_borrowed;
    int64_t idle_gpus, used_milli; /* the cluster's (a node drained, down, back) */
};

static void hold_snap(const struct gs_engine *eng, struct gs_qhold *h)
{
    h->decisions = eng->decisions;
    h->releases = eng->releases;
    h->epoch = eng->pending_epoch;
    h->npending = eng->npending;
    h->ptail = eng->ptail;
    h->nhandles = eng->nhandles;
    h->quota_unused = eng->quota_unused;
    h->quota_borrowed = eng->quota_borrowed;
    struct gs_cluster_stats st = gs_cluster_stats(eng->cl);
    h->idle_gpus = st.idle_gpus;
    h->used_milli = st.used_milli;
}

static int hold_same(const struct gs_engine *eng, const struct gs_qhold *h, gs_time now)
{
    struct gs_qhold k;
    hold_snap(eng, &k);
    return now == h->ps.now && k.decisions == h->decisions && k.releases == h->releases &&
           k.epoch == h->epoch && k.npending == h->npending && k.ptail == h->ptail &&
           k.nhandles == h->nhandles && k.quota_unused == h->quota_unused &&
           k.quota_borrowed == h->quota_borrowed && k.idle_gpus == h->idle_gpus &&
           k.used_milli == h->used_milli;
}

/* Hold the pass that just stopped at the bound.  0 or GS_ENOMEM. */
static int hold(struct gs_engine *eng, struct gs_qstate *q, const struct pass *ps,
                const struct qcursor *cur, uint64_t decided, int fresh)
{
    if (!q->hold && !(q->hold = gs_malloc(sizeof *q->hold)))
        return GS_ENOMEM;
    struct gs_qhold *h = q->hold;
    if (ps != &h->ps)
        h->ps = *ps;
    h->cur = *cur;
    h->decided = decided;
    h->fresh = fresh;
    hold_snap(eng, h);
    q->held = 1;
    return 0;
}

/* Resume the held pass where it stopped.  Jobs started, or an error. */
static int resume(struct gs_engine *eng, struct gs_qstate *q)
{
    struct gs_qhold *h = q->hold;
    q->held = 0;
    int started = walk(&h->ps, q, &h->cur, 0);
    if (started < 0)
        return started;
    int rc = q->cont ? hold(eng, q, &h->ps, &h->cur, h->decided, h->fresh)
                     : pass_finish(eng, q, &h->ps, &h->cur, h->decided, h->fresh);
    return rc < 0 ? rc : started;
}

int gs_queue_set_classes(struct gs_engine *eng, int on)
{
    struct gs_qstate *q = gs_queue_state(eng);
    if (!q)
        return GS_ENOMEM;
    q->cls_off = !on;
    gs_qclass_invalidate(q->cls);
    return 0;
}

int gs_queue_holding(const struct gs_engine *eng)
{
    return eng->q && eng->q->held;
}

int gs_queue_pass(struct gs_engine *eng, gs_time now)
{
    struct gs_qstate *q = gs_queue_state(eng);
    if (!q)
        return GS_ENOMEM;
    q->quiet = 0;
    if (held_back(eng, q, now))
        return 0;
    int cont = q->cont;
    q->cont = 0;
    if (q->held) {
        if (hold_same(eng, q->hold, now))
            return resume(eng, q);
        q->held = 0; /* something changed: close it as it stood */
        struct gs_qhold *h = q->hold;
        if (pass_finish(eng, q, &h->ps, &h->cur, h->decided, h->fresh) < 0)
            return GS_ENOMEM;
        gs_qclass_invalidate(q->cls); /* closed before its end: codes not given */
        eng->pass_blocked = 0; /* it did not see what changed */
    }
    if (!cont)
        q->cycle++; /* a fresh pass: no job tried in this cycle yet */
    if (nothing_can_change(eng)) {
        q->nvisited = q->njoined = 0;
        return eng->hooks.account_waits(eng, now, 0);
    }
    struct qcursor cur;
    if (gs_queue_order_begin(eng, now, &cur) < 0)
        return GS_ENOMEM;
    struct pass ps; /* not zero-initialised as a whole: res_start is large */
    pass_init(&ps, eng, now);
    int fmode = !cont && gs_qfol_mode(eng, q);
    ps.cls_on = !cont && !fmode && !q->cls_off && gs_qclass_enabled(eng);
    ps.fol = fmode && q->fol_ready;
    ps.fol_ver = ps.mask_ver = 0;
    q->fol_ready = fmode; /* this pass codes every pending job */
    q->jumped = 0;
    uint64_t decided = eng->decisions;
    gs_profile_clear(eng->profile);
    q->nvisited = 0;
    int started = walk(&ps, q, &cur, cont);
    if (started < 0) {
        gs_queue_order_end(eng, &cur);
        return started;
    }
    int rc = q->cont && !cont ? hold(eng, q, &ps, &cur, decided, 1)
                              : pass_finish(eng, q, &ps, &cur, decided, !cont);
    return rc < 0 ? rc : started;
}

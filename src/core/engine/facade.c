/* facade.c - the engine facade: create (which fills the hooks table, so
 * the run primitives below reach the policies only through it), destroy,
 * step and next_wakeup.  It sits above the policies (queue, preempt,
 * diagnose) and the jobs floor (src/core/jobs): the one place that calls
 * both, so neither calls up (scripts/check-layering.sh reads the link
 * graph).  Also the driver's job events (submit, cancel, finish), which
 * need only the floor's primitives.  engine_private.h gathers the headers
 * it needs.
 */
#include "core/engine/engine_private.h"
#include "core/jobs/engine_place.h"
#include "core/base/alloc.h"
#include "core/base/satmath.h"

static gs_time user_estimate(void *arg, const struct gs_engine *eng, int handle)
{
    (void)arg;
    int job = gs_eng_slot(eng, handle);
    gs_time limit = job >= 0 ? eng->jobs[job].time_limit : 0;
    return limit > 0 ? limit : GS_TIME_NONE;
}

static int check_policy(const struct gs_policy *p, struct gs_error *err)
{
    if (p->queue_policy == GS_QUEUE_PRIORITY_BACKFILL && p->backfill == GS_BACKFILL_NONE)
        return gs_errorf(err, GS_EINVAL, "queue.backfill: false contradicts queue.policy "
                                         "priority_with_backfill");
    if (p->retry_hold > 0 && !p->retry_expedite)
        return gs_errorf(err, GS_EINVAL, "retry.hold: needs retry.expedite: true (the held "
                                         "GPUs wait for a job at the head of its class)");
    return 0;
}

/* The hooks table, in the order of the calls it replaced: on a start or a
 * stop the team's usage (queue), then the partition's and the drains'
 * (preempt); on a retirement the diagnosis's, then the drains'. */
static void fill_hooks(struct gs_eng_hooks *h)
{
    gs_queue_hooks(h);
    gs_eng_diag_hooks(h);
    gs_eng_preempt_hooks(h);
}

struct gs_engine *gs_engine_create(const struct gs_cluster *cl, const struct gs_policy *pol,
                                   struct gs_error *err)
{
    if (!cl || !pol || gs_cluster_full_view(cl) == NULL) {
        gs_errorf(err, GS_EINVAL, "engine needs a sealed cluster and a policy");
        return NULL;
    }
    if (check_policy(pol, err) < 0)
        return NULL;
    struct gs_engine *eng = gs_calloc(1, sizeof *eng);
    if (!eng)
        goto nomem;
    fill_hooks(&eng->hooks);
    eng->cl = gs_cluster_clone(cl);
    eng->ids = gs_strtab_create();
    eng->strs = gs_strtab_create();
    eng->moved = gs_intmap_create();
    int n = gs_cluster_node_count(cl);
    eng->possible_buf.parts = gs_calloc((size_t)n, sizeof *eng->possible_buf.parts);
    eng->probe_slot = -1;
    eng->possible_buf.cap = n;
    eng->diag = gs_eng_diag_create(n);
    eng->profile = eng->cl ? gs_profile_create(eng->cl) : NULL;
    if (!eng->cl || !eng->ids || !eng->strs || !eng->moved || !eng->possible_buf.parts ||
        !eng->profile || !eng->diag || gs_policy_copy(&eng->pol, pol) < 0)
        goto nomem;
    eng->place = gs_eng_place_create(cl, pol);
    if (!eng->place)
        goto nomem;
    eng->backfill = gs_policy_backfill_mode(pol);
    if (gs_eng_spares_init(eng) < 0 || gs_eng_rhold_init(eng) < 0)
        goto nomem;
    if (gs_cluster_seal(eng->cl, pol->sched_k, err) < 0 || gs_eng_preempt_init(eng, err) < 0) {
        gs_engine_destroy(eng);
        return NULL;
    }
    /* teams with a quota exist from the start, so their idle quota can be
     * lent before they submit anything */
    for (int i = 0; i < pol->nquotas; i++) {
        int team = gs_strtab_intern(eng->strs, pol->quotas[i].team);
        if (team < 0 || gs_eng_grow_teams(eng, team) < 0)
            goto nomem;
    }
    eng->est = (struct gs_estimator){ "user", user_estimate, NULL, NULL };
    if (pol->estimate == GS_EST_HISTORY) {
        eng->hist = gs_history_create(pol->estimate_quantile);
        if (!eng->hist)
            goto nomem;
        eng->est = gs_history_estimator(eng->hist);
    }
    eng->now = GS_TIME_NONE;
    return eng;
nomem:
    gs_engine_destroy(eng);
    gs_errorf(err, GS_ENOMEM, "out of memory");
    return NULL;
}

void gs_engine_destroy(struct gs_engine *eng)
{
    if (!eng)
        return;
    gs_cluster_destroy(eng->cl);
    gs_policy_fini(&eng->pol);
    gs_strtab_destroy(eng->ids);
    gs_intmap_destroy(eng->moved);
    gs_strtab_destroy(eng->strs);
    gs_free(eng->jobs);
    gs_free(eng->pending);
    gs_free(eng->running);
    gs_free(eng->prog);
    gs_free(eng->parts);
    gs_free(eng->possible_buf.parts);
    gs_free(eng->team_milli);
    gs_free(eng->team_quota);
    gs_queue_state_free(eng->q);
    gs_free(eng->dl);
    gs_free(eng->expect);
    gs_profile_destroy(eng->profile);
    gs_eng_diag_destroy(eng->diag);
    gs_eng_place_destroy(eng->place);
    gs_eng_nodes_destroy(eng->nodes);
    gs_free(eng->spare_mask);
    gs_eng_rhold_fini(eng->rholds);
    gs_history_destroy(eng->hist);
    gs_eng_preempt_fini(eng);
    gs_free(eng);
}

int gs_engine_step(struct gs_engine *eng, gs_time now, struct gs_error *err)
{
    int rc = gs_eng_check_time(eng, now, err);
    if (rc < 0)
        return rc;
    gs_eng_enforce_caps(eng, now);
    gs_eng_rhold_expire(eng, now, -1); /* holds whose bound passed (retry.hold) */
    gs_eng_plan_overruns(eng, now);
    gs_eng_place_pass(eng);
    if (gs_eng_preempt_step(eng, now) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory in preemption");
    rc = gs_queue_pass(eng, now);
    if (!gs_queue_holding(eng)) /* a held pass keeps its places in the array */
        gs_eng_compact_pending(eng);
    if (rc < 0)
        return gs_errorf(err, rc, "out of memory in scheduling pass");
    return rc;
}

/* The aging pass: on the grid now + k x pass_interval that the old rule
 * (a pass every interval while jobs wait) walks, at the first point at or
 * after the earliest time a pass could decide otherwise
 * (gs_queue_aging_change).  The passes skipped would have started and
 * stopped nothing and left every reason as it was, so the schedule is the
 * one the old rule gives, bit for bit; queue.aging_wakeup: tick keeps the
 * old rule (tests compare the two). */
static gs_time aging_tick(const struct gs_engine *eng, gs_time now)
{
    gs_time p = eng->pol.pass_interval;
    gs_time c = eng->pol.aging_wakeup ? now : gs_queue_aging_change(eng, now);
    if (c == GS_TIME_INF)
        return GS_TIME_INF;
    if (c <= gs_time_add(now, p))
        return gs_time_add(now, p);
    int64_t k = (c - now - 1) / p + 1; /* smallest k with now + k p >= c */
    return gs_time_add(now, gs_sat_mul(k, p));
}

gs_time gs_engine_next_wakeup(const struct gs_engine *eng, gs_time now)
{
    gs_time t = gs_eng_next_deadline(eng);
    gs_time p = gs_eng_preempt_wakeup(eng);
    if (p < t)
        t = p;
    gs_time h = gs_eng_rhold_next(eng); /* a hold's bound: its GPUs are free then */
    if (h < t)
        t = h;
    gs_time q = gs_queue_wakeup(eng); /* held back, or a continuation */
    if (q <= now)
        return now; /* a continuation due at once */
    if (q < t)
        t = q;
    int aging = eng->pol.queue_policy != GS_QUEUE_FIFO && eng->pol.aging_rate > 0;
    if (aging && eng->npending > 0 && eng->pol.pass_interval > 0) {
        gs_time tick = aging_tick(eng, now);
        if (tick < t)
            t = tick;
    }
    return t > now ? t : gs_time_add(now, 1);
}

/* --- submit, cancel, finish: the driver's events, on the floor's primitives --- */

int gs_engine_submit(struct gs_engine *eng, gs_time now, const struct gs_job_spec *spec,
                     struct gs_error *err)
{
    int rc = gs_eng_check_spec(spec, now, err);
    if (rc < 0)
        return rc;
    if (eng->now != GS_TIME_NONE && now < eng->now)
        return gs_errorf(err, GS_EINVAL, "job %s: time went backwards", spec->id);
    if (eng->ptail == eng->pending_cap && eng->phead > 0)
        gs_eng_compact_pending(eng);
    if (gs_grow((void **)&eng->pending, &eng->pending_cap, eng->ptail + 1,
                sizeof *eng->pending))
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int job = gs_eng_add_job(eng, spec, err);
    if (job < 0)
        return job;
    eng->now = now;
    if (gs_eng_part_assign(eng, job) < 0 || !gs_eng_job_possible(eng, &eng->jobs[job])) {
        eng->jobs[job].state = GS_JOB_REJECTED;
        eng->jobs[job].end = now;
        struct gs_event ev = { GS_EV_REJECT, now, job, NULL, GS_TIME_NONE, 0 };
        gs_eng_emit(eng, &ev);
        return gs_eng_handle(eng, job);
    }
    gs_eng_queue_append(eng, job);
    eng->npending++;
    if (eng->jobs[job].priority > eng->pass_head_prio)
        eng->arrivals_ahead++;
    gs_eng_place_submit(eng, job);
    return gs_eng_handle(eng, job);
}

int gs_engine_finish(struct gs_engine *eng, gs_time now, int job, struct gs_error *err)
{
    return gs_engine_exited(eng, now, job, 0, err);
}

int gs_engine_cancel(struct gs_engine *eng, gs_time now, int handle, struct gs_error *err)
{
    int job = gs_eng_find(eng, handle, err);
    if (job < 0)
        return job;
    struct job *j = &eng->jobs[job];
    if (j->state != GS_JOB_PENDING && !gs_job_state_holds(j->state))
        return gs_errorf(err, GS_ESTATE, "job %s has already ended",
                         gs_strtab_name(eng->ids, job));
    int rc = gs_eng_check_time(eng, now, err);
    if (rc < 0)
        return rc;
    if (gs_job_state_holds(j->state))
        return gs_eng_stop_job(eng, job, now, GS_JOB_CANCELLED, GS_EV_CANCEL);
    if (j->rheld)
        gs_eng_rhold_expire(eng, now, job); /* nobody needs its held GPUs now */
    j->state = GS_JOB_CANCELLED;
    j->end = now;
    gs_eng_leave_pending(eng, job);
    eng->pass_blocked = 0; /* it may have been the blocked head */
    struct gs_event ev = { GS_EV_CANCEL, now, job, NULL, GS_TIME_NONE, 0 };
    gs_eng_emit(eng, &ev);
    return 0;
}


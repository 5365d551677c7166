/* diagnose.c - pending reasons per pass and time-weighted wait accounting.
 *
 * At the end of every queue pass each pending job gets one code: the
 * pass's coarse reason (job->reason), with `resources` refined into
 * partition / shortage / memory / count / topology from the cluster state
 * the pass left (diagnose_explain.c).  Refining is cheap: plain requests
 * (whole GPUs, any type, the default topology, no partition) are memoised
 * per GPU count for the pass, and the cluster-wide figures are gathered
 * once per pass.
 *
 * Accounting is lazy.  Each job keeps its current code and the time that
 * code began; only when the code changes (or the job leaves the queue) is
 * the interval added to the job's accumulator for the old code.  So the
 * time between two passes goes to the code the job had during it, and a
 * pass costs O(jobs it looks at), never O(all jobs ever).  Accumulators are
 * a pool of (code, ms) segments linked per job: a job that waited under
 * two codes costs two 16-byte segments, one that never waited costs none.
 *
 * A pass classifies only the jobs it tried (queue.max_job_test bounds
 * them), the victims it requeued and the jobs that joined the queue since
 * the last pass; a job it did not try keeps its code (a new one waits with
 * `priority`).  A job that left the queue is closed when a pass next sees
 * it, or read as closed (its interval ends at its start or end).
 *
 * A strict-FIFO pass that the queue skips (nothing could change) calls in
 * with full = 0: only jobs submitted since the last call are classified
 * (they wait behind the blocked head: `priority`).
 */
#include "core/diagnose/diagnose_private.h"
#include "core/queue/queue_private.h"
#include "core/queue/qclass.h"
#include "core/base/alloc.h"

#include <string.h>

const char *gs_reason_name(int code)
{
    static const char *const names[GS_REASON_COUNT] = {
        "none",     "shortage", "count_fragmentation", "topology_fragmentation",
        "memory_fragmentation", "quota", "priority", "reservation", "partition",
    };
    return code >= 0 && code < GS_REASON_COUNT ? names[code] : "?";
}

const char *gs_est_basis_name(int basis)
{
    static const char *const names[] = { "unknown", "now", "reservation", "profile", "quota" };
    return basis >= 0 && basis <= GS_BASIS_QUOTA ? names[basis] : "?";
}

struct gs_diag_state *gs_eng_diag_create(int nnodes)
{
    struct gs_diag_state *ds = gs_calloc(1, sizeof *ds);
    if (!ds)
        return NULL;
    ds->scratch.parts = gs_calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof *ds->scratch.parts);
    ds->scratch.cap = nnodes;
    ds->view = gs_calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof *ds->view);
    if (!ds->scratch.parts || !ds->view) {
        gs_free(ds->scratch.parts);
        gs_free(ds->view);
        gs_free(ds);
        return NULL;
    }
    return ds;
}

void gs_eng_diag_destroy(struct gs_diag_state *ds)
{
    if (!ds)
        return;
    gs_free(ds->code);
    gs_free(ds->since);
    gs_free(ds->head);
    gs_free(ds->runs);
    gs_free(ds->segs);
    gs_free(ds->scratch.parts);
    gs_free(ds->view);
    gs_diag_follow_free(ds);
    gs_free(ds);
}

/* Add `ms` to job's accumulator for `code`; a new segment comes from the
 * pool, whose room the caller reserved. */
void gs_diag_add_wait(struct gs_diag_state *ds, int job, int code, gs_time ms)
{
    if (ms <= 0)
        return;
    for (uint32_t s = ds->head[job]; s; s = ds->segs[s - 1].next) {
        if (ds->segs[s - 1].code == code) {
            ds->segs[s - 1].ms += ms;
            return;
        }
    }
    struct wseg *w;
    if (ds->free_seg) { /* one a retired job gave back */
        w = &ds->segs[ds->free_seg - 1];
        uint32_t s = ds->free_seg;
        ds->free_seg = w->next;
        w->next = ds->head[job];
        ds->head[job] = s;
    } else {
        w = &ds->segs[ds->nsegs++];
        w->next = ds->head[job];
        ds->head[job] = (uint32_t)ds->nsegs;
    }
    w->ms = ms;
    w->code = (int8_t)code;
}

/* The code of a coarse reason other than `resources`. */
static int fixed_code(int reason)
{
    switch (reason) {
    case GS_WAIT_QUOTA: return GS_REASON_QUOTA;
    case GS_WAIT_RESERVATION: return GS_REASON_RESERVATION;
    case GS_WAIT_PARTITION: return GS_REASON_PARTITION;
    default: return GS_REASON_PRIORITY; /* behind a blocked job, or not reached */
    }
}

/* The code a pending job waits under after this pass. */
static int pass_code(struct gs_engine *eng, int job)
{
    int8_t reason = gs_queue_job(eng, job)->reason;
    if (reason != GS_WAIT_RESOURCES)
        return fixed_code(reason);
    /* fits again (GPUs freed later in the pass): others went first */
    int c = gs_diag_resource_code(eng, job);
    return c == GS_REASON_NONE ? GS_REASON_PRIORITY : c;
}

/* Start of a (re)queued job's wait: its submit time, or when it was stopped
 * if it was requeued.  A job that started before any pass saw it pending
 * (code 0) and was then preempted waits from its stop, not its submit:
 * `runs` tells a requeue from a first wait. */
static gs_time wait_begin(const struct job *j, int8_t code, gs_time now)
{
    if (code == 0 && j->runs == 0)
        return j->submit;
    return j->end != GS_TIME_NONE && j->end <= now ? j->end : now;
}

/* A pending job whose code began before a run it has had since (started
 * outside a pass and requeued): close that wait at the run's start. */
static int8_t close_if_ran(struct gs_diag_state *ds, const struct job *j, int job, gs_time now)
{
    if (ds->code[job] == DIAG_FOLLOW) /* it followed its class up to now, or to its run */
        gs_diag_unfollow(ds, job, ds->runs[job] != j->runs ? j->start : now);
    int8_t cur = ds->code[job];
    if (cur > 0 && ds->runs[job] != j->runs) {
        gs_diag_add_wait(ds, job, cur, j->start - ds->since[job]);
        cur = ds->code[job] = DIAG_CLOSED;
    }
    return cur;
}

static void set_code(struct gs_diag_state *ds, const struct job *j, int job, int code,
                     gs_time since)
{
    ds->code[job] = (int8_t)code;
    ds->since[job] = since;
    ds->runs[job] = j->runs;
}

static void visit(struct gs_engine *eng, struct gs_diag_state *ds, int job, gs_time now)
{
    const struct job *j = &eng->jobs[job];
    int8_t cur = ds->code[job];
    if (j->state != GS_JOB_PENDING) {
        if (cur > 0) { /* left the queue since the last pass: close its wait */
            gs_time end = gs_job_state_holds(j->state) && j->start != GS_TIME_NONE ? j->start
                          : j->end != GS_TIME_NONE                          ? j->end
                                                                             : now;
            if (cur == DIAG_FOLLOW) {
                gs_diag_unfollow(ds, job, end);
                cur = ds->code[job];
            }
            gs_diag_add_wait(ds, job, cur, end - ds->since[job]);
            ds->code[job] = DIAG_CLOSED;
        }
        return;
    }
    cur = close_if_ran(ds, j, job, now);
    int code = pass_code(eng, job);
    if (cur <= 0) {
        set_code(ds, j, job, code, wait_begin(j, cur, now));
    } else if (code != cur) {
        gs_diag_add_wait(ds, job, cur, now - ds->since[job]);
        set_code(ds, j, job, code, now);
    }
}

/* A job that joined the queue (new or requeued) and that the pass did not
 * try waits behind the jobs it did: `priority`. */
static void joined(struct gs_engine *eng, struct gs_diag_state *ds, int job, gs_time now)
{
    const struct job *j = &eng->jobs[job];
    if (j->state != GS_JOB_PENDING)
        return;
    int8_t cur = close_if_ran(ds, j, job, now);
    if (cur <= 0)
        set_code(ds, j, job, GS_REASON_PRIORITY, wait_begin(j, cur, now));
}

/* The code of class g at this pass (frep: a pending job of it), noted in
 * its timeline; -1 when the class has no pending job.  ccode caches it
 * (0 = not yet read).  GS_ENOMEM when the record cannot be kept. */
static int class_code(struct gs_engine *eng, const struct gs_qstate *q, int g, int8_t *ccode,
                      gs_time now)
{
    if (ccode[g] == 0) {
        if (q->frep[g] < 0)
            return -1;
        int c = q->fkind[g] == GS_QFOL_RSV ? GS_REASON_RESERVATION
                                            : gs_diag_resource_code(eng, q->frep[g]);
        ccode[g] = (int8_t)(c == GS_REASON_NONE ? GS_REASON_PRIORITY : c);
        if (gs_diag_tl_note(eng->diag, g, ccode[g], now) < 0)
            return GS_ENOMEM;
    }
    return ccode[g];
}

/* Pending `job`, untried by a pass that left it following its class
 * (queue.c): it follows from `now`. */
static int convert(struct gs_engine *eng, const struct gs_qstate *q, int job, int8_t *ccode,
                   gs_time now)
{
    struct gs_diag_state *ds = eng->diag;
    struct job *j = &eng->jobs[job];
    int g = gs_qclass_of(eng, j);
    if (j->state != GS_JOB_PENDING || ds->code[job] == DIAG_FOLLOW || g == 0)
        return 0;
    int code = class_code(eng, q, g, ccode, now);
    if (code < 0)
        return code == -1 ? 0 : code;
    int8_t cur = close_if_ran(ds, j, job, now);
    gs_diag_follow(ds, job, g, code, wait_begin(j, cur, now), now);
    ds->runs[job] = j->runs;
    /* the memo's: refused whatever its estimate, or every estimate of the
     * class is long (queue_follow.c) */
    gs_queue_job(eng, job)->reason =
        q->fkind[g] == GS_QFOL_RSV ? GS_WAIT_RESERVATION : GS_WAIT_RESOURCES;
    return 0;
}

/* A pass that left followers (q->fpass): every pending job it did not try
 * follows its class (queue.c: those it walked over and, when it ended
 * early, every job past that point).  Those not following yet are among
 * the jobs with codes of their own after the last pass (ds->indiv: that
 * pass coded every job) and those new to the queue.  Every class with
 * followers notes its code of this pass.  0 or GS_ENOMEM. */
static int follow_pass(struct gs_engine *eng, const struct gs_qstate *q, gs_time now)
{
    struct gs_diag_state *ds = eng->diag;
    int8_t ccode[DIAG_CLASSES + 1] = { 0 };
    for (size_t i = 0; i < ds->nindiv + q->njoined; i++) {
        int job = i < ds->nindiv ? ds->indiv[i] : q->joined[i - ds->nindiv];
        if ((size_t)job >= eng->njobs || gs_eng_slot_free(eng, job) ||
            ds->code[job] == DIAG_FOLLOW || gs_queue_job(eng, job)->tried_cycle == q->cycle)
            continue;
        if (convert(eng, q, job, ccode, now) < 0)
            return GS_ENOMEM;
    }
    for (int g = 1; g <= DIAG_CLASSES; g++) {
        struct ftl *tl = &ds->tl[g];
        if (tl->followers > 0 && class_code(eng, q, g, ccode, now) == GS_ENOMEM)
            return GS_ENOMEM;
        if (tl->cap_walk == 0)
            tl->cap_walk = DIAG_TL_WALK;
        if (tl->n > tl->cap_walk) {
            /* a long timeline: the next pass tries every job, so every
             * pending follower takes a code of its own and the timeline
             * empties (followers that left the queue unseen keep it until
             * they are retired: the threshold doubles past them) */
            eng->q->fol_ready = 0;
            tl->cap_walk = 2 * tl->n;
        }
    }
    return 0;
}

/* The jobs with codes of their own after this pass: the pending ones it
 * tried (a pass that leaves followers comes only after one that coded
 * every job: queue.c). */
static int keep_indiv(struct gs_engine *eng, const struct gs_qstate *q)
{
    struct gs_diag_state *ds = eng->diag;
    ds->nindiv = 0;
    if (gs_grow((void **)&ds->indiv, &ds->indiv_cap, q->nvisited + 1, sizeof *ds->indiv)) {
        eng->q->fol_ready = 0; /* the list is lost: the next pass codes every job */
        return GS_ENOMEM;
    }
    for (size_t i = 0; i < q->nvisited; i++) {
        int job = q->visited[i];
        if (eng->jobs[job].state == GS_JOB_PENDING && ds->code[job] > 0 &&
            ds->code[job] != DIAG_FOLLOW)
            ds->indiv[ds->nindiv++] = job;
    }
    return 0;
}

/* Only the jobs the pass tried change code; one it did not try keeps the
 * code it had (queue.max_job_test) or follows its class (follow_pass); a
 * job that left the queue since is closed when a pass next sees it, or
 * read as closed by wait_split (its open interval ends at its start or
 * end). */
int gs_eng_diag_account_waits(struct gs_engine *eng, gs_time now, int full)
{
    struct gs_diag_state *ds = eng->diag;
    const struct gs_qstate *q = eng->q;
    size_t nvis = full && q ? q->nvisited : 0, njoin = full && q ? q->njoined : 0;
    int fpass = full && q && q->fpass;
    size_t nfol = fpass ? ds->nindiv + njoin : 0;
    if (gs_grow((void **)&ds->segs, &ds->segs_cap,
                ds->nsegs + (nvis + njoin + nfol) * GS_REASON_COUNT + 1, sizeof *ds->segs))
        return GS_ENOMEM;
    ds->stamp++;
    ds->idle = gs_cluster_stats(eng->cl).idle_gpus;
    for (size_t i = 0; i < nvis; i++) {
        int job = q->visited[i];
        const struct job *j = &eng->jobs[job];
        /* fast path: still pending under the same non-resource code */
        if (j->state == GS_JOB_PENDING && ds->code[job] > 0 && ds->runs[job] == j->runs &&
            q->jobs[job].reason != GS_WAIT_RESOURCES &&
            ds->code[job] == fixed_code(q->jobs[job].reason))
            continue;
        visit(eng, ds, job, now);
    }
    if (fpass && follow_pass(eng, q, now) < 0) {
        eng->q->fol_ready = 0; /* some untried jobs kept old codes: walk all next */
        return GS_ENOMEM;
    }
    for (size_t i = 0; !fpass && i < njoin; i++)
        joined(eng, ds, q->joined[i], now);
    for (size_t h = ds->seen; h < (size_t)eng->nhandles; h++) {
        /* new since the last call and not reached by a pass: behind the head */
        int job = gs_eng_slot(eng, (int)h);
        if (job >= 0 && ds->code[job] == 0 && eng->jobs[job].state == GS_JOB_PENDING)
            set_code(ds, &eng->jobs[job], job, GS_REASON_PRIORITY, eng->jobs[job].submit);
    }
    ds->seen = (size_t)eng->nhandles;
    return full && q ? keep_indiv(eng, q) : 0;
}

/* GS_HOOK_RESERVED: the pass reserved GPUs for `job` from `start`
 * (explanations only, never affects scheduling). */
static void note_reserve(struct gs_engine *eng, int job, gs_time start)
{
    struct gs_diag_state *ds = eng->diag;
    if (!ds)
        return;
    if (ds->notes_stamp != ds->stamp + 1) { /* first reservation of this pass */
        ds->notes_stamp = ds->stamp + 1;
        ds->nnotes = 0;
    }
    if (ds->nnotes < DIAG_NOTES) {
        ds->notes[ds->nnotes].job = gs_eng_handle(eng, job);
        ds->notes[ds->nnotes].start = start;
        ds->nnotes++;
    }
}

int gs_engine_wait_reason(const struct gs_engine *eng, int handle)
{
    const struct gs_diag_state *ds = eng->diag;
    int job = gs_eng_slot(eng, handle);
    if (job < 0 || (size_t)job >= ds->cap)
        return GS_REASON_NONE;
    if (eng->jobs[job].state != GS_JOB_PENDING || ds->code[job] <= 0)
        return GS_REASON_NONE;
    return ds->code[job] == DIAG_FOLLOW ? gs_diag_follow_code(ds, job) : ds->code[job];
}

/* End of a job's open interval: now while pending, else when it left. */
static gs_time open_end(const struct gs_engine *eng, const struct job *j, gs_time since)
{
    gs_time end;
    if (j->state == GS_JOB_PENDING)
        end = eng->now;
    else if (j->start != GS_TIME_NONE && j->start >= since)
        end = j->start;
    else
        end = j->end;
    return end != GS_TIME_NONE && end > since ? end : since;
}

/* gs_engine_wait_split of the job in slot `job`. */
static void split_of(const struct gs_engine *eng, int job, gs_time out[GS_REASON_COUNT])
{
    memset(out, 0, GS_REASON_COUNT * sizeof *out);
    const struct gs_diag_state *ds = eng->diag;
    const struct job *j = &eng->jobs[job];
    int8_t code = (size_t)job < ds->cap ? ds->code[job] : 0;
    if (code == 0) { /* never classified */
        if (j->state != GS_JOB_REJECTED)
            out[GS_REASON_NONE] = open_end(eng, j, j->submit) - j->submit;
        return;
    }
    for (uint32_t s = ds->head[job]; s; s = ds->segs[s - 1].next)
        out[ds->segs[s - 1].code] += ds->segs[s - 1].ms;
    if (code == DIAG_FOLLOW)
        gs_diag_follow_split(ds, job, open_end(eng, j, ds->since[job]), out);
    else if (code > 0)
        out[code] += open_end(eng, j, ds->since[job]) - ds->since[job];
}

int gs_engine_wait_split(const struct gs_engine *eng, int handle, gs_time out[GS_REASON_COUNT])
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return GS_ENOENT;
    split_of(eng, job, out);
    return 0;
}

int gs_engine_wait_dominant(const struct gs_engine *eng, int job)
{
    gs_time split[GS_REASON_COUNT];
    int best = GS_REASON_NONE;
    if (gs_engine_wait_split(eng, job, split) < 0)
        return best;
    for (int c = GS_REASON_NONE + 1; c < GS_REASON_COUNT; c++)
        if (split[c] > 0 && (best == GS_REASON_NONE || split[c] > split[best]))
            best = c;
    return best;
}

/* Add the waits of the job in slot `job` to `out`. */
static void add_reasons(struct gs_wait_reasons *out, const struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    gs_time split[GS_REASON_COUNT];
    split_of(eng, job, split);
    int cls = gs_job_size_class(j->gpus);
    double gpus = (double)j->gpus * j->milli / GS_MILLI_GPU;
    for (int c = 0; c < GS_REASON_COUNT; c++) {
        double h = (double)split[c] / (3600.0 * GS_MS_PER_SEC);
        out->job_h[c][cls] += h;
        out->gpu_h[c][cls] += h * gpus;
        out->total_job_h += h;
        out->total_gpu_h += h * gpus;
    }
}

void gs_wait_reasons_build(struct gs_wait_reasons *out, const struct gs_engine *eng)
{
    *out = eng->diag->retired; /* zero unless jobs were retired */
    for (size_t job = 0; job < eng->njobs; job++)
        if (!gs_eng_slot_free(eng, (int)job))
            add_reasons(out, eng, (int)job);
}

/* GS_HOOK_RETIRED: the slot's waits go to the retired totals, its wait
 * segments back to the pool and a follower leaves its class's count; the
 * slot's entries are zeroed when a new job takes it (GS_HOOK_ADDED,
 * diagnose_slots.c). */
static void diag_retire(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    struct gs_diag_state *ds = eng->diag;
    add_reasons(&ds->retired, eng, job);
    if ((size_t)job >= ds->cap)
        return;
    uint32_t s = ds->head[job];
    while (s) { /* give its segments back */
        uint32_t next = ds->segs[s - 1].next;
        ds->segs[s - 1].next = ds->free_seg;
        ds->free_seg = s;
        s = next;
    }
    ds->head[job] = 0;
    if (ds->code[job] == DIAG_FOLLOW && --ds->tl[ds->fcls[job]].followers == 0)
        ds->tl[ds->fcls[job]].n = 0;
}

void gs_eng_diag_hooks(struct gs_eng_hooks *h)
{
    gs_eng_hook_add(h, GS_HOOK_RETIRED, diag_retire);
    gs_eng_hook_add(h, GS_HOOK_RESERVED, note_reserve);
    gs_eng_diag_slot_hooks(h);
    h->account_waits = gs_eng_diag_account_waits;
    h->plain_code = gs_eng_diag_plain_code_now;
}

/* sim.c - discrete-event replay of a trace through the engine. */
#include "sim/sim.h"
#include "core/base/alloc.h"
#include "core/jobs/engine_place.h"
#include "core/diagnose/eta.h"
#include "sim/eta_due.h"
#include "sim/latency.h"

#include <assert.h>
#include <string.h>

struct finish_ev {
    gs_time time;
    uint64_t seq;
    int job;            /* engine handle */
    uint32_t gen;       /* run generation; stale if the job restarted/ended */
};

struct sim {
    const struct gs_trace *tr;
    const struct gs_sim_opts *opts;
    struct gs_engine *eng;
    size_t *trace_of;   /* engine handle -> trace index */
    uint32_t *gen;      /* engine handle -> current run generation */
    size_t njobs;
    struct finish_ev *heap;
    size_t nheap, heap_cap;
    uint64_t seq;
    int failed;         /* GS_ENOMEM inside the observer, or GS_ERANGE */
    int failed_job;     /* GS_ERANGE: the job whose end is not representable */
    size_t next_node_ev; /* next of opts->node_events to apply */
    /* opts->failures: the process, the events drawn and not yet applied */
    struct gs_fail_stream fs;
    struct gs_node_events fev;
    size_t next_fev;
    unsigned char *fail_down; /* node (then node x GPU) -> down under a failure's repair */
    int nfail_down, nnodes;
    gs_time *lost_seen;       /* engine handle -> its `lost` at its last event */
    struct gs_sim_fail *fail; /* NULL without failures */
    struct gs_eta_cal *cal;   /* opts->eta: the promises' calibration */
    struct gs_eta_rec *eta;   /* opts->eta: engine handle -> its promise */
    struct gs_eta_due due;    /* opts->eta: the bounds still to pass */
};

/* Failure events are drawn a day at a time. */
#define FAIL_WINDOW_MS ((gs_time)86400 * 1000)

static int ev_less(const struct finish_ev *a, const struct finish_ev *b)
{
    return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static int heap_push(struct sim *s, struct finish_ev ev)
{
    if (gs_grow((void **)&s->heap, &s->heap_cap, s->nheap + 1, sizeof *s->heap))
        return GS_ENOMEM;
    size_t i = s->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_less(&ev, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = ev;
    return 0;
}

static struct finish_ev heap_pop(struct sim *s)
{
    struct finish_ev top = s->heap[0], last = s->heap[--s->nheap];
    size_t i = 0, n = s->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!ev_less(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n > 0)
        s->heap[i] = last;
    return top;
}

static gs_time oracle_estimate(void *arg, const struct gs_engine *eng, int job)
{
    (void)eng;
    const struct sim *s = arg;
    return gs_trace_duration(s->tr, s->trace_of[job]);
}

/* Lost work by cause: the growth of the job's `lost` at a GS_EV_FAIL is the
 * failure's; at any other event (preemption) it is not. */
static void count_failure(struct sim *s, const struct gs_event *ev)
{
    struct gs_job_info ji;
    if (ev->job < 0 || (size_t)ev->job >= s->fail->njobs ||
        gs_engine_job_info(s->eng, ev->job, &ji) < 0)
        return;
    if (ev->kind == GS_EV_FAIL) {
        s->fail->lost[ev->job] += ji.lost - s->lost_seen[ev->job];
        s->fail->restarts[ev->job]++;
        s->fail->hits++;
    }
    s->lost_seen[ev->job] = ji.lost;
}

/* A job started: its first start goes to the calibration once its
 * promise was made (a job that starts in its submit's pass is fed right
 * after the promise, eta_step). */
static void eta_started(struct sim *s, int job)
{
    struct gs_job_info ji;
    if (s->eta[job].recorded && gs_engine_job_info(s->eng, job, &ji) == 0)
        gs_eta_cal_observe(s->cal, &s->eta[job], ji.first_start);
}

/* After the pass at a submit instant: the promises of the jobs submitted
 * in it (handles first..njobs). */
static int eta_step(struct sim *s, size_t first, struct gs_error *err)
{
    if (s->eta) /* the misses known now: bounds passed before their starts */
        gs_eta_due_pass(&s->due, gs_engine_now(s->eng), s->cal, s->eta);
    for (size_t h = first; s->eta && h < s->njobs; h++) {
        if (gs_eta_promise(s->eng, (int)h, s->cal, &s->eta[h]) == GS_ENOMEM)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        eta_started(s, (int)h);
        if (!s->eta[h].observed && s->eta[h].p90 != GS_TIME_NONE &&
            gs_eta_due_push(&s->due, s->eta[h].p90, (int)h) < 0)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
    }
    return 0;
}

static void on_event(void *arg, const struct gs_event *ev)
{
    struct sim *s = arg;
    if (ev->kind == GS_EV_START || ev->kind == GS_EV_RATE || ev->kind == GS_EV_DRAIN) {
        /* (re)schedule the finish: when the job's work reaches its duration */
        s->gen[ev->job]++;
        gs_time dur = gs_trace_duration(s->tr, s->trace_of[ev->job]), end;
        if (gs_engine_job_eta(s->eng, ev->job, dur, &end) < 0)
            end = gs_time_add(ev->time, dur);
        if (end == GS_TIME_INF && !s->failed) {
            s->failed = GS_ERANGE; /* its end is past the largest time */
            s->failed_job = ev->job;
        }
        struct finish_ev fe = { end, s->seq++, ev->job, s->gen[ev->job] };
        if (heap_push(s, fe) < 0)
            s->failed = GS_ENOMEM;
        if (ev->kind == GS_EV_START && s->eta)
            eta_started(s, ev->job);
    } else if (ev->kind == GS_EV_KILL || ev->kind == GS_EV_CANCEL ||
               ev->kind == GS_EV_PREEMPT || ev->kind == GS_EV_FAIL) {
        s->gen[ev->job]++; /* its pending finish event is now stale */
    }
    if (s->fail)
        count_failure(s, ev);
    if (s->opts && s->opts->on_event)
        s->opts->on_event(s->opts->arg, ev);
}

/* Prefix an error about trace job ti with "FILE:LINE: " when the trace
 * knows where the job came from; returns rc. */
static int at_job(const struct sim *s, size_t ti, int rc, struct gs_error *err)
{
    const char *src;
    long line;
    if (!err || !gs_trace_where(s->tr, ti, &src, &line))
        return rc;
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    return gs_errorf(err, rc, "%s:%ld: %s", src, line, msg);
}

static int submit_job(struct sim *s, size_t ti, gs_time now, struct gs_error *err)
{
    const struct gs_job_spec *spec = gs_trace_job(s->tr, ti);
    if (gs_trace_duration(s->tr, ti) == GS_TIME_NONE || gs_trace_duration(s->tr, ti) < 0)
        return at_job(s, ti, gs_errorf(err, GS_EINVAL, "job %s: no duration", spec->id), err);
    /* the handle the engine will assign is the next in sequence */
    s->trace_of[s->njobs] = ti;
    s->gen[s->njobs] = 0;
    int h = gs_engine_submit(s->eng, now, spec, err);
    if (h < 0)
        return at_job(s, ti, h, err);
    s->njobs++;
    return 0;
}

static void tick(struct sim *s, gs_time now)
{
    if (!s->opts || !s->opts->on_tick)
        return;
    struct gs_cluster_stats st = gs_cluster_stats(gs_engine_cluster(s->eng));
    struct gs_sim_tick t = { now, &st, gs_engine_pending_count(s->eng),
                             gs_engine_running_count(s->eng) };
    s->opts->on_tick(s->opts->arg, &t);
}

/* Earliest pending instant: a submission, a finish, or an engine wakeup. */
static gs_time next_time(const struct sim *s, const size_t *order, size_t next, size_t n,
                         gs_time wake)
{
    gs_time t = wake;
    if (next < n) {
        gs_time sub = gs_trace_job(s->tr, order[next])->submit;
        if (sub < t)
            t = sub;
    }
    if (s->nheap && s->heap[0].time < t)
        t = s->heap[0].time;
    const struct gs_node_events *ne = s->opts ? s->opts->node_events : NULL;
    if (ne && s->next_node_ev < ne->n && ne->ev[s->next_node_ev].time < t)
        t = ne->ev[s->next_node_ev].time;
    int work = next < n || gs_engine_pending_count(s->eng) > 0 ||
               gs_engine_running_count(s->eng) > 0;
    if (s->fail && work && s->next_fev < s->fev.n && s->fev.ev[s->next_fev].time < t)
        t = s->fev.ev[s->next_fev].time;
    return t;
}

/* Keep at least one failure event drawn ahead (the process never ends). */
static int refill_failures(struct sim *s, struct gs_error *err)
{
    if (!s->fail || s->next_fev < s->fev.n)
        return 0;
    s->fev.n = 0;
    s->next_fev = 0;
    /* from the next event on (a day may hold none when failures are rare) */
    gs_time from = gs_fail_stream_next(&s->fs);
    if (from < s->fs.drawn_to)
        from = s->fs.drawn_to;
    gs_time until = from > GS_TIME_INF - FAIL_WINDOW_MS ? GS_TIME_INF : from + FAIL_WINDOW_MS;
    if (gs_fail_stream_draw(&s->fs, until, &s->fev) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

/* Apply the failure events of instant `t`. */
static int apply_failures(struct sim *s, gs_time t, int64_t *events, struct gs_error *err)
{
    while (s->fail && s->next_fev < s->fev.n && s->fev.ev[s->next_fev].time == t) {
        const struct gs_node_event *e = &s->fev.ev[s->next_fev++];
        int down = e->state == GS_NODE_DOWN;
        size_t u = e->gpu < 0 ? (size_t)e->node
                              : (size_t)s->nnodes + (size_t)e->node * GS_MAX_NODE_GPUS +
                                    (size_t)e->gpu;
        if (down == s->fail_down[u])
            continue;
        s->fail_down[u] = (unsigned char)down;
        s->nfail_down += down ? 1 : -1;
        s->fail->events += down;
        s->fail->events_drawn += down;
        int rc = e->gpu < 0 ? gs_engine_node_set_state(s->eng, t, e->node, e->state, err)
                            : gs_engine_gpu_set_state(s->eng, t, e->node, e->gpu, e->state,
                                                      err);
        if (rc < 0)
            return rc;
        (*events)++;
    }
    return 0;
}

/* Apply the node events of instant `t`. */
static int apply_node_events(struct sim *s, gs_time t, int64_t *events, struct gs_error *err)
{
    const struct gs_node_events *ne = s->opts ? s->opts->node_events : NULL;
    while (ne && s->next_node_ev < ne->n && ne->ev[s->next_node_ev].time == t) {
        const struct gs_node_event *e = &ne->ev[s->next_node_ev++];
        if (s->fail && e->state == GS_NODE_DOWN) /* a replayed failure: counted */
            s->fail->events += (e->gpu < 0 ? gs_engine_node_state(s->eng, e->node)
                                           : gs_engine_gpu_state(s->eng, e->node, e->gpu)) !=
                               GS_NODE_DOWN;
        int rc = e->gpu < 0 ? gs_engine_node_set_state(s->eng, t, e->node, e->state, err)
                            : gs_engine_gpu_set_state(s->eng, t, e->node, e->gpu, e->state,
                                                      err);
        if (rc < 0)
            return rc;
        (*events)++;
    }
    return 0;
}

static int apply_finishes(struct sim *s, gs_time t, int64_t *events, struct gs_error *err)
{
    while (s->nheap && s->heap[0].time == t) {
        struct finish_ev ev = heap_pop(s);
        if (ev.gen != s->gen[ev.job])
            continue;
        int rc = gs_engine_finish(s->eng, t, ev.job, err);
        if (rc < 0)
            return rc;
        (*events)++;
    }
    return 0;
}

static int after_step(struct sim *s, struct gs_metrics *m, gs_time t, struct gs_error *err)
{
    if (s->failed == GS_ERANGE) {
        struct gs_job_spec spec;
        gs_engine_job_spec(s->eng, s->failed_job, &spec);
        return at_job(s, s->trace_of[s->failed_job],
                      gs_errorf(err, GS_ERANGE, "job %s: its run (work plus checkpoints) ends "
                                "past the largest time the simulator can represent", spec.id),
                      err);
    }
    if (s->failed)
        return gs_errorf(err, s->failed, "out of memory in the simulator");
    if (s->opts && s->opts->check && gs_engine_check(s->eng, err) < 0)
        return GS_ESTATE;
    struct gs_cluster_stats st = gs_cluster_stats(gs_engine_cluster(s->eng));
    struct gs_frag_extra fx;
    gs_engine_frag_extra(s->eng, &fx);
    st.frag_memory = fx.memory;
    st.frag_mig = fx.mig;
    if (gs_metrics_sample(m, t, &st) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    tick(s, t);
    return 0;
}

/* With node events, jobs may wait for GPUs that never come back: once
 * nothing runs and no submission or node event is left, nothing can change
 * any more (aging only reorders the waiting jobs), so the replay ends and
 * they stay unfinished (with failures: also no node waits for a repair).
 * Without node events or failures the replay ends as it always
 * did (this is not checked, so those schedules cannot change). */
static int stuck(const struct sim *s, size_t next, size_t n)
{
    const struct gs_node_events *ne = s->opts ? s->opts->node_events : NULL;
    if (!ne && !s->fail)
        return 0;
    return (!ne || s->next_node_ev >= ne->n) && s->nfail_down == 0 && next >= n &&
           s->nheap == 0 && gs_engine_running_count(s->eng) == 0;
}

/* Replay the n jobs of the trace in submit order (`order`, NULL when n is
 * 0). */
static int run_loop(struct sim *s, struct gs_metrics *m, const size_t *order, size_t n,
                    struct gs_sim_result *out, struct gs_error *err)
{
    assert(order || n == 0); /* gs_sim_run stops when ordering a non-empty trace fails */
    size_t next = 0;
    gs_time wake = GS_TIME_INF, last = 0;
    int rc = 0;
    for (gs_time t; rc == 0 && (rc = refill_failures(s, err)) == 0 &&
                    (t = next_time(s, order, next, n, wake)) != GS_TIME_INF;) {
        rc = apply_finishes(s, t, &out->events, err);
        if (rc == 0)
            rc = apply_node_events(s, t, &out->events, err);
        if (rc == 0)
            rc = apply_failures(s, t, &out->events, err);
        size_t first_new = s->njobs;
        while (rc == 0 && next < n && gs_trace_job(s->tr, order[next])->submit == t) {
            rc = submit_job(s, order[next++], t, err);
            out->events++;
        }
        if (rc == 0)
            rc = gs_engine_step(s->eng, t, err);
        if (rc >= 0)
            rc = eta_step(s, first_new, err);
        if (rc >= 0)
            rc = after_step(s, m, t, err);
        out->steps++;
        wake = gs_engine_next_wakeup(s->eng, t);
        last = t;
        if (rc == 0 && stuck(s, next, n))
            break;
    }
    if (rc == 0 && gs_metrics_close(m, last) < 0)
        rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    return rc;
}

static int setup_failures(struct sim *s, const struct gs_cluster *cl, size_t n,
                          struct gs_error *err)
{
    int rc = gs_fail_stream_init_cluster(&s->fs, s->opts->failures, cl, err);
    if (rc < 0)
        return rc;
    s->fail = gs_calloc(1, sizeof *s->fail);
    s->nnodes = gs_cluster_node_count(cl);
    /* per node, then (gpu_mtbf) per node x GS_MAX_NODE_GPUS GPUs */
    s->fail_down = gs_calloc((size_t)s->nnodes * (s->opts->failures->gpu_mtbf_s > 0
                                                      ? 1 + GS_MAX_NODE_GPUS : 1) + 1, 1);
    s->lost_seen = gs_calloc(n ? n : 1, sizeof *s->lost_seen);
    if (!s->fail || !s->fail_down || !s->lost_seen)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    s->fail->njobs = n;
    s->fail->lost = gs_calloc(n ? n : 1, sizeof *s->fail->lost);
    s->fail->restarts = gs_calloc(n ? n : 1, sizeof *s->fail->restarts);
    if (!s->fail->lost || !s->fail->restarts)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    return 0;
}

static void sim_fail_free(struct gs_sim_fail *f)
{
    if (!f)
        return;
    gs_free(f->lost);
    gs_free(f->restarts);
    gs_free(f);
}

static int setup(struct sim *s, const struct gs_cluster *cl, const struct gs_policy *pol,
                 struct gs_error *err)
{
    size_t n = gs_trace_count(s->tr);
    s->eng = gs_engine_create(cl, pol, err);
    if (!s->eng) /* the error code, never 0 even if err was not filled */
        return err && err->code < 0 ? err->code : GS_EINVAL;
    s->trace_of = gs_calloc(n ? n : 1, sizeof *s->trace_of);
    s->gen = gs_calloc(n ? n : 1, sizeof *s->gen);
    if (!s->trace_of || !s->gen)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    if (s->opts && s->opts->failures && setup_failures(s, cl, n, err) < 0)
        return err && err->code < 0 ? err->code : GS_ENOMEM;
    gs_engine_set_observer(s->eng, on_event, s);
    gs_latency_attach(s->eng);
    if (s->opts && s->opts->eta) {
        s->cal = gs_malloc(sizeof *s->cal);
        s->eta = gs_calloc(n ? n : 1, sizeof *s->eta);
        if (!s->cal || !s->eta)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        gs_eta_cal_init(s->cal);
    }
    if (pol->estimate == GS_EST_ORACLE) {
        struct gs_estimator est = { "oracle", oracle_estimate, NULL, s };
        gs_engine_set_estimator(s->eng, &est);
    }
    return 0;
}

int gs_sim_run(const struct gs_cluster *cl, const struct gs_policy *pol,
               const struct gs_trace *tr, const struct gs_sim_opts *opts,
               struct gs_sim_result *out, struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    struct sim s = { 0 };
    s.tr = tr;
    s.opts = opts;
    struct gs_metrics *m = gs_metrics_create();
    size_t n = gs_trace_count(tr), *order = gs_trace_order(tr);
    int rc = 0;
    if (!m || (!order && n > 0))
        rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    if (rc == 0)
        rc = setup(&s, cl, pol, err);
    if (rc == 0)
        rc = run_loop(&s, m, order, n, out, err);
    if (rc == 0 && gs_summary_build(&out->summary, m, s.eng) < 0)
        rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    if (rc == 0) {
        out->engine = s.eng;
        s.eng = NULL;
        out->fail = s.fail;
        s.fail = NULL;
        out->eta = s.eta;
        out->neta = s.njobs;
        s.eta = NULL;
    }
    sim_fail_free(s.fail);
    gs_fail_stream_fini(&s.fs);
    gs_node_events_fini(&s.fev);
    gs_free(s.fail_down);
    gs_free(s.lost_seen);
    gs_engine_destroy(s.eng);
    gs_free(s.trace_of);
    gs_free(s.gen);
    gs_free(s.heap);
    gs_free(s.eta);
    gs_eta_due_free(&s.due);
    gs_free(s.cal);
    gs_free(order);
    gs_metrics_destroy(m);
    return rc < 0 ? rc : 0;
}

void gs_sim_result_fini(struct gs_sim_result *r)
{
    if (!r)
        return;
    gs_summary_fini(&r->summary);
    sim_fail_free(r->fail);
    r->fail = NULL;
    gs_engine_destroy(r->engine);
    r->engine = NULL;
    gs_free(r->eta);
    r->eta = NULL;
    r->neta = 0;
}

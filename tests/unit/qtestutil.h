/* qtestutil.h - helpers for the queue-policy golden tests (issue 3):
 * test_queue.c, test_backfill.c, test_estimate.c, test_caps.c and
 * test_profile.c.  Builds on testutil.h (clusters, policies, specs); include
 * after <cmocka.h> and its prerequisites.
 *
 *   struct qjob rows[] = {{ .id = "big", .submit_s = 60, .gpus = 8,
 *                           .dur_s = 3600, .prio = 10, .tl_s = 3600 }};
 *   struct gs_trace *tr = qtrace(rows, n);        trace in row order
 *   struct gs_sim_result *res = qsim(cl, pol, tr, log);  checked replay
 *   qstart_of(res->engine, "big")                 first start time (ms)
 *
 * Every object these helpers create is registered with a small collector
 * and freed by qgc_teardown after the test - also when an assertion fails
 * half way - so a failing test leaves nothing for LeakSanitizer to report.
 * Run tests with QTEST(fn), which installs that teardown.
 *
 * Times in tables are seconds (so a hand derivation reads in minutes and
 * hours: 3600 = 1h); the engine works in milliseconds.  Everything is
 * `static inline` so unused helpers do not trip -Wunused-function.
 */
#ifndef GS_TESTS_QTESTUTIL_H
#define GS_TESTS_QTESTUTIL_H

#include "testutil.h"

/* ---- the collector ------------------------------------------------------ */

struct qgc_item {
    void (*fn)(void *);
    void *p;
};

static struct {
    struct qgc_item *v;
    int n, cap;
} qgc;

/* Register `p` to be freed with `fn` after the test; returns `p`. */
static inline void *qgc_keep(void *p, void (*fn)(void *))
{
    if (!p)
        fail_msg("out of memory");
    if (qgc.n == qgc.cap) {
        int ncap = qgc.cap ? 2 * qgc.cap : 64;
        struct qgc_item *v = realloc(qgc.v, (size_t)ncap * sizeof *v);
        if (!v) {
            fn(p);
            fail_msg("out of memory");
        }
        qgc.v = v;
        qgc.cap = ncap;
    }
    qgc.v[qgc.n].fn = fn;
    qgc.v[qgc.n].p = p;
    qgc.n++;
    return p;
}

/* Free everything registered, newest first (cmocka teardown). */
static inline int qgc_teardown(void **state)
{
    (void)state;
    while (qgc.n > 0) {
        qgc.n--;
        qgc.v[qgc.n].fn(qgc.v[qgc.n].p);
    }
    free(qgc.v);
    qgc.v = NULL;
    qgc.cap = 0;
    return 0;
}

#define QTEST(f) cmocka_unit_test_teardown(f, qgc_teardown)

static inline void qgc_cluster(void *p)
{
    gs_cluster_destroy(p);
}

static inline void qgc_trace(void *p)
{
    gs_trace_destroy(p);
}

static inline void qgc_policy(void *p)
{
    gs_policy_fini(p);
    free(p);
}

static inline void qgc_result(void *p)
{
    gs_sim_result_fini(p);
    free(p);
}

/* A sealed cluster (testutil.h's cluster_of syntax), freed after the test. */
static inline struct gs_cluster *qcluster(const char *desc)
{
    return qgc_keep(cluster_of(desc), qgc_cluster);
}

#define MINS(m) ((gs_time)(m) * 60 * GS_MS_PER_SEC)
#define HRS(h) ((gs_time)(h) * 3600 * GS_MS_PER_SEC)

/* ---- traces ------------------------------------------------------------ */

/* One trace row.  Zero fields take the trace format's defaults: gpus 0 is
 * a CPU-only job, so every row sets gpus. */
struct qjob {
    const char *id;
    double submit_s;
    int gpus;
    double dur_s;       /* true run time (simulation ground truth) */
    int prio;
    double tl_s;        /* time_limit, 0 = none */
    const char *team, *user, *name;
    int topology;       /* enum gs_topo, 0 = auto */
    int milli;          /* share of one GPU (gpus = 1), 0 = whole GPUs */
};

static inline struct gs_job_spec qspec(const struct qjob *r)
{
    struct gs_job_spec s = row_spec(r->id, r->submit_s, r->gpus, r->prio, r->team, r->topology,
                                    r->milli);
    s.time_limit = gs_time_from_sec(r->tl_s);
    s.user = r->user;
    s.name = r->name;
    return s;
}

/* Trace of `n` rows in row order, freed after the test. */
static inline struct gs_trace *qtrace(const struct qjob *rows, size_t n)
{
    struct gs_trace *tr = qgc_keep(gs_trace_create(), qgc_trace);
    for (size_t i = 0; i < n; i++) {
        struct gs_job_spec s = qspec(&rows[i]);
        trace_add_ok(tr, &s, rows[i].dur_s, i);
    }
    return tr;
}

/* ---- policies ----------------------------------------------------------- */

/* A policy: the defaults, then each "key", "value" pair of the
 * NULL-terminated list; fails the test on any error.  Freed after the
 * test. */
static inline struct gs_policy *qpolicy(const char *const *kv)
{
    struct gs_policy *p = malloc(sizeof *p);
    if (p)
        gs_policy_init(p);
    qgc_keep(p, qgc_policy);
    pol_set_all(p, kv);
    return p;
}

/* ---- an event log without a size limit ------------------------------------ */

struct qlog {
    int n, cap;
    struct rec_event *ev;
};

/* gs_observer_fn appending to a struct qlog (allocation failure fails the
 * test from the next assertion on `n`). */
static inline void qlog_event(void *arg, const struct gs_event *ev)
{
    struct qlog *l = arg;
    if (l->n == l->cap) {
        int ncap = l->cap ? 2 * l->cap : 256;
        struct rec_event *p = realloc(l->ev, (size_t)ncap * sizeof *p);
        if (!p)
            return;
        l->ev = p;
        l->cap = ncap;
    }
    rec_event_set(&l->ev[l->n++], ev);
}

static inline void qgc_log(void *p)
{
    struct qlog *l = p;
    free(l->ev);
    free(l);
}

/* An empty log, freed after the test. */
static inline struct qlog *qlog_new(void)
{
    return qgc_keep(calloc(1, sizeof(struct qlog)), qgc_log);
}

/* Index of the first event of `kind` for `job` at or after index `from`,
 * or -1. */
static inline int qlog_find(const struct qlog *l, int from, int kind, int job)
{
    for (int i = from; i < l->n; i++)
        if (l->ev[i].kind == kind && l->ev[i].job == job)
            return i;
    return -1;
}

/* Number of events of `kind` (any job when job < 0) at time `t` (any time
 * when t < 0). */
static inline int qlog_count(const struct qlog *l, int kind, int job, gs_time t)
{
    int c = 0;
    for (int i = 0; i < l->n; i++)
        if (l->ev[i].kind == kind && (job < 0 || l->ev[i].job == job) &&
            (t < 0 || l->ev[i].time == t))
            c++;
    return c;
}

/* Assert event `e` sits on exactly one part: node `node` (by name), GPUs
 * `mask`. */
static inline void qassert_on(const struct gs_cluster *cl, const struct rec_event *e,
                              const char *node, uint64_t mask)
{
    if (e->nparts != 1 || e->parts[0].node != node_of(cl, node) || e->parts[0].mask != mask)
        fail_msg("event kind %d job %d at %lld: %d part(s), first node %d mask %#llx; "
                 "want %s %#llx", e->kind, e->job, (long long)e->time, e->nparts,
                 e->nparts ? e->parts[0].node : -1,
                 (unsigned long long)(e->nparts ? e->parts[0].mask : 0), node,
                 (unsigned long long)mask);
}

/* ---- the engine driven directly ------------------------------------------- */

struct qeng {
    struct gs_cluster *cl;
    struct gs_engine *eng;
    struct qlog log;
};

static inline void qgc_eng(void *p)
{
    struct qeng *q = p;
    gs_engine_destroy(q->eng);
    gs_cluster_destroy(q->cl);
    free(q->log.ev);
    free(q);
}

/* Cluster from `desc` (testutil.h's cluster_of syntax) and an engine under
 * `pol`, logging every decision to q->log; freed after the test. */
static inline struct qeng *qeng_new(const char *desc, const struct gs_policy *pol)
{
    struct qeng *q = qgc_keep(calloc(1, sizeof(struct qeng)), qgc_eng);
    q->cl = cluster_of(desc);
    struct gs_error err = { 0 };
    q->eng = gs_engine_create(q->cl, pol, &err);
    if (!q->eng)
        fail_msg("gs_engine_create: %s", err.msg);
    gs_engine_set_observer(q->eng, qlog_event, &q->log);
    return q;
}

/* Submit row `r` at `now` (the row's submit_s is the job's submit time and
 * may be earlier than `now`).  Returns the handle. */
static inline int qsubmit(struct qeng *q, gs_time now, const struct qjob *r)
{
    struct gs_job_spec s = qspec(r);
    struct gs_error err = { 0 };
    int h = gs_engine_submit(q->eng, now, &s, &err);
    if (h < 0)
        fail_msg("submit %s: %s", r->id, err.msg);
    return h;
}

static inline int qstep(struct qeng *q, gs_time now)
{
    struct gs_error err = { 0 };
    int rc = gs_engine_step(q->eng, now, &err);
    if (rc < 0)
        fail_msg("step at %lld: %s", (long long)now, err.msg);
    return rc;
}

static inline void qfinish(struct qeng *q, gs_time now, int job)
{
    struct gs_error err = { 0 };
    if (gs_engine_finish(q->eng, now, job, &err) != 0)
        fail_msg("finish %d: %s", job, err.msg);
}

static inline int qstate(const struct qeng *q, int job)
{
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(q->eng, job, &ji), 0);
    return ji.state;
}

/* ---- the simulator ---------------------------------------------------------- */

/* Replay with gs_cluster_check after every step, logging every decision
 * to `log` (may be NULL); fails the test on error.  The result is freed
 * after the test. */
static inline struct gs_sim_result *qsim(const struct gs_cluster *cl,
                                         const struct gs_policy *pol,
                                         const struct gs_trace *tr, struct qlog *log)
{
    struct gs_sim_result *res = qgc_keep(calloc(1, sizeof(struct gs_sim_result)), qgc_result);
    struct gs_sim_opts opts = { 0 };
    opts.check = 1;
    if (log) {
        opts.on_event = qlog_event;
        opts.arg = log;
    }
    struct gs_error err = { 0 };
    int rc = gs_sim_run(cl, pol, tr, &opts, res, &err);
    if (rc != 0)
        fail_msg("gs_sim_run: %s (%s)", err.msg, gs_strerror(rc));
    return res;
}

/* Handle of job `id`; fails the test when absent. */
static inline int qjob_handle(const struct gs_engine *eng, const char *id)
{
    int h = gs_engine_job_find(eng, id);
    if (h < 0)
        fail_msg("no job %s", id);
    return h;
}

/* First start of job `id` (ms), GS_TIME_NONE if it never started. */
static inline gs_time qstart_of(const struct gs_engine *eng, const char *id)
{
    return job_named(eng, id).first_start;
}

/* Assert job `id` first started at `want` ms, with a readable message. */
static inline void qassert_start(const struct gs_engine *eng, const char *id, gs_time want)
{
    gs_time got = qstart_of(eng, id);
    if (got != want)
        fail_msg("job %s started at %lld ms, want %lld ms", id, (long long)got,
                 (long long)want);
}

/* START event of job `id` in `log`; fails the test when absent. */
static inline const struct rec_event *qstart_ev(const struct qlog *log,
                                                const struct gs_engine *eng, const char *id)
{
    int i = qlog_find(log, 0, GS_EV_START, qjob_handle(eng, id));
    if (i < 0)
        fail_msg("no START event for %s", id);
    return &log->ev[i];
}

#endif

/* ptestutil.h - helpers for the preemption and partition tests (issue 5):
 * test_preempt.c and test_partition.c.  Builds on testutil.h; include
 * after <cmocka.h> and its prerequisites.
 *
 *   struct pjob rows[] = {{ .id = "A", .gpus = 8, .dur_s = 1000,
 *                           .ckpt_i = 100, .ckpt_c = 10 }};
 *   struct gs_trace *tr = ptrace(rows, n);
 *   psim(cl, &pol, tr, &rec, &res);     checked replay, events recorded
 *
 * Times in tables are seconds; the engine works in milliseconds.
 */
#ifndef GS_TESTS_PTESTUTIL_H
#define GS_TESTS_PTESTUTIL_H

#include "testutil.h"

/* One trace row; zero fields take the trace defaults (gpus 0 = CPU only,
 * so every row sets gpus). */
struct pjob {
    const char *id;
    double submit_s;
    int gpus;
    double dur_s;
    int prio;
    double ckpt_i, ckpt_c;   /* checkpoint interval and cost, seconds */
    double restore_s;        /* < 0 = policy default; 0 also means default */
    int infer;               /* class infer */
    const char *team;
    int milli;               /* 0 = whole GPU */
    const char *queue;       /* partition label */
    int topology;
};

static inline struct gs_job_spec pspec(const struct pjob *r)
{
    struct gs_job_spec s = row_spec(r->id, r->submit_s, r->gpus, r->prio, r->team, r->topology,
                                    r->milli);
    s.ckpt_interval = gs_time_from_sec(r->ckpt_i);
    s.ckpt_cost = gs_time_from_sec(r->ckpt_c);
    s.restore_cost = r->restore_s > 0 ? gs_time_from_sec(r->restore_s) : -1;
    s.klass = r->infer ? GS_CLASS_INFER : GS_CLASS_TRAIN;
    s.queue = r->queue;
    return s;
}

static inline struct gs_trace *ptrace(const struct pjob *rows, size_t n)
{
    struct gs_trace *tr = gs_trace_create();
    assert_non_null(tr);
    for (size_t i = 0; i < n; i++) {
        struct gs_job_spec s = pspec(&rows[i]);
        trace_add_ok(tr, &s, rows[i].dur_s, i);
    }
    return tr;
}

/* gs_policy_init, then each "key", "value" pair of a NULL-terminated list. */
static inline void ppolicy(struct gs_policy *p, const char *const *kv)
{
    gs_policy_init(p);
    pol_set_all(p, kv);
}

/* Checked replay recording every decision in `rec` (may be NULL). */
static inline void psim(const struct gs_cluster *cl, const struct gs_policy *pol,
                        const struct gs_trace *tr, struct recorder *rec,
                        struct gs_sim_result *res)
{
    struct gs_sim_opts opts = { 0 };
    opts.check = 1;
    if (rec) {
        rec->n = 0;
        opts.on_event = record_event;
        opts.arg = rec;
    }
    struct gs_error err = { 0 };
    int rc = gs_sim_run(cl, pol, tr, &opts, res, &err);
    if (rc != 0)
        fail_msg("gs_sim_run: %s (%s)", err.msg, gs_strerror(rc));
}

/* Index of the first event of `kind` for job `id` from index `from`, -1. */
static inline int pfind(const struct recorder *r, const struct gs_engine *eng, int from,
                        int kind, const char *id)
{
    int h = gs_engine_job_find(eng, id);
    for (int i = from; i < r->n; i++)
        if (r->ev[i].kind == kind && r->ev[i].job == h)
            return i;
    return -1;
}

/* Number of events of `kind` for `id` (any job when id is NULL). */
static inline int pcount(const struct recorder *r, const struct gs_engine *eng, int kind,
                         const char *id)
{
    int h = id ? gs_engine_job_find(eng, id) : -1, c = 0;
    for (int i = 0; i < r->n; i++)
        if (r->ev[i].kind == kind && (!id || r->ev[i].job == h))
            c++;
    return c;
}

/* Assert the time of the first event of `kind` for `id` (ms). */
static inline void passert_at(const struct recorder *r, const struct gs_engine *eng, int kind,
                              const char *id, gs_time want)
{
    int i = pfind(r, eng, 0, kind, id);
    if (i < 0)
        fail_msg("no event of kind %d for %s", kind, id);
    if (r->ev[i].time != want)
        fail_msg("event kind %d of %s at %lld ms, want %lld ms", kind, id,
                 (long long)r->ev[i].time, (long long)want);
}

#endif

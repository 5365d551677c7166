/* lctestutil.h - a fixture for the lifecycle and node-event tests: an
 * engine driven call by call, with gs_engine_check after every call and
 * every event recorded. */
#ifndef GS_TESTS_LCTESTUTIL_H
#define GS_TESTS_LCTESTUTIL_H

#include "testutil.h"

struct lfix {
    struct gs_cluster *cl;
    struct gs_policy pol;
    struct gs_engine *eng;
    struct recorder rec;
};

static struct lfix *lf_live[4];

static void lf_track(struct lfix *f, struct lfix *replace)
{
    for (size_t i = 0; i < sizeof lf_live / sizeof lf_live[0]; i++)
        if (lf_live[i] == replace) {
            lf_live[i] = f;
            return;
        }
    fail_msg("too many fixtures");
}

/* Invariants hold (after every call of the tests). */
static void lf_check(const struct lfix *f)
{
    struct gs_error err = { 0 };
    if (gs_engine_check(f->eng, &err) != 0)
        fail_msg("gs_engine_check: %s", err.msg);
}

/* An engine on `desc` under fifo_pack plus `kv`; `live` sets live mode. */
static struct lfix *lf_new(const char *desc, const char *const *kv, int live)
{
    struct lfix *f = calloc(1, sizeof *f);
    assert_non_null(f);
    lf_track(f, NULL);
    f->cl = cluster_of(desc);
    fifo_pack(&f->pol);
    pol_set_all(&f->pol, kv);
    struct gs_error err = { 0 };
    f->eng = gs_engine_create(f->cl, &f->pol, &err);
    if (!f->eng)
        fail_msg("gs_engine_create: %s", err.msg);
    gs_engine_set_observer(f->eng, record_event, &f->rec);
    gs_engine_set_live(f->eng, live);
    lf_check(f);
    return f;
}

static void lf_free(struct lfix *f)
{
    if (!f)
        return;
    lf_track(NULL, f);
    gs_engine_destroy(f->eng);
    gs_cluster_destroy(f->cl);
    gs_policy_fini(&f->pol);
    free(f);
}

static int lf_teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof lf_live / sizeof lf_live[0]; i++)
        lf_free(lf_live[i]);
    return 0;
}

/* Submit `s` at `now`; returns the handle. */
static int lf_submit_spec(struct lfix *f, gs_time now, const struct gs_job_spec *s)
{
    struct gs_error err = { 0 };
    int h = gs_engine_submit(f->eng, now, s, &err);
    if (h < 0)
        fail_msg("submit %s: %s", s->id, err.msg);
    lf_check(f);
    return h;
}

static int lf_submit(struct lfix *f, gs_time now, const char *id, int gpus)
{
    struct gs_job_spec s = spec_of(id, now, gpus);
    return lf_submit_spec(f, now, &s);
}

static int lf_step(struct lfix *f, gs_time now)
{
    struct gs_error err = { 0 };
    int rc = gs_engine_step(f->eng, now, &err);
    if (rc < 0)
        fail_msg("step at %lld: %s", (long long)now, err.msg);
    lf_check(f);
    return rc;
}

/* Assert an engine call returned `want` and the invariants hold. */
#define LF_OK(f, call, want)                                                             \
    do {                                                                                 \
        struct gs_error lf_err_ = { 0 };                                                 \
        int lf_rc_ = (call);                                                             \
        if (lf_rc_ != (want))                                                            \
            fail_msg("%s = %d (%s), want %d", #call, lf_rc_, lf_err_.msg, (int)(want));  \
        lf_check(f);                                                                     \
    } while (0)
#define LF_ERR (&lf_err_)

static struct gs_job_info lf_info(const struct lfix *f, int job)
{
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(f->eng, job, &ji), 0);
    return ji;
}

static int lf_state(const struct lfix *f, int job)
{
    return lf_info(f, job).state;
}

/* Event `i` is `kind` of `job` at `t`. */
static void lf_event(const struct lfix *f, int i, int kind, int job, gs_time t)
{
    if (i >= f->rec.n)
        fail_msg("event %d missing (have %d)", i, f->rec.n);
    const struct rec_event *e = &f->rec.ev[i];
    if (e->kind != kind || e->job != job || e->time != t)
        fail_msg("event %d: kind %d job %d t %lld, want kind %d job %d t %lld", i, e->kind,
                 e->job, (long long)e->time, kind, job, (long long)t);
}

/* Event `i` starts `job` at `t` on `mask` of node `node`. */
static void lf_start(const struct lfix *f, int i, int job, gs_time t, const char *node,
                     uint64_t mask)
{
    lf_event(f, i, GS_EV_START, job, t);
    const struct rec_event *e = &f->rec.ev[i];
    assert_int_equal(e->nparts, 1);
    if (e->parts[0].node != node_of(f->cl, node) || e->parts[0].mask != mask)
        fail_msg("event %d: job %d on node %d %#llx, want %s %#llx", i, job, e->parts[0].node,
                 (unsigned long long)e->parts[0].mask, node, (unsigned long long)mask);
}

static uint64_t lf_idle(const struct lfix *f, const char *node)
{
    const struct gs_cluster *cl = gs_engine_cluster(f->eng);
    return gs_cluster_idle_mask(cl, node_of(cl, node));
}

#endif

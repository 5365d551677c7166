/* test_engine.c - the scheduling engine driven directly (submit / step /
 * finish / cancel) under FIFO with strict head-of-line blocking and pack
 * placement: who starts, when and where; rejection; spec validation; time
 * ordering; quotas; restore into a fresh engine; an OOM sweep.
 *
 * FIFO rules (engine.h, queue.c header, DESIGN.md issue 6): jobs are taken
 * in submission order; the first job that does not fit stops the pass
 * (strict head-of-line); a job held back by its team's quota does not block
 * the jobs behind it; a job that can never fit is rejected at submit.
 * Placement of each start is derived with place.h's pack rule (see
 * test_place.c): on one idle [8] node a g-GPU job takes the lowest g idle
 * GPUs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

struct fix {
    struct gs_cluster *cl;
    struct gs_policy pol;
    struct gs_engine *eng;
    struct recorder rec;
};

/* Fixtures still alive; the per-test teardown frees them, so a failing
 * assertion (which leaves the test by longjmp) does not show up as a leak
 * under ASan. */
static struct fix *live[8];

static void track(struct fix *f, struct fix *replace)
{
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
        if (live[i] == replace) {
            live[i] = f;
            return;
        }
    fail_msg("too many fixtures");
}

/* A fixture on cluster `desc` under fifo_pack with each "key", "value"
 * pair of `kv` (may be NULL) set on top. */
static struct fix *fix_new(const char *desc, const char *const *kv)
{
    struct fix *f = calloc(1, sizeof *f);
    assert_non_null(f);
    track(f, NULL);
    f->cl = cluster_of(desc);
    fifo_pack(&f->pol);
    pol_set_all(&f->pol, kv);
    struct gs_error err = { 0 };
    f->eng = gs_engine_create(f->cl, &f->pol, &err);
    if (!f->eng)
        fail_msg("gs_engine_create: %s", err.msg);
    gs_engine_set_observer(f->eng, record_event, &f->rec);
    return f;
}

static void fix_free(struct fix *f)
{
    track(NULL, f);
    gs_engine_destroy(f->eng);
    gs_cluster_destroy(f->cl);
    gs_policy_fini(&f->pol);
    free(f);
}

/* Submit job `id` of `gpus` GPUs (team may be NULL) at `now`; the job's
 * submit time is `now`.  Returns the handle. */
static int submit_team(struct fix *f, gs_time now, const char *id, int gpus, const char *team)
{
    struct gs_job_spec s = spec_of(id, now, gpus);
    s.team = team;
    struct gs_error err = { 0 };
    int h = gs_engine_submit(f->eng, now, &s, &err);
    if (h < 0)
        fail_msg("submit %s: %s", id, err.msg);
    return h;
}

static int submit(struct fix *f, gs_time now, const char *id, int gpus)
{
    return submit_team(f, now, id, gpus, NULL);
}

static int step(struct fix *f, gs_time now)
{
    struct gs_error err = { 0 };
    int rc = gs_engine_step(f->eng, now, &err);
    if (rc < 0)
        fail_msg("step at %lld: %s", (long long)now, err.msg);
    return rc;
}

static void finish(struct fix *f, gs_time now, int job)
{
    struct gs_error err = { 0 };
    if (gs_engine_finish(f->eng, now, job, &err) != 0)
        fail_msg("finish %d: %s", job, err.msg);
}

/* Assert event `i` is a START of `job` at `t` on one part (node, mask). */
static void assert_start(const struct fix *f, int i, int job, gs_time t, const char *node,
                         uint64_t mask)
{
    if (i >= f->rec.n)
        fail_msg("event %d missing (have %d)", i, f->rec.n);
    const struct rec_event *e = &f->rec.ev[i];
    if (e->kind != GS_EV_START || e->job != job || e->time != t)
        fail_msg("event %d: kind %d job %d t %lld, want START job %d t %lld", i, e->kind,
                 e->job, (long long)e->time, job, (long long)t);
    if (!node) {
        assert_int_equal(e->nparts, 0);
        return;
    }
    assert_int_equal(e->nparts, 1);
    if (e->parts[0].node != node_of(f->cl, node) || e->parts[0].mask != mask)
        fail_msg("event %d: job %d on node %d %#llx, want %s %#llx", i, job, e->parts[0].node,
                 (unsigned long long)e->parts[0].mask, node, (unsigned long long)mask);
}

static void assert_event(const struct fix *f, int i, int kind, int job, gs_time t)
{
    if (i >= f->rec.n)
        fail_msg("event %d missing (have %d)", i, f->rec.n);
    const struct rec_event *e = &f->rec.ev[i];
    if (e->kind != kind || e->job != job || e->time != t)
        fail_msg("event %d: kind %d job %d t %lld, want kind %d job %d t %lld", i, e->kind,
                 e->job, (long long)e->time, kind, job, (long long)t);
}

static int state_of(const struct fix *f, int job)
{
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(f->eng, job, &ji), 0);
    return ji.state;
}

/* ---- creation ------------------------------------------------------------ */

/* The engine needs a sealed cluster and a policy. */
static void test_create_errors(void **state)
{
    (void)state;
    struct gs_policy pol;
    fifo_pack(&pol);
    struct gs_error err = { 0 };
    struct gs_cluster *unsealed = gs_cluster_create();
    assert_int_equal(gs_cluster_add_gpu_type(unsealed, "H100", TU_H100_MIB, &err), 0);
    struct gs_node_spec s = { .name = "n1", .gpus = 8, .gpu_type = 0 };
    assert_int_equal(gs_cluster_add_node(unsealed, &s, &err), 0);
    assert_null(gs_engine_create(unsealed, &pol, &err));
    assert_int_equal(err.code, GS_EINVAL);
    struct gs_cluster *cl = cluster_of("n1:8");
    gs_error_clear(&err);
    assert_null(gs_engine_create(cl, NULL, &err));
    assert_int_equal(err.code, GS_EINVAL);
    gs_cluster_destroy(unsealed);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
    gs_engine_destroy(NULL); /* no-op */
}

/* Policy features that are not built are refused loudly at creation
 * (GS_ENOTSUP naming the key); once built, they create an engine.  Either
 * way, never a silent half-feature. */
static void test_create_unbuilt_features(void **state)
{
    (void)state;
    static const struct {
        const char *path, *value, *named;
    } rows[] = {
        { "queue.runtime_cap", "4h", "runtime_cap" },
        { "queue.runtime_cap", "estimate_x2", "runtime_cap" },
        { "placement.strategy", "frag", "frag" },
        { "placement.strategy", "topo", "topo" },
    };
    struct gs_cluster *cl = cluster_of("n1:8");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_policy pol;
        fifo_pack(&pol);
        pol_set(&pol, rows[i].path, rows[i].value);
        struct gs_error err = { 0 };
        struct gs_engine *eng = gs_engine_create(cl, &pol, &err);
        if (!eng) {
            if (err.code != GS_ENOTSUP || !strstr(err.msg, rows[i].named))
                fail_msg("%s=%s: %s (%s)", rows[i].path, rows[i].value, gs_strerror(err.code),
                         err.msg);
        }
        gs_engine_destroy(eng);
        gs_policy_fini(&pol);
    }
    gs_cluster_destroy(cl);
}

/* The engine copies its cluster and policy: the caller's may change or go. */
static void test_create_copies_inputs(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of("n1:8");
    struct gs_policy pol;
    fifo_pack(&pol);
    pol_set(&pol, "queue.quota.team-a", "2");
    struct gs_engine *eng = gs_engine_create(cl, &pol, NULL);
    assert_non_null(eng);
    take(cl, "n1", 0xFF);          /* the caller's copy is now full */
    gs_policy_fini(&pol);
    assert_int_equal(gs_cluster_stats(gs_engine_cluster(eng)).idle_gpus, 8);
    assert_int_equal(gs_policy_quota(gs_engine_policy(eng), "team-a"), 2);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
}

/* ---- FIFO decisions ---------------------------------------------------- */

/* Jobs submitted at one time keep submission order (not id order). */
static void test_same_time_keeps_submission_order(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    /* handles in submission order: zeta 0, alpha 1, mid 2 */
    assert_int_equal(submit(f, 0, "zeta", 4), 0);
    assert_int_equal(submit(f, 0, "alpha", 4), 1);
    assert_int_equal(submit(f, 0, "mid", 4), 2);
    /* t=0: zeta takes the lowest 4 (0x0F), alpha the other 4 (0xF0); mid
     * finds nothing free */
    assert_int_equal(step(f, 0), 2);
    assert_int_equal(f->rec.n, 2);
    assert_start(f, 0, 0, 0, "n1", 0x0F);
    assert_start(f, 1, 1, 0, "n1", 0xF0);
    assert_int_equal(gs_engine_pending_count(f->eng), 1);
    assert_int_equal(gs_engine_running_count(f->eng), 2);
    /* t=10 s: zeta ends; mid gets GPUs 0-3 */
    finish(f, SEC(10), 0);
    assert_event(f, 2, GS_EV_FINISH, 0, SEC(10));
    assert_int_equal(step(f, SEC(10)), 1);
    assert_start(f, 3, 2, SEC(10), "n1", 0x0F);
    assert_int_equal(gs_engine_pending_count(f->eng), 0);
    fix_free(f);
}

/* Strict head-of-line: a job that does not fit stops the pass, even when
 * jobs behind it would fit. */
static void test_strict_head_of_line(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    int a = submit(f, 0, "A", 4);
    assert_int_equal(step(f, 0), 1);               /* A on 0-3 */
    assert_start(f, 0, a, 0, "n1", 0x0F);
    int b = submit(f, SEC(1), "B", 8);
    assert_int_equal(step(f, SEC(1)), 0);          /* B needs 8, 4 free */
    int c = submit(f, SEC(2), "C", 2);
    assert_int_equal(step(f, SEC(2)), 0);          /* C fits but waits behind B */
    assert_int_equal(state_of(f, c), GS_JOB_PENDING);
    finish(f, SEC(100), a);
    assert_int_equal(step(f, SEC(100)), 1);        /* B takes all 8; C still waits */
    assert_start(f, 2, b, SEC(100), "n1", 0xFF);
    assert_int_equal(state_of(f, c), GS_JOB_PENDING);
    finish(f, SEC(150), b);
    assert_int_equal(step(f, SEC(150)), 1);        /* C: the lowest 2 GPUs */
    assert_start(f, 4, c, SEC(150), "n1", 0x03);
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(f->eng, c, &ji), 0);
    assert_int_equal(ji.submit, SEC(2));
    assert_int_equal(ji.first_start, SEC(150));
    assert_int_equal(ji.start, SEC(150));
    assert_int_equal(ji.end, GS_TIME_NONE);
    fix_free(f);
}

/* Jobs that can never fit are rejected at submit, reported at once, and do
 * not block the queue. */
static void test_reject_never_fits(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        int gpus, topology;
        const char *model;
    } rows[] = {
        { "17 GPUs on 16", 17, GS_TOPO_AUTO, NULL },
        /* the cluster's largest domain is 8 (n1); 8 on one domain fits n1,
         * but n2's islands are 4: still possible.  9 with domain: never */
        { "9 GPUs, topology domain", 9, GS_TOPO_DOMAIN, NULL },
        { "unknown GPU model", 1, GS_TOPO_AUTO, "V100" },
        /* A100 is a known type, but no node has it */
        { "GPU type not in the cluster", 1, GS_TOPO_AUTO, "A100" },
    };
    struct fix *f = fix_new("n1:8 n2:8:[4,4]", NULL);
    int n = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char id[16];
        snprintf(id, sizeof id, "r%zu", i);
        struct gs_job_spec s = spec_of(id, 0, rows[i].gpus);
        s.topology = rows[i].topology;
        s.gpu_model = rows[i].model;
        struct gs_error err = { 0 };
        int h = gs_engine_submit(f->eng, 0, &s, &err);
        if (h != (int)i)
            fail_msg("%s: handle %d (%s)", rows[i].what, h, err.msg);
        /* reported during the submit call, before any step */
        assert_int_equal(f->rec.n, ++n);
        assert_event(f, n - 1, GS_EV_REJECT, h, 0);
        struct gs_job_info ji;
        assert_int_equal(gs_engine_job_info(f->eng, h, &ji), 0);
        assert_int_equal(ji.state, GS_JOB_REJECTED);
        assert_int_equal(ji.first_start, GS_TIME_NONE);
    }
    assert_int_equal(gs_engine_pending_count(f->eng), 0);
    /* an 8-GPU job fits n1's single island; it starts in the next pass */
    int ok = submit(f, 0, "fits", 8);
    assert_int_equal(step(f, 0), 1);
    assert_start(f, n, ok, 0, "n1", 0xFF);
    fix_free(f);
}

/* A duplicate id is GS_EEXIST and adds nothing, whatever the first job's
 * state. */
static void test_duplicate_id(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    int a = submit(f, 0, "A", 1);
    struct gs_job_spec s = spec_of("A", 0, 2);
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_submit(f->eng, 0, &s, &err), GS_EEXIST);
    assert_int_equal(err.code, GS_EEXIST);
    assert_non_null(strstr(err.msg, "A"));
    assert_int_equal(gs_engine_job_count(f->eng), 1);
    step(f, 0);
    finish(f, SEC(1), a);
    assert_int_equal(gs_engine_submit(f->eng, SEC(1), &s, &err), GS_EEXIST);
    assert_int_equal(gs_engine_job_count(f->eng), 1);
    assert_int_equal(gs_engine_pending_count(f->eng), 0);
    fix_free(f);
}

enum field {
    F_ID_NULL, F_ID_EMPTY, F_GPUS, F_MILLI, F_MEM, F_TOPO, F_CLASS, F_SUBMIT,
    F_TIME_LIMIT, F_CKPT_INTERVAL, F_CKPT_COST,
};

/* Bad spec fields: GS_EINVAL with a message naming the field; nothing is
 * added. */
static void test_bad_spec_fields(void **state)
{
    (void)state;
    static const struct {
        enum field field;
        int64_t value;
        const char *named;
    } rows[] = {
        { F_ID_NULL, 0, "id" },
        { F_ID_EMPTY, 0, "id" },
        { F_GPUS, -1, "gpus" },
        { F_MILLI, 0, "gpu_share" },
        { F_MILLI, 1001, "gpu_share" },
        { F_MILLI, 500, "gpu_share" },      /* a share with gpus = 2 */
        { F_MEM, -2, "gpu_mem" },           /* -1 is the only negative allowed */
        { F_TOPO, 9, "topology" },
        { F_TOPO, -1, "topology" },
        { F_CLASS, 7, "class" },
        { F_SUBMIT, SEC(5), "submit" },     /* after `now` (0) */
        { F_TIME_LIMIT, -1, "time_limit" },
        { F_CKPT_INTERVAL, -1, "checkpoint_interval" },
        { F_CKPT_COST, -1, "checkpoint_cost" },
    };
    struct fix *f = fix_new("n1:8", NULL);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_job_spec s = spec_of("bad", 0, 2);
        switch (rows[i].field) {
        case F_ID_NULL: s.id = NULL; break;
        case F_ID_EMPTY: s.id = ""; break;
        case F_GPUS: s.gpus = (int)rows[i].value; break;
        case F_MILLI: s.milli = (int)rows[i].value; break;
        case F_MEM: s.mem_mib = rows[i].value; break;
        case F_TOPO: s.topology = (int)rows[i].value; break;
        case F_CLASS: s.klass = (int)rows[i].value; break;
        case F_SUBMIT: s.submit = rows[i].value; break;
        case F_TIME_LIMIT: s.time_limit = rows[i].value; break;
        case F_CKPT_INTERVAL: s.ckpt_interval = rows[i].value; break;
        case F_CKPT_COST: s.ckpt_cost = rows[i].value; break;
        }
        struct gs_error err = { 0 };
        int rc = gs_engine_submit(f->eng, 0, &s, &err);
        if (rc != GS_EINVAL)
            fail_msg("row %zu (%s): got %s want EINVAL", i, rows[i].named, gs_strerror(rc));
        if (!strstr(err.msg, rows[i].named))
            fail_msg("row %zu: message does not name '%s': %s", i, rows[i].named, err.msg);
    }
    assert_int_equal(gs_engine_job_count(f->eng), 0);
    assert_int_equal(f->rec.n, 0);
    fix_free(f);
}

/* Time never goes backwards: every entry point refuses an earlier `now`. */
static void test_time_backwards(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    int a = submit(f, 0, "A", 1);
    step(f, SEC(10));
    struct gs_error err = { 0 };
    struct gs_job_spec s = spec_of("B", SEC(5), 1);
    assert_int_equal(gs_engine_submit(f->eng, SEC(5), &s, &err), GS_EINVAL);
    assert_int_equal(gs_engine_step(f->eng, SEC(5), &err), GS_EINVAL);
    assert_int_equal(gs_engine_finish(f->eng, SEC(5), a, &err), GS_EINVAL);
    assert_int_equal(gs_engine_cancel(f->eng, SEC(5), a, &err), GS_EINVAL);
    assert_int_equal(state_of(f, a), GS_JOB_RUNNING);
    assert_int_equal(gs_engine_job_count(f->eng), 1);
    assert_int_equal(gs_engine_now(f->eng), SEC(10));
    /* a job submitted (spec->submit) in the past but given at `now` is fine */
    assert_int_equal(gs_engine_submit(f->eng, SEC(10), &s, &err), 1);
    /* the same `now` again is fine */
    assert_int_equal(gs_engine_step(f->eng, SEC(10), &err), 1);
    fix_free(f);
}

/* Finish applies to running jobs only. */
static void test_finish_errors(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    int a = submit(f, 0, "A", 8);
    int b = submit(f, 0, "B", 8);
    int r = submit(f, 0, "R", 9);  /* rejected */
    step(f, 0);
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_finish(f->eng, SEC(1), b, &err), GS_ESTATE); /* pending */
    assert_int_equal(gs_engine_finish(f->eng, SEC(1), r, &err), GS_ESTATE); /* rejected */
    assert_int_equal(gs_engine_finish(f->eng, SEC(1), 99, &err), GS_ENOENT);
    assert_int_equal(gs_engine_finish(f->eng, SEC(1), -1, &err), GS_ENOENT);
    finish(f, SEC(1), a);
    assert_int_equal(gs_engine_finish(f->eng, SEC(2), a, &err), GS_ESTATE); /* done */
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(f->eng, a, &ji), 0);
    assert_int_equal(ji.state, GS_JOB_DONE);
    assert_int_equal(ji.end, SEC(1));
    fix_free(f);
}

/* Cancel: a pending job leaves the queue (unblocking those behind it), a
 * running job frees its GPUs. */
static void test_cancel(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    int a = submit(f, 0, "A", 4);
    int b = submit(f, 0, "B", 8);
    int c = submit(f, 0, "C", 2);
    assert_int_equal(step(f, 0), 1);               /* A on 0-3; B blocks C */
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_cancel(f->eng, SEC(5), b, &err), 0);
    assert_event(f, 1, GS_EV_CANCEL, b, SEC(5));
    assert_int_equal(state_of(f, b), GS_JOB_CANCELLED);
    assert_int_equal(gs_engine_pending_count(f->eng), 1);
    /* C is now at the head: the lowest 2 of the free GPUs 4-7 */
    assert_int_equal(step(f, SEC(5)), 1);
    assert_start(f, 2, c, SEC(5), "n1", 0x30);
    /* cancel running A: its GPUs come back */
    assert_int_equal(gs_engine_cancel(f->eng, SEC(6), a, &err), 0);
    assert_event(f, 3, GS_EV_CANCEL, a, SEC(6));
    assert_int_equal(gs_engine_running_count(f->eng), 1);
    assert_int_equal(gs_cluster_idle_mask(gs_engine_cluster(f->eng), 0), 0xCF);
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(f->eng, a, &ji), 0);
    assert_int_equal(ji.state, GS_JOB_CANCELLED);
    assert_int_equal(ji.end, SEC(6));
    /* must-fail: already ended, unknown */
    assert_int_equal(gs_engine_cancel(f->eng, SEC(7), a, &err), GS_ESTATE);
    assert_int_equal(gs_engine_cancel(f->eng, SEC(7), b, &err), GS_ESTATE);
    assert_int_equal(gs_engine_cancel(f->eng, SEC(7), 42, &err), GS_ENOENT);
    assert_int_equal(gs_engine_finish(f->eng, SEC(7), b, &err), GS_ESTATE);
    assert_cluster_ok(gs_engine_cluster(f->eng));
    fix_free(f);
}

/* A CPU-only job (0 GPUs) needs no GPUs: it starts on an empty allocation
 * even on a full cluster, but still waits its turn in FIFO. */
static void test_cpu_only_job(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    int a = submit(f, 0, "A", 8);
    int z = submit(f, 0, "Z", 0);
    assert_int_equal(step(f, 0), 2);
    assert_start(f, 0, a, 0, "n1", 0xFF);
    assert_start(f, 1, z, 0, NULL, 0);
    struct gs_alloc al;
    assert_int_equal(gs_engine_job_alloc(f->eng, z, &al), 0);
    assert_int_equal(al.nparts, 0);
    int b = submit(f, SEC(1), "B", 8);
    int z2 = submit(f, SEC(1), "Z2", 0);
    assert_int_equal(step(f, SEC(1)), 0);          /* Z2 waits behind B */
    assert_int_equal(state_of(f, z2), GS_JOB_PENDING);
    finish(f, SEC(2), z);
    assert_int_equal(step(f, SEC(2)), 0);          /* A still holds everything */
    finish(f, SEC(3), a);
    assert_int_equal(step(f, SEC(3)), 2);          /* B, then Z2 */
    assert_int_equal(state_of(f, b), GS_JOB_RUNNING);
    assert_int_equal(state_of(f, z2), GS_JOB_RUNNING);
    fix_free(f);
}

/* Team quotas cap the GPUs a team holds; a quota-blocked job does not
 * block the jobs behind it. */
static void test_quota(void **state)
{
    (void)state;
    static const char *const quota[] = { "queue.quota.team-a", "4", NULL };
    struct fix *f = fix_new("n1:8", quota);
    int a1 = submit_team(f, 0, "a1", 4, "team-a");
    int a2 = submit_team(f, 0, "a2", 2, "team-a");
    int b1 = submit_team(f, 0, "b1", 2, "team-b");
    /* a1: team-a holds 0 + 4 <= 4 -> GPUs 0-3.  a2: 4 + 2 > 4 -> held back,
     * skipped.  b1: no quota -> GPUs 4,5 */
    assert_int_equal(step(f, 0), 2);
    assert_start(f, 0, a1, 0, "n1", 0x0F);
    assert_start(f, 1, b1, 0, "n1", 0x30);
    assert_int_equal(state_of(f, a2), GS_JOB_PENDING);
    /* a1 ends: team-a holds 0; a2 takes the lowest 2 idle GPUs, 0,1 */
    finish(f, SEC(10), a1);
    assert_int_equal(step(f, SEC(10)), 1);
    assert_start(f, 3, a2, SEC(10), "n1", 0x03);
    fix_free(f);
}

/* Quotas count shares: two half-GPU jobs make one GPU. */
static void test_quota_counts_shares(void **state)
{
    (void)state;
    static const char *const quota[] = { "queue.quota.team-a", "1", NULL };
    struct fix *f = fix_new("n1:8", quota);
    const char *ids[] = { "h1", "h2", "h3" };
    for (int i = 0; i < 3; i++) {
        struct gs_job_spec s = spec_of(ids[i], 0, 1);
        s.milli = 500;
        s.team = "team-a";
        assert_int_equal(gs_engine_submit(f->eng, 0, &s, NULL), i);
    }
    /* 500 + 500 = 1000 <= 1 GPU; the third would make 1500 */
    assert_int_equal(step(f, 0), 2);
    assert_int_equal(state_of(f, 2), GS_JOB_PENDING);
    fix_free(f);
}

/* Regression: the quota of a team that is first seen after other strings
 * were interned (here: after team-a's job) must still apply. */
static void test_quota_team_first_seen_late(void **state)
{
    (void)state;
    static const char *const quota[] = { "queue.quota.team-a", "8", "queue.quota.team-b", "2",
                                         NULL };
    struct fix *f = fix_new("n1:8", quota);
    submit_team(f, 0, "x", 1, "team-a");
    int b1 = submit_team(f, 0, "b1", 2, "team-b");
    int b2 = submit_team(f, 0, "b2", 2, "team-b");
    /* x starts; b1: team-b 0 + 2 <= 2 starts; b2: 2 + 2 > 2 held back */
    assert_int_equal(step(f, 0), 2);
    assert_int_equal(state_of(f, b1), GS_JOB_RUNNING);
    assert_int_equal(state_of(f, b2), GS_JOB_PENDING);
    fix_free(f);
}

/* Read-only views: lookups, info and spec round trip, allocations. */
static void test_queries(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8 n2:8", NULL);
    struct gs_job_spec s = spec_of("job-1", 0, 3);
    s.user = "ann";
    s.name = "bert";
    s.priority = 5;
    s.time_limit = SEC(3600);
    s.klass = GS_CLASS_INFER;
    assert_int_equal(gs_engine_submit(f->eng, 0, &s, NULL), 0);
    assert_int_equal(gs_engine_job_find(f->eng, "job-1"), 0);
    assert_int_equal(gs_engine_job_find(f->eng, "job-2"), GS_ENOENT);
    struct gs_alloc al;
    assert_int_equal(gs_engine_job_alloc(f->eng, 0, &al), GS_ESTATE); /* not started */
    assert_int_equal(gs_engine_job_alloc(f->eng, 5, &al), GS_ENOENT);
    struct gs_job_info ji;
    assert_int_equal(gs_engine_job_info(f->eng, 5, &ji), GS_ENOENT);
    assert_int_equal(gs_engine_job_info(f->eng, 0, &ji), 0);
    assert_string_equal(ji.id, "job-1");
    assert_string_equal(ji.team, "default");   /* NULL team = "default" */
    assert_string_equal(ji.user, "ann");
    assert_string_equal(ji.name, "bert");
    assert_int_equal(ji.state, GS_JOB_PENDING);
    assert_int_equal(ji.gpus, 3);
    assert_int_equal(ji.priority, 5);
    assert_int_equal(ji.klass, GS_CLASS_INFER);
    assert_int_equal(ji.time_limit, SEC(3600));
    assert_int_equal(ji.first_start, GS_TIME_NONE);
    assert_int_equal(ji.end, GS_TIME_NONE);
    struct gs_job_spec back;
    assert_int_equal(gs_engine_job_spec(f->eng, 0, &back), 0);
    assert_string_equal(back.id, "job-1");
    assert_int_equal(back.gpus, 3);
    assert_int_equal(back.time_limit, SEC(3600));
    assert_string_equal(back.user, "ann");
    assert_int_equal(gs_engine_job_spec(f->eng, 9, &back), GS_ENOENT);
    step(f, 0);
    /* 3 GPUs, pack: both nodes idle, tie -> n1 GPUs 0-2 */
    assert_int_equal(gs_engine_job_alloc(f->eng, 0, &al), 0);
    assert_int_equal(al.nparts, 1);
    assert_int_equal(al.parts[0].node, 0);
    assert_int_equal(al.parts[0].mask, 0x07);
    assert_int_equal(al.milli, 1000);
    /* the user estimate is the time limit */
    assert_int_equal(gs_engine_job_info(f->eng, 0, &ji), 0);
    assert_int_equal(ji.estimate, SEC(3600));
    assert_int_equal(gs_engine_next_wakeup(f->eng, 0), GS_TIME_INF);
    assert_int_equal(gs_cluster_stats(gs_engine_cluster(f->eng)).idle_gpus, 13);
    fix_free(f);
}

/* ---- restore ----------------------------------------------------------- */

/* The first half of the restore scenario on "n1:8 n2:8" (ids = handles):
 *  t=0   J0(8) J1(4) J2(8) J3(2) J4(17, rejected); step: J0 -> n1 0xFF
 *        (n1, n2 tie; node order), J1 -> n2 0x0F (only n2 has room), J2
 *        blocks (4 free).
 *  t=5   J5(1) submitted and cancelled; step: J2 still blocks.
 *  t=10  J1 finishes; J6(2) submitted; step: J2 -> n2 0xFF; J3, J6 wait
 *        (no GPU free).
 * Afterwards: J0, J2 running; J1 done; J3, J6 pending; J4 rejected; J5
 * cancelled. */
static void restore_first_half(struct fix *f)
{
    submit(f, 0, "J0", 8);
    submit(f, 0, "J1", 4);
    submit(f, 0, "J2", 8);
    submit(f, 0, "J3", 2);
    submit(f, 0, "J4", 17);
    assert_int_equal(step(f, 0), 2);
    int j5 = submit(f, SEC(5), "J5", 1);
    assert_int_equal(gs_engine_cancel(f->eng, SEC(5), j5, NULL), 0);
    assert_int_equal(step(f, SEC(5)), 0);
    finish(f, SEC(10), 1);
    submit(f, SEC(10), "J6", 2);
    assert_int_equal(step(f, SEC(10)), 1);
}

/* The second half, identical calls on either engine:
 *  t=20  J0 ends; step: J3 -> n1 0x03, J6 -> n1 0x0C (pack: n1 has 8
 *        free, n2 none; lowest idle GPUs).
 *  t=25  J7(8) submitted; step: blocks (n1 has 4 free, n2 none).
 *  t=30  J2 ends; step: J7 -> n2 0xFF.
 *  t=40  J3, J6 end; t=50 J7 ends.
 * Events: FINISH J0, START J3, START J6, FINISH J2, START J7, FINISH J3,
 * FINISH J6, FINISH J7. */
static void restore_second_half(struct fix *f)
{
    finish(f, SEC(20), 0);
    assert_int_equal(step(f, SEC(20)), 2);
    submit(f, SEC(25), "J7", 8);
    assert_int_equal(step(f, SEC(25)), 0);
    finish(f, SEC(30), 2);
    assert_int_equal(step(f, SEC(30)), 1);
    finish(f, SEC(40), 3);
    finish(f, SEC(40), 6);
    step(f, SEC(40));
    finish(f, SEC(50), 7);
    step(f, SEC(50));
}

static void assert_same_events(const struct recorder *a, const struct recorder *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        const struct rec_event *x = &a->ev[i], *y = &b->ev[i];
        if (x->kind != y->kind || x->time != y->time || x->job != y->job ||
            x->nparts != y->nparts || x->until != y->until)
            fail_msg("event %d differs: kind %d/%d job %d/%d t %lld/%lld", i, x->kind,
                     y->kind, x->job, y->job, (long long)x->time, (long long)y->time);
        for (int p = 0; p < x->nparts; p++)
            assert_true(x->parts[p].node == y->parts[p].node &&
                        x->parts[p].mask == y->parts[p].mask);
    }
}

/* Export every job of a half-run engine into a fresh one with
 * gs_engine_restore_job; both then make identical decisions. */
static void test_restore_continues_identically(void **state)
{
    (void)state;
    struct fix *orig = fix_new("n1:8 n2:8", NULL);
    restore_first_half(orig);
    assert_int_equal(state_of(orig, 0), GS_JOB_RUNNING);
    assert_int_equal(state_of(orig, 1), GS_JOB_DONE);
    assert_int_equal(state_of(orig, 2), GS_JOB_RUNNING);
    assert_int_equal(state_of(orig, 3), GS_JOB_PENDING);
    assert_int_equal(state_of(orig, 4), GS_JOB_REJECTED);
    assert_int_equal(state_of(orig, 5), GS_JOB_CANCELLED);
    assert_int_equal(state_of(orig, 6), GS_JOB_PENDING);

    struct fix *copy = fix_new("n1:8 n2:8", NULL);
    for (int h = 0; h < gs_engine_job_count(orig->eng); h++) {
        struct gs_job_spec spec;
        struct gs_job_info info;
        struct gs_alloc al;
        assert_int_equal(gs_engine_job_spec(orig->eng, h, &spec), 0);
        assert_int_equal(gs_engine_job_info(orig->eng, h, &info), 0);
        int has = info.state == GS_JOB_RUNNING;
        if (has)
            assert_int_equal(gs_engine_job_alloc(orig->eng, h, &al), 0);
        struct gs_error err = { 0 };
        int rc = gs_engine_restore_job(copy->eng, &spec, &info, has ? &al : NULL, &err);
        if (rc != h)
            fail_msg("restore of job %d: %d (%s)", h, rc, err.msg);
    }
    /* restored: same counts, same cluster state */
    assert_int_equal(gs_engine_pending_count(copy->eng), gs_engine_pending_count(orig->eng));
    assert_int_equal(gs_engine_running_count(copy->eng), gs_engine_running_count(orig->eng));
    struct gs_cluster_stats so = gs_cluster_stats(gs_engine_cluster(orig->eng));
    struct gs_cluster_stats sc = gs_cluster_stats(gs_engine_cluster(copy->eng));
    assert_stats_equal(&so, &sc);
    for (int n = 0; n < 2; n++)
        assert_int_equal(gs_cluster_idle_mask(gs_engine_cluster(copy->eng), n),
                         gs_cluster_idle_mask(gs_engine_cluster(orig->eng), n));

    orig->rec.n = 0;
    copy->rec.n = 0;
    restore_second_half(orig);
    restore_second_half(copy);
    /* the hand-derived decisions of the second half */
    assert_int_equal(orig->rec.n, 8);
    assert_event(orig, 0, GS_EV_FINISH, 0, SEC(20));
    assert_start(orig, 1, 3, SEC(20), "n1", 0x03);
    assert_start(orig, 2, 6, SEC(20), "n1", 0x0C);
    assert_event(orig, 3, GS_EV_FINISH, 2, SEC(30));
    assert_start(orig, 4, 7, SEC(30), "n2", 0xFF);
    assert_event(orig, 7, GS_EV_FINISH, 7, SEC(50));
    assert_same_events(&orig->rec, &copy->rec);
    for (int h = 0; h < gs_engine_job_count(orig->eng); h++) {
        struct gs_job_info a, b;
        assert_int_equal(gs_engine_job_info(orig->eng, h, &a), 0);
        assert_int_equal(gs_engine_job_info(copy->eng, h, &b), 0);
        assert_string_equal(a.id, b.id);
        assert_int_equal(a.state, b.state);
        assert_int_equal(a.submit, b.submit);
        assert_int_equal(a.first_start, b.first_start);
        assert_int_equal(a.start, b.start);
        assert_int_equal(a.end, b.end);
    }
    assert_cluster_ok(gs_engine_cluster(copy->eng));
    fix_free(orig);
    fix_free(copy);
}

/* Must-fail restores: duplicate id, GPUs that are not free, a running job
 * without GPUs. */
static void test_restore_errors(void **state)
{
    (void)state;
    struct fix *f = fix_new("n1:8", NULL);
    struct gs_job_spec spec = spec_of("R", 0, 4);
    struct gs_job_info info = { 0 };
    info.state = GS_JOB_RUNNING;
    info.submit = 0;
    info.first_start = info.start = SEC(1);
    info.end = GS_TIME_NONE;
    info.estimate = GS_TIME_NONE;
    struct gs_alloc_part p = { 0, 0x0F };
    struct gs_alloc al = { .nparts = 1, .cap = 1, .parts = &p, .milli = 1000 };
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_restore_job(f->eng, &spec, &info, &al, &err), 0);
    /* the id again, on GPUs that are free: only the id is wrong */
    struct gs_alloc_part free_part = { 0, 0xF0 };
    struct gs_alloc al_free = { .nparts = 1, .cap = 1, .parts = &free_part, .milli = 1000 };
    assert_int_equal(gs_engine_restore_job(f->eng, &spec, &info, &al_free, &err), GS_EEXIST);
    struct gs_job_spec s2 = spec_of("S", 0, 4);
    struct gs_alloc_part p2 = { 0, 0x18 };          /* GPU 3 is R's */
    struct gs_alloc al2 = { .nparts = 1, .cap = 1, .parts = &p2, .milli = 1000 };
    assert_int_equal(gs_engine_restore_job(f->eng, &s2, &info, &al2, &err), GS_ENOSPC);
    assert_int_equal(gs_engine_restore_job(f->eng, &s2, &info, NULL, &err), GS_EINVAL);
    assert_int_equal(gs_engine_job_count(f->eng), 1);
    assert_int_equal(gs_cluster_idle_mask(gs_engine_cluster(f->eng), 0), 0xF0);
    fix_free(f);
}

/* The same calls give the same decisions, bit for bit. */
static void test_same_calls_same_decisions(void **state)
{
    (void)state;
    struct fix *a = fix_new("n1:8 n2:8", NULL);
    struct fix *b = fix_new("n1:8 n2:8", NULL);
    restore_first_half(a);
    restore_second_half(a);
    restore_first_half(b);
    restore_second_half(b);
    assert_same_events(&a->rec, &b->rec);
    fix_free(a);
    fix_free(b);
}

/* ---- OOM sweep ----------------------------------------------------------- */

/* Count of GPU shares the engine's running jobs hold, from their records. */
static int64_t running_milli(const struct gs_engine *eng)
{
    int64_t sum = 0;
    for (int h = 0; h < gs_engine_job_count(eng); h++) {
        struct gs_job_info ji;
        assert_int_equal(gs_engine_job_info(eng, h, &ji), 0);
        if (ji.state == GS_JOB_RUNNING)
            sum += (int64_t)ji.gpus * ji.milli;
    }
    return sum;
}

/* After every engine call: the cluster is consistent and holds exactly the
 * running jobs' GPUs (so a failed call changed nothing half way). */
static void check_engine(const struct gs_engine *eng, long n)
{
    long saved = tu_oom_state.fail_at;
    tu_oom_pause();
    struct gs_error err = { 0 };
    if (gs_cluster_check(gs_engine_cluster(eng), &err) != 0)
        fail_msg("fail_at %ld: %s", n, err.msg);
    if (gs_cluster_stats(gs_engine_cluster(eng)).used_milli != running_milli(eng))
        fail_msg("fail_at %ld: cluster and running jobs disagree", n);
    int running = 0, pending = 0;
    for (int h = 0; h < gs_engine_job_count(eng); h++) {
        struct gs_job_info ji;
        gs_engine_job_info(eng, h, &ji);
        running += ji.state == GS_JOB_RUNNING;
        pending += ji.state == GS_JOB_PENDING;
    }
    assert_int_equal(running, gs_engine_running_count(eng));
    assert_int_equal(pending, gs_engine_pending_count(eng));
    tu_oom_state.fail_at = saved;
}

static void expect_ok_or_nomem(int rc, const char *what, long n)
{
    if (rc < 0 && rc != GS_ENOMEM)
        fail_msg("fail_at %ld: %s returned %s", n, what, gs_strerror(rc));
}

/* One round: cluster, policy (with quotas), engine, 5 jobs, steps, finishes,
 * with the N-th allocation failing.  Returns whether one was failed. */
static int oom_round(long n)
{
    tu_oom_arm(n);
    struct gs_error err = { 0 };
    struct gs_policy pol;
    gs_policy_init(&pol);
    struct gs_engine *eng = NULL;
    struct gs_cluster *cl = gs_cluster_create();
    int rc = cl ? 0 : GS_ENOMEM;
    if (rc == 0)
        rc = gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err);
    struct gs_node_spec n1 = { .name = "n1", .gpus = 8, .gpu_type = 0 };
    struct gs_node_spec n2 = { .name = "n2", .gpus = 8, .gpu_type = 0, .ndomains = 2,
                               .domain_sizes = { 4, 4 } };
    if (rc >= 0)
        rc = gs_cluster_add_node(cl, &n1, &err);
    if (rc >= 0)
        rc = gs_cluster_add_node(cl, &n2, &err);
    if (rc >= 0)
        rc = gs_cluster_seal(cl, 0, &err);
    if (rc >= 0)
        rc = gs_policy_set(&pol, "queue.quota.team-a", "6", &err);
    expect_ok_or_nomem(rc, "setup", n);
    if (rc >= 0) {
        eng = gs_engine_create(cl, &pol, &err);
        if (!eng)
            assert_int_equal(err.code, GS_ENOMEM);
    }
    if (eng) {
        static const struct {
            const char *id, *team;
            int gpus, milli;
        } jobs[] = {
            { "a", "team-a", 4, 1000 }, { "b", "team-b", 8, 1000 }, { "c", "team-a", 4, 1000 },
            { "d", "team-c", 1, 500 },  { "e", NULL, 0, 1000 },
        };
        for (int i = 0; i < 5; i++) {
            struct gs_job_spec s = spec_of(jobs[i].id, 0, jobs[i].gpus);
            s.team = jobs[i].team;
            s.milli = jobs[i].milli;
            expect_ok_or_nomem(gs_engine_submit(eng, 0, &s, &err), "submit", n);
            check_engine(eng, n);
        }
        expect_ok_or_nomem(gs_engine_step(eng, 0, &err), "step", n);
        check_engine(eng, n);
        for (int h = 0; h < gs_engine_job_count(eng); h++) {
            struct gs_job_info ji;
            gs_engine_job_info(eng, h, &ji);
            if (ji.state == GS_JOB_RUNNING)
                expect_ok_or_nomem(gs_engine_finish(eng, SEC(10), h, &err), "finish", n);
            check_engine(eng, n);
        }
        expect_ok_or_nomem(gs_engine_step(eng, SEC(10), &err), "step", n);
        check_engine(eng, n);
        struct gs_job_spec late = spec_of("late", SEC(20), 2);
        expect_ok_or_nomem(gs_engine_submit(eng, SEC(20), &late, &err), "submit", n);
        expect_ok_or_nomem(gs_engine_step(eng, SEC(20), &err), "step", n);
        check_engine(eng, n);
    }
    int failed = tu_oom_state.failed > 0;
    tu_oom_pause();
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
    gs_policy_fini(&pol);
    tu_oom_end(n);
    return failed;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    assert_true(tu_oom_rounds(oom_round) > 20);
}

static int free_live(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
        if (live[i])
            fix_free(live[i]);
    tu_oom_disarm();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_create_errors, free_live),
        cmocka_unit_test_teardown(test_create_unbuilt_features, free_live),
        cmocka_unit_test_teardown(test_create_copies_inputs, free_live),
        cmocka_unit_test_teardown(test_same_time_keeps_submission_order, free_live),
        cmocka_unit_test_teardown(test_strict_head_of_line, free_live),
        cmocka_unit_test_teardown(test_reject_never_fits, free_live),
        cmocka_unit_test_teardown(test_duplicate_id, free_live),
        cmocka_unit_test_teardown(test_bad_spec_fields, free_live),
        cmocka_unit_test_teardown(test_time_backwards, free_live),
        cmocka_unit_test_teardown(test_finish_errors, free_live),
        cmocka_unit_test_teardown(test_cancel, free_live),
        cmocka_unit_test_teardown(test_cpu_only_job, free_live),
        cmocka_unit_test_teardown(test_quota, free_live),
        cmocka_unit_test_teardown(test_quota_counts_shares, free_live),
        cmocka_unit_test_teardown(test_quota_team_first_seen_late, free_live),
        cmocka_unit_test_teardown(test_queries, free_live),
        cmocka_unit_test_teardown(test_restore_continues_identically, free_live),
        cmocka_unit_test_teardown(test_restore_errors, free_live),
        cmocka_unit_test_teardown(test_same_calls_same_decisions, free_live),
        cmocka_unit_test_teardown(test_oom_sweep, free_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

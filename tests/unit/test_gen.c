/* test_gen.c - the seeded workload generator (gen.h): reproducibility,
 * ordering, the size mix, the offered load, declared time limits, and
 * option validation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "core/base/strtab.h"
#include "sim/gen.h"
#include "testutil.h"

#define FOUR_BY_EIGHT "node-1:8 node-2:8 node-3:8 node-4:8"

static struct gs_trace *gen(const struct gs_cluster *cl, const struct gs_gen_opts *o)
{
    struct gs_trace *tr = gs_trace_create();
    assert_non_null(tr);
    struct gs_error err = { 0 };
    if (gs_gen_workload(cl, o, tr, &err) != 0)
        fail_msg("gs_gen_workload: %s", err.msg);
    assert_int_equal(gs_trace_count(tr), o->jobs);
    return tr;
}

static int str_eq(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static int same_job(const struct gs_trace *a, const struct gs_trace *b, size_t i)
{
    const struct gs_job_spec *x = gs_trace_job(a, i), *y = gs_trace_job(b, i);
    return str_eq(x->id, y->id) && x->submit == y->submit && x->gpus == y->gpus &&
           x->milli == y->milli && str_eq(x->team, y->team) && str_eq(x->user, y->user) &&
           str_eq(x->name, y->name) && x->time_limit == y->time_limit &&
           gs_trace_duration(a, i) == gs_trace_duration(b, i);
}

/* Same options and seed: the same trace, field by field. */
static void test_same_seed_same_trace(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(FOUR_BY_EIGHT);
    struct gs_gen_opts o;
    gs_gen_defaults(&o);
    o.jobs = 2000;
    o.seed = 42;
    struct gs_trace *a = gen(cl, &o), *b = gen(cl, &o);
    for (size_t i = 0; i < o.jobs; i++)
        if (!same_job(a, b, i))
            fail_msg("job %zu differs", i);
    gs_trace_destroy(a);
    gs_trace_destroy(b);
    gs_cluster_destroy(cl);
}

/* A different seed gives a different trace. */
static void test_other_seed_other_trace(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(FOUR_BY_EIGHT);
    struct gs_gen_opts o;
    gs_gen_defaults(&o);
    o.jobs = 200;
    o.seed = 1;
    struct gs_trace *a = gen(cl, &o);
    o.seed = 2;
    struct gs_trace *b = gen(cl, &o);
    size_t differ = 0;
    for (size_t i = 0; i < o.jobs; i++)
        differ += !same_job(a, b, i);
    /* submit times are continuous random draws: nearly every job differs */
    assert_true(differ > o.jobs / 2);
    gs_trace_destroy(a);
    gs_trace_destroy(b);
    gs_cluster_destroy(cl);
}

/* Jobs come sorted by submit time, starting at 0, with unique ids, whole
 * second durations of at least 1 s, and time limits that over-estimate the
 * run time, rounded up to 10 minutes. */
static void test_trace_shape(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(FOUR_BY_EIGHT);
    struct gs_gen_opts o;
    gs_gen_defaults(&o);
    o.jobs = 3000;
    struct gs_trace *tr = gen(cl, &o);
    struct gs_strtab *ids = gs_strtab_create();
    struct gs_strtab *teams = gs_strtab_create();
    struct gs_strtab *kinds = gs_strtab_create();
    assert_int_equal(gs_trace_job(tr, 0)->submit, 0);
    for (size_t i = 0; i < o.jobs; i++) {
        const struct gs_job_spec *j = gs_trace_job(tr, i);
        gs_time d = gs_trace_duration(tr, i);
        if (i > 0 && j->submit < gs_trace_job(tr, i - 1)->submit)
            fail_msg("job %zu submitted before job %zu", i, i - 1);
        assert_int_equal(gs_strtab_intern(ids, j->id), (int)i); /* new id each time */
        assert_true(d >= SEC(1));
        assert_int_equal(d % SEC(1), 0);
        assert_true(j->time_limit >= d);
        assert_int_equal(j->time_limit % SEC(600), 0);
        assert_non_null(j->team);
        gs_strtab_intern(teams, j->team);
        char kind[128];
        snprintf(kind, sizeof kind, "%s/%s", j->user ? j->user : "", j->name ? j->name : "");
        gs_strtab_intern(kinds, kind);
        assert_int_equal(j->milli, 1000);
    }
    /* at most `teams` teams and `templates` distinct (user, name) kinds */
    assert_true(gs_strtab_count(teams) >= 1 && gs_strtab_count(teams) <= o.teams);
    assert_true(gs_strtab_count(kinds) >= 1 && gs_strtab_count(kinds) <= o.templates);
    gs_strtab_destroy(ids);
    gs_strtab_destroy(teams);
    gs_strtab_destroy(kinds);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
}

/* Sizes come only from the mix; sizes larger than every node and sizes of
 * weight 0 are never drawn. */
static void test_sizes_from_mix(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(FOUR_BY_EIGHT);
    static const struct {
        int n;              /* 0 = the default mix */
        int sizes[4];
        double weights[4];
        int allowed[4];     /* sizes that must appear and nothing else */
    } rows[] = {
        { 0, { 0 }, { 0 }, { 1, 2, 4, 8 } },      /* defaults 1, 2, 4, 8 */
        { 2, { 2, 16 }, { 1, 1 }, { 2 } },        /* 16 > 8-GPU nodes: dropped */
        { 2, { 1, 4 }, { 0, 1 }, { 4 } },         /* weight 0: never */
        { 3, { 3, 5, 7 }, { 1, 1, 1 }, { 3, 5, 7 } },
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        struct gs_gen_opts o;
        gs_gen_defaults(&o);
        o.jobs = 1000;
        o.templates = 200;
        if (rows[r].n > 0) {
            o.nsizes = rows[r].n;
            for (int i = 0; i < rows[r].n; i++) {
                o.sizes[i] = rows[r].sizes[i];
                o.weights[i] = rows[r].weights[i];
                o.median_s[i] = 600;
            }
        }
        int nallowed = 0;
        while (nallowed < 4 && rows[r].allowed[nallowed])
            nallowed++;
        struct gs_trace *tr = gen(cl, &o);
        int seen[65] = { 0 };
        for (size_t i = 0; i < o.jobs; i++) {
            int g = gs_trace_job(tr, i)->gpus;
            int ok = 0;
            for (int k = 0; k < nallowed; k++)
                ok |= g == rows[r].allowed[k];
            if (!ok)
                fail_msg("row %zu: size %d not in the mix", r, g);
            seen[g]++;
        }
        /* every allowed size shows up among 1000 jobs of 200 templates */
        for (int k = 0; k < nallowed; k++)
            if (seen[rows[r].allowed[k]] == 0)
                fail_msg("row %zu: size %d never drawn", r, rows[r].allowed[k]);
        gs_trace_destroy(tr);
    }
    gs_cluster_destroy(cl);
}

/* The offered load, sum(gpus x duration) / (cluster GPUs x last submit),
 * is close to the target 0.8 for 20000 jobs.
 *
 * Why a 15 % tolerance: the generator fixes the Poisson arrival rate from
 * the templates' expected work per job, so only sampling noise separates
 * the measured ratio from 0.8.  The span (last submit) is a sum of 20000
 * exponential gaps: relative standard deviation 1/sqrt(20000) ~ 0.7 %.  The
 * work is a sum of 20000 log-normal run times (sigma 0.6) times sizes 1-8
 * over 48 templates whose medians spread by another log-normal (sigma
 * 0.8): its coefficient of variation per job is about 2-3, so the sum's
 * relative standard deviation is about 3/sqrt(20000) ~ 2 %.  Rounding run
 * times to whole seconds moves the mean by well under 0.1 %.  15 % is more
 * than five standard deviations, so the check holds for any seed, while a
 * rate computed wrongly (e.g. from medians instead of means, a factor
 * exp(sigma^2/2) = 1.2 or more) fails it. */
static void test_offered_load(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(FOUR_BY_EIGHT);
    static const uint64_t seeds[] = { 1, 2, 99 };
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        struct gs_gen_opts o;
        gs_gen_defaults(&o);
        o.jobs = 20000;
        o.seed = seeds[s];
        o.load = 0.8;
        struct gs_trace *tr = gen(cl, &o);
        double work = 0;
        for (size_t i = 0; i < o.jobs; i++)
            work += gs_trace_job(tr, i)->gpus * gs_time_to_sec(gs_trace_duration(tr, i));
        double span = gs_time_to_sec(gs_trace_job(tr, o.jobs - 1)->submit);
        double load = work / (32.0 * span);
        if (fabs(load - 0.8) > 0.15 * 0.8)
            fail_msg("seed %llu: offered load %.4f, want 0.8 +- 15%%",
                     (unsigned long long)seeds[s], load);
        gs_trace_destroy(tr);
    }
    gs_cluster_destroy(cl);
}

/* Doubling the load roughly halves the span (same seed, same work). */
static void test_load_scales_arrivals(void **state)
{
    (void)state;
    struct gs_cluster *cl = cluster_of(FOUR_BY_EIGHT);
    struct gs_gen_opts o;
    gs_gen_defaults(&o);
    o.jobs = 5000;
    o.load = 0.5;
    struct gs_trace *a = gen(cl, &o);
    o.load = 1.0;
    struct gs_trace *b = gen(cl, &o);
    double sa = gs_time_to_sec(gs_trace_job(a, o.jobs - 1)->submit);
    double sb = gs_time_to_sec(gs_trace_job(b, o.jobs - 1)->submit);
    /* twice the load = twice the arrival rate for the same work per job:
     * the span halves, up to the sampling noise discussed above (< 10 %) */
    assert_true(fabs(sa / sb - 2.0) < 0.2);
    gs_trace_destroy(a);
    gs_trace_destroy(b);
    gs_cluster_destroy(cl);
}

/* Invalid options: GS_EINVAL with a message naming the option. */
static void test_invalid_options(void **state)
{
    (void)state;
    enum opt { JOBS, LOAD, TEAMS, TEMPLATES, NSIZES, SIZE, WEIGHT, MEDIAN, SIGMA, TSIGMA,
               TOO_BIG };
    static const struct {
        enum opt opt;
        double value;
        const char *named;
    } rows[] = {
        { JOBS, 0, "jobs" },
        { LOAD, 0, "load" },
        { LOAD, -0.5, "load" },
        { LOAD, 11, "load" },
        { LOAD, NAN, "load" },
        { TEAMS, 0, "teams" },
        { TEMPLATES, 0, "templates" },
        { NSIZES, 0, "size" },
        { NSIZES, GS_GEN_MAX_SIZES + 1, "size" },
        { SIZE, 0, "size" },
        { WEIGHT, -1, "size" },
        { MEDIAN, 0, "size" },
        { SIGMA, -1, "sigma" },
        { SIGMA, 5, "sigma" },
        { TSIGMA, -0.1, "sigma" },
        { TOO_BIG, 0, "size" },   /* no size of the mix fits an 8-GPU node */
    };
    struct gs_cluster *cl = cluster_of(FOUR_BY_EIGHT);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_gen_opts o;
        gs_gen_defaults(&o);
        o.jobs = 10;
        switch (rows[i].opt) {
        case JOBS: o.jobs = (size_t)rows[i].value; break;
        case LOAD: o.load = rows[i].value; break;
        case TEAMS: o.teams = (int)rows[i].value; break;
        case TEMPLATES: o.templates = (int)rows[i].value; break;
        case NSIZES: o.nsizes = (int)rows[i].value; break;
        case SIZE: o.sizes[1] = (int)rows[i].value; break;
        case WEIGHT: o.weights[2] = rows[i].value; break;
        case MEDIAN: o.median_s[0] = rows[i].value; break;
        case SIGMA: o.sigma = rows[i].value; break;
        case TSIGMA: o.template_sigma = rows[i].value; break;
        case TOO_BIG:
            o.nsizes = 2;
            o.sizes[0] = 16;
            o.sizes[1] = 32;
            break;
        }
        struct gs_trace *tr = gs_trace_create();
        struct gs_error err = { 0 };
        int rc = gs_gen_workload(cl, &o, tr, &err);
        if (rc != GS_EINVAL)
            fail_msg("row %zu (%s): got %s want EINVAL", i, rows[i].named, gs_strerror(rc));
        if (!strstr(err.msg, rows[i].named))
            fail_msg("row %zu: message does not name '%s': %s", i, rows[i].named, err.msg);
        assert_int_equal(gs_trace_count(tr), 0);
        gs_trace_destroy(tr);
    }
    gs_cluster_destroy(cl);
}

/* Defaults as documented in gen.h. */
static void test_defaults(void **state)
{
    (void)state;
    struct gs_gen_opts o;
    gs_gen_defaults(&o);
    assert_int_equal(o.jobs, 1000);
    assert_int_equal(o.seed, 1);
    assert_true(o.load == 0.8);
    assert_int_equal(o.teams, 4);
    assert_int_equal(o.templates, 48);
    assert_int_equal(o.nsizes, 4);
    static const int sizes[] = { 1, 2, 4, 8 };
    static const double w[] = { 0.50, 0.25, 0.10, 0.15 };
    static const double med[] = { 1800, 2700, 3600, 10800 };  /* 30m 45m 1h 3h */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(o.sizes[i], sizes[i]);
        assert_true(o.weights[i] == w[i]);
        assert_true(o.median_s[i] == med[i]);
    }
    assert_true(o.sigma == 0.6);
    assert_true(o.template_sigma == 0.8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_trace),
        cmocka_unit_test(test_other_seed_other_trace),
        cmocka_unit_test(test_trace_shape),
        cmocka_unit_test(test_sizes_from_mix),
        cmocka_unit_test(test_offered_load),
        cmocka_unit_test(test_load_scales_arrivals),
        cmocka_unit_test(test_invalid_options),
        cmocka_unit_test(test_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_door.c - gs_engine_possible (refusal at the door): it answers
 * exactly what gs_engine_submit then does (rejected iff not possible) over
 * a grid of requests, changes no job state, and names the field and the
 * cluster's numbers.  Cluster: n1 8 H100 in one domain, n2 8 H100 in two
 * domains of 4, n3 4 A100 (40 GiB) in one: 20 GPUs, 16 H100 + 4 A100. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "core/diagnose/diagnose.h"

#define DESC "n1:8:[8] n2:8:[4,4] n3:4:[4]:A100"

static struct gs_engine *make_engine(struct gs_cluster **cl, const char *const *parts)
{
    *cl = cluster_of(DESC);
    struct gs_policy pol;
    fifo_pack(&pol);
    for (size_t i = 0; parts && parts[i]; i += 3) {
        struct gs_error err = { 0 };
        assert_int_equal(gs_policy_list_add(&pol, "partitions", &err), 0);
        pol_set(&pol, "partitions.name", parts[i]);
        if (*parts[i + 1])
            pol_set(&pol, "partitions.nodes", parts[i + 1]);
        pol_set(&pol, "partitions.classes", parts[i + 2]);
    }
    struct gs_error err = { 0 };
    struct gs_engine *eng = gs_engine_create(*cl, &pol, &err);
    if (!eng)
        fail_msg("engine: %s", err.msg);
    gs_policy_fini(&pol);
    return eng;
}

/* Every request of the grid: possible's answer, then submit's state. */
static void grid(const char *const *parts, int *npossible, int *nrejected)
{
    struct gs_cluster *cl;
    struct gs_engine *eng = make_engine(&cl, parts);
    static const char *const models[] = { NULL, "H100", "A100", "B200", "A100|H100" };
    static const int64_t mems[] = { -1, 40960, 81920, 102400 };
    int n = 0;
    *npossible = *nrejected = 0;
    for (int gpus = 0; gpus <= 22; gpus++)
        for (int topo = GS_TOPO_AUTO; topo <= GS_TOPO_ANY; topo++)
            for (size_t m = 0; m < 5; m++)
                for (size_t k = 0; k < 4; k++)
                    for (int klass = 0; klass < 2; klass++) {
                        char id[32];
                        snprintf(id, sizeof id, "j%d", n++);
                        struct gs_job_spec s = spec_of(id, 0, gpus);
                        s.topology = topo;
                        s.gpu_model = models[m];
                        s.mem_mib = mems[k];
                        s.klass = klass;
                        struct gs_error err = { 0 };
                        int before = gs_engine_job_count(eng);
                        int p = gs_engine_possible(eng, &s, &err);
                        assert_int_equal(gs_engine_job_count(eng), before);
                        assert_true(p == 0 || p == 1);
                        if (!p)
                            assert_non_null(strchr(err.msg, ':'));
                        int h = gs_engine_submit(eng, 0, &s, &err);
                        assert_true(h >= 0);
                        struct gs_job_info ji;
                        assert_int_equal(gs_engine_job_info(eng, h, &ji), 0);
                        int rejected = ji.state == GS_JOB_REJECTED;
                        if (rejected == p)
                            fail_msg("%s: gpus %d topo %d model %s mem %lld class %d: "
                                     "possible %d, submit rejected %d", id, gpus, topo,
                                     models[m] ? models[m] : "-", (long long)mems[k], klass,
                                     p, rejected);
                        *npossible += p;
                        *nrejected += rejected;
                    }
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
}

static void test_same_as_submit(void **state)
{
    (void)state;
    int np, nr;
    grid(NULL, &np, &nr);
    /* 23 x 4 x 5 x 4 x 2 = 3680 requests, both answers present */
    assert_int_equal(np + nr, 3680);
    assert_true(np > 0 && nr > 0);
    static const char *const parts[] = { "serve", "n3", "infer", "batch", "", "train", NULL };
    grid(parts, &np, &nr);
    assert_int_equal(np + nr, 3680);
    assert_true(np > 0 && nr > 0);
    static const char *const infer_only[] = { "serve", "n3", "infer", NULL };
    grid(infer_only, &np, &nr);
    assert_true(np > 0 && nr > 1840); /* every training job (half) is refused */
}

/* possible's message for one request. */
static void refusal(const char *const *parts, struct gs_job_spec s, const char *want)
{
    struct gs_cluster *cl;
    struct gs_engine *eng = make_engine(&cl, parts);
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_possible(eng, &s, &err), 0);
    assert_int_equal(err.code, GS_EINVAL);
    assert_string_equal(err.msg, want);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
}

static void test_messages(void **state)
{
    (void)state;
    struct gs_job_spec s = spec_of("x", 0, 21);
    refusal(NULL, s, "gpus: 21 requested, the cluster has 20 GPUs"); /* 8 + 8 + 4 */
    s.gpus = 5;
    s.gpu_model = "A100";
    refusal(NULL, s, "gpus: 5 requested, the cluster has 4 A100 GPUs"); /* n3 only */
    s.gpu_model = "B200";
    refusal(NULL, s, "gpu_model: no node has a B200 GPU (the cluster has H100, A100)");
    s = spec_of("x", 0, 1);
    s.mem_mib = 102400; /* 100 GiB; the H100s have 80 */
    refusal(NULL, s, "gpu_mem_gb: 100 GB per GPU requested, the largest GPU has 80 GB");
    s.mem_mib = 81920;
    s.gpu_model = "A100";
    refusal(NULL, s, "gpu_mem_gb: 80 GB per GPU requested, the largest A100 GPU has 40 GB");
    s = spec_of("x", 0, 9);
    s.topology = GS_TOPO_NODE;
    refusal(NULL, s, "topology: node: 9 GPUs requested on one node, the largest has 8");
    s.topology = GS_TOPO_DOMAIN; /* n1's domain of 8 is the largest */
    refusal(NULL, s, "topology: domain: 9 GPUs requested in one NVLink domain, the largest has 8");
    static const char *const parts[] = { "serve", "n3", "infer", "batch", "", "train", NULL };
    s = spec_of("x", 0, 5);
    s.klass = GS_CLASS_INFER;
    refusal(parts, s, "gpus: 5 requested, the cluster has 4 GPUs in partition serve");
    s = spec_of("x", 0, 17); /* training: the pool n1 + n2 */
    refusal(parts, s, "gpus: 17 requested, the cluster has 16 GPUs");
    static const char *const infer_only[] = { "serve", "n3", "infer", NULL };
    s = spec_of("x", 0, 1);
    refusal(infer_only, s, "class: no partition of the policy admits training jobs");
}

/* gs_engine_probe: on the idle cluster a 4-GPU job fits now; pack takes
 * the unit it leaves fewest free GPUs on: n3's 4 (node index 2), all of
 * them (mask 0xF); the engine holds no job after it; an impossible one
 * answers 0 with the door's message. */
static void test_probe(void **state)
{
    (void)state;
    struct gs_cluster *cl;
    struct gs_engine *eng = make_engine(&cl, NULL);
    struct gs_job_spec s = spec_of("p", 0, 4);
    struct gs_diag d;
    const struct gs_alloc *a;
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_probe(eng, &s, &d, &a, &err), 1);
    assert_int_equal(d.reason, GS_REASON_NONE);
    assert_non_null(a);
    assert_int_equal(a->nparts, 1);
    assert_int_equal(a->parts[0].node, 2);
    assert_int_equal(a->parts[0].mask, 0xF);
    assert_int_equal(gs_engine_job_count(eng), 0);
    assert_int_equal(gs_engine_job_find(eng, "p"), GS_ENOENT);
    s.gpus = 21;
    assert_int_equal(gs_engine_probe(eng, &s, &d, &a, &err), 0);
    assert_string_equal(err.msg, "gpus: 21 requested, the cluster has 20 GPUs");
    assert_null(a);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
}

static void test_bad_spec(void **state)
{
    (void)state;
    struct gs_cluster *cl;
    struct gs_engine *eng = make_engine(&cl, NULL);
    struct gs_job_spec s = spec_of("x", 0, 2);
    s.milli = 500; /* a share needs gpus = 1 */
    struct gs_error err = { 0 };
    assert_int_equal(gs_engine_possible(eng, &s, &err), GS_EINVAL);
    assert_int_equal(gs_engine_job_count(eng), 0);
    gs_engine_destroy(eng);
    gs_cluster_destroy(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_submit),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_bad_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

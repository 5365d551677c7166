/* test_preempt.c - preemption golden tests (issue 5): loss accounting,
 * grace periods, victim choice, refusals.  Every expected number is
 * derived by hand in the comment above it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ptestutil.h"

/* The issue's example.  One 8-GPU node.  A (prio 0, 8 GPUs, 1000 s of
 * work, I = 100 s, C = 10 s) starts at 0; B (prio 10, 8 GPUs, 100 s)
 * arrives at 250; mode checkpoint, no grace, defaults otherwise.
 *   A: work 0-100 at t 0-100, checkpoint t 100-110 (saved 100),
 *      work 100-200 at t 110-210, checkpoint t 210-220 (saved 200),
 *      work 200-230 at t 220-250: preempted at 250, loses 30 s x 8 GPUs.
 *   B runs 250-350.
 *   A restarts at 350 from 200 (restore 0): 800 s of work with
 *   checkpoints at 300, 400, ..., 900 = 7 x 10 s: ends 350 + 800 + 70 = 1220.
 *   A's checkpoint time: 2 x 10 + 7 x 10 = 90 s. */
static void test_issue_example(void **state)
{
    (void)state;
    static const struct pjob rows[] = {
        { .id = "A", .gpus = 8, .dur_s = 1000, .ckpt_i = 100, .ckpt_c = 10 },
        { .id = "B", .submit_s = 250, .gpus = 8, .dur_s = 100, .prio = 10 },
    };
    struct gs_cluster *cl = cluster_of("n1:8");
    const char *kv[] = { "preemption.mode", "checkpoint", NULL };
    struct gs_policy pol;
    ppolicy(&pol, kv);
    struct gs_trace *tr = ptrace(rows, 2);
    struct recorder rec;
    struct gs_sim_result res;
    psim(cl, &pol, tr, &rec, &res);
    passert_at(&rec, res.engine, GS_EV_PREEMPT, "A", SEC(250));
    passert_at(&rec, res.engine, GS_EV_START, "B", SEC(250));
    passert_at(&rec, res.engine, GS_EV_FINISH, "B", SEC(350));
    int i = pfind(&rec, res.engine, pfind(&rec, res.engine, 0, GS_EV_PREEMPT, "A"),
                  GS_EV_START, "A");
    assert_true(i >= 0);
    assert_int_equal(rec.ev[i].time, SEC(350));
    passert_at(&rec, res.engine, GS_EV_FINISH, "A", SEC(1220));
    struct gs_job_info a = job_named(res.engine, "A");
    assert_int_equal(a.lost, SEC(30));
    assert_int_equal(a.work, SEC(1000));
    assert_int_equal(a.ckpt_wall, SEC(90));
    assert_int_equal(a.restore_wall, 0);
    assert_int_equal(a.runs, 2);
    assert_int_equal(a.preemptions, 1);
    assert_int_equal(a.first_start, 0);
    gs_sim_result_fini(&res);
    gs_trace_destroy(tr);
    gs_policy_fini(&pol);
    gs_cluster_destroy(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_example),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

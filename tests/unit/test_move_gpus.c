/* test_move_gpus.c - gs_engine_move_gpus (lifecycle_move.c): the engine's
 * view of a job's GPUs follows the GPUs a backend reports it really got.
 *
 * Every engine call is followed by gs_engine_check (lctestutil.h).  The
 * expectations follow from fifo_pack on an idle [8] node: a g-GPU job
 * decided there gets the lowest free g GPUs (mask 2^g - 1 on an idle node).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lctestutil.h"

static uint64_t alloc_mask(const struct lfix *f, int job)
{
    struct gs_alloc a;
    assert_int_equal(gs_engine_job_alloc(f->eng, job, &a), 0);
    assert_int_equal(a.nparts, 1);
    return a.parts[0].mask;
}

/* a (2 GPUs) is decided on GPUs 0,1 (0x03) but really got 4,5 (0x30): the
 * engine's allocation and the node's idle set follow (idle = 0xFF & ~0x30
 * = 0xCF), the job confirms and ends normally, and the next 2-GPU job is
 * placed on the GPUs a left (0x03, the lowest free) - not on 4,5. */
static void test_move_one(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 2);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0x03);
    struct gs_gpu_move m = { a, node_of(f->cl, "n1"), 0x30 };
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), &m, 1, LF_ERR), 0);
    assert_int_equal(alloc_mask(f, a), 0x30);
    assert_int_equal(lf_idle(f, "n1"), 0xCF);
    assert_int_equal(lf_state(f, a), GS_JOB_STARTING); /* the state is not touched */
    LF_OK(f, gs_engine_started(f->eng, SEC(1), a, LF_ERR), 0);
    int c = lf_submit(f, SEC(2), "c", 2);
    assert_int_equal(lf_step(f, SEC(2)), 1);
    lf_start(f, 1, c, SEC(2), "n1", 0x03);
    LF_OK(f, gs_engine_exited(f->eng, SEC(9), a, 0, LF_ERR), 0);
    assert_int_equal(lf_idle(f, "n1"), 0xFC); /* only c's 0,1 still taken */
}

/* a on 0x03 and b on 0x0C really got each other's GPUs.  Moving a alone
 * fails (b holds 2,3) and changes nothing; both in one call succeed. */
static void test_swap(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 2), b = lf_submit(f, 0, "b", 2);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0x03);
    lf_start(f, 1, b, 0, "n1", 0x0C);
    int n1 = node_of(f->cl, "n1");
    struct gs_gpu_move mv[2] = { { a, n1, 0x0C }, { b, n1, 0x03 } };
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), mv, 1, LF_ERR), GS_ENOSPC);
    assert_int_equal(alloc_mask(f, a), 0x03);
    assert_int_equal(alloc_mask(f, b), 0x0C);
    assert_int_equal(lf_idle(f, "n1"), 0xF0);
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), mv, 2, LF_ERR), 0);
    assert_int_equal(alloc_mask(f, a), 0x0C);
    assert_int_equal(alloc_mask(f, b), 0x03);
    assert_int_equal(lf_idle(f, "n1"), 0xF0);
    LF_OK(f, gs_engine_exited(f->eng, SEC(5), b, 0, LF_ERR), 0);
    assert_int_equal(lf_idle(f, "n1"), 0xF3); /* b's end frees 0,1: where it ran */
}

/* A GPU out of service cannot be moved onto; bad moves change nothing. */
static void test_refused(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8 n2:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 2), p = lf_submit(f, 0, "p", 16);
    lf_step(f, 0);
    assert_int_equal(lf_state(f, a), GS_JOB_STARTING);
    assert_int_equal(alloc_mask(f, a), 0x03);
    int n1 = node_of(f->cl, "n1"), n2 = node_of(f->cl, "n2");
    LF_OK(f, gs_engine_gpu_set_state(f->eng, SEC(1), n1, 5, GS_NODE_DOWN, LF_ERR), 0);
    struct gs_gpu_move m = { a, n1, 0x30 };
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), &m, 1, LF_ERR), GS_ENOSPC);
    struct gs_gpu_move bad[] = {
        { a, n1, 0x70 },     /* 3 GPUs, a has 2 */
        { a, n2, 0x03 },     /* a has none on n2 */
        { a, n1, 0x300 },    /* GPUs 8,9 of an 8-GPU node */
        { a, 7, 0x03 },      /* no node 7 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), &bad[i], 1, LF_ERR), GS_EINVAL);
    struct gs_gpu_move twice[2] = { { a, n1, 0x0C }, { a, n1, 0x30 } };
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), twice, 2, LF_ERR), GS_EINVAL);
    struct gs_gpu_move pend = { p, n1, 0x03 }, none = { 99, n1, 0x03 };
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), &pend, 1, LF_ERR), GS_ESTATE);
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(1), &none, 1, LF_ERR), GS_ENOENT);
    assert_int_equal(alloc_mask(f, a), 0x03);
    /* GPU 5 is out of service and so not idle: idle = 0xFF & ~0x03 & ~0x20 */
    assert_int_equal(lf_idle(f, "n1"), 0xDC);
    struct gs_gpu_move ok = { a, n1, 0xC0 };
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(2), &ok, 1, LF_ERR), 0);
    assert_int_equal(lf_idle(f, "n1"), 0x1F); /* 0..4 idle (0,1 back); 5 out; 6,7 a's */
}

/* A stopping job moves too: a (6 GPUs, decided 0x3F = 0-5) is cancelled,
 * then reported on 2-7 (0xFC); its GPUs stay held until it exits, so b (2
 * GPUs) starts at once on the two the engine now sees free, 0,1 (0x03). */
static void test_move_stopping(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 1);
    int a = lf_submit(f, 0, "a", 6);
    lf_step(f, 0);
    lf_start(f, 0, a, 0, "n1", 0x3F);
    LF_OK(f, gs_engine_started(f->eng, SEC(1), a, LF_ERR), 0);
    LF_OK(f, gs_engine_cancel(f->eng, SEC(2), a, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_STOPPING);
    struct gs_gpu_move m = { a, node_of(f->cl, "n1"), 0xFC };
    LF_OK(f, gs_engine_move_gpus(f->eng, SEC(3), &m, 1, LF_ERR), 0);
    assert_int_equal(lf_idle(f, "n1"), 0x03);
    int b = lf_submit(f, SEC(3), "b", 2);
    assert_int_equal(lf_step(f, SEC(3)), 1);
    lf_start(f, 2, b, SEC(3), "n1", 0x03);
    LF_OK(f, gs_engine_exited(f->eng, SEC(4), a, 143, LF_ERR), 0);
    assert_int_equal(lf_state(f, a), GS_JOB_CANCELLED);
    assert_int_equal(lf_idle(f, "n1"), 0xFC); /* a's real GPUs are free again */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_move_one, lf_teardown),
        cmocka_unit_test_teardown(test_swap, lf_teardown),
        cmocka_unit_test_teardown(test_refused, lf_teardown),
        cmocka_unit_test_teardown(test_move_stopping, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

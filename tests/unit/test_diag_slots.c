/* test_diag_slots.c - the diagnosis's per-slot tables (struct
 * gs_diag_state, diagnose_private.h, diagnose_slots.c): a job's wait code
 * and since when, its per-code wait segments, its run count and follower
 * class live beside the job table, not in struct job.  A retirement
 * settles the slot's accounts (waits to the retired totals, segments back
 * to the pool) and leaves the entries; the new job that takes the slot
 * finds them zero (GS_HOOK_ADDED).  gs_engine_check (after every call,
 * lctestutil.h) checks the tables cover the slots, codes and segments and
 * follower classes agree, and each class's follower count.
 * White-box: the entries are read from diagnose_private.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lctestutil.h"
#include "core/engine/engine_private.h"
#include "core/diagnose/diagnose_private.h"

/* One [8] node, fifo, 8-GPU jobs:
 *   0 s  r starts;
 *   1 s  a waits (shortage: the pass codes it);
 *   3 s  a is cancelled; the pass at 3 s closes its wait: 2 s shortage;
 *        a is retired.  Its slot keeps its closed code (never read: no
 *        call reaches a free slot), its segments went back to the pool;
 *   4 s  y takes a's slot: code 0, no segments, no class;
 *   6 s  (z's submit moves the clock) y was never classified: its whole
 *        wait so far, 6 - 4 = 2 s, is `none`, nothing else.  Were a's
 *        closed code left to y, its split would read as closed: all 0.
 * The retired totals keep a's 2 s (1/1800 h) of shortage. */
static void test_reuse_resets_codes(void **state)
{
    (void)state;
    struct lfix *f = lf_new("n1:8", NULL, 0);
    int r = lf_submit(f, 0, "r", 8);
    lf_step(f, 0);
    lf_start(f, 0, r, 0, "n1", 0xFF);
    int a = lf_submit(f, SEC(1), "a", 8);
    lf_step(f, SEC(1));
    assert_int_equal(gs_engine_wait_reason(f->eng, a), GS_REASON_SHORTAGE);
    int slot = gs_eng_slot(f->eng, a);
    const struct gs_diag_state *ds = f->eng->diag;
    LF_OK(f, gs_engine_cancel(f->eng, SEC(3), a, LF_ERR), 0);
    lf_step(f, SEC(3));
    gs_time split[GS_REASON_COUNT];
    assert_int_equal(gs_engine_wait_split(f->eng, a, split), 0);
    assert_int_equal(split[GS_REASON_SHORTAGE], SEC(2));
    LF_OK(f, gs_engine_retire(f->eng, a, LF_ERR), 0);
    assert_int_not_equal(ds->code[slot], 0); /* left for the next job's add */
    assert_int_equal(ds->head[slot], 0);     /* its segments are back in the pool */
    int y = lf_submit(f, SEC(4), "y", 8);
    assert_int_equal(gs_eng_slot(f->eng, y), slot);
    assert_int_equal(ds->code[slot], 0);
    assert_int_equal(ds->head[slot], 0);
    assert_int_equal(ds->fcls[slot], 0);
    lf_submit(f, SEC(6), "z", 8);
    assert_int_equal(lf_state(f, y), GS_JOB_PENDING);
    assert_int_equal(lf_idle(f, "n1"), 0); /* r still holds the node */
    assert_int_equal(gs_engine_wait_split(f->eng, y, split), 0);
    assert_int_equal(split[GS_REASON_NONE], SEC(2));
    for (int c = GS_REASON_NONE + 1; c < GS_REASON_COUNT; c++)
        assert_int_equal(split[c], 0);
    struct gs_wait_reasons w;
    gs_wait_reasons_build(&w, f->eng);
    double sh = 0;
    for (int k = 0; k < GS_SIZE_CLASSES; k++)
        sh += w.job_h[GS_REASON_SHORTAGE][k];
    assert_true(sh > 1.0 / 1800 - 1e-12 && sh < 1.0 / 1800 + 1e-12);
    lf_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_reuse_resets_codes, lf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

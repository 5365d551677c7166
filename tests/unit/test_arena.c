/* test_arena.c - the bump allocator (arena.h): alignment, strings, large
 * blocks, reset and reuse, allocation failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdalign.h>

#include "core/base/arena.h"
#include "testutil.h"

/* Every block is aligned for any object and blocks do not overlap. */
static void test_alignment_and_disjoint(void **state)
{
    (void)state;
    struct gs_arena a;
    gs_arena_init(&a);
    a.chunk_size = 256;    /* small chunks: force several */
    unsigned char *prev = NULL;
    size_t prev_size = 0;
    for (size_t size = 1; size < 200; size += 7) {
        unsigned char *p = gs_arena_alloc(&a, size);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % alignof(max_align_t), 0);
        memset(p, 0xAB, size);
        if (prev)
            assert_true(p >= prev + prev_size || p + size <= prev);
        prev = p;
        prev_size = size;
    }
    gs_arena_fini(&a);
    gs_arena_fini(&a);   /* twice is fine */
}

/* Strings are copied; a block larger than a chunk gets its own chunk. */
static void test_strdup_and_large(void **state)
{
    (void)state;
    struct gs_arena a;
    gs_arena_init(&a);
    a.chunk_size = 64;
    char src[] = "team-a";
    char *s = gs_arena_strdup(&a, src);
    src[0] = 'X';
    assert_string_equal(s, "team-a");
    char *big = gs_arena_alloc(&a, 1000);   /* > 64-byte chunks */
    assert_non_null(big);
    memset(big, 1, 1000);
    assert_string_equal(s, "team-a");       /* earlier block untouched */
    gs_arena_fini(&a);
}

/* Reset forgets every block but keeps memory for reuse; fini frees all
 * (the counting hooks see no live block afterwards). */
static void test_reset_and_fini(void **state)
{
    (void)state;
    tu_oom_arm(0);
    struct gs_arena a;
    gs_arena_init(&a);
    a.chunk_size = 128;
    for (int i = 0; i < 10; i++)
        assert_non_null(gs_arena_alloc(&a, 100));   /* one chunk each */
    assert_int_equal(tu_oom_state.live, 10);
    gs_arena_reset(&a);
    assert_int_equal(tu_oom_state.live, 1);         /* the newest chunk is kept */
    long calls = tu_oom_state.calls;
    assert_non_null(gs_arena_alloc(&a, 100));       /* reuses it: no allocation */
    assert_int_equal(tu_oom_state.calls, calls);
    gs_arena_fini(&a);
    assert_int_equal(tu_oom_state.live, 0);
    tu_oom_disarm();
}

/* A failed chunk allocation returns NULL and the arena stays usable. */
static void test_alloc_failure(void **state)
{
    (void)state;
    tu_oom_arm(1);
    struct gs_arena a;
    gs_arena_init(&a);
    assert_null(gs_arena_alloc(&a, 10));
    assert_null(a.head);
    assert_non_null(gs_arena_strdup(&a, "ok"));
    gs_arena_fini(&a);
    assert_int_equal(tu_oom_state.live, 0);
    tu_oom_disarm();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_and_disjoint),
        cmocka_unit_test(test_strdup_and_large),
        cmocka_unit_test(test_reset_and_fini),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

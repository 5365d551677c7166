/* test_intmap.c - the int -> int map (intmap.h): put, get, replace,
 * delete inside probe runs, growth, and a long random churn checked
 * against a plain array model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/base/intmap.h"
#include "core/base/error.h"
#include "testutil.h"

static void test_basics(void **state)
{
    (void)state;
    struct gs_intmap *m = gs_intmap_create();
    assert_non_null(m);
    assert_int_equal(gs_intmap_get(m, 7), GS_ENOENT); /* empty: no table yet */
    assert_int_equal(gs_intmap_del(m, 7), GS_ENOENT);
    assert_int_equal(gs_intmap_put(m, -1, 3), GS_EINVAL);
    assert_int_equal(gs_intmap_put(m, 7, 70), 0);
    assert_int_equal(gs_intmap_put(m, 0, 5), 0);
    assert_int_equal(gs_intmap_put(m, 7, 71), 0); /* replaces */
    assert_int_equal(gs_intmap_count(m), 2);
    assert_int_equal(gs_intmap_get(m, 7), 71);
    assert_int_equal(gs_intmap_get(m, 0), 5);
    assert_int_equal(gs_intmap_get(m, -5), GS_ENOENT);
    assert_int_equal(gs_intmap_del(m, 7), 0);
    assert_int_equal(gs_intmap_get(m, 7), GS_ENOENT);
    assert_int_equal(gs_intmap_count(m), 1);
    gs_intmap_destroy(m);
    gs_intmap_destroy(NULL);
}

/* A half-full table (8 keys in the first 16 slots) has probe runs longer
 * than one; keys deleted one by one from anywhere in them leave every
 * survivor findable (the later entries of a run move back into the hole). */
static void test_delete_in_runs(void **state)
{
    (void)state;
    struct gs_intmap *m = gs_intmap_create();
    for (int k = 0; k < 8; k++)
        assert_int_equal(gs_intmap_put(m, k * 16, k), 0);
    const int order[] = { 3, 0, 7, 4, 1, 6, 2, 5 };
    for (int i = 0; i < 8; i++) {
        assert_int_equal(gs_intmap_del(m, order[i] * 16), 0);
        for (int k = 0; k < 8; k++) {
            int gone = 0;
            for (int j = 0; j <= i; j++)
                gone |= order[j] == k;
            assert_int_equal(gs_intmap_get(m, k * 16), gone ? GS_ENOENT : k);
        }
    }
    assert_int_equal(gs_intmap_count(m), 0);
    gs_intmap_destroy(m);
}

/* 100,000 random puts and deletes over 2,000 keys (a deterministic LCG)
 * against an array model; the table is sized by the most entries held. */
static void test_churn(void **state)
{
    (void)state;
    enum { N = 2000 };
    int model[N];
    for (int i = 0; i < N; i++)
        model[i] = -1;
    struct gs_intmap *m = gs_intmap_create();
    uint64_t x = 99;
    size_t n = 0, peak = 0;
    for (int r = 0; r < 100000; r++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((x >> 33) % N);
        if (model[k] < 0 || (x & 1)) {
            n += model[k] < 0;
            model[k] = r;
            assert_int_equal(gs_intmap_put(m, k * 1000003 % 2000000011, r), 0);
        } else {
            assert_int_equal(gs_intmap_del(m, k * 1000003 % 2000000011), 0);
            model[k] = -1;
            n--;
        }
        peak = n > peak ? n : peak;
        assert_int_equal(gs_intmap_count(m), n);
    }
    for (int k = 0; k < N; k++)
        assert_int_equal(gs_intmap_get(m, k * 1000003 % 2000000011),
                         model[k] >= 0 ? model[k] : GS_ENOENT);
    /* at most half full: slots <= 4 x peak (power of two above 2 x peak) */
    assert_true(gs_intmap_bytes(m) <= 64 + 4 * peak * 2 * sizeof(int));
    gs_intmap_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basics),
        cmocka_unit_test(test_delete_in_runs),
        cmocka_unit_test(test_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

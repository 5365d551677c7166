/* test_strtab.c - string interning (strtab.h): dense ids in insertion order,
 * lookups, growth past the initial hash size, copies, allocation failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/base/strtab.h"
#include "testutil.h"

/* Ids are 0, 1, 2, ... in insertion order; interning again returns the
 * existing id. */
static void test_ids_in_insertion_order(void **state)
{
    (void)state;
    struct gs_strtab *t = gs_strtab_create();
    assert_non_null(t);
    static const struct {
        const char *s;
        int id;
    } rows[] = {
        { "team-b", 0 }, { "team-a", 1 }, { "team-b", 0 }, { "", 2 },
        { "Team-a", 3 }, { "team-a", 1 }, { "", 2 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(gs_strtab_intern(t, rows[i].s), rows[i].id);
    assert_int_equal(gs_strtab_count(t), 4);
    assert_string_equal(gs_strtab_name(t, 0), "team-b");
    assert_string_equal(gs_strtab_name(t, 2), "");
    assert_int_equal(gs_strtab_find(t, "Team-a"), 3);
    gs_strtab_destroy(t);
    gs_strtab_destroy(NULL);
}

/* Lookups of absent strings and ids out of range. */
static void test_find_and_name_misses(void **state)
{
    (void)state;
    struct gs_strtab *t = gs_strtab_create();
    assert_int_equal(gs_strtab_find(t, "x"), GS_ENOENT);
    assert_null(gs_strtab_name(t, 0));
    assert_int_equal(gs_strtab_intern(t, "x"), 0);
    assert_int_equal(gs_strtab_find(t, "y"), GS_ENOENT);
    assert_null(gs_strtab_name(t, 1));
    assert_null(gs_strtab_name(t, -1));
    assert_int_equal(gs_strtab_count(t), 1);
    gs_strtab_destroy(t);
}

/* The table keeps its own copy of each string. */
static void test_strings_are_copied(void **state)
{
    (void)state;
    struct gs_strtab *t = gs_strtab_create();
    char buf[16] = "node-1";
    assert_int_equal(gs_strtab_intern(t, buf), 0);
    buf[5] = '2';
    assert_string_equal(gs_strtab_name(t, 0), "node-1");
    assert_int_equal(gs_strtab_intern(t, buf), 1);   /* "node-2" is new */
    assert_ptr_not_equal(gs_strtab_name(t, 1), buf);
    gs_strtab_destroy(t);
}

/* Thousands of strings: ids stay dense and stable across rehashes. */
static void test_growth(void **state)
{
    (void)state;
    struct gs_strtab *t = gs_strtab_create();
    char s[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(s, sizeof s, "job-%d", i);
        assert_int_equal(gs_strtab_intern(t, s), i);
    }
    assert_int_equal(gs_strtab_count(t), 5000);
    for (int i = 4999; i >= 0; i--) {
        snprintf(s, sizeof s, "job-%d", i);
        assert_int_equal(gs_strtab_find(t, s), i);
        assert_string_equal(gs_strtab_name(t, i), s);
    }
    assert_int_equal(gs_strtab_find(t, "job-5000"), GS_ENOENT);
    gs_strtab_destroy(t);
}

/* Interning under allocation failure returns GS_ENOMEM and leaves the table
 * as it was; the same call then succeeds with the next id. */
static void test_intern_oom(void **state)
{
    (void)state;
    char s[32];
    for (long n = 1;; n++) {
        tu_oom_arm(0);
        struct gs_strtab *t = gs_strtab_create();
        assert_non_null(t);
        /* 40 strings: crosses the first rehash (64 slots, half full) */
        for (int i = 0; i < 40; i++) {
            snprintf(s, sizeof s, "s%d", i);
            assert_int_equal(gs_strtab_intern(t, s), i);
        }
        tu_oom_state.calls = 0;
        tu_oom_state.fail_at = n;
        int rc = 0, i;
        for (i = 40; i < 80 && rc >= 0; i++) {
            snprintf(s, sizeof s, "s%d", i);
            rc = gs_strtab_intern(t, s);
        }
        int failed = tu_oom_state.failed > 0;
        tu_oom_pause();
        if (failed) {
            assert_int_equal(rc, GS_ENOMEM);
            i--;  /* the string that failed */
            assert_int_equal(gs_strtab_count(t), i);
            assert_int_equal(gs_strtab_find(t, s), GS_ENOENT);
            assert_int_equal(gs_strtab_intern(t, s), i);
        }
        for (int k = 0; k < gs_strtab_count(t); k++) {
            snprintf(s, sizeof s, "s%d", k);
            assert_int_equal(gs_strtab_find(t, s), k);
        }
        gs_strtab_destroy(t);
        tu_oom_end(n);
        if (!failed)
            break;
    }
}

/* Removal: the string is gone, its id goes to the next new string (the
 * last removed first), count stays the high-water mark, live the held. */
static void test_remove_reuses_ids(void **state)
{
    (void)state;
    struct gs_strtab *t = gs_strtab_create();
    assert_int_equal(gs_strtab_intern(t, "a"), 0);
    assert_int_equal(gs_strtab_intern(t, "b"), 1);
    assert_int_equal(gs_strtab_intern(t, "c"), 2);
    assert_int_equal(gs_strtab_remove(t, 0), 0);
    assert_int_equal(gs_strtab_remove(t, 2), 0);
    assert_int_equal(gs_strtab_remove(t, 2), GS_ENOENT); /* twice */
    assert_int_equal(gs_strtab_remove(t, 3), GS_ENOENT); /* never given */
    assert_int_equal(gs_strtab_remove(t, -1), GS_ENOENT);
    assert_null(gs_strtab_name(t, 0));
    assert_int_equal(gs_strtab_find(t, "a"), GS_ENOENT);
    assert_int_equal(gs_strtab_find(t, "b"), 1);
    assert_int_equal(gs_strtab_count(t), 3);
    assert_int_equal(gs_strtab_live(t), 1);
    assert_int_equal(gs_strtab_intern(t, "d"), 2); /* removed last */
    assert_int_equal(gs_strtab_intern(t, "a"), 0); /* then the first */
    assert_int_equal(gs_strtab_intern(t, "e"), 3); /* none free: a new id */
    assert_string_equal(gs_strtab_name(t, 0), "a");
    assert_string_equal(gs_strtab_name(t, 2), "d");
    assert_int_equal(gs_strtab_live(t), 4);
    gs_strtab_destroy(t);
}

/* Removal keeps every other string findable, whatever the probe runs:
 * 20,000 rounds of intern / remove on a live set of at most 300 strings,
 * checked against a plain array model (a deterministic LCG picks the
 * operations); the table's ids never exceed the peak of live strings. */
static void test_remove_churn(void **state)
{
    (void)state;
    struct gs_strtab *t = gs_strtab_create();
    enum { N = 300 };
    int id_of[N]; /* model: string "k<i>" -> id, -1 = absent */
    for (int i = 0; i < N; i++)
        id_of[i] = -1;
    uint64_t x = 12345;
    char s[32];
    int live = 0;
    for (int round = 0; round < 20000; round++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int i = (int)((x >> 33) % N);
        snprintf(s, sizeof s, "k%d", i);
        if (id_of[i] < 0) {
            id_of[i] = gs_strtab_intern(t, s);
            assert_true(id_of[i] >= 0);
            live++;
        } else {
            assert_int_equal(gs_strtab_remove(t, id_of[i]), 0);
            id_of[i] = -1;
            live--;
        }
        if (round % 997 == 0)
            for (int k = 0; k < N; k++) {
                snprintf(s, sizeof s, "k%d", k);
                assert_int_equal(gs_strtab_find(t, s), id_of[k] >= 0 ? id_of[k] : GS_ENOENT);
            }
    }
    assert_int_equal(gs_strtab_live(t), live);
    assert_true(gs_strtab_count(t) <= N);
    gs_strtab_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_in_insertion_order),
        cmocka_unit_test(test_find_and_name_misses),
        cmocka_unit_test(test_strings_are_copied),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_intern_oom),
        cmocka_unit_test(test_remove_reuses_ids),
        cmocka_unit_test(test_remove_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_timefmt.c - times for people (io/timefmt.c): ISO 8601 UTC, the
 * relative form and the rewriting of the engine's "t=N s" stamps.  The ISO
 * strings were derived with GNU date (`date -u -d @1796165445 +%FT%TZ` =
 * 2026-12-01T22:50:45Z), the relative ones by hand (3 h 25 min = 12300 s). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "io/timefmt.h"

#define T0 1796165445.0 /* 2026-12-01T22:50:45Z */

static void test_iso(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(gs_timefmt_iso(T0, b, sizeof b), "2026-12-01T22:50:45Z");
    assert_string_equal(gs_timefmt_iso(T0 + 0.999, b, sizeof b), "2026-12-01T22:50:45Z");
    assert_string_equal(gs_timefmt_iso(0, b, sizeof b), "1970-01-01T00:00:00Z");
    assert_string_equal(gs_timefmt_iso(-1, b, sizeof b), "-");
    assert_string_equal(gs_timefmt_iso(NAN, b, sizeof b), "-");
}

static void test_rel(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(gs_timefmt_rel(0.4, b, sizeof b), "now");
    assert_string_equal(gs_timefmt_rel(-0.9, b, sizeof b), "now");
    assert_string_equal(gs_timefmt_rel(40, b, sizeof b), "in 40 s");
    assert_string_equal(gs_timefmt_rel(-59.9, b, sizeof b), "59 s ago");
    assert_string_equal(gs_timefmt_rel(300, b, sizeof b), "in 5 min");
    assert_string_equal(gs_timefmt_rel(-12 * 60 - 30, b, sizeof b), "12 min ago");
    assert_string_equal(gs_timefmt_rel(3600, b, sizeof b), "in 1 h");
    assert_string_equal(gs_timefmt_rel(12300, b, sizeof b), "in 3 h 25 min");
    assert_string_equal(gs_timefmt_rel(-(3 * 86400 + 4 * 3600 + 59), b, sizeof b), "3 d 4 h ago");
    assert_string_equal(gs_timefmt_rel(2 * 86400, b, sizeof b), "in 2 d");
    assert_string_equal(gs_timefmt_rel(NAN, b, sizeof b), "-");
}

static void test_when(void **state)
{
    (void)state;
    char b[96];
    assert_string_equal(gs_timefmt_when(T0, T0 + 720, b, sizeof b),
                        "2026-12-01T22:50:45Z (12 min ago)");
    assert_string_equal(gs_timefmt_when(T0 + 3600, T0, b, sizeof b),
                        "2026-12-01T23:50:45Z (in 1 h)");
    assert_string_equal(gs_timefmt_when(-1, T0, b, sizeof b), "-");
}

static void test_text(void **state)
{
    (void)state;
    char b[256];
    /* the reservation detail of report_diag.c as the daemon's engine writes it */
    const char *r = "2 of them are held for reserved job big (from t=1796165445 s) and it "
                    "would still run then";
    assert_string_equal(gs_timefmt_text(r, T0 - 300, b, sizeof b),
                        "2 of them are held for reserved job big (from 2026-12-01T22:50:45Z "
                        "(in 5 min)) and it would still run then");
    assert_string_equal(gs_timefmt_text(r, -1, b, sizeof b),
                        "2 of them are held for reserved job big (from 2026-12-01T22:50:45Z) "
                        "and it would still run then");
    /* a simulated second (small) stays as it is; so does a word ending in t= */
    assert_string_equal(gs_timefmt_text("before t=3600 s", T0, b, sizeof b), "before t=3600 s");
    assert_string_equal(gs_timefmt_text("at=1796165445 s", T0, b, sizeof b), "at=1796165445 s");
    /* an ISO stamp gets its relative form, once */
    assert_string_equal(gs_timefmt_text("ends 2026-12-01T22:50:45Z.", T0 + 60, b, sizeof b),
                        "ends 2026-12-01T22:50:45Z (1 min ago).");
    assert_string_equal(gs_timefmt_text("2026-12-01T22:50:45.250Z (x)", T0, b, sizeof b),
                        "2026-12-01T22:50:45.250Z (x)");
    /* truncation keeps the string terminated */
    char s[8];
    assert_string_equal(gs_timefmt_text("from t=1796165445 s", T0, s, sizeof s), "from 20");
    assert_string_equal(gs_timefmt_text("abcdefghij", T0, s, sizeof s), "abcdefg");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iso),
        cmocka_unit_test(test_rel),
        cmocka_unit_test(test_when),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

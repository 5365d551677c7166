/* test_csv.c - the project's one CSV reader and writer (io/csv.h): the
 * RFC 4180 mode of native traces, the plain mode of the public traces,
 * line and column numbers, and write-then-read of any byte string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"

/* Read all records of `text` with `flags` into "f1|f2;f1;..." (records
 * separated by ';', each prefixed "L<line>:"). */
static int read_all(const char *text, int flags, char *out, size_t n, struct gs_error *err)
{
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    memcpy(buf, text, len);
    struct gs_csv c;
    int rc = gs_csv_open(&c, buf, len, "t.csv", flags, err);
    long line;
    out[0] = '\0';
    while (rc == 0 && (rc = gs_csv_next(&c, &line, err)) > 0) {
        size_t w = strlen(out);
        snprintf(out + w, n - w, "%sL%ld:", w ? ";" : "", line);
        for (size_t i = 0; i < c.nf; i++) {
            w = strlen(out);
            snprintf(out + w, n - w, "%s%s@%zu", i ? "|" : "", c.f[i], c.col[i]);
        }
        rc = 0;
    }
    gs_csv_close(&c);
    free(buf);
    return rc;
}

static void test_rfc4180_mode(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } rows[] = {
        /* quoted commas, doubled quotes (field 2 of line 2 starts at column
         * 8, after the 6 bytes of "x""y" and the comma), a line break inside
         * quotes (that record ends on line 3), CRLF, the blank line 4
         * skipped: z is on line 5 */
        { "a,\"b,c\"\r\n\"x\"\"y\",\"1\n2\"\r\n\r\nz, q \n", "L1:a@1|b,c@3;L2:x\"y@1|1\n2@8;L5:z@1|q@4" },
        /* a lone CR ends a record in this mode; blanks inside quotes kept */
        { "a\rb,\" s \"\n", "L1:a@1;L2:b@1| s @3" },
        /* a BOM is skipped and not counted as columns (as the AAIC reader
         * always did) */
        { "\xEF\xBB\xBF" "h1,h2\n", "L1:h1@1|h2@4" },
    };
    char out[256];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gs_error err = { 0 };
        assert_int_equal(read_all(rows[i].in, GS_CSV_QUOTES | GS_CSV_TRIM, out, sizeof out, &err), 0);
        assert_string_equal(out, rows[i].want);
    }
}

/* Plain mode (AAIC without trim would be odd; openb uses 0): quotes and a
 * lone CR are data, only LF or CRLF ends a record, nothing is trimmed. */
static void test_plain_mode(void **state)
{
    (void)state;
    char out[256];
    struct gs_error err = { 0 };
    assert_int_equal(read_all(" p\"1\rx ,2\r\nq\n", 0, out, sizeof out, &err), 0);
    assert_string_equal(out, "L1: p\"1\rx @1|2@9;L2:q@1");
    assert_int_equal(read_all(" a , b \n", GS_CSV_TRIM, out, sizeof out, &err), 0);
    assert_string_equal(out, "L1:a@2|b@6");
}

/* Must-fail rows: the message names the line. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        const char *msg;
    } rows[] = {
        { "a\n\"open\nb\n", 0, "t.csv:2: unterminated quoted field" },
        { "a\n\"x\" y,1\n", 0, "t.csv:2: text after a closing quote" },
        { "a\nb\0c\n", 6, "t.csv:2: NUL byte in the input" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t len = rows[i].len ? rows[i].len : strlen(rows[i].in);
        char *buf = malloc(len + 1);
        memcpy(buf, rows[i].in, len);
        struct gs_csv c;
        struct gs_error err = { 0 };
        long line;
        int rc = gs_csv_open(&c, buf, len, "t.csv", GS_CSV_QUOTES | GS_CSV_TRIM, &err);
        while (rc == 0 && (rc = gs_csv_next(&c, &line, &err)) > 0)
            rc = 0;
        assert_int_equal(rc, GS_EINVAL);
        assert_string_equal(err.msg, rows[i].msg);
        gs_csv_close(&c);
        free(buf);
    }
}

/* Every byte string written with gs_csv_put reads back as itself. */
static void test_write_read_back(void **state)
{
    (void)state;
    static const char *const vals[] = { "plain", "a,b", "q\"uote", " pad ", "line\nbreak",
                                        "cr\r", "", "\"", "x\r\ny" };
    size_t n = sizeof vals / sizeof vals[0];
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        gs_csv_put(f, vals[i]);
    }
    fputc('\n', f);
    fclose(f);
    char *buf = realloc(text, len + 1);
    struct gs_csv c;
    struct gs_error err = { 0 };
    long line;
    assert_int_equal(gs_csv_open(&c, buf, len, "w.csv", GS_CSV_QUOTES | GS_CSV_TRIM, &err), 0);
    assert_int_equal(gs_csv_next(&c, &line, &err), 1);
    assert_int_equal(c.nf, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(c.f[i], vals[i]);
    assert_int_equal(gs_csv_next(&c, &line, &err), 0);
    gs_csv_close(&c);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4180_mode),
        cmocka_unit_test(test_plain_mode),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_write_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

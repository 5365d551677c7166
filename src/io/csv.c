/* csv.c - quoting of CSV output fields (see csv.h). */
#include "io/csv.h"

#include <string.h>

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

int gs_csv_needs_quotes(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (is_blank(s[0]) || is_blank(s[n - 1]))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            return 1;
    return 0;
}

void gs_csv_put_n(FILE *f, const char *s, size_t n)
{
    if (!gs_csv_needs_quotes(s, n)) {
        fwrite(s, 1, n, f);
        return;
    }
    putc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            putc('"', f);
        putc(s[i], f);
    }
    putc('"', f);
}

void gs_csv_put(FILE *f, const char *s)
{
    if (s)
        gs_csv_put_n(f, s, strlen(s));
}

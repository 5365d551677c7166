/* fuzz_names.c - libFuzzer target for the name checks, the reserved
 * environment names and the escaping of io/names.c.  The first byte picks
 * the kind (and, for text, the limit); the rest is the name.  Invariants:
 * an accepted id or account name is 1..max bytes of [A-Za-z0-9._-] not
 * starting with '.'; accepted text has no control byte; a refusal says
 * why; the escaped copy is NUL-terminated, within its buffer and holds no
 * control byte, and when it fits it unescapes back to the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Undo gs_name_escape; returns the length written to out. */
static size_t unescape(const char *s, char *out)
{
    size_t w = 0;
    while (*s) {
        if (s[0] == '\\' && s[1] == 'x' && hexval(s[2]) >= 0 && hexval(s[3]) >= 0) {
            out[w++] = (char)(hexval(s[2]) * 16 + hexval(s[3]));
            s += 4;
        } else {
            out[w++] = *s++;
        }
    }
    return w;
}

static void check_name(const char *s, size_t len, int kind, size_t max)
{
    char why[96];
    why[0] = '\0';
    int rc = gs_name_check(s, len, kind, max, why, sizeof why);
    if (rc < 0) {
        if (rc != -1 || !why[0])
            abort();
        return;
    }
    size_t lim = kind == GS_NAME_ID ? GS_NAME_ID_MAX
                 : kind == GS_NAME_ACCOUNT ? GS_NAME_ACCOUNT_MAX : max;
    if (rc != 0 || len > lim)
        abort();
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            abort();
        if (kind != GS_NAME_TEXT && !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                                      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                                      c == '-'))
            abort();
    }
    if (kind != GS_NAME_TEXT && (len == 0 || s[0] == '.'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int kind = data[0] % 3;
    size_t max = (size_t)(data[0] >> 2) * 4;
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    check_name(s, size - 1, kind, max);
    /* as a C string (up to the first NUL) */
    size_t n = strlen(s);
    (void)gs_name_env_reserved(s);
    char small[17], *big = malloc(4 * n + 1), *back = malloc(n + 1);
    if (big && back) {
        gs_name_escape(s, small, sizeof small);
        gs_name_escape(s, big, 4 * n + 1);
        if (strlen(small) >= sizeof small || strlen(big) > 4 * n)
            abort();
        for (const char *p = big; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                abort();
        if (unescape(big, back) != n || memcmp(back, s, n) != 0)
            abort();
    }
    free(big);
    free(back);
    free(s);
    return 0;
}

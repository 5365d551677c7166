/* names.c - name checks, reserved environment names, escaping (names.h). */
#include "io/names.h"

#include <stdio.h>
#include <string.h>

static int safe_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

static int bad_char(const char *s, size_t i, char *why, size_t n)
{
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f)
        snprintf(why, n, "character '%c' at byte %zu is not allowed", (char)c, i);
    else
        snprintf(why, n, "byte 0x%02x at byte %zu is not allowed", c, i);
    return -1;
}

int gs_name_check(const char *s, size_t len, int kind, size_t max, char *why, size_t n)
{
    if (kind == GS_NAME_ID || kind == GS_NAME_ACCOUNT)
        max = kind == GS_NAME_ID ? GS_NAME_ID_MAX : GS_NAME_ACCOUNT_MAX;
    if (len > max) {
        snprintf(why, n, "longer than %zu bytes (%zu)", max, len);
        return -1;
    }
    if (kind == GS_NAME_TEXT) {
        for (size_t i = 0; i < len; i++)
            if (is_control((unsigned char)s[i]))
                return bad_char(s, i, why, n);
        return 0;
    }
    if (len == 0) {
        snprintf(why, n, "empty");
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        if (!safe_char((unsigned char)s[i]))
            return bad_char(s, i, why, n);
    if (s[0] == '.' || (kind == GS_NAME_ACCOUNT && s[0] == '-')) {
        snprintf(why, n, "may not start with '%c'", s[0]);
        return -1;
    }
    return 0;
}

int gs_name_env_reserved(const char *name)
{
    static const char *const exact[] = { "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
                                         "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                                         "GPU_DEVICE_ORDINAL" };
    static const char *const prefix[] = { "GPUSCHED_", "SLURM_", "SBATCH_" };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(name, exact[i]))
            return 1;
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (!strncmp(name, prefix[i], strlen(prefix[i])))
            return 1;
    return 0;
}

char *gs_name_escape(const char *s, char *out, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t w = 0;
    if (n == 0)
        return out;
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        int esc = is_control(c) || c == '\\';
        if (w + (esc ? 4 : 1) >= n)
            break;
        if (esc) {
            out[w++] = '\\';
            out[w++] = 'x';
            out[w++] = hex[c >> 4];
            out[w++] = hex[c & 15];
        } else {
            out[w++] = (char)c;
        }
    }
    out[w] = '\0';
    return out;
}

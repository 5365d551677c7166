/* slurm_util.c - Slurm's text forms (slurm_util.h). */
#define _DEFAULT_SOURCE /* strncasecmp */
#include "io/slurm_util.h"
#include "core/base/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_DAYS 100000000LL   /* keeps milliseconds far from INT64_MAX */
#define MAX_HOSTS 1000000
#define NAME_MAX_LEN 255

/* A run of decimal digits (at least one, at most 12) at *p. */
static int digits(const char **p, int64_t *v)
{
    const char *s = *p;
    int64_t x = 0;
    int n = 0;
    while (isdigit((unsigned char)*s) && n < 13) {
        x = x * 10 + (*s++ - '0');
        n++;
    }
    if (n == 0 || n > 12)
        return -1;
    *v = x;
    *p = s;
    return 0;
}

/* The largest duration any reader accepts: 9e12 s, as gs_parse_duration
 * (every field is at most 12 digits, so the sum cannot overflow first). */
#define MAX_MS ((int64_t)9000000000000000)

/* [D-]a[:b[:c]][.fff] into days and up to three fields. */
static int split_duration(const char *t, int64_t *days, int64_t f[3], int *nf, int64_t *frac_ms,
                          int *has_day)
{
    const char *p = t;
    int64_t v;
    *days = 0;
    *nf = 0;
    *frac_ms = 0;
    *has_day = 0;
    if (digits(&p, &v) < 0)
        return -1;
    if (*p == '-') {
        *days = v;
        *has_day = 1;
        p++;
        if (digits(&p, &v) < 0)
            return -1;
    }
    f[(*nf)++] = v;
    while (*p == ':' && *nf < 3) {
        p++;
        if (digits(&p, &v) < 0)
            return -1;
        f[(*nf)++] = v;
    }
    if (*p == '.') {
        int64_t scale = 100;
        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        for (; isdigit((unsigned char)*p); p++, scale /= 10)
            *frac_ms += scale > 0 ? (*p - '0') * scale : 0;
    }
    return *p == '\0' && *days <= MAX_DAYS ? 0 : -1;
}

/* Seconds of the fields: with days, D-HH[:MM[:SS]]; without, HH:MM:SS,
 * MM:SS or MM (minutes). */
static int64_t field_seconds(int64_t days, const int64_t f[3], int nf, int has_day)
{
    int64_t s;
    if (has_day)
        s = f[0] * 3600 + (nf > 1 ? f[1] * 60 : 0) + (nf > 2 ? f[2] : 0);
    else if (nf == 3)
        s = f[0] * 3600 + f[1] * 60 + f[2];
    else if (nf == 2)
        s = f[0] * 60 + f[1];
    else
        s = f[0] * 60;
    return days * 86400 + s;
}

int gs_slurm_parse_duration(const char *t, gs_time *ms)
{
    int64_t days, f[3], frac;
    int nf, has_day;
    if (!t || (!strchr(t, ':') && !strchr(t, '-')))
        return GS_EINVAL;
    if (split_duration(t, &days, f, &nf, &frac, &has_day) < 0 || (frac && nf < 2 && !has_day))
        return GS_EINVAL;
    *ms = field_seconds(days, f, nf, has_day) * 1000 + frac;
    return *ms <= MAX_MS ? 0 : GS_EINVAL;
}

int gs_slurm_parse_limit(const char *t, gs_time *ms)
{
    static const char *const none[] = { "", "UNLIMITED", "INFINITE", "Partition_Limit",
                                        "NONE", NULL };
    for (int i = 0; none[i]; i++) {
        if (t && strcasecmp(t, none[i]) == 0) {
            *ms = 0;
            return 1;
        }
    }
    int64_t days, f[3], frac;
    int nf, has_day;
    if (!t || split_duration(t, &days, f, &nf, &frac, &has_day) < 0 || frac)
        return GS_EINVAL;
    *ms = field_seconds(days, f, nf, has_day) * 1000;
    return *ms <= MAX_MS ? 0 : GS_EINVAL;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int gs_slurm_parse_time(const char *t, int64_t *unix_s)
{
    /* Local time -> UTC offset, cached per hour: mktime re-reads the zone
     * on every call, which dominated importing a million sacct rows.
     * Zone offsets change on hour boundaries. */
    /* mktime per distinct hour only (sacct prints millions of times); per
     * thread, so concurrent readers never share it */
    static _Thread_local int64_t cached_hour = INT64_MIN, cached_offset;
    if (!t || !*t || strcmp(t, "Unknown") == 0 || strcmp(t, "None") == 0 ||
        strcmp(t, "0") == 0)
        return 1;
    int y, mo, d, h, mi, se, n = 0;
    /* the field widths, the %n end check and the ranges below reject what
     * sscanf alone would let through */
    if (sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || // NOLINT(cert-err34-c)
        t[n] != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        se > 60 || y < 1970 || h < 0 || mi < 0 || se < 0)
        return GS_EINVAL;
    int64_t hour = (days_from_civil(y, mo, d) * 24 + h); /* as if UTC */
    if (hour != cached_hour) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        tm.tm_year = y - 1900;
        tm.tm_mon = mo - 1;
        tm.tm_mday = d;
        tm.tm_hour = h;
        tm.tm_isdst = -1;
        time_t s = mktime(&tm);
        if (s == (time_t)-1)
            return GS_EINVAL;
        cached_offset = (int64_t)s - hour * 3600;
        cached_hour = hour;
    }
    *unix_s = hour * 3600 + cached_offset + (int64_t)mi * 60 + se;
    return 0;
}

struct expand {
    int (*fn)(const char *name, void *arg);
    void *arg;
    int count;
};

/* Expand `pat` (one host expression, no top-level comma) with the part
 * already built in `out` (length `len`). */
static int expand_one(struct expand *x, const char *pat, char *out, size_t len)
{
    const char *lb = strchr(pat, '[');
    if (!lb) {
        size_t n = strlen(pat);
        if (len + n > NAME_MAX_LEN || len + n == 0)
            return GS_EINVAL;
        memcpy(out + len, pat, n + 1);
        if (++x->count > MAX_HOSTS)
            return GS_EINVAL;
        int rc = x->fn(out, x->arg);
        return rc < 0 ? rc : 0;
    }
    const char *rb = strchr(lb, ']');
    size_t pre = (size_t)(lb - pat);
    if (!rb || len + pre > NAME_MAX_LEN || memchr(lb + 1, '[', (size_t)(rb - lb - 1)))
        return GS_EINVAL;
    memcpy(out + len, pat, pre);
    for (const char *p = lb + 1; p < rb;) {
        const char *q = p;
        int64_t a, b;
        if (digits(&q, &a) < 0)
            return GS_EINVAL;
        int width = (int)(q - p);
        b = a;
        if (*q == '-') {
            q++;
            if (digits(&q, &b) < 0 || b < a || b - a > MAX_HOSTS)
                return GS_EINVAL;
        }
        if (q != rb && *q != ',')
            return GS_EINVAL;
        for (int64_t v = a; v <= b; v++) {
            char num[32];
            int nn = snprintf(num, sizeof num, "%0*lld", width, (long long)v);
            if (len + pre + (size_t)nn > NAME_MAX_LEN)
                return GS_EINVAL;
            memcpy(out + len + pre, num, (size_t)nn);
            int rc = expand_one(x, rb + 1, out, len + pre + (size_t)nn);
            if (rc < 0)
                return rc;
        }
        p = q == rb ? q : q + 1;
    }
    return 0;
}

int gs_slurm_hostlist_expand(const char *list, int (*fn)(const char *name, void *arg),
                             void *arg)
{
    struct expand x = { fn, arg, 0 };
    char item[1024], out[NAME_MAX_LEN + 1];
    if (!list)
        return 0;
    const char *p = list;
    while (*p) {
        /* one item: up to a comma outside brackets */
        size_t n = 0;
        int depth = 0;
        for (; p[n] && (depth > 0 || p[n] != ','); n++) {
            depth += p[n] == '[' ? 1 : p[n] == ']' ? -1 : 0;
            if (depth < 0 || depth > 1)
                return GS_EINVAL;
        }
        if (depth != 0 || n == 0 || n >= sizeof item)
            return GS_EINVAL;
        memcpy(item, p, n);
        item[n] = '\0';
        int rc = expand_one(&x, item, out, 0);
        if (rc < 0)
            return rc;
        p += n;
        if (*p == ',' && *++p == '\0')
            return GS_EINVAL;
    }
    return x.count;
}

/* A non-negative count at p up to an end character in `ends`. */
static int64_t count_at(const char *p, const char *ends)
{
    const char *q = p;
    int64_t v;
    if (digits(&q, &v) < 0 || (*q && !strchr(ends, *q)))
        return GS_EINVAL;
    return v;
}

int64_t gs_slurm_tres_gpus(const char *tres)
{
    int64_t untyped = -1, typed = 0;
    for (const char *p = tres; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (n >= 8 && strncmp(p, "gres/gpu", 8) == 0 && eq) {
            int64_t v = count_at(eq + 1, ",");
            if (v < 0)
                return GS_EINVAL;
            if (eq == p + 8)
                untyped = v;
            else if (p[8] == ':')
                typed += v;
        }
        p = end ? end + 1 : p + n;
    }
    return untyped >= 0 ? untyped : typed;
}

int64_t gs_slurm_gres_gpus(const char *gres)
{
    int64_t total = 0;
    if (!gres || strcmp(gres, "(null)") == 0 || strcmp(gres, "N/A") == 0)
        return 0;
    for (const char *p = gres; *p;) {
        size_t n = 0;
        int depth = 0;
        for (; p[n] && (depth > 0 || p[n] != ','); n++)
            depth += p[n] == '(' ? 1 : p[n] == ')' ? -1 : 0;
        const char *e = p;
        if (strncmp(e, "gres:", 5) == 0 || strncmp(e, "gres/", 5) == 0)
            e += 5;
        if (strncmp(e, "gpu", 3) == 0 && (e[3] == ':' || e[3] == '=')) {
            /* the count is the last ':'/'='-separated field before '(' */
            const char *stop = memchr(e, '(', n - (size_t)(e - p));
            const char *lim = stop ? stop : p + n, *c = lim;
            while (c > e && c[-1] != ':' && c[-1] != '=')
                c--;
            char buf[24];
            size_t len = (size_t)(lim - c);
            if (len == 0 || len >= sizeof buf)
                return GS_EINVAL;
            memcpy(buf, c, len);
            buf[len] = '\0';
            int64_t v = count_at(buf, "");
            if (v < 0)
                return GS_EINVAL;
            total += v;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return total;
}

int gs_slurm_gres_idx(const char *detail, uint64_t *mask)
{
    uint64_t m = 0;
    int found = 0;
    for (const char *p = detail ? strstr(detail, "IDX:") : NULL; p; p = strstr(p, "IDX:")) {
        p += 4;
        found = 1;
        if (strncmp(p, "N/A", 3) == 0) /* no GPU of this type on the node */
            continue;
        while (*p && *p != ')') {
            int64_t a, b;
            if (digits(&p, &a) < 0)
                return GS_EINVAL;
            b = a;
            if (*p == '-') {
                p++;
                if (digits(&p, &b) < 0)
                    return GS_EINVAL;
            }
            if (b < a || b > 63)
                return GS_EINVAL;
            for (int64_t i = a; i <= b; i++)
                m |= 1ULL << i;
            if (*p == ',')
                p++;
            else if (*p != ')')
                return GS_EINVAL;
        }
    }
    if (!found)
        return GS_EINVAL;
    *mask = m;
    return 0;
}

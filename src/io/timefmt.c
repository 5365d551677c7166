/* timefmt.c - ISO 8601 and relative times for people (timefmt.h). */
#define _GNU_SOURCE /* timegm */
#include "io/timefmt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EPOCH_MIN 100000000.0 /* 1973: smaller "t=N s" stamps are simulated seconds */

const char *gs_timefmt_iso(double epoch, char *buf, size_t size)
{
    struct tm tm;
    time_t t = (time_t)floor(epoch);
    if (!(epoch >= 0) || !gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, size, "-");
    return buf;
}

const char *gs_timefmt_rel(double delta, char *buf, size_t size)
{
    if (isnan(delta)) {
        snprintf(buf, size, "-");
        return buf;
    }
    double a = fabs(delta);
    if (a < 1) {
        snprintf(buf, size, "now");
        return buf;
    }
    long long s = (long long)a;
    char amt[32];
    if (s < 60)
        snprintf(amt, sizeof amt, "%lld s", s);
    else if (s < 3600)
        snprintf(amt, sizeof amt, "%lld min", s / 60);
    else if (s < 86400 && s / 60 % 60)
        snprintf(amt, sizeof amt, "%lld h %lld min", s / 3600, s / 60 % 60);
    else if (s < 86400)
        snprintf(amt, sizeof amt, "%lld h", s / 3600);
    else if (s / 3600 % 24)
        snprintf(amt, sizeof amt, "%lld d %lld h", s / 86400, s / 3600 % 24);
    else
        snprintf(amt, sizeof amt, "%lld d", s / 86400);
    snprintf(buf, size, delta > 0 ? "in %s" : "%s ago", amt);
    return buf;
}

const char *gs_timefmt_when(double epoch, double now, char *buf, size_t size)
{
    char iso[32], rel[32];
    if (!(epoch >= 0)) {
        snprintf(buf, size, "-");
        return buf;
    }
    snprintf(buf, size, "%s (%s)", gs_timefmt_iso(epoch, iso, sizeof iso),
             gs_timefmt_rel(epoch - now, rel, sizeof rel));
    return buf;
}

/* The number of the n digits at p (checked digits). */
static int digits(const char *p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (p[i] - '0');
    return v;
}

/* The length of an ISO stamp "YYYY-MM-DDTHH:MM:SS[.fff]Z" at p (0: none);
 * its seconds in *epoch. */
static size_t iso_at(const char *p, double *epoch)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    size_t i;
    for (i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !isdigit((unsigned char)p[i]) : p[i] != shape[i])
            return 0;
    if (p[i] == '.')
        for (i++; isdigit((unsigned char)p[i]); i++)
            ;
    if (p[i] != 'Z')
        return 0;
    struct tm tm = { 0 };
    tm.tm_year = digits(p, 4) - 1900;
    tm.tm_mon = digits(p + 5, 2) - 1;
    tm.tm_mday = digits(p + 8, 2);
    tm.tm_hour = digits(p + 11, 2);
    tm.tm_min = digits(p + 14, 2);
    tm.tm_sec = digits(p + 17, 2);
    *epoch = (double)timegm(&tm);
    return i + 1;
}

/* The length of a stamp "t=N s" at p whose N is an epoch (0: none). */
static size_t stamp_at(const char *p, double *epoch)
{
    if (p[0] != 't' || p[1] != '=' || !isdigit((unsigned char)p[2]))
        return 0;
    char *end;
    double v = strtod(p + 2, &end);
    if (strncmp(end, " s", 2) != 0 || isalnum((unsigned char)end[2]) || v < EPOCH_MIN)
        return 0;
    *epoch = v;
    return (size_t)(end + 2 - p);
}

const char *gs_timefmt_text(const char *text, double now, char *out, size_t size)
{
    size_t n = 0;
    if (!size)
        return out;
    out[0] = '\0';
    for (const char *p = text; *p && n + 1 < size;) {
        double t;
        size_t len;
        char buf[96];
        int at_word = p == text || !isalnum((unsigned char)p[-1]);
        if (at_word && (len = stamp_at(p, &t)) > 0) {
            if (now >= 0)
                gs_timefmt_when(t, now, buf, sizeof buf);
            else
                gs_timefmt_iso(t, buf, sizeof buf);
        } else if (now >= 0 && at_word && (len = iso_at(p, &t)) > 0 &&
                   strncmp(p + len, " (", 2) != 0) {
            char rel[32];
            snprintf(buf, sizeof buf, "%.*s (%s)", (int)len, p,
                     gs_timefmt_rel(t - now, rel, sizeof rel));
        } else {
            out[n++] = *p++;
            out[n] = '\0';
            continue;
        }
        int w = snprintf(out + n, size - n, "%s", buf);
        n = w < 0 || (size_t)w >= size - n ? size - 1 : n + (size_t)w;
        p += len;
    }
    return out;
}

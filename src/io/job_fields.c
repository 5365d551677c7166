/* job_fields.c - trace column table: text <-> job spec fields. */
#include "io/job_fields.h"
#include "io/slurm_util.h"
#include "core/policy/policy.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a column's text is read. */
enum kind {
    K_ID,       /* required non-empty string */
    K_SUBMIT,   /* seconds or ISO-8601 */
    K_DURATION, /* the true run time (row->duration) */
    K_COUNT,    /* int 0..MAX_GPUS */
    K_SHARE,    /* fraction of a GPU -> milli */
    K_GB,       /* GB -> int64 MiB */
    K_STR,      /* optional string, empty = NULL */
    K_TOPO,     /* enum gs_topo */
    K_INT,      /* int, may be negative */
    K_CLASS,    /* enum gs_job_class */
    K_TIME,     /* seconds or duration string -> gs_time */
    K_CORES,    /* cores -> int64 milli-cores */
    K_FRAC,     /* fraction in (0, 1] -> int per mille */
};

struct col {
    const char *name;
    enum kind kind;
    size_t off;         /* field offset in struct gs_job_spec */
    int64_t def;        /* default for numeric fields */
};

#define OFF(f) offsetof(struct gs_job_spec, f)

static const struct col cols[GS_JCOL_COUNT] = {
    [GS_JCOL_ID] = { "id", K_ID, OFF(id), 0 },
    [GS_JCOL_SUBMIT] = { "submit", K_SUBMIT, OFF(submit), 0 },
    [GS_JCOL_DURATION] = { "duration", K_DURATION, 0, 0 },
    [GS_JCOL_GPUS] = { "gpus", K_COUNT, OFF(gpus), 1 },
    [GS_JCOL_GPU_SHARE] = { "gpu_share", K_SHARE, OFF(milli), GS_MILLI_GPU },
    [GS_JCOL_GPU_MEM_GB] = { "gpu_mem_gb", K_GB, OFF(mem_mib), -1 },
    [GS_JCOL_MIG] = { "mig", K_STR, OFF(mig), 0 },
    [GS_JCOL_TOPOLOGY] = { "topology", K_TOPO, OFF(topology), GS_TOPO_AUTO },
    [GS_JCOL_TEAM] = { "team", K_STR, OFF(team), 0 },
    [GS_JCOL_USER] = { "user", K_STR, OFF(user), 0 },
    [GS_JCOL_NAME] = { "name", K_STR, OFF(name), 0 },
    [GS_JCOL_PRIORITY] = { "priority", K_INT, OFF(priority), 0 },
    [GS_JCOL_CLASS] = { "class", K_CLASS, OFF(klass), GS_CLASS_TRAIN },
    [GS_JCOL_TIME_LIMIT] = { "time_limit", K_TIME, OFF(time_limit), 0 },
    [GS_JCOL_CKPT_INTERVAL] = { "checkpoint_interval", K_TIME, OFF(ckpt_interval), 0 },
    [GS_JCOL_CKPT_COST] = { "checkpoint_cost", K_TIME, OFF(ckpt_cost), 0 },
    [GS_JCOL_RESTORE_COST] = { "restore_cost", K_TIME, OFF(restore_cost), -1 },
    [GS_JCOL_QUEUE] = { "queue", K_STR, OFF(queue), 0 },
    [GS_JCOL_GPU_MODEL] = { "gpu_model", K_STR, OFF(gpu_model), 0 },
    [GS_JCOL_CPU] = { "cpu", K_CORES, OFF(cpu_milli), 0 },
    [GS_JCOL_HOST_MEM_GB] = { "host_mem_gb", K_GB, OFF(host_mem_mib), 0 },
    [GS_JCOL_MEM_BW] = { "mem_bw", K_FRAC, OFF(mem_bw), 0 },
};

static const char *const topo_names[] = { "auto", "domain", "node", "any", NULL };
static const char *const class_names[] = { "train", "infer", NULL };

#define MAX_GPUS 1000000      /* more GPUs than any cluster; keeps ints small */
#define MAX_PRIORITY 1000000000
#define MAX_GB 1e9            /* 1e9 GB * 1024 fits int64 comfortably */
#define MAX_CORES 1e9
#define MAX_SECONDS 9.0e12    /* 9e15 ms, the bound gs_parse_duration uses */
#define SHOW 40               /* characters of a bad value quoted in messages */

void gs_job_row_init(struct gs_job_row *r)
{
    gs_job_spec_init(&r->spec);
    r->duration = GS_TIME_NONE;
    r->submit_kind = GS_SUBMIT_NONE;
}

int gs_jcol_find(const char *name, size_t len)
{
    for (int i = 0; i < GS_JCOL_COUNT; i++)
        if (strlen(cols[i].name) == len && memcmp(cols[i].name, name, len) == 0)
            return i;
    return GS_ENOENT;
}

const char *gs_jcol_name(int col)
{
    return col >= 0 && col < GS_JCOL_COUNT ? cols[col].name : "?";
}

/* A decimal number (no hex, inf or nan, which strtod would also take). */
static int parse_double(const char *t, double *out)
{
    if (!*t || strspn(t, "0123456789.eE+-") != strlen(t))
        return GS_EINVAL;
    char *end;
    errno = 0;
    double d = strtod(t, &end);
    if (*end || errno == ERANGE || !isfinite(d))
        return GS_EINVAL;
    *out = d;
    return 0;
}

static int parse_int(const char *t, long long min, long long max, long long *out)
{
    const char *p = (*t == '-' || *t == '+') ? t + 1 : t;
    if (!*p || strspn(p, "0123456789") != strlen(p))
        return GS_EINVAL;
    errno = 0;
    long long v = strtoll(t, NULL, 10);
    if (errno == ERANGE || v < min || v > max)
        return GS_ERANGE;
    *out = v;
    return 0;
}

/* Plain decimal seconds ("90", "1.5", "0.001") to milliseconds with
 * integer arithmetic, so what the writer prints reads back exactly even
 * near the 9e15 ms limit, where a double has no millisecond precision.
 * Digits past the third decimal round half up.  GS_EINVAL for anything
 * else (exponents, units, signs), which callers then try other ways. */
static int parse_ms(const char *t, int64_t *out)
{
    const char *p = t;
    int64_t sec = 0, ms = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (sec > (int64_t)(MAX_SECONDS / 10))
            return GS_EINVAL;
        sec = sec * 10 + (*p - '0');
    }
    int nint = (int)(p - t), nfrac = 0;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, nfrac++) {
            if (nfrac < 3)
                ms = ms * 10 + (*p - '0');
            else if (nfrac == 3 && *p >= '5')
                ms++;
        }
    }
    if (*p || nint + nfrac == 0 || sec > (int64_t)MAX_SECONDS)
        return GS_EINVAL;
    for (int i = nfrac; i < 3; i++)
        ms *= 10;
    if (sec * 1000 + ms > (int64_t)(MAX_SECONDS * 1000))
        return GS_EINVAL;   /* 9e12 s plus a rounded-up fraction */
    *out = sec * 1000 + ms;
    return 0;
}

/* A duration: plain seconds (exact), or gs_parse_duration's forms (30m). */
/* Seconds, 30s/30m/4h/2d, or a Slurm duration (1-02:03:04, 02:03:04,
 * 03:04; io/slurm_util.h). */
static int parse_time(const char *t, gs_time *out)
{
    if (parse_ms(t, out) == 0 || gs_parse_duration(t, out) == 0)
        return 0;
    return gs_slurm_parse_duration(t, out);
}

static int bad(struct gs_error *err, int col, const char *t, const char *what)
{
    return gs_errorf(err, GS_EINVAL, "%s: '%.*s%s' is not %s", cols[col].name, SHOW, t,
                     strlen(t) > SHOW ? "..." : "", what);
}

static int pick(const char *const *names, const char *t)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], t) == 0)
            return i;
    return -1;
}

static int set_submit(struct gs_job_row *r, int col, const char *t, struct gs_error *err)
{
    double s;
    int64_t ms;
    if (t[0] >= '0' && t[0] <= '9' && strlen(t) >= 5 && t[4] == '-') {
        if (gs_parse_iso8601(t, &ms) < 0)
            return bad(err, col, t, "an ISO-8601 time (2017-07-01T00:00:00Z)");
        r->spec.submit = ms;
        r->submit_kind = GS_SUBMIT_ISO;
        return 0;
    }
    if (parse_ms(t, &ms) == 0) {
        r->spec.submit = ms;
    } else {
        if (parse_double(t, &s) < 0 || s < 0 || s > MAX_SECONDS)
            return bad(err, col, t, "a time in seconds >= 0 or ISO-8601");
        r->spec.submit = gs_time_from_sec(s);
    }
    r->submit_kind = GS_SUBMIT_SECONDS;
    return 0;
}

/* Numeric columns that hold a double scaled to an integer field. */
static int set_scaled(struct gs_job_row *r, int col, const char *t, struct gs_error *err)
{
    const struct col *c = &cols[col];
    double x;
    int rc = parse_double(t, &x);
    switch (c->kind) {
    case K_SHARE:
        if (rc < 0 || !(x > 0 && x <= 1))
            return bad(err, col, t, "a GPU fraction in (0, 1]");
        int milli = (int)lround(x * GS_MILLI_GPU);
        r->spec.milli = milli < 1 ? 1 : milli;
        return 0;
    case K_GB:
        if (rc < 0 || x < 0 || x > MAX_GB)
            return bad(err, col, t, "a size in GB >= 0");
        *(int64_t *)((char *)&r->spec + c->off) = llround(x * 1024);
        return 0;
    case K_CORES:
        if (rc < 0 || x < 0 || x > MAX_CORES)
            return bad(err, col, t, "a number of cores >= 0");
        *(int64_t *)((char *)&r->spec + c->off) = llround(x * 1000);
        return 0;
    case K_FRAC: {
        if (rc < 0 || !(x > 0 && x <= 1))
            return bad(err, col, t, "a fraction in (0, 1]");
        long v = lround(x * 1000);
        *(int *)((char *)&r->spec + c->off) = v < 1 ? 1 : (int)v;
        return 0;
    }
    default:
        return bad(err, col, t, "handled");
    }
}

static int set_int(struct gs_job_row *r, int col, const char *t, struct gs_error *err)
{
    const struct col *c = &cols[col];
    long long v;
    if (c->kind == K_COUNT) {
        if (parse_int(t, 0, MAX_GPUS, &v) < 0)
            return bad(err, col, t, "a GPU count (integer >= 0)");
    } else if (parse_int(t, -MAX_PRIORITY, MAX_PRIORITY, &v) < 0) {
        return bad(err, col, t, "an integer in [-1e9, 1e9]");
    }
    *(int *)((char *)&r->spec + c->off) = (int)v;
    return 0;
}

/* Offset of the first byte of `t` that does not belong to a well-formed
 * UTF-8 sequence (RFC 3629: no overlongs, surrogates or code points above
 * U+10FFFF), or -1 when all of it is valid. */
long gs_utf8_invalid_at(const char *t)
{
    const unsigned char *s = (const unsigned char *)t, *p = s;
    while (*p) {
        int n = *p < 0x80 ? 0 : *p >= 0xC2 && *p <= 0xDF ? 1 : *p >= 0xE0 && *p <= 0xEF ? 2
                : *p >= 0xF0 && *p <= 0xF4 ? 3 : -1;
        if (n < 0)
            return (long)(p - s);
        unsigned lo = 0x80, hi = 0xBF;
        if (*p == 0xE0) lo = 0xA0;
        if (*p == 0xED) hi = 0x9F;
        if (*p == 0xF0) lo = 0x90;
        if (*p == 0xF4) hi = 0x8F;
        for (int i = 1; i <= n; i++, lo = 0x80, hi = 0xBF)
            if (p[i] < lo || p[i] > hi)
                return (long)(p - s);
        p += n + 1;
    }
    return -1;
}

int gs_job_row_set(struct gs_job_row *r, int col, const char *t, struct gs_error *err)
{
    if (col < 0 || col >= GS_JCOL_COUNT)
        return gs_errorf(err, GS_EINVAL, "column %d does not exist", col);
    const struct col *c = &cols[col];
    if (!*t) {
        if (c->kind == K_ID || c->kind == K_SUBMIT)
            return gs_errorf(err, GS_EINVAL, "%s: must not be empty", c->name);
        return 0;
    }
    char *field = (char *)&r->spec + c->off;
    gs_time tv;
    int v;
    switch (c->kind) {
    case K_ID:
    case K_STR: {
        /* Strings reach JSON reports, which can only hold UTF-8: refuse here
         * rather than let the writer drop the value (jansson rejects it). */
        long at = gs_utf8_invalid_at(t);
        if (at >= 0)
            return gs_errorf(err, GS_EINVAL, "%s: not valid UTF-8 (byte 0x%02X at offset %ld)",
                             c->name, (unsigned)(unsigned char)t[at], at);
        *(const char **)field = t;
        return 0;
    }
    case K_SUBMIT:
        return set_submit(r, col, t, err);
    case K_DURATION:
        if (parse_time(t, &r->duration) < 0)
            return bad(err, col, t, "a duration (seconds, 30s, 30m, 4h, 2d, or 1-02:03:04)");
        return 0;
    case K_TIME:
        if (parse_time(t, &tv) < 0)
            return bad(err, col, t, "a duration (seconds, 30s, 30m, 4h, 2d, or 1-02:03:04)");
        *(gs_time *)field = tv;
        return 0;
    case K_COUNT:
    case K_INT:
        return set_int(r, col, t, err);
    case K_TOPO:
        if ((v = pick(topo_names, t)) < 0)
            return bad(err, col, t, "one of domain | node | any");
        *(int *)field = v;
        return 0;
    case K_CLASS:
        if ((v = pick(class_names, t)) < 0)
            return bad(err, col, t, "one of train | infer");
        *(int *)field = v;
        return 0;
    default:
        return set_scaled(r, col, t, err);
    }
}

int gs_job_row_check(const struct gs_job_row *r, struct gs_error *err)
{
    const struct gs_job_spec *s = &r->spec;
    if (r->duration == GS_TIME_NONE || r->duration <= 0 || s->ckpt_interval <= 0 ||
        s->ckpt_cost <= 0)
        return 0;
    /* checkpoints strictly inside the work (none after the last piece) */
    int64_t n = (r->duration - 1) / s->ckpt_interval, ckpt, wall;
    const int64_t max = (int64_t)(MAX_SECONDS * 1000);
    if (__builtin_mul_overflow(n, s->ckpt_cost, &ckpt) ||
        __builtin_add_overflow(ckpt, r->duration, &wall) || wall > max)
        return gs_errorf(err, GS_ERANGE, "checkpoint_interval, checkpoint_cost: %lld checkpoints "
                         "of %.17g s make the run longer than the %.0f s limit",
                         (long long)n, gs_time_to_sec(s->ckpt_cost), MAX_SECONDS);
    return 0;
}

int gs_jcol_is_string(int col)
{
    return col >= 0 && col < GS_JCOL_COUNT && (cols[col].kind == K_ID || cols[col].kind == K_STR);
}

int gs_jcol_is_default(int col, const struct gs_job_spec *s, gs_time duration)
{
    if (col < 0 || col >= GS_JCOL_COUNT)
        return 1;
    const struct col *c = &cols[col];
    const char *field = (const char *)s + c->off;
    switch (c->kind) {
    case K_ID:
    case K_SUBMIT:
        return 0;
    case K_DURATION:
        return duration == GS_TIME_NONE;
    case K_STR: {
        const char *str = *(const char *const *)field;
        return !str || !*str;
    }
    case K_GB:
    case K_CORES:
    case K_TIME:
        return *(const int64_t *)field == c->def;
    default:
        return *(const int *)field == c->def;
    }
}

/* The snprintf result `n` of a number with a decimal point in `buf` (of
 * `size` bytes), with trailing zeros and then the dot removed: the new
 * length, or -1 when snprintf failed or did not fit. */
static int trim_decimals(char *buf, size_t size, int n)
{
    if (n < 0 || (size_t)n >= size)
        return -1;
    while (buf[n - 1] == '0')
        buf[--n] = '\0';
    if (buf[n - 1] == '.')
        buf[--n] = '\0';
    return n;
}

/* "12.345" from 12345 thousandths, trailing zeros and dot trimmed. */
static int fmt_milli(int64_t v, char *buf, size_t size)
{
    const char *sign = v < 0 ? "-" : "";
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return trim_decimals(buf, size, snprintf(buf, size, "%s%" PRIu64 ".%03u", sign, a / 1000,
                                             (unsigned)(a % 1000)));
}

/* MiB as GB with 6 decimals (enough for llround(x * 1024) to give back the
 * same MiB), trailing zeros trimmed. */
static int fmt_gb(int64_t mib, char *buf, size_t size)
{
    return trim_decimals(buf, size, snprintf(buf, size, "%.6f", (double)mib / 1024.0));
}

int gs_jcol_format(int col, const struct gs_job_spec *s, gs_time duration, char *buf,
                   size_t size)
{
    if (size == 0 || col < 0 || col >= GS_JCOL_COUNT)
        return -1;
    buf[0] = '\0';
    const struct col *c = &cols[col];
    const char *field = (const char *)s + c->off;
    /* defaults that only an empty cell can express */
    if ((c->kind == K_DURATION && duration == GS_TIME_NONE) ||
        ((c->kind == K_GB || c->kind == K_TIME) && *(const int64_t *)field < 0) ||
        (c->kind == K_TOPO && *(const int *)field == GS_TOPO_AUTO) ||
        (c->kind == K_FRAC && *(const int *)field == 0))
        return 0;
    int n;
    switch (c->kind) {
    case K_ID:
    case K_STR: {
        const char *str = *(const char *const *)field;
        n = snprintf(buf, size, "%s", str ? str : "");
        break;
    }
    case K_SUBMIT:
    case K_TIME:
    case K_CORES:
        return fmt_milli(*(const int64_t *)field, buf, size);
    case K_DURATION:
        return fmt_milli(duration, buf, size);
    case K_SHARE:
    case K_FRAC:
        return fmt_milli(*(const int *)field, buf, size);
    case K_GB:
        return fmt_gb(*(const int64_t *)field, buf, size);
    case K_TOPO:
    case K_CLASS: {
        int v = *(const int *)field;
        const char *const *names = c->kind == K_TOPO ? topo_names : class_names;
        n = snprintf(buf, size, "%s", v >= 0 && v < (c->kind == K_TOPO ? 4 : 2) ? names[v]
                                                                               : "?");
        break;
    }
    default:
        n = snprintf(buf, size, "%d", *(const int *)field);
        break;
    }
    return n < 0 || (size_t)n >= size ? -1 : n;
}

/* --- ISO-8601 ------------------------------------------------------------ */

int64_t gs_days_from_civil(int64_t y, int m, int d)
{
    /* Howard Hinnant's days_from_civil: shift the year to start in March so
     * the leap day is the last day of the year, then count 400-year eras. */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Read exactly `n` digits at *p into *out and advance. */
static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char ch = (*p)[i];
        if (ch < '0' || ch > '9')
            return -1;
        v = v * 10 + (ch - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

/* Optional ":ss.fff" part and time zone after hh:mm; fills sec, ms, off. */
static int iso_tail(const char *p, int *sec, int *ms, int *off_min)
{
    *sec = *ms = *off_min = 0;
    if (*p == ':') {
        p++;
        if (digits(&p, 2, sec) < 0 || *sec > 59)
            return -1;
        if (*p == '.' || *p == ',') {
            p++;
            int scale = 100, nd = 0;
            for (; *p >= '0' && *p <= '9'; p++, nd++) {
                *ms += (*p - '0') * scale;
                scale /= 10;
            }
            if (nd == 0)
                return -1;
        }
    }
    if (*p == 'Z' || *p == 'z')
        return p[1] ? -1 : 0;
    if (*p != '+' && *p != '-')
        return *p ? -1 : 0;
    int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
    if (digits(&p, 2, &oh) < 0 || oh > 23)
        return -1;
    if (*p == ':')
        p++;
    if (*p && (digits(&p, 2, &om) < 0 || om > 59 || *p))
        return -1;
    *off_min = sign * (oh * 60 + om);
    return 0;
}

int gs_parse_iso8601(const char *t, int64_t *unix_ms)
{
    const char *p = t;
    int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0, off = 0;
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (digits(&p, 4, &y) < 0 || *p++ != '-' || digits(&p, 2, &mo) < 0 || *p++ != '-' ||
        digits(&p, 2, &d) < 0)
        return GS_EINVAL;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && is_leap(y)))
        return GS_EINVAL;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (digits(&p, 2, &h) < 0 || h > 23 || *p++ != ':' || digits(&p, 2, &mi) < 0 ||
            mi > 59 || iso_tail(p, &sec, &ms, &off) < 0)
            return GS_EINVAL;
    } else if (*p) {
        return GS_EINVAL;
    }
    int64_t s = gs_days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 +
                sec - (int64_t)off * 60;
    *unix_ms = s * 1000 + ms;
    return 0;
}

/* Howard Hinnant's civil_from_days: the inverse of gs_days_from_civil. */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

int gs_format_iso8601(int64_t unix_ms, char *buf, size_t size)
{
    int64_t ms = unix_ms % 1000, s = unix_ms / 1000;
    if (ms < 0) {
        ms += 1000;
        s--;
    }
    int64_t days = s / 86400, sod = s % 86400;
    if (sod < 0) {
        sod += 86400;
        days--;
    }
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    int n = ms ? snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", (long long)y, m, d,
                          (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60), (int)ms)
               : snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)y, m, d,
                          (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
    return n < 0 || (size_t)n >= size ? GS_ERANGE : n;
}

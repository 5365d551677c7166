/* log.c - levelled log lines on stderr (log.h). */
#define _GNU_SOURCE
#include "daemon/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "io/names.h"

static int log_level = GSD_LOG_INFO; /* set once by gsd_log_setup, then read only */
static int log_journald;

static const struct {
    const char *name;
    int level;
} levels[] = {
    { "err", GSD_LOG_ERR },       { "error", GSD_LOG_ERR }, { "warning", GSD_LOG_WARNING },
    { "warn", GSD_LOG_WARNING },  { "notice", GSD_LOG_NOTICE }, { "info", GSD_LOG_INFO },
    { "debug", GSD_LOG_DEBUG },
};

/* Whether fd 2 is the stream $JOURNAL_STREAM ("DEV:INODE") names. */
static int stderr_is_journald(void)
{
    const char *js = getenv("JOURNAL_STREAM");
    char *end;
    struct stat st;
    if (!js || fstat(2, &st) < 0)
        return 0;
    unsigned long long dev = strtoull(js, &end, 10);
    if (end == js || *end != ':')
        return 0;
    const char *p = end + 1;
    unsigned long long ino = strtoull(p, &end, 10);
    if (end == p || *end)
        return 0;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

int gsd_log_setup(const char *name)
{
    int level = -1;
    if (name) {
        for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
            if (!strcmp(name, levels[i].name))
                level = levels[i].level;
        if (level < 0)
            return -1;
    } else {
        const char *trace = getenv("GPUSCHEDD_TRACE");
        level = trace && !strcmp(trace, "1") ? GSD_LOG_DEBUG : GSD_LOG_INFO;
    }
    log_level = level;
    log_journald = stderr_is_journald();
    return 0;
}

int gsd_log_enabled(int level)
{
    return level <= log_level;
}

static const char *level_name(int level)
{
    switch (level) {
    case GSD_LOG_ERR: return "err";
    case GSD_LOG_WARNING: return "warning";
    case GSD_LOG_NOTICE: return "notice";
    case GSD_LOG_DEBUG: return "debug";
    default: return "info";
    }
}

void gsd_logv(int level, const char *fmt, va_list ap)
{
    if (!gsd_log_enabled(level))
        return;
    char line[4096], esc[4 * sizeof line];
    vsnprintf(line, sizeof line, fmt, ap);
    gs_name_escape(line, esc, sizeof esc); /* one line whatever a name holds */
    if (log_journald) {
        fprintf(stderr, "<%d>gpuschedd: %s\n", level, esc);
        return;
    }
    char ts[40];
    struct timespec t;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &t);
    gmtime_r(&t.tv_sec, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(stderr, "%s gpuschedd: level=%s %s\n", ts, level_name(level), esc);
}

void gsd_logl(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gsd_logv(level, fmt, ap);
    va_end(ap);
}

void gsd_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gsd_logv(GSD_LOG_INFO, fmt, ap);
    va_end(ap);
}

int64_t gsd_mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* log.h - gpuschedd's log lines on stderr, each with a level
 * (docs/operations.md "Logs"):
 *
 *   stderr is journald's stream ($JOURNAL_STREAM names it): "<6>gpuschedd: MSG"
 *     (sd-daemon prefixes: journald stores the priority, and its own time);
 *   otherwise: "2026-12-02T04:07:29Z gpuschedd: level=info MSG".
 *
 * Levels (syslog's numbers): err 3, warning 4, notice 5, info 6, debug 7;
 * lines above the chosen level (--log-level, default info; debug when
 * GPUSCHEDD_TRACE=1) are dropped.  Every line is one line: control bytes
 * of names are escaped as \xNN (io/names.h).
 */
#ifndef GSD_LOG_H
#define GSD_LOG_H

#include <stdarg.h>
#include <stdint.h>

enum gsd_log_level {
    GSD_LOG_ERR = 3,
    GSD_LOG_WARNING = 4,
    GSD_LOG_NOTICE = 5,
    GSD_LOG_INFO = 6,
    GSD_LOG_DEBUG = 7,
};

/* Set up the log once, before any thread starts: the level `name` ("err",
 * "error", "warning", "notice", "info", "debug"; NULL = info, or debug
 * under GPUSCHEDD_TRACE=1) and whether stderr is journald's.  Returns 0, or
 * -1 when `name` is not a level (nothing changed). */
int gsd_log_setup(const char *name);

/* Whether lines of `level` are written. */
int gsd_log_enabled(int level);

/* One line of `level` from printf format `fmt` (dropped above the level). */
void gsd_logl(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* gsd_logl with a va_list. */
void gsd_logv(int level, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;

/* An info line (gsd_logl at GSD_LOG_INFO); any thread. */
void gsd_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The monotonic clock, ms (CLOCK_MONOTONIC); any thread. */
int64_t gsd_mono_ms(void);

#endif

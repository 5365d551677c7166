/* timefmt.h - times for people (docs/client.md "Times"): ISO 8601 in UTC
 * with Z ("2026-12-01T11:15:29Z", the API's own RFC 3339 form) and a
 * relative form ("in 5 min", "12 min ago"), and the rewriting of the
 * engine's reason texts, whose stamps are "t=SECONDS s" (engine seconds:
 * UNIX seconds in the daemon), into those forms.  Pure functions of their
 * arguments (the caller reads the clock).
 */
#ifndef GS_IO_TIMEFMT_H
#define GS_IO_TIMEFMT_H

#include <stddef.h>

/* UNIX seconds as "2026-12-01T11:15:29Z" (whole seconds); a negative or
 * NaN `epoch` gives "-".  Writes into buf (>= 32 bytes) and returns it. */
const char *gs_timefmt_iso(double epoch, char *buf, size_t size);

/* `delta` seconds from now as people say it: "now" (under 1 s), "in 40 s",
 * "12 min ago", "in 2 h 5 min", "3 d 4 h ago"; NaN gives "-".  Writes into
 * buf (>= 32 bytes) and returns it. */
const char *gs_timefmt_rel(double delta, char *buf, size_t size);

/* "ISO (relative to now)", e.g. "2026-12-01T11:15:29Z (12 min ago)"; a
 * negative epoch gives "-".  Writes into buf (>= 64 bytes), returns it. */
const char *gs_timefmt_when(double epoch, double now, char *buf, size_t size);

/* Copy `text` into out[size] (always NUL-terminated, truncated when short)
 * with every stamp "t=N s" (N a whole number of seconds of at least
 * 100000000: an epoch, not a simulated second) written as its ISO form and,
 * when `now` >= 0, also every ISO stamp "YYYY-MM-DDTHH:MM:SSZ" followed by
 * its relative form in parentheses.  Returns out. */
const char *gs_timefmt_text(const char *text, double now, char *out, size_t size);

#endif

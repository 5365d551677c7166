/* client_eta.h - the start-time promise as the client commands print it
 * ("starts by about 14:20Z, 9 in 10 by 15:05Z (basis profile)"; docs/eta.md,
 * section 6): one small formatter that `queue` and `why` share. */
#ifndef GS_CLI_CLIENT_ETA_H
#define GS_CLI_CLIENT_ETA_H

#include <jansson.h>
#include <stddef.h>

/* UNIX seconds as ISO 8601 UTC to the minute (the client's times are UTC:
 * docs/client.md, "Times"): "14:20Z" when on the same UTC day as `ref`
 * (seconds; negative = none), else "2026-12-03T14:20Z"; "-" for a
 * negative time.  Writes into `buf` (>= 20
 * bytes) and returns it. */
const char *gs_client_utc_hm(double epoch, double ref, char *buf, size_t size);

/* The promise object `est` of a job object ({start_epoch, p90_epoch,
 * basis}) as text, `now` in UNIX seconds: "starts by about T[, 9 in 10 by
 * U] (basis B)", "should start now[, ...]" when T is not after now,
 * "start unknown (basis unknown)" without a start.  With `with_basis` 0
 * the "(basis B)" is left out.  Writes into `buf` and returns it; NULL
 * when `est` is not an object. */
const char *gs_client_eta_text(const json_t *est, double now, int with_basis, char *buf,
                               size_t size);

#endif

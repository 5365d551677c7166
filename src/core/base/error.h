/* error.h - error codes and the fixed-size error struct used by every module.
 *
 * Fallible calls return 0 (or a non-negative value) on success and a negative
 * GS_E* code on failure.  They take an optional `struct gs_error *` that is
 * filled with the code and a human-readable message.  The struct is never
 * allocated, so reporting an error cannot itself fail.
 */
#ifndef GS_CORE_ERROR_H
#define GS_CORE_ERROR_H

enum {
    GS_OK = 0,
    GS_EINVAL = -1,   /* invalid argument or malformed input */
    GS_ENOMEM = -2,   /* allocation failed */
    GS_ENOENT = -3,   /* no such object (job, node, key) */
    GS_EEXIST = -4,   /* object already exists (duplicate id) */
    GS_ENOSPC = -5,   /* request does not fit the resources */
    GS_ENOTSUP = -6,  /* valid but not supported (yet) */
    GS_ERANGE = -7,   /* value out of range */
    GS_EIO = -8,      /* I/O failure (io layer only) */
    GS_ESTATE = -9,   /* operation not valid in the object's current state */
};

#define GS_ERROR_MSG_MAX 160

struct gs_error {
    int code;
    char msg[GS_ERROR_MSG_MAX];
};

/* Fill `err` (may be NULL) with `code` and a printf-style message, truncated
 * to GS_ERROR_MSG_MAX-1 bytes.  Returns `code`, so callers can write
 * `return gs_errorf(err, GS_EINVAL, "...")`. */
int gs_errorf(struct gs_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Reset `err` (may be NULL) to GS_OK with an empty message. */
void gs_error_clear(struct gs_error *err);

/* Short constant name of an error code, e.g. "EINVAL"; never NULL. */
const char *gs_strerror(int code);

#endif

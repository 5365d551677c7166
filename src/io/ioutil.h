/* ioutil.h - small helpers shared by the io readers: reading a whole file
 * (gunzipping *.gz), prefixing error messages with their location and
 * appending formatted text to a fixed buffer.
 */
#ifndef GS_IO_IOUTIL_H
#define GS_IO_IOUTIL_H

#include <stddef.h>

#include "core/base/error.h"

/* Read the whole file at `path` into a gs_malloc'd buffer, followed by one
 * NUL byte that is not counted in *len (so text parsers may treat it as a
 * C string when it has no NUL of its own).  A path ending in ".gz" is
 * decompressed with zlib; "-" reads standard input.  Returns 0 with *data
 * owned by the caller (free with gs_free), or GS_EIO ("PATH: reason") /
 * GS_ENOMEM with *data set to NULL. */
int gs_read_file(const char *path, char **data, size_t *len, struct gs_error *err);

/* Prepend printf-style text to err->msg (truncating at GS_ERROR_MSG_MAX),
 * set err->code to `code` and return `code`.  `err` may be NULL.  Readers
 * use it to add "FILE:LINE: " to messages from core calls while keeping
 * their code (GS_ENOTSUP must stay GS_ENOTSUP). */
int gs_error_prefix(struct gs_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Append printf-style text to the NUL-terminated string in `buf` (of size
 * n), truncating at n - 1 bytes; does nothing when `buf` is already full.
 * The report writers build their sentences with it. */
void gs_catf(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The name readers use in messages when the caller gave none. */
const char *gs_io_name(const char *name);

#endif

/* ioutil.h - small helpers shared by the io readers: reading a whole file
 * (gunzipping *.gz), prefixing error messages with their location and
 * appending formatted text to a fixed buffer.
 */
#ifndef GS_IO_IOUTIL_H
#define GS_IO_IOUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

/* Read the whole file at `path` into a gs_malloc'd buffer, followed by one
 * NUL byte that is not counted in *len (so text parsers may treat it as a
 * C string when it has no NUL of its own).  A path ending in ".gz" is
 * decompressed with zlib; "-" reads standard input.  Returns 0 with *data
 * owned by the caller (free with gs_free), or GS_EIO ("PATH: reason") /
 * GS_ENOMEM with *data set to NULL. */
int gs_read_file(const char *path, char **data, size_t *len, struct gs_error *err);

/* Progress of a long read, for a caller that shows it (the CLI's import
 * progress): io only counts and calls back, it never writes to a terminal.
 * The readers fill the fields and call fn (when set) after each chunk of a
 * file read, every GS_IO_PROGRESS_ROWS records parsed and jobs converted,
 * and when converting starts; how often to show anything is the caller's
 * choice.  Caller's storage, zeroed before use. */
enum { GS_IO_READING, GS_IO_PARSING, GS_IO_CONVERTING };
struct gs_io_progress {
    void (*fn)(void *arg, const struct gs_io_progress *p);
    void *arg;
    const char *name;   /* the input being read now (borrowed) */
    int phase;          /* GS_IO_*: reading the file, parsing its text,
                         * converting the rows into jobs (sorted, checked) */
    int64_t bytes;      /* reading: bytes of the file read (compressed, for
                         * .gz); parsing: bytes of its text parsed */
    int64_t total;      /* the whole of `bytes`, -1 when not known (a pipe) */
    int64_t rows;       /* records parsed so far, all inputs together */
    int64_t jobs, njobs; /* converting: jobs done of njobs */
};

#define GS_IO_PROGRESS_ROWS 4096

/* Parsing of the text read from `name` starts: sets the phase and name and
 * calls p->fn.  `p` may be NULL (nothing). */
void gs_io_progress_parse(struct gs_io_progress *p, const char *name);

/* Count one record parsed at byte `pos` of a text of `len` bytes and call
 * p->fn every GS_IO_PROGRESS_ROWS records.  `p` may be NULL (nothing). */
void gs_io_progress_row(struct gs_io_progress *p, size_t pos, size_t len);

/* Count `done` of `total` jobs converted: calls p->fn when done is 0 (the
 * phase starts) and every GS_IO_PROGRESS_ROWS jobs.  `p` may be NULL. */
void gs_io_progress_job(struct gs_io_progress *p, size_t done, size_t total);

/* gs_read_file that reports the bytes read through `p` (may be NULL),
 * naming the input `path`. */
int gs_read_file_progress(const char *path, char **data, size_t *len, struct gs_io_progress *p,
                          struct gs_error *err);

/* Parse text[0 .. len) (NUL-terminated at text[len]) read from `name` into
 * `out`, reporting records through `p` (may be NULL); as gs_aaic_parse. */
typedef int (*gs_io_parse_fn)(const char *text, size_t len, const char *name, void *out,
                              struct gs_io_progress *p, struct gs_error *err);

/* The importers' shared tail: read `path` whole (gs_read_file_progress)
 * and hand its text to `parse`, then free the text.  Returns what the read
 * or `parse` returned. */
int gs_io_load(const char *path, gs_io_parse_fn parse, void *out, struct gs_io_progress *p,
               struct gs_error *err);

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

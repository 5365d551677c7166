/* csv.h - the one CSV reader and writer of gpusched: every CSV the project
 * reads (native traces, the AAIC and openb importers) goes through
 * gs_csv_next, every CSV field it writes through gs_csv_put.
 *
 * Why our own and not a library: the one Debian packages, libcsv (3.0.3,
 * upstream silent since 2013), parses through per-field callbacks into its
 * own buffers and reports no line numbers, and every error here must name
 * FILE:LINE (and the AAIC importer FILE:LINE:COLUMN) of a record, also of one
 * whose quoted field spans lines; a million-row trace must cost no allocation
 * per field.  The reader below is ~150 lines, tokenizes in place and keeps
 * those positions.
 *
 * Reading: fields separated by commas, records by LF or CRLF.  With
 * GS_CSV_QUOTES, RFC 4180: a lone CR also ends a record, and a field in
 * double quotes may hold commas, quotes (doubled) and line breaks (the
 * native trace); without it quotes are data and a lone CR too (the public
 * traces, which never quote: openb keeps every byte of a name).  With
 * GS_CSV_TRIM blanks around an unquoted field are trimmed (inside quotes
 * they are kept).  A record that is one empty unquoted field (a blank line)
 * is skipped.  A UTF-8 byte order mark at the start is skipped; a NUL byte
 * anywhere is an error.
 *
 * Writing: a field is quoted when it holds a comma, a double quote, CR or LF, or
 * starts or ends with a blank (the project's readers trim unquoted fields);
 * a quote inside is doubled.  Any byte string round-trips through the trace
 * reader (io/trace_csv.c) and through Python's csv module.
 */
#ifndef GS_IO_CSV_H
#define GS_IO_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "core/base/error.h"

struct gs_io_progress;

enum { GS_CSV_QUOTES = 1, GS_CSV_TRIM = 2 };

/* A reader over a caller's buffer, which it modifies in place (fields are
 * NUL-terminated pointers into it). */
struct gs_csv {
    char *b;
    size_t n, pos;
    long line;              /* line of the next byte */
    size_t line_start;      /* offset of that line's first byte */
    const char *name;       /* for messages (borrowed) */
    char **f;               /* fields of the last record (into b) */
    size_t *col;            /* 1-based byte column of each field's text on its line */
    size_t nf, fcap, ccap;
    int flags;              /* GS_CSV_* */
    struct gs_io_progress *prog; /* NULL, or records counted here (io/ioutil.h);
                                  * set after gs_csv_open */
};

/* Start reading buf[0..n), which must have one spare byte at buf[n] (set to
 * NUL here), with `flags` (GS_CSV_*).  `name` (borrowed) prefixes messages.
 * Returns 0, or GS_EINVAL "NAME:LINE: NUL byte in the input". */
int gs_csv_open(struct gs_csv *c, char *buf, size_t n, const char *name, int flags,
                struct gs_error *err);

/* Read the next record that is not a blank line into c->f[0 .. c->nf).
 * *line is the line it starts on.  Returns 1, 0 at the end of the input, or
 * GS_EINVAL ("NAME:LINE: unterminated quoted field", "... text after a
 * closing quote") / GS_ENOMEM. */
int gs_csv_next(struct gs_csv *c, long *line, struct gs_error *err);

/* Free the field arrays (not the buffer); `c` may be NULL. */
void gs_csv_close(struct gs_csv *c);

/* Whether `s` (n bytes) must be quoted to be read back as itself. */
int gs_csv_needs_quotes(const char *s, size_t n);

/* Write `s` as one field (no separator).  NULL writes an empty field.
 * Write errors show in ferror(f). */
void gs_csv_put(FILE *f, const char *s);

/* Same for the first n bytes of `s`. */
void gs_csv_put_n(FILE *f, const char *s, size_t n);

#endif

/* csv.h - RFC 4180 CSV fields for every CSV file gpusched writes.
 *
 * A field is quoted when it holds a comma, a double quote, CR or LF, or
 * starts or ends with a blank (the project's readers trim unquoted fields);
 * a quote inside is doubled.  Any byte string round-trips through the trace
 * reader (io/trace_csv.c) and through Python's csv module.
 */
#ifndef GS_IO_CSV_H
#define GS_IO_CSV_H

#include <stddef.h>
#include <stdio.h>

/* Whether `s` (n bytes) must be quoted to be read back as itself. */
int gs_csv_needs_quotes(const char *s, size_t n);

/* Write `s` as one field (no separator).  NULL writes an empty field.
 * Write errors show in ferror(f). */
void gs_csv_put(FILE *f, const char *s);

/* Same for the first n bytes of `s`. */
void gs_csv_put_n(FILE *f, const char *s, size_t n);

#endif

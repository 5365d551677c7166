/* ioutil.c - whole-file reading (plain or gzip), error prefixes and
 * appending to fixed buffers. */
#include "io/ioutil.h"
#include "core/base/alloc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define CHUNK (1u << 20)

/* Growable byte buffer for the readers below. */
struct buf {
    char *data;
    size_t len, cap;
};

/* Make room for `more` bytes plus the final NUL. */
static int reserve(struct buf *b, size_t more)
{
    if (more > SIZE_MAX - 1 - b->len)
        return GS_ENOMEM;
    return gs_grow((void **)&b->data, &b->cap, b->len + more + 1, 1);
}

static void report(struct gs_io_progress *p, int64_t bytes)
{
    if (!p)
        return;
    p->bytes = bytes;
    if (p->fn)
        p->fn(p->arg, p);
}

void gs_io_progress_parse(struct gs_io_progress *p, const char *name)
{
    if (!p)
        return;
    p->phase = GS_IO_PARSING;
    p->name = name;
    p->total = -1;
    report(p, 0);
}

void gs_io_progress_row(struct gs_io_progress *p, size_t pos, size_t len)
{
    if (!p)
        return;
    p->total = (int64_t)len;
    if (++p->rows % GS_IO_PROGRESS_ROWS == 0)
        report(p, (int64_t)pos);
}

void gs_io_progress_job(struct gs_io_progress *p, size_t done, size_t total)
{
    if (!p)
        return;
    p->phase = GS_IO_CONVERTING;
    p->jobs = (int64_t)done;
    p->njobs = (int64_t)total;
    if (done % GS_IO_PROGRESS_ROWS == 0 && p->fn)
        p->fn(p->arg, p);
}

static int read_plain(FILE *f, struct buf *b, struct gs_io_progress *p)
{
    for (;;) {
        if (reserve(b, CHUNK) < 0)
            return GS_ENOMEM;
        size_t n = fread(b->data + b->len, 1, b->cap - 1 - b->len, f);
        b->len += n;
        report(p, (int64_t)b->len);
        if (n == 0)
            return ferror(f) ? GS_EIO : 0;
    }
}

/* Decompress the whole stream.  zlib's gzread returns 0 both at a clean end
 * and when the input stops inside a member (a truncated download, `head -c`):
 * the second leaves Z_BUF_ERROR behind, which gzread does not report as an
 * error.  A file named .gz that is not gzip at all is read "transparently" by
 * zlib; refuse it too, since it is not what the name promises. */
static int read_gz(gzFile gz, struct buf *b, const char **why, struct gs_io_progress *p)
{
    for (;;) {
        if (reserve(b, CHUNK) < 0)
            return GS_ENOMEM;
        size_t room = b->cap - 1 - b->len;
        unsigned want = room > INT_MAX ? INT_MAX : (unsigned)room;
        int n = gzread(gz, b->data + b->len, want);
        if (n < 0)
            return GS_EIO;
        if (gzdirect(gz)) {
            *why = "not gzip data (empty, or plain text named .gz)";
            return GS_EIO;
        }
        if (n == 0) {
            int zerr;
            gzerror(gz, &zerr);
            if (zerr == Z_BUF_ERROR) {
                *why = "the gzip stream ends early (truncated file)";
                return GS_EIO;
            }
            return zerr == Z_OK ? 0 : GS_EIO;
        }
        b->len += (size_t)n;
        report(p, (int64_t)gzoffset(gz));
    }
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The size of the file behind `fd`, -1 when it is not a regular file. */
static int64_t file_size(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
}

int gs_read_file(const char *path, char **data, size_t *len, struct gs_error *err)
{
    return gs_read_file_progress(path, data, len, NULL, err);
}

int gs_io_load(const char *path, gs_io_parse_fn parse, void *out, struct gs_io_progress *p,
               struct gs_error *err)
{
    char *buf;
    size_t len;
    int rc = gs_read_file_progress(path, &buf, &len, p, err);
    if (rc < 0)
        return rc;
    rc = parse(buf, len, path, out, p, err);
    gs_free(buf);
    return rc;
}

int gs_read_file_progress(const char *path, char **data, size_t *len, struct gs_io_progress *p,
                          struct gs_error *err)
{
    struct buf b = { NULL, 0, 0 };
    int rc;
    *data = NULL;
    *len = 0;
    if (p) {
        p->name = path;
        p->phase = GS_IO_READING;
        p->bytes = 0;
        p->total = -1;
    }
    if (ends_with(path, ".gz")) {
        gzFile gz = gzopen(path, "rb");
        if (!gz)
            return gs_errorf(err, GS_EIO, "%s: %s", path,
                             errno ? strerror(errno) : "cannot open");
        const char *why = NULL;
        if (p) {
            struct stat st;
            p->total = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
        }
        rc = read_gz(gz, &b, &why, p);
        if (rc == GS_EIO) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            gs_errorf(err, GS_EIO, "%s: gzip: %s", path,
                      why ? why : zerr == Z_ERRNO ? strerror(errno) : msg);
        }
        if (gzclose(gz) != Z_OK && rc == 0)
            rc = gs_errorf(err, GS_EIO, "%s: gzip: the stream ends early (truncated file)",
                           path);
    } else {
        int is_stdin = strcmp(path, "-") == 0;
        FILE *f = is_stdin ? stdin : fopen(path, "rb");
        if (!f)
            return gs_errorf(err, GS_EIO, "%s: %s", path, strerror(errno));
        if (p)
            p->total = file_size(fileno(f));
        rc = read_plain(f, &b, p);
        if (rc == GS_EIO)
            gs_errorf(err, GS_EIO, "%s: %s", path, strerror(errno));
        if (!is_stdin)
            fclose(f);
    }
    if (rc == GS_ENOMEM)
        gs_errorf(err, GS_ENOMEM, "%s: out of memory", path);
    if (rc < 0) {
        gs_free(b.data);
        return rc;
    }
    if (!b.data && reserve(&b, 0) < 0)
        return gs_errorf(err, GS_ENOMEM, "%s: out of memory", path);
    b.data[b.len] = '\0';
    *data = b.data;
    *len = b.len;
    return 0;
}

int gs_error_prefix(struct gs_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    char old[GS_ERROR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = '\0';
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%s", old);
    err->code = code;
    return code;
}

void gs_catf(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

const char *gs_io_name(const char *name)
{
    return name && *name ? name : "<input>";
}

/* error.c - fixed-size error reporting (no allocation, no I/O). */
#include "core/base/error.h"

#include <stdarg.h>
#include <stdio.h>

int gs_errorf(struct gs_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void gs_error_clear(struct gs_error *err)
{
    if (err) {
        err->code = GS_OK;
        err->msg[0] = '\0';
    }
}

const char *gs_strerror(int code)
{
    switch (code) {
    case GS_OK: return "OK";
    case GS_EINVAL: return "EINVAL";
    case GS_ENOMEM: return "ENOMEM";
    case GS_ENOENT: return "ENOENT";
    case GS_EEXIST: return "EEXIST";
    case GS_ENOSPC: return "ENOSPC";
    case GS_ENOTSUP: return "ENOTSUP";
    case GS_ERANGE: return "ERANGE";
    case GS_EIO: return "EIO";
    case GS_ESTATE: return "ESTATE";
    default: return "EUNKNOWN";
    }
}

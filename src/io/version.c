/* version.c - the build's version string (version.h).  GS_COMMIT comes
 * from the Makefile (-DGS_COMMIT="..."); only this file is rebuilt when the
 * commit changes. */
#include "io/version.h"

#ifndef GS_COMMIT
#define GS_COMMIT "unknown"
#endif

const char *gs_version_string(void)
{
    return GS_VERSION " (commit " GS_COMMIT ")";
}

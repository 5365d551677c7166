/* version.h - the version of this build and the commit it was built from
 * (`gpusched --version`, `gpuschedd --version`).  The Makefile embeds
 * `git describe --always --dirty` in version.c as GS_COMMIT; a build
 * outside a git checkout says "unknown" (or what `make GS_COMMIT=...`
 * gives). */
#ifndef GS_IO_VERSION_H
#define GS_IO_VERSION_H

#ifndef GS_VERSION
#define GS_VERSION "0.1"
#endif

/* "0.1 (commit 7a79a49-dirty)": the version and the commit, in static
 * storage (the caller must not free it); never NULL, cannot fail. */
const char *gs_version_string(void);

#endif

/* names.h - what the daemon accepts as a name and what it prints back
 * (docs/security.md "Names and sizes"):
 *
 *   id              1..128 bytes of [A-Za-z0-9._-], not starting with '.'
 *                   (usable as one URL path segment as it is)
 *   team, user      1..64 bytes of [A-Za-z0-9._-], not starting with '.' or '-'
 *   text            (job name, paths) 0..max bytes, no control character
 *                   (bytes 0x00-0x1f and 0x7f)
 *
 * and the environment names a request may not set (the scheduler's own:
 * GPU visibility, GPUSCHED_*, the Slurm backend's SLURM_* and SBATCH_*).
 * Pure functions: the daemon, the client and fuzz/fuzz_names.c call them.
 */
#ifndef GS_IO_NAMES_H
#define GS_IO_NAMES_H

#include <stddef.h>

enum gs_name_kind { GS_NAME_ID, GS_NAME_ACCOUNT, GS_NAME_TEXT };

#define GS_NAME_ID_MAX 128
#define GS_NAME_ACCOUNT_MAX 64
#define GS_NAME_JOBNAME_MAX 256
#define GS_NAME_PATH_MAX 4096

/* Check the `len` bytes at `s` (NULs included: a NUL is refused) as a name
 * of `kind`; `max` is the length limit for GS_NAME_TEXT (ignored for the
 * others).  Returns 0, or -1 with a sentence in why[n] ("longer than 64
 * bytes", "character 0x2f ('/') at byte 3 is not allowed"). */
int gs_name_check(const char *s, size_t len, int kind, size_t max, char *why, size_t n);

/* Whether a request's env may not set the variable `name`: one of
 * CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
 * HIP_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, or a name starting with
 * GPUSCHED_, SLURM_ or SBATCH_. */
int gs_name_env_reserved(const char *name);

/* Copy `s` into out[n] (always NUL-terminated, truncated when short) with
 * every control byte (0x00-0x1f, 0x7f) and backslash written as \xNN, for
 * log lines and terminal output.  Returns out. */
char *gs_name_escape(const char *s, char *out, size_t n);

#endif

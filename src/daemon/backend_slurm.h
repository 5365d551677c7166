/* backend_slurm.h - the slurm backend's helpers (backend_slurm_cmd.c),
 * shared with backend_slurm.c.  The backend itself is the ops table
 * gsd_backend_slurm (backend.h); docs/slurm-backend.md describes it.
 */
#ifndef GS_DAEMON_BACKEND_SLURM_H
#define GS_DAEMON_BACKEND_SLURM_H

#include <stddef.h>

#include "core/base/error.h"

/* Run argv[0] (found in PATH) with argv, no shell, and wait.  0 with *out
 * = its stdout (malloc'ed, caller frees) when it exits 0; otherwise a
 * negative GS_E* with err naming the command and quoting its stderr. */
int gsd_slurm_run(char *const argv[], char **out, struct gs_error *err);

/* Copy the value of " KEY=" in an `scontrol -o` line into buf (up to the
 * next space): 0, or GS_ENOENT with buf = "". */
int gsd_slurm_field(const char *line, const char *key, char *buf, size_t n);

/* Call fn(arg, name) for each host of a Slurm host list ("n-[1-3,05],x").
 * 0, or -1 when the list is malformed or fn returns < 0. */
int gsd_slurm_hostlist(const char *list, int (*fn)(void *, const char *), void *arg);

/* Slurm's "A:B" exit code as a shell would see it: B > 0 -> 128 + B, else
 * A; -1 when unreadable. */
int gsd_slurm_exit_code(const char *text);

#endif

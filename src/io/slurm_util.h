/* slurm_util.h - Slurm's text forms, shared by the live reader
 * (slurm_state.h), the sacct importer (import_sacct.h) and the trace
 * reader (durations):
 *
 *   durations   [D-]HH:MM:SS[.fff], D-HH[:MM], MM:SS          gs_slurm_parse_duration
 *   limits      the same, plain MM (minutes), UNLIMITED,
 *               INFINITE, Partition_Limit (no limit)          gs_slurm_parse_limit
 *   times       2026-12-01T11:07:14 (local time), Unknown,
 *               None                                          gs_slurm_parse_time
 *   node lists  gpu[01-04,07],node-3,r[1-2]n[1-2]             gs_slurm_hostlist_expand
 *   TRES        billing=1,cpu=2,gres/gpu=16,node=2            gs_slurm_tres_gpus
 *   GRES        gpu:8, gpu:a100:4(S:0), gpu:g0:1,gpu:g1:1     gs_slurm_gres_gpus
 *   GRES detail gpu:6(IDX:0-5), gpu:g3:1(IDX:3)               gs_slurm_gres_idx
 *
 * All functions are pure text parsing (no allocation; the hostlist
 * callback's names are borrowed for the call), except gs_slurm_parse_time,
 * which reads the time zone.
 */
#ifndef GS_IO_SLURM_UTIL_H
#define GS_IO_SLURM_UTIL_H

#include <stdint.h>

#include "core/base/types.h"

/* Parse a Slurm duration (one with ':' or '-', e.g. "1-02:03:04",
 * "02:03:04", "03:04", "1-02") into milliseconds.  Returns 0, or
 * GS_EINVAL for anything else (a plain number is not a Slurm duration
 * here: callers give those their own unit). */
int gs_slurm_parse_duration(const char *t, gs_time *ms);

/* Parse a Slurm time limit: a duration as above, or a plain number of
 * minutes (Slurm's --time unit).  Sets *ms = 0 and returns 1 for no limit
 * (UNLIMITED, INFINITE, Partition_Limit, NONE, empty); returns 0 for a
 * limit, GS_EINVAL for anything else. */
int gs_slurm_parse_limit(const char *t, gs_time *ms);

/* Parse a Slurm timestamp "YYYY-MM-DDTHH:MM:SS" (local time, as sacct and
 * scontrol print it) into UNIX seconds.  Returns 0; 1 when the time is not
 * known ("Unknown", "None", empty, "0"); GS_EINVAL for anything else.
 * The zone's UTC offset is cached per hour (mktime re-reads the zone on
 * every call): not thread-safe, and a change of TZ during the process is
 * seen only at the next hour parsed. */
int gs_slurm_parse_time(const char *t, int64_t *unix_s);

/* Call fn(name, arg) for every host of a Slurm node list, in order
 * ("gpu[01-02],x" -> gpu01, gpu02, x; zero padding kept; several bracket
 * groups in one name expand as a product).  Stops at the first negative
 * return of fn and returns it.  Returns the number of names, or GS_EINVAL
 * for a malformed list (unbalanced brackets, bad range, a name longer than
 * 255 bytes, more than 1,000,000 names). */
int gs_slurm_hostlist_expand(const char *list, int (*fn)(const char *name, void *arg),
                             void *arg);

/* GPUs in a TRES string: the untyped "gres/gpu=N" if present, else the
 * sum of typed "gres/gpu:TYPE=N".  Returns the count (0 when the string
 * names no GPU), or GS_EINVAL for a malformed count. */
int64_t gs_slurm_tres_gpus(const char *tres);

/* GPUs in a node's or job's GRES string ("gpu:8", "gpu:a100:4(S:0)",
 * "gpu:g0:1,gpu:g1:1", "gres:gpu:2" as squeue's tres_per_node writes it):
 * the sum over the gpu entries.  Returns the count (0 for none, "(null)")
 * or GS_EINVAL. */
int64_t gs_slurm_gres_gpus(const char *gres);

/* GPU indices in one node's GRES detail ("gpu:6(IDX:0-5)",
 * "gpu:g3:1(IDX:3),gpu:g5:1(IDX:5)", "gpu(IDX:0,2)") as a bit mask of
 * indices 0..63.  Returns 0 and sets *mask, or GS_EINVAL (no IDX, an index
 * over 63). */
int gs_slurm_gres_idx(const char *detail, uint64_t *mask);

#endif

/* reap.h - a job is every process it starts (local backend).
 *
 * The supervisor (supervise.c) is a child subreaper
 * (PR_SET_CHILD_SUBREAPER): a process of the job whose parent exits
 * (`setsid cmd &`, a double fork) becomes the supervisor's child instead of
 * init's, so every process the job started stays a descendant of the
 * supervisor while it lives.  The descendants are found by walking /proc
 * (each process's parent, /proc/PID/stat field 4) and signalled one by one,
 * besides the job's process group.  They are also recorded with their start
 * times (/proc/PID/stat field 22) in RUNDIR/pids, so that when the
 * supervisor itself is lost (SIGKILL) the daemon can still find and end
 * them (gsd_reap_lost) before it offers the job's GPUs again; a recorded pid
 * whose start time differs now names another process and is left alone.
 */
#ifndef GS_DAEMON_REAP_H
#define GS_DAEMON_REAP_H

#include <stdint.h>
#include <sys/types.h>

/* One process: pid, /proc start time (clock ticks since boot) and its
 * process group when it was seen. */
struct gsd_pid {
    pid_t pid;
    int64_t start;
    pid_t pgrp;
};

/* Every living descendant of the processes `roots[0..nroots)` (not the
 * roots themselves), at most `cap`, into out[]; returns how many (a scan of
 * /proc), or -1 when /proc cannot be read. */
int gsd_reap_descendants(const pid_t *roots, int nroots, struct gsd_pid *out, int cap);

/* Send `sig` to every living descendant of `root` outside process group
 * `skip_pgrp` (the caller signals that group as a whole: a process must not
 * get one signal twice); returns how many were signalled. */
int gsd_reap_signal_tree(pid_t root, int sig, pid_t skip_pgrp);

/* Write `n` processes to RUNDIR/pids ("PID START" lines, mode 0600,
 * temporary file + rename).  0 or -1. */
int gsd_reap_record(const char *rundir, const struct gsd_pid *p, int n);

/* The supervisor of RUNDIR is gone without its exit file: SIGKILL every
 * process recorded in RUNDIR/pids that is still the same process (its start
 * time matches) and every descendant of those, then wait up to `wait_ms`
 * for them to be gone (or zombies).  Returns how many were killed (0 when
 * nothing was recorded or nothing was left). */
int gsd_reap_lost(const char *rundir, int wait_ms);

#endif

/* gpuschedd-supervise: the per-attempt supervisor as a program of its own.
 *
 * gpuschedd starts one supervisor per job attempt (backend.c); the
 * supervisor runs the job's command under the job's identity, waits for it
 * and writes RUNDIR/exit (supervise.c has the protocol).  gpuschedd itself
 * can run that code as `gpuschedd --supervise`, but gpuschedd links
 * libmicrohttpd and through it GnuTLS, whose load-time initialisation costs
 * about 4 ms of CPU per exec on this machine; this program links only libc,
 * so a job's start pays for two small execs instead (bench_daemon case 7).
 * The argv is the same as gpuschedd's supervisor mode:
 *   gpuschedd-supervise --supervise RUNDIR FD OUT ERR CWD USER -- CMD...
 */
#include "daemon/daemon.h"

int main(int argc, char **argv)
{
    return gsd_supervise_main(argc, argv);
}

# slurm_lib.sh - shared by the tests that run gpuschedd --backend slurm on a
# private Slurm (slurm_backend*.t); source it after tap.sh and daemon_lib.sh.
# Debug variant only: starting Slurm twice per run of the suite costs more
# than the sanitizer adds here.

# sstart ARGS: daemon_start, then wait for /readyz up to 20 s more (the
# start check and the restart read Slurm; slow on a loaded 2-core machine)
sstart() {
    daemon_start "$@"
    _k=0
    while [ $_k -lt 4 ] && ! wait_ready; do _k=$((_k + 1)); done
    [ $_k -lt 4 ]
}

# slurm_require [acct]: skip the whole test (exit 0) in the sanitizer
# variant or when Slurm 22.05 (and, with acct, slurmdbd + MariaDB + sacct)
# is not installed; else RUN is the private cluster's directory, stopped
# with gpuschedd (by pid) at exit.
slurm_require() {
    if [ "${GS_VARIANT:-debug}" = san ]; then
        echo "1..0 # SKIP the Slurm-cluster tests run in the debug variant"; exit 0
    fi
    if [ "${1:-}" = acct ]; then
        if [ ! -x /usr/sbin/slurmctld-wlm ] || [ ! -x /usr/sbin/slurmdbd ] ||
           ! command -v mariadbd >/dev/null || ! command -v sacct >/dev/null; then
            echo "1..0 # SKIP slurmctld / slurmdbd / mariadb-server / sacct not installed"; exit 0
        fi
    elif [ ! -x /usr/sbin/slurmctld-wlm ] || ! command -v sbatch >/dev/null; then
        echo "1..0 # SKIP Slurm 22.05 (slurmctld slurmd slurm-client) not installed"; exit 0
    fi
    RUN=$TMP/slurm
    trap slurm_cleanup EXIT
}

slurm_cleanup() {
    [ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
    GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$RUN" >/dev/null 2>&1
    rm -rf "$TMP"
}

# slurm_acct_wait COUNT [ERE]: until the private cluster in RUN has its
# accounting caught up (slurmctld's DBD agent queue empty, at least COUNT
# ended sacct records matching ERE, none still open): scripts/slurm-local.sh
# acct-wait, the same wait `make demo-slurm` uses; up to SLURM_ACCT_TIMEOUT
# s (default 600).  Read sacct after jobs end only after this.
slurm_acct_wait() {
    "$ROOT/scripts/slurm-local.sh" acct-wait "$RUN" "$@"
}

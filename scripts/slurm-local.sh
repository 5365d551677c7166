#!/bin/bash
# slurm-local.sh - a private Slurm 22.05 cluster on 127.0.0.1 for tests and
# demos (docs/slurm.md).
#
#   scripts/slurm-local.sh up CLUSTER.yaml RUNDIR [--gpu-types] [--accounting]
#   . RUNDIR/env.sh        # SLURM_CONF and PATH for sinfo/squeue/sbatch/sacct
#   scripts/slurm-local.sh acct-wait RUNDIR COUNT [ERE]
#   scripts/slurm-local.sh down RUNDIR
#
# `up` renders the conf files from the cluster file (`gpusched slurm-conf`),
# starts one slurmctld and one slurmd per node (own ports, everything under
# RUNDIR; auth/none: no munge), with --accounting also a private MariaDB and
# slurmdbd, and waits until every node is idle.  `down` stops every daemon
# by its pid file (never by name).  Nothing in /etc/slurm or /run/munge is
# touched.  GPUSCHED (default bin/gpusched next to this script) renders.
# `acct-wait` waits until Slurm's accounting has caught up (see acct_wait).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${GPUSCHED:=$ROOT/bin/gpusched}"
: "${SLURM_SBIN:=/usr/sbin}"
: "${SLURM_UP_TIMEOUT:=60}"

die() { echo "slurm-local.sh: $*" >&2; exit 1; }

# start NAME PROGRAM ARGS...: run PROGRAM with argv[0] = NAME in the
# background (libslurm loads a node's Gres= only for programs named
# slurmctld/slurmd, so the name matters).
start() {
    name=$1; shift
    ( exec -a "$name" "$@" ) >>"$RUN/log/$name.out" 2>&1 &
}

wait_pidfile() { # wait_pidfile FILE SECONDS
    i=0
    while [ ! -s "$1" ]; do
        i=$((i + 1)); [ "$i" -le $(($2 * 10)) ] || return 1; sleep 0.1
    done
}

start_db() {
    db=$RUN/mysql
    mkdir -p "$db/data"
    mariadb-install-db --no-defaults --datadir="$db/data" --user=root \
        --auth-root-authentication-method=normal --skip-test-db >"$RUN/log/mariadb-install.log" 2>&1 \
        || die "mariadb-install-db failed (see $RUN/log/mariadb-install.log)"
    mariadbd --no-defaults --datadir="$db/data" --user=root --port="$DB_PORT" \
        --bind-address=127.0.0.1 --socket="$db/mysql.sock" --pid-file="$RUN/run/mariadb.pid" \
        --innodb-buffer-pool-size=32M --innodb-log-file-size=8M --innodb-lock-wait-timeout=900 \
        --log-error="$RUN/log/mariadb.log" >/dev/null 2>&1 &
    wait_pidfile "$RUN/run/mariadb.pid" 30 || die "mariadbd did not start (see $RUN/log/mariadb.log)"
    i=0
    until mariadb --no-defaults -uroot -h127.0.0.1 -P"$DB_PORT" -e 'select 1' >/dev/null 2>&1; do
        i=$((i + 1)); [ "$i" -le 300 ] || die "mariadb not answering on port $DB_PORT"; sleep 0.1
    done
}

start_dbd() {
    # slurmdbd reads slurmdbd.conf next to $SLURM_CONF (it has no -f).
    SLURM_CONF=$ETC/slurm.conf start slurmdbd "$SLURM_SBIN/slurmdbd" -D
    i=0
    until SLURM_CONF=$ETC/slurm.conf sacctmgr -n list cluster >/dev/null 2>&1; do
        i=$((i + 1)); [ "$i" -le 300 ] || die "slurmdbd not answering (see $RUN/log/slurmdbd.log)"
        sleep 0.1
    done
    SLURM_CONF=$ETC/slurm.conf sacctmgr -i add cluster "$NAME" >/dev/null 2>&1 || true
}

wait_idle() {
    n=$(wc -l <"$RUN/nodes.txt")
    i=0
    while :; do
        idle=$(SLURM_CONF=$ETC/slurm.conf sinfo -h -N -o '%N %t' 2>/dev/null |
               awk '$2 == "idle" { print $1 }' | sort -u | wc -l)
        [ "$idle" -ge "$n" ] && return 0
        i=$((i + 1))
        [ "$i" -le $((SLURM_UP_TIMEOUT * 10)) ] || {
            SLURM_CONF=$ETC/slurm.conf sinfo -N >&2 || true
            die "nodes not idle after ${SLURM_UP_TIMEOUT}s (see $RUN/log)"; }
        sleep 0.1
    done
}

up() {
    [ $# -ge 2 ] || die "usage: up CLUSTER.yaml RUNDIR [--gpu-types] [--accounting]"
    cluster=$1; RUN=$2; shift 2
    opts=; acct=0
    for o in "$@"; do
        case $o in
            --gpu-types) opts="$opts --gpu-types" ;;
            --accounting) opts="$opts --accounting"; acct=1 ;;
            *) die "unknown option '$o'" ;;
        esac
    done
    [ ! -e "$RUN/run/slurmctld.pid" ] || die "$RUN: a cluster runs there already (down first)"
    # A failed start stops what it started.
    trap 'rc=$?; [ "$rc" = 0 ] || down "$RUN" >/dev/null 2>&1; exit "$rc"' EXIT
    NAME=gs$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
    # shellcheck disable=SC2086
    "$GPUSCHED" slurm-conf --cluster "$cluster" --rundir "$RUN" --name "$NAME" $opts
    RUN=$(cd "$RUN" && pwd); ETC=$RUN/etc
    . "$RUN/ports.env"
    cat >"$RUN/env.sh" <<EOF
# source me: the private Slurm cluster in $RUN
export SLURM_CONF=$ETC/slurm.conf
export PATH=/usr/bin:/usr/sbin:\$PATH
EOF
    if [ "$acct" = 1 ]; then start_db; start_dbd; fi
    start slurmctld "$SLURM_SBIN/slurmctld-wlm" -D -i -f "$ETC/slurm.conf"
    wait_pidfile "$RUN/run/slurmctld.pid" 30 || die "slurmctld did not start (see $RUN/log)"
    while read -r node; do
        start slurmd "$SLURM_SBIN/slurmd-wlm" -D -N "$node" -f "$ETC/slurm.conf"
    done <"$RUN/nodes.txt"
    wait_idle
    trap - EXIT
    echo "slurm-local.sh: $(wc -l <"$RUN/nodes.txt") nodes idle; . $RUN/env.sh"
}

stop_pid() { # stop_pid PIDFILE: TERM, then KILL after 5 s
    [ -s "$1" ] || return 0
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null || { rm -f "$1"; return 0; }
    i=0
    while kill -0 "$pid" 2>/dev/null; do
        i=$((i + 1))
        if [ "$i" -ge 50 ]; then kill -9 "$pid" 2>/dev/null || true; break; fi
        sleep 0.1
    done
    rm -f "$1"
}

# acct_wait RUNDIR COUNT [ERE]: wait until Slurm's accounting has caught up
# with the jobs that ended: slurmctld's queue of messages to slurmdbd
# (sdiag's "DBD Agent queue size") is 0, sacct has at least COUNT ended
# allocation records whose "JobID|JobName|State" line matches ERE (default:
# every record; -D: every run of a requeued job is a record of its own) and
# none of them is still RUNNING, PENDING, REQUEUED or COMPLETING there.
# slurmdbd takes job records asynchronously and, on a loaded machine,
# minutes late, so this waits by what Slurm reports, not by a fixed time:
# up to SLURM_ACCT_TIMEOUT s (default 600), with a progress line on stderr
# every SLURM_ACCT_EVERY s (default 10).  0 when caught up; 1 after the
# deadline, with the counts and the last lines of slurmctld's and slurmdbd's
# logs on stderr.  sacct and sdiag block while slurmdbd or slurmctld does
# not answer, so each call has its own limit (30 s, or the deadline if less).
acct_wait() {
    [ $# -ge 2 ] || die "usage: acct-wait RUNDIR COUNT [ERE]"
    RUN=$1; want=$2; re=${3:-.}
    [ -f "$RUN/etc/slurm.conf" ] || die "$RUN: not a slurm-local runtime directory"
    export SLURM_CONF=$RUN/etc/slurm.conf
    limit=${SLURM_ACCT_TIMEOUT:-600}; every=${SLURM_ACCT_EVERY:-10}
    call=30; [ "$limit" -ge 30 ] || call=$limit
    t0=$(date +%s); next=$((t0 + every))
    while :; do
        q=$(timeout "$call" sdiag 2>/dev/null | sed -n 's/^DBD Agent queue size: *//p')
        recs=$(timeout "$call" sacct -a -X -D -n -P -S 1970-01-01T00:00:00 -o JobID,JobName,State \
               2>/dev/null | grep -E -- "$re" || true)
        open=$(printf '%s\n' "$recs" | grep -cE '\|(RUNNING|PENDING|REQUEUED|COMPLETING)$' || true)
        ended=$(printf '%s\n' "$recs" | grep -v '^$' | grep -cvE '\|(RUNNING|PENDING|REQUEUED|COMPLETING)$' || true)
        now=$(date +%s)
        msg="accounting: $ended/$want records, ${open} not ended, DBD agent queue ${q:-?}"
        if [ "${q:-x}" = 0 ] && [ "$ended" -ge "$want" ] && [ "$open" = 0 ]; then
            echo "$msg: caught up after $((now - t0)) s" >&2
            return 0
        fi
        if [ "$now" -ge $((t0 + limit)) ]; then
            echo "slurm-local.sh: $msg after $limit s: accounting did not catch up" >&2
            for l in slurmctld slurmdbd; do
                echo "--- last lines of $RUN/log/$l.log" >&2
                tail -n 15 "$RUN/log/$l.log" >&2 2>/dev/null || true
            done
            return 1
        fi
        [ "$now" -lt "$next" ] || { echo "$msg ($((now - t0)) s)" >&2; next=$((now + every)); }
        sleep 0.5
    done
}

down() {
    [ $# -eq 1 ] || die "usage: down RUNDIR"
    RUN=$1
    [ -d "$RUN/run" ] || die "$RUN: not a slurm-local runtime directory"
    # Cancel the jobs first so that no slurmstepd outlives its slurmd.
    if [ -s "$RUN/run/slurmctld.pid" ] && kill -0 "$(cat "$RUN/run/slurmctld.pid")" 2>/dev/null; then
        export SLURM_CONF="$RUN/etc/slurm.conf"
        scancel --full -u "$(id -un)" >/dev/null 2>&1 || true
        i=0
        while [ -n "$(squeue -h -t R,CG -o %i 2>/dev/null)" ] && [ "$i" -lt 100 ]; do
            i=$((i + 1)); sleep 0.1
        done
    fi
    # wait only for these stoppers: `up` may have started daemons from this shell
    pids=
    for f in "$RUN"/run/slurmd-*.pid; do
        [ -e "$f" ] || continue
        stop_pid "$f" & pids="$pids $!"
    done
    # shellcheck disable=SC2086
    [ -z "$pids" ] || wait $pids
    stop_pid "$RUN/run/slurmctld.pid"
    stop_pid "$RUN/run/slurmdbd.pid"
    stop_pid "$RUN/run/mariadb.pid"
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case $cmd in
    up) up "$@" ;;
    down) down "$@" ;;
    acct-wait) acct_wait "$@" ;;
    *) die "usage: slurm-local.sh up CLUSTER.yaml RUNDIR [--gpu-types] [--accounting] | acct-wait RUNDIR COUNT [ERE] | down RUNDIR" ;;
esac

#!/bin/sh
# eta-sacct.sh - the start-time promise calibration on a real sacct log
# (docs/eta.md, section 4): a private Slurm 22.05 with accounting
# (scripts/slurm-local.sh --accounting, on examples/seed-cluster.yaml: 4
# nodes x 8 GPUs) runs N jobs of 1, 2, 4 or 8 GPUs sleeping 1-10 s, one
# every 0-0.9 s (sizes, durations and gaps from a fixed LCG, so the
# submissions are the same at every run; Slurm's own starts are not); its
# `sacct -P` is imported, replayed under EASY on the users' limits, and
# scripts/eta_calibrate.py compares the promises with the simulator's
# starts and with Slurm's real ones (submit + observed_wait).
#
# usage: scripts/eta-sacct.sh     T=DIR (default /tmp/gpusched-eta-sacct),
#   G=BINARY (default bin/gpusched), N=JOBS (default 150)
# Needs slurmctld/slurmd/slurmdbd 22.05, mariadb-server and sacct
# (scripts/deps.sh); everything runs under T and is stopped by pid.
set -eu
cd "$(dirname "$0")/.."
T=${T:-/tmp/gpusched-eta-sacct}
G=${G:-bin/gpusched}
N=${N:-150}
RUN=$T/slurm
mkdir -p "$T"
trap 'GPUSCHED=$G scripts/slurm-local.sh down "$RUN" >/dev/null 2>&1 || true' EXIT
GPUSCHED=$G scripts/slurm-local.sh up examples/seed-cluster.yaml "$RUN" --accounting >"$T/up.log" 2>&1
. "$RUN/env.sh"
x=7
i=0
while [ $i -lt "$N" ]; do
    x=$(( (x * 1103515245 + 12345) % 2147483648 ))
    g=$(( 1 << (x / 65536 % 4) ))
    d=$(( 1 + x / 16 % 10 ))
    sbatch --parsable -J "e$i" --gres=gpu:$g -t 1 -o /dev/null --wrap "sleep $d" >/dev/null
    sleep "0.$(( x / 256 % 10 ))"
    i=$((i + 1))
done
k=0
while [ "$(squeue -h | wc -l)" -gt 0 ] && [ $k -lt 1200 ]; do sleep 0.5; k=$((k + 1)); done
scripts/slurm-local.sh acct-wait "$RUN" "$N" >/dev/null 2>"$T/acct-wait.err"
FMT=Priority,NodeList,State,JobName,User,Account,Partition,NNodes,ReqTRES,AllocTRES,Timelimit,Elapsed,End,Start,Submit,JobID
sacct -a -D -X -P --format=$FMT >"$T/acct.txt"
"$G" import --format sacct --in "$T/acct.txt" --trace-out "$T/trace.csv" >"$T/import.log" 2>&1
"$G" sim --cluster examples/seed-cluster.yaml --trace "$T/trace.csv" \
    --policy examples/policies/easy-user.yaml --out "$T/out" >/dev/null 2>&1
echo "| run | truth | subset | jobs | engine estimate | calibrated point | naive now | naive class median | P90 coverage |"
echo "|---|---|---|---|---|---|---|---|---|"
python3 scripts/eta_calibrate.py "sacct seed easy-user" "$T/out" "$T/trace.csv"

#!/bin/sh
# slurm-vs-gpusched.sh - `make demo-slurm`: the same workload, two schedulers,
# on one private Slurm 22.05 cluster (docs/slurm-backend.md, "Same workload,
# two schedulers").
#
#   scripts/slurm-vs-gpusched.sh [--trace T.csv | --jobs 48 --seed 1]
#       [--scale 60] [--policy examples/demo-pack.yaml] [--out DIR]
#       [--cluster examples/seed-cluster.yaml] [--timeout 3600] [--unit min|s]
#
#  1. Start a private Slurm (scripts/slurm-local.sh up CLUSTER --gpu-types
#     --accounting: sched/backfill, select/cons_tres, one GRES type per GPU,
#     slurmdbd + MariaDB).
#  2. Run (a): every job submitted straight to Slurm with sbatch at its
#     submit time / SCALE, `sleep duration/SCALE`, --gres=gpu:N, the same
#     time limit in whole minutes (scripts/slurm_vs_gpusched.py submit).
#     Slurm's scheduler decides.  Wait until all are done.
#  3. Run (b): the same trace through `gpusched replay --scale SCALE` into
#     `gpuschedd --backend slurm --clock-scale SCALE --policy POLICY` over the
#     same Slurm.  gpuschedd decides; Slurm runs.
#  4. `gpusched sim` of the same trace, cluster and policy.
#  5. Both runs' outcomes from Slurm's accounting (sacct -a -X -D -P), the
#     side-by-side table (waits by GPU count, S_8) and gpuschedd-vs-sim
#     agreement: scripts/slurm_vs_gpusched.py report.
#
# Without --trace the workload is the seed's mix: `gpusched gen --jobs 48
# --seed 1 --load 0.9 --mix 1:45:10m,2:25:15m,4:10:20m,8:20:1h` (1, 2, 4 and
# 8-GPU jobs; gen draws no multi-node sizes), and every third 8-GPU job asks
# for 16 GPUs (two whole nodes).  Everything lands in DIR (default
# build/slurm-vs-gpusched): trace.csv, acct.txt (Slurm's records),
# a-submit.csv, b-live.csv, sim/, schedules.csv, s8.csv, report.json,
# report.txt.  Exit status 0 only when every job ran exactly once under each
# scheduler.  Slurm and gpuschedd are stopped by pid on every exit; when the
# run fails, Slurm's and gpuschedd's logs are kept in DIR/logs first.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${GPUSCHED:=$ROOT/bin/gpusched}"
: "${GPUSCHEDD:=$ROOT/bin/gpuschedd}"
TRACE='' JOBS=48 SEED=1 X=60 TIMEOUT=3600 UNIT=min
POLICY=$ROOT/examples/demo-pack.yaml
CLUSTER=$ROOT/examples/seed-cluster.yaml
OUT=$ROOT/build/slurm-vs-gpusched
die() { echo "slurm-vs-gpusched.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || die "option $1 needs a value"
    case $1 in
        --trace) TRACE=$2 ;; --jobs) JOBS=$2 ;; --seed) SEED=$2 ;; --scale) X=$2 ;;
        --policy) POLICY=$2 ;; --cluster) CLUSTER=$2 ;; --out) OUT=$2 ;;
        --timeout) TIMEOUT=$2 ;; --unit) UNIT=$2 ;;
        *) die "unknown option '$1' (see the header of $0)" ;;
    esac
    shift 2
done
if [ ! -x /usr/sbin/slurmctld-wlm ] || [ ! -x /usr/sbin/slurmdbd ] || ! command -v sbatch >/dev/null ||
   ! command -v sacct >/dev/null || ! command -v mariadbd >/dev/null; then
    die "needs Slurm 22.05 with slurmdbd and mariadb-server (scripts/deps.sh)"
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/sim" "$OUT/b-state" "$OUT/logs"
RUN=$(mktemp -d "${TMPDIR:-/tmp}/gs-slurm-vs.XXXXXX")
DPID=
# shellcheck disable=SC2317 # called by cleanup
# keep_logs: on a failed run, the logs of Slurm's daemons and gpuschedd into
# OUT/logs (the run directory itself, with MariaDB's data, is removed)
keep_logs() {
    mkdir -p "$OUT/logs"
    cp -r "$RUN/slurm/log/." "$OUT/logs/" 2>/dev/null || true
    cp "$RUN/slurm/etc/"*.conf "$RUN/d.out" "$OUT/logs/" 2>/dev/null || true
    echo "slurm-vs-gpusched.sh: failed; the logs are in $OUT/logs" >&2
    for l in slurmctld slurmdbd; do
        [ -f "$OUT/logs/$l.log" ] || continue
        echo "--- last lines of $OUT/logs/$l.log" >&2
        tail -n 10 "$OUT/logs/$l.log" >&2
    done
}
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    rc=$?
    [ -z "$DPID" ] || kill -KILL "$DPID" 2>/dev/null || true
    [ "$rc" = 0 ] || keep_logs
    GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$RUN/slurm" >/dev/null 2>&1 || true
    rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
now() { date +%s.%N; }
say() { echo "== $*" >&2; }

if [ -n "$TRACE" ]; then
    cp "$TRACE" "$OUT/trace.csv"
else
    "$GPUSCHED" gen --jobs "$JOBS" --seed "$SEED" --load 0.9 --cluster "$CLUSTER" \
        --mix 1:45:10m,2:25:15m,4:10:20m,8:20:1h |
        awk -F, 'BEGIN { OFS = "," } NR > 1 && $4 == 8 { k++; if (k % 3 == 0) $4 = 16 } { print }' \
        >"$OUT/trace.csv"
fi
N=$(awk 'NR > 1' "$OUT/trace.csv" | wc -l)

say "private Slurm: $(basename "$CLUSTER"), per-GPU GRES types, accounting"
GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$CLUSTER" "$RUN/slurm" --gpu-types \
    --accounting >"$OUT/slurm-up.log" 2>&1 || { cat "$OUT/slurm-up.log" >&2; exit 1; }
. "$RUN/slurm/env.sh"
export SLURM_TIME_FORMAT=%s
sinfo -h -N -o '%N %G' >"$OUT/sinfo.txt"

# wait_empty WHAT: until Slurm has no job left (TIMEOUT)
wait_empty() {
    _end=$(($(date +%s) + TIMEOUT))
    while [ -n "$(squeue -h -o %i)" ]; do
        [ "$(date +%s)" -lt "$_end" ] || die "$1: jobs still in Slurm after $TIMEOUT s"
        sleep 1
    done
}

say "run (a): $N jobs straight to Slurm (sbatch at submit/$X s; Slurm's backfill decides)"
t=$(now)
python3 "$ROOT/scripts/slurm_vs_gpusched.py" submit "$OUT/trace.csv" "$X" "$OUT/a-submit.csv" \
    >"$OUT/a.t0"
wait_empty "run (a)"
say "run (a) done in $(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s"

say "run (b): the same trace through gpuschedd --backend slurm --clock-scale $X"
"$GPUSCHEDD" --cluster "$CLUSTER" --policy "$POLICY" --state "$OUT/b-state" --trust-loopback \
    --listen 127.0.0.1:0 --backend slurm --clock-scale "$X" --slurm-poll 0.2 --virtual-users \
    >"$RUN/d.out" 2>"$OUT/b-daemon.err" &
DPID=$!
i=0
until URL=$(sed -n 's/^listening on //p' "$RUN/d.out" 2>/dev/null | head -1) && [ -n "$URL" ] &&
      [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 200 ]; do
    kill -0 "$DPID" 2>/dev/null || { cat "$OUT/b-daemon.err" >&2; die "gpuschedd exited"; }
    i=$((i + 1)); [ $i -lt 600 ] || die "gpuschedd not ready after 30 s"
    sleep 0.05
done
t=$(now)
echo "$t" >"$OUT/b.t0"
"$GPUSCHED" replay --server "$URL" --trace "$OUT/trace.csv" --scale "$X" --wait \
    --timeout "${TIMEOUT}s" --out "$OUT/b-live.csv" 2>"$OUT/b-replay.err" ||
    { cat "$OUT/b-replay.err" >&2; die "replay failed"; }
kill -TERM "$DPID"
wait "$DPID" || true
DPID=
wait_empty "run (b)"
say "run (b) done in $(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s"
# the gpusched job of each journal seq (Slurm's job names are gs:SEQ:ATTEMPT)
python3 - "$OUT/b-state/journal.db" >"$OUT/b-map.csv" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print("seq,id")
for seq, jid in db.execute("select seq, id from jobs order by seq"):
    print("%d,%s" % (seq, jid))
EOF

# slurmdbd learns of ends asynchronously (minutes late on a loaded machine):
# wait until slurmctld's queue to slurmdbd is drained and sacct has all 2N
# ended records (scripts/slurm-local.sh acct-wait; progress every 10 s)
t=$(now)
say "waiting for Slurm's accounting: $((2 * N)) records"
"$ROOT/scripts/slurm-local.sh" acct-wait "$RUN/slurm" $((2 * N)) '^[^|]*[|](sl|gs):' ||
    die "accounting did not catch up with the $((2 * N)) ended jobs"
ACCT_WAIT=$(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
say "accounting caught up in $ACCT_WAIT s"
sacct -a -X -D -P -S 1970-01-01T00:00:00 --format=JobID,JobName,State,Submit,Start,End,NNodes,NodeList,AllocTRES,Timelimit \
    >"$OUT/acct.txt"

"$GPUSCHED" sim --cluster "$CLUSTER" --policy "$POLICY" --trace "$OUT/trace.csv" \
    --out "$OUT/sim" >/dev/null
rc=0
python3 "$ROOT/scripts/slurm_vs_gpusched.py" report "$OUT" "$X" --unit "$UNIT" \
    >"$OUT/report.txt" || rc=$?
cat "$OUT/report.txt"
exit "$rc"

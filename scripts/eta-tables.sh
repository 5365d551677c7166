#!/bin/sh
# eta-tables.sh - the calibration tables of docs/eta.md: the start-time
# promise recorded at submit against the actual starts, with both naive
# predictors, on generated traces and on the AAIC quarters.
#
# usage: scripts/eta-tables.sh [gen] [aaic]     (default: both)
#   T=DIR  work folder (default /tmp/gpusched-eta), G=BINARY (default bin/gpusched)
#   AAIC=DIR the AAIC quarter files (default ../shared/traces/aaic)
# Every command runs from the repository root; the runs are deterministic.
set -eu
cd "$(dirname "$0")/.."
T=${T:-/tmp/gpusched-eta}
G=${G:-bin/gpusched}
AAIC=${AAIC:-../shared/traces/aaic}
CAL="python3 scripts/eta_calibrate.py"
mkdir -p "$T"
steps=${*:-gen aaic}
header() {
    echo "| run | truth | subset | jobs | engine estimate | calibrated point | naive now | naive class median | P90 coverage |"
    echo "|---|---|---|---|---|---|---|---|---|"
}

# Generated: 10,000 jobs on 16 nodes x 8 GPUs, offered load 0.7 and 0.9,
# five policies (examples/policies).
step_gen() {
    sed 's/node-\[1-4\]/node-[1-16]/' examples/seed-cluster.yaml >"$T/c16.yaml"
    header
    for load in 0.7 0.9; do
        "$G" gen --jobs 10000 --seed 7 --cluster "$T/c16.yaml" --load $load --out "$T/g-$load.csv"
        for p in fifo-user easy-user easy-hist-p50 conservative-user prio-aging-hist-p50; do
            "$G" sim --cluster "$T/c16.yaml" --trace "$T/g-$load.csv" \
                --policy examples/policies/$p.yaml --out "$T/o-$load-$p" >/dev/null 2>&1
            $CAL "gen $load $p" "$T/o-$load-$p"
        done
    done
}

# AAIC: each quarter replayed on 40 nodes under its real policy (fcfs +
# EASY on user walltimes, docs/aaic-replay.md), without and with the 5 s
# dispatch latency the log shows, against the simulator's starts and the
# log's real ones.
step_aaic() {
    header
    for q in 2017Q3 2017Q4 2018Q1 2018Q2 2018Q3; do
        [ -f "$T/$q.csv" ] || "$G" import --format aaic --in "$AAIC/aaicwl-$q.csv.gz" \
            --trace-out "$T/$q.csv" >/dev/null 2>&1
        [ -f "$T/c40.yaml" ] || "$G" import --format aaic --in "$AAIC/aaicwl-$q.csv.gz" \
            --cluster-out "$T/c40.yaml" --nodes 40 >/dev/null 2>&1
        for p in aaic-fcfs-easy aaic-fcfs-easy-latency; do
            "$G" sim --cluster "$T/c40.yaml" --trace "$T/$q.csv" --policy examples/$p.yaml \
                --out "$T/out-$q-$p" >/dev/null 2>&1
            $CAL "aaic $q ${p#aaic-}" "$T/out-$q-$p" "$T/$q.csv"
        done
    done
}

for s in $steps; do
    case $s in
    gen) step_gen ;;
    aaic) step_aaic ;;
    *) echo "eta-tables: unknown step $s (gen, aaic)" >&2; exit 2 ;;
    esac
done

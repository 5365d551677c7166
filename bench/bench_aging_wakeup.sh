#!/bin/sh
# bench_aging_wakeup.sh - the pathological cases of the old aging wakeup
# (a pass every queue.pass_interval while any job waits, so a simulation
# cost its simulated span / pass_interval), before and after.
#
# usage: bench/bench_aging_wakeup.sh [--cap S] [OLD_GPUSCHED]
#
# Each case runs `gpusched sim` (GPUSCHED, default build/release/bin/
# gpusched) with the default wakeup ("changes") and with queue.aging_wakeup:
# tick (the old rule, same binary), and with OLD_GPUSCHED (a build of the
# tree before the change) when given; each run is stopped after --cap
# seconds (default 60) and then reported as "> S".  Prints wall seconds and
# queue.passes per run.  Policy: priority, aging_rate 1, max_wait 30m,
# pass_interval 5m (the default), no backfill unless the case says easy.
#   latN   30 jobs of 8 GPUs x 1 h on one 8-GPU node, start_latency N
#   longN  a job of N s holds the node; 3 jobs (priorities 0-2) wait
set -eu
CAP=60
if [ "${1:-}" = "--cap" ]; then CAP=$2; shift 2; fi
NEW=${GPUSCHED:-build/release/bin/gpusched}
OLD=${1:-}
C=tests/data/cli/one-node.yaml
T=$(mktemp -d "${TMPDIR:-/tmp}/aging-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

{
    echo "id,submit,duration,gpus,priority"
    i=0
    while [ $i -lt 30 ]; do echo "j$i,$((i * 10)),3600,8,$((i % 5))"; i=$((i + 1)); done
} > "$T/lat30.csv"

# one BIN POLICY TRACE: prints "WALL PASSES"
one() {
    s=$(date +%s.%N)
    if timeout "$CAP" "$1" sim --cluster "$C" --trace "$3" --policy "$2" --json \
        > "$T/out.json" 2>/dev/null; then
        e=$(date +%s.%N)
        printf '%8.3f %12s' "$(echo "$e - $s" | bc)" "$(jq .queue.passes "$T/out.json")"
    else
        printf '%8s %12s' "> $CAP" "-"
    fi
}

# case NAME TRACE BACKFILL [LATENCY]
case_() {
    base="queue:\n  policy: priority\n  aging_rate: 1\n  max_wait_before_aging: 30m\n  backfill: $3\n"
    lat=""
    [ -n "${4:-}" ] && lat="start_latency:\n  median: $4\n"
    printf "$base$lat" > "$T/p.yaml"
    printf "$base  aging_wakeup: tick\n$lat" > "$T/tick.yaml"
    printf '%-16s' "$1"
    printf '  changes %s' "$(one "$NEW" "$T/p.yaml" "$2")"
    printf '  tick %s' "$(one "$NEW" "$T/tick.yaml" "$2")"
    [ -n "$OLD" ] && printf '  old %s' "$(one "$OLD" "$T/p.yaml" "$2")"
    echo
}

echo "case              (wall s, passes) per wakeup rule; cap $CAP s"
for l in 1e6 1e8 1e9 9e12; do
    case_ "lat$l" "$T/lat30.csv" none "${l}s"
done
for d in 1e8 1e9 1e12; do
    printf 'id,submit,duration,gpus,priority\nbig,0,%s,8,0\na,10,3600,8,0\nb,20,3600,8,2\nc,30,3600,8,1\n' \
        "$d" > "$T/long.csv"
    case_ "long$d" "$T/long.csv" none
    case_ "long$d-easy" "$T/long.csv" easy
done

#!/bin/sh
# failures-experiment.sh - the node-failure study of docs/failures.md: the
# seed's 4 x 8 cluster, a generated trace (2,000 jobs, seed 1, load 0.8),
# random node failures at several MTBF values (2 h repair), with and without
# checkpoints (every 30 min of work, 1 min each).  Prints one Markdown row
# per run.  Usage: scripts/failures-experiment.sh [GPUSCHED] [JOBS]
set -eu
G=${1:-bin/gpusched}
JOBS=${2:-2000}
C=examples/seed-cluster.yaml
W=$(mktemp -d "${TMPDIR:-/tmp}/gsfail.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$G" gen --jobs "$JOBS" --seed 1 --cluster "$C" --out "$W/plain.csv"
"$G" gen --jobs "$JOBS" --seed 1 --cluster "$C" --ckpt-interval 30m --ckpt-cost 1m \
    --out "$W/ckpt.csv"
echo "| MTBF per node | checkpoints | node failures | jobs hit | failed | lost GPU-h | ckpt GPU-h | wait p50 | wait p90 | wait p99 | wait max | span h |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for mtbf in none 10d 3d 1d 12h; do
    ev=""
    n=0
    if [ "$mtbf" != none ]; then
        # the same failures for both traces: drawn once, from the plain one
        "$G" gen --jobs "$JOBS" --seed 1 --cluster "$C" --mtbf "$mtbf" --repair 2h \
            --node-events-out "$W/ev-$mtbf.csv" --out "$W/unused.csv"
        ev="--node-events $W/ev-$mtbf.csv"
        n=$(grep -c ',down$' "$W/ev-$mtbf.csv" || true)
    fi
    for t in plain ckpt; do
        # shellcheck disable=SC2086
        "$G" sim --cluster "$C" --trace "$W/$t.csv" $ev --json --out "$W/o" >"$W/s.json"
        hit=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) h[$i] = i; next}
            $h["lost_gpu_s"] > 0 || $h["state"] == "failed" {n++} END {print n + 0}' "$W/o/jobs.csv")
        jq -r --arg m "$mtbf" --arg t "$t" --arg n "$n" --arg hit "$hit" '
            def h: (. / 3600 * 100 | round / 100 | tostring) + " h";
            "| \($m) | \(if $t == "ckpt" then "30m / 1m" else "none" end) | \($n) | \($hit) | \(.failed // 0) | \(.preemption.lost_gpu_hours * 10 | round / 10) | \(.preemption.checkpoint_gpu_hours * 10 | round / 10) | \(.wait.p50 | h) | \(.wait.p90 | h) | \(.wait.p99 | h) | \(.wait.max | h) | \(.span.seconds / 3600 * 10 | round / 10) |"' "$W/s.json"
    done
done

#!/bin/sh
# bench_failures.sh - a month of a 16,384-GPU cluster (2,048 nodes x 8 H100)
# with node failures at Llama 3's observed rate (docs/failures.md: per-node
# MTBF 6,335 h, repair 4 h), drawn inside the run by `sim --failures`.
#
# usage: bench/bench_failures.sh [--jobs N]     (GPUSCHED: the binary,
#        default build/release/bin/gpusched; N default 950000, a month)
#
# Case 1: the largest job alone: 15,360 GPUs (1,920 nodes; 128 idle spares)
#   for 30 days of work, checkpoint write 2 min, restore 5 min, intervals
#   30 min and 1 h and Young/Daly's sqrt(2 C M) for the job's MTBF
#   M = 6335 h / 1920 nodes: prints its ETTR and restarts, the first-order
#   model's ETTR, and the wall time.
# Case 2: the whole cluster busy: `gen --jobs N` at offered load 0.8 (N =
#   950,000 spans 30 days; checkpoints every 1 h of 1 min), simulated with
#   and without --failures: wall seconds, failures and the weighted ETTR.
set -eu
JOBS=950000
if [ "${1:-}" = "--jobs" ]; then JOBS=$2; shift 2; fi
G=${GPUSCHED:-build/release/bin/gpusched}
T=$(mktemp -d "${TMPDIR:-/tmp}/fail-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

{
    printf 'cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n'
    i=1
    while [ $i -le 2048 ]; do
        printf '    - { name: n%d, gpus: 8, gpu_type: H100-80G }\n' $i
        i=$((i + 1))
    done
} >"$T/c.yaml"
printf 'node_mtbf: 6335h\nrepair: 4h\nseed: 1\n' >"$T/llama.yaml"
printf 'retry:\n  max_attempts: 1000\n' >"$T/p.yaml"

# wall seconds of a command (its stdout to $T/out), and its user CPU
# seconds in parentheses where /usr/bin/time exists: on a shared machine
# the wall time follows the load, the CPU time much less
timed() {
    s=$(date +%s.%N)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %U -o "$T/cpu" "$@" >"$T/out"
    else
        "$@" >"$T/out"
        echo "?" >"$T/cpu"
    fi
    e=$(date +%s.%N)
    echo "$s $e $(cat "$T/cpu")" | awk '{printf "%.2f(cpu:%s)", $2 - $1, $3}'
}

M=$(awk 'BEGIN {print 6335 * 3600 / 1920}')
YD=$(awk -v m="$M" 'BEGIN {printf "%.0f", sqrt(2 * 120 * m)}')
echo "case 1: one 15,360-GPU job, 30 days of work; job MTBF $M s; Young/Daly $YD s"
echo "interval_s  ettr    first_order  restarts  lost_gpu_h  wall_s"
for tau in 1800 3600 "$YD"; do
    printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\n' >"$T/t.csv"
    printf 'big,0,2592000,15360,%s,120,300\n' "$tau" >>"$T/t.csv"
    w=$(timed "$G" sim --cluster "$T/c.yaml" --trace "$T/t.csv" --policy "$T/p.yaml" \
        --failures "$T/llama.yaml" --json)
    jq -r --arg tau "$tau" --arg w "$w" --arg m "$M" \
        '[$tau, (.failures.largest.ettr * 10000 | round / 10000),
          ((1 - (120 / ($tau | tonumber) + (($tau | tonumber) / 2 + 300) / ($m | tonumber)))
           * 10000 | round / 10000),
          .failures.largest.restarts, (.failures.lost_gpu_s / 3600 | round), $w] | @tsv' "$T/out"
done

echo "case 2: gen --jobs $JOBS on the whole cluster, load 0.8"
"$G" gen --jobs "$JOBS" --seed 1 --cluster "$T/c.yaml" --ckpt-interval 1h --ckpt-cost 1m \
    >"$T/bg.csv"
w0=$(timed "$G" sim --cluster "$T/c.yaml" --trace "$T/bg.csv" --json)
span=$(jq '.span.seconds / 86400 | . * 10 | round / 10' "$T/out")
w1=$(timed "$G" sim --cluster "$T/c.yaml" --trace "$T/bg.csv" --failures "$T/llama.yaml" --json)
jq -r --arg w0 "$w0" --arg w1 "$w1" --arg span "$span" \
    '"span \($span) d; no failures \($w0) s; with failures \($w1) s: \(.failures.events) failures, \(.failures.runs_ended) runs ended, \(.failures.lost_gpu_s / 3600 | round) GPU-h lost, ETTR \(.failures.ettr * 10000 | round / 10000)"' \
    "$T/out"

#!/bin/sh
# gpusched sim: a golden tiny trace worked out by hand.
#
# Cluster: one node, 8 GPUs, one NVLink domain.  FIFO, strict head of line.
#   A: 4 GPUs, 100 s, submit 0  -> starts 0, ends 100
#   B: 8 GPUs,  50 s, submit 0  -> needs the whole node: starts 100, ends 150
#   C: 2 GPUs,  10 s, submit 5  -> would fit beside A, but waits behind B
#                                  (head of line): starts 150, ends 160
# waits [0, 100, 145]: p50 100; p90 = 100 + 0.8*45 = 136; p99 = 100 + 0.98*45
# = 144.1; mean 245/3 = 81.667; max 145.
# util_alloc = (4*100 + 8*50 + 2*10) / (8 * 160) = 820 / 1280 = 0.640625
# jobs_per_gpu_day = 3 / (8 * 160 / 86400) = 202.5
# S_8 is 0 from 0 to 160 (the node is never fully free): mean 0, no window.
. "$(dirname "$0")/tap.sh"
plan 19
C=$DATA/one-node.yaml
T=$DATA/hol.csv

run "$GPUSCHED" sim --cluster "$C" --trace "$T" --json --out "$TMP/o"
ok $rc "sim exits 0"
j=$out
is "$(printf '%s' "$j" | jq '.jobs')" 3 "3 jobs"
is "$(printf '%s' "$j" | jq '.wait.p50')" 100 "wait p50 100"
is "$(printf '%s' "$j" | jq '.wait.p90')" 136 "wait p90 136"
is "$(printf '%s' "$j" | jq '.wait.p99')" 144.1 "wait p99 144.1"
is "$(printf '%s' "$j" | jq '.wait.max')" 145 "wait max 145"
is "$(printf '%s' "$j" | jq '.util_alloc')" 0.640625 "util_alloc 820/1280"
is "$(printf '%s' "$j" | jq '.jobs_per_gpu_day')" 202.5 "jobs_per_gpu_day 202.5"
is "$(printf '%s' "$j" | jq '.schedulability.mean')" 0 "S_8 mean 0"
is "$(printf '%s' "$j" | jq '.wait_by_size["5-8"].p50')" 100 "5-8 class: B waited 100"
is "$(awk -F, '$1=="C"{print $3","$4}' "$TMP/o/jobs.csv")" "150,160" "C runs 150-160 (behind B)"
is "$(awk -F, '$1=="B"{print $7}' "$TMP/o/jobs.csv")" "n1:0 n1:1 n1:2 n1:3 n1:4 n1:5 n1:6 n1:7" "B's placement lists all 8 GPUs"
is "$(head -1 "$TMP/o/timeline.csv")" "time,allocated_gpus,free_gpus,sched,fragmented_gpus,pending,running" "timeline.csv header"
ok $([ -s "$TMP/o/summary.json" ]; echo $?) "summary.json written"

run "$GPUSCHED" sim --cluster "$C" --trace "$T"
like "$out" "util_alloc 64.1%" "text table shows util_alloc"

# determinism: the same run twice writes the same jobs.csv
"$GPUSCHED" sim --cluster "$C" --trace "$T" --out "$TMP/p" >/dev/null 2>&1
ok $(cmp -s "$TMP/o/jobs.csv" "$TMP/p/jobs.csv"; echo $?) "same input, same schedule"

run "$GPUSCHED" sim --cluster "$C" --trace "$DATA/bad-gpus.csv"
is "$rc" 1 "bad trace: exit 1"
like "$out" "bad-gpus.csv:3" "error names file and line 3"
like "$out" "gpus" "error names the column"

#!/bin/sh
# gpusched sim: queue.max_job_test and queue.min_pass_interval (issue 10)
# on the hand-worked trace of sim.t (one 8-GPU node, FIFO, strict head of
# line; A 4 GPUs 100 s at 0, B 8 GPUs 50 s at 0, C 2 GPUs 10 s at 5).
#
# max_job_test 1: a pass tries one job; one that stops with jobs untried
# is continued by a pass at the same instant (docs/policy.md).
#   0 s: tries A (starts); B untried: 1 skipped.  Continuation at 0 s:
#        tries B (blocked by A); end of the queue.
#   5 s (C arrives): the last pass ended at the blocked head B, no GPU was
#        released since and fifo keeps the head: nothing can start, the
#        pass is cut short (C untried but not counted, no continuation).
#   100 s (A ends): tries B (starts); C untried: 2.  Continuation at 100 s:
#        tries C (blocked behind B, which holds the node).
#   150 s (B ends): tries C (starts).  160 s (C ends): empty queue.
#   The schedule is the unbounded one (B could not start before 100 s, C
#   waits behind B anyway): A 0-100, B 100-150, C 150-160; 7 passes
#   (0, 0, 5, 100, 100, 150, 160).
# min_pass_interval 60s (unbounded look-ahead):
#   0 s: pass, A starts.  5 s: held back (C).  60 s: pass (B blocked).
#   100 s (A ends): held back; 120 s: pass, B starts (ends 170).
#   170 s: held back; 180 s: pass, C starts (ends 190).  190 s: held back;
#   240 s: pass on an empty queue.  Passes 0, 60, 120, 180, 240; held back
#   5, 100, 170, 190.
. "$(dirname "$0")/tap.sh"
plan 16
C=$DATA/one-node.yaml
T=$DATA/hol.csv

printf 'queue:\n  policy: fifo\n  max_job_test: 1\n' > "$TMP/look.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$T" --policy "$TMP/look.yaml" --json --out "$TMP/o"
ok $rc "sim with max_job_test 1 exits 0"
is "$(printf '%s' "$out" | jq -c '.queue')" '{"passes":7,"held_back":0,"skipped":2}' \
   "7 passes (2 continuations), 2 jobs left untried"
is "$(awk -F, '$1=="B"{print $3","$4}' "$TMP/o/jobs.csv")" "100,150" "B runs 100-150"
is "$(awk -F, '$1=="C"{print $3","$4}' "$TMP/o/jobs.csv")" "150,160" "C runs 150-160"

run "$GPUSCHED" sim --cluster "$C" --trace "$T" --json
is "$(printf '%s' "$out" | jq '.queue.skipped')" 0 "default look-ahead: nothing skipped on a short queue"

printf 'queue:\n  policy: fifo\n  min_pass_interval: 60s\n' > "$TMP/gap.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$T" --policy "$TMP/gap.yaml" --json --out "$TMP/g"
ok $rc "sim with min_pass_interval 60s exits 0"
is "$(printf '%s' "$out" | jq -c '.queue')" '{"passes":5,"held_back":4,"skipped":0}' \
   "5 passes, 4 held back"
is "$(awk -F, '$1=="A"{print $3","$4}' "$TMP/g/jobs.csv")" "0,100" "A runs 0-100"
is "$(awk -F, '$1=="B"{print $3","$4}' "$TMP/g/jobs.csv")" "120,170" "B starts at the 120 s pass"
is "$(awk -F, '$1=="C"{print $3","$4}' "$TMP/g/jobs.csv")" "180,190" "C starts at the 180 s pass"

printf 'queue:\n  max_job_test: -1\n' > "$TMP/bad.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$T" --policy "$TMP/bad.yaml"
is "$rc" 1 "negative max_job_test: exit 1"
like "$out" "max_job_test" "error names the key"

# The issue's burst (issue 23): 200 one-GPU jobs of 1,000 s at 0 on 64 x 8
# idle GPUs, max_job_test 100.  Without a continuation 100 started at 0
# and 100 waited 1,000 s (until the first end) with 412 GPUs free.  Pass 1
# starts 100 and leaves 100 untried; its continuation at 0 s starts the
# other 100 (each fits: 412 free); the 200 end at 1,000 s: one more pass.
{ printf 'cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n'
  i=1; while [ $i -le 64 ]; do printf '    - { name: n%d, gpus: 8, gpu_type: H100-80G }\n' $i; i=$((i + 1)); done
} > "$TMP/c64.yaml"
{ echo id,submit,duration,gpus; i=1; while [ $i -le 200 ]; do echo "j$i,0,1000,1"; i=$((i + 1)); done; } > "$TMP/burst.csv"
printf 'queue:\n  max_job_test: 100\n' > "$TMP/b100.yaml"
run "$GPUSCHED" sim --cluster "$TMP/c64.yaml" --trace "$TMP/burst.csv" --policy "$TMP/b100.yaml" --json --out "$TMP/b"
ok $rc "burst sim exits 0"
is "$(awk -F, 'NR > 1 && $3 == 0' "$TMP/b/jobs.csv" | wc -l | tr -d ' ')" 200 "all 200 start at 0"
is "$(printf '%s' "$out" | jq -c '.queue')" '{"passes":3,"held_back":0,"skipped":100}' \
   "passes 0, 0 (continuation), 1000; 100 left untried by the first"
run "$GPUSCHED" sim --cluster "$TMP/c64.yaml" --trace "$TMP/burst.csv" --json --out "$TMP/bd"
is "$(awk -F, 'NR > 1 && $3 == 0' "$TMP/bd/jobs.csv" | wc -l | tr -d ' ')" 200 "default policy: all 200 start at 0"

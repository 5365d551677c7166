#!/bin/sh
# gpusched sim: queue.max_job_test and queue.min_pass_interval (issue 10)
# on the hand-worked trace of sim.t (one 8-GPU node, FIFO, strict head of
# line; A 4 GPUs 100 s at 0, B 8 GPUs 50 s at 0, C 2 GPUs 10 s at 5).
#
# max_job_test 1: a pass tries one job.
#   0 s: tries A (starts); B untried: 1 skipped.
#   5 s (C arrives): tries B (blocked by A); C untried: 2.
#   100 s (A ends): tries B (starts); C untried: 3.
#   150 s (B ends): tries C (starts).  160 s (C ends): empty queue.
#   The schedule is the unbounded one (B could not start before 100 s, C
#   waits behind B anyway): A 0-100, B 100-150, C 150-160; 5 passes.
# min_pass_interval 60s (unbounded look-ahead):
#   0 s: pass, A starts.  5 s: held back (C).  60 s: pass (B blocked).
#   100 s (A ends): held back; 120 s: pass, B starts (ends 170).
#   170 s: held back; 180 s: pass, C starts (ends 190).  190 s: held back;
#   240 s: pass on an empty queue.  Passes 0, 60, 120, 180, 240; held back
#   5, 100, 170, 190.
. "$(dirname "$0")/tap.sh"
plan 12
C=$DATA/one-node.yaml
T=$DATA/hol.csv

printf 'queue:\n  policy: fifo\n  max_job_test: 1\n' > "$TMP/look.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$T" --policy "$TMP/look.yaml" --json --out "$TMP/o"
ok $rc "sim with max_job_test 1 exits 0"
is "$(printf '%s' "$out" | jq -c '.queue')" '{"passes":5,"held_back":0,"skipped":3}' \
   "5 passes, 3 jobs left untried"
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

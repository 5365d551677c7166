#!/bin/sh
# gpusched sim: the start-time promise recorded at submit (docs/eta.md).
#
# Cluster: one node of 8 GPUs.  fifo + EASY backfill on user time limits.
#   A: 8 GPUs, runs 100 s, limit 200 s, submit 0   -> starts at once: est 0, basis now
#   B: 4 GPUs, runs  50 s, limit 100 s, submit 10  -> the pass at 10 reserves the node
#      for B at A's planned end 0 + 200 = 200: est 200, basis reservation; A really
#      ends at 100, so B starts at 100.
# No error is known when either promise is made: no P90 bound (empty cells), and the
# calibrated point (est_start_cal_at_submit) is the engine's estimate.
# summary.json eta: 2 promises, both estimated and started; |error| 0 and 100:
# median 50, P90 (nearest rank, ceil(0.9 x 2) = 2nd) 100; naive "now": |0|, |100 - 10|
# = 90, median 45; naive class median: no job of A's class (5-8) or B's (2-4) had
# started, so both predict the submit: the same 45.  No bound: coverage null.
. "$(dirname "$0")/tap.sh"
plan 12
C=$DATA/one-node.yaml
printf 'id,submit,duration,gpus,time_limit\nA,0,100,8,200\nB,10,50,4,100\n' >"$TMP/t.csv"
printf 'queue: {policy: fifo, backfill: easy, duration_estimate: user}\n' >"$TMP/p.yaml"

run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" --json --out "$TMP/o"
ok $rc "sim exits 0"
is "$(head -1 "$TMP/o/jobs.csv" | cut -d, -f16-)" \
   "est_start_at_submit,est_start_p90_at_submit,est_basis_at_submit,est_start_cal_at_submit" \
   "jobs.csv: the four promise columns at the end"
is "$(awk -F, '$1=="A"{print $3","$16","$17","$18","$19}' "$TMP/o/jobs.csv")" "0,0,,now,0" "A: starts 0, promised 0 (now), no bound"
is "$(awk -F, '$1=="B"{print $3","$16","$17","$18","$19}' "$TMP/o/jobs.csv")" "100,200,,reservation,200" \
   "B: starts 100, promised 200 (reservation behind A's limit), no bound"
e=$(printf '%s' "$out" | jq -c '.eta.all')
is "$(printf '%s' "$e" | jq -c '[.n, .median_abs_error_s, .p90_abs_error_s, .calibrated_median_abs_error_s]')" \
   "[2,50,100,50]" "eta.all: n 2, median 50, P90 100; calibrated = raw here"
is "$(printf '%s' "$e" | jq -c '[.naive_now_median_abs_error_s, .naive_class_median_abs_error_s]')" "[45,45]" \
   "eta.all: both naive predictors 45"
is "$(printf '%s' "$e" | jq -c '[.with_bound, .p90_coverage]')" "[0,null]" "no bound yet: coverage null"
is "$(jq -c '.eta | [.jobs, .estimated, .unstarted]' "$TMP/o/summary.json")" "[2,2,0]" "summary.json has the same eta object"
is "$(jq -c '.eta.by_basis.reservation | [.n, .median_abs_error_s]' "$TMP/o/summary.json")" "[1,100]" "by basis: reservation B, error 100"
is "$(jq -c '.eta.by_size["5-8"] | [.n, .median_abs_error_s]' "$TMP/o/summary.json")" "[1,0]" "by size: 5-8 is A, error 0"

# The HTML report's promised-against-actual chart: one dot, B (A's promise was "now").
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" --html "$TMP/r.html"
ok $rc "sim --html exits 0"
is "$(grep -c '<circle' "$TMP/r.html") $(grep -c 'id="chart-eta"' "$TMP/r.html")" "1 1" \
   "chart-eta draws one dot: B, the only job whose promise was not now"

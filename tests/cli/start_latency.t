#!/bin/sh
# start_latency.t - the daemon's measured start latency (decision to
# confirmed running, engine time) and its way into the simulator: /metrics
# and /v1/cluster report it, `gpusched start-latency` prints it as policy
# keys, `sim --start-latency-from URL|FILE` uses it (docs/daemon.md,
# "Start latency").  A real gpuschedd on 127.0.0.1, own port and state dir.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 17

C=$ROOT/examples/seed-cluster.yaml
run "$GPUSCHED" start-latency --help
like "$out" "usage: gpusched start-latency" "start-latency --help prints its usage"
run "$GPUSCHED" start-latency --server http://127.0.0.1:1
is "$rc" 1 "no daemon there: exit 1"
run "$GPUSCHED" sim --cluster "$C" --trace "$ROOT/tests/data/cli/live-equiv.csv" --start-latency-from http://127.0.0.1:1
is "$rc" 1 "sim --start-latency-from an unreachable daemon: exit 1"
X=10
# 6 jobs of 1-2 GPUs, 2 s each: on the idle 4 x 8 cluster each starts when
# it is submitted, so its live wait is (decision - submit) + its latency
printf 'id,submit,duration,gpus\nl1,0,2,1\nl2,1,2,2\nl3,2,2,1\nl4,3,2,1\nl5,4,2,2\nl6,5,2,1\n' > "$TMP/t.csv"

start_daemon --cluster "$C" --clock-scale "$X"
ok $? "daemon starts with --clock-scale $X"
"$GPUSCHED" replay --trace "$TMP/t.csv" --scale "$X" --wait --timeout 1m --out "$TMP/live.csv" \
    >/dev/null 2>"$TMP/replay.err"
ok $? "replay runs the 6 jobs"
curl -s "$GPUSCHED_SERVER/metrics" > "$TMP/metrics.txt"
is "$(awk '$1 == "gpusched_start_latency_seconds_count" { print $2 }' "$TMP/metrics.txt")" 6 \
   "/metrics: 6 start latencies measured"
med=$(awk '$1 == "gpusched_start_latency_median_seconds" { print $2 }' "$TMP/metrics.txt")
ok "$(awk -v m="$med" 'BEGIN { print !(m > 0 && m < 5) }')" "median latency $med engine s (> 0)"

run "$GPUSCHED" start-latency
like "$out" "^start_latency: {median: [0-9.]*s, sigma: [0-9.]*}$" "start-latency prints the policy keys"
like "$out" "6 starts, decision to running" "... and how many starts they come from"
"$GPUSCHED" start-latency --json > "$TMP/lat.json"
# the same number through both endpoints (JSON to 6 decimals like /metrics)
is "$(jq -r '.median * 1e6 | round' "$TMP/lat.json")" "$(awk -v m="$med" 'BEGIN { printf "%d", m * 1e6 + 0.5 }')" \
   "/v1/cluster and /metrics report the same median"
# each live wait is at least that job's latency (the decision comes at or
# after the submit), so the geometric mean of the waits (replay --out,
# engine s) bounds the median, exp(mean ln latency), from above
gm=$(awk -F, 'NR > 1 { s += log($5 > 0.001 ? $5 : 0.001); n++ } END { printf "%.6f", exp(s / n) }' "$TMP/live.csv")
ok "$(awk -v g="$gm" -v m="$med" 'BEGIN { print !(g >= m - 1e-6) }')" \
   "geometric mean of the live waits $gm >= the median latency $med"

run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --start-latency-from "$GPUSCHED_SERVER" --json
like "$out" "start latency from $GPUSCHED_SERVER: median " "sim takes the latency from the daemon"
url_p50=$(printf '%s' "$out" | sed -n '/^{/,$p' | jq '.wait.p50')
stop_daemon
# idle cluster: without a latency every job starts at its submit (wait 0);
# with it the waits are the draws, the same from the saved file as from the URL
file_p50=$("$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --start-latency-from "$TMP/lat.json" --json 2>/dev/null | jq '.wait.p50')
ok "$(awk -v u="$url_p50" -v f="$file_p50" 'BEGIN { print !(u > 0 && u == f) }')" \
   "sim wait p50 $url_p50 s from the URL = $file_p50 s from the file (> 0)"
printf '{"start_latency": {"starts": 0, "median": 0, "sigma": 0}}\n' > "$TMP/none.json"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --start-latency-from "$TMP/none.json"
like "$out" "no start measured yet" "a daemon that started nothing gives no latency, and says so"
# the daemon draws no latency (the engine is handed none; its launches'
# delay is real): it names the policy's start_latency keys as ignored, and
# a job under that policy runs to completion as under any other
printf 'start_latency:\n  median: 900s\n' > "$TMP/lat-policy.yaml"
start_daemon --cluster "$C" --policy "$TMP/lat-policy.yaml" --clock-scale "$X"
like "$(cat "$TMP/daemon.err")" "start_latency.\* is the simulator's model; ignored here" \
    "gpuschedd says it ignores the policy's start_latency"
"$GPUSCHED" submit --id lat1 --gpus 1 -- true >/dev/null 2>&1
wait_for is_state lat1 completed
ok $? "a job under that policy runs and completes"
stop_daemon
is "$(cat "$TMP"/daemon.err "$TMP"/*/run/*/supervisor.log 2>/dev/null | grep -c 'Sanitizer\|runtime error')" 0 \
   "no sanitizer report from gpuschedd"

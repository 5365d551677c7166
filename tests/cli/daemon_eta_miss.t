#!/bin/sh
# Censored misses in the daemon (docs/eta.md, section 6): when a queued
# job's P90 bound passes before it starts, the calibration is told the miss
# once (the adaptive level of the job's three keys rises by 0.005 x 0.9 =
# 0.0045 each), the promise's eta_aux says so (" m"), and a restart, even
# kill -9, neither forgets nor repeats it; /metrics counts it
# (gpusched_eta_missed_total, gpusched_eta_waiting_past_bound_jobs).
# Jobs (seed cluster 4 x 8 GPUs, EASY backfill on the users' time limits,
# --clock-scale 60): 22 times, B (32 GPUs, 10 min limit) runs 0.3 s while E
# (8 GPUs) waits on B's reservation (its end by the limit, 10 min) and
# starts at B's real end (about 20 s of engine time): so the key (5-8 GPUs,
# reservation, nothing queued ahead) learns from 22 jobs that waits are
# about a tenth of the reservation's horizon.  Then A holds all 32 GPUs
# with a 1 h limit and runs on; W (8 GPUs, the same key) is promised A's
# end by its limit (1 h) as the engine's estimate and a bound a few
# minutes after its submit (about 7 s of wall time), which passes while it
# waits and the daemon runs.  W2 (8 GPUs, behind W: another key, whose
# class holds the same 22 jobs) gets a bound of the same kind, which passes
# while the daemon is down after a kill -9.  A miss is told to three keys
# (with the bucket, with the basis, the class), each up 0.0045, so each
# miss adds 0.0135 to the sum of the levels, read from the journal
# (eta_cal_key); nothing else moves a level while A holds the cluster (no
# job starts).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 18
C=$ROOT/examples/seed-cluster.yaml
P=$DATA/live-equiv.yaml
S=60
metric() { curl -s "$GPUSCHED_SERVER/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
q() { sqlite3 -cmd ".timeout 5000" "file:$STATE/journal.db?mode=ro" "$1" 2>/dev/null; }
# the keys' levels above their start (0.9), summed (rows of the class
# waits and of the errors' window carry level 0); a key without a row is
# still at 0.9
levels() { q "SELECT printf('%.4f', total(level - 0.9)) FROM eta_cal_key WHERE level > 0"; }
# misses counted since the 22 training jobs ended (m0, below): one of them
# may itself have waited past its bound on a loaded machine, and is then
# rightly counted before W is submitted
missed_is() { [ "$(metric gpusched_eta_missed_total)" = "$((m0 + $1))" ]; }
missed() { echo $(($(metric gpusched_eta_missed_total) - m0)); }

start_daemon --cluster "$C" --policy "$P" --clock-scale $S
ok $? "daemon starts"
for i in $(seq 1 22); do
    "$GPUSCHED" submit --id "B$i" --gpus 32 --time-limit 10m -- sh -c "$job_prelude sleep 0.3" >/dev/null
    "$GPUSCHED" submit --id "E$i" --gpus 8 --time-limit 10m -- sh -c "$job_prelude true" >/dev/null
    wait_for is_state "E$i" completed
done
"$GPUSCHED" submit --id A --gpus 32 --time-limit 1h -- sh -c "$job_prelude sleep 300" >/dev/null
wait_for is_state A running
m0=$(metric gpusched_eta_missed_total)
echo "# misses among the training jobs: $m0"
# promise_of J: [submit, p90, basis] of J's promise at submit (engine s)
promise_of() {
    curl -s "$GPUSCHED_SERVER/v1/jobs/$1" |
        jq -c '[.submit_epoch, .estimate_at_submit.p90_epoch, .estimate_at_submit.basis]'
}
aux_missed() { q "SELECT eta_aux LIKE '% m' FROM jobs WHERE id = '$1'"; }
# 1) W's bound passes while the daemon runs
"$GPUSCHED" submit --id W --gpus 8 --time-limit 10m -- sh -c "$job_prelude true" >/dev/null
at=$(promise_of W)
echo "# W: [submit, p90, basis] at submit $at"
lv0=$(levels)
is "$(printf '%s' "$at" | jq -r '.[2]')" reservation "W waits on A's reservation"
ok $(printf '%s' "$at" | jq -e '.[1] != null' >/dev/null; echo $?) "W's promise has a P90 bound"
is "$(aux_missed W) $(missed)" "0 0" "no miss yet (the bound is still ahead)"
WAIT_S=30 wait_for missed_is 1
ok $? "W's bound passes while it waits: the calibration is told one miss"
is "$(metric gpusched_eta_waiting_past_bound_jobs) $(aux_missed W)" "1 1" \
   "/metrics: one job waiting past its bound; W's eta_aux ends in ' m'"
lv1=$(levels)
is "$(awk -v a="$lv0" -v b="$lv1" 'BEGIN { printf "%.4f", b - a }')" 0.0135 \
   "three keys' levels rose by 0.0045 each ($lv0 -> $lv1)"
# 2) W2 (behind W) is promised, the daemon is killed before W2's bound, and
# the bound passes while it is down
"$GPUSCHED" submit --id W2 --gpus 8 --time-limit 10m -- sh -c "$job_prelude true" >/dev/null
t_sub=$(date +%s.%N)
at2=$(promise_of W2)
echo "# W2: $at2"
ok $(printf '%s' "$at2" | jq -e '.[1] != null' >/dev/null; echo $?) "W2's promise has a P90 bound"
is "$(aux_missed W2) $(missed)" "0 1" "W2: no miss yet"
kill9_daemon
wall_bound=$(printf '%s' "$at2" | jq -r --arg t "$t_sub" --arg s $S '($t | tonumber) + (.[1] - .[0]) / ($s | tonumber) + 0.5')
while [ "$(awk -v a="$(date +%s.%N)" -v b="$wall_bound" 'BEGIN { print a < b }')" = 1 ]; do
    sleep 0.2
done
start_daemon --cluster "$C" --policy "$P" --clock-scale $S
ok $? "daemon restarts after kill -9, W2's bound passed while it was down"
WAIT_S=10 wait_for missed_is 2
ok $? "the restarted daemon tells W2's miss; W's is not told again: 2"
lv2=$(levels)
is "$(metric gpusched_eta_waiting_past_bound_jobs) $(aux_missed W2) $(awk -v a="$lv1" -v b="$lv2" 'BEGIN { printf "%.4f", b - a }')" \
   "2 1 0.0135" "two jobs past their bound, W2's eta_aux records it, three more levels +0.0045"
# 3) a second kill -9 and restart: no miss is told again
kill9_daemon
start_daemon --cluster "$C" --policy "$P" --clock-scale $S
ok $? "daemon restarts after a second kill -9"
sleep 1 # turns: a forgotten miss would be due at once (both bounds have passed)
is "$(missed) $(metric gpusched_eta_waiting_past_bound_jobs) $(levels)" \
   "2 2 $lv2" "after it: still two misses, both still past their bound, the same levels"
b0=$(metric gpusched_eta_window_bound_jobs)
cov0=$(metric gpusched_eta_p90_coverage_ratio)
# 4) W and W2 start once A is cancelled, after their bounds: their starts
# move no level again
"$GPUSCHED" cancel A >/dev/null 2>&1
wait_for is_state W2 completed
ok $? "W and W2 run once A is cancelled"
sleep 0.5
is "$(missed) $(metric gpusched_eta_waiting_past_bound_jobs)" "2 0" \
   "both started: two misses counted in all, none waiting past its bound"
is "$(levels)" "$lv2" "their starts after their bounds move no level again"
b1=$(metric gpusched_eta_window_bound_jobs)
cov1=$(metric gpusched_eta_p90_coverage_ratio)
# their starts after the bounds enter the window: two more jobs with a
# bound, as many covered (coverage cov0 x b0 / (b0 + 2))
want=$(awk -v c="$cov0" -v b="$b0" 'BEGIN { printf "%.6f", c * b / (b + 2) }')
is "$b1 $cov1" "$((b0 + 2)) $want" "the window: two more jobs with a bound, not covered"
stop_daemon

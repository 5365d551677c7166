#!/bin/sh
# The calibration that shapes new promises (docs/eta.md, section 6) is
# journalled (tables eta_cal_key, eta_cal_slot): after a kill -9 and a
# restart, a queued job's promise is the same as without the restart.
# Jobs (seed cluster 4 x 8 GPUs, EASY backfill on the users' time limits,
# --clock-scale 10): 24 jobs of 8 GPUs run 0.2 s each (4 at a time), so
# the size class "5-8" has 24 started jobs, more than the 20 a key needs
# before it calibrates; then A holds all 32 GPUs with a 1 h limit and runs
# on (sleep 120), and W (8 GPUs) waits behind it: its engine estimate is
# A's start + 1 h (a reservation), a time fixed while A runs, and so is
# its calibrated promise, which depends only on W's submit, that estimate
# and the calibration (no time passes in it).  An empty calibration would
# give no P90 bound (and the engine's estimate as the point).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 10
C=$ROOT/examples/seed-cluster.yaml
P=$DATA/live-equiv.yaml
promise() { # W's promise now and at submit, one line of JSON
    curl -s "$GPUSCHED_SERVER/v1/jobs/W" | jq -c '[.estimate, .estimate_at_submit]'
}

start_daemon --cluster "$C" --policy "$P" --clock-scale 10
ok $? "daemon starts"
for i in $(seq 1 24); do
    "$GPUSCHED" submit --id "E$i" --gpus 8 --time-limit 10m -- sh -c "$job_prelude sleep 0.2" >/dev/null
done
for i in $(seq 1 24); do wait_for is_state "E$i" completed; done
"$GPUSCHED" submit --id A --gpus 32 --time-limit 1h -- sh -c "$job_prelude sleep 120" >/dev/null
wait_for is_state A running
"$GPUSCHED" submit --id W --gpus 8 --time-limit 10m -- sh -c "$job_prelude true" >/dev/null
wait_for is_state W pending
sleep 0.5 # a few turns: W's object is rendered again
before=$(promise)
echo "# before: $before"
is "$(printf '%s' "$before" | jq -r '.[0].basis')" reservation "W waits on a reservation"
ok $(printf '%s' "$before" | jq -e '.[0].p90 != null' >/dev/null; echo $?) \
   "W's promise is calibrated: it has a P90 bound (an empty calibration gives none)"
keys=$(sqlite3 -cmd ".timeout 5000" "file:$STATE/journal.db?mode=ro" 'SELECT count(*) FROM eta_cal_key' 2>/dev/null)
ok $([ "${keys:-0}" -gt 0 ]; echo $?) "the journal holds the calibration ($keys keys)"
kill9_daemon
start_daemon --cluster "$C" --policy "$P" --clock-scale 10
ok $? "daemon restarts after kill -9"
wait_for is_state A running
sleep 0.5
after=$(promise)
echo "# after: $after"
is "$after" "$before" "after kill -9 W's promise (now and at submit) is the same"
# the restored calibration goes on learning: a 25th job of the class starts
# once A is gone, and the journal's window of class 5-8's waits grows by one.
# The rows of one window and no level (level 0) are the class waits and
# the errors of waiting jobs' points, in that order of key ids; every job
# here has 8 or 32 GPUs, so the first such row is class 5-8's.  (The
# errors' row exists only once a calibrated promise was observed: on a
# loaded machine all 24 jobs may be promised before any starts, so it can
# be absent until W starts; counting from the highest key id read the
# wrong row then.)
cls58="SELECT cursors FROM eta_cal_key WHERE key = (SELECT min(key) FROM eta_cal_key WHERE level = 0)"
n0=$(sqlite3 -cmd ".timeout 5000" "file:$STATE/journal.db?mode=ro" "$cls58" 2>/dev/null)
"$GPUSCHED" cancel A >/dev/null 2>&1
wait_for is_state W completed
ok $? "W runs once A is cancelled"
sleep 0.5
n1=$(sqlite3 -cmd ".timeout 5000" "file:$STATE/journal.db?mode=ro" "$cls58" 2>/dev/null)
is "$n0 -> $n1" "24:24 -> 25:25" "class 5-8's wait window: 24 jobs before W, 25 after (journalled)"
stop_daemon
# a calibration the journal holds in part (a cursor past the window's size)
# is dropped with a log line: the daemon starts, new promises uncalibrated
sqlite3 "$STATE/journal.db" "UPDATE eta_cal_key SET cursors = '600:3' WHERE key = (SELECT max(key) FROM eta_cal_key)"
start_daemon --cluster "$C" --policy "$P" --clock-scale 10
ok $? "the daemon starts on a journal whose calibration is not whole"
grep -q "ETA calibration .* not whole" "$TMP/daemon.err"
ok $? "and says so in its log"
stop_daemon

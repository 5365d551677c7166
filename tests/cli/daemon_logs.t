#!/bin/sh
# gpuschedd's levelled log (docs/operations.md "Logs"), read from its
# stderr: at the default level (info, no GPUSCHEDD_TRACE) one line per job
# start, end, preemption and node change, each with level=NAME; --log-level
# warning drops them; debug adds the engine's events; <N> prefixes when
# stderr is journald's stream ($JOURNAL_STREAM = its device:inode).
#
# Two 8-GPU nodes, immediate preemption by priority (live-equiv.yaml): A
# (8 GPUs) runs on n1, B (8 GPUs) on n2; P (8 GPUs, priority 10) preempts
# one of them and completes; ok1 completes, bad1 exits 3.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 16
G=$GPUSCHED
hold="$job_prelude exec sleep 60"
ERR=$TMP/daemon.err

start_daemon --cluster "$DATA/two-nodes.yaml" --policy "$DATA/live-equiv.yaml"
ok $? "daemon starts (default level)"
"$G" submit --id ok1 --gpus 1 --team a --user alice --time-limit 1m -- true >/dev/null
"$G" submit --id bad1 --gpus 1 --time-limit 1m -- sh -c 'exit 3' >/dev/null
WAIT_S=20 wait_for sh -c "[ \"\$(\"$G\" show --json bad1 | jq -r .outcome)\" = failed ] && [ \"\$(\"$G\" show --json ok1 | jq -r .outcome)\" = completed ]"
"$G" submit --id A --gpus 8 --time-limit 10m -- sh -c "$hold" >/dev/null
"$G" submit --id B --gpus 8 --time-limit 10m -- sh -c "$hold" >/dev/null
WAIT_S=10 wait_for sh -c "[ \"\$(\"$G\" queue -t R --noheader | wc -l)\" -eq 2 ]"
"$G" submit --id P --gpus 8 --priority 10 --time-limit 1m -- sh -c "$job_prelude sleep 1" >/dev/null
WAIT_S=20 wait_for is_state P completed
ok $? "P preempts and completes"
"$G" drain n1 --reason "fan swap" >/dev/null
"$G" down n2:3 --reason "ECC" >/dev/null
"$G" resume n2:3 >/dev/null
WAIT_S=5 wait_for grep -q 'node n2 gpu 3 up' "$ERR"

ts='^20[0-9-]*T[0-9:]*Z gpuschedd: '
like "$(cat "$ERR")" "${ts}level=info job ok1 start: attempt 1 on n[12]:[0-7] (team a, user alice, 1 GPU)$" \
    "a start: id, attempt, GPUs, team, user"
like "$(cat "$ERR")" "${ts}level=info job ok1 end: completed, exit code 0, ran [0-9.]* s, attempt 1 (team a" \
    "an end: outcome, exit code, run time"
like "$(cat "$ERR")" "${ts}level=info job bad1 end: failed, exit code 3," "a failed end with its exit code"
like "$(cat "$ERR")" "${ts}level=info job [AB] preempted: attempt 1 stops, the job is requeued (" "a preemption"
like "$(cat "$ERR")" "${ts}level=info job P end: completed" "P's end"
like "$(cat "$ERR")" "${ts}level=info node n1 drain (reason: fan swap)$" "a drain with its reason"
like "$(cat "$ERR")" "${ts}level=info node n2 gpu 3 down (reason: ECC)$" "a GPU down with its reason"
like "$(cat "$ERR")" "${ts}level=info node n2 gpu 3 up$" "a GPU resumed"
is "$(grep -c ' event [0-9]* job ' "$ERR")" 0 "no engine event lines at info"
is "$(grep -v "${ts}level=\(err\|warning\|notice\|info\|debug\) " "$ERR" | grep -c .)" 0 \
    "every stderr line carries a level"
stop_daemon; kill_jobs

STATE=$TMP/state2; : >"$ERR"
start_daemon --cluster "$DATA/two-nodes.yaml" --log-level warning
"$G" submit --id q1 --time-limit 1m -- true >/dev/null
WAIT_S=20 wait_for is_state q1 completed
is "$(grep -c 'job q1' "$ERR")" 0 "--log-level warning: no job lines"
stop_daemon

STATE=$TMP/state3; : >"$ERR"
start_daemon --cluster "$DATA/two-nodes.yaml" --log-level debug
"$G" submit --id q2 --time-limit 1m -- true >/dev/null
WAIT_S=20 wait_for is_state q2 completed
like "$(cat "$ERR")" "${ts}level=debug event [0-9]* job 0 at " "--log-level debug: the engine's events"
stop_daemon

# journald: JOURNAL_STREAM names the device:inode of stderr (here a file)
STATE=$TMP/state4; : >"$ERR"
JOURNAL_STREAM=$(stat -c '%d:%i' "$ERR") start_daemon --cluster "$DATA/two-nodes.yaml"
"$G" submit --id q3 --time-limit 1m -- true >/dev/null
WAIT_S=20 wait_for is_state q3 completed
like "$(cat "$ERR")" "^<6>gpuschedd: job q3 end: completed" "journald: <6> (info) prefix, no time stamp"
run "$GPUSCHEDD" --cluster "$DATA/two-nodes.yaml" --state "$TMP/s5" --log-level loud
like "$rc $out" "^2 gpuschedd: --log-level loud: expected" "a bad --log-level: exit 2, says which"

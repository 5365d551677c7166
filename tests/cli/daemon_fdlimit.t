#!/bin/sh
# Failures are charged to whoever failed (issue 22): a daemon short of file
# descriptors (prlimit --nofile=40) fails launches on its own side (pipe,
# run files); those jobs go back to pending (their GPUs released, no attempt
# charged: gs_engine_launch_deferred) and are decided and launched again
# after a back-off, counted in gpusched_launch_failures_total{reason}, and
# none is failed for it; with launches made to fail on purpose
# (GPUSCHEDD_TEST_LAUNCH_FAIL=6: a fork without processes), the API shows
# the job pending, not starting, while they fail; an exit file the daemon
# cannot open for lack of descriptors is read
# again later (not taken for a lost supervisor).  A job whose own command
# cannot be executed (ENOENT, E2BIG) fails with the reason logged and
# journalled.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 16

J=300
S=$TMP/s
GPUSCHEDD_PLAIN=$GPUSCHEDD
rm -f "$TMP/daemon.out"
prlimit --nofile=40:40 "$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$S" \
    --listen 127.0.0.1:0 --trust-loopback --virtual-gpus >"$TMP/daemon.out" 2>>"$TMP/daemon.err" &
DPID=$!
for _ in $(seq 100); do URL=$(sed -n 's/^listening on //p' "$TMP/daemon.out"); [ -n "$URL" ] && break; sleep 0.05; done
wait_ready
ok $? "daemon runs with 40 file descriptors"
is "$(awk '/Max open files/ { print $4 }' "/proc/$DPID/limits")" 40 "its limit is 40 descriptors"

# 300 one-GPU jobs of 0.5 s from 8 parallel submitters: up to 32 run at once,
# each holding a pidfd, so the daemon runs out of descriptors
for i in $(seq 1 $J); do printf '{"id":"j%d","gpus":1,"command":["sleep","0.5"]}\n' "$i"; done >"$TMP/bodies"
codes=$(xargs -P 8 -d '\n' -I{} curl -s -m 20 -o /dev/null -w '%{http_code}\n' \
    -H 'Content-Type: application/json' --data-binary {} "$URL/v1/jobs" <"$TMP/bodies" | sort | uniq -c)
printf '%s\n' "$codes" | sed 's/^/# submits: /'
for _ in $(seq 600); do
    n=$(curl -s -m 10 "$URL/v1/jobs?state=done" | jq '.jobs | length')
    [ "$n" = "$(printf '%s\n' "$codes" | awk '$2 == 201 { print $1 }')" ] && break
    sleep 0.1
done
out=$(curl -s "$URL/v1/jobs" | jq -r '.jobs[].outcome' | sort | uniq -c | tr -s ' ')
printf '%s\n' "$out" | sed 's/^/# outcomes:/'
ok "$(printf '%s\n' "$codes" | awk '$2 == 201 { s += $1 } END { exit !(s >= 250) }'; echo $?)" \
    "at least 250 of the $J submits were accepted (the HTTP side also runs short)"
is "$(printf '%s\n' "$out" | grep -v completed)" "" "no job failed: every accepted job completed"
m=$(curl -s "$URL/metrics")
lf=$(printf '%s\n' "$m" | awk '/^gpusched_launch_failures_total\{/ { s += $2 } END { print s + 0 }')
echo "# launch failures on the daemon's side: $lf"
printf '%s\n' "$m" | grep '^gpusched_launch_failures_total{' | grep -v ' 0$' | sed 's/^/#   /'
ok "$([ "$lf" -gt 0 ]; echo $?)" "the limit bit: launches failed on the daemon's side ($lf), counted by reason"
like "$(cat "$TMP/daemon.err")" "launch failed on the daemon's side (.*Too many open files); retry 1 in [0-9]* ms, pending meanwhile" \
    "each such failure is logged with its reason and the back-off"
is "$(curl -s "$URL/v1/jobs" | jq '[.jobs[] | select(.attempts != 1)] | length')" 0 \
    "no attempt was charged for them: every job ran as attempt 1"
nd=$(sqlite3 "$S/journal.db" "SELECT count(*) FROM events WHERE kind = 'launch_deferred'")
ok "$([ "$nd" -gt 0 ]; echo $?)" "the journal has the deferrals ($nd launch_deferred events)"
daemon_stop TERM

# launches that fail on the daemon's side (the hook: 6 forks fail, back-off
# 100 + 200 + 400 + 800 + 1,600 + 3,200 ms, so that the last windows are
# long enough to be seen on a loaded machine): the job is pending meanwhile (on main it stayed
# starting, holding its GPU), then runs once
GPUSCHEDD_TEST_LAUNCH_FAIL=6 daemon_start "$TMP/s3"
api POST /v1/jobs '{"id":"later","command":["true"]}'
# The nodes are read inside one pending window: the failure count and the
# state are read before and after, and a retry in between would have moved
# the job to starting and (failing) back with the count one higher.
forks() { curl -s "$URL/metrics" | awk '/^gpusched_launch_failures_total\{reason="fork"\}/ { print $2 }'; }
seen= free=
for _ in $(seq 200); do
    m1=$(forks); st1=$(curl -s "$URL/v1/jobs/later" | jq -r .state)
    [ "$st1" = done ] && break
    if [ "${m1:-0}" -ge 1 ] && [ "$st1" = pending ]; then
        f=$(curl -s "$URL/v1/nodes" | jq '[.nodes[].free_gpus] | add')
        st2=$(curl -s "$URL/v1/jobs/later" | jq -r .state); m2=$(forks)
        if [ "$st2" = pending ] && [ "$m2" = "$m1" ]; then seen=1 free=$f; break; fi
    fi
    sleep 0.02
done
is "$seen" 1 "while its launches fail, the job is pending (its GPU released), not starting"
is "$free" 32 "all 32 GPUs are free meanwhile"
wait_state later completed 20
api GET /v1/jobs/later
is "$(field "$body" '"\(.outcome) \(.attempts)"')" "completed 1" "then it runs, as attempt 1"
is "$(curl -s "$URL/metrics" | awk '/^gpusched_launch_failures_total\{reason="fork"\}/ { print $2 }')" 6 \
    "the 6 failures are counted in /metrics (reason fork)"
daemon_stop TERM

# the job's own exec failures: its reason, not a bare exit code
daemon_start "$TMP/s2"
api POST /v1/jobs '{"id":"noent","command":["/nonexistent/prog"]}'
big=$(head -c 200000 /dev/zero | tr '\0' x)
printf '{"id":"toobig","command":["echo","%s"]}' "$big" >"$TMP/big.json"
api POST /v1/jobs "@$TMP/big.json"
wait_state noent failed; wait_state toobig failed
is "$(sqlite3 "$TMP/s2/journal.db" "SELECT j.id || ' ' || j.exit_code || ' ' || e.detail FROM events e
      JOIN jobs j ON e.job = j.seq WHERE e.kind = 'launch_failed' ORDER BY j.seq" | tr '\n' '|')" \
    "noent 127 exec /nonexistent/prog: No such file or directory|toobig 126 exec: the command is too large to execute (E2BIG: Argument list too long)|" \
    "exec failures (ENOENT: 127, E2BIG: 126) are journalled with their reason"
is "$(sqlite3 "$TMP/s2/journal.db" "SELECT count(*) FROM events e JOIN jobs j ON e.job = j.seq
      WHERE j.id = 'toobig' AND e.kind = 'launch_deferred'")" 0 \
    "the E2BIG is the job's failure at once, not retried as the daemon's (was: 'Broken pipe', deferred)"
like "$(cat "$TMP/daemon.err")" "job toobig: launch failed: exec: the command is too large to execute (E2BIG" \
    "and logged"
daemon_stop TERM
sanitizer_clean

#!/bin/sh
# gpuschedd end to end on the seed cluster (4 nodes x 8 GPUs, one NVLink
# domain each): the listening line, durable submits, the local backend
# (CUDA_VISIBLE_DEVICES, exit codes, cancel), restart and re-adoption.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 43

S=$TMP/s
daemon_start "$S"
like "$(head -n 1 "$TMP/daemon.out")" '^listening on http://127\.0\.0\.1:[0-9][0-9]*$' \
    "first stdout line: listening on http://HOST:PORT (port 0 picked a free one)"
api GET /healthz
is "$code" 200 "/healthz answers 200"
api GET /readyz
is "$code" 200 "/readyz is ready once the journal is replayed"

# Four 2-GPU jobs each write what they saw; the seed policy's best fit
# packs them, and every (node, GPU) pair must be used by one job only.
for i in 1 2 3 4; do
    api POST /v1/jobs "{\"id\":\"env$i\",\"gpus\":2,\"team\":\"team-a\",\"command\":[\"sh\",\"-c\",
        \"echo \$GPUSCHED_JOB_ID \$CUDA_VISIBLE_DEVICES \$GPUSCHED_PLACEMENT > $TMP/env$i; sleep 1\"]}"
    [ "$code" = 201 ] || echo "# submit env$i: $code $body"
done
is "$code" 201 "submit answers 201 with the job object"
is "$(field "$body" '.id + " " + .team + " " + (.gpus|tostring)')" "env4 team-a 2" \
    "the job object echoes id, team, gpus"
ok "$(wait_state env1 completed; wait_state env2 completed; wait_state env3 completed;
      wait_state env4 completed; echo $?)" "all four jobs complete"
# what each saw: the id, the indices, the placement; indices = the
# placement's GPU numbers on its node
seen=$(cat "$TMP"/env1 "$TMP"/env2 "$TMP"/env3 "$TMP"/env4)
printf '%s\n' "$seen" | sed 's/^/# /'
is "$(printf '%s\n' "$seen" | awk '{print $1}' | sort | tr '\n' ' ')" "env1 env2 env3 env4 " \
    "each job saw its own GPUSCHED_JOB_ID"
bad=$(printf '%s\n' "$seen" | awk '{ n = split($3, p, ","); s = "";
    for (i = 1; i <= n; i++) { split(p[i], a, ":"); s = s (i > 1 ? "," : "") a[2];
        node[i] = a[1] } if (s != $2) print "indices", $0;
    for (i = 2; i <= n; i++) if (node[i] != node[1]) print "two nodes", $0 }')
is "$bad" "" "CUDA_VISIBLE_DEVICES = the placement's GPU indices, all on one node (one domain)"
pairs=$(printf '%s\n' "$seen" | awk '{print $3}' | tr ',' '\n')
is "$(printf '%s\n' "$pairs" | sort | uniq -d)" "" "no (node, GPU) pair given to two jobs"
is "$(printf '%s\n' "$pairs" | wc -l | tr -d ' ')" 8 "4 jobs x 2 GPUs = 8 pairs"
api GET /v1/jobs/env1
is "$(field "$body" '.state + " " + .outcome + " " + (.exit_code|tostring)')" "done completed 0" \
    "a job that exits 0 is done/completed with exit_code 0"
like "$(field "$body" '.end')" '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:.]*Z$' "end is RFC 3339 UTC"
is "$(field "$body" '(.end_epoch - .start_epoch) >= 0.9')" true "it ran about its 1 s"

# a failing command keeps its exit code
api POST /v1/jobs '{"id":"fail7","command":["sh","-c","exit 7"]}'
wait_state fail7 failed
api GET /v1/jobs/fail7
is "$(field "$body" '.outcome + " " + (.exit_code|tostring)')" "failed 7" "exit 7 -> failed, exit_code 7"
api POST /v1/jobs '{"id":"nocmd","command":["/nonexistent/prog"]}'
wait_state nocmd failed
api GET /v1/jobs/nocmd
is "$(field "$body" '.exit_code')" 127 "a program that cannot be run -> exit_code 127"
like "$(cat "$S/output/"*.err)" "/nonexistent/prog" "its error goes to the job's stderr file"

# cancel a running job: its processes are gone afterwards
api POST /v1/jobs "{\"id\":\"long\",\"gpus\":1,\"command\":[\"sh\",\"-c\",\"echo \$\$ > $TMP/long.pid; exec sleep 60\"]}"
wait_state long running
sleep 0.3
api POST /v1/jobs/long/cancel
is "$code" 200 "cancel of a running job answers 200"
wait_state long cancelled
pid=$(cat "$TMP/long.pid")
kill -0 "$pid" 2>/dev/null
ok $((1 - $?)) "the cancelled job's process is gone"
api POST /v1/jobs/long/cancel
is "$code" 409 "cancelling an ended job is a conflict"
# cancel a pending one: an 8-GPU job behind four 8-GPU sleepers waits;
# 40 GPUs never fit the seed's 32 -> refused at the door (400, no job)
for i in 1 2 3 4; do
    api POST /v1/jobs "{\"id\":\"big$i\",\"gpus\":8,\"command\":[\"sleep\",\"30\"]}"
done
api POST /v1/jobs '{"id":"waiter","gpus":8,"command":["true"]}'
is "$(field "$body" '.state')" pending "an 8-GPU job waits while all 32 GPUs are busy"
is "$(field "$body" '.reason.code')" shortage "its reason: shortage"
like "$(field "$body" '.reason.detail')" "free" "the reason has a detail with numbers"
api GET /v1/jobs/waiter/explain
is "$(field "$body" '.reason')" shortage "explain: shortage"
api POST /v1/jobs/waiter/cancel
is "$(field "$body" '.state + " " + .outcome')" "done cancelled" "cancel of a pending job: at once"
api POST /v1/jobs '{"id":"huge","gpus":40,"command":["true"]}'
is "$code $(field "$body" '.error.field + " " + .error.message')" \
    "400 gpus gpus: 40 requested, the cluster has 32 GPUs" "40 GPUs on 32: refused at the door"
for i in 1 2 3 4; do api POST /v1/jobs/big$i/cancel; done
wait_state big4 cancelled

# errors
api GET /v1/jobs/nosuch
is "$code $(field "$body" '.error.code')" "404 not_found" "unknown job: 404"
api POST /v1/jobs '{"id":"env1","command":["true"]}'
is "$code $(field "$body" '.error.field')" "409 id" "duplicate id: 409 naming id"
api POST /v1/jobs '{"command":["true"]}' -H 'Idempotency-Key: k-1'
id1=$(field "$body" '.id')
is "$code" 201 "first submit with an Idempotency-Key: 201"
api POST /v1/jobs '{"command":["true"]}' -H 'Idempotency-Key: k-1'
is "$code $(field "$body" '.id')" "200 $id1" "the retry returns the same job (200)"
api GET '/v1/jobs?state=cancelled'
is "$(field "$body" '[.jobs[] | select(.outcome != "cancelled")] | length')" 0 "list by outcome"
is "$(field "$body" '[.jobs[].id] | index("waiter") != null')" true "... the cancelled waiter among them"
api GET '/v1/jobs?state=rejected'
is "$(field "$body" '[.jobs[].id] | join(",")')" "" "the refused job is no job"
api GET '/v1/jobs?state=bogus'
is "$code $(field "$body" '.error.field')" "400 state" "bad state filter: 400 naming state"

# restart: kill -9 with a job running, another ending while it is down
api POST /v1/jobs '{"id":"r-long","command":["sh","-c","sleep 6; exit 5"]}'
api POST /v1/jobs '{"id":"r-short","command":["sh","-c","sleep 1"]}'
wait_state r-long running
wait_state r-short running
daemon_stop KILL
sleep 1.5 # r-short ends while the daemon is down
restart=$(date +%s.%N)
daemon_start "$S"
api GET /v1/jobs/r-short
is "$(field "$body" '.outcome + " " + (.exit_code|tostring)')" "completed 0" \
    "a job that ended while the daemon was down has its real exit code"
is "$(field "$body" ".end_epoch < $restart")" true "... and its real end time (before the restart)"
api GET /v1/jobs/r-long
is "$(field "$body" '.state')" running "the running job was re-adopted"
like "$(cat "$TMP/daemon.err")" "re-adopted supervisor" "the log says so"
wait_state r-long failed
api GET /v1/jobs/r-long
is "$(field "$body" '.exit_code')" 5 "the re-adopted job's exit code is collected"
api GET /v1/jobs/env3
is "$(field "$body" '.outcome')" completed "jobs from before the restart are still there"

# SIGTERM: clean stop, a running job keeps running
api POST /v1/jobs "{\"id\":\"t-run\",\"command\":[\"sh\",\"-c\",\"echo \$\$ > $TMP/t.pid; exec sleep 2\"]}"
wait_state t-run running
i=0
while [ ! -s "$TMP/t.pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
daemon_stop TERM
ok $? "SIGTERM stops the daemon"
sleep 0.2
kill -0 "$(cat "$TMP/t.pid")" 2>/dev/null
ok $? "the running job survives the daemon's stop"
daemon_start "$S"
wait_state t-run completed
ok $? "after the restart it completes (re-adopted)"
daemon_stop TERM
sanitizer_clean

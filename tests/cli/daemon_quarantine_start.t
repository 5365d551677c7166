#!/bin/sh
# Quarantine counts failed starts (docs/failures.md "Quarantine"): a launch
# that fails on the node's side is a failure of the node in the same
# window as its downs; a job whose own command cannot run is not.  The
# node-side failure is caused with the daemon's test hook
# GPUSCHEDD_TEST_NODE_START_FAIL=NODE (every launch placed on NODE fails
# before anything is forked, as GPUs that do not come up would): nothing on
# a virtual cluster can make a real node refuse a start.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 13

state() { # state NODE: "STATE|REASON" from /v1/nodes
    api GET /v1/nodes
    field "$body" ".nodes[] | select(.name == \"$1\") | .state + \"|\" + (.reason // \"\")"
}
metric() { curl -s "$URL/metrics" | grep "^$1" | tr '\n' ' '; }

# 1. the job's own failure does not count: with quarantine.failures 1 one
# counted failure would quarantine, yet an exec failure of the job's command
# (exit 127, the job's fault) leaves its node up
printf 'quarantine:\n  failures: 1\n  window: 1h\n' >"$TMP/one.yaml"
daemon_start "$TMP/s1" --policy "$TMP/one.yaml"
api POST /v1/jobs '{"id":"bad","gpus":8,"command":["/nonexistent/prog"]}'
wait_state bad failed 20 >/dev/null
api GET /v1/jobs/bad
is "$(field "$body" '.outcome + "|" + (.exit_code | tostring) + "|" + (.placement | split(":")[0])')" \
   "failed|127|node-1" "the job whose command does not exist failed (exit 127) on node-1"
is "$(state node-1)" "up|" "an exec failure of the job's command is not the node's: node-1 stays up"
is "$(metric gpusched_nodes_quarantined)" "gpusched_nodes_quarantined 0 " "metrics: none quarantined"
daemon_stop

# 2. three failed starts on node-1 within the window (retry.max_attempts 5
# lets the job try again each time, ahead of its peers): the third
# quarantines node-1 at once (it is up: drained), and the fourth attempt
# runs elsewhere
S=$TMP/s
P=$TMP/policy.yaml
printf 'quarantine:\n  failures: 3\n  window: 1h\nretry:\n  max_attempts: 5\n' >"$P"
GPUSCHEDD_TEST_NODE_START_FAIL=node-1
export GPUSCHEDD_TEST_NODE_START_FAIL
daemon_start "$S" --policy "$P"
unset GPUSCHEDD_TEST_NODE_START_FAIL
api POST /v1/jobs '{"id":"j1","gpus":8,"command":["sleep","30"]}'
wait_state j1 running 20 >/dev/null
api GET /v1/jobs/j1
is "$(field "$body" '.state + "|" + (.placement | split(":")[0])')" "running|node-2" \
   "after three failed starts on node-1 the job runs on node-2"
iso='20[0-9-]*T[0-9:.]*Z'
r=$(state node-1)
like "$r" "^drain|quarantined: 3 failures in 1h: failed start of job j1 at $iso, failed start of job j1 at $iso, failed start of job j1 at $iso\$" \
     "node-1 drained, its reason names the three failed starts"
api GET /v1/jobs/j1/events
is "$(field "$body" '[.events[] | select(.event == "launch_failed")] | length')" 3 \
   "the journal holds three launch_failed events of j1"
like "$(field "$body" '[.events[] | select(.event == "launch_failed") | .detail] | .[0]')" \
     "^node node-1: the job's GPUs did not come up" "each names the node"
is "$(metric gpusched_nodes_quarantined)" "gpusched_nodes_quarantined 1 " "metrics: one quarantined"
# a second job waits rather than start there (node-3, node-4 are free: it
# runs on one of them)
api POST /v1/jobs '{"id":"j2","gpus":8,"command":["sleep","30"]}'
wait_state j2 running 20 >/dev/null
api GET /v1/jobs/j2
like "$(field "$body" '.state + "|" + .placement')" "^running|node-[34]:" \
     "the next job starts on node-3 or node-4, not on the quarantined node-1"
# kill -9 and a restart without the hook: still drained, same reason
daemon_stop KILL
daemon_start "$S" --policy "$P"
is "$(state node-1)" "$r" "after kill -9: still drained, same reason"
# the operator's resume releases it
api POST /v1/nodes/node-1/resume
is "$code" 200 "operator's resume: 200"
is "$(state node-1)" "up|" "resumed: up, no reason"
kill_jobs "$S"
daemon_stop
sanitizer_clean

#!/bin/sh
# Quarantine of failing nodes in gpuschedd (quarantine.failures,
# quarantine.window; docs/failures.md "Quarantine"): a node taken down 3
# times within the window is quarantined; the resume after its last repair
# leaves it drained with a reason naming the failures, `gpusched nodes` and
# /metrics show it, it stays so across kill -9, and only a resume of the
# drained node brings it back.  Below the threshold nothing happens.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 22

S=$TMP/s
P=$TMP/policy.yaml
printf 'quarantine:\n  failures: 3\n  window: 1h\n' >"$P"
daemon_start "$S" --policy "$P"
state() { # state NODE: "STATE|REASON" from /v1/nodes
    api GET /v1/nodes
    field "$body" ".nodes[] | select(.name == \"$1\") | .state + \"|\" + (.reason // \"\")"
}
cycle() { # cycle NODE REASON: down with a reason, then resume
    api POST "/v1/nodes/$1/down" "{\"reason\":\"$2\"}"
    c1=$code
    api POST "/v1/nodes/$1/resume"
    [ "$c1" = 200 ] && [ "$code" = 200 ]
}
metric() { curl -s "$URL/metrics" | grep "^$1" | tr '\n' ' '; }

# two failures: below the threshold, the node comes back up
cycle node-1 "xid 79"; cycle node-1 "ecc"
is "$(state node-1)" "up|" "2 failures in the window: the node is up again, no reason"
is "$(metric gpusched_nodes_quarantined)" "gpusched_nodes_quarantined 0 " "metrics: none quarantined"
# the third: quarantined at once (still down), its reason names all three
api POST /v1/nodes/node-1/down '{"reason":"fell off the bus"}'
is "$code" 200 "third down accepted"
r=$(state node-1)
like "$r" '^down|quarantined: 3 failures in 1h: down at 20[0-9-]*T[0-9:.]*Z (xid 79), 20[^,]*Z (ecc), 20[^,]*Z (fell off the bus)$' \
     "the third down: quarantined, the reason names the three failures"
# the resume that ends its repair leaves it drained
api POST /v1/nodes/node-1/resume
is "$code" 200 "resume after the repair: 200"
is "$(state node-1)" "drain|${r#down|}" "the quarantined node comes back drained, with its reason"
like "$("$GPUSCHED" nodes --server "$URL" | grep '^node-1 ')" "drain .*(quarantined: 3 failures in 1h: " \
     "gpusched nodes shows it drained with the reason"
is "$(metric gpusched_node_quarantined)" 'gpusched_node_quarantined{node="node-1"} 1 ' \
   "/metrics: gpusched_node_quarantined{node} = 1"
is "$(metric gpusched_nodes_quarantined)" "gpusched_nodes_quarantined 1 " "/metrics: one quarantined"
api GET /v1/dashboard
is "$(field "$body" '.nodes[] | select(.name == "node-1") | .state + "|" + .reason')" "drain|${r#down|}" \
   "the dashboard's node data: drained, with the reason"
# nothing starts there: four 8-GPU jobs, three run (node-2..4), one waits
for i in 1 2 3 4; do
    api POST /v1/jobs "{\"id\":\"j$i\",\"gpus\":8,\"command\":[\"sleep\",\"30\"]}"
done
for i in 1 2 3; do wait_state "j$i" running 20 >/dev/null; done
api GET /v1/jobs/j4
is "$(field "$body" .state)" pending "a quarantined node takes no job: the fourth 8-GPU job waits"
api GET /v1/jobs
is "$(field "$body" '[.jobs[] | select(.state == "running") | .placement | split(":")[0]] | sort | join(" ")')" \
   "node-2 node-3 node-4" "the three running jobs are on node-2, node-3, node-4"
# it survives kill -9
daemon_stop KILL
daemon_start "$S" --policy "$P"
is "$(state node-1)" "drain|${r#down|}" "after kill -9: still drained, same reason"
is "$(metric gpusched_nodes_quarantined)" "gpusched_nodes_quarantined 1 " "after kill -9: metrics still 1"
# the operator's resume releases it; the waiting job starts there
api POST /v1/nodes/node-1/resume
is "$code" 200 "operator's resume: 200"
is "$(state node-1)" "up|" "resume of the drained node: up, no reason"
is "$(metric gpusched_nodes_quarantined)" "gpusched_nodes_quarantined 0 " "metrics: released"
is "$(wait_state j4 running 20 >/dev/null; api GET /v1/jobs/j4; field "$body" .state)" running \
   "the waiting job starts on the released node"
# released: its failures are forgotten; one more cycle is not a quarantine
cycle node-1 "again"
is "$(state node-1)" "up|" "after the release the count starts again (1 failure: up)"
# the window: with quarantine.window 4s, two downs, a pause past the window,
# two more: never 3 within 4 s, so node-2 is up at the end (the pause is 5
# s; the last two downs take well under a second)
kill_jobs
daemon_stop
printf 'quarantine:\n  failures: 3\n  window: 4s\n' >"$P"
daemon_start "$S" --policy "$P"
cycle node-2 a; cycle node-2 b
sleep 5
cycle node-2 c; cycle node-2 d
is "$(state node-2)" "up|" "4 failures, never 3 within the window: up"
# a bad value names the file, the line and the key
printf 'quarantine:\n  failures: 99\n' >"$TMP/bad.yaml"
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --policy "$TMP/bad.yaml" --state "$TMP/bad" \
    --listen 127.0.0.1:0 >"$TMP/bad.out" 2>&1
like "$(cat "$TMP/bad.out")" "bad.yaml:2: .*quarantine.failures" "a bad quarantine.failures names file, line and key"
kill_jobs
daemon_stop
sanitizer_clean

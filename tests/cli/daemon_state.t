#!/bin/sh
# gpuschedd's published read state and what survives kill -9 (issue 11):
# read-your-writes on the published view, GET /v1/queue, the history
# estimator re-taught from the journal, first_start_epoch, and the admin
# `down` of a node (its running job requeued and killed, its GPUs not
# offered, the state and reason kept across a restart).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 33

S=$TMP/s
P=$TMP/policy.yaml
cat >"$P" <<'EOF'
queue:
  policy: priority_with_backfill
  backfill: true
  duration_estimate: from_history
EOF
daemon_start "$S" --policy "$P"

# Read-your-writes: every 201 is followed at once by a GET of the job, from
# the HTTP thread's view; each must find it (20 tries).
miss=0
for i in $(seq 1 20); do
    api POST /v1/jobs "{\"id\":\"ryw$i\",\"gpus\":1,\"team\":\"b\",\"user\":\"u2\",\"command\":[\"true\"]}"
    c1=$code
    api GET "/v1/jobs/ryw$i"
    [ "$c1" = 201 ] && [ "$code" = 200 ] && [ "$(field "$body" .id)" = "ryw$i" ] ||
        miss=$((miss + 1))
done
is "$miss" 0 "a job acknowledged with 201 is there for the next GET (20 of 20)"
for i in $(seq 1 20); do wait_state "ryw$i" completed 20 >/dev/null; done

# History: three 8-GPU jobs of team a complete (about 0.3 s each) ...
for i in 1 2 3; do
    api POST /v1/jobs "{\"id\":\"h$i\",\"gpus\":8,\"team\":\"a\",\"user\":\"u1\",\"name\":\"train\",
        \"time_limit\":3600,
        \"command\":[\"sleep\",\"0.3\"]}"
    wait_state "h$i" completed 20
done
api GET /v1/jobs/h1
hs=$(field "$body" '.start_epoch') hf=$(field "$body" '.first_start_epoch')
is "$hf" "$hs" "first_start_epoch of a one-attempt job = its start_epoch"

# ... then four 8-GPU jobs fill the cluster and p (8 GPUs) waits; its own
# duration estimate comes from the history (p90 of user u1's "train" jobs,
# h1-h3: about 0.3 s, well under its 1 h time limit).
for i in 1 2 3 4; do
    api POST /v1/jobs "{\"id\":\"L$i\",\"gpus\":8,\"team\":\"a\",\"time_limit\":3600,
        \"command\":[\"sleep\",\"60\"]}"
done
for i in 1 2 3 4; do wait_state "L$i" running 20; done
api POST /v1/jobs '{"id":"p","gpus":8,"team":"a","user":"u1","name":"train","time_limit":3600,
    "command":["sleep","1"]}'
is "$code" 201 "p accepted"
api GET /v1/jobs/p/explain
e1=$(field "$body" '.est_duration')
ok "$(awk -v e="$e1" 'BEGIN { exit !(e > 0.2 && e < 60) }'; echo $?)" \
    "p's estimate comes from the history ($e1 s, not the 3600 s time limit)"
api GET /v1/jobs/L1
f1=$(field "$body" '.first_start_epoch')
like "$f1" '^[0-9][0-9.]*$' "a running job has a first_start_epoch"

# GET /v1/queue: the live jobs only (no ended one), the pending last
api GET /v1/queue
is "$code" 200 "GET /v1/queue answers"
is "$(field "$body" '[.jobs[].id] | join(" ")')" "L1 L2 L3 L4 p" \
    "/v1/queue: the live jobs, running first, then the queue"
api GET '/v1/jobs?state=completed'
is "$(field "$body" '.jobs | length')" 23 "/v1/jobs?state=completed: the ended jobs from the journal"
api GET /v1/jobs
is "$(field "$body" '[.jobs[].id] | .[-5:] | join(" ")')" "L1 L2 L3 L4 p" \
    "/v1/jobs: journal and live jobs merged by submission, the queue last"
is "$(field "$body" '.jobs | length')" 28 "/v1/jobs lists each job once"

# kill -9, restart: the estimator has learned the same run times again
daemon_stop KILL
daemon_start "$S" --policy "$P"
api GET /v1/jobs/p/explain
is "$(field "$body" '.est_duration')" "$e1" "p's estimate after kill -9 and restart = before ($e1 s)"
api GET /v1/jobs/L1
is "$(field "$body" '.state + " " + (.first_start_epoch|tostring)')" "running $f1" \
    "first_start_epoch survives the restart (the job was re-adopted)"
like "$(cat "$TMP/daemon.err")" "re-adopted supervisor" "the restart re-adopted the running jobs"
# 20 ryw + 3 h completed; the L jobs run and p waits
like "$(cat "$TMP/daemon.err")" "estimator learned 23 completed jobs' run times again" \
    "the restart fed the 23 completed jobs to the estimator"

# down: the node of L1 goes down with a reason; L1's process is killed, L1
# is requeued and p cannot use the node
node=$(field "$body" '.placement | split(":")[0]')
body=$("$GPUSCHED" down "$node" --reason "fan failure" --json --server "$URL")
is "$?" 0 "gpusched down NODE --reason (POST /v1/nodes/NAME/down) succeeds"
is "$(field "$body" ".nodes[] | select(.name == \"$node\") | .state + \" \" + .reason")" \
    "down fan failure" "the answer shows the node down with its reason"
wait_state L1 pending 10
api GET /v1/jobs/L1
is "$(field "$body" '.state + " " + (.attempts|tostring)')" "pending 1" \
    "L1 is back in the queue (its run ended with the node)"
api GET /v1/jobs/p
is "$(field "$body" '.state')" pending "p still waits: the down node's GPUs are not offered"
# every supervisor of L1's first attempt is gone within a few seconds
i=0
while [ $i -lt 60 ]; do
    alive=0
    for f in "$S"/run/*-1/sup; do sup_alive "$f" >/dev/null && alive=$((alive + 1)); done
    [ "$alive" = 3 ] && break
    sleep 0.1
    i=$((i + 1))
done
is "$alive" 3 "L1's supervisor was killed (3 of the 4 first attempts still run)"
api POST "/v1/nodes/$node/down" '{"reason":"x","extra":1}'
is "$code" 400 "down: an unknown field is refused"
api POST "/v1/nodes/no-such-node/down"
is "$code" 404 "down: an unknown node is 404"
api POST "/v1/nodes/$node/gpus/99/down"
is "$code" 404 "down: a GPU the node does not have is 404"

# the down state and its reason survive kill -9
daemon_stop KILL
daemon_start "$S" --policy "$P"
api GET /v1/nodes
is "$(field "$body" ".nodes[] | select(.name == \"$node\") | .state + \" \" + .reason")" \
    "down fan failure" "after kill -9: the node is still down, with its reason"
like "$("$GPUSCHED" nodes --server "$URL" | grep "^$node ")" "down .*(fan failure)" \
    "gpusched nodes shows the down node with its reason"
api GET /v1/jobs/p
is "$(field "$body" '.state')" pending "after kill -9: p still waits"
api GET /v1/cluster
is "$(field "$body" '(.gpus|tostring) + " " + (.free_gpus|tostring) + " " + (.pending|length|tostring)')" \
    "32 0 2" "/v1/cluster (frag's document): 32 GPUs, none free (3 running, 1 down), 2 pending"
is "$(field "$body" '.schedulability.k|tostring')" 8 "/v1/cluster: S_k for k = 8 (frag's default)"

# one GPU alone: down, then up again
other=$(curl -s "$URL/v1/nodes" | jq -r ".nodes[] | select(.name != \"$node\") | .name" | head -n 1)
api POST "/v1/nodes/$other/gpus/3/drain"
is "$(field "$body" ".nodes[] | select(.name == \"$other\") | .gpus_out[0].gpu|tostring")" 3 \
    "a GPU drained alone shows in the node's gpus_out"
api POST "/v1/nodes/$other/gpus/3/resume"
is "$(field "$body" ".nodes[] | select(.name == \"$other\") | .gpus_out|length")" 0 \
    "resumed, it is back"

# up again: the queue runs there
api POST "/v1/nodes/$node/resume"
is "$code" 200 "resume answers 200"
wait_state L1 running 20
api GET /v1/jobs/L1
is "$(field "$body" '.attempts|tostring')" 2 "L1 runs again (second attempt)"
is "$(field "$body" '.first_start_epoch')" "$f1" "first_start_epoch stays the first attempt's"

daemon_stop TERM
kill_jobs "$S"
sanitizer_clean

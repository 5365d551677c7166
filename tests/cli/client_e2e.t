#!/bin/sh
# The client commands end to end against a real gpuschedd on 127.0.0.1 (the
# seed's 4 x 8 GPU cluster, pack placement, EASY backfill on time limits):
#
#   four 6-GPU jobs a1..a4 fill the nodes to 6/8 (pack puts one per node,
#   since 6 + 6 > 8), so 8 GPUs are free in total but 2 per node: an 8-GPU
#   job `big` waits although the cluster has 8 free GPUs (fragmentation);
#   `why` says so with numbers; cancelling a1 frees node-X whole and big
#   starts there.  Plus show/nodes/drain/resume/checkpoint, --json output
#   checked with jq, a failed command's exit code, and the error paths
#   (404 unknown job, 400 naming the field, 409 duplicate id).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 41

start_daemon --cluster "$ROOT/examples/seed-cluster.yaml" \
    --policy "$DATA/live-basic.yaml"
ok $? "daemon starts and turns ready"

G=$GPUSCHED
hold="$job_prelude"'echo "$CUDA_VISIBLE_DEVICES" >"'$TMP'/cvd.$GPUSCHED_JOB_ID"; exec sleep 60'
for i in 1 2 3 4; do
    run "$G" submit --id a$i --gpus 6 --team a --user alice --time-limit 10m -- sh -c "$hold"
    is "$out" "a$i" "submit prints the job id a$i"
done
WAIT_S=20 wait_for sh -c "[ \"\$(\"$G\" queue --json --state running | jq '[.jobs[]?] | length')\" = 4 ]"
ok $? "the four 6-GPU jobs run"
WAIT_S=10 wait_for sh -c "[ -s $TMP/cvd.a1 ] && [ -s $TMP/cvd.a2 ] && [ -s $TMP/cvd.a3 ] && [ -s $TMP/cvd.a4 ]"
is "$(cat "$TMP/cvd.a1" | tr ',' '\n' | grep -c .)" 6 "a1 sees 6 GPUs in CUDA_VISIBLE_DEVICES"
nodes_used=$(for i in 1 2 3 4; do "$G" show --json a$i | jq -r '.placement' | sed 's/:.*//'; done | sort -u | wc -l)
is "$nodes_used" 4 "pack puts one 6-GPU job per node (6 + 6 > 8)"

run "$G" submit --id big --gpus 8 --team b --user bob --time-limit 1h -- sh -c "$job_prelude exec sleep 60"
is "$out" big "big submitted"
WAIT_S=5 wait_for sh -c "\"$G\" show --json big | jq -e '.reason.code' >/dev/null"
run "$G" show --json big
is "$(printf '%s' "$out" | jq -r .state)" pending "big is pending"
is "$(printf '%s' "$out" | jq -r .gpus)" 8 "show --json: gpus 8"
is "$(printf '%s' "$out" | jq -r .team)" b "show --json: team b"
like "$(printf '%s' "$out" | jq -r '.reason.code')" . "pending job has a reason code"

run "$G" queue
ok $rc "queue exits 0"
like "$out" "^JOBID *TEAM *USER *GPUS *STATE *TIME *WAIT *NODELIST(REASON)" "queue header as squeue users expect"
like "$(printf '%s\n' "$out" | grep '^big ')" "big *b *bob *8 *pending .*(" "big's line: team, user, gpus, pending, (reason)"
like "$(printf '%s\n' "$out" | grep '^a1 ')" "a1 *a *alice *6 *running .*node-[0-9]:[0-9]-[0-9]" "a1's line: running on node:gpu range"
is "$("$G" queue --json | jq '[.jobs[] | .id] | index("big") > index("a4")')" true "queue --json lists jobs in queue order"

run "$G" why big
ok $rc "why exits 0"
like "$out" "8" "why gives numbers (the 8 GPUs asked)"
like "$out" "[Ff]rag\|domain\|node" "why names fragmentation / where 8 GPUs would fit"
run "$G" why --json big
ok $(printf '%s' "$out" | jq -e . >/dev/null; echo $?) "why --json is JSON"

run "$G" nodes --json
is "$(printf '%s' "$out" | jq '[.nodes[] | .name] | length')" 4 "nodes --json: 4 nodes"
run "$G" nodes
like "$out" "^NODE *STATE *GPUS *FREE" "nodes header"
like "$out" "node-1 *up *8 *2" "node-1: up, 8 GPUs, 2 free"

run "$G" drain node-4
if printf '%s' "$out" | grep -q 'HTTP 501'; then
    # the daemon answers 501 until node events come with the live engine
    for t in "drain exits 0" "node-4 drains" "node-4 back up"; do
        _n=$((_n + 1)); echo "ok $_n # SKIP $t: $out"
    done
else
    ok $rc "drain exits 0"
    is "$("$G" nodes --json | jq -r '.nodes[] | select(.name=="node-4") | .state')" drain "node-4 drains"
    run "$G" resume node-4
    is "$("$G" nodes --json | jq -r '.nodes[] | select(.name=="node-4") | .state')" up "node-4 back up"
fi

# cancelling a1 frees its node whole: big starts there
a1node=$("$G" show --json a1 | jq -r '.placement' | sed 's/:.*//')
run "$G" cancel a1
ok $rc "cancel a1 exits 0"
WAIT_S=20 wait_for is_state a1 cancelled
ok $? "a1 ends cancelled"
WAIT_S=20 wait_for is_state big running
ok $? "big starts once a node is whole"
is "$("$G" show --json big | jq -r '.placement' | tr ',' '\n' | sed 's/:.*//' | sort -u)" "$a1node" \
    "big runs on a1's node, all 8 GPUs in one NVLink domain"

# a job that reports a checkpoint with `gpusched checkpoint` (its id and the
# server come from GPUSCHED_JOB_ID / GPUSCHED_SERVER set by the daemon)
ck="$job_prelude"'"'"$G"'" checkpoint >"'"$TMP"'/ck.out" 2>&1; echo $? >"'"$TMP"'/ck.rc"'
run "$G" submit --id ck --gpus 1 --checkpoint-interval 30m -- sh -c "$ck"
WAIT_S=20 wait_for test -s "$TMP/ck.rc"
is "$(cat "$TMP/ck.rc" 2>/dev/null)" 0 "gpusched checkpoint from inside the job exits 0"

# a failed command's exit code
run "$G" submit --id f3 --gpus 0 -- sh -c "$job_prelude exit 3"
WAIT_S=20 wait_for is_state f3 failed
ok $? "a command exiting 3 ends failed"
is "$("$G" show --json f3 | jq -r .exit_code)" 3 "exit_code 3"

# errors: exit 1, "gpusched: message (field F, CODE, HTTP N)"
run "$G" show nosuchjob
is "$rc" 1 "unknown job: exit 1"
like "$out" "^gpusched: .*HTTP 404" "unknown job: 404 in the message"
run "$G" submit --id a2 --gpus 1 -- true
like "$out" "^gpusched: .*HTTP 409" "duplicate id: 409"
run "$G" submit --cwd '' -- true
is "$rc" 1 "a request the daemon refuses: exit 1"
like "$out" "^gpusched: .*(field cwd, invalid, HTTP 400)" "the error names the server's field, code and status"

# queue order: two 8-GPU jobs wait (no node is whole); p9 (priority 9) was
# submitted after p0 but is ahead of it in the queue
"$G" submit --id p0 --gpus 8 --time-limit 1h -- true >/dev/null
"$G" submit --id p9 --gpus 8 --priority 9 --time-limit 1h -- true >/dev/null
order=$("$G" queue | awk '$1=="p0"||$1=="p9"{printf "%s ", $1}')
is "$order" "p9 p0 " "queue lists pending jobs in queue order (pass order), not submit order"

for j in a2 a3 a4 big p0 p9; do "$G" cancel "$j" >/dev/null 2>&1; done
stop_daemon

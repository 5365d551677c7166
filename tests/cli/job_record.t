#!/bin/sh
# The full job record against a real gpuschedd: every field a submit named
# comes back in GET /v1/jobs/ID, `gpusched show` and `--json` (name, user,
# team, command, cwd, time limit, priority, class, GPU request, output
# paths, attempts, exit code, end reason), also from the journal after a
# restart; default output files are named ID.ATTEMPT.out|err, a second
# attempt (its node taken down: requeued by a node failure) writes
# ID.2.out.  Cluster tests/data/cli/door-cluster.yaml: 3 nodes x 8 H100-80G.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 37

G=$GPUSCHED
start_daemon --cluster "$DATA/door-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts"
j() { "$G" show --json "$1" | jq -r "$2"; }

run "$G" submit --id rec --name "nightly eval" --team a --user alice --gpus 2 --gpu-mem-gb 40 \
    --gpu-model H100-80G --topology node --priority 5 --class infer --time-limit 30m \
    --checkpoint-interval 10m --cwd "$TMP" -- sh -c 'echo to-out; echo to-err >&2; exit 4'
is "$rc:$out" "0:rec" "submit with every field"
run "$G" submit --id plain -- true
is "$rc:$out" "0:plain" "a plain submit"
wait_for is_state rec failed
wait_for is_state plain completed
is "$(j rec .name)" "nightly eval" "name"
is "$(j rec '.team + " " + .user')" "a alice" "team and user"
is "$(j rec '.command | join(" ")')" "sh -c echo to-out; echo to-err >&2; exit 4" "command, argv as sent"
is "$(j rec .cwd)" "$TMP" "working directory"
is "$(j rec .time_limit_s)" 1800 "time limit 30m = 1800 s"
is "$(j rec .checkpoint_interval_s)" 600 "checkpoint interval 10m = 600 s"
is "$(j rec .priority)" 5 "priority"
is "$(j rec .class)" inference "class"
is "$("$G" show --json rec | jq -c .gpu_request)" \
    '{"count":2,"share":1,"mem_gb":40,"model":"H100-80G","mig":null,"topology":"node"}' \
    "GPU request: count, share, memory, model, MIG, topology"
is "$(j rec '.attempts, .exit_code' | tr '\n' ' ')" "1 4 " "attempts 1, exit code 4"
is "$(j rec .end_reason)" "failed: exited 4" "end reason"
is "$(j rec .stdout)" "$STATE/output/rec.1.out" "stdout: the default file ID.ATTEMPT.out"
is "$(j rec .stderr)" "$STATE/output/rec.1.err" "stderr: ID.ATTEMPT.err"
is "$(cat "$STATE/output/rec.1.out"):$(cat "$STATE/output/rec.1.err")" "to-out:to-err" \
    "the job wrote to those files"
is "$(stat -c %a "$STATE/output/rec.1.out")" 600 "the output file is 0600"
# defaults made explicit
is "$(j plain '[.name, .class, .priority, .time_limit_s, .gpu_request.topology, .gpu_request.count] | map(tostring) | join(" ")')" \
    "null training 0 null auto 1" "a plain job: no name, training, priority 0, no limit, 1 GPU"
is "$(j plain .end_reason)" "completed: exited 0" "completed's end reason"
run "$G" show rec
like "$out" "^name: nightly eval$" "show prints the name"
like "$out" "^end_reason: failed: exited 4$" "show prints the end reason"
like "$out" "^stdout: $STATE/output/rec.1.out$" "show prints the output path"

# a request's own output path
run "$G" submit --id named --stdout "$TMP/named.out" -- echo mine
wait_for is_state named completed
is "$(j named .stdout)" "$TMP/named.out" "stdout: the request's path"
is "$(cat "$TMP/named.out")" mine "written there"
is "$(j named .stderr)" "$STATE/output/named.1.err" "stderr: the default, as not named"

# cancelled while running
run "$G" submit --id can -- sh -c "$job_prelude exec sleep 60"
wait_for is_state can running
"$G" cancel can >/dev/null
wait_for is_state can cancelled
is "$(j can .end_reason)" "cancelled while running" "cancelled's end reason"

# attempt 2 after its node is taken down: requeued by the node failure
run "$G" submit --id moved --gpus 8 -- sh -c "$job_prelude echo run; exec sleep 60"
wait_for is_state moved running
n1=$(j moved .placement | sed 's/:.*//')
WAIT_S=10 wait_for sh -c "[ -s '$STATE/output/moved.1.out' ]"
ok $? "attempt 1 wrote moved.1.out"
curl -s -XPOST -H 'Content-Type: application/json' -d '{"reason":"test"}' \
    "$GPUSCHED_SERVER/v1/nodes/$n1/down" >/dev/null
wait_for sh -c "[ \"\$(\"$G\" show --json moved | jq -r '.attempts, .state' | tr '\n' ' ')\" = '2 running ' ]"
ok $? "moved runs again, attempt 2"
isnt=$(j moved .placement | sed 's/:.*//')
ok "$([ "$isnt" != "$n1" ]; echo $?)" "on another node ($isnt, not $n1)"
is "$(j moved .stdout)" "$STATE/output/moved.2.out" "stdout now names attempt 2's file"
WAIT_S=10 wait_for sh -c "[ -s '$STATE/output/moved.2.out' ]"
ok $? "attempt 2 wrote moved.2.out"
is "$(cat "$STATE/output/moved.1.out")" run "attempt 1's file is kept as it was"
"$G" cancel moved >/dev/null
wait_for is_state moved cancelled

# the listing carries the record too
is "$("$G" queue --all --json | jq -r '.jobs[] | select(.id == "rec") | .name')" "nightly eval" \
    "queue --json (GET /v1/jobs) has the name"

# after a restart: ended jobs come from the journal's rows
stop_daemon
start_daemon --cluster "$DATA/door-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon restarts on the same state"
is "$(j rec '[.name, .class, (.time_limit_s | tostring), .end_reason, .stdout] | join("|")')" \
    "nightly eval|inference|1800|failed: exited 4|$STATE/output/rec.1.out" \
    "the record read back from the journal is the same"
is "$(j moved '.attempts, .stdout, .end_reason' | tr '\n' '|')" \
    "2|$STATE/output/moved.2.out|cancelled while running|" "moved: 2 attempts, its last file, cancelled"

#!/bin/sh
# drain/down with --reason, a GPU alone (NODE:GPU and --gpu), resume of a
# single GPU, and what `nodes` and `why` show, against a real gpuschedd
# (the seed's 4 x 8 H100-80G, pack placement); the reasons are journalled
# and survive a restart.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 32

start_daemon --cluster "$ROOT/examples/seed-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts"
G=$GPUSCHED
nodejq() { "$G" nodes --json | jq -r "$1"; }

run "$G" drain node-3 --reason "disk swap"
is "$rc $out" "0 node-3: drain" "drain node-3 --reason: exit 0"
run "$G" down node-2:5 --reason "ECC errors"
is "$rc $out" "0 node-2 gpu 5: down" "down node-2:5 --reason: GPU 5 alone"
run "$G" drain node-1 --gpu 2
is "$rc $out" "0 node-1 gpu 2: drain" "drain node-1 --gpu 2 (no reason)"

is "$(nodejq '.nodes[] | select(.name=="node-3") | .reason')" "disk swap" "nodes --json: node-3's reason"
is "$(nodejq '.nodes[] | select(.name=="node-2") | .gpus_out | map("\(.gpu) \(.state) \(.reason)") | join(",")')" \
    "5 down ECC errors" "nodes --json: node-2's GPU 5, down, with its reason"
is "$(nodejq '.nodes[] | select(.name=="node-1") | .gpus_out | map("\(.gpu) \(.state) \(.reason)") | join(",")')" \
    "2 drain " "nodes --json: node-1's GPU 2, drain, empty reason"
run "$G" nodes
like "$out" "^NODE *STATE *GPUS *FREE *TYPE *DOMAINS" "nodes header with the GPU type"
like "$out" "^node-3 *drain *8 *0 *H100-80G .*(disk swap)$" "node-3: drain, type H100-80G, (disk swap)"
like "$out" "^  node-2:5 *down *(ECC errors)$" "a line for node-2's GPU 5: down (ECC errors)"
like "$out" "^  node-1:2 *drain$" "a line for node-1's GPU 2: drain"
is "$(printf '%s\n' "$out" | grep -c '^  node-3:')" 0 "no GPU lines for a node drained whole (its GPUs share its state)"

hold="$job_prelude exec sleep 120"
"$G" submit --id r1 --gpus 4 --time-limit 1h -- sh -c "$hold" >/dev/null
"$G" submit --id ok1 --time-limit 1h -- true >/dev/null
"$G" submit --id bad1 --time-limit 1h -- sh -c 'exit 3' >/dev/null
WAIT_S=20 wait_for sh -c "[ \"\$(\"$G\" show --json bad1 | jq -r .outcome)\" = failed ] &&
    [ \"\$(\"$G\" show --json ok1 | jq -r .outcome)\" = completed ] &&
    [ \"\$(\"$G\" show --json r1 | jq -r .state)\" = running ]"
ok $? "r1 runs, ok1 completed, bad1 failed"
"$G" submit --id big --gpus 32 --time-limit 1h -- true >/dev/null
WAIT_S=10 wait_for sh -c "\"$G\" show --json big | jq -e .reason.code >/dev/null"

run "$G" why big
like "$out" "^big: pending" "why big: pending"
like "$out" "^  node-3: drain (disk swap), 8 GPUs$" "why big: node-3 out of service with its reason"
like "$out" "^  node-2:5: down (ECC errors)$" "why big: node-2's GPU 5 with its reason"
like "$out" "^  node-1:2: drain$" "why big: node-1's GPU 2"
iso='20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'
run "$G" why r1
like "$out" "^r1: running on node-[0-9]:[0-9,:node-]* since $iso ([0-9]* s ago\|now), attempt 1$" \
    "why r1: where, since when (ISO + relative), attempt"
run "$G" why ok1
like "$out" "^ok1: completed (exit code 0) at $iso (.*ago\|now)$" "why ok1: outcome, exit code, when"
like "$out" "^  ran [0-9]:[0-9][0-9] on node-[0-9]:[0-9] from $iso, attempt 1$" "why ok1: how long, where, from when"
run "$G" why bad1
like "$out" "^bad1: failed (exit code 3) at $iso" "why bad1: failed with exit code 3"

ev=$(sqlite3 "$STATE/journal.db" "SELECT kind || ' ' || detail FROM events WHERE kind LIKE 'node_%' ORDER BY seq")
is "$ev" "node_drain node-3: disk swap
node_down node-2/gpu5: ECC errors
node_drain node-1/gpu2: " "the journal holds each command with its reason"

stop_daemon
start_daemon --cluster "$ROOT/examples/seed-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon restarts on the same state"
run "$G" nodes
like "$out" "^node-3 *drain .*(disk swap)$" "after the restart: node-3's reason"
like "$out" "^  node-2:5 *down *(ECC errors)$" "after the restart: node-2:5's reason"

run "$G" resume node-2:5
is "$rc $out" "0 node-2 gpu 5: up" "resume node-2:5: one GPU back"
is "$(nodejq '.nodes[] | select(.name=="node-2") | .gpus_out | length')" 0 "node-2 has no GPU out"
run "$G" resume node-1 --gpu 2
is "$(nodejq '.nodes[] | select(.name=="node-1") | .gpus_out | length')" 0 "resume node-1 --gpu 2: GPU 2 back"
run "$G" resume node-3
is "$(nodejq '.nodes[] | select(.name=="node-3") | "\(.state) \(.reason)"')" "up null" "resume node-3: up, no reason"

run "$G" down node-1:2 --gpu 3
is "$rc" 2 "NODE:G and a different --gpu: usage error"
run "$G" resume node-1 --reason x
is "$rc" 2 "resume takes no --reason"
run "$G" drain node-1 --reason "$(printf '%0201d' 0)"
like "$rc $out" "^1 .*reason.*HTTP 400" "a reason over 200 characters: 400 naming the field"

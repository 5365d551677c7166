#!/bin/sh
# `gpusched cancel` with several ids and with filters (--user, --team,
# --state) against a real gpuschedd: one line per job saying what
# happened, exit 1 when any was not cancelled.
#
# Jobs (seed cluster, 32 GPUs): a1 a2 (alice, team a, 4 GPUs, running),
# b1 (bob, team b, 8 GPUs, running), w1 (bob, team b, 32 GPUs: waits, since
# 16 are busy), c1 (carol, team c, 4 GPUs, running), done1 (bob: `true`,
# completed before the cancels).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 18

start_daemon --cluster "$ROOT/examples/seed-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts"
G=$GPUSCHED
hold="$job_prelude exec sleep 120"
sub() { _id=$1 _gpus=$2 _team=$3 _user=$4; shift 4
    "$G" submit --id "$_id" --gpus "$_gpus" --team "$_team" --user "$_user" --time-limit 1h -- "$@" >/dev/null; }
sub done1 1 b bob true
WAIT_S=20 wait_for is_state done1 completed
sub a1 4 a alice sh -c "$hold"; sub a2 4 a alice sh -c "$hold"
sub b1 8 b bob sh -c "$hold"; sub c1 4 c carol sh -c "$hold"
sub w1 32 b bob true
WAIT_S=20 wait_for sh -c "for j in a1 a2 b1 c1; do [ \"\$(\"$G\" show --json \$j | jq -r .state)\" = running ] || exit 1; done"
ok $? "a1 a2 b1 c1 run, w1 waits, done1 completed"

run "$G" cancel a1 nosuch done1
is "$rc" 1 "several ids, two of them not cancellable: exit 1"
like "$out" "^a1: \(stopping\|cancelled\)$" "a1: its new state"
like "$out" "^nosuch: not cancelled: no job 'nosuch' (HTTP 404)$" "nosuch: not cancelled, why (404)"
like "$out" "^done1: not cancelled: .*ended.* (HTTP 409)$" "done1: not cancelled, it has ended (409)"
is "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 3 "one line per id"

run "$G" cancel --team b -t PD
is "$rc $out" "0 w1: cancelled" "--team b -t PD: only team b's pending job (w1), b1 runs on"
WAIT_S=10 wait_for is_state w1 cancelled
ok $? "w1 ends cancelled"
is "$(job_state b1)" running "b1 (team b, running) is untouched"

run "$G" cancel --user alice,carol
is "$rc" 0 "--user alice,carol: exit 0"
is "$(printf '%s\n' "$out" | sed 's/:.*//' | sort | tr '\n' ' ')" "a2 c1 " "... cancels their live jobs a2, c1 (a1 is already ending or ended)"
run "$G" cancel b1 c1 --user bob
is "$(printf '%s\n' "$out" | sed 's/:.*//' | tr '\n' ' ')" "b1 " "ids with a filter: only the ids it selects (b1, not c1)"
run "$G" cancel --user nobody-here
is "$rc $out" "0 no job matches" "a filter matching nothing: says so, exit 0"
run "$G" cancel --json nosuch done1
is "$(printf '%s' "$out" | jq -c '[.results[] | [.id, .http]]')" '[["nosuch",404],["done1",409]]' "--json: each id with its HTTP status"
run "$G" cancel nosuch
like "$rc $out" "^1 gpusched: no job 'nosuch' (.*HTTP 404)$" "one id alone: the error as every one-shot command prints it, exit 1"
run "$G" cancel
is "$rc" 2 "no id and no filter: usage error (exit 2)"
run "$G" cancel -t XX
is "$rc" 2 "a bad state: exit 2"

#!/bin/sh
# Times for people: ISO 8601 UTC plus a relative form, never raw epoch
# seconds, in the daemon's reason texts (the engine writes "from t=N s")
# and in queue/why, against a real gpuschedd (seed cluster, EASY backfill
# on time limits).
#
# a1 (8 GPUs, 10 min limit), a2, a3 (8 GPUs, 1 h) fill three nodes; big
# (16 GPUs) is reserved for when a1 ends (+10 min: node-1 and node-4);
# small (2 GPUs, 1 h) fits node-4's idle GPUs now but would still run then:
# reason `reservation`, whose detail names the reserved start.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 10

start_daemon --cluster "$ROOT/examples/seed-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts"
G=$GPUSCHED
hold="$job_prelude exec sleep 120"
"$G" submit --id a1 --gpus 8 --time-limit 10m -- sh -c "$hold" >/dev/null
"$G" submit --id a2 --gpus 8 --time-limit 1h -- sh -c "$hold" >/dev/null
"$G" submit --id a3 --gpus 8 --time-limit 1h -- sh -c "$hold" >/dev/null
WAIT_S=20 wait_for sh -c "[ \"\$(\"$G\" queue -t R --noheader | wc -l)\" -eq 3 ]"
"$G" submit --id big --gpus 16 --time-limit 1h -- true >/dev/null
"$G" submit --id small --gpus 2 --time-limit 1h -- true >/dev/null
WAIT_S=10 wait_for sh -c "[ \"\$(\"$G\" show --json small | jq -r .reason.code)\" = reservation ]"
ok $? "small waits for big's reservation"

iso='20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'
detail=$("$G" show --json small | jq -r .reason.detail)
like "$detail" "held for reserved job big (from $iso)" "the API's detail: the reserved start as ISO 8601"
is "$(printf '%s' "$detail" | grep -c 't=[0-9]')" 0 "... and no 't=SECONDS s'"
run "$G" why small
like "$out" "(from $iso (in [0-9]* min))" "why: the reserved start with its relative form"
like "$out" "holder_start $iso (in [0-9]* min)" "why: the reason's holder_start as a time, not seconds"
like "$out" "^estimated start: $iso (in [0-9]* min)" "why: the estimated start, ISO + relative"
run "$G" queue
# the bracket is the start-time promise (client_eta.c): UTC to the minute
like "$(printf '%s\n' "$out" | grep '^small ')" "\[starts by about \([0-9-]\{10\}T\)\{0,1\}[0-2][0-9]:[0-5][0-9]Z" "queue: the promised start in UTC"
dash=$(curl -s "$GPUSCHED_SERVER/v1/dashboard" | jq -r '.queue.items[] | select(.id == "small") | .detail')
like "$dash" "held for reserved job big (from $iso)" "dashboard: the queue item's detail as ISO 8601"
all=$("$G" queue; "$G" why small; "$G" why a1; "$G" nodes)
is "$(printf '%s\n' "$all" | grep -c '[0-9]\{10\}')" 0 "no 10-digit number (an epoch) in queue, why or nodes"

#!/bin/sh
# `gpusched history ID` (GET /v1/jobs/ID/events) against a real gpuschedd:
# job V is preempted, requeued by a node failure and ends; its history has
# every step in order with times.  Two nodes of 8 GPUs, immediate
# preemption by priority (two-nodes.yaml, live-equiv.yaml): F and V (8 GPUs
# each, V younger) run one per node; P (priority 10) preempts V (the younger
# loses less) and runs on V's node; when P ends V runs again (attempt 2);
# its node is taken down (node failure: requeued); when F ends V runs on
# F's node (attempt 3) and completes.  Each job waits for its own file, so
# the test decides when it ends.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 18
G=$GPUSCHED
start_daemon --cluster "$DATA/two-nodes.yaml" --policy "$DATA/live-equiv.yaml"
ok $? "daemon starts"
hold() { printf '%s' "$job_prelude while [ ! -e '$TMP/go.$1' ]; do sleep 0.05; done"; }
"$G" submit --id F --gpus 8 --time-limit 10m -- sh -c "$(hold F)" >/dev/null
WAIT_S=10 wait_for is_state F running
"$G" submit --id V --gpus 8 --time-limit 10m -- sh -c "$(hold V)" >/dev/null
WAIT_S=10 wait_for is_state V running
ok $? "F and V run"
"$G" submit --id P --gpus 8 --priority 10 --time-limit 10m -- sh -c "$(hold P)" >/dev/null
WAIT_S=15 wait_for is_state P running
ok $? "P runs"
is "$("$G" show --json V | jq -r '.preemptions, .state' | tr '\n' ' ')" "1 pending " \
    "V was preempted and waits"
touch "$TMP/go.P"
WAIT_S=15 wait_for sh -c "[ \"\$(\"$G\" show --json V | jq -r '.attempts, .state' | tr '\n' ' ')\" = '2 running ' ]"
ok $? "P ended; V runs again (attempt 2)"
node=$("$G" show --json V | jq -r .placement | sed 's/:.*//')
curl -s -XPOST -H 'Content-Type: application/json' -d '{"reason":"test failure"}' \
    "$GPUSCHED_SERVER/v1/nodes/$node/down" >/dev/null
WAIT_S=15 wait_for is_state V pending
ok $? "its node $node went down: V is requeued"
touch "$TMP/go.F"
WAIT_S=15 wait_for sh -c "[ \"\$(\"$G\" show --json V | jq -r '.attempts, .state' | tr '\n' ' ')\" = '3 running ' ]"
ok $? "F ended; V runs on F's node (attempt 3)"
touch "$TMP/go.V"
WAIT_S=15 wait_for is_state V completed
ok $? "V completes"

run "$G" history V
is "$rc" 0 "history exits 0"
printf '%s\n' "$out" | sed 's/^/# /'
words=$(printf '%s\n' "$out" | awk 'NR > 1 { print $2 }' | tr '\n' ' ')
# the steps in order (other events, e.g. reserved, may come between)
want="submitted started preempted exited requeued started node_failure requeued started exited ended"
got=$(printf '%s\n' $words | awk -v want="$want" 'BEGIN { n = split(want, w, " "); i = 1 }
    i <= n && $1 == w[i] { i++ } END { print (i > n) ? "all" : "missing " w[i] }')
is "$got" all "the history has: $want (in that order)"
like "$out" "started  *attempt 1 on" "started says attempt 1 and its GPUs"
like "$out" "started  *attempt 3 on" "... and attempt 3"
like "$out" "ended  *completed: exited 0" "ended says why"
run "$G" history --json V
is "$(printf '%s' "$out" | jq -r '[.events[] | select(.event != "ended") | .time_epoch] | . == sort')" true \
    "the journal's event times never go back"
is "$(printf '%s' "$out" | jq -r '.events[-1].time_epoch')" "$("$G" show --json V | jq -r .end_epoch)" \
    "ended is at the job's end (as its supervisor saw it)"
is "$(printf '%s' "$out" | jq '.events | length')" "$(printf '%s\n' $words | wc -l | tr -d ' ')" \
    "--json has the same events as the text"
# paged: 2 events a page, every page joined = the one answer
all=$(printf '%s' "$out" | jq -c '[.events[] | .event]')
pages="[]" after=
while :; do
    p=$(curl -s "$GPUSCHED_SERVER/v1/jobs/V/events?limit=2${after:+&after=$after}")
    pages=$(printf '%s\n%s' "$pages" "$p" | jq -sc '.[0] + [.[1].events[] | .event]')
    after=$(printf '%s' "$p" | jq -r '.next // empty')
    [ -n "$after" ] || break
done
is "$pages" "$all" "pages of 2 (limit, after = next) give the same events"
run "$G" history nosuch
is "$rc" 1 "history of an unknown job: exit 1 (404)"

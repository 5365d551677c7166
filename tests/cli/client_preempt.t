#!/bin/sh
# Preemption in the live daemon must not thrash (found by client_equiv.t,
# reduced here).  Two nodes of 8 GPUs, immediate preemption by priority
# (tests/data/cli/live-equiv.yaml): C (8 GPUs) runs on n1; A and B (4 GPUs
# each, younger than C, so they lose less) run on n2; P (8 GPUs, priority 10)
# arrives.  The simulator's answer: A and B are preempted once, P runs on n2,
# then A and B run again.  Live, A and B must likewise be preempted exactly
# once each: while they are stopping P has to keep n2, not see them
# restarted there and preempt them again.  Three rounds (fresh daemon each),
# since the daemon's answer depends on timing.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 9
G=$GPUSCHED
hold="$job_prelude exec sleep 30"
for r in 1 2 3; do
    STATE=$TMP/state$r
    start_daemon --cluster "$DATA/two-nodes.yaml" --policy "$DATA/live-equiv.yaml"
    "$G" submit --id C --gpus 8 --time-limit 10m -- sh -c "$hold" >/dev/null
    WAIT_S=10 wait_for is_state C running
    "$G" submit --id A --gpus 4 --time-limit 10m -- sh -c "$hold" >/dev/null
    "$G" submit --id B --gpus 4 --time-limit 10m -- sh -c "$hold" >/dev/null
    WAIT_S=10 wait_for sh -c "[ \"\$(\"$G\" queue --json --state running | jq '[.jobs[]] | length')\" = 3 ]"
    "$G" submit --id P --gpus 8 --priority 10 --time-limit 1m -- sh -c "$job_prelude sleep 1" >/dev/null
    WAIT_S=15 wait_for is_state P completed
    ok $? "round $r: P completes"
    is "$("$G" show --json P | jq -r '.placement' | sed 's/:[0-9]*//g' | tr ',' '\n' | sort -u)" n2 \
        "round $r: P ran on n2 (A's and B's node)"
    got=$("$G" queue --all --json | jq -r '[.jobs[] | select(.id=="A" or .id=="B") | .preemptions] | map(tostring) | join(" ")')
    is "$got" "1 1" "round $r: A and B preempted once each"
    for j in A B C; do "$G" cancel "$j" >/dev/null 2>&1; done
    stop_daemon
    kill_jobs
done

#!/bin/sh
# `gpusched jobs` (sacct's role) against a real gpuschedd: the ended jobs
# only, filtered by --state, --team, --user and --since, in the columns of
# --format, as --parsable, --csv and --json.  Jobs: e1 (team a, alice,
# completed), e2 (team b, bob, exits 3), e3 (team a, bob, cancelled while
# running: exit 143 = 128 + SIGTERM), then after a pause `late` (team b, alice,
# completed) and one still running (never listed).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 17
G=$GPUSCHED
start_daemon --cluster "$DATA/door-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts"
"$G" submit --id e1 --name "first, plain" --team a --user alice -- true >/dev/null
"$G" submit --id e2 --team b --user bob -- sh -c 'exit 3' >/dev/null
"$G" submit --id e3 --team a --user bob -- sh -c "$job_prelude exec sleep 60" >/dev/null
wait_for is_state e1 completed && wait_for is_state e2 failed && wait_for is_state e3 running
"$G" cancel e3 >/dev/null
wait_for is_state e3 cancelled
ok $? "e1 completed, e2 failed, e3 cancelled"
sleep 1.2
since=$(date -u +%Y-%m-%dT%H:%M:%SZ) # a second after the three ended (truncated)
"$G" submit --id late --team b --user alice -- true >/dev/null
"$G" submit --id live --team a -- sh -c "$job_prelude exec sleep 60" >/dev/null
wait_for is_state late completed && wait_for is_state live running
ok $? "late completed, live runs"

P="--parsable --format id,user,team,state,exit_code"
is "$("$G" jobs $P | tr '\n' ' ')" \
    "id|user|team|state|exit_code e1|alice|a|completed|0 e2|bob|b|failed|3 e3|bob|a|cancelled|143 late|alice|b|completed|0 " \
    "every ended job (not the running one), in submission order"
is "$("$G" jobs $P --state failed | tail -n +2)" "e2|bob|b|failed|3" "--state failed"
is "$("$G" jobs $P --team a | tail -n +2 | cut -d'|' -f1 | tr '\n' ' ')" "e1 e3 " "--team a"
is "$("$G" jobs $P --user bob | tail -n +2 | cut -d'|' -f1 | tr '\n' ' ')" "e2 e3 " "--user bob"
is "$("$G" jobs $P --user alice --team b | tail -n +2 | cut -d'|' -f1)" "late" "--user alice --team b"
is "$("$G" jobs $P --since "$since" | tail -n +2 | cut -d'|' -f1)" "late" \
    "--since $since: only the job that ended after it"
is "$("$G" jobs $P --since 1h | tail -n +2 | wc -l | tr -d ' ')" 4 "--since 1h: all four"
run "$G" jobs --csv --format id,name,state
is "$(printf '%s\n' "$out" | head -2 | tr '\n' ' ')" 'id,name,state e1,"first, plain",completed ' \
    "--csv: a header, and a name with a comma quoted"
run "$G" jobs --json --state completed
is "$(printf '%s' "$out" | jq -r '[.jobs[].id] | join(" ")')" "e1 late" "--json: the filtered job objects"
is "$(printf '%s' "$out" | jq -r '.jobs[0].name')" "first, plain" "... whole records (name)"
run "$G" jobs
like "$(printf '%s\n' "$out" | head -1)" "^id  *name  *user  *team  *gpus  *state  *exit_code  *start  *end  *elapsed$" \
    "the default columns"
run "$G" jobs --format id,bogus
is "$rc" 2 "an unknown column: exit 2"
run "$G" jobs --since yesterday
is "$rc" 2 "a --since it cannot read: exit 2"
run "$G" jobs --state running
is "$rc" 2 "--state running: exit 2 (queue lists live jobs)"

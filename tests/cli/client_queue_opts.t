#!/bin/sh
# `gpusched queue`'s listing options against a real gpuschedd (the seed's
# 4 x 8 GPUs, pack placement): --noheader, --format, -u/--user,
# -t/--state with gpusched names and Slurm codes, -j/--jobs, --parsable,
# --json with filters, and TIME from the daemon's clock when it answers.
#
# The jobs: r1 (alice, team a, 4 GPUs) and r2 (bob, team b, 8 GPUs) run
# (sleep); big (carol, 32 GPUs) waits behind them (shortage: 20 free);
# ok1 (alice) runs `true` -> completed, bad1 (bob) runs `false` -> failed,
# gone1 (carol) is cancelled while it waits behind big.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 33

start_daemon --cluster "$ROOT/examples/seed-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts"
G=$GPUSCHED
hold="$job_prelude exec sleep 120"
"$G" submit --id r1 --gpus 4 --team a --user alice --time-limit 1h -- sh -c "$hold" >/dev/null
"$G" submit --id r2 --gpus 8 --team b --user bob --time-limit 1h -- sh -c "$hold" >/dev/null
"$G" submit --id ok1 --gpus 1 --team a --user alice --time-limit 1h -- true >/dev/null
"$G" submit --id bad1 --gpus 1 --team b --user bob --time-limit 1h -- false >/dev/null
WAIT_S=20 wait_for sh -c "[ \"\$(\"$G\" show --json ok1 | jq -r .outcome)\" = completed ] &&
    [ \"\$(\"$G\" show --json bad1 | jq -r .outcome)\" = failed ]"
ok $? "ok1 completes and bad1 fails"
"$G" submit --id big --gpus 32 --team c --user carol --time-limit 1h -- true >/dev/null
"$G" submit --id gone1 --gpus 1 --team c --user carol --time-limit 1h -- true >/dev/null
"$G" cancel gone1 >/dev/null
WAIT_S=20 wait_for sh -c "[ \"\$(\"$G\" show --json gone1 | jq -r .outcome)\" = cancelled ] &&
    [ \"\$(\"$G\" show --json r1 | jq -r .state)\" = running ] &&
    [ \"\$(\"$G\" show --json r2 | jq -r .state)\" = running ]"
ok $? "r1 and r2 run, gone1 is cancelled"

ids() { printf '%s\n' "$1" | awk 'NR > 1 || !/^JOBID/ { print $1 }' | sort | tr '\n' ' '; }

run "$G" queue
is "$(ids "$out")" "big r1 r2 " "default: the live jobs only (no ended ones)"
run "$G" queue --noheader
is "$(printf '%s\n' "$out" | grep -c JOBID)" 0 "--noheader: no header line"
is "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 3 "--noheader: one line per job, nothing else"

run "$G" queue --format jobid,user,st
is "$(printf '%s\n' "$out" | head -1 | tr -s ' ')" "JOBID USER ST" "--format: the header names the fields asked"
like "$out" "^r1  *alice  *R$" "--format: r1 alice R (Slurm's code for running)"
like "$out" "^big  *carol  *PD$" "--format: big carol PD"
run "$G" queue --format JOBID,UserName,ST:4,gpus --parsable
is "$(printf '%s\n' "$out" | head -1)" "JOBID|USER|ST|GPUS" "--parsable header: '|'-separated, field names case-insensitive, alias username"
is "$(printf '%s\n' "$out" | grep '^r2|')" "r2|bob|R|8" "--parsable row: no padding (a width is ignored)"
run "$G" queue --format jobid,nope
is "$rc" 2 "--format with an unknown field: exit 2"
like "$out" "unknown field 'nope'" "... naming the field"

run "$G" queue -u alice
is "$(ids "$out")" "r1 " "-u alice: alice's live job"
run "$G" queue --user alice,carol -t all
is "$(ids "$out")" "big gone1 ok1 r1 " "--user alice,carol -t all: their jobs in every state"

run "$G" queue -t PD
is "$(ids "$out")" "big " "-t PD: the pending job"
run "$G" queue -t R
is "$(ids "$out")" "r1 r2 " "-t R: the running jobs"
run "$G" queue -t CD --format jobid,state,st,exitcode --noheader
is "$(printf '%s\n' "$out" | tr -s ' ')" "ok1 completed CD 0" "-t CD: the completed job, state, code and exit code"
run "$G" queue -t F --format jobid,st,exitcode --noheader
is "$(printf '%s\n' "$out" | tr -s ' ')" "bad1 F 1" "-t F: the failed job (exit code 1)"
run "$G" queue -t ca --format jobid,st --noheader
is "$(printf '%s\n' "$out" | tr -s ' ')" "gone1 CA" "-t ca (codes case-insensitive): the cancelled job"
run "$G" queue --state completed,failed
is "$(ids "$out")" "bad1 ok1 " "--state completed,failed: gpusched names, a list"
run "$G" queue -t done
is "$(ids "$out")" "bad1 gone1 ok1 " "-t done: every ended job"
run "$G" queue -t PD,R,CD
is "$(ids "$out")" "big ok1 r1 r2 " "-t PD,R,CD: a mixed list, filtered after paging"
run "$G" queue --all
is "$(ids "$out")" "bad1 big gone1 ok1 r1 r2 " "--all: every job"
run "$G" queue -t XX
is "$rc" 2 "-t XX: exit 2"
like "$out" "unknown state 'XX'" "... naming the state"

run "$G" queue -j r1,ok1
is "$(ids "$out")" "r1 " "-j r1,ok1: ok1 ended, so only r1 (states as by default)"
run "$G" queue --jobs r1,ok1,nosuch -t all
is "$(ids "$out")" "ok1 r1 " "--jobs r1,ok1,nosuch -t all: the two that exist"
run "$G" queue --team b -t all --json
is "$(printf '%s' "$out" | jq -c '[.jobs[].id] | sort')" '["bad1","r2"]' "--team b --json: team b's jobs (server-side filter)"
run "$G" queue -u alice -t all --json
is "$(printf '%s' "$out" | jq -c '[.jobs[].id] | sort')" '["ok1","r1"]' "-u alice --json: the JSON holds only the jobs selected"

# TIME from the clock of the answer: after an idle spell (nothing starts
# or ends, so the daemon publishes nothing new) r1's TIME is still at
# least the wall time since its start (before: the view's time, seconds
# behind).  One-sided: the command runs after `before`.
sleep 4
start=$("$G" show --json r1 | jq -r '.start_epoch | floor')
before=$(date +%s)
t=$("$G" queue -j r1 --format time --noheader | tr -d ' ')
secs=$(printf '%s\n' "$t" | awk -F: '{ print $(NF-1) * 60 + $NF + (NF > 2 ? $(NF-2) * 3600 : 0) }')
ok $([ "$secs" -ge $((before - start - 1)) ]; echo $?) "TIME $t >= the wall time since r1's start ($((before - start)) s) - 1"
run "$G" queue -j r1 --json
now=$(printf '%s' "$out" | jq -r '.now_epoch | floor')
ok $([ "$now" -ge "$before" ]; echo $?) "now_epoch ($now) is the time of the answer (>= $before)"
run "$G" queue -j r1 --format submit,start,end --noheader
like "$out" "^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z  *20.*Z  *-$" "submit/start as ISO 8601 UTC, no end yet"

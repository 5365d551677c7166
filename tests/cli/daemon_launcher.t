#!/bin/sh
# The launcher threads (docs/daemon.md, "Threads"): the engine thread decides
# and journals, a pool of launcher threads forks the supervisors.  With every
# launch made slow on purpose (GPUSCHEDD_TEST_LAUNCH_DELAY_MS: a fork that
# takes 1.5 s), the engine thread goes on answering and deciding: a submit
# made while launches wait is answered while the earlier jobs are still
# `starting` (before, the launch ran on the engine thread and the next turn
# waited for it).  Then kill -9 while launches are queued: after a restart
# every job, decided and launched or decided and not yet launched, runs
# exactly once, as its first attempt.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 9

S=$TMP/s
GPUSCHEDD_TEST_LAUNCH_DELAY_MS=1500 daemon_start "$S"
job() { printf '{"id":"%s","command":["sh","-c","echo %s >> %s/runs"]}' "$1" "$1" "$TMP"; }
api POST /v1/jobs "$(job a1)"
is "$code" 201 "a1 accepted"
api POST /v1/jobs "$(job a2)"
is "$code" 201 "a2 accepted"
api GET /v1/jobs/a1
is "$(field "$body" .state)" starting \
    "a2's submit was answered while a1's launch is still under way (a1 starting)"
# 8 more: the 4 launcher threads are busy, so most of these are queued
for i in 3 4 5 6 7 8 9 10; do api POST /v1/jobs "$(job a$i)"; done
is "$code" 201 "a10 accepted"
sleep 1 # some launched (the first four take 1.5 s), others queued: 10 need three rounds
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
DPID=
n0=$(cat "$TMP/runs" 2>/dev/null | wc -l | tr -d ' ')
echo "# killed with $n0 of 10 jobs run"
daemon_start "$S"
all=1
for i in 1 2 3 4 5 6 7 8 9 10; do wait_state "a$i" completed 30 || all=0; done
is "$all" 1 "after the restart every job completes"
is "$(sort "$TMP/runs" | uniq -d | wc -l | tr -d ' ') $(sort -u "$TMP/runs" | wc -l | tr -d ' ')" "0 10" \
    "each of the 10 ran exactly once"
api GET /v1/jobs
is "$(field "$body" '[.jobs[] | select(.attempts != 1)] | length')" 0 "all as attempt 1 (the decisions stood)"
ok "$([ "$(grep -c 'decided but not launched' "$TMP/daemon.err")" -ge 1 ]; echo $?)" \
    "the restart found jobs decided but not launched ($(grep -c 'decided but not launched' "$TMP/daemon.err"))"
daemon_stop
sanitizer_clean

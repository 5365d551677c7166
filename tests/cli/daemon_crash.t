#!/bin/sh
# gpuschedd killed between "decided" and "launched" (the test hook
# GPUSCHEDD_TEST_CRASH makes it _exit(99) there): the START decision was
# committed before the launch, so after a restart the job runs, and exactly
# once.  before_launch: dies after the commit, before the fork.  before_go:
# dies after forking the supervisor and recording it in RUNDIR/sup, before
# the go byte: the supervisor sees its pipe close, runs nothing and writes
# "never launched"; the restarted daemon launches the attempt itself.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 13

n=0
for point in before_launch before_go; do
    n=$((n + 1))
    S=$TMP/$point
    GPUSCHEDD_TEST_CRASH=$point daemon_start "$S"
    api POST /v1/jobs "{\"id\":\"once\",\"command\":[\"sh\",\"-c\",\"echo ran >> $TMP/$point.runs\"]}"
    # the daemon may die before or after the 201 is sent: wait for its death
    i=0
    while kill -0 "$DPID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    daemon_stop
    is "$?" 99 "$point: the daemon died at the hook"
    sleep 0.3
    ok "$([ ! -e "$TMP/$point.runs" ]; echo $?)" "$point: the job did not run before the restart"
    daemon_start "$S"
    wait_state once completed 10
    ok $? "$point: after the restart the job completes"
    is "$(cat "$TMP/$point.runs" 2>/dev/null | wc -l | tr -d ' ')" 1 "$point: it ran exactly once"
    api GET /v1/jobs/once
    is "$(field "$body" '.attempts')" 1 "$point: as attempt 1 (the decision stood)"
    is "$(grep -c 'decided but not launched' "$TMP/daemon.err")" $n \
        "$point: the restarted daemon logs what it found"
    daemon_stop
done
sanitizer_clean

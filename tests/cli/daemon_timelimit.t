#!/bin/sh
# Time limits are enforced by gpuschedd by default (docs/policy.md,
# queue.time_limit unset = enforce in the daemon): SIGTERM at start +
# time_limit + queue.over_time_limit, SIGKILL after --kill-wait, outcome
# `timeout`, journalled (it survives a restart and is counted in /metrics);
# `queue.time_limit: advisory` lets a job outrun its limit.  Bounds are
# generous (the machine is shared); each one separates the behaviours: an
# unenforced job would run 30 s, an enforced one stops within a second or
# two of its limit.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 14

dur() { # JOB: end_epoch - start_epoch, in seconds (one decimal)
    curl -s "$URL/v1/jobs/$1" | jq -r '(.end_epoch - .start_epoch) * 10 | round / 10'
}
within() { awk -v d="$1" -v lo="$2" -v hi="$3" 'BEGIN { print !(d >= lo && d <= hi) }'; }

S=$TMP/s
daemon_start "$S" --kill-wait 1
ok $? "gpuschedd starts (default policy, --kill-wait 1)"
# t1 ends on SIGTERM; t2 ignores SIGTERM and must be SIGKILLed 1 s later
api POST /v1/jobs '{"id":"t1","gpus":1,"time_limit":"2s","command":["sleep","30"]}'
is "$code" 201 "t1 (limit 2 s, runs 30 s) accepted"
api POST /v1/jobs '{"id":"t2","gpus":1,"time_limit":"2s","command":["sh","-c","trap \"\" TERM; sleep 30 & wait; sleep 30"]}'
is "$code" 201 "t2 (limit 2 s, ignores SIGTERM) accepted"
api POST /v1/jobs '{"id":"ok","gpus":1,"time_limit":"30s","command":["sleep","1"]}'
wait_state t1 timeout 15
ok $? "t1 ends with outcome timeout"
wait_state t2 timeout 15
ok $? "t2 ends with outcome timeout (SIGKILL after the kill wait)"
wait_state ok completed 15
ok $? "a job within its limit completes"
d1=$(dur t1) d2=$(dur t2)
echo "# t1 ran $d1 s, t2 ran $d2 s"
ok "$(within "$d1" 1.8 6)" "t1 stopped at its 2 s limit (ran $d1 s, not 30)"
ok "$(within "$d2" 2.8 8)" "t2 stopped at 2 s + 1 s kill wait (ran $d2 s, not 30)"
api GET '/v1/jobs?state=timeout'
is "$(field "$body" '[.jobs[].id] | sort | join(" ")')" "t1 t2" "?state=timeout lists the two"
daemon_stop
daemon_start "$S" --kill-wait 1
api GET /v1/jobs/t2
is "$(field "$body" '.state + " " + .outcome')" "done timeout" "the outcome survives a restart"
is "$(curl -s "$URL/metrics" | awk '/^gpusched_jobs_ended_total.*outcome="timeout"/ { s += $2 } END { print s + 0 }')" \
    2 "/metrics counts two timeouts (from the journal at start)"
daemon_stop

# advisory: the limit is an estimate only; over_time_limit: the grace
printf 'queue:\n  time_limit: advisory\n' >"$TMP/adv.yaml"
daemon_start "$TMP/s2" --policy "$TMP/adv.yaml"
api POST /v1/jobs '{"id":"a","gpus":1,"time_limit":"1s","command":["sleep","3"]}'
wait_state a completed 15
ok $? "queue.time_limit: advisory: a 3 s job with a 1 s limit completes"
daemon_stop
printf 'queue:\n  over_time_limit: 3s\n' >"$TMP/grace.yaml"
daemon_start "$TMP/s3" --policy "$TMP/grace.yaml"
api POST /v1/jobs '{"id":"g","gpus":1,"time_limit":"1s","command":["sleep","30"]}'
wait_state g timeout 15
ok $? "with over_time_limit 3s the job still times out"
dg=$(dur g)
ok "$(within "$dg" 3.8 8)" "... at its 1 s limit + 3 s grace (ran $dg s)"
daemon_stop

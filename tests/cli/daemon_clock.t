#!/bin/sh
# Engine time runs on CLOCK_MONOTONIC: gpuschedd under libfaketime, whose
# wall clock steps +2 h and then -2 h while jobs run (FAKETIME_NO_CACHE
# re-reads the offset file at every call; FAKETIME_DONT_FAKE_MONOTONIC
# leaves CLOCK_MONOTONIC real).  A 4 s job must record about 4 s of run,
# a job with a 3 s time limit (enforced by default) must end at about 3 s
# with outcome timeout, and no end may precede its submit.  Before the
# engine clock moved off the wall clock, the +2 h step ended the limited
# job at once and recorded the 4 s job as 7,204 s long; the -2 h step froze
# engine time, so the limit was not enforced for two hours.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"

FT=
for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \
         /usr/lib/faketime/libfaketime.so.1 /usr/local/lib/faketime/libfaketime.so.1; do
    [ -r "$f" ] && FT=$f && break
done
if [ -z "$FT" ]; then
    echo "1..1"
    echo "not ok 1 - libfaketime not found (Debian package faketime: scripts/deps.sh test)"
    exit 1
fi
plan 13

OFF=$TMP/faketime
echo "+0" >"$OFF"
S=$TMP/s
# only the daemon (and what it starts) runs under the fake wall clock
cat >"$TMP/gpuschedd-ft" <<EOF
#!/bin/sh
# (ASan wants to be first in the library list: libfaketime is preloaded)
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0"
LD_PRELOAD=$FT FAKETIME_TIMESTAMP_FILE=$OFF FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1 \\
    exec "$GPUSCHEDD" "\$@"
EOF
chmod +x "$TMP/gpuschedd-ft"
REAL_GPUSCHEDD=$GPUSCHEDD
GPUSCHEDD=$TMP/gpuschedd-ft
daemon_start "$S"
ok $? "gpuschedd starts under libfaketime"
GPUSCHEDD=$REAL_GPUSCHEDD
grep -q libfaketime "/proc/$DPID/maps"
ok $? "libfaketime is loaded in the daemon"
api POST /v1/jobs '{"id":"run4","gpus":1,"command":["sleep","4"]}'
is "$code" 201 "a 4 s job is accepted"
api POST /v1/jobs '{"id":"lim3","gpus":1,"time_limit":"3s","command":["sleep","30"]}'
is "$code" 201 "a job with a 3 s time limit running 30 s is accepted"
wait_state run4 running 10 && wait_state lim3 running 10
ok $? "both run"
sleep 1
echo "+2h" >"$OFF"  # the wall clock jumps two hours ahead
sleep 1
api GET /v1/jobs/lim3
is "$(field "$body" .state)" running "1 s after a +2 h wall step the limited job still runs"
echo "-2h" >"$OFF"  # ... then four hours back
wait_state lim3 timeout 15
ok $? "the limited job ends with outcome timeout after the -2 h step"
wait_state run4 completed 15
ok $? "the 4 s job completes"
dur() { # JOB: end_epoch - start_epoch, in seconds
    curl -s "$URL/v1/jobs/$1" | jq -r '(.end_epoch - .start_epoch) * 10 | round / 10'
}
d4=$(dur run4) d3=$(dur lim3)
echo "# run4 ran ${d4} s, lim3 ran ${d3} s (engine time)"
ok "$(awk -v d="$d4" 'BEGIN { print !(d >= 3.5 && d <= 7) }')" \
    "the 4 s job records 3.5-7 s of run, not hours"
# 3 s limit, over_time_limit 0, then SIGTERM: sleep ends at once
ok "$(awk -v d="$d3" 'BEGIN { print !(d >= 2.5 && d <= 7) }')" \
    "the 3 s limit ends the job after 2.5-7 s, not at the step nor hours later"
bad=$(curl -s "$URL/v1/jobs" | jq -r '.jobs[] | select(.end_epoch < .submit_epoch or
        .start_epoch < .submit_epoch or .end_epoch < .start_epoch) | .id')
is "$bad" "" "no job ends before its start or starts before its submit"
daemon_stop
is $? 0 "the daemon stops cleanly"
sanitizer_clean

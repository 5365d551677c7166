#!/bin/sh
# Each job attempt runs under the supervisor program gpuschedd-supervise,
# found beside gpuschedd: it links only libc, so a start does not pay for
# loading libmicrohttpd and GnuTLS (bench_daemon case 7).  Without that
# program beside it the daemon says so once and falls back to its own
# `--supervise` mode; jobs run and report their exits either way.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 10

SUPD=$(cd "$(dirname "$GPUSCHEDD")" && pwd)
# sup_exe STATE: the executable of the one running supervisor (RUNDIR/sup
# holds "PID START"), or "" after 10 s
sup_exe() {
    for _ in $(seq 200); do
        f=$(ls "$1"/run/*/sup 2>/dev/null | head -1)
        [ -n "$f" ] && p=$(cut -d' ' -f1 "$f") && [ -n "$p" ] &&
            e=$(readlink "/proc/$p/exe" 2>/dev/null) && [ -n "$e" ] && { echo "$e"; return; }
        sleep 0.05
    done
}

ok "$(ldd "$SUPD/gpuschedd-supervise" | grep -q 'microhttpd\|gnutls\|sqlite'; [ $? = 1 ]; echo $?)" \
    "gpuschedd-supervise links neither libmicrohttpd, GnuTLS nor SQLite"

S=$TMP/s
daemon_start "$S"
api POST /v1/jobs "{\"id\":\"w\",\"command\":[\"sh\",\"-c\",\"while [ ! -f $TMP/go ]; do sleep 0.05; done\"]}"
is "$(sup_exe "$S")" "$SUPD/gpuschedd-supervise" "the job's supervisor is the program beside gpuschedd"
touch "$TMP/go"
wait_state w completed
api POST /v1/jobs '{"id":"f","command":["sh","-c","exit 3"]}'
wait_state f failed
api GET /v1/jobs/f
is "$(field "$body" '"\(.outcome) \(.exit_code)"')" "failed 3" "a job's exit status comes back through it"
is "$(grep -c 'no supervisor program' "$TMP/daemon.err")" 0 "nothing is said about a fallback"
daemon_stop TERM
is $? 0 "the daemon stops cleanly"

# gpuschedd alone in a directory: its own --supervise mode
mkdir "$TMP/solo"
cp "$GPUSCHEDD" "$TMP/solo/gpuschedd"
rm -f "$TMP/go"
GPUSCHEDD=$TMP/solo/gpuschedd daemon_start "$TMP/s2"
like "$(cat "$TMP/daemon.err")" "no supervisor program at $TMP/solo/gpuschedd-supervise (No such file or directory): jobs start under $TMP/solo/gpuschedd --supervise" \
    "without the program the daemon says so, with the path it looked for"
api POST /v1/jobs "{\"id\":\"w\",\"command\":[\"sh\",\"-c\",\"while [ ! -f $TMP/go ]; do sleep 0.05; done\"]}"
is "$(sup_exe "$TMP/s2")" "$TMP/solo/gpuschedd" "... and runs the supervisor as gpuschedd --supervise"
touch "$TMP/go"
wait_state w completed
api GET /v1/jobs/w
is "$(field "$body" '"\(.outcome) \(.exit_code)"')" "completed 0" "... whose job completes"
daemon_stop TERM
is $? 0 "the daemon stops cleanly"
sanitizer_clean

#!/bin/sh
# Retention (src/daemon/retain.c): with --retain 5s, the jobs that ended
# more than 5 s before a purge lose their journal rows, events, default
# output files and run directories; a job that ended since, a running job
# and a file the request named stay.  The purge runs at the first turn
# after a start (then every minute).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 13

S=$TMP/s
daemon_start "$S" --retain 5s
for j in old1 old2 old3; do
    api POST /v1/jobs "{\"id\":\"$j\",\"command\":[\"sh\",\"-c\",\"echo $j\"]}"
done
api POST /v1/jobs "{\"id\":\"named\",\"command\":[\"echo\",\"mine\"],\"stdout\":\"$TMP/named.out\"}"
for j in old1 old2 old3 named; do wait_state $j completed 10 || echo "# $j did not complete"; done
seq_of() { sqlite3 "$S/journal.db" "select seq from jobs where id = '$1'"; }
S1=$(seq_of old1)
ok "$([ -s "$S/output/old1.1.out" ] && [ -d "$S/run/$S1-1" ]; echo $?)" "old1 has its output file (ID.ATTEMPT.out) and run directory"
sleep 6
api POST /v1/jobs '{"id":"young","command":["true"]}'
api POST /v1/jobs '{"id":"running","command":["sleep","60"]}'
wait_state young completed 10
wait_state running running 10
daemon_stop
daemon_start "$S" --retain 5s
ok $? "the daemon restarts"
sleep 0.5
api GET /v1/jobs/old1
is "$code" 404 "old1 (ended > 5 s ago) is purged"
is "$(sqlite3 "$S/journal.db" "select count(*) from jobs where id in ('old1','old2','old3','named')")" 0 \
    "the rows of the 4 old jobs are gone"
is "$(sqlite3 "$S/journal.db" "select count(*) from events where job = $S1")" 0 "old1's events are gone"
ok "$([ ! -e "$S/output/old1.1.out" ] && [ ! -e "$S/output/old1.1.err" ]; echo $?)" "its output files are gone"
ok "$([ ! -e "$S/run/$S1-1" ]; echo $?)" "its run directory is gone"
ok "$([ -s "$TMP/named.out" ]; echo $?)" "a file the request named is left alone"
api GET /v1/jobs/young
is "$(field "$body" .outcome)" completed "young (ended < 5 s ago) is kept"
api GET /v1/jobs/running
is "$(field "$body" .state)" running "the running job is kept"
YS=$(seq_of young)
ok "$([ -e "$S/output/young.1.out" ] && [ -d "$S/run/$YS-1" ]; echo $?)" "young's files are kept"
like "$(cat "$TMP/daemon.err")" "retention: purged 4 ended jobs" "the log says what was purged"
api POST /v1/jobs/running/cancel
daemon_stop
sanitizer_clean

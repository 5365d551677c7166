#!/bin/sh
# The published view kept incrementally (view_jobs.c, vtab.c: a publish
# renders only the jobs touched in the turn) against full renders.  A
# daemon with GPUSCHEDD_VIEW_CHECK=1 compares every publish with a full
# rebuild (every live job rendered again, the lists made afresh) while
# bursts of submits, cancels, job ends, retires, node drains and resumes
# go on; then, independently of the view's code: /v1/queue against the
# journal's live rows (sqlite3), each GET /v1/jobs/ID against its /v1/queue
# entry, and the view's /v1/queue against a GPUSCHEDD_READS=engine daemon's
# (the listing from the journal rows) on the same journal.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 10

S=$TMP/s
export GPUSCHEDD_VIEW_CHECK=1
daemon_start "$S"
unset GPUSCHEDD_VIEW_CHECK
ok $? "gpuschedd starts with GPUSCHEDD_VIEW_CHECK=1"

post() { curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
    --data-binary "$2" "$URL$1"; }
# burst CMD...: run each "post ..." line of stdin at once and wait for them
# (by pid: a plain wait would wait for the daemon too)
burst() {
    _pids=
    while read -r _a _b; do
        post "$_a" "$_b" &
        _pids="$_pids $!"
    done
    for _p in $_pids; do wait "$_p"; done
}
# six bursts of 12 submits at once (several per turn): 1-GPU jobs that end
# at once (retired in their turn or the next), 2-GPU failures, 4-GPU jobs
# of 0.4 s and 8-GPU jobs of 3 s that queue; a pending and a running job
# cancelled; a node drained in burst 3 and resumed in burst 5
for r in 1 2 3 4 5 6; do
    for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
        case $((i % 4)) in
        0) b='"gpus":4,"command":["sleep","0.4"]' ;;
        1) b='"gpus":1,"command":["true"]' ;;
        2) b='"gpus":2,"command":["sh","-c","exit 3"]' ;;
        *) b='"gpus":8,"command":["sleep","3"]' ;;
        esac
        echo "/v1/jobs {\"id\":\"b$r-$i\",\"team\":\"t$((i % 3))\",$b}"
    done | burst
    { echo "/v1/jobs/b$r-11/cancel"; echo "/v1/jobs/b$r-0/cancel"
      [ $r = 3 ] && echo "/v1/nodes/node-2/drain"
      [ $r = 5 ] && echo "/v1/nodes/node-2/resume"; } | burst
    sleep 0.3
done
# every run ended (the 3 s jobs cancelled), every job retired; then every
# node drained and 5 jobs submitted: they stay pending, so two daemons on
# the journal must list the same
{ for r in 1 2 3 4 5 6; do for i in 3 7; do echo "/v1/jobs/b$r-$i/cancel"; done; done; } | burst
w=300
while [ $w -gt 0 ] && [ "$(curl -s "$URL/v1/queue" | jq '.jobs | length')" != 0 ]; do
    sleep 0.1
    w=$((w - 1))
done
ok "$([ $w -gt 0 ]; echo $?)" "every burst job ended and left the view"
for n in 1 2 3 4; do post "/v1/nodes/node-$n/drain" ''; done
for i in 1 2 3 4 5; do post /v1/jobs "{\"id\":\"p$i\",\"gpus\":$i,\"command\":[\"true\"]}"; done
sleep 0.5 # the refresh's between-turn publishes go on (checked too)

api GET /v1/queue
Q=$body
qids=$(printf '%s' "$Q" | jq -r '[.jobs[].id] | sort | join(" ")')
live=$(sqlite3 "$S/journal.db" "select id from jobs where state in
    ('pending','starting','running','stopping') order by id" | tr '\n' ' ' | sed 's/ $//')
is "$qids" "$live" "/v1/queue holds exactly the journal's live jobs"
is "$qids" "p1 p2 p3 p4 p5" "... and those are p1..p5, submitted on drained nodes"
ended=$(sqlite3 "$S/journal.db" "select count(*) from jobs where state = 'done'")
is "$ended" 72 "the journal holds the 72 ended burst jobs (6 x 12)"
api GET /v1/jobs/b2-1
is "$(field "$body" '.state + " " + .outcome')" "done completed" \
    "a retired job is answered from the journal"

# each job object of the list = GET /v1/jobs/ID (reasons aside: the
# refresh may publish between the two reads)
bad=0
for id in $(printf '%s' "$Q" | jq -r '.jobs[].id'); do
    api GET "/v1/jobs/$id"
    a=$(printf '%s' "$body" | jq -cS 'del(.reason)')
    # (queue_pos is the list's: a pending job's place in the next pass)
    b=$(printf '%s' "$Q" | jq -cS --arg id "$id" '.jobs[] | select(.id == $id) | del(.reason, .queue_pos)')
    [ "$a" = "$b" ] || { bad=$((bad + 1)); echo "# $id: $a != $b"; }
done
is "$bad" 0 "every /v1/queue entry equals its GET /v1/jobs/ID"

daemon_stop
checked=$(sed -n 's/.*view check: \([0-9]*\) publishes checked, \([0-9]*\) differences.*/\1 \2/p' \
    "$TMP/daemon.err")
echo "# $checked"
ok "$(set -- $checked; [ "${1:-0}" -ge 50 ] && [ "${2:-1}" = 0 ]; echo $?)" \
    "every publish (50 or more) equals a full rebuild"
grep 'view check:' "$TMP/daemon.err" | grep -v 'publishes checked' | head -n 5 | sed 's/^/# /'
is "$(grep 'view check:' "$TMP/daemon.err" | grep -vc 'publishes checked')" 0 \
    "no difference logged"

# the same journal read by the engine thread (GPUSCHEDD_READS=engine: the
# listing from the journal's rows, as before the view): the same objects in
# the same order
export GPUSCHEDD_READS=engine
daemon_start "$S"
unset GPUSCHEDD_READS
api GET /v1/queue
# (that listing also holds the ended jobs: the live ones are compared)
a=$(printf '%s' "$body" | jq -cS '[.jobs[] | select(.state != "done") | del(.reason)]')
b=$(printf '%s' "$Q" | jq -cS '[.jobs[] | del(.reason, .queue_pos)]')
[ "$a" = "$b" ] || echo "# engine: $(printf '%s' "$a" | jq -c '[.[].id]') view: $(printf '%s' "$b" | jq -c '[.[].id]')"
ok "$([ "$a" = "$b" ]; echo $?)" \
    "an engine-read daemon on the same journal lists the same objects in the same order"
daemon_stop

#!/bin/sh
# An exec failure of the job's command is a failed launch with its errno
# (issue 22): `launch_error` in the job object (GET /v1/jobs/ID, `gpusched
# show`), in the journal (jobs.launch_error, and the launch_failed event) and
# in the log, and it survives a restart.  Three errnos: ENOENT (no such
# program: exit 127), EACCES (a file without the execute bit: 126) and E2BIG
# (an argument too large to execute: 126).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 14

S=$TMP/s
daemon_start "$S"
printf '#!/bin/sh\necho hi\n' >"$TMP/noexec.sh"
chmod 644 "$TMP/noexec.sh"
big=$(head -c 200000 /dev/zero | tr '\0' x)
api POST /v1/jobs '{"id":"noent","command":["/nonexistent/prog"]}'
api POST /v1/jobs "{\"id\":\"noexec\",\"command\":[\"$TMP/noexec.sh\"]}"
printf '{"id":"toobig","command":["echo","%s"]}' "$big" >"$TMP/big.json"
api POST /v1/jobs "@$TMP/big.json"
api POST /v1/jobs '{"id":"fine","command":["true"]}'
for j in noent noexec toobig; do wait_state $j failed; done
wait_state fine completed
want_noent="exec /nonexistent/prog: No such file or directory"
want_noexec="exec $TMP/noexec.sh: Permission denied"
want_toobig="exec: the command is too large to execute (E2BIG: Argument list too long)"
check() { # ID WANT EXIT
    api GET "/v1/jobs/$1"
    is "$(field "$body" '.launch_error') $(field "$body" '.exit_code')" "$2 $3" \
        "$1: launch_error and exit code in GET /v1/jobs/$1"
}
check noent "$want_noent" 127
check noexec "$want_noexec" 126
check toobig "$want_toobig" 126
api GET /v1/jobs/fine
is "$(field "$body" 'has("launch_error")')" false "a job that launched has no launch_error"
like "$(GPUSCHED_SERVER=$URL "$GPUSCHED" show noexec)" "launch_error: $want_noexec" \
    "gpusched show prints it"
is "$(sqlite3 "$S/journal.db" "SELECT id || '|' || launch_error FROM jobs
      WHERE launch_error IS NOT NULL ORDER BY seq" | tr '\n' ';')" \
    "noent|$want_noent;noexec|$want_noexec;toobig|$want_toobig;" \
    "the journal keeps each in its job's row"
is "$(sqlite3 "$S/journal.db" "SELECT count(*) FROM events WHERE kind = 'launch_failed'")" 3 \
    "and as a launch_failed event each"
for j in noent noexec; do
    like "$(cat "$TMP/daemon.err")" "job $j: launch failed: exec " "$j: the log says why"
done
daemon_stop
daemon_start "$S"
check noent "$want_noent" 127
check noexec "$want_noexec" 126
check toobig "$want_toobig" 126
api GET "/v1/jobs?state=done"
is "$(field "$body" '[.jobs[] | select(.launch_error != null)] | length')" 3 \
    "after a restart too, also in the job list"
daemon_stop
sanitizer_clean

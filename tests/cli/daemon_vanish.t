#!/bin/sh
# A job whose supervisor vanished together with it (a cgroup-wide stop of
# the daemon and its jobs: systemd's KillMode=control-group, by SIGKILL) has
# no exit status: it is requeued under the retry policy as a failure of the
# system, never recorded `failed` 137.  A job that exited while the daemon
# was down keeps its real status (its supervisor wrote it).  The cgroup-wide
# kill is done by pid: one `kill -KILL` naming the daemon, every supervisor
# (run/SEQ-N/sup) and every job process (each job writes its own pid), in
# that order, so no supervisor outlives its job long enough to see it die.
# The same stop by SIGTERM (the supervisor writes the job's exit, marked
# "told to stop", which the daemon never told a running job) is requeued too.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 21

alive() { [ -n "$1" ] && [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]; }
# wait_lines F N: until F has N lines (10 s)
wait_lines() {
    for _ in $(seq 200); do
        [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}
events() { sqlite3 "file:$1/journal.db?mode=ro" \
    "SELECT kind || ' ' || coalesce(detail, '') FROM events e JOIN jobs j ON j.seq = e.job
     WHERE j.id = '$2' ORDER BY e.seq"; }
P=$TMP/p
mkdir "$P"
S=$TMP/s
daemon_start "$S"
# a and b run until killed; each attempt appends its pid to P/NAME
for j in a b; do
    api POST /v1/jobs "{\"id\":\"$j\",\"gpus\":2,\"command\":[\"sh\",\"-c\",
        \"echo \$\$ >> $P/$j; exec sleep 1000\"]}"
done
# e exits 3 once P/go exists: while the daemon is down
api POST /v1/jobs "{\"id\":\"e\",\"gpus\":1,\"command\":[\"sh\",\"-c\",
    \"echo \$\$ >> $P/e; while [ ! -f $P/go ]; do sleep 0.05; done; exit 3\"]}"
wait_lines "$P/a" 1; wait_lines "$P/b" 1; wait_lines "$P/e" 1
is "$(curl -s "$URL/v1/jobs?state=running" | jq '.jobs | length')" 3 "three jobs running"
sup_a=$(sup_alive "$S/run/1-1/sup") sup_b=$(sup_alive "$S/run/2-1/sup")
sup_e=$(sup_alive "$S/run/3-1/sup")
pa=$(cat "$P/a") pb=$(cat "$P/b")

# the daemon is killed first, then e ends with its own status
daemon_stop KILL
touch "$P/go"
for _ in $(seq 200); do [ -f "$S/run/3-1/exit" ] && break; sleep 0.05; done
is "$(cut -d' ' -f1 "$S/run/3-1/exit")" 3 "e's supervisor wrote its exit status (3) while the daemon was down"
# it exits right after writing the file (slower under a sanitizer's exit checks)
for _ in $(seq 200); do alive "$sup_e" || break; sleep 0.05; done
ok "$(! alive "$sup_e"; echo $?)" "e's supervisor is gone (within 10 s of writing it)"
# the cgroup-wide stop: supervisors and jobs together, by SIGKILL
kill -KILL "$sup_a" "$sup_b" "$pa" "$pb"
sleep 0.2
ok "$(! alive "$sup_a" && ! alive "$sup_b" && ! alive "$pa" && ! alive "$pb"; echo $?)" \
    "a's and b's supervisors and jobs are gone"
ok "$([ ! -e "$S/run/1-1/exit" ] && [ ! -e "$S/run/2-1/exit" ]; echo $?)" \
    "no exit status was written for a or b"

daemon_start "$S"
ok $? "daemon restarted"
# a and b are requeued and run again (a second attempt, a new process)
wait_lines "$P/a" 2; wait_lines "$P/b" 2
wait_state a running 10
is "$(curl -s "$URL/v1/jobs/a" | jq -r '[.state, .outcome // "-", .attempts] | join(" ")')" \
    "running - 2" "a runs again: attempt 2, no outcome (was: done failed, exit 137)"
wait_state b running 10
is "$(curl -s "$URL/v1/jobs/b" | jq -r '.attempts')" 2 "b runs again, attempt 2"
ok "$([ "$(sed -n 2p "$P/a")" != "$pa" ] && alive "$(sed -n 2p "$P/a")"; echo $?)" \
    "a's second attempt is a new process"
wait_state e failed 10
is "$(curl -s "$URL/v1/jobs/e" | jq -r '[.outcome, .exit_code] | join(" ")')" "failed 3" \
    "e, which exited while the daemon was down, keeps its real status (failed, exit 3)"
ev=$(events "$S" a)
like "$ev" "lost attempt 1: supervisor $sup_a vanished without an exit status; a system failure" \
    "a's journal has a 'lost' event naming the supervisor"
ok "$(! printf "%s\n" "$ev" | grep -q "end exit 137"; echo $?)" "and no end with exit 137"
like "$(cat "$TMP/daemon.err")" "job a: attempt 1: supervisor $sup_a vanished .*; requeued" \
    "the daemon logs the requeue"

# systemd's KillMode=control-group by SIGTERM: the daemon, a's supervisor
# and a's job get SIGTERM together; the supervisor writes a's exit (143)
# marked "told to stop", which the daemon did not do: requeued too
sup_a2=$(sup_alive "$S/run/1-2/sup")
pa2=$(sed -n 2p "$P/a")
kill -TERM "$DPID" ${sup_a2:+"$sup_a2"} ${pa2:+"$pa2"}
daemon_stop TERM
for _ in $(seq 200); do [ -f "$S/run/1-2/exit" ] && break; sleep 0.05; done
like "$(cat "$S/run/1-2/exit")" "^143 [0-9]* T$" "SIGTERM to all: a's supervisor wrote exit 143 marked T"
daemon_start "$S"
wait_lines "$P/a" 3
wait_state a running 10
is "$(curl -s "$URL/v1/jobs/a" | jq -r '[.state, .outcome // "-", .attempts] | join(" ")')" \
    "running - 3" "a runs again after the SIGTERM it did not get from the daemon (attempt 3)"
like "$(events "$S" a)" "lost attempt 2: stopped by a SIGTERM the daemon did not send (exit 143" \
    "journalled as lost, with its exit status"
api POST /v1/jobs/b/cancel
wait_state b cancelled 10
is "$(curl -s "$URL/v1/jobs/b" | jq -r '.outcome')" cancelled \
    "a cancel (SIGTERM sent by the daemon) still ends the job cancelled"

# the retry policy bounds it: with max_attempts 1 a lost attempt fails the job
daemon_stop TERM
kill_jobs "$S"
S2=$TMP/s2
printf 'queue:\n  policy: fifo\nretry:\n  max_attempts: 1\n' >"$TMP/once.yaml"
daemon_start "$S2" --policy "$TMP/once.yaml"
api POST /v1/jobs "{\"id\":\"c\",\"gpus\":1,\"command\":[\"sh\",\"-c\",
    \"echo \$\$ >> $P/c; exec sleep 1000\"]}"
wait_lines "$P/c" 1
sup_c=$(sup_alive "$S2/run/1-1/sup")
# with the daemon up: supervisor and job killed together
kill -KILL ${sup_c:+"$sup_c"} "$(cat "$P/c")"
wait_state c failed 10
is "$(curl -s "$URL/v1/jobs/c" | jq -r '[.state, .outcome] | join(" ")')" "done failed" \
    "retry.max_attempts 1: the lost attempt was its one failure, the job fails"
like "$(events "$S2" c)" "lost attempt 1" "and the journal says it was lost, not its exit"
like "$(cat "$TMP/daemon.err")" "job c: .*failed (no retry left)" "the log says no retry was left"
daemon_stop TERM
sanitizer_clean

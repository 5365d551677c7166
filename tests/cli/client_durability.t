#!/bin/sh
# Durability of gpuschedd under kill -9 (DESIGN.md section 5, "What is
# promised"), driven through the client commands:
#
# 1. Random kills.  CLIENTS shell loops submit 1-GPU jobs (ids cK-N) while the
#    daemon is killed with SIGKILL at random moments KILLS times and restarted
#    on the same state dir and port.  A submit that fails is retried with the
#    same Idempotency-Key until it is acknowledged (2xx); only acknowledged
#    ids are recorded.  Each job appends "start ID NS" and "end ID NS" to
#    stamps.  A long job started before the first kill must be re-adopted.
#    Afterwards: every acknowledged job exists exactly once, every job ran
#    once and completed, no id has two starts without an end between them
#    (never twice at the same time), and the long job kept attempt 1.
# 2. Kill between "decided" and "launched", deterministically and without a
#    test hook in the daemon: run it under gdb with a breakpoint on
#    gsd_backend_launch (the local backend's launch, called after the turn
#    that journals the intent "starting attempt n" is committed) and kill it
#    there.  After a restart the job must run exactly once and complete.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 13

CLIENTS=${CLIENTS:-4}
KILLS=${KILLS:-5}
G=$GPUSCHED
C=$ROOT/examples/seed-cluster.yaml
P=$DATA/live-basic.yaml
STAMPS=$TMP/stamps
: >"$STAMPS"
job="$job_prelude"'echo "start $GPUSCHED_JOB_ID $(date +%s%N)" >>"'$STAMPS'"; sleep "$1";
echo "end $GPUSCHED_JOB_ID $(date +%s%N)" >>"'$STAMPS'"'

start_daemon --cluster "$C" --policy "$P"
ok $? "daemon starts"
LISTEN=127.0.0.1:$PORT # restarts keep the port the clients know

"$G" submit --id long --gpus 1 --time-limit 10m -- sh -c "$job" sh 4 >/dev/null
WAIT_S=10 wait_for is_state long running
ok $? "the long job runs before the first kill"

# submit_retry ID: submit until acknowledged (same Idempotency-Key), at most
# 600 tries 0.05 s apart (30 s: longer than any restart, even on a loaded
# machine, where start_daemon itself waits up to 20 s for each step).
submit_retry() {
    _t=0
    while [ $_t -lt 600 ]; do
        if "$G" submit --id "$1" --idempotency-key "key-$1" --gpus 1 --time-limit 5m \
            -- sh -c "$job" sh 0.3 >/dev/null 2>>"$TMP/submit.err"; then
            echo "$1" >>"$TMP/acked"
            return 0
        fi
        _t=$((_t + 1)); sleep 0.05
    done
    echo "$1" >>"$TMP/gaveup"
}
: >"$TMP/acked"; : >"$TMP/gaveup"
cpids=
k=1
while [ $k -le "$CLIENTS" ]; do
    ( n=1; while [ ! -e "$TMP/stop" ]; do submit_retry "c$k-$n"; n=$((n + 1)); done ) &
    cpids="$cpids $!"
    k=$((k + 1))
done

# kill -9 at random moments (0.3 .. 1.8 s apart), restart at once
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
kills=0
for d in $(awk -v s="$seed" -v n="$KILLS" 'BEGIN{srand(s); for(i=0;i<n;i++) printf "%.2f ", 0.3+1.5*rand()}'); do
    sleep "$d"
    kill9_daemon
    kills=$((kills + 1))
    start_daemon --cluster "$C" --policy "$P" || break
done
echo "# killed the daemon $kills times at random moments (delays: seed $seed)"
is "$kills" "$KILLS" "killed with SIGKILL and restarted $KILLS times"
sleep 1
touch "$TMP/stop"
for p in $cpids; do wait "$p"; done
nacked=$(wc -l <"$TMP/acked")
echo "# $nacked jobs acknowledged by $CLIENTS clients, $(wc -l <"$TMP/gaveup") gave up"
is "$(wc -l <"$TMP/gaveup")" 0 "every submit was acknowledged in the end (idempotent retries)"

alldone() { "$G" queue --json | jq -e '[.jobs[] | select(.state != "done")] | length == 0' >/dev/null; }
WAIT_S=40 wait_for alldone
ok $? "all jobs finish"
"$G" queue --all --json >"$TMP/jobs.json"
sort "$TMP/acked" >"$TMP/acked.s"
jq -r '.jobs[] | .id' "$TMP/jobs.json" | sort >"$TMP/ids"
is "$(sort -u "$TMP/ids" | wc -l)" "$(wc -l <"$TMP/ids")" "no job id twice in the daemon"
is "$(comm -23 "$TMP/acked.s" "$TMP/ids" | wc -l)" 0 "every acknowledged job exists after the restarts"
is "$(jq -r '[.jobs[] | select(.id != "long" and .outcome != "completed")] | length' "$TMP/jobs.json")" 0 \
    "every job completed"
# per id: two starts without an end between them = ran twice at once
overlap=$(awk '$1=="start"{ if (run[$2]) bad++; run[$2]=1; n[$2]++ } $1=="end"{ run[$2]=0 }
    END{ print bad+0 }' "$STAMPS")
is "$overlap" 0 "no job ran twice at the same time (stamps)"
echo "# restarts: $(grep -c 're-adopted supervisor' "$TMP/daemon.err") supervisors re-adopted, $(grep -c 'decided but not launched' "$TMP/daemon.err") attempts decided but not launched"
echo "# jobs started more than once: $(awk '$1=="start"{n[$2]++} END{c=0; for(i in n) if(n[i]>1) c++; print c}' "$STAMPS")"
is "$(jq -r '.jobs[] | select(.id=="long") | "\(.outcome) \(.attempts)"' "$TMP/jobs.json") $(grep -c '^start long ' "$STAMPS")" \
    "completed 1 1" "the long job was re-adopted: completed, attempt 1, started once"
stop_daemon

# 2. SIGKILL between "decided" and "launched", on a fresh state dir
STATE=$TMP/state2
LISTEN=
# gdb wants its command words intact: run it through a tiny wrapper
printf '#!/bin/sh\nexec gdb -q -batch -ex "break gsd_backend_launch" -ex run -ex kill -ex quit --args "$@"\n' >"$TMP/gdbrun"
chmod +x "$TMP/gdbrun"
LAUNCH=$TMP/gdbrun start_daemon --cluster "$C" --policy "$P"
gpid=$DPID
"$G" submit --id dl --gpus 1 --time-limit 5m -- sh -c "$job" sh 0.2 >/dev/null 2>&1 &
spid=$!
# gdb ends (it killed the daemon) once the breakpoint was hit
i=0; while kill -0 "$gpid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$gpid" 2>/dev/null && { kill -KILL "$gpid"; echo "# gdb never hit the breakpoint"; }
wait "$gpid" 2>/dev/null; DPID=
kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
grep -q '^start dl ' "$STAMPS"
is $? 1 "the daemon died at the launch: dl never started"
like "$(cat "$TMP"/daemon.*.out)" "hit Breakpoint 1, gsd_backend_launch" "gdb stopped it in gsd_backend_launch, then killed it"
start_daemon --cluster "$C" --policy "$P"
WAIT_S=20 wait_for is_state dl completed
ok $? "after the restart dl runs and completes"
echo "# dl: $("$G" show --json dl | jq -c '{attempts, outcome, exit_code}'), started $(grep -c '^start dl ' "$STAMPS") time(s)"

stop_daemon

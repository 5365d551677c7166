#!/bin/sh
# A job is every process it starts (issue 21): a process that leaves the
# job's group (`setsid`), one orphaned by a double fork, one that ignores
# SIGTERM, and the processes of a job whose supervisor was killed (with the
# daemon up, and while it was down) are all ended by cancel or by the
# daemon before the job's GPUs are offered again.  Each escaping process
# writes its own pid to a file, so the test finds exactly those processes.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 20

# alive PID: the process exists and is not a zombie
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]; }
# wait_file F: until F holds a pid (10 s)
wait_file() { for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }
# wait_attempt ID N: until the job has started attempt N (10 s)
wait_attempt() {
    for _ in $(seq 200); do
        [ "$(curl -s "$URL/v1/jobs/$1" | jq -r '.attempts')" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}
ppid_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f2; }
P=$TMP/p
mkdir "$P"
S=$TMP/s
daemon_start "$S" --kill-wait 1

# 1. setsid: the escaped process is in its own session and group
api POST /v1/jobs "{\"id\":\"ss\",\"command\":[\"sh\",\"-c\",
    \"setsid sh -c 'echo \$\$ > $P/ss; exec sleep 1000' & exec sleep 1000\"]}"
# 2. double fork: the grandchild's parent exits at once
api POST /v1/jobs "{\"id\":\"df\",\"command\":[\"sh\",\"-c\",
    \"(sh -c 'echo \$\$ > $P/df; exec sleep 1000' &); exec sleep 1000\"]}"
# 3. a TERM-ignoring process, in its own session too
api POST /v1/jobs "{\"id\":\"ti\",\"command\":[\"sh\",\"-c\",
    \"setsid sh -c 'trap \\\"\\\" TERM; echo \$\$ > $P/ti; exec sleep 1000' & echo \$\$ > $P/ti0; exec sleep 1000\"]}"
wait_file "$P/ss"; wait_file "$P/df"; wait_file "$P/ti"; wait_file "$P/ti0"
sleep 0.3
ss=$(cat "$P/ss") df=$(cat "$P/df") ti=$(cat "$P/ti")
ok "$(alive "$ss" && alive "$df" && alive "$ti"; echo $?)" "the three escaping processes run"
is "$(sed 's/.*) //' "/proc/$ss/stat" | cut -d' ' -f4)" "$ss" \
    "the setsid process leads its own session (outside the job's group)"
sup_df=$(cut -d' ' -f1 "$S"/run/2-1/sup)
is "$(ppid_of "$df")" "$sup_df" \
    "the double-forked process was reparented to its supervisor (child subreaper), not init"
ign=$(awk '/^SigIgn/ { print $2 }' "/proc/$ti/status")
is "$(( 0x$ign & 0x4000 ))" 16384 "the third one ignores SIGTERM (bit 15 of SigIgn)"

for j in ss df ti; do
    api POST "/v1/jobs/$j/cancel"
    [ "$code" = 200 ] || echo "# cancel $j: $code $body"
done
wait_state ss cancelled; wait_state df cancelled
ok "$(! alive "$ss"; echo $?)" "cancel ended the setsid process"
ok "$(! alive "$df"; echo $?)" "cancel ended the double-forked process"
api GET /v1/jobs/ti
is "$(field "$body" '.state')" stopping "the TERM-ignoring job is still stopping (its GPU held) while it runs"
wait_state ti cancelled 10
ok "$(! alive "$ti"; echo $?)" "SIGKILL after --kill-wait (1 s) ended the TERM-ignoring process"
ok "$(! alive "$(cat "$P/ti0")"; echo $?)" "and the job's main process"

# node down: the run's processes end, the setsid one too
api POST /v1/jobs "{\"id\":\"nd\",\"gpus\":8,\"command\":[\"sh\",\"-c\",
    \"setsid sh -c 'echo \$\$ > $P/nd; exec sleep 1000' & exec sleep 1000\"]}"
wait_file "$P/nd"
nd=$(cat "$P/nd")
node=$(curl -s "$URL/v1/jobs/nd" | jq -r '.placement' | sed 's/:.*//')
api POST "/v1/nodes/$node/down" '{"reason":"escape test"}'
is "$code" 200 "node $node set down under the job"
for _ in $(seq 200); do alive "$nd" || break; sleep 0.05; done # up to 10 s (a loaded machine)
ok "$(! alive "$nd"; echo $?)" "node down ended the job's setsid process"
api POST "/v1/nodes/$node/resume"
api POST /v1/jobs/nd/cancel
wait_state nd cancelled 10 >/dev/null

# 4. the supervisor is killed: the daemon ends the job's processes (those
# it recorded in run/SEQ-N/pids) before the GPUs are offered again
api POST /v1/jobs "{\"id\":\"lost\",\"gpus\":8,\"command\":[\"sh\",\"-c\",
    \"setsid sh -c 'echo \$\$ > $P/l1; exec sleep 1000' & echo \$\$ > $P/l0; exec sleep 1000\"]}"
wait_file "$P/l1"; wait_file "$P/l0"
l0=$(cat "$P/l0") l1=$(cat "$P/l1")
sf=$(ls "$S"/run/*/sup | tail -n 1)
# the supervisor records the job's processes about once a second: wait
# (up to 10 s on a loaded machine) until its record holds the escaped one
for _ in $(seq 200); do grep -q "^$l1 " "$(dirname "$sf")/pids" 2>/dev/null && break; sleep 0.05; done
sup=$(sup_alive "$sf")
like "$(cat "$(dirname "$sf")/pids")" "^$l1 " "run/SEQ-N/pids records the escaped process with its start time"
kill -KILL "$sup"
# no exit status: a system failure, the job is requeued (daemon_vanish.t)
wait_attempt lost 2
ok "$(! alive "$l0" && ! alive "$l1"; echo $?)" \
    "the job's processes are gone once its attempt is recorded lost (supervisor killed)"
like "$(cat "$TMP/daemon.err")" "job lost: supervisor $sup lost without an exit file; ended 2 of the job's processes" \
    "the daemon logs what it ended"
api POST /v1/jobs/lost/cancel
wait_state lost cancelled 10 >/dev/null

# 5. the same while the daemon is down: ended at restart
api POST /v1/jobs "{\"id\":\"lost2\",\"gpus\":8,\"command\":[\"sh\",\"-c\",
    \"setsid sh -c 'echo \$\$ > $P/m1; exec sleep 1000' & echo \$\$ > $P/m0; exec sleep 1000\"]}"
wait_file "$P/m1"; wait_file "$P/m0"
sleep 1.5
m0=$(cat "$P/m0") m1=$(cat "$P/m1")
sf=$(ls -t "$S"/run/*/sup | head -n 1)
sup=$(sup_alive "$sf")
daemon_stop KILL
kill -KILL "$sup"
sleep 0.2
ok "$(alive "$m0" && alive "$m1"; echo $?)" "daemon and supervisor dead: the job's processes run on"
daemon_start "$S" --kill-wait 1
ok $? "daemon restarted"
wait_attempt lost2 2
ok "$(! alive "$m0" && ! alive "$m1"; echo $?)" "restart: the lost supervisor's processes are ended"
api POST /v1/jobs/lost2/cancel
wait_state lost2 cancelled 10 >/dev/null
# a job that needs the 8 GPUs runs now: they were offered again afterwards
api POST /v1/jobs '{"id":"after","gpus":8,"command":["true"]}'
wait_state after completed
ok $? "the GPUs are offered again after the processes are gone"
daemon_stop TERM
for f in "$P"/*; do kill -KILL "$(cat "$f")" 2>/dev/null; done
ok 0 "cleanup"
sanitizer_clean

#!/bin/sh
# One daemon per state directory (src/daemon/lockfile.c): a second
# gpuschedd on the same --state exits at once with status 3 naming the
# holder's pid; job supervisors do not hold the lock (O_CLOEXEC), so after a
# kill -9 of the daemon the lock is free while its jobs run on.  And a
# journal inconsistent with the cluster (two running jobs on one GPU, a
# placement on a node that does not exist) still starts: the conflicting
# jobs are held out of the engine, reported in the log, /readyz and
# /v1/cluster, and `cancel` ends one (src/daemon/conflict.c).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 24

S=$TMP/s
daemon_start "$S"
ok $? "first daemon starts"
FIRST=$DPID
is "$(cat "$S/lock")" "$FIRST" "the lock file records the holder's pid"
run "$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$S" --listen 127.0.0.1:0
is "$rc" 3 "a second daemon on the same state exits with status 3"
like "$out" "in use by gpuschedd pid $FIRST" "and its message names the holder's pid"
api GET /readyz
is "$code" 200 "the first daemon still serves"

for j in a b c; do
    api POST /v1/jobs "{\"id\":\"$j\",\"gpus\":1,\"command\":[\"sleep\",\"300\"]}"
done
for j in a b c; do wait_state "$j" running 10 || echo "# $j not running"; done
daemon_stop KILL
flock -n "$S/lock" true
ok $? "after kill -9 the lock is free although its jobs run on (supervisors do not hold it)"
n=0
for f in "$S"/run/*/sup; do sup_alive "$f" >/dev/null && n=$((n + 1)); done
is "$n" 3 "the three jobs' supervisors are alive"

# the hand-made inconsistency: b on a's GPU, c on a node the cluster lacks
PA=$(sqlite3 "$S/journal.db" "select placement from jobs where id = 'a'")
sqlite3 "$S/journal.db" "update jobs set placement = '$PA' where id = 'b';
                         update jobs set placement = 'no-such-node:0' where id = 'c'"
daemon_start "$S"
ok $? "a daemon on the inconsistent journal starts (it does not refuse)"
api GET /readyz
is "$code" 200 "/readyz is 200"
like "$body" "2 jobs held in conflict" "/readyz says 2 jobs are held"
api GET /v1/cluster
is "$(field "$body" '[.journal.conflicts[].id] | sort | join(",")')" "b,c" \
    "/v1/cluster lists b and c as conflicts"
like "$(field "$body" '.journal.conflicts[] | select(.id == "c") | .reason')" "no-such-node\|placement" \
    "c's reason names its placement"
like "$(cat "$TMP/daemon.err")" "job b: held out of the engine" "the log names b"
api GET /v1/jobs/a
is "$(field "$body" .state)" running "a was restored and is running"
like "$(cat "$TMP/daemon.err")" "job a: re-adopted" "a's supervisor was re-adopted"
api GET /v1/nodes
used=$(field "$body" '[.nodes[] | .gpus - .free_gpus] | add')
is "$used" 1 "the engine holds only a's GPU"

api POST /v1/jobs '{"id":"d","gpus":1,"command":["true"]}'
is "$code" 201 "new work is accepted"
wait_state d completed 10
ok $? "and scheduled"

BSUP=$(sup_alive "$S/run/2-1/sup")
api POST /v1/jobs/b/cancel
is "$code" 200 "cancel of the held job b answers 200"
is "$(field "$body" '.state + " " + .outcome')" "done cancelled" "b is done, cancelled"
i=0
while [ -n "$BSUP" ] && kill -0 "$BSUP" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ok "$([ -n "$BSUP" ] && ! kill -0 "$BSUP" 2>/dev/null; echo $?)" "b's supervisor is gone"
api GET /v1/cluster
is "$(field "$body" '[.journal.conflicts[].id] | join(",")')" "c" "only c is still held"
daemon_stop
is "$?" 0 "the daemon stops cleanly"
sanitizer_clean

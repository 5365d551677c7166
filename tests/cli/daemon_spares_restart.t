#!/bin/sh
# Hot-spare rights survive a kill -9 of gpuschedd (docs/failures.md, "Recovery
# policies"): a job requeued by a node failure, not started since, keeps its
# right to the spares in the journal (its engine record's `recover` flag).
# Seed cluster: node-1..node-4 x 8 GPUs; one spare for jobs of >= 16 GPUs.
#  - A (24 GPUs) starts on node-1..node-3 (pack; node-4, the highest idle
#    node, is the spare);
#  - node-2 is drained (A keeps running there), then node-1 goes down: A is
#    requeued with the right to the spares; the GPUs it may use are node-3
#    and the spare node-4 (node-1 down, node-2 drained): 16 < 24, it waits;
#  - kill -9, restart: A still pending with the right;
#  - node-2 resumed: A may use node-2, node-3 and the spare node-4 = 24 GPUs:
#    it starts there.  Without the right node-4 stays kept from it (16 GPUs:
#    it would wait), which the control daemon (same steps, the journal's
#    right erased before the restart) shows.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 15

P=$TMP/policy.yaml
printf 'spares:\n  nodes: 1\n  min_gpus: 16\nretry:\n  expedite: true\n' >"$P"
nodes_of() { # nodes_of ID: the job's placement's node names, sorted, unique
    api GET "/v1/jobs/$1"
    field "$body" '.placement // "" | split(",") | map(split(":")[0]) | unique | join(" ")'
}
rights() { # rights ID: "STATE RIGHTS" from GET /v1/jobs/ID
    api GET "/v1/jobs/$1"
    field "$body" '.state + " " + ((.spare_rights // false) | tostring)'
}
# setup STATE: A running on node-1..3, node-2 drained, node-1 down
setup() {
    daemon_start "$1" --policy "$P"
    api POST /v1/jobs '{"id":"A","gpus":24,"command":["sleep","300"]}'
    wait_state A running 20 >/dev/null
    a_first=$(nodes_of A)
    api POST /v1/nodes/node-2/drain '{"reason":"test"}'
    api POST /v1/nodes/node-1/down '{"reason":"xid 79"}'
    wait_state A pending 20 >/dev/null
}

S=$TMP/s
setup "$S"
is "$a_first" "node-1 node-2 node-3" "A starts on node-1..3 (node-4 is the spare)"
is "$(rights A)" "pending true" "after node-1 went down: A pending, with the right to the spares"
sleep 1
is "$(rights A)" "pending true" "it waits (node-3 + the spare: 16 of 24 GPUs)"
daemon_stop KILL
daemon_start "$S" --policy "$P"
is "$(rights A)" "pending true" "after kill -9 and a restart: A still pending with the right"
api POST /v1/nodes/node-2/resume
is "$code" 200 "node-2 resumed"
wait_state A running 20 >/dev/null
is "$(rights A)" "running false" "A starts (a started job holds no right)"
is "$(nodes_of A)" "node-2 node-3 node-4" "on node-2, node-3 and the spare node-4"
kill_jobs "$S"
daemon_stop

# Control: the same steps, but the right is erased from the journal while
# the daemon is down (the engine record's `recover`, the field before its
# last, the queue stamp, set to 0): after the restart A holds no right and
# node-4 stays kept from it.
C=$TMP/c
setup "$C"
daemon_stop KILL
eng=$(sqlite3 "$C/journal.db" "SELECT engine FROM jobs WHERE id = 'A'" 2>/dev/null)
like "$eng" ' 1 -[0-9]*$' "the journal's engine record of A: recover = 1, a front queue stamp"
eng=$(printf '%s\n' "$eng" | awk '{ $(NF - 1) = 0; print }')
sqlite3 "$C/journal.db" "UPDATE jobs SET engine = '$eng' WHERE id = 'A'"
daemon_start "$C" --policy "$P"
is "$(rights A)" "pending false" "control: the right erased, A pending without it"
api POST /v1/nodes/node-2/resume
sleep 1
is "$(rights A)" "pending false" "control: node-2 resumed, A still waits (node-4 kept: 16 GPUs)"
kill_jobs "$C"
daemon_stop

# The fifo order survives too (each record's queue stamp): P (16 GPUs) on
# node-1+2, F (16) on node-3+4, node-4 drained; node-1 down: P expedited to
# the front, waits (node-2: 8 GPUs); node-3 down: F expedited in front of
# P, waits too.  Queue: F, P (submission order would be P, F).  After kill
# -9 the same; node-4 resumed: node-2 + node-4 = 16 GPUs for the head of
# the queue, F (in submission order P would take them).
Q=$TMP/q
printf 'retry:\n  expedite: true\n' >"$TMP/p2.yaml"
queue() { api GET /v1/queue; field "$body" '[.jobs[].id] | join(" ")'; }
daemon_start "$Q" --policy "$TMP/p2.yaml"
api POST /v1/jobs '{"id":"P","gpus":16,"command":["sleep","300"]}'
wait_state P running 20 >/dev/null
api POST /v1/jobs '{"id":"F","gpus":16,"command":["sleep","300"]}'
wait_state F running 20 >/dev/null
is "$(nodes_of P); $(nodes_of F)" "node-1 node-2; node-3 node-4" "P on node-1+2, F on node-3+4"
api POST /v1/nodes/node-4/drain '{"reason":"test"}'
api POST /v1/nodes/node-1/down '{"reason":"xid 79"}'
wait_state P pending 20 >/dev/null
api POST /v1/nodes/node-3/down '{"reason":"xid 79"}'
wait_state F pending 20 >/dev/null
is "$(queue)" "F P" "both requeued to the front: F (the later) ahead of P"
daemon_stop KILL
daemon_start "$Q" --policy "$TMP/p2.yaml"
is "$(queue)" "F P" "after kill -9: the same order"
api POST /v1/nodes/node-4/resume
wait_state F running 20 >/dev/null
is "$(rights F | cut -d' ' -f1) $(rights P | cut -d' ' -f1) $(nodes_of F)" "running pending node-2 node-4" \
   "node-4 resumed: F, the head, starts on node-2 + node-4; P waits"
kill_jobs "$Q"
daemon_stop
sanitizer_clean

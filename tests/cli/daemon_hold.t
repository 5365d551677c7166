#!/bin/sh
# retry.hold in gpuschedd (docs/failures.md, "Recovery policies"): the
# engine's rule, as in the simulator (failures_hold.t): the GPUs a job hit
# by a node failure used on its other nodes are held for its restart, and
# nobody else gets them meanwhile.  A restart of the daemon drops the hold
# (it is not journalled; the job keeps its expedited place).
# Seed cluster: node-1..node-4 x 8 GPUs; fifo + EASY backfill, pack,
# retry.expedite, retry.hold 10m.
#  - A (16 GPUs) starts on node-1+2, X (16 GPUs, limit 1 h) on node-3+4;
#  - node-1 goes down: A is requeued at the front, node-2 held for it.  A
#    needs 16 GPUs: blocked, reserved at X's estimated end (1 h);
#  - B (8 GPUs, limit 60 s) would backfill on node-2 (it ends before A's
#    reservation) but node-2 is held: B waits;
#  - X is cancelled: A restarts at once on node-2 (its survivor) + node-3,
#    B on node-4.
# Then the same up to B waiting, a kill -9 and a restart: no hold is
# restored, so B backfills on node-2; A still waits at the front.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 9

P=$TMP/policy.yaml
printf 'queue:\n  policy: fifo\n  backfill: easy\nplacement:\n  strategy: pack\nretry:\n  expedite: true\n  hold: 10m\n' >"$P"
nodes_of() { # nodes_of ID: the job's placement's node names, sorted, unique
    api GET "/v1/jobs/$1"
    field "$body" '.placement // "" | split(",") | map(split(":")[0]) | unique | join(" ")'
}
state_of() { api GET "/v1/jobs/$1"; field "$body" '.state'; }
setup() { # setup STATE: up to B waiting beside A's held node-2
    daemon_start "$1" --policy "$P"
    api POST /v1/jobs '{"id":"A","gpus":16,"command":["sleep","300"]}'
    wait_state A running 20 >/dev/null
    api POST /v1/jobs '{"id":"X","gpus":16,"time_limit":3600,"command":["sleep","300"]}'
    wait_state X running 20 >/dev/null
    a_first=$(nodes_of A)
    api POST /v1/nodes/node-1/down '{"reason":"xid 79"}'
    wait_state A pending 20 >/dev/null
    api POST /v1/jobs '{"id":"B","gpus":8,"time_limit":60,"command":["sleep","300"]}'
    sleep 1
}

S=$TMP/s
setup "$S"
is "$a_first $(nodes_of X)" "node-1 node-2 node-3 node-4" "A on node-1+2, X on node-3+4"
is "$(state_of A) $(state_of B)" "pending pending" \
   "node-1 down: A requeued; B waits (node-2 is held for A, nothing else is free)"
api POST /v1/jobs/X/cancel
wait_state A running 20 >/dev/null
is "$(nodes_of A)" "node-2 node-3" "X cancelled: A restarts on its held survivor node-2 + node-3"
wait_state B running 20 >/dev/null
is "$(nodes_of B)" "node-4" "B starts on node-4"
kill_jobs "$S"
daemon_stop

R=$TMP/r
setup "$R"
is "$(state_of A) $(state_of B)" "pending pending" "again: A pending with node-2 held, B waits"
daemon_stop KILL
daemon_start "$R" --policy "$P"
wait_state B running 20 >/dev/null
is "$(nodes_of B)" "node-2" "after kill -9 and a restart the hold is gone: B backfills on node-2"
is "$(state_of A)" "pending" "A still waits at the front (16 GPUs: node-3+4 are X's)"
api GET /v1/queue
is "$(field "$body" '[.jobs[] | select(.state == "pending") | .id] | join(" ")')" "A" \
   "the queue's pending jobs: A alone"
kill_jobs "$R"
daemon_stop
sanitizer_clean

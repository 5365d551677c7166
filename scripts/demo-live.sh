#!/bin/sh
# `make demo-live`: the seed's story on a live gpuschedd.
#  1. Start gpuschedd on the seed's cluster (4 nodes x 8 GPUs, one NVLink
#     domain each) with the spread demo policy, in a fresh state dir.
#  2. Submit the story: twelve small jobs (1 and 2 GPUs, a few minutes) that
#     spread placement scatters over all four nodes, then team a's 8-GPU job
#     `big`.  Half the GPUs are free, yet no node has 8: big waits.
#  3. Show `gpusched queue`, `gpusched why big`, `gpusched nodes` and the
#     fragmentation lines of /metrics.
#  4. Cancel two small jobs, which does not free a node either (why says
#     what would), then stop the daemon by pid and end the jobs.
set -e
cd "$(dirname "$0")/.."
G=bin/gpusched
D=bin/gpuschedd
STATE=$(mktemp -d "${TMPDIR:-/tmp}/gpusched-demo.XXXXXX")
DPID=
# gone PID...: until none of the processes is left (up to about 10 s)
gone() {
    i=0
    for p in "$@"; do
        while kill -0 "$p" 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
    done
}
cleanup() {
    if [ -n "$DPID" ]; then
        kill -TERM "$DPID" 2>/dev/null || true
        wait "$DPID" 2>/dev/null || true
    fi
    # The jobs outlive the daemon on purpose.  Each job's supervisor
    # (gpuschedd-supervise; the daemon records "PID START" in
    # run/SEQ-N/sup) writes its exit file under the state directory once the
    # job's group is gone: stop the supervisors by pid (they pass SIGTERM to
    # their job's group) and wait for them before removing the directory, or
    # rm races their last write ("run/3-1: Directory not empty").
    sups=
    for f in "$STATE"/s/run/*/sup; do
        [ -s "$f" ] && read -r pid start <"$f" || continue
        # the same process (its /proc start time, field 22), not a reused pid
        [ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f20)" = "$start" ] &&
            sups="$sups $pid"
    done
    for p in $sups; do kill -TERM "$p" 2>/dev/null || true; done
    # shellcheck disable=SC2086
    gone $sups
    # what did not end in 10 s: the jobs' groups, then the supervisors
    for g in $(cat "$STATE/pgids" 2>/dev/null); do kill -KILL "-$g" 2>/dev/null || true; done
    for p in $sups; do kill -KILL "$p" 2>/dev/null || true; done
    # shellcheck disable=SC2086
    gone $sups
    rm -rf "$STATE" 2>/dev/null || { sleep 0.5; rm -rf "$STATE"; }
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "== 1. gpuschedd on the seed's cluster (spread placement)"
echo "\$ gpuschedd --cluster examples/seed-cluster.yaml --policy examples/demo-spread.yaml --state $STATE/s --listen 127.0.0.1:0 --trust-loopback --virtual-users"
# --virtual-users: the demo's users (u1, alice, ...) are labels, not accounts
$D --cluster examples/seed-cluster.yaml --policy examples/demo-spread.yaml \
    --state "$STATE/s" --listen 127.0.0.1:0 --trust-loopback --virtual-users >"$STATE/out" 2>"$STATE/err" &
DPID=$!
i=0
until grep -q '^listening on ' "$STATE/out" 2>/dev/null; do
    kill -0 "$DPID" 2>/dev/null || { cat "$STATE/err"; exit 1; }
    i=$((i + 1)); [ $i -lt 200 ] || { echo "no address"; exit 1; }
    sleep 0.05
done
GPUSCHED_SERVER=$(sed -n 's/^listening on //p' "$STATE/out" | head -1)
export GPUSCHED_SERVER
until curl -sf "$GPUSCHED_SERVER/readyz" >/dev/null; do sleep 0.05; done
echo "$(head -1 "$STATE/out")"
echo

echo "== 2. The story: small jobs spread over every node, then an 8-GPU job"
job="ps -o pgid= \$\$ | tr -d ' ' >>'$STATE/pgids'; exec sleep 600"
n=0
for g in 2 2 2 2 1 1 1 1 1 1 1 1; do
    n=$((n + 1))
    team=b; [ $((n % 2)) -eq 0 ] && team=a
    $G submit --id small-$n --gpus $g --team $team --user u$n --time-limit 10m -- sh -c "$job" >/dev/null
done
echo "\$ gpusched submit --gpus N --team a|b --time-limit 10m -- sleep 600   # x12, 16 GPUs in all"
echo "\$ gpusched submit --id big --gpus 8 --team a --time-limit 4h -- sleep 600"
$G submit --id big --gpus 8 --team a --user alice --time-limit 4h -- sh -c "$job"
sleep 1
echo

echo "== 3. What a user sees"
echo "\$ gpusched queue"
$G queue
echo
echo "\$ gpusched why big"
$G why big
echo
echo "\$ gpusched nodes"
$G nodes
echo
echo "\$ curl -s \$GPUSCHED_SERVER/metrics | grep -E 'schedulab|fragment|util|jobs'"
curl -s "$GPUSCHED_SERVER/metrics" | grep -v '^#' | grep -E 'schedulab|fragment|util|gpusched_jobs' | head -30
echo

echo "== 4. Cancel two small jobs on different nodes: still no whole node"
$G cancel small-1
$G cancel small-2
sleep 1
$G why big | head -12
echo
echo "Half the cluster is free and the 8-GPU job still waits: the free GPUs are"
echo "scattered.  'make demo' shows the same cluster under pack placement."
echo "Stopping gpuschedd (pid $DPID) and the demo's jobs."

#!/bin/sh
# slurm_frag.t - `frag --from-slurm` and `why --from-slurm` against a real
# private Slurm 22.05 cluster (scripts/slurm-local.sh) built from
# examples/seed-cluster.yaml, with the seed's snapshot recreated by real
# jobs.  Runs in the debug variant only: the sanitizer variant covers the
# same parsing code through test_slurm (JSON recorded from this cluster)
# and the fuzz corpus, without starting Slurm twice.
. "$(dirname "$0")/tap.sh"
if [ "${GS_VARIANT:-debug}" = san ]; then
    echo "1..0 # SKIP the Slurm-cluster tests run in the debug variant"; exit 0
fi
if [ ! -x /usr/sbin/slurmctld-wlm ] || ! command -v squeue >/dev/null; then
    echo "1..0 # SKIP Slurm 22.05 (slurmctld slurmd slurm-client) not installed"; exit 0
fi
RUN=$TMP/slurm
RUN2=$TMP/slurm2
trap 'for r in "$RUN" "$RUN2"; do [ -d "$r/run" ] && GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$r" >/dev/null 2>&1; done; rm -rf "$TMP"' EXIT
plan 28
SEED=$ROOT/examples/seed-cluster.yaml

GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN" >"$TMP/up.log" 2>&1
ok $? "private cluster up (4 nodes idle)"
. "$RUN/env.sh"
cd "$TMP" || exit 1

# sub NAME NODE GPUS MINUTES: a sleeping job pinned to NODE; prints its id
sub() { sbatch --parsable -J "$1" -w "$2" --gres=gpu:"$3" -t "$4" -o /dev/null --wrap 'sleep 600'; }
# running N: wait (up to 15 s) until N jobs run
running() {
    i=0
    while [ "$(squeue -h -t R | wc -l)" -lt "$1" ] && [ $i -lt 150 ]; do i=$((i + 1)); sleep 0.1; done
    [ "$(squeue -h -t R | wc -l)" -ge "$1" ]
}
# the seed's snapshot: busy 6, 5, 0, 1 -> free 2, 3, 8, 7
A=$(sub a node-1 6 60); B=$(sub b node-2 5 30); C=$(sub c node-4 1 90)
running 3
ok $? "three jobs running"

run "$GPUSCHED" frag --from-slurm --cluster "$SEED" --json
is "$rc" 0 "frag --from-slurm exits 0"
is "$(printf '%s' "$out" | jq .free_gpus)" 20 "free GPUs 2+3+8+7 = 20"
is "$(printf '%s' "$out" | jq .schedulability.value)" 1 "S_8 = 1, as the seed says"
is "$(printf '%s' "$out" | jq -c .schedulability.units)" '["node-3"]' "the unit is node-3"
is "$(printf '%s' "$out" | jq -c '[.nodes[].free]')" "[2,3,8,7]" "free per node 2, 3, 8, 7"
# the same answer as the seed's hand-written snapshot, read without Slurm
seed=$("$GPUSCHED" frag --cluster "$SEED" --state "$ROOT/examples/seed-snapshot.json" --json)
is "$(printf '%s' "$out" | jq -c '[.free_gpus, .schedulability, .fragmentation.count]')" \
   "$(printf '%s' "$seed" | jq -c '[.free_gpus, .schedulability, .fragmentation.count]')" \
   "same free GPUs, S_8 and count fragmentation as examples/seed-snapshot.json"
run "$GPUSCHED" frag --from-slurm
like "$out" "S_8 = 1 (can take a job of 8 GPUs: node-3)" "text without --cluster (Slurm's node list)"
like "$out" "Slurm: 3 running jobs with GPUs, 0 pending" "text says what Slurm holds"

# fill node-3 for 20 min, then an 8-GPU job must wait: 2+3+0+7 = 12 free
D=$(sub d node-3 8 20)
running 4
E=$(sbatch --parsable -J e --gres=gpu:8 -t 10 -o /dev/null --wrap 'sleep 60')
# until Slurm's scheduler has looked at it (its reason is None before)
i=0; while [ "$(squeue -h -j "$E" -o %r)" != Resources ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
run "$GPUSCHED" frag --from-slurm --cluster "$SEED" --json --save-snapshot "$TMP/snap.json"
live=$out
pend() { printf '%s' "$out" | jq -r ".pending[] | select(.id == \"$E\") | $1"; }
is "$(pend .reason)" count_fragmentation "the 8-GPU job waits for count fragmentation"
like "$(pend .detail)" "12 GPUs free, but no node has 8: the most on one node is 7 (node-4)" \
    "explained with numbers"
# Slurm's own end time of job d (start + its 20-min limit) is when node-3
# empties; b (30 min) ends later, so the estimate is d's end
d_end=$(date -d "$(squeue -h -j "$D" -o %e)" +%s)
is "$(pend '.est_start | floor')" "$d_end" "estimated start = d's start + 20 min (Slurm's EndTime)"
is "$(pend .est_basis)" profile "estimate from the running jobs' ends"
is "$(pend .slurm_reason)" Resources "Slurm's own reason beside it in the JSON"

run "$GPUSCHED" why "$E" --from-slurm --cluster "$SEED"
is "$rc" 0 "why exits 0"
like "$out" "Slurm's reason:    Resources" "Slurm's reason shown"
like "$out" "gpusched's reason: count_fragmentation: 12 GPUs free" "gpusched's reason beside it"
run "$GPUSCHED" why 99999 --from-slurm
like "$out" "no job 99999" "an unknown job is an error"

# the saved snapshot replays without Slurm to the same answer
pick="[.free_gpus, .schedulability.value, (.pending[] | select(.id == \"$E\") | .reason, .est_start)]"
replay=$("$GPUSCHED" frag --cluster "$SEED" --state "$TMP/snap.json" --json)
is "$(printf '%s' "$replay" | jq -c "$pick")" "$(printf '%s' "$live" | jq -c "$pick")" \
   "the saved snapshot replays without Slurm: same free GPUs, S_8, reason and start"

# a drained node is not counted free: node-4's 7 free GPUs go away
scontrol update nodename=node-4 state=drain reason=maintenance
run "$GPUSCHED" frag --from-slurm --cluster "$SEED" --json
is "$(printf '%s' "$out" | jq .free_gpus)" 5 "drained node-4 not free: 2 + 3 + 0 = 5"
is "$(printf '%s' "$out" | jq -c .unavailable)" '["node-4"]' "node-4 listed unavailable"
is "$(printf '%s' "$out" | jq -r '.nodes[3].state + " " + .nodes[3].state_reason')" \
   "drain maintenance" "its state and reason"
run "$GPUSCHED" frag --from-slurm --cluster "$SEED"
like "$out" "node-4           drain  maintenance" "text lists the drained node"
: "$A" "$B" "$C"

# --gpu-types: one GRES type per GPU, so a job's GPU indices can be chosen
# (held job, scontrol update Gres=gpu:g3:1,gpu:g5:1, release) and frag
# reads exactly those indices
GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$RUN" >/dev/null 2>&1
GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN2" --gpu-types >"$TMP/up2.log" 2>&1
ok $? "private cluster with per-GPU GRES types up"
. "$RUN2/env.sh"
J=$(sbatch --parsable -H -w node-2 -t 5 -o /dev/null --wrap 'sleep 600')
scontrol update JobId="$J" Gres=gpu:g3:1,gpu:g5:1 NodeList=node-2 && scontrol release "$J"
ok $? "GPUs 3 and 5 of node-2 asked for by type"
running 1
run "$GPUSCHED" frag --from-slurm --save-snapshot "$TMP/snap2.json" --json
is "$(jq -r ".running[] | select(.id == \"$J\") | .placement" "$TMP/snap2.json")" "node-2:3,5" \
   "the job holds exactly node-2:3,5"
is "$(printf '%s' "$out" | jq -c '[.free_gpus, .nodes[1].free]')" "[30,6]" "30 free, 6 on node-2"

#!/bin/sh
# slurm_offline.t - the Slurm features that need no running Slurm (both
# variants): a snapshot with running jobs and node states, the conf
# renderer behind scripts/slurm-local.sh, the sacct importer on the fuzz
# corpus, and a clear error when Slurm cannot be reached.
. "$(dirname "$0")/tap.sh"
plan 17
SEED=$ROOT/examples/seed-cluster.yaml
SNAP=$ROOT/tests/data/slurm/snapshot-running.json

# a1 (node-1:0-5, started 900, 1 h), b1 (node-2:0-4, 950, 30 min),
# c1 (node-4:0, 990, 1.5 h) at time 1000: free 2, 3, 8, 7 as the seed
run "$GPUSCHED" frag --cluster "$SEED" --state "$SNAP" --json
is "$rc" 0 "snapshot with running jobs reads"
is "$(printf '%s' "$out" | jq -c '[.free_gpus, .schedulability.value, .schedulability.units]')" \
   '[20,1,["node-3"]]' "the seed's answer: 20 free, S_8 = 1 on node-3"
pend() { printf '%s' "$out" | jq -r ".pending[] | select(.id == \"$1\") | $2"; }
is "$(pend big .reason)" none "the first 8-GPU job fits node-3"
is "$(pend big2 .reason)" count_fragmentation "the second waits: count fragmentation"
# node-2 empties when b1 ends: 950 + 1800 = 2750 s, 1750 s after 1000
is "$(pend big2 .est_start)" 2750 "estimated start = b1's start + its 30-min limit"
is "$(pend big2 .est_in)" 1750 "... 1750 s after the snapshot"
jq '. + {nodes: {"node-3": "drain"}}' "$SNAP" >"$TMP/drain.json"
run "$GPUSCHED" frag --cluster "$SEED" --state "$TMP/drain.json" --json
is "$(printf '%s' "$out" | jq -c '[.free_gpus, .schedulability.value]')" '[12,0]' \
   "a drained node-3 is not free: 2 + 3 + 7 = 12, S_8 = 0"
jq '.running[0].placement = "node-1:0-5 node-9:0"' "$SNAP" >"$TMP/bad.json"
run "$GPUSCHED" frag --cluster "$SEED" --state "$TMP/bad.json"
like "$out" "running\[0\].placement: no node 'node-9' in the cluster" "a bad placement is named"

run "$GPUSCHED" slurm-conf --cluster "$SEED" --rundir "$TMP/r" --gpu-types
is "$rc" 0 "slurm-conf renders"
is "$(grep -c '^NodeName=node-[1-4] NodeHostname=' "$TMP/r/etc/slurm.conf")" 4 "four node lines"
is "$(grep -c 'Type=g[0-7] File=' "$TMP/r/etc/gres.conf")" 32 "one GRES line per GPU"
[ -c "$TMP/r/dev/node-3/nvidia7" ] && [ -L "$TMP/r/dev/node-3/nvidia7" ]
ok $? "fake GPU device files are symlinks to a character device"
p1=$(sed -n 's/^CTLD_PORT=//p' "$TMP/r/ports.env")
[ "$p1" -gt 1023 ] && ! grep -q "Port=$p1 " "$TMP/r/etc/slurm.conf"
ok $? "slurmctld's port is not a slurmd's port"

C=$ROOT/fuzz/corpus/sacct
run "$GPUSCHED" import --format sacct --in "$C/odd.txt" --json
# odd.txt: 10 data rows = 1 step + 5 drops + 3 jobs + 1 lost run (job 9)
is "$(printf '%s' "$out" | sed -n '/^{/,$p' | jq -c '[.rows, .steps, .jobs, .runs_lost, .dropped.fields, .dropped.value]')" \
   "[10,1,3,1,1,1]" "odd sacct rows: every row counted"
run "$GPUSCHED" import --format sacct --in "$C/no-submit.txt"
like "$out" "no-submit.txt:1: no Submit column" "a header without Submit is an error"

# (an unreachable controller takes Slurm's clients 10-60 s to give up:
# test_slurm checks that error on squeue output recorded that way)
PATH=/nonexistent run "$GPUSCHED" frag --from-slurm
is "$rc" 1 "frag --from-slurm without Slurm's clients exits 1"
like "$out" "cannot run squeue" "... and says why"

#!/bin/sh
# slurm_backend_counts.t - `gpuschedd --backend slurm` on a Slurm without
# per-GPU GRES types (scripts/slurm-local.sh without --gpu-types: plain
# `Gres=gpu:8`), where gpuschedd can ask Slurm only for a GPU count per node
# (`--slurm-gpus counts`, picked by `auto`) and reads back the indices Slurm
# gave (`scontrol -d show job`: GRES=gpu:N(IDX:...)).
#   1. a Slurm job outside gpusched holds GPUs 0,1 of node-1; gpuschedd,
#      which does not know, decides node-1:0,1 for X (pack: the lowest node
#      and GPUs of an empty cluster); Slurm gives X the lowest free ones,
#      2,3.  The engine's view follows the truth: X's placement becomes
#      node-1:2,3 (logged, journalled as gpus_moved, counted in
#      gpusched_backend_gpu_mismatch_total), and X's CUDA_VISIBLE_DEVICES
#      is 2,3.  Y (2 GPUs) is then decided on 0,1 again (free to the engine)
#      and gets 4,5 from Slurm: the engine never puts two jobs on one GPU.
#      After kill -9 and a restart the followed placements come back from
#      the journal.  Once the outside job is gone, a 4-GPU job on node-1 is
#      decided on 0,1,6,7 - exactly the four GPUs Slurm has free: no mismatch.
#   2. slurmctld forgets ended jobs after MinJobAge (set to 2 s here); a job
#      that ends while gpuschedd is down longer than that, with no
#      accounting (no slurmdbd: sacct cannot answer), is marked ended with
#      its end unknown (log line, journal event end_unknown, exit code 137)
#      and is not run again.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
slurm_require
plan 23
SEED=$ROOT/examples/seed-cluster.yaml

GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN" >"$TMP/up.log" 2>&1
ok $? "private Slurm cluster up (4 x 8 GPUs, plain gpu:8, no per-GPU types)"
. "$RUN/env.sh"
sed -i 's/^MinJobAge=.*/MinJobAge=2/' "$RUN/etc/slurm.conf" && scontrol reconfigure
is "$(scontrol show config | sed -n 's/^MinJobAge *= *//p')" "2 sec" "MinJobAge is 2 s"

cat >"$TMP/where.sh" <<JOB
echo "\$SLURMD_NODENAME \$CUDA_VISIBLE_DEVICES" >"$TMP/out.\$GPUSCHED_JOB_ID"
echo "\$SLURM_JOB_ID" >>"$TMP/runs.\$GPUSCHED_JOB_ID"
sleep "\$1"
exit "\${2:-0}"
JOB
metric() { curl -s "$URL/metrics" | sed -n "s/^$1 //p"; }
moved() { sqlite3 "$TMP/s1/journal.db" "select count(*) from events where kind = 'gpus_moved'"; }

sstart "$TMP/s1" --backend slurm --slurm-poll 0.2
ok $? "gpuschedd --backend slurm is ready"
like "$(cat "$TMP/daemon.err")" "4 nodes match; GPUs pinned by counts (indices read back)" \
    "auto picks counts mode: the nodes have no per-GPU GRES types"

# 1. an outside Slurm job on node-1's GPUs 0,1
OUT=$(sbatch --parsable -J outside -w node-1 --gres=gpu:2 -o /dev/null --wrap 'sleep 300')
i=0
until [ "$(squeue -h -j "$OUT" -o %T)" = RUNNING ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
like "$(scontrol -d -o show job "$OUT")" "GRES=gpu:2(IDX:0-1)" "the outside job holds GPUs 0,1 of node-1"
api POST /v1/jobs "{\"id\":\"X\",\"gpus\":2,\"command\":[\"sh\",\"$TMP/where.sh\",\"300\"]}"
wait_state X running 15
S=$(sqlite3 "$TMP/s1/journal.db" "select seq from jobs where id = 'X'")
is "$(sqlite3 "$TMP/s1/journal.db" "select detail from events where job = $S and kind = 'start'")" \
    "attempt 1 on node-1:0,node-1:1" "the engine decided X on node-1's GPUs 0,1"
i=0
while [ "$(moved)" != 1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
api GET /v1/jobs/X
is "$(field "$body" .placement)" "node-1:2,node-1:3" "the engine's view follows Slurm: X holds node-1:2,3"
is "$(cat "$TMP/out.X")" "node-1 2,3" "X's CUDA_VISIBLE_DEVICES from Slurm is 2,3"
like "$(cat "$TMP/daemon.err")" "job X: Slurm job [0-9]* runs on node-1:2,node-1:3, decided node-1:0,node-1:1" \
    "the mismatch is logged"
is "$(metric gpusched_backend_gpu_mismatch_total)" 1 "gpusched_backend_gpu_mismatch_total counts it"
api POST /v1/jobs "{\"id\":\"Y\",\"gpus\":2,\"command\":[\"sh\",\"$TMP/where.sh\",\"300\"]}"
wait_state Y running 15
i=0
while [ "$(moved)" != 2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
S=$(sqlite3 "$TMP/s1/journal.db" "select seq from jobs where id = 'Y'")
is "$(sqlite3 "$TMP/s1/journal.db" "select detail from events where job = $S and kind = 'start'")" \
    "attempt 1 on node-1:0,node-1:1" "the engine decided Y on 0,1: free in its view once X moved"
api GET /v1/jobs/Y
is "$(field "$body" .placement) $(cat "$TMP/out.Y")" "node-1:4,node-1:5 node-1 4,5" \
    "Y, decided on 0,1 again (free to the engine), runs on and is recorded on 4,5"
api GET /v1/nodes
is "$(field "$body" '.nodes[] | select(.name == "node-1") | .free_gpus')" 4 \
    "the engine counts node-1's GPUs 2-5 taken (8 - 2 - 2 = 4 free; the outside job is Slurm's)"
# a restart: the followed placement is in the journal; nothing is re-detected
daemon_stop KILL
sstart "$TMP/s1" --backend slurm --slurm-poll 0.2
wait_state X running 15
api GET /v1/jobs/X
is "$(field "$body" .placement)" "node-1:2,node-1:3" "after kill -9 and restart X is still on node-1:2,3"
api GET /v1/nodes
is "$(field "$body" '.nodes[] | select(.name == "node-1") | .free_gpus') $(metric gpusched_backend_gpu_mismatch_total)" \
    "4 0" "the restarted engine holds X's and Y's real GPUs; no mismatch seen again"
scancel "$OUT"
i=0
while [ -n "$(squeue -h -j "$OUT" -o %T 2>/dev/null)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
api POST /v1/jobs "{\"id\":\"Z\",\"gpus\":4,\"command\":[\"sh\",\"$TMP/where.sh\",\"1\"]}"
wait_state Z completed 20
api GET /v1/jobs/Z
is "$(field "$body" .placement) $(cat "$TMP/out.Z")" "node-1:0,node-1:1,node-1:6,node-1:7 node-1 0,1,6,7" \
    "Z is decided on the 4 GPUs of node-1 that Slurm has free, and gets exactly them"
is "$(metric gpusched_backend_gpu_mismatch_total)" 0 "no mismatch for Z: the engine and Slurm agree"
api POST /v1/jobs/X/cancel
api POST /v1/jobs/Y/cancel
wait_state X cancelled 15 && wait_state Y cancelled 15
ok $? "X and Y cancelled"

# 2. an end slurmctld forgot while gpuschedd was down, no accounting
api POST /v1/jobs "{\"id\":\"L\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/where.sh\",\"1\",\"4\"]}"
wait_state L running 15
L=$(cat "$TMP/runs.L" 2>/dev/null)
i=0
while [ -z "$L" ] && [ $i -lt 50 ]; do sleep 0.1; L=$(cat "$TMP/runs.L" 2>/dev/null); i=$((i + 1)); done
daemon_stop KILL
i=0
while scontrol -o show job "$L" >/dev/null 2>&1 && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done
echo "# Slurm job $L purged by slurmctld after $((i / 10)) s"
scontrol -o show job "$L" >/dev/null 2>&1
ok $((! $?)) "slurmctld forgot L's Slurm job $L (ended, older than MinJobAge)"
sstart "$TMP/s1" --backend slurm --slurm-poll 0.2
wait_state L failed 15
api GET /v1/jobs/L
is "$(field "$body" '.exit_code')" 137 "L is marked ended with exit code 137 (its real 4 is unknowable)"
like "$(cat "$TMP/daemon.err")" "job L: end unknown: Slurm job $L: gone from slurmctld (MinJobAge), sacct" \
    "the log says the end is unknown and why (sacct cannot answer without accounting)"
S=$(sqlite3 "$TMP/s1/journal.db" "select seq from jobs where id = 'L'")
is "$(sqlite3 "$TMP/s1/journal.db" "select count(*) from events where job = $S and kind = 'end_unknown'")" 1 \
    "the journal marks L's end as unknown"
sleep 1
is "$(wc -l <"$TMP/runs.L") $(squeue -h -n "gs:$S:1,gs:$S:2" | wc -l)" "1 0" "L ran once and is not run again"
daemon_stop

#!/bin/sh
# Preemption, partitions and the mixed-workload generator (issue 5).
#
# The issue's example on one 8-GPU node: A (prio 0, 8 GPUs, 1000 s of work,
# checkpoint every 100 s at 10 s) from 0; B (prio 10, 8 GPUs, 100 s) at 250.
#   mode checkpoint, no grace: A checkpointed at work 100 and 200, is
#   preempted at 250 losing 30 s x 8 GPUs = 240 GPU-s; B 250-350; A
#   restarts at 350 from 200: 800 s + 7 checkpoints = ends 1220.
#   Checkpoint time 9 x 10 s x 8 GPUs = 720 GPU-s.  util_effective =
#   (1000 + 100) x 8 / (8 x 1220) = 8800 / 9760.
#   grace 30 s: at 250 A checkpoints (250-260, saving 230) and stops losing
#   nothing; B 260-360; A from 230 at 360: 770 s + 7 checkpoints = 1200.
. "$(dirname "$0")/tap.sh"
plan 21
C=$DATA/one-node.yaml
P=$ROOT/tests/data/preempt

run "$GPUSCHED" sim --cluster "$C" --trace "$P/example.csv" --policy "$P/checkpoint.yaml" \
    --json --out "$TMP/o"
ok $rc "sim with preemption exits 0"
j=$out
is "$(printf '%s' "$j" | jq '.preemption.count')" 1 "one preemption"
is "$(printf '%s' "$j" | jq '.preemption.lost_gpu_hours * 3600 | round')" 240 "lost 30 s x 8 GPUs"
is "$(printf '%s' "$j" | jq '.preemption.checkpoint_gpu_hours * 3600 | round')" 720 \
    "9 checkpoints x 10 s x 8 GPUs"
is "$(printf '%s' "$j" | jq '.util_effective * 9760 | round')" 8800 \
    "util_effective excludes lost work and checkpoint time"
is "$(awk -F, '$1=="B"{print $3","$4}' "$TMP/o/jobs.csv")" "250,350" "B runs 250-350"
is "$(awk -F, '$1=="A"{print $3","$4}' "$TMP/o/jobs.csv")" "0,1220" "A first starts at 0, ends 1220"
is "$(printf '%s' "$j" | jq '.checkpoint_advice.train.jobs_able')" 1 "advice: A can checkpoint"
is "$(printf '%s' "$j" | jq '.checkpoint_advice.train.jobs_unable')" 1 "advice: B cannot"
# A ran 0-250 and 350-1220 (1120 s), B 100 s: 1220 s of runs per preemption
is "$(printf '%s' "$j" | jq '.checkpoint_advice.train.mtbp')" 1220 "MTBP = run time / preemptions"

run "$GPUSCHED" sim --cluster "$C" --trace "$P/example.csv" --policy "$P/checkpoint.yaml"
like "$out" "preempted" "text report has the preemption table"
like "$out" "checkpoint advice" "text report has checkpoint advice"

run "$GPUSCHED" sim --cluster "$C" --trace "$P/example.csv" --policy "$P/grace.yaml" --json \
    --out "$TMP/g"
is "$(awk -F, '$1=="B"{print $3}' "$TMP/g/jobs.csv")" 260 "grace: B starts when A's checkpoint is saved"
is "$(awk -F, '$1=="A"{print $4}' "$TMP/g/jobs.csv")" 1200 "grace: A loses nothing, ends 1200"
is "$(printf '%s' "$out" | jq '.preemption.lost_gpu_hours')" 0 "grace: nothing lost"

# hard partitions: the inference job starts at once on its own node while
# the second training job waits for node-2
run "$GPUSCHED" sim --cluster "$P/two-nodes.yaml" --trace "$P/mixed.csv" --policy "$P/hard.yaml" \
    --json --out "$TMP/h"
is "$(awk -F, '$1=="I1"{print $3" "$7}' "$TMP/h/jobs.csv")" "10 node-1:0" "inference on its partition"
is "$(awk -F, '$1=="T2"{print $3}' "$TMP/h/jobs.csv")" 1000 "T2 waits for the training partition"
is "$(printf '%s' "$out" | jq '.classes.infer.slo_attainment')" 1 "inference SLO met"

run "$GPUSCHED" sim --cluster "$C" --trace "$P/example.csv" --policy "$P/bad-node.yaml"
is "$rc" 1 "a partition naming an unknown node is rejected"
like "$out" "partition serve: no node 'node-9'" "error names partition and node"

"$GPUSCHED" gen --jobs 300 --seed 3 --cluster "$ROOT/examples/seed-cluster.yaml" \
    --infer-share 0.5 --ckpt-interval 30m --ckpt-cost 1m --out "$TMP/mix.csv"
counts=$(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next}
    $h["class"]=="infer"{inf++} $h["checkpoint_interval"]==1800{ck++}
    END{print (inf>100 && inf<200) ", " (ck>100 && inf+ck==300)}' "$TMP/mix.csv")
is "$counts" "1, 1" "gen: about half inference, every training job checkpoints every 30m"

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
#   Checkpoints 2 + 1 (the grace one) + 7 = 10 x 10 s x 8 GPUs = 800 GPU-s.
# jobs.csv's per-job columns (class .. wait_reason) on the same runs: no
# restore cost is set (restore 0); A waits only while requeued (checkpoint
# mode 250-350, grace 260-360) with all 8 GPUs held by B: shortage; B
# starts at once (none), or under grace waits 250-260 while A drains on
# all 8 GPUs: shortage.
. "$(dirname "$0")/tap.sh"
plan 34
C=$DATA/one-node.yaml
P=$ROOT/tests/data/preempt
# jcol FILE ID COL,COL...: the named jobs.csv columns of job ID, comma-separated
jcol() {
    awk -F, -v id="$2" -v cols="$3" 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; n=split(cols,c,","); next}
        $1==id{s=""; for(k=1;k<=n;k++) s=s (k>1?",":"") $h[c[k]]; print s}' "$1"
}
LOSS=class,preemptions,lost_gpu_s,checkpoint_gpu_s,restore_gpu_s,wait_reason
ETA=est_start_at_submit,est_start_p90_at_submit,est_basis_at_submit,est_start_cal_at_submit

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
is "$(head -1 "$TMP/o/jobs.csv")" \
    "id,submit,start,end,wait,gpus,placement,state,team,$LOSS,$ETA" \
    "jobs.csv: the old columns first, unchanged, then the loss columns, then the promise (docs/eta.md)"
is "$(jcol "$TMP/o/jobs.csv" A $LOSS)" "train,1,240,720,0,shortage" \
    "jobs.csv A: preempted once, lost 240 GPU-s, checkpoints 720 GPU-s"
is "$(jcol "$TMP/o/jobs.csv" B $LOSS)" "train,0,0,0,0,none" "jobs.csv B: lost nothing, never waited"
is "$(printf '%s' "$j" | jq '.wait_reasons.job_hours * 3600 | round')" 100 \
    "waiting counted from the preemption (250-350), not from A's submit"
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
is "$(jcol "$TMP/g/jobs.csv" A $LOSS)" "train,1,0,800,0,shortage" \
    "grace jobs.csv A: drained, lost 0, 10 checkpoints"
is "$(jcol "$TMP/g/jobs.csv" B $LOSS)" "train,0,0,0,0,shortage" \
    "grace jobs.csv B: lost 0, waited for A's checkpoint"
is "$(printf '%s' "$out" | jq '.wait_reasons.job_hours * 3600 | round')" 110 \
    "grace: waits B 250-260 + A 260-360"

# a fractional job: F (1 GPU at share 0.25, A's work and checkpoints) is
# preempted by B at 250 like A: lost 30 s x 0.25 = 7.5 GPU-s, checkpoints
# 9 x 10 s x 0.25 = 22.5 GPU-s
run "$GPUSCHED" sim --cluster "$C" --trace "$P/fraction.csv" --policy "$P/checkpoint.yaml" \
    --json --out "$TMP/f"
is "$(jcol "$TMP/f/jobs.csv" F end,$LOSS)" "1220,train,1,7.5,22.5,0,shortage" \
    "jobs.csv: a fractional job's GPU-seconds use its share"

# hard partitions: the inference job starts at once on its own node while
# the second training job waits for node-2
run "$GPUSCHED" sim --cluster "$P/two-nodes.yaml" --trace "$P/mixed.csv" --policy "$P/hard.yaml" \
    --json --out "$TMP/h"
is "$(awk -F, '$1=="I1"{print $3" "$7}' "$TMP/h/jobs.csv")" "10 node-1:0" "inference on its partition"
is "$(awk -F, '$1=="T2"{print $3}' "$TMP/h/jobs.csv")" 1000 "T2 waits for the training partition"
is "$(printf '%s' "$out" | jq '.classes.infer.slo_attainment')" 1 "inference SLO met"
is "$(jcol "$TMP/h/jobs.csv" I1 class,wait_reason)" "infer,none" "jobs.csv: I1 is inference, never waited"
# T2 waits 0-1000; node-1 (outside its partition) has 8 idle GPUs for all
# but 10-40 (I1 on one of them): its dominant reason is its partition
is "$(jcol "$TMP/h/jobs.csv" T2 wait,wait_reason)" "1000,partition" "jobs.csv: T2 waits for its partition"

run "$GPUSCHED" sim --cluster "$C" --trace "$P/example.csv" --policy "$P/bad-node.yaml"
is "$rc" 1 "a partition naming an unknown node is rejected"
like "$out" "partition serve: no node 'node-9'" "error names partition and node"

"$GPUSCHED" gen --jobs 300 --seed 3 --cluster "$ROOT/examples/seed-cluster.yaml" \
    --infer-share 0.5 --ckpt-interval 30m --ckpt-cost 1m --out "$TMP/mix.csv"
counts=$(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next}
    $h["class"]=="infer"{inf++} $h["checkpoint_interval"]==1800{ck++}
    END{print (inf>100 && inf<200) ", " (ck>100 && inf+ck==300)}' "$TMP/mix.csv")
is "$counts" "1, 1" "gen: about half inference, every training job checkpoints every 30m"

# per-job losses add up to the summary on a bigger run (29 preemptions in
# arrangement (a), fractional inference jobs).  The summary's GPU-hours are
# printed to 10 significant digits, hence the 1e-9 relative tolerance.
"$GPUSCHED" gen --jobs 600 --seed 5 --cluster "$ROOT/examples/seed-cluster.yaml" \
    --infer-share 0.3 --infer-gpu 0.5 --ckpt-interval 30m --out "$TMP/big.csv"
run "$GPUSCHED" sim --cluster "$ROOT/examples/seed-cluster.yaml" --trace "$TMP/big.csv" \
    --policy "$ROOT/examples/preemption/a-immediate.yaml" --json --out "$TMP/big"
sum=$(printf '%s' "$out" | jq -r '.preemption |
    "\(.count) \(.lost_gpu_hours * 3600) \(.checkpoint_gpu_hours * 3600) \(.restore_gpu_hours * 3600)"')
res=$(awk -F, -v s="$sum" 'function near(a, b) { d = a - b; t = 1e-9 * (b > 1 ? b : 1);
        return d <= t && -d <= t }
    NR==1{for(i=1;i<=NF;i++)h[$i]=i; next}
    {p += $h["preemptions"]; l += $h["lost_gpu_s"]; c += $h["checkpoint_gpu_s"]; r += $h["restore_gpu_s"]}
    END{split(s, v, " "); print (p == v[1]) ", " near(l, v[2]) ", " near(c, v[3]) ", " near(r, v[4])
        print (p > 0 && l > 0 && c > 0 && r > 0)}' "$TMP/big/jobs.csv")
is "$(echo "$res" | head -1)" "1, 1, 1, 1" \
    "per-job preemptions, lost, checkpoint and restore GPU-s sum to the summary's"
is "$(echo "$res" | tail -1)" 1 "the bigger run preempts, loses, checkpoints and restores"
# every job that waited has a reason; one that neither waited nor was
# preempted has none
is "$(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next}
    $h["wait"] > 0 && $h["wait_reason"] == "none" {a++}
    $h["wait"] == 0 && $h["preemptions"] == 0 && $h["wait_reason"] != "none" {b++}
    END{print a + 0, b + 0}' "$TMP/big/jobs.csv")" "0 0" \
    "wait_reason: a code for every job that waited, none for one that neither waited nor was preempted"

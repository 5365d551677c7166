#!/bin/sh
# gpusched whatif --failures F.yaml: ETTR of the jobs that matter against
# checkpoint interval and hot spares (docs/failures.md, "Advice").  Every
# ordering below is derived by hand.
. "$(dirname "$0")/tap.sh"
plan 13
nodes() { # nodes N: a cluster of N x 8 H100
    printf 'cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n'
    i=1; while [ $i -le "$1" ]; do printf '    - { name: n%d, gpus: 8, gpu_type: H100-80G }\n' $i; i=$((i + 1)); done
}
nodes 3 >"$TMP/c3.yaml"; nodes 16 >"$TMP/c16.yaml"; nodes 17 >"$TMP/c17.yaml"
printf 'retry:\n  max_attempts: 1000\n  expedite: true\n' >"$TMP/p.yaml"

# 1. Spares: the 3-node case of spares.t as advice.  A: 16 GPUs, 10000 s of
# work, checkpoint cost 1 s; B: 8 GPUs, 20000 s at 100; n1 down 5000-9000
# (replayed), random failures practically never (node MTBF 10^6 h: the
# Young/Daly interval sqrt(2 x 1 x 1.8e9) = 60000 s, so every interval of
# the grid, >= 15000 s, writes no checkpoint in 10000 s of work).  No spare:
# A restarts at 9000, ends 19000: ETTR 10000/19000 = 0.526.  One spare: A
# restarts at 5000 on n2 + the spare, ends 15000: 0.667; B waits 14900 s =
# 4.14 h for it (the spare's cost).  Spares help most.
printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\nA,0,10000,16,0,1,0\nB,100,20000,8,0,0,0\n' >"$TMP/t3.csv"
printf 'time,node,state\n5000,n1,down\n9000,n1,up\n' >"$TMP/e3.csv"
printf 'node_mtbf: 1000000h\nrepair: 1h\n' >"$TMP/never.yaml"
run "$GPUSCHED" whatif --cluster "$TMP/c3.yaml" --trace "$TMP/t3.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/never.yaml" --node-events "$TMP/e3.csv" --spares 0,1 --json
ok $rc "whatif --failures runs (3 nodes, replayed events)"
j=$out
is "$(printf '%s' "$j" | jq -r '[.runs[] | select(.spares == 0) | .ettr * 1000 | round] | unique | @csv')" \
   "526" "no spare: ETTR 10000/19000 in every column"
is "$(printf '%s' "$j" | jq -r '[.runs[] | select(.spares == 1) | .ettr * 1000 | round] | unique | @csv')" \
   "667" "one spare: ETTR 10000/15000 in every column"
is "$(printf '%s' "$j" | jq -r '[.runs[] | select(.spares == 1) | .others_wait_h * 100 | round] | unique | @csv')" \
   "414" "the spare's cost: B waits 14900 s"
is "$(printf '%s' "$j" | jq -r '.verdict.helps_most, .verdict.best_spares, .targets.min_gpus')" \
   "spares
1
16" "verdict: spares help most (the largest job, 16 GPUs)"

# 2. No failures (node MTBF 10^6 h, 30 days: the seed draws none, checked),
# one 128-GPU job of W = 30 days on 17 nodes, C = 120 s.  ETTR = W / (W +
# floor((W - 1) / tau) x C): it only grows with tau, and a spare (the 17th
# node, idle anyway) changes nothing: the interval helps most, at its longest.
printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\nbig,0,2592000,128,3600,120,300\n' >"$TMP/t16.csv"
run "$GPUSCHED" whatif --cluster "$TMP/c17.yaml" --trace "$TMP/t16.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/never.yaml" --spares 0,1 --json
j=$out
is "$(printf '%s' "$j" | jq '[.runs[].restarts] | add')" 0 "no failures drawn"
is "$(printf '%s' "$j" | jq -r '[.runs[] | select(.spares == 0) | .ettr] == [.runs[] | select(.spares == 1) | .ettr]')" \
   true "no failures: a spare gives the same ETTR in every column"
is "$(printf '%s' "$j" | jq -r '[.runs[] | select(.spares == 0) | (.ettr * 1e6 | round)] | @csv')" \
   "$(printf '%s' "$j" | jq -r '[.runs[] | select(.spares == 0) | .interval_s] | .[]' |
      awk '{w = 2592000; n = int((w - 1) / $1); printf "%s%d", (NR > 1 ? "," : ""), w / (w + n * 120) * 1e6 + 0.5} END {print ""}')" \
   "no failures: ETTR = W / (W + floor((W - 1) / tau) C) for each interval"
is "$(printf '%s' "$j" | jq -r '.verdict.helps_most, (.verdict.best_interval_s == ([.runs[].interval_s] | max))')" \
   "interval
true" "no failures: the longest interval helps most"

# 3. Failures (node MTBF 800 h, 16 nodes: the job sees M = 50 h, repair 10
# min, seed 1) on 16 nodes.  Young/Daly sqrt(2 x 120 x 180000) = 6573 s;
# first-order ETTR 1 - C/tau - (tau/2 + R)/M with R = 900 s: 0.917 at
# tau/4, 0.958 at tau, 0.917 at 4 tau; one run's noise is about 0.005, so
# Young/Daly's column beats both ends.  A spare would leave 15 nodes: the
# job never starts (spares are kept from first starts).
printf 'node_mtbf: 800h\nrepair: 600\nseed: 1\n' >"$TMP/f16.yaml"
run "$GPUSCHED" whatif --cluster "$TMP/c16.yaml" --trace "$TMP/t16.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/f16.yaml" --spares 0,1 --json
j=$out
is "$(printf '%s' "$j" | jq '.young_daly_s | round')" 6573 "Young/Daly interval sqrt(2 C M)"
is "$(printf '%s' "$j" | jq -r '[.runs[] | select(.spares == 0)] as $r | ($r | map(select(.young_daly)) | .[0].ettr) as $y |
        ($y > $r[0].ettr and $y > $r[-1].ettr)')" true "Young/Daly's interval beats 1/4 and 4 times it"
is "$(printf '%s' "$j" | jq '[.runs[] | select(.spares == 1) | .ended] | add')" 0 \
   "a spare that the job needs to fit: it never starts"
# a target that writes checkpoints at no cost has no Young/Daly interval
printf 'id,submit,duration,gpus\nZ,0,100,8\n' >"$TMP/z.csv"
run "$GPUSCHED" whatif --cluster "$TMP/c3.yaml" --trace "$TMP/z.csv" --failures "$TMP/never.yaml"
like "$rc $out" "^1 .*job Z writes checkpoints at no cost" "no checkpoint cost: an error naming the job"

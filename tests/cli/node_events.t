#!/bin/sh
# gpusched sim --node-events and gen --mtbf: a node failure worked out by
# hand, reproducible random failures, and errors that name file and line.
#
# Cluster n1, n2 (8 GPUs each); FIFO + pack.  A: 8 GPUs, 1000 s of work,
# checkpoint every 300 s at no cost, no restore cost.  B: 8 GPUs, 500 s.
# Both submit at 0: A on n1, B on n2.  n1 goes down at 400 s: A has done
# 400 s, 300 s of it checkpointed, so it loses 100 s (x 8 GPUs = 800
# GPU-s) and is requeued.  n1 is down and n2 busy until B ends at 500 s, so
# A restarts at 500 on n2 with 300 s saved and ends at 500 + 700 = 1200.
# n1 comes back at 600 s, idle.
. "$(dirname "$0")/tap.sh"
plan 16
cat >"$TMP/c.yaml" <<'Y'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - { name: n1, gpus: 8, gpu_type: H100-80G }
    - { name: n2, gpus: 8, gpu_type: H100-80G }
Y
cat >"$TMP/t.csv" <<'T'
id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost
A,0,1000,8,300,0,0
B,0,500,8,0,0,0
T
printf 'time,node,state\n400,n1,down\n600,n1,up\n' >"$TMP/e.csv"

run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --node-events "$TMP/e.csv" \
    --check --json --out "$TMP/o"
ok $rc "sim with node events exits 0 (engine invariants checked at every step)"
is "$(printf '%s' "$out" | jq '.completed')" 2 "both jobs complete"
row=$(awk -F, 'NR==1 {for (i = 1; i <= NF; i++) h[$i] = i; next}
    $1 == "A" {print $h["start"] "," $h["end"] "," $h["placement"] "," $h["lost_gpu_s"] "," $h["state"]}' \
    "$TMP/o/jobs.csv")
# jobs.csv: start = first start (0), placement = the last run's GPUs
is "$row" "0,1200,n2:0 n2:1 n2:2 n2:3 n2:4 n2:5 n2:6 n2:7,800,done" \
    "A: first started 0, restarted on n2, ended 1200, lost 800 GPU-s"
is "$(awk -F, '$1 == "B" {print $4}' "$TMP/o/jobs.csv")" 500 "B ends at 500"

# without the events: A ends at 1000 on n1, nothing lost
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --out "$TMP/p"
is "$(awk -F, '$1 == "A" {print $4}' "$TMP/p/jobs.csv")" 1000 "without node events A ends at 1000"

# errors name file, line and column
printf 'time,node,state\n10,n9,down\n' >"$TMP/bad1.csv"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --node-events "$TMP/bad1.csv"
is "$rc" 1 "unknown node: exit 1"
like "$out" "bad1.csv:2: node: 'n9' is not a node of the cluster" "unknown node named with file:line"
printf 'time,node,state\n10,n1,broken\n' >"$TMP/bad2.csv"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --node-events "$TMP/bad2.csv"
like "$out" "bad2.csv:2: state: 'broken' is not one of down, drain, up" "bad state"
printf 'when,node,state\n10,n1,down\n' >"$TMP/bad3.csv"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --node-events "$TMP/bad3.csv"
like "$out" "bad3.csv:1: missing column 'time'" "missing column"
printf 'time,node,state\n-5,n1,down\n' >"$TMP/bad4.csv"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --node-events "$TMP/bad4.csv"
like "$out" "bad4.csv:2: time: '-5' is not a time" "negative time"

# gen --mtbf: seeded, reproducible, alternating down/up per node
C=$ROOT/examples/seed-cluster.yaml
"$GPUSCHED" gen --jobs 200 --seed 3 --cluster "$C" --mtbf 1d --repair 2h \
    --node-events-out "$TMP/f1.csv" --out "$TMP/g1.csv"
ok $? "gen --mtbf writes a node-event file"
"$GPUSCHED" gen --jobs 200 --seed 3 --cluster "$C" --mtbf 1d --repair 2h \
    --node-events-out "$TMP/f2.csv" --out "$TMP/g2.csv"
ok $(cmp -s "$TMP/f1.csv" "$TMP/f2.csv"; echo $?) "same seed: same failures"
"$GPUSCHED" gen --jobs 200 --seed 3 --cluster "$C" --out "$TMP/g3.csv"
ok $(cmp -s "$TMP/g1.csv" "$TMP/g3.csv"; echo $?) "the trace does not change with --mtbf"
# each node alternates down, up with the up exactly 7200 s after its down
is "$(awk -F, 'NR > 1 { if ($3 == "down") d[$2] = $1; else if ($1 - d[$2] != 7200) bad++ }
    END {print bad + 0}' "$TMP/f1.csv")" 0 "repair is 2h after each failure"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/g1.csv" --node-events "$TMP/f1.csv" --check
ok $rc "the generated failures replay (invariants checked)"
run "$GPUSCHED" gen --jobs 10 --seed 1 --cluster "$C" --mtbf 1d
is "$rc" 2 "--mtbf without --node-events-out is rejected"

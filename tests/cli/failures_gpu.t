#!/bin/sh
# Per-GPU failure rates (docs/failures.md, gpu_mtbf): each GPU fails on its
# own (only that GPU goes down), in `sim --failures` (F.yaml gpu_mtbf) and
# `gen --gpu-mtbf` (a gpu column in the node-events file).
#
# The model check (as failures.t's, derivation in failures_model.awk): one
# node n1 of 8 GPUs, job A of 8 GPUs, 36000 s of work, a checkpoint every
# 3600 s costing 60 s, restore 300 s, retry.max_attempts 1000.  A needs
# all 8 GPUs, so its run ends when any one of them goes down and it can
# restart only when none is down: for A the node is down over the union of
# the GPUs' repairs.  The awk below turns gen's per-GPU file into that
# union (down when the count of down GPUs goes 0 -> 1, up when 1 -> 0) and
# failures_model.awk walks it by hand; sim --failures with gpu_mtbf (drawn
# inside the run, the same streams as gen's) must give A that end,
# restarts and lost GPU-s.  C at 1e6 s keeps the draws going past A's end.
#
# The rate check: over gen's horizon H each GPU is a renewal process of
# cycle up + repair (mean M + R), so the downs of the 8 GPUs number about
# N = 8 H / (M + R) with variance 8 H M^2 / (M + R)^3 (exponential up
# times: cycle variance M^2); the count must lie within 4 standard
# deviations.
. "$(dirname "$0")/tap.sh"
plan 13
cat >"$TMP/c.yaml" <<'Y'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - { name: n1, gpus: 8, gpu_type: H100-80G }
Y
printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\nA,0,36000,8,3600,60,300\nC,1000000,1,8,0,0,0\n' >"$TMP/t.csv"
printf 'retry:\n  max_attempts: 1000\n' >"$TMP/p.yaml"
AWKM=$(dirname "$0")/failures_model.awk
# union of the GPUs' repairs as node events of n1 (time,node,state)
union() {
    awk -F, 'NR == 1 { print "time,node,state"; next }
        $4 == "down" { if (n++ == 0) print $1 ",n1,down" }
        $4 == "up" { if (--n == 0) print $1 ",n1,up" }' "$1"
}
for seed in 1 2 3; do
    "$GPUSCHED" gen --jobs 100 --seed $seed --cluster "$TMP/c.yaml" --gpu-mtbf 24h --repair 20m \
        --node-events-out "$TMP/e$seed.csv" >/dev/null
    union "$TMP/e$seed.csv" >"$TMP/u$seed.csv"
    printf 'gpu_mtbf: 24h\nrepair: 20m\nseed: %s\n' $seed >"$TMP/f$seed.yaml"
    run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
        --failures "$TMP/f$seed.yaml" --check --out "$TMP/o$seed"
    got=$(awk -F, '$1 == "A" {printf "%.3f %d %.3f", $4, $22, $21}' "$TMP/o$seed/jobs.csv")
    want=$(awk -f "$AWKM" "$TMP/u$seed.csv" | awk '{printf "%s %s %s", $1, $2, $3}')
    is "$got" "$want" "seed $seed: A's end, restarts, lost GPU-s as the hand model walks the union of the GPUs' repairs"
done
r=$(awk -F, '$1 == "A" {print $22}' "$TMP/o1/jobs.csv")
ok $([ "$r" -ge 1 ]; echo $?) "seed 1: the GPU failures do hit A ($r restarts)"
# only GPUs fail: every event of gen's file names a GPU, and each GPU has some
is "$(awk -F, 'NR > 1 && $3 == ""' "$TMP/e1.csv" | wc -l | tr -d ' ')" 0 "no node-level event without --mtbf"
"$GPUSCHED" gen --jobs 2000 --seed 4 --cluster "$TMP/c.yaml" --gpu-mtbf 24h --repair 20m \
    --node-events-out "$TMP/e4.csv" >"$TMP/t4.csv"
is "$(awk -F, 'NR > 1 && $4 == "down" { g[$3] = 1 } END { print length(g) }' "$TMP/e4.csv")" 8 \
   "all 8 GPUs fail in a long file"
# the rate: H = the trace's last submission + its longest job (gen's horizon)
H=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { s = $c["submit"]; d = $c["duration"]; if (s > ls) ls = s; if (d > ld) ld = d }
    END { printf "%.3f", ls + ld }' "$TMP/t4.csv")
n=$(awk -F, 'NR > 1 && $4 == "down"' "$TMP/e4.csv" | wc -l | tr -d ' ')
read -r e sd <<EOT
$(awk -v h="$H" 'BEGIN { M = 86400; R = 1200
    printf "%.1f %.1f\n", 8 * h / (M + R), sqrt(8 * h * M * M / ((M + R) ^ 3)) }')
EOT
echo "# $n GPU failures over $H s, expected $e +- $sd"
ok $(awk -v n="$n" -v e="$e" -v sd="$sd" 'BEGIN { d = n - e; if (d < 0) d = -d; exit !(d <= 4 * sd) }'; echo $?) \
   "the GPU failure count ($n) is 8 H / (M + R) = $e within 4 sd ($sd)"
# adding GPU failures changes no node's draws: the node events of --mtbf with
# --gpu-mtbf are those of --mtbf alone
"$GPUSCHED" gen --jobs 100 --seed 1 --cluster "$TMP/c.yaml" --mtbf 3h --repair 20m \
    --node-events-out "$TMP/n.csv" >/dev/null
"$GPUSCHED" gen --jobs 100 --seed 1 --cluster "$TMP/c.yaml" --mtbf 3h --gpu-mtbf 24h --repair 20m \
    --node-events-out "$TMP/ng.csv" >/dev/null
is "$(awk -F, 'NR > 1 && $3 == "" { print $1 "," $2 "," $4 }' "$TMP/ng.csv" | md5sum)" \
   "$(awk -F, 'NR > 1 { print $1 "," $2 "," $3 }' "$TMP/n.csv" | md5sum)" \
   "node events with --gpu-mtbf too are those of --mtbf alone"
ok $([ "$(awk -F, 'NR > 1 && $3 != ""' "$TMP/ng.csv" | wc -l)" -gt 0 ]; echo $?) "and GPU events are added"
# whatif --failures: Young/Daly's M counts the job's GPUs.  A alone (8
# GPUs, 1 node, C = 60 s): gpu_mtbf 24h -> M = 86400 / 8 = 10800 s,
# sqrt(2 x 60 x 10800) = 1138.42 s; with node_mtbf 48h too -> 1 / M =
# 1 / 172800 + 8 / 86400 = 17 / 172800, M = 10164.71 s, sqrt(120 M) = 1104.43 s
printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\nA,0,36000,8,3600,60,300\n' >"$TMP/ta.csv"
printf 'node_mtbf: 48h\ngpu_mtbf: 24h\nrepair: 20m\nseed: 1\n' >"$TMP/fng.yaml"
for f in f1:1138.42 fng:1104.43; do
    is "$("$GPUSCHED" whatif --cluster "$TMP/c.yaml" --trace "$TMP/ta.csv" --policy "$TMP/p.yaml" \
        --failures "$TMP/${f%%:*}.yaml" --json | jq '.young_daly_s * 100 | round / 100')" "${f#*:}" \
       "whatif --failures ${f%%:*}.yaml: Young/Daly's interval ${f#*:} s"
done
# errors
printf 'repair: 1h\n' >"$TMP/bad1.yaml"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --failures "$TMP/bad1.yaml" --out "$TMP/x"
like "$out" "bad1.yaml:1: node_mtbf: required key missing" "neither node_mtbf nor gpu_mtbf: node_mtbf is required"
printf 'gpu_mtbf: 0\nrepair: 1h\n' >"$TMP/bad2.yaml"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --failures "$TMP/bad2.yaml" --out "$TMP/x"
like "$out" "bad2.yaml:1: gpu_mtbf: expected a duration > 0" "gpu_mtbf 0: names file, line and key"

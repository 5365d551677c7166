#!/bin/sh
# gpusched sim --failures F.yaml: random node failures drawn inside the run
# (docs/failures.md).  Checked against an independent model, against the
# same failures replayed from a file, and for bad files.
#
# The model check: one node n1 of 8 GPUs and one job A of 8 GPUs, 36000 s
# of work, a checkpoint every 3600 s of work costing 60 s, a restore of
# 300 s after each restart (retry.max_attempts 1000, so it is always
# requeued).  `gen --mtbf 3h --repair 20m --seed S` writes the same failure
# process (one shared drawing function) to a file; failures_model.awk walks
# that file by hand: a run from saved work s ends at
#   t0 + restore + (36000 - s) + 60 x (checkpoints left: floor(35999 / 3600) - s / 3600)
# unless a failure comes first; at a failure at d the work since the last
# finished write is lost and the job restarts at the repair's end with
# restore 300.  Its end, restarts and lost GPU-s (x 8) must equal jobs.csv's
# end, restarts and lost_gpu_s_failure, and ettr = 36000 / end.  A second
# job C at 1e6 s keeps the node events of gen's file (horizon = last submit
# + longest job) past A's end.
. "$(dirname "$0")/tap.sh"
plan 35
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
for seed in 1 2 3; do
    "$GPUSCHED" gen --jobs 100 --seed $seed --cluster "$TMP/c.yaml" --mtbf 3h --repair 20m \
        --node-events-out "$TMP/e$seed.csv" >/dev/null
    printf 'node_mtbf: 3h\nrepair: 20m\nseed: %s\n' $seed >"$TMP/f$seed.yaml"
    run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
        --failures "$TMP/f$seed.yaml" --check --out "$TMP/o$seed"
    got=$(awk -F, '$1 == "A" {printf "%.3f %d %.3f %.6f", $4, $22, $21, $20}' "$TMP/o$seed/jobs.csv")
    want=$(awk -f "$AWKM" "$TMP/e$seed.csv" | awk '{printf "%s %s %s %.6f", $1, $2, $3, 36000 / $1}')
    is "$got" "$want" "seed $seed: end, restarts, lost GPU-s, ettr as the hand model walks the failures"
done
# seed 2 has 11 restarts in that model: the check covers many failures
is "$(awk -F, '$1 == "A" {print $22}' "$TMP/o2/jobs.csv")" 11 "seed 2: 11 restarts"
is "$(jq '.failures.largest.restarts' "$TMP/o2/summary.json")" 11 "summary: largest job's restarts"
# C ran 1 s of work in 1 s: ettr 1; summary ettr = GPU-time weighted:
# (8 x 36000 + 8 x 1) / (8 x endA + 8 x 1)
endA=$(awk -F, '$1 == "A" {print $4}' "$TMP/o2/jobs.csv")
is "$(jq '.failures.ettr * 1e6 | round' "$TMP/o2/summary.json")" \
   "$(awk -v e="$endA" 'BEGIN {printf "%d", (36001 / (e + 1)) * 1e6 + 0.5}')" \
   "summary ettr is the GPU-time weighted ratio"

# the same process replayed from a file gives the same schedule
C=$ROOT/examples/seed-cluster.yaml
"$GPUSCHED" gen --jobs 300 --seed 5 --cluster "$C" --ckpt-interval 30m --ckpt-cost 1m \
    --mtbf 1d --repair 2h --node-events-out "$TMP/e5.csv" >"$TMP/t5.csv"
printf 'node_mtbf: 1d\nrepair: 2h\nseed: 5\n' >"$TMP/f5.yaml"
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --node-events "$TMP/e5.csv" --out "$TMP/ne" \
    >/dev/null
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml" --check \
    --out "$TMP/fa"
ok $rc "sim --failures on 300 generated jobs (invariants checked)"
ok $(cut -d, -f1-15 "$TMP/ne/jobs.csv" | cmp -s - "$(cut -d, -f1-15 "$TMP/fa/jobs.csv" >"$TMP/x"; echo "$TMP/x")"; echo $?) \
    "jobs.csv equals the replay of gen --mtbf's file (same seed) in its first 15 columns"
is "$(jq '.failures.events' "$TMP/fa/summary.json")" \
   "$(awk -F, '$3 == "down" && $1 < '"$(jq .span.end "$TMP/fa/summary.json")"' {n++} END {print n}' "$TMP/e5.csv")" \
   "events = the file's downs before the end"
# columns 16-19 are the start-time promise (est_start_at_submit .. est_start_cal_at_submit,
# docs/eta.md); the failure columns come after them, last
is "$(head -1 "$TMP/fa/jobs.csv" | cut -d, -f20-)" "ettr,lost_gpu_s_failure,restarts" "new columns at the end"
# no preemption here: all lost work is the failures'
is "$(awk -F, 'NR > 1 && $12 != $21 {n++} END {print n + 0}' "$TMP/fa/jobs.csv")" 0 \
   "lost_gpu_s = lost_gpu_s_failure for every job"
is "$(jq '.failures.lost_gpu_s | round' "$TMP/fa/summary.json")" \
   "$(awk -F, 'NR > 1 {s += $21} END {printf "%d", s + 0.5}' "$TMP/fa/jobs.csv")" \
   "summary lost_gpu_s = the sum over jobs"
# by_team: the sums of jobs.csv per team (restarts; lost GPU-s rounded)
is "$(jq -r '.failures.by_team | to_entries[] | "\(.key) \(.value.restarts) \(.value.lost_gpu_s | round)"' \
        "$TMP/fa/summary.json")" \
   "$(awk -F, 'NR > 1 {l[$9] += $21; r[$9] += $22} END {for (t in l) printf "%s %d %d\n", t, r[t], l[t] + 0.5}' \
        "$TMP/fa/jobs.csv" | sort)" "by_team restarts and lost GPU-s = jobs.csv per team"
# team ETTR = sum gpus x wall x ettr / sum gpus x wall (wall = end - start), to 1e-4
is "$(jq '.failures.by_team["team-b"].ettr * 1e4 | round' "$TMP/fa/summary.json")" \
   "$(awk -F, 'NR > 1 && $9 == "team-b" && $20 != "" {w = $6 * ($4 - $3); u += w * $20; s += w}
        END {printf "%d", u / s * 1e4 + 0.5}' "$TMP/fa/jobs.csv")" "team-b's ETTR from jobs.csv"
# reproducible; another seed differs
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml" --out "$TMP/fb" >/dev/null
ok $(cmp -s "$TMP/fa/jobs.csv" "$TMP/fb/jobs.csv"; echo $?) "same seed: same jobs.csv"
printf 'node_mtbf: 1d\nrepair: 2h\nseed: 6\n' >"$TMP/f6.yaml"
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f6.yaml" --out "$TMP/fc" >/dev/null
ok $(cmp -s "$TMP/fa/jobs.csv" "$TMP/fc/jobs.csv"; [ $? -ne 0 ]; echo $?) "another seed: another jobs.csv"
# weibull runs and reports
printf 'node_mtbf: 1d\nrepair: 2h\nseed: 5\ndistribution: weibull\nshape: 0.7\n' >"$TMP/w.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/w.yaml" --json --check
is "$(printf '%s' "$out" | jq '.failures.events > 0')" true "weibull failures happen"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml"
like "$out" "^node failures: $(jq .failures.events "$TMP/fa/summary.json"), runs ended $(jq .failures.runs_ended "$TMP/fa/summary.json")" \
    "the text report has a failures line"
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml" --html "$TMP/r.html" >/dev/null
is "$(grep -A3 '<h2>Node failures' "$TMP/r.html" | sed -n 's|^<tr><td>\([0-9]*\)</td><td>\([0-9]*\)</td>.*|\1 \2|p')" \
   "$(jq -r '"\(.failures.events) \(.failures.runs_ended)"' "$TMP/fa/summary.json")" \
   "the HTML report's Node failures section has the summary's counts"
# without --failures: no failures object, no new columns
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --json
is "$(printf '%s' "$out" | jq 'has("failures")')" false "no failures object without --failures"

# compare --failures: each policy's failures object is sim's under it
P=$ROOT/examples/policies
run "$GPUSCHED" compare --cluster "$C" --trace "$TMP/t5.csv" --policy "$P/easy-user.yaml" \
    --policy "$P/conservative-user.yaml" --failures "$TMP/f5.yaml" --json
ok $rc "compare --failures runs"
for pol in easy-user conservative-user; do
    is "$(printf '%s' "$out" | jq -c --arg n $pol '.policies[] | select(.name == $n) | .failures')" \
       "$("$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --policy "$P/$pol.yaml" \
           --failures "$TMP/f5.yaml" --json | jq -c .failures)" "compare = sim for $pol"
done

# retry.expedite: a job requeued after a node failure goes ahead of its
# peers.  n1, n2 x 8 GPUs, FIFO.  A: 8 GPUs, 1000 s, checkpoint every 300 s
# at no cost; B: 8 GPUs, 500 s (both at 0); C, D: 8 GPUs, 400 s at 10, 20.
# n1 is down 400-450: A has 300 s saved.  Plain requeue puts A behind C and
# D: C takes n1 at 450, D n2 at 500, A restarts at 850 and ends 850 + 700 =
# 1550.  Expedited: A restarts on n1 at 450 and ends 1150; C takes n2 at
# 500 (ends 900), D follows there at 900 (ends 1300).
cat >"$TMP/c2.yaml" <<'Y'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - { name: n1, gpus: 8, gpu_type: H100-80G }
    - { name: n2, gpus: 8, gpu_type: H100-80G }
Y
printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\nA,0,1000,8,300,0,0\nB,0,500,8,0,0,0\nC,10,400,8,0,0,0\nD,20,400,8,0,0,0\n' >"$TMP/q.csv"
printf 'time,node,state\n400,n1,down\n450,n1,up\n' >"$TMP/q-ev.csv"
printf 'retry:\n  expedite: true\n' >"$TMP/exp.yaml"
"$GPUSCHED" sim --cluster "$TMP/c2.yaml" --trace "$TMP/q.csv" --node-events "$TMP/q-ev.csv" \
    --check --out "$TMP/q0" >/dev/null
is "$(cut -d, -f1,3,4 "$TMP/q0/jobs.csv" | tr '\n' ' ')" "id,start,end A,0,1550 B,0,500 C,450,850 D,500,900 " \
    "plain requeue: A behind C and D"
"$GPUSCHED" sim --cluster "$TMP/c2.yaml" --trace "$TMP/q.csv" --node-events "$TMP/q-ev.csv" \
    --policy "$TMP/exp.yaml" --check --out "$TMP/q1" >/dev/null
is "$(cut -d, -f1,3,4 "$TMP/q1/jobs.csv" | tr '\n' ' ')" "id,start,end A,0,1150 B,0,500 C,500,900 D,900,1300 " \
    "retry.expedite: A restarts at the repair's end"
printf 'retry:\n  expedite: maybe\n' >"$TMP/exp-bad.yaml"
run "$GPUSCHED" sim --cluster "$TMP/c2.yaml" --trace "$TMP/q.csv" --policy "$TMP/exp-bad.yaml"
like "$out" "exp-bad.yaml:2: .*retry.expedite" "a bad retry.expedite names file, line and key"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml" --policy "$TMP/exp.yaml" --check
ok $rc "random failures with retry.expedite (invariants checked)"

# lost GPU-s by cause.  Time limit: one job of 8 GPUs, 1000 s of work,
# checkpoint every 300 s at no cost, queue.runtime_cap 500 s: killed at 500
# with 300 s saved, so 200 s x 8 = 1600 GPU-s lost to the limit.
printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\nK,0,1000,8,300,0,0\n' >"$TMP/k.csv"
printf 'queue:\n  runtime_cap: 500\n' >"$TMP/cap.yaml"
printf 'node_mtbf: 100000h\nrepair: 1h\n' >"$TMP/rare.yaml"
is "$("$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/k.csv" --policy "$TMP/cap.yaml" \
        --failures "$TMP/rare.yaml" --json | jq -c '[.killed, .failures.lost_gpu_s_by_cause]')" \
   '[1,{"failure":0,"preemption":0,"time_limit":1600}]' "a job killed by its runtime cap: 1600 GPU-s to time_limit"
# preemption and failures in one run (arrangement (a) of docs/preemption.md):
# preemption's part = jobs.csv's lost_gpu_s - lost_gpu_s_failure, and the
# two add up to the summary's preemption.lost_gpu_hours (to 0.01 GPU-s)
"$GPUSCHED" gen --jobs 600 --seed 5 --cluster "$C" --infer-share 0.3 --infer-gpu 0.5 \
    --ckpt-interval 30m --out "$TMP/big.csv"
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/big.csv" --policy "$ROOT/examples/preemption/a-immediate.yaml" \
    --failures "$TMP/f5.yaml" --check --out "$TMP/pb" >/dev/null
is "$(jq -r '.failures.lost_gpu_s_by_cause as $c | (.preemption.lost_gpu_hours * 3600) as $l |
        "\($c.preemption > 0) \($c.failure > 0) \((($c.failure + $c.preemption - $l) | fabs) < 0.01) \($c.preemption * 100 | round)"' \
        "$TMP/pb/summary.json")" \
   "true true true $(awk -F, 'NR > 1 {a += $12; f += $21} END {printf "%d", (a - f) * 100 + 0.5}' "$TMP/pb/jobs.csv")" \
   "preemption and failure causes add up to the summary's lost work and match jobs.csv"

# bad files name file, line and key
bad() { printf "$1" >"$TMP/bad.yaml"
    run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/bad.yaml"; }
bad 'node_mtbf: 1d\nrepair: 2h\ncolour: red\n'
like "$out" "bad.yaml:3: colour: unknown key" "unknown key named with line"
bad 'node_mtbf: 0\nrepair: 2h\n'
like "$out" "bad.yaml:1: node_mtbf: expected a duration > 0" "node_mtbf 0"
bad 'node_mtbf: 1d\n'
like "$out" "bad.yaml:1: repair: required key missing" "repair missing"
bad 'node_mtbf: 1d\nrepair: 1h\ndistribution: gamma\n'
like "$out" "bad.yaml:3: distribution: expected exponential or weibull, got 'gamma'" "bad distribution"
bad 'node_mtbf: 1d\nrepair: 1h\ndistribution: weibull\nshape: -1\n'
is "$rc" 1 "bad shape: exit 1"
like "$out" "bad.yaml:4: shape: expected a number" "bad shape named with line"

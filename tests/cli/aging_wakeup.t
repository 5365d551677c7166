#!/bin/sh
# gpusched sim: the aging wakeup (engine.c aging_tick, docs/policy.md
# queue.pass_interval).  Under priority with aging the engine passes on the
# grid now + k x pass_interval only when a pass could decide otherwise; the
# old rule (queue.aging_wakeup: tick) passes at every point of the grid.
#
# 1. 30 jobs of 8 GPUs, 1 h each, on one 8-GPU node, submitted every 10 s
#    (j0..j29, priority i mod 5), start_latency 9e12 s: each holds the node
#    for 9e12 s + 1 h.  The old rule makes a pass every 5 min of that 2.7e14
#    s (9e11 passes: it never ended).  Order by hand: j0 starts at 0 alone;
#    the others all age from 30 min on at the same rate, so they go by
#    priority, then submit: j4 j9 .. j29, j3 .. j28, j2 .., j1 .., j5 ..
#    j25.  The k-th (from 1) runs from k x 9e12 + (k-1) x 3600 s to
#    k x (9e12 + 3600): j25 ends at 30 x (9e12 + 3600) = 270000000108000.
#    Passes: at most one per step, and steps are the 30 submissions, 30
#    ends of latency, 30 finishes, one tick after each of the 30 passes
#    that start a job, and each job's aging start (30): at most 150.
# 2. The same schedule as the old rule (the reference, same binary) on a
#    contended generated trace with priorities, under no / EASY /
#    conservative backfill, preemption, quotas and max_job_test 3:
#    summary less queue.passes/skipped and jobs.csv byte for byte.
#    (scripts/aging-wakeup-equiv.sh runs the larger grid, also against a
#    build of the tree before the change.)
. "$(dirname "$0")/tap.sh"
plan 16
C=$DATA/one-node.yaml

{
    echo "id,submit,duration,gpus,priority"
    i=0
    while [ $i -lt 30 ]; do echo "j$i,$((i * 10)),3600,8,$((i % 5))"; i=$((i + 1)); done
} > "$TMP/lat30.csv"
printf 'queue:\n  policy: priority\n  aging_rate: 1\n  max_wait_before_aging: 30m\nstart_latency:\n  median: 9e12s\n' \
    > "$TMP/lat.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/lat30.csv" --policy "$TMP/lat.yaml" --json \
    --out "$TMP/lat"
ok $rc "start_latency 9e12 s: sim exits 0"
is "$(printf '%s' "$out" | jq -c '[.completed, .unfinished]')" "[30,0]" "all 30 jobs complete"
is "$(sort -t, -k3 -n "$TMP/lat/jobs.csv" | awk -F, 'NR > 1 { printf "%s ", $1 }')" \
   "j0 j4 j9 j14 j19 j24 j29 j3 j8 j13 j18 j23 j28 j2 j7 j12 j17 j22 j27 j1 j6 j11 j16 j21 j26 j5 j10 j15 j20 j25 " \
   "start order: by priority, then submit"
is "$(awk -F, '$1 == "j25" { print $3 "," $4 }' "$TMP/lat/jobs.csv")" \
   "270000000104400,270000000108000" "j25 runs last, 30 x (9e12 s + 1 h) at its end"
passes=$(printf '%s' "$out" | jq '.queue.passes')
[ "$passes" -le 150 ]
ok $? "at most 150 passes (got $passes; the old rule: 9e11)"

run "$GPUSCHED" gen --jobs 150 --seed 3 --cluster "$ROOT/examples/seed-cluster.yaml" --load 1.8 \
    --infer-share 0.2 --out "$TMP/g.raw"
awk -F, 'BEGIN{OFS=","} NR==1{print;next} $9=="train"{$8=NR%5} {print}' "$TMP/g.raw" > "$TMP/g.csv"
# same NAME YAML-LINES: the default wakeup and the old rule agree
same() {
    printf 'queue:\n  policy: priority\n  aging_rate: 3\n  max_wait_before_aging: 10m\n  pass_interval: 2m\n%b' \
        "$2" > "$TMP/$1.yaml"
    sed 's/^queue:$/queue:\n  aging_wakeup: tick/' "$TMP/$1.yaml" > "$TMP/$1.tick.yaml"
    for m in "$1" "$1.tick"; do
        "$GPUSCHED" sim --cluster "$ROOT/examples/seed-cluster.yaml" --trace "$TMP/g.csv" \
            --policy "$TMP/$m.yaml" --json --out "$TMP/o-$m" 2>/dev/null |
            jq -S 'del(.queue.passes, .queue.skipped)' > "$TMP/o-$m.json"
    done
    cmp -s "$TMP/o-$1.json" "$TMP/o-$1.tick.json" &&
        cmp -s "$TMP/o-$1/jobs.csv" "$TMP/o-$1.tick/jobs.csv"
    ok $? "$1: the schedule of the old rule"
    n=$(jq .queue.passes "$TMP/o-$1/summary.json")
    t=$(jq .queue.passes "$TMP/o-$1.tick/summary.json")
}
same none '  backfill: none\n'
[ "$n" -lt "$t" ]
ok $? "no backfill: fewer passes than the old rule ($n < $t)"
same easy '  backfill: easy\n'
same cons '  backfill: conservative\n  max_job_test: 3\n'
[ "$n" -lt "$t" ]
ok $? "conservative, max_job_test 3: fewer passes ($n < $t)"
same quota '  backfill: easy\n  quota: { team-a: 12, team-b: 10 }\n  quota_mode: borrow\n'
same preempt '  backfill: easy\npreemption:\n  mode: checkpoint\n  priority_gap: 3\n  grace: 2m\n'
same immediate '  backfill: none\npreemption:\n  mode: immediate\n  priority_gap: 2\n  min_runtime: 10m\n'
same minpass '  backfill: easy\n  min_pass_interval: 1m\n'

printf 'queue:\n  aging_wakeup: sometimes\n' > "$TMP/bad.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/lat30.csv" --policy "$TMP/bad.yaml"
is "$rc" 1 "unknown aging_wakeup: exit 1"
like "$out" "aging_wakeup" "the error names the key"

#!/bin/sh
# gpusched sim: progress under every legal policy (issue 23, docs/preemption.md
# "Progress"): every job of a finite trace ends, and no two jobs preempt each
# other for ever.
#
# The bound.  A replay whose jobs all end has every job in a final state
# (done, killed, failed, rejected) and ends by
#   B = last submit + 4 x (sum over jobs of duration + the runtime cap's
#       slack) + the node down time of the events file,
# with room for the work that preemption and node failures redo: a run
# with a preemption cycle never ends (the time cap of the test stops it)
# or ends far beyond B.  The bound is loose on purpose: it tells a replay
# that ends from one that only stops at the simulator's stuck rule.
#
# z33: the case of scripts/aging-wakeup-equiv.sh --fuzz 80 that livelocked
# before (47 of 120 jobs done at 20,000 simulated days): priority + aging,
# conservative backfill, immediate preemption with priority_gap 3, a 2 h
# runtime cap with over_cap: preempt, node failures, one 8-GPU node.  Jobs
# past their cap were preempted under the over-cap right and preempted
# back under the priority right, in a group of six, for ever.
. "$(dirname "$0")/tap.sh"
plan 14
ONE=$DATA/one-node.yaml
SEED_C=$ROOT/examples/seed-cluster.yaml

# ends NAME CLUSTER TRACE POLICY EVENTS: assert every job ended within B
ends() {
    rm -rf "$TMP/o"
    timeout 60 "$GPUSCHED" sim --cluster "$2" --trace "$3" --policy "$4" \
        --node-events "$5" --json --out "$TMP/o" > "$TMP/o.json" 2>/dev/null
    rc=$?
    open=$(awk -F, 'NR > 1 && $8 != "done" && $8 != "killed" && $8 != "failed" && $8 != "rejected"' \
        "$TMP/o/jobs.csv" 2>/dev/null | wc -l | tr -d ' ')
    last=$(awk -F, 'NR > 1 && $4 + 0 > m { m = $4 + 0 } END { printf "%d", m }' "$TMP/o/jobs.csv" 2>/dev/null)
    b=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { if ($c["submit"] > s) s = $c["submit"]; d += $c["duration"] + 7200 }
        END { printf "%d", s + 4 * d }' "$3")
    down=$(awk -F, 'NR > 1 && $3 != "up" { n++ } END { print (n + 0) * 7200 }' "$5")
    b=$((b + down))
    [ "$rc" -eq 0 ] && [ "$open" = 0 ] && [ "${last%.*}" -le "$b" ]
    ok $? "$1: every job ended (rc $rc, $open open, last end ${last:-?}s, bound ${b}s)"
}

Z=$TMP/z33
cat > "$Z.yaml" <<'EOF'
queue:
  policy: priority
  aging_rate: 0.5
  max_wait_before_aging: 2h
  pass_interval: 1m
  backfill: conservative
  max_job_test: 5
  duration_estimate: user
  runtime_cap: 2h
preemption:
  mode: immediate
  priority_gap: 3
  grace: 2m
  min_runtime: 10m
  over_cap: preempt
EOF
"$GPUSCHED" gen --jobs 120 --seed 554 --cluster "$ONE" --load 2 --infer-share 0.2 \
    --out "$Z.raw" --mtbf 20h --repair 2h --node-events-out "$Z.ev" 2>/dev/null
awk -F, 'BEGIN{OFS=","} NR==1{print;next} $9=="train"{$8=(NR*554)%6-1} {print}' \
    "$Z.raw" > "$Z.csv"
ends "z33 (over cap vs priority)" "$ONE" "$Z.csv" "$Z.yaml" "$Z.ev"
is "$(awk -F, 'NR > 1 && $8 == "done"' "$TMP/o/jobs.csv" | wc -l | tr -d ' ')" 120 "z33: 120 of 120 done"

# Random legal policies on contended 120-job traces with node failures:
# preemption (checkpoint or immediate, priority_gap 1-5), runtime caps
# (over_cap kill or preempt), estimates, quotas with borrowing and reclaim.
i=0
while [ $i -lt 12 ]; do
    # shellcheck disable=SC2046 # the fields are split on purpose
    set -- $(awk -v s=$i 'BEGIN { srand(s + 101); r = rand()
        split("0 1 20", rate); split("none easy conservative", bf)
        split("checkpoint immediate", pm); split("user from_history oracle", est)
        split("estimate_x1 estimate_x1.5 1h", cap); split("kill preempt preempt", oc)
        split("no yes", qu)
        printf "%s %s %s %d %s %s %s %s %d\n", rate[int(rand() * 3) + 1],
            bf[int(rand() * 3) + 1], pm[int(rand() * 2) + 1], int(rand() * 5) + 1,
            est[int(rand() * 3) + 1], cap[int(rand() * 3) + 1], oc[int(rand() * 3) + 1],
            qu[int(rand() * 2) + 1], int(rand() * 1000) }')
    p=$TMP/f$i.yaml
    {
        echo "queue:"
        echo "  policy: priority"
        echo "  aging_rate: $1"
        echo "  backfill: $2"
        echo "  duration_estimate: $5"
        echo "  runtime_cap: $6"
        if [ "$8" = yes ]; then
            echo "  quota: { team-a: 4, team-b: 2, team-c: 2 }"
            echo "  quota_mode: borrow"
        fi
        echo "preemption:"
        echo "  mode: $3"
        echo "  priority_gap: $4"
        echo "  min_runtime: 5m"
        echo "  over_cap: $7"
        [ "$8" = yes ] && echo "  quota_reclaim: true"
    } > "$p"
    if [ $((i % 2)) -eq 0 ]; then c=$ONE; else c=$SEED_C; fi
    "$GPUSCHED" gen --jobs 120 --seed "$9" --cluster "$c" --load 2 --infer-share 0.2 \
        --ckpt-interval 20m --out "$TMP/f.raw" --mtbf 20h --repair 2h \
        --node-events-out "$TMP/f$i.ev" 2>/dev/null
    awk -F, -v s="$9" 'BEGIN{OFS=","} NR==1{print;next} $9=="train"{$8=(NR*s)%6-1} {print}' \
        "$TMP/f.raw" > "$TMP/f$i.csv"
    ends "fuzz $i ($3, gap $4, $2, cap $6 $7, quota $8)" "$c" "$TMP/f$i.csv" "$p" "$TMP/f$i.ev"
    i=$((i + 1))
done

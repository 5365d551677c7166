#!/bin/sh
# aging-wakeup-equiv.sh - the aging wakeup (queue.aging_wakeup: changes, the
# default) gives the schedule that a pass every queue.pass_interval gives,
# bit for bit, over a grid of policies with aging.
#
# usage: scripts/aging-wakeup-equiv.sh [--quick] [--fuzz N] [OLD_GPUSCHED]
#
# Every run of the grid is simulated three ways and compared:
#   new  $GPUSCHED (default bin/gpusched), the default wakeup;
#   tick the same binary with queue.aging_wakeup: tick (the old rule);
#   old  OLD_GPUSCHED when given: a build of the tree before the change
#        (git worktree add --detach /tmp/aw-old main; make release there),
#        with the same policy less the aging_wakeup key it does not know.
# Compared: the --json summary less queue.passes and queue.skipped (passes
# are what the change saves; skipped is summed over passes), byte for byte;
# jobs.csv byte for byte; timeline.csv as a step function (a row per pass:
# rows equal to the one before but for the time are dropped first).
# Workloads: a generated trace with priorities on examples/seed-cluster.yaml,
# one with inference jobs (priority 10) for preemption, the 30-job
# start_latency case, and (unless --quick) a slice of the AAIC trace
# (../shared/traces/aaic, skipped if absent).  --fuzz N adds N random
# policies (seeded: the same N, the same runs) on random contended traces.
# Prints one line per run and "N runs, M differ"; exits 1 if any differs.
# A run over CAP seconds (default 120) is reported and not compared (some
# random policies livelock under every rule: preemption past a runtime cap
# with node failures can requeue one job for thousands of simulated days).
set -eu
QUICK=0
FUZZ=0
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
if [ "${1:-}" = "--fuzz" ]; then FUZZ=$2; shift 2; fi
NEW=${GPUSCHED:-bin/gpusched}
OLD=${1:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/aging-equiv.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
runs=0
bad=0
slow=0
CAP=${CAP:-120} # seconds per run: a run over it is reported, not compared

# Workloads ------------------------------------------------------------
C=examples/seed-cluster.yaml
"$NEW" gen --jobs 400 --seed 11 --cluster "$C" --load 1.6 --out "$T/g.raw"
# training jobs get priorities 0-4 (by line), so aged keys cross young ones
awk -F, 'BEGIN{OFS=","} NR==1{print;next} $9=="train"{$8=NR%5} {print}' "$T/g.raw" > "$T/gen.csv"
"$NEW" gen --jobs 300 --seed 5 --cluster "$C" --load 1.4 --infer-share 0.3 \
    --ckpt-interval 20m --out "$T/g2.raw"
awk -F, 'BEGIN{OFS=","} NR==1{print;next} $9=="train"{$8=NR%4} {print}' "$T/g2.raw" > "$T/infer.csv"
{
    echo "id,submit,duration,gpus,priority"
    i=0
    while [ $i -lt 30 ]; do echo "j$i,$((i * 10)),3600,8,$((i % 5))"; i=$((i + 1)); done
} > "$T/lat30.csv"
AAIC=../shared/traces/aaic/aaicwl-2017Q3.csv.gz
HAVE_AAIC=0
if [ $QUICK -eq 0 ] && [ -r "$AAIC" ]; then
    "$NEW" import --format aaic --in "$AAIC" --trace-out "$T/aaic.full" >/dev/null 2>&1
    "$NEW" import --format aaic --in "$AAIC" --cluster-out "$T/c12.yaml" --nodes 12 \
        >/dev/null 2>&1
    # the first 2000 jobs, with priorities -2..4 (by line) so that they age past each other
    head -n 2001 "$T/aaic.full" |
        awk 'NR == 1 { print $0 ",priority"; next } { print $0 "," (NR * 7919) % 7 - 2 }' \
            > "$T/aaic.csv"
    HAVE_AAIC=1
fi

# pol NAME RATE WAIT INTERVAL BACKFILL PREEMPT QUOTA MAXJOB MINPASS [LATENCY]
pol() {
    f="$T/$1.yaml"
    {
        echo "queue:"
        echo "  policy: priority"
        echo "  aging_rate: $2"
        echo "  max_wait_before_aging: $3"
        echo "  pass_interval: $4"
        echo "  backfill: $5"
        echo "  max_job_test: $8"
        echo "  min_pass_interval: $9"
        [ -n "${QEXTRA:-}" ] && printf "$QEXTRA"
        if [ "$7" = yes ]; then
            echo "  quota: { team-a: 12, team-b: 10, team-c: 8 }"
            echo "  quota_mode: borrow"
        fi
        if [ "$6" != none ]; then
            echo "preemption:"
            echo "  mode: $6"
            echo "  priority_gap: 3"
            echo "  grace: 2m"
            echo "  min_runtime: 10m"
        fi
        if [ -n "${10:-}" ]; then
            echo "start_latency:"
            echo "  median: ${10}"
        fi
    } > "$f"
}

# sim BIN POLICY CLUSTER TRACE OUTDIR
sim() {
    rm -f "$5.timeout"
    # shellcheck disable=SC2086
    timeout "$CAP" "$1" sim --cluster "$3" --trace "$4" --policy "$2" --json --out "$5" \
        ${NODE_EVENTS:-} > "$5.json" 2>/dev/null || { touch "$5.timeout"; return 0; }
    jq -S 'del(.queue.passes, .queue.skipped)' "$5.json" > "$5.cmp.json"
    awk -F, 'NR == 1 { print; next }
             { k = $0; sub(/^[^,]*,/, "", k); if (k != prev) print; prev = k }' \
        "$5/timeline.csv" > "$5.steps"
}

same() { # A B: the compared outputs of two runs agree
    cmp -s "$1.cmp.json" "$2.cmp.json" && cmp -s "$1/jobs.csv" "$2/jobs.csv" &&
        cmp -s "$1.steps" "$2.steps"
}

# check NAME CLUSTER TRACE  (policy $T/NAME.yaml)
check() {
    p="$T/$1.yaml"
    name="$1.$(basename "$3" .csv)"
    sed 's/^queue:$/queue:\n  aging_wakeup: tick/' "$p" > "$T/$1.tick.yaml"
    sim "$NEW" "$p" "$2" "$3" "$T/$name.new"
    sim "$NEW" "$T/$1.tick.yaml" "$2" "$3" "$T/$name.tick"
    verdict=same
    if [ -e "$T/$name.new.timeout" ] || [ -e "$T/$name.tick.timeout" ]; then
        over=""
        for m in new tick; do [ -e "$T/$name.$m.timeout" ] && over="$over $m"; done
        printf '%-28s over %s s:%s (not compared)\n' "$name" "$CAP" "$over"
        slow=$((slow + 1))
        return 0
    fi
    same "$T/$name.new" "$T/$name.tick" || verdict=DIFF-tick
    if [ -n "$OLD" ]; then
        sim "$OLD" "$p" "$2" "$3" "$T/$name.old"
        same "$T/$name.new" "$T/$name.old" || verdict="$verdict DIFF-old"
    fi
    pn=$(jq .queue.passes "$T/$name.new.json")
    pt=$(jq .queue.passes "$T/$name.tick.json")
    runs=$((runs + 1))
    [ "$verdict" = same ] || bad=$((bad + 1))
    printf '%-28s passes %8s (tick %8s) %s\n' "$name" "$pn" "$pt" "$verdict"
}

# The grid ----------------------------------------------------------------
#   name            rate wait intv bf           preempt    quota mjt minpass [lat]
pol a1-none        1    30m  5m   none         none       no    0   0
pol a2-easy        1    30m  5m   easy         none       no    0   0
pol a3-cons        1    30m  5m   conservative none       no    0   0
pol a4-fast        50   0    1m   none         none       no    0   0
pol a5-fast-easy   50   0    1m   easy         none       no    100 0
pol a6-slow-cons   0.5  4h   17m  conservative none       no    100 0
pol a7-mjt3        5    10m  5m   none         none       no    3   0
pol a8-mjt3-easy   5    10m  5m   easy         none       no    3   0
pol a9-mjt2-cons   5    10m  3m   conservative none       no    2   0
pol b1-quota       2    30m  5m   none         none       yes   0   0
pol b2-quota-easy  2    30m  5m   easy         none       yes   100 0
pol b3-quota-cons  20   1h   7m   conservative none       yes   4   0
pol c1-minpass     1    30m  5m   none         none       no    0   2m
pol c2-minpass-bf  10   5m   1m   easy         none       no    0   3m
pol d1-ckpt        2    30m  5m   none         checkpoint no    0   0
pol d2-ckpt-easy   2    30m  5m   easy         checkpoint no    100 0
pol d3-immed-cons  10   10m  2m   conservative immediate  no    0   0
pol d4-immed-quota 1    0    5m   easy         immediate  yes   3   0
pol e1-tiny-rate   0.001 30m 5m   none         none       no    0   0
pol e2-huge-rate   100000 0  5m   easy         none       no    0   0
pol f1-lat         1    30m  5m   none         none       no    0   0   1e6s
pol f2-lat-easy    1    30m  5m   easy         none       no    0   0   1e6s
pol f3-lat-fast    7    0    1m   conservative none       no    3   0   2e5s

for n in a1-none a2-easy a3-cons a4-fast a5-fast-easy a6-slow-cons a7-mjt3 \
         a8-mjt3-easy a9-mjt2-cons b1-quota b2-quota-easy b3-quota-cons \
         c1-minpass c2-minpass-bf e1-tiny-rate e2-huge-rate; do
    check "$n" "$C" "$T/gen.csv"
done
for n in d1-ckpt d2-ckpt-easy d3-immed-cons d4-immed-quota a2-easy b3-quota-cons; do
    check "$n" "$C" "$T/infer.csv"
done
for n in f1-lat f2-lat-easy f3-lat-fast; do
    check "$n" tests/data/cli/one-node.yaml "$T/lat30.csv"
done
if [ $HAVE_AAIC -eq 1 ]; then
    for n in a1-none a2-easy a3-cons a6-slow-cons a8-mjt3-easy b2-quota-easy d2-ckpt-easy; do
        check "$n" "$T/c12.yaml" "$T/aaic.csv"
    done
fi
# fuzz: random policy, random contended trace (one 8-GPU node or the seed
# cluster); every other one also with estimates from history or the oracle,
# a runtime cap (kill or preempt past it) and random node failures
i=${FUZZ_FROM:-0}
while [ $i -lt "$FUZZ" ]; do
    # shellcheck disable=SC2046 # the fields are split on purpose
    set -- $(awk -v s=$i 'BEGIN { srand(s + 1); r = rand()
        split("0.01 0.5 1 3 20 400", rate); split("0 1m 30m 2h", wait)
        split("1m 5m 13m", iv); split("none easy conservative", bf)
        split("none none checkpoint immediate", pm); split("no yes", qu)
        split("0 0 1 2 5", mj); split("0 0 0 0 0 0 0 1m", mp)
        split("user from_history oracle", est); split("none estimate_x1.5 2h", cap)
        split("kill preempt", oc)
        printf "%s %s %s %s %s %s %s %s %d %d %s %s %s\n", rate[int(rand() * 6) + 1],
            wait[int(rand() * 4) + 1], iv[int(rand() * 3) + 1], bf[int(rand() * 3) + 1],
            pm[int(rand() * 4) + 1], qu[int(rand() * 2) + 1], mj[int(rand() * 5) + 1],
            mp[int(rand() * 8) + 1], int(rand() * 1000), int(rand() * 2),
            est[int(rand() * 3) + 1], cap[int(rand() * 3) + 1], oc[int(rand() * 2) + 1] }')
    QEXTRA=""
    NODE_EVENTS=""
    if [ $((i % 2)) -eq 1 ]; then
        QEXTRA="  duration_estimate: ${11}\n  runtime_cap: ${12}\n"
    fi
    pol "z$i" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8"
    if [ $((i % 2)) -eq 1 ] && [ "$5" != none ]; then
        printf '  over_cap: %s\n' "${13}" >> "$T/z$i.yaml"
    fi
    if [ "${10}" -eq 1 ]; then fc=tests/data/cli/one-node.yaml; else fc=$C; fi
    ev=""
    [ $((i % 2)) -eq 1 ] && ev="--mtbf 20h --repair 2h --node-events-out $T/z$i.ev"
    # shellcheck disable=SC2086
    "$NEW" gen --jobs 120 --seed "$9" --cluster "$fc" --load 2 --infer-share 0.2 \
        --out "$T/z.raw" $ev 2>/dev/null
    [ -n "$ev" ] && NODE_EVENTS="--node-events $T/z$i.ev"
    awk -F, -v s="$9" 'BEGIN{OFS=","} NR==1{print;next} $9=="train"{$8=(NR*s)%6-1} {print}' \
        "$T/z.raw" > "$T/z$i.csv"
    check "z$i" "$fc" "$T/z$i.csv"
    i=$((i + 1))
done
NODE_EVENTS=""
echo "$runs runs, $bad differ ($slow more over $CAP s, not compared)"
[ $bad -eq 0 ]

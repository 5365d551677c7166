#!/bin/sh
# exact-equiv.sh - a bounded pass and its continuations decide what one
# unbounded pass decides (docs/policy.md, "Bounded passes and their
# continuation"), bit for bit, over a grid of random policies and traces.
#
# usage: scripts/exact-equiv.sh [--runs N] [--from K] [REF_GPUSCHED]
#
# Every run of the grid is simulated with $GPUSCHED (default bin/gpusched)
# under the policy with queue.max_job_test unset (the default), 0, 1 and
# 3, and compared with the same policy under max_job_test 0 (the exhaustive
# pass) run by REF_GPUSCHED (default: the same binary; give a build of
# main to compare with the exhaustive pass before these changes).
# Compared: jobs.csv byte for byte and the --json summary less `queue`
# (passes and skipped count the segments; stopped, tried the work).  The
# start-time promises made at submit (jobs.csv's est_* columns and the
# summary's `eta`) read the pass state at the submit; a bound of 1 or 3
# leaves the pass held at other points than the default's 100, so for
# those two they are left out of the comparison (every decision and wait
# reason is still compared); unset and 0 are compared whole.  Random policies: priority or
# fifo, aging, backfill none / easy / conservative, quotas (strict or
# borrow), preemption (checkpoint or immediate, priority_gap 1-5), estimates
# (user, history, oracle), runtime caps with over_cap kill or preempt, node
# failures, on contended 120-job traces (one 8-GPU node or the seed
# cluster); min_pass_interval stays 0 (with it, a continuation comes later
# than its pass and is not exact by design).  A run over CAP seconds
# (default 60) is reported and not compared.  Prints one line per run and
# "N runs, M differ"; exits 1 if any differs.
set -eu
RUNS=40
FROM=0
while [ $# -gt 0 ]; do
    case $1 in
    --runs) RUNS=$2; shift 2 ;;
    --from) FROM=$2; shift 2 ;;
    *) break ;;
    esac
done
NEW=${GPUSCHED:-bin/gpusched}
REF=${1:-$NEW}
CAP=${CAP:-60}
T=$(mktemp -d "${TMPDIR:-/tmp}/exact-equiv.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
C=examples/seed-cluster.yaml
runs=0
bad=0
slow=0

# policy I MJT: the random policy of run I with max_job_test MJT ("" = unset)
policy() {
    # shellcheck disable=SC2046 # the fields are split on purpose
    set -- $(awk -v s="$1" 'BEGIN { srand(s + 7); r = rand()
        split("priority priority fifo", qp); split("0 0.5 3 400", rate)
        split("none easy conservative", bf); split("none none checkpoint immediate", pm)
        split("no strict borrow", qu); split("user from_history oracle", est)
        split("none none estimate_x1.5 2h", cap); split("kill preempt", oc)
        printf "%s %s %s %s %s %s %s %s %d\n", qp[int(rand() * 3) + 1],
            rate[int(rand() * 4) + 1], bf[int(rand() * 3) + 1], pm[int(rand() * 4) + 1],
            qu[int(rand() * 3) + 1], est[int(rand() * 3) + 1], cap[int(rand() * 4) + 1],
            oc[int(rand() * 2) + 1], int(rand() * 5) + 1 }') "$2"
    echo "queue:"
    echo "  policy: $1"
    echo "  aging_rate: $2"
    echo "  max_wait_before_aging: 10m"
    echo "  pass_interval: 5m"
    echo "  backfill: $3"
    [ "$3" = conservative ] && echo "  reservations: 3"
    echo "  duration_estimate: $6"
    echo "  runtime_cap: $7"
    [ -n "${10}" ] && echo "  max_job_test: ${10}"
    if [ "$5" != no ]; then
        echo "  quota: { team-a: 12, team-b: 10, team-c: 8 }"
        echo "  quota_mode: $5"
    fi
    if [ "$4" != none ]; then
        echo "preemption:"
        echo "  mode: $4"
        echo "  priority_gap: $9"
        echo "  grace: 2m"
        echo "  min_runtime: 10m"
        [ "$7" != none ] && echo "  over_cap: $8"
    fi
    return 0
}

# sim BIN POLICY CLUSTER TRACE OUT [EVENTS]
sim() {
    rm -f "$5.timeout"
    ev=""
    [ -n "${6:-}" ] && ev="--node-events $6"
    # shellcheck disable=SC2086
    timeout "$CAP" "$1" sim --cluster "$3" --trace "$4" --policy "$2" --json --out "$5" \
        $ev > "$5.json" 2>/dev/null || { touch "$5.timeout"; return 0; }
    jq -S 'del(.queue)' "$5.json" > "$5.cmp.json"
    jq -S 'del(.queue, .eta)' "$5.json" > "$5.cmp-eta.json"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^est_/ }
        { o = ""; for (i = 1; i <= NF; i++) if (keep[i]) o = o (o == "" ? "" : ",") $i; print o }' \
        "$5/jobs.csv" > "$5.jobs-eta.csv" 2>/dev/null || true
}

# same REF RUN MJT: whether run RUN matches the reference (less the
# promises for a bound of 1 or 3, see the header)
same() {
    case $3 in
    1 | 3) cmp -s "$1.jobs-eta.csv" "$2.jobs-eta.csv" && cmp -s "$1.cmp-eta.json" "$2.cmp-eta.json" ;;
    *) cmp -s "$1/jobs.csv" "$2/jobs.csv" && cmp -s "$1.cmp.json" "$2.cmp.json" ;;
    esac
}

i=$FROM
while [ "$i" -lt $((FROM + RUNS)) ]; do
    if [ $((i % 3)) -eq 0 ]; then fc=tests/data/cli/one-node.yaml; else fc=$C; fi
    evopt=""
    evf=""
    if [ $((i % 2)) -eq 1 ]; then evopt="--mtbf 20h --repair 2h --node-events-out $T/z$i.ev"; evf=$T/z$i.ev; fi
    # shellcheck disable=SC2086
    "$NEW" gen --jobs 120 --seed "$((i * 7 + 3))" --cluster "$fc" --load 2 --infer-share 0.2 \
        --out "$T/z.raw" $evopt 2>/dev/null
    awk -F, -v s="$i" 'BEGIN{OFS=","} NR==1{print;next} $9=="train"{$8=(NR*(s+1))%6-1} {print}' \
        "$T/z.raw" > "$T/z$i.csv"
    policy "$i" 0 > "$T/z$i.ref.yaml"
    sim "$REF" "$T/z$i.ref.yaml" "$fc" "$T/z$i.csv" "$T/z$i.ref" "$evf"
    verdict=same
    for m in default 0 1 3; do
        mj=$m
        [ $m = default ] && mj=""
        policy "$i" "$mj" > "$T/z$i.$m.yaml"
        sim "$NEW" "$T/z$i.$m.yaml" "$fc" "$T/z$i.csv" "$T/z$i.$m" "$evf"
        if [ -e "$T/z$i.ref.timeout" ] || [ -e "$T/z$i.$m.timeout" ]; then
            verdict="over $CAP s (not compared)"
            break
        fi
        if ! same "$T/z$i.ref" "$T/z$i.$m" "$m"; then
            verdict="$verdict DIFF-mjt-$m"
        fi
    done
    case $verdict in
    over*) slow=$((slow + 1)) ;;
    same) runs=$((runs + 1)) ;;
    *) runs=$((runs + 1)); bad=$((bad + 1)); verdict=${verdict#same } ;;
    esac
    printf 'z%-4s %-46s %s\n' "$i" "$(grep -E '^  (policy|backfill|mode|quota_mode):' "$T/z$i.ref.yaml" |
        awk '{printf "%s ", $2}')" "$verdict"
    i=$((i + 1))
done
echo "$runs runs, $bad differ ($slow more over $CAP s, not compared)"
[ $bad -eq 0 ]

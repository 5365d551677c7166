#!/bin/sh
# gpusched fill (FGD's fill experiment) and gpusched import --format openb.
# The small fixtures are in tests/data/fill; the openb part reads the real
# trace from ../shared/traces/openb at run time and is skipped without it.
. "$(dirname "$0")/tap.sh"
plan 29
F=$ROOT/tests/data/fill
OB=$ROOT/../shared/traces/openb

skip() { # skip N REASON
    i=0
    while [ "$i" -lt "$1" ]; do
        _n=$((_n + 1)); i=$((i + 1))
        echo "ok $_n # skip $2"
    done
}
at() { # at JSON ARRIVED FIELD: a field of the curve point at ARRIVED %
    printf '%s' "$1" | jq -r --argjson a "$2" ".curve[] | select(.arrived == \$a) | .$3"
}

# --- usage -------------------------------------------------------------------
run "$GPUSCHED" fill --help
ok $rc "fill --help exits 0"
like "$out" "unallocated GPU %" "help says what is reported"
run "$GPUSCHED" fill --cluster "$F/cluster.yaml"
is "$rc" 2 "missing --trace: usage error 2"
run "$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --strategy tetris
is "$rc" 2 "unknown strategy: usage error 2"
run "$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --seeds 9-3
is "$rc" 2 "backwards seed range: usage error 2"
run "$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/nope.csv"
is "$rc" 1 "missing trace file: runtime error 1"

# --- four 1-GPU jobs on 2 x 2 GPUs, inflate 1.5 (test_fill.c derives it) ----
out=$("$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --strategy pack \
      --inflate 1.5 --seeds 42-44 --json)
ok $? "fill --json runs"
is "$(printf '%s' "$out" | jq -c '[.policy, .jobs, .placed, .failed, .k, .typical_shapes]')" \
   '["pack",18,12,6,2,1]' "6 jobs per seed (4 + 2 copies), 4 placed, 2 failed; k = 2"
is "$(printf '%s' "$out" | jq -c '.curve[0] | keys')" \
   '["arrived","frag_amount","frag_ratio","schedulability","unallocated"]' "curve point keys"
is "$(at "$out" 25 unallocated)/$(at "$out" 50 unallocated)/$(at "$out" 100 unallocated)" \
   "75/50/0" "unallocated 75, 50, 0 % at 25, 50, 100 % arrived"
is "$(at "$out" 50 schedulability)/$(at "$out" 75 schedulability)" "1/0" \
   "pack keeps n2 whole at 50 %; S_2 = 0 at 75 %"
is "$(printf '%s' "$out" | jq '[.curve[].frag_amount] | max')" 0 \
   "one 1-GPU shape: nothing is fragmented"
out=$("$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --strategy spread \
      --inflate 1.5 --seeds 42-44 --json)
is "$(at "$out" 50 schedulability)" 0 "spread breaks both nodes by 50 %"
run "$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --strategy pack \
    --inflate 1.5 --seeds 42
like "$out" "100%        0.00%" "text table row for 100 %"

# --- FGD's protocol options ---------------------------------------------------
run "$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --ties name
is "$rc" 2 "--ties: an unknown order is a usage error"
run "$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --frag-score steps
is "$rc" 2 "--frag-score: an unknown shape is a usage error"
out=$("$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/ones.csv" --inflate 1.5 \
      --seeds 42 --json)
is "$(printf '%s' "$out" | jq -c '[.ties, .typical]')" '["random","original"]' \
   "default protocol: random tie order, typical shapes of the original trace"
a=$("$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/mixed.csv" --seeds 3 --json)
b=$("$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/mixed.csv" --seeds 3 --json)
is "$a" "$b" "the same seed gives the same curve (random tie order is per seed)"
out=$("$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/mixed.csv" --seeds 3 \
      --ties file --typical inflated --frag-score sigmoid --json)
is "$(printf '%s' "$out" | jq -c '[.ties, .typical, .placed + .failed == .jobs]')" \
   '["file","inflated",true]' "file order, inflated typical set and sigmoid score run"

# --- CPU-only, shared and 2-GPU jobs under every policy ---------------------
bad=0
for s in pack spread topo frag first_fit random dotprod clustering packing bestfit fgd; do
    o=$("$GPUSCHED" fill --cluster "$F/cluster.yaml" --trace "$F/mixed.csv" --strategy $s \
        --seeds 1-3 --json) || bad=1
    [ "$(printf '%s' "$o" | jq '.placed + .failed == .jobs')" = true ] || bad=1
done
ok $bad "all eleven policies run and account for every job"

# --- openb: import and the FGD experiment on the real trace ------------------
if [ -r "$OB/openb_pod_list_default.csv" ]; then
    run "$GPUSCHED" import --format openb --nodes "$OB/openb_node_list_gpu_node.csv" \
        --pods "$OB/openb_pod_list_default.csv" --cluster-out "$TMP/ob.yaml" \
        --trace-out "$TMP/ob.csv"
    ok $rc "import --format openb"
    like "$out" "nodes: 1213 (1213 with GPUs, 6212 GPUs)" "1,213 nodes, 6,212 GPUs (README)"
    like "$out" "pods: 8152 (1088 CPU-only, 3078 GPU-sharing" "8,152 pods, 1,088 CPU-only, 3,078 sharing"
    like "$out" "model G2: 4392 GPUs, GPU memory assumed" "G2's memory is reported as assumed"
    is "$(head -n 1 "$TMP/ob.csv")" "id,submit,duration,gpus,gpu_share,queue,cpu,host_mem_gb" \
       "trace columns"
    is "$(grep -c '^openb-pod' "$TMP/ob.csv")" 8152 "one job per pod"
    out=$("$GPUSCHED" import --format openb --nodes "$OB/openb_node_list_gpu_node.csv" \
          --pods "$OB/openb_pod_list_multigpu50.csv" --json 2>/dev/null)
    is "$(printf '%s' "$out" | jq '.defaulted_or_dropped.no_times')" 9061 \
       "multigpu50 has no times: all 9,061 pods defaulted"
    out=$("$GPUSCHED" fill --cluster "$TMP/ob.yaml" --trace "$TMP/ob.csv" --strategy bestfit \
          --seeds 42 --json)
    u=$(at "$out" 130 unallocated)
    ok "$(echo "$u" | awk '{ print ($1 > 5.5 && $1 < 8.5) ? 0 : 1 }')" \
       "bestfit leaves 5.5-8.5 % unallocated at 130 % (paper: 6.89), got $u"
    run "$GPUSCHED" import --format openb --nodes "$OB/openb_node_list_gpu_node.csv"
    is "$rc" 2 "--pods missing: usage error 2"
else
    skip 9 "no ../shared/traces/openb"
fi

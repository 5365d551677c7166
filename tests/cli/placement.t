#!/bin/sh
# Placement strategies, MIG, sharing and slow-downs through `gpusched sim`
# and `gpusched frag` (issue 4).  Fixtures: tests/data/fill.
. "$(dirname "$0")/tap.sh"
plan 12
F=$ROOT/tests/data/fill
C=$ROOT/examples/seed-cluster.yaml

pol() { # pol FILE YAML-LINES...: write a policy file
    f=$1; shift
    printf '%s\n' "$@" > "$f"
}

# --- strategies are accepted by the engine -----------------------------------
for s in topo frag; do
    pol "$TMP/$s.yaml" "placement:" "  strategy: $s"
    out=$("$GPUSCHED" sim --cluster "$C" --trace "$F/share.csv" --policy "$TMP/$s.yaml" --json)
    is "$(printf '%s' "$out" | jq -r '.policy.placement + " " + (.completed | tostring)')" \
       "$s 2" "sim runs placement.strategy $s"
done

# --- sharing and interference: two 0.5 jobs, 100 s, one GPU free ------------
pol "$TMP/one.yaml" "cluster:" "  nodes:" "    - { name: g, gpus: 1 }"
out=$("$GPUSCHED" sim --cluster "$TMP/one.yaml" --trace "$F/share.csv" --json)
is "$(printf '%s' "$out" | jq '.jct.max')" 117.648 \
   "co-runners slow each other to 0.85: 100 s of work takes 117.648 s"
is "$(printf '%s' "$out" | jq '.util_effective | . * 1000 | round')" 850 \
   "util_effective = 0.85 (util_alloc 1.0)"
like "$(printf '%s' "$out" | jq -r '.util_effective_note')" "slow-downs from split placement" \
   "the note says slow-downs are modelled"
pol "$TMP/excl.yaml" "placement:" "  sharing: exclusive"
out=$("$GPUSCHED" sim --cluster "$TMP/one.yaml" --trace "$F/share.csv" --policy "$TMP/excl.yaml" --json)
is "$(printf '%s' "$out" | jq '.jct.max')" 200 "exclusive: the second job waits for the GPU"
pol "$TMP/slow.yaml" "placement:" "  slowdown: { corunner: 0.5 }"
out=$("$GPUSCHED" sim --cluster "$TMP/one.yaml" --trace "$F/share.csv" --policy "$TMP/slow.yaml" --json)
is "$(printf '%s' "$out" | jq '.jct.max')" 200 "placement.slowdown.corunner 0.5: 200 s"
pol "$TMP/bad.yaml" "placement:" "  slowdown: { pcie: 2 }"
run "$GPUSCHED" sim --cluster "$TMP/one.yaml" --trace "$F/share.csv" --policy "$TMP/bad.yaml"
is "$rc" 1 "slowdown factor above 1 is rejected"

# --- MIG -----------------------------------------------------------------------
out=$("$GPUSCHED" sim --cluster "$F/mig.yaml" --trace "$F/mig.csv" --json)
is "$(printf '%s' "$out" | jq -c '[.completed, .rejected]')" "[3,1]" \
   "fixed layout: 7g.40gb is rejected, the rest run"
pol "$TMP/idle.yaml" "mig:" "  reconfigure: when_idle" "  drain_cost: 60s"
"$GPUSCHED" sim --cluster "$F/mig.yaml" --trace "$F/mig.csv" --policy "$TMP/idle.yaml" \
    --out "$TMP/mig" > /dev/null
is "$(grep '^huge,' "$TMP/mig/jobs.csv" | cut -d, -f3,4,8)" "100,260,done" \
   "when_idle: 7g.40gb repartitions GPU 0 at 100 s, drains 60 s, ends 260"
run "$GPUSCHED" sim --cluster "$F/mig.yaml" --trace "$F/mig.csv" --policy "$TMP/idle.yaml"
like "$out" "MIG fragmentation" "text summary reports MIG fragmentation"

# --- frag: memory fragmentation of a snapshot ----------------------------------
cat > "$TMP/snap.json" <<'JSON'
{ "busy": { "node-1": [{ "gpu": 0, "share": 0.75, "mem_gb": 70 }] },
  "queue": [ { "id": "q", "gpus": 1, "gpu_share": 0.5, "gpu_mem_gb": 20 } ] }
JSON
out=$("$GPUSCHED" frag --cluster "$C" --state "$TMP/snap.json" --json)
is "$(printf '%s' "$out" | jq '.fragmentation.memory')" 0.125 \
   "10 of 80 GB free on a GPU the queued 0.5-share job cannot use: 0.125 GPUs"

#!/bin/sh
# gpusched frag: the seed's snapshot (free 2, 3, 8, 7 on four 8-GPU nodes).
. "$(dirname "$0")/tap.sh"
plan 14
C=$ROOT/examples/seed-cluster.yaml
S=$ROOT/examples/seed-snapshot.json

run "$GPUSCHED" frag --cluster "$C" --state "$S"
ok $rc "frag exits 0"
like "$out" "free GPUs: 20 of 32" "text: 20 of 32 GPUs free (2+3+8+7)"
like "$out" "S_8 = 1" "text: schedulability S_8 = 1"
like "$out" "node-3" "text names node-3 as the node that can take an 8-GPU job"

run "$GPUSCHED" frag --cluster "$C" --state "$S" --json
is "$(printf '%s' "$out" | jq '.free_gpus')" 20 "json free_gpus 20"
is "$(printf '%s' "$out" | jq '.schedulability.value')" 1 "json schedulability 1"
is "$(printf '%s' "$out" | jq -c '.schedulability.units')" '["node-3"]' "json units [node-3]"
# every free GPU outside node-3 is on a node with < 8 free: 2 + 3 + 7 = 12
is "$(printf '%s' "$out" | jq '.fragmentation.count')" 12 "count fragmentation 12 = 2+3+7"

# node-3 split 4+4: its 8 free GPUs no longer form one 8-GPU domain
run "$GPUSCHED" frag --cluster "$DATA/split-node3.yaml" --state "$S" --json
is "$(printf '%s' "$out" | jq '.schedulability.value')" 0 "[4,4] node-3: S_8 = 0"
is "$(printf '%s' "$out" | jq '.fragmentation.topology')" 8 "[4,4] node-3: 8 GPUs of topology fragmentation"

run "$GPUSCHED" frag --cluster "$C" --state "$DATA/bad-node.json"
is "$rc" 1 "unknown node in snapshot: exit 1"
like "$out" "bad-node.json" "error names the snapshot file"
run "$GPUSCHED" frag --cluster "$C"
is "$rc" 2 "missing --state: usage error 2"
run "$GPUSCHED" frag --help
ok $rc "--help exits 0"

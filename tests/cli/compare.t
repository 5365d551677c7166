#!/bin/sh
# gpusched compare: several policies, one trace, one table.
. "$(dirname "$0")/tap.sh"
plan 6
C=$ROOT/examples/seed-cluster.yaml
"$GPUSCHED" gen --jobs 300 --seed 3 --cluster "$C" --out "$TMP/t.csv"
run "$GPUSCHED" compare --cluster "$C" --trace "$TMP/t.csv" \
    --policy "$ROOT/examples/demo-spread.yaml" --policy "$ROOT/examples/demo-pack.yaml"
ok $rc "compare exits 0"
like "$out" "demo-spread" "table has the spread row"
like "$out" "demo-pack" "table has the pack row"
run "$GPUSCHED" compare --cluster "$C" --trace "$TMP/t.csv" \
    --policy "$ROOT/examples/demo-spread.yaml" --policy "$ROOT/examples/demo-pack.yaml" --json
is "$(printf '%s' "$out" | jq '.policies | length')" 2 "json has two policies"
# same trace => same jobs and the same total GPU work, whatever the placement
is "$(printf '%s' "$out" | jq '[.policies[].jobs] | unique | length')" 1 "both runs saw the same jobs"
run "$GPUSCHED" compare --cluster "$C" --trace "$TMP/t.csv"
is "$rc" 2 "no --policy: usage error"

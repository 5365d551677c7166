#!/bin/sh
# `make demo`: the seed's story on a built-in example.
#  1. The seed's fragmentation snapshot: 4 nodes x 8 GPUs with 2, 3, 8, 7 free.
#  2. A generated workload on that cluster (many 1-2 GPU jobs, some 8-GPU
#     training jobs, offered load 0.7), simulated with `spread` and with
#     `pack` placement under the same queue, side by side.
set -e
cd "$(dirname "$0")/.."
G=bin/gpusched
OUT=build/demo
mkdir -p "$OUT"

echo "== 1. The seed's snapshot: which node can take an 8-GPU job?"
echo "\$ gpusched frag --cluster examples/seed-cluster.yaml --state examples/seed-snapshot.json"
$G frag --cluster examples/seed-cluster.yaml --state examples/seed-snapshot.json
echo

echo "== 2. Spread vs pack on a generated workload (4 x 8 GPUs, 4000 jobs)"
echo "\$ gpusched gen --jobs 4000 --seed 42 --load 0.7 --mix 1:60:30m,2:30:45m,8:10:3h \\"
echo "      --cluster examples/seed-cluster.yaml --out $OUT/trace.csv"
$G gen --jobs 4000 --seed 42 --load 0.7 --mix 1:60:30m,2:30:45m,8:10:3h \
    --cluster examples/seed-cluster.yaml --out "$OUT/trace.csv"
echo "\$ gpusched compare --cluster examples/seed-cluster.yaml --trace $OUT/trace.csv \\"
echo "      --policy examples/demo-spread.yaml --policy examples/demo-pack.yaml"
$G compare --cluster examples/seed-cluster.yaml --trace "$OUT/trace.csv" \
    --policy examples/demo-spread.yaml --policy examples/demo-pack.yaml
$G compare --cluster examples/seed-cluster.yaml --trace "$OUT/trace.csv" \
    --policy examples/demo-spread.yaml --policy examples/demo-pack.yaml --json >"$OUT/compare.json"
echo
jq -r '.policies[] | "\(.name): util_alloc \(.util_alloc*1000|round/10)%, S_8 mean \(.schedulability.mean*100|round/100), S_8>=1 \(.schedulability.share_ge1*1000|round/10)% of the time, 8-GPU wait p50/p90/p99 \(.wait_by_size["5-8"].p50|round)/\(.wait_by_size["5-8"].p90|round)/\(.wait_by_size["5-8"].p99|round) s"' \
    "$OUT/compare.json"
echo
echo "Same jobs, same queue, same allocation: packing keeps whole nodes free"
echo "(higher S_8), so 8-GPU jobs start sooner.  Full outputs: $OUT/"

#!/bin/sh
# gpusched gen: seeded, reproducible workloads.
. "$(dirname "$0")/tap.sh"
plan 8
C=$ROOT/examples/seed-cluster.yaml
"$GPUSCHED" gen --jobs 200 --seed 5 --cluster "$C" --out "$TMP/a.csv"
ok $? "gen writes a file"
"$GPUSCHED" gen --jobs 200 --seed 5 --cluster "$C" >"$TMP/b.csv"
ok $(cmp -s "$TMP/a.csv" "$TMP/b.csv"; echo $?) "same seed: identical trace (file and stdout)"
"$GPUSCHED" gen --jobs 200 --seed 6 --cluster "$C" --out "$TMP/c.csv"
ok $(cmp -s "$TMP/a.csv" "$TMP/c.csv" && echo 1 || echo 0) "different seed: different trace"
is "$(wc -l <"$TMP/a.csv" | tr -d ' ')" 201 "200 jobs + header"
is "$(awk -F, 'NR>1 && $4!=1 && $4!=2 && $4!=4 && $4!=8' "$TMP/a.csv" | wc -l | tr -d ' ')" 0 "sizes come from the default mix 1/2/4/8"
"$GPUSCHED" gen --jobs 50 --seed 1 --cluster "$C" --mix 8:1 --out "$TMP/d.csv"
is "$(awk -F, 'NR>1 && $4!=8' "$TMP/d.csv" | wc -l | tr -d ' ')" 0 "--mix 8:1 gives only 8-GPU jobs"
run "$GPUSCHED" gen --jobs 10 --seed 1 --cluster "$C" --load 0
is "$rc" 2 "--load 0 is rejected"
like "$out" "load" "error names --load"

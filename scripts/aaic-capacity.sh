#!/bin/sh
# aaic-capacity.sh - docs/aaic-replay.md section 3.7: infer each AAIC
# quarter's capacity from its log (import --node-events-out), replay it on
# 50 nodes with those node events and on a constant 40 nodes (both with
# the 5 s lognormal start latency), and print p90 / p99 of the wait per
# quarter and per queue beside the observed ones.  Extra arguments go to
# the importer (e.g. --cap-window 86400).
#   T=/tmp/aaic G=bin/gpusched scripts/aaic-capacity.sh
set -eu
T=${T:-/tmp/aaic}
G=${G:-bin/gpusched}
A=${A:-../shared/traces/aaic}
P=examples/aaic-fcfs-easy-latency.yaml
mkdir -p "$T"
for q in 2017Q3 2017Q4 2018Q1 2018Q2 2018Q3; do
    "$G" import --format aaic --in "$A/aaicwl-$q.csv.gz" --trace-out "$T/$q.csv" --nodes 50 \
        --cluster-out "$T/c50.yaml" --node-events-out "$T/$q-cap.csv" "$@" 2>&1 |
        sed -n "s/^capacity/$q capacity/p"
    "$G" import --format aaic --in "$A/aaicwl-$q.csv.gz" --nodes 40 --cluster-out "$T/c40.yaml" \
        2>/dev/null
    "$G" sim --cluster "$T/c50.yaml" --trace "$T/$q.csv" --policy $P \
        --node-events "$T/$q-cap.csv" --out "$T/cap-$q" > /dev/null
    "$G" sim --cluster "$T/c40.yaml" --trace "$T/$q.csv" --policy $P --out "$T/c40-$q" > /dev/null
done
python3 - "$T" <<'PY'
import csv, sys
t = sys.argv[1]
def pct(v, q):  # numpy's linear rule
    v = sorted(v); n = len(v)
    if not n: return float("nan")
    p = q * (n - 1); i = int(p)
    return v[i] + (p - i) * (v[i + 1] - v[i]) if i + 1 < n else v[-1]
def cell(v): return "%s / %s" % (format(round(pct(v, .9)), ","), format(round(pct(v, .99)), ","))
print("| quarter | queue | jobs | 40 nodes p90 / p99 | inferred capacity p90 / p99 | observed p90 / p99 |")
print("|---|---|---|---|---|---|")
for q in ["2017Q3", "2017Q4", "2018Q1", "2018Q2", "2018Q3"]:
    tr = {r["id"]: r for r in csv.DictReader(open("%s/%s.csv" % (t, q)))}
    res = {k: {r["id"]: float(r["wait"]) for r in csv.DictReader(open("%s/%s-%s/jobs.csv" % (t, k, q)))}
           for k in ("c40", "cap")}
    for k in ["all", "0", "1", "2", "3"]:
        ids = [i for i, r in tr.items() if k == "all" or r["queue"] == k]
        print("| %s | %s | %d | %s | %s | %s |" % (q, k, len(ids), cell([res["c40"][i] for i in ids]),
              cell([res["cap"][i] for i in ids]), cell([float(tr[i]["observed_wait"]) for i in ids])))
PY

#!/bin/sh
# fill-openb-paired.sh - FGD's fill experiment on the shared openb pod
# files, one run per seed, so that two placements can be compared on the
# SAME sampled workloads (same seed: same inflated job list, same shuffle,
# same random tie order) - a paired comparison (docs/placement.md, "Paired
# against FGD").  Steps:
#   run    for every file of $FILES, every RUN of $RUNS (name=fill options,
#          % for spaces) and every seed of $SEEDS (A-B): gpusched fill
#          --seeds S --json into $T/<file>/<name>/<S>.json (skipped when it
#          exists, so the loop can be resumed or extended)
#   table  per file and run at $AT % arrived: the median over the seeds,
#          the paired difference to the run $REF (mean over the common
#          seeds, its standard error, the seeds where it is below / equal /
#          above), and the artifact's FGD median (its expected results)
#   same   per file, for the runs $SAME (two names): on how many common
#          seeds the two curves are identical (every point, every field)
# CPU heavy: run it under nice, one at a time on a shared machine.
#   T=/tmp/fill30 SEEDS=42-71 FILES="cpu050 gpushare40" \
#       RUNS="fgd=--strategy%fgd sig=--strategy%frag%--frag-score%sigmoid" \
#       nice -n 10 scripts/fill-openb-paired.sh run table
set -eu
T=${T:-/tmp/fill30}
G=${G:-build/release/bin/gpusched}
OB=${OB:-../shared/traces/openb}
SEEDS=${SEEDS:-42-71}
AT=${AT:-100}
REF=${REF:-fgd}
SAME=${SAME:-fgd sig0}
# shellcheck disable=SC2012
FILES=${FILES:-$(cd "$OB" && ls openb_pod_list_*.csv | sed 's/openb_pod_list_//; s/\.csv$//')}
RUNS=${RUNS:-"fgd=--strategy%fgd quantum=--strategy%frag sig=--strategy%frag%--frag-score%sigmoid"}
mkdir -p "$T"
run() {
    a=${SEEDS%-*}; b=${SEEDS#*-}
    for f in $FILES; do
        [ -s "$T/$f.csv" ] || "$G" import --format openb --nodes "$OB/openb_node_list_gpu_node.csv" \
            --pods "$OB/openb_pod_list_$f.csv" --cluster-out "$T/openb.yaml" \
            --trace-out "$T/$f.csv" 2>/dev/null
        for r in $RUNS; do
            name=${r%%=*}; opts=$(echo "${r#*=}" | tr '%' ' ')
            mkdir -p "$T/$f/$name"
            s0=$(date +%s); n=0
            for s in $(seq "$a" "$b"); do
                out="$T/$f/$name/$s.json"
                [ -s "$out" ] && continue
                # shellcheck disable=SC2086
                "$G" fill --cluster "$T/openb.yaml" --trace "$T/$f.csv" $opts --seeds "$s" \
                    --json > "$out.$$.tmp" && mv "$out.$$.tmp" "$out"
                n=$((n + 1))
            done
            echo "$f $name $n seeds $(( $(date +%s) - s0 )) s" >&2
        done
    done
}
table() {
    # shellcheck disable=SC2086
    python3 - "$T" "$OB/fgd_expected_results/analysis_allo_discrete.csv" "$AT" "$REF" $FILES <<'PY'
import csv, json, math, os, statistics, sys
t, exp_path, at, ref = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
files = sys.argv[5:]
exp = {}
for r in csv.DictReader(open(exp_path)):
    w = r["workload"].replace("openb_pod_list_", "")
    if r["sc_policy"] == "06-FGD":
        exp.setdefault(w, []).append(100 - float(r[str(at)]))
def load(w, n):
    d, out = os.path.join(t, w, n), {}
    if os.path.isdir(d):
        for f in os.listdir(d):
            if f.endswith(".json") and os.path.getsize(os.path.join(d, f)):
                c = [q for q in json.load(open(os.path.join(d, f)))["curve"] if q["arrived"] == at]
                if c:
                    out[int(f[:-5])] = c[0]["unallocated"]
    return out
print("unallocated GPU %% at %d %% arrived; diff = run - %s on the same seeds "
      "(mean +- s.e.; seeds below/equal/above)" % (at, ref))
print("| file | run | seeds | median | diff vs %s | below/eq/above | artifact FGD |" % ref)
print("|---|---|---|---|---|---|---|")
for w in files:
    names = sorted(os.listdir(os.path.join(t, w))) if os.path.isdir(os.path.join(t, w)) else []
    base = load(w, ref)
    a = exp.get(w)
    for n in names:
        v = load(w, n)
        if not v:
            continue
        common = sorted(set(v) & set(base))
        d = [v[s] - base[s] for s in common]
        diff = sign = ""
        if n != ref and len(d) >= 2:
            m, sd = statistics.mean(d), statistics.stdev(d)
            diff = "%+.3f +- %.3f" % (m, sd / math.sqrt(len(d)))
            sign = "%d/%d/%d" % (sum(x < -1e-9 for x in d), sum(abs(x) <= 1e-9 for x in d),
                                 sum(x > 1e-9 for x in d))
        print("| %s | %s | %d | %.2f | %s | %s | %s |" % (w, n, len(v), statistics.median(v.values()),
              diff, sign, "%.2f" % statistics.median(a) if a else "-"))
PY
}
same() {
    # shellcheck disable=SC2086
    set -- $SAME
    for f in $FILES; do
        eq=0; ne=0
        for p in "$T/$f/$1"/*.json; do
            q="$T/$f/$2/${p##*/}"
            if [ ! -s "$p" ] || [ ! -s "$q" ]; then continue; fi
            if [ "$(sed -n '/"jobs"/,$p' "$p")" = "$(sed -n '/"jobs"/,$p' "$q")" ]; then
                eq=$((eq + 1)); else ne=$((ne + 1)); fi
        done
        echo "$f: $1 and $2 identical on $eq seeds, different on $ne"
    done
}
for step in "$@"; do "$step"; done

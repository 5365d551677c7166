#!/bin/sh
# fill-openb-table.sh - FGD's fill experiment on every shared openb pod file
# (docs/placement.md, "The whole openb table").  Steps: `run` imports each
# file and runs `gpusched fill` for every RUN of $RUNS (name=fill options),
# $SEEDS seeds, into $T/<file>-<name>.json; `table` prints unallocated GPU %
# at $AT arrived (median of the seeds) beside the artifact's expected
# results (median of its 10 seeds).  Each run is skipped when its JSON
# exists, so the loop can be resumed.  CPU heavy: run it under nice.
#   T=/tmp/fill G=build/release/bin/gpusched scripts/fill-openb-table.sh run table
set -eu
T=${T:-/tmp/fill}
G=${G:-build/release/bin/gpusched}
OB=${OB:-../shared/traces/openb}
SEEDS=${SEEDS:-42-51}
AT=${AT:-100 130}
FILES=${FILES:-$(cd "$OB" && ls openb_pod_list_*.csv | sed 's/openb_pod_list_//; s/\.csv$//')}
RUNS=${RUNS:-"frag=--strategy%frag frag_sigmoid=--strategy%frag%--frag-score%sigmoid"}
mkdir -p "$T"
run() {
    for f in $FILES; do
        [ -s "$T/$f.csv" ] || "$G" import --format openb --nodes "$OB/openb_node_list_gpu_node.csv" \
            --pods "$OB/openb_pod_list_$f.csv" --cluster-out "$T/openb.yaml" \
            --trace-out "$T/$f.csv" 2>/dev/null
        for r in $RUNS; do
            name=${r%%=*}; opts=$(echo "${r#*=}" | tr '%' ' ')
            out="$T/$f-$name.json"
            [ -s "$out" ] && continue
            s0=$(date +%s)
            # shellcheck disable=SC2086
            "$G" fill --cluster "$T/openb.yaml" --trace "$T/$f.csv" $opts --seeds "$SEEDS" \
                --json > "$out.tmp" && mv "$out.tmp" "$out"
            echo "$f $name $(( $(date +%s) - s0 )) s" >&2
        done
    done
}
table() {
    python3 - "$T" "$OB/fgd_expected_results/analysis_allo_discrete.csv" "$AT" $FILES <<'PY'
import csv, json, os, statistics, sys
t, exp_path, at = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3].split()]
files = sys.argv[4:]
exp = {}
for r in csv.DictReader(open(exp_path)):
    w = r["workload"].replace("openb_pod_list_", "")
    for a in at:
        exp.setdefault((w, r["sc_policy"], a), []).append(100 - float(r[str(a)]))
names = sorted({f.split("-", 1)[1][:-5] for f in os.listdir(t) if f.endswith(".json") and "-" in f})
print("| file | arrived % | " + " | ".join(names) + " | artifact FGD | artifact best baseline |")
print("|---|---|" + "---|" * (len(names) + 2))
for w in files:
    for a in at:
        row = []
        for n in names:
            p = os.path.join(t, "%s-%s.json" % (w, n))
            v = ""
            if os.path.exists(p) and os.path.getsize(p):
                c = [q for q in json.load(open(p))["curve"] if q["arrived"] == a]
                v = "%.2f" % c[0]["unallocated"] if c else ""
            row.append(v)
        fgd = exp.get((w, "06-FGD", a))
        base = [(statistics.median(exp[(w, p, a)]), p[3:]) for p in
                ("01-Random", "02-DotProd", "03-GpuClustering", "04-GpuPacking", "05-BestFit")
                if (w, p, a) in exp]
        print("| %s | %d | %s | %s | %s |" % (w, a, " | ".join(row),
              "%.2f" % statistics.median(fgd) if fgd else "-",
              "%.2f (%s)" % min(base) if base else "-"))
PY
}
for step in "$@"; do "$step"; done

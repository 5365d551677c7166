#!/bin/sh
# slurm_vs_sim.t - the same workload, two schedulers, on a real private Slurm
# 22.05 (scripts/slurm-vs-gpusched.sh, small version): the 24 jobs of
# tests/data/slurm/vs-sim.csv (1, 2, 4, 8 and 16 GPUs on the seed's 4 x 8
# cluster) run (a) straight under Slurm's own scheduler (sbatch at their
# submit times) and (b) through `gpusched replay` into `gpuschedd --backend
# slurm --clock-scale 12` over the same Slurm; both read back from Slurm's
# accounting (slurmdbd + MariaDB).
#
# Asserted: every job ran exactly once under each scheduler (Slurm's own
# records); gpuschedd's jobs ran on the nodes and GPU indices `gpusched sim`
# chose, in sim's start order; the report's numbers follow from the records
# (recomputed here with awk, independently of the report's Python).
#
# Tolerance of the order check: a pair of jobs counts as inverted only when
# gpuschedd started the one sim started strictly later more than 2 s of wall
# time (24 engine s) earlier.  Jobs that one pass starts are launched one
# after another (sbatch, scontrol update, release: three Slurm calls each)
# and Slurm takes 0.06-0.54 s to start each, so their confirmed starts spread
# over up to about a second of wall time; sim starts them at one instant.  The
# trace is built (tests/data/slurm/vs-sim.py 1 30) so that sim's order and
# placement stay the same when every job runs up to 30 engine s (2.5 s wall)
# longer: what launching through Slurm and seeing the end at the next poll
# add to each job.
. "$(dirname "$0")/tap.sh"
if [ "${GS_VARIANT:-debug}" = san ]; then
    echo "1..0 # SKIP the Slurm-cluster tests run in the debug variant"; exit 0
fi
if [ ! -x /usr/sbin/slurmctld-wlm ] || [ ! -x /usr/sbin/slurmdbd ] ||
   ! command -v mariadbd >/dev/null || ! command -v sacct >/dev/null; then
    echo "1..0 # SKIP Slurm 22.05 with slurmdbd and mariadb-server not installed"; exit 0
fi
: "${GPUSCHEDD:=$(dirname "$GPUSCHED")/gpuschedd}"
plan 13
X=12
T=$ROOT/tests/data/slurm/vs-sim.csv
O=$TMP/out
N=$(awk 'NR > 1' "$T" | wc -l)

t0=$(date +%s)
GPUSCHED=$GPUSCHED GPUSCHEDD=$GPUSCHEDD "$ROOT/scripts/slurm-vs-gpusched.sh" --trace "$T" \
    --scale $X --out "$O" --unit s --timeout 300 >"$TMP/report" 2>"$TMP/err"
ok $? "slurm-vs-gpusched.sh runs both schedulers on Slurm ($(( $(date +%s) - t0 )) s)"
sed 's/^/# /' "$TMP/report"
sed 's/^/# /' "$TMP/err" | tail -5

# 1. exactly once, from Slurm's records (acct.txt: sacct -a -X -D -P)
A=$O/acct.txt
is "$(awk -F'|' '$2 ~ /^sl:/ && $3 == "COMPLETED" { n[$2]++ } END { for (k in n) if (n[k] == 1) c++; print c + 0 }' "$A")" "$N" \
    "run (a): each of the $N jobs has one Slurm record, COMPLETED"
is "$(awk -F'|' '$2 ~ /^sl:/' "$A" | wc -l)" "$N" "run (a): no other Slurm job"
is "$(awk -F'|' '$2 ~ /^gs:/ { split($2, a, ":"); if (a[3] == 1 && $3 == "COMPLETED") n[a[2]]++; else bad++ }
      END { for (k in n) if (n[k] == 1) c++; print c + 0, bad + 0 }' "$A")" "$N 0" \
    "run (b): each gpusched job is one Slurm job gs:SEQ:1, COMPLETED; no second attempt"

# 2. gpuschedd's schedule against sim's: nodes from Slurm, GPU indices and
# start times from gpuschedd (replay --out); sim's from jobs.csv
# nodes of a Slurm NodeList (node-[1-2], node-[1,3], node-4), sorted
awk_nodes='function expand(s,   p, r, n, i, k, ab, out, lst) {
    if (s !~ /\[/) return s
    p = substr(s, 1, index(s, "[") - 1); r = substr(s, index(s, "[") + 1); sub(/\].*/, "", r)
    n = split(r, lst, ","); out = ""
    for (i = 1; i <= n; i++) { split(lst[i], ab, "-"); if (ab[2] == "") ab[2] = ab[1]
        for (k = ab[1] + 0; k <= ab[2] + 0; k++) out = out (out == "" ? "" : " ") p k }
    return out }'
awk -F'|' "$awk_nodes"' $2 ~ /^gs:/ { split($2, a, ":"); print a[2], expand($8) }' "$A" | sort >"$TMP/b.nodes"
awk -F, 'NR > 1 { print $1, $2 }' "$O/b-map.csv" | sort >"$TMP/map"
join "$TMP/map" "$TMP/b.nodes" | awk '{ $1 = ""; sub(/^ /, ""); print }' | sort >"$TMP/b.id-nodes"
awk -F, 'NR > 1 { n = split($7, p, " "); delete u; s = ""
    for (i = 1; i <= n; i++) { split(p[i], q, ":"); if (!(q[1] in u)) { u[q[1]] = 1; s = s " " q[1] } }
    print $1 s }' "$O/sim/jobs.csv" | sort >"$TMP/s.id-nodes"
diff "$TMP/s.id-nodes" "$TMP/b.id-nodes" >"$TMP/nodes.diff"
ok $? "gpuschedd's jobs ran on the nodes sim chose (Slurm's NodeList, all $N jobs)"
sed 's/^/# nodes: /' "$TMP/nodes.diff" | head -5
is "$(awk -F, 'NR == FNR { if (FNR > 1) s[$1] = $7; next } FNR > 1 && s[$1] != $7' \
      "$O/sim/jobs.csv" "$O/b-live.csv" | wc -l)" 0 "and on the GPU indices sim chose"
# inverted pairs: sim started i strictly before j, gpuschedd started j more
# than 2 s wall (2 x X engine s) before i
awk -F, -v tol=$((2 * X)) 'NR == FNR { if (FNR > 1) s[$1] = $3; next }
    FNR > 1 { l[$1] = $3 }
    END { for (i in s) for (j in s) if (s[i] < s[j] && l[i] > l[j] + tol) { c++; print "# " i " after " j }
          print c + 0 }' "$O/sim/jobs.csv" "$O/b-live.csv" >"$TMP/inv"
is "$(tail -1 "$TMP/inv")" 0 "gpuschedd started the jobs in sim's order (2 s wall tolerance)"
head -5 "$TMP/inv" | grep '^#'
is "$(jq '.agreement.pairs_inverted_beyond_tol, (.agreement.nodes_differ | length)' "$O/report.json" | tr '\n' ' ')" \
    "0 0 " "the report says the same (no inversion beyond the tolerance, no node differs)"
# when the schedules differ, say why (for the next reader of a CI log): both
# schedules side by side (id, start, GPUs; sim then gpuschedd) and what the
# replay and gpuschedd logged
if [ -s "$TMP/nodes.diff" ] || [ "$(tail -1 "$TMP/inv")" != 0 ]; then
    awk -F, 'NR > 1 { print $1 "," $3 "," $7 }' "$O/sim/jobs.csv" | sort >"$TMP/s.rows"
    awk -F, 'NR > 1 { print $1 "," $3 "," $7 }' "$O/b-live.csv" | sort >"$TMP/b.rows"
    join -t, "$TMP/s.rows" "$TMP/b.rows" |
        sed 's/^/# id, sim start, sim GPUs, gpuschedd start, gpuschedd GPUs: /'
    tail -n 60 "$O/b-daemon.err" | sed 's/^/# gpuschedd: /'
    tail -n 10 "$O/b-replay.err" | sed 's/^/# replay: /'
fi

# 3. the table's numbers from the records, recomputed here: wait = Slurm's
# Start (whole seconds, + 0.5 midpoint) - the run's zero, x X, - the trace's
# submit, at least 0; p50/p90 by linear interpolation
waits() { # waits RUN(sl|gs) GPUS -> sorted waits, engine s
    if [ "$1" = sl ]; then t0=$(cat "$O/a.t0"); else t0=$(cat "$O/b.t0"); fi
    awk -F, 'NR > 1 { print $1, $2, $4 }' "$T" | sort >"$TMP/tr"
    awk -F'|' -v r="$1" '$2 ~ "^" r ":" { print $2, $5 }' "$A" |
        if [ "$1" = sl ]; then sed 's/^sl://'; else
            awk 'NR == FNR { id[$1] = $2; next } { split($1, a, ":"); print id[a[2]], $2 }' \
                FS=, "$O/b-map.csv" FS=' ' -; fi | sort |
        join "$TMP/tr" - |
        awk -v g="$2" -v t0="$t0" -v x=$X '$3 == g { w = ($4 + 0.5 - t0) * x - $2; print (w < 0 ? 0 : w) }' |
        sort -g
}
pq() { # pq Q < sorted values: numpy-linear percentile, rounded
    awk -v q="$1" '{ v[NR] = $1 } END { p = q * (NR - 1); lo = int(p); hi = (lo + 1 < NR) ? lo + 1 : lo
        printf "%.0f\n", v[lo + 1] + (v[hi + 1] - v[lo + 1]) * (p - lo) }'
}
row() { # the table row of GPUS: its numbers
    grep -E "^$1 +[0-9]+ " "$TMP/report" | head -1
}
waits sl 8 >"$TMP/w.sl8"
waits gs 16 >"$TMP/w.gs16"
is "$(row 8 | awk '{ print $2, $3, $4 }')" "$(wc -l <"$TMP/w.sl8" | tr -d ' ') $(pq .5 <"$TMP/w.sl8") $(pq .9 <"$TMP/w.sl8")" \
    "Slurm's 8-GPU jobs: count, p50, p90 in the table = recomputed from sacct"
is "$(row 16 | awk '{ print $2, $6, $7 }')" "$(wc -l <"$TMP/w.gs16" | tr -d ' ') $(pq .5 <"$TMP/w.gs16") $(pq .9 <"$TMP/w.gs16")" \
    "gpuschedd's 16-GPU jobs: count, p50, p90 in the table = recomputed from sacct"
# S_8 of the simulated schedule by the report's code = sim's own (C) metric
is "$(jq -r '.runs.sim.s_k.mean * 1e6 | round' "$O/report.json")" \
    "$(jq -r '.schedulability.mean * 1e6 | round' "$O/sim/summary.json")" \
    "S_8 mean of the sim schedule: the report's timeline = sim's summary.json"
# S_8 of run (a) at every engine minute, from sacct: 4 nodes minus those with
# any GPU in use just after the minute (the seed's nodes have 8 GPUs, one
# domain: S_8 = the idle nodes)
t0a=$(cat "$O/a.t0")
awk -F'|' -v t0="$t0a" -v x=$X "$awk_nodes"' $2 ~ /^sl:/ { print ($5 + 0.5 - t0) * x, ($6 + 0.5 - t0) * x, expand($8) }' \
    "$A" >"$TMP/a.iv"
awk -F, 'NR > 1 && $2 != "" { print $1, $2 }' "$O/s8.csv" |
    awk 'NR == FNR { st[NR] = $1; en[NR] = $2; nd[NR] = ""; for (i = 3; i <= NF; i++) nd[NR] = nd[NR] " " $i; n = NR; next }
         { t = $1 * 60; delete busy; for (k = 1; k <= n; k++) if (st[k] <= t && en[k] > t) {
               m = split(nd[k], q, " "); for (i = 1; i <= m; i++) busy[q[i]] = 1 }
           b = 0; for (z in busy) b++
           if (4 - b != $2) { bad++; if (bad < 4) print "# minute " $1 ": report " $2 ", recomputed " 4 - b }
           rows++ }
         END { print bad + 0, rows + 0 }' "$TMP/a.iv" - >"$TMP/s8chk"
grep '^#' "$TMP/s8chk"
is "$(tail -1 "$TMP/s8chk" | awk '{ print $1, ($2 >= 10) }')" "0 1" \
    "Slurm run's S_8 at every engine minute ($(tail -1 "$TMP/s8chk" | awk '{print $2}') of them) = recomputed from sacct"
# the workload makes jobs wait under both: the comparison is not vacuous
is "$(jq '[.runs.slurm.wait.all.p90, .runs.gpuschedd.wait.all.p90] | map(. > 60) | all' "$O/report.json")" \
    true "jobs queue (wait p90 > 60 engine s) under both schedulers"

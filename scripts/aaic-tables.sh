#!/bin/bash
# aaic-tables.sh - the loops behind the tables of docs/aaic-replay.md.
#
#   scripts/aaic-tables.sh [STEP ...]   steps: import validate perjob queues usage logfacts policies widejobs
#                                          (default: all of them, in that order)
#
# Run from anywhere; it works in the repository root.  Environment:
#   T   work folder for traces, cluster files and outputs (default /tmp/aaic)
#   G   the gpusched binary (default bin/gpusched; build it first with make -j2)
#   AAIC  folder of the AAIC logs (default ../shared/traces/aaic)
# Every step prints Markdown table rows (or tab-separated lines) on stdout.
# `validate` and `policies` also time each run (bash `time`: wall and user
# CPU seconds) into $T/times-*.tsv.  `perjob` and `queues` need the
# --out folders that `validate` writes; `policies` needs only `import`.
set -eu
cd "$(dirname "$0")/.."
T=${T:-/tmp/aaic}
G=${G:-bin/gpusched}
AAIC=${AAIC:-../shared/traces/aaic}
Q="2017Q3 2017Q4 2018Q1 2018Q2 2018Q3"
# The 20 policies of section 4, in table order.
POLICIES="fifo-user fifo-hist-p50 fifo-hist-p90 fifo-oracle
          prio-user prio-hist-p50 prio-hist-p90 prio-oracle
          prio-aging-user prio-aging-hist-p50 prio-aging-hist-p90 prio-aging-oracle
          easy-user easy-hist-p50 easy-hist-p90 easy-oracle
          conservative-user conservative-hist-p50 conservative-hist-p90 conservative-oracle"
mkdir -p "$T"
TIMEFORMAT='%R %U'

step_import() {
    echo "## Table 1: import summaries (and import time: wall, user s)"
    for q in $Q; do
        t=$( { time "$G" import --format aaic --in "$AAIC/aaicwl-$q.csv.gz" \
                   --trace-out "$T/$q.csv" --json > "$T/$q.import.json" 2> /dev/null; } 2>&1 )
        echo "$q import $t"
        jq -r --arg q "$q" '"| \($q) | \(.rows) | \(.duplicates) | \(.jobs) | \(.multi_node) (\(.multi_node_partial)) | \(.walltime_mismatch) | \(.observed_wait.p50|round) / \(.observed_wait.p90|round) / \(.observed_wait.p99|round) | \(.observed_wait.mean|round) | \(.gpu_hours|round) | \(.days*10|round/10) | \(.load*100|round/100) | \(.req_ratio_p50*10|round/10) | dropped \(.dropped|add) over_limit \(.over_limit) |"' \
            "$T/$q.import.json"
    done
    for n in $(seq 28 2 50); do     # cluster files: n nodes x 8 GPUs
        "$G" import --format aaic --in "$AAIC/aaicwl-2017Q3.csv.gz" \
            --cluster-out "$T/c$n.yaml" --nodes "$n" 2> /dev/null
    done
}

# FIFO + EASY on walltime_req, 32-50 nodes; --out for 32, 36 and 40 nodes.
step_validate() {
    : > "$T/times-validate.tsv"
    for q in $Q; do for n in $(seq 32 2 50); do
        out=""
        case $n in 32|36|40) out="--out $T/out-$q-$n" ;; esac
        t=$( { time "$G" sim --cluster "$T/c$n.yaml" --trace "$T/$q.csv" \
                   --policy examples/aaic-fcfs-easy.yaml $out --json > "$T/val-$q-$n.json" 2> /dev/null; } 2>&1 )
        printf '%s\t%s\t%s\n' "$q" "$n" "$t" >> "$T/times-validate.tsv"
    done; done
    echo "## Table 2: replayed wait p50 / p90 / p99, mean, util_alloc, rejected, backfilled, completed, wall s, user s"
    for q in $Q; do for n in 32 36 40; do
        t=$(awk -v q="$q" -v n="$n" '$1 == q && $2 == n { print $3 " | " $4 }' "$T/times-validate.tsv")
        jq -r --arg q "$q" --arg n "$n" --arg t "$t" '"| \($q) | \($n) | \(.wait.p50|round) / \(.wait.p90|round) / \(.wait.p99|round) | \(.wait.mean|round) | \(.util_alloc*1000|round/1000) | \(.rejected) | \(.backfilled) | \(.completed) | \($t) |"' \
            "$T/val-$q-$n.json"
    done; done
    echo "## Node sweep: p90 / p99 for 32 34 ... 50 nodes"
    for q in $Q; do
        printf '| %s |' "$q"
        for n in $(seq 32 2 50); do
            jq -r '" \(.wait.p90|round) / \(.wait.p99|round) |"' "$T/val-$q-$n.json" | tr -d '\n'
        done
        echo
    done
    echo "## user CPU seconds per run, min-max over 32-50 nodes"
    awk '{ u = $4; if (!($1 in lo) || u < lo[$1]) lo[$1] = u; if (u > hi[$1]) hi[$1] = u }
         END { for (q in lo) print q, lo[q] "-" hi[q] }' "$T/times-validate.tsv" | sort
}

step_perjob() {
    echo "## 2017Q3 jobs of >= 128 GPUs: id, GPUs, observed wait, replay 32 / 36 / 40 nodes"
    awk -F, 'FNR == 1 { f++ } f == 1 && FNR > 1 && $4 >= 128 { o[$1] = $12; g[$1] = $4; id[++n] = $1 }
             f > 1 && FNR > 1 && ($1 in o) { w[$1, f] = $5 }
             END { for (i = 1; i <= n; i++) { k = id[i]; print k, g[k], o[k], w[k,2], w[k,3], w[k,4] } }' \
        "$T/2017Q3.csv" "$T/out-2017Q3-32/jobs.csv" "$T/out-2017Q3-36/jobs.csv" "$T/out-2017Q3-40/jobs.csv"
    echo "## 2018Q2 jobs 1546 and 52820 on 40 nodes: id, observed, replayed"
    awk -F, 'NR == FNR { if ($1 == 1546 || $1 == 52820) o[$1] = $12; next }
             ($1 in o) { print $1, o[$1], $5 }' "$T/2018Q2.csv" "$T/out-2018Q2-40/jobs.csv"
    for min in 128 16; do
        echo "## jobs of >= $min GPUs, 40 nodes: replayed wait within 60 s / 1 h of the observed one"
        for q in $Q; do
            printf '%s ' "$q"
            awk -F, -v min="$min" 'NR == FNR { if (FNR > 1 && $4 >= min) o[$1] = $12; next }
                FNR > 1 && ($1 in o) { n++; d = $5 - o[$1]; if (d < 0) d = -d; if (d <= 60) a++; else if (d <= 3600) b++ }
                END { printf "%d jobs, within 60 s %d, within 1 h %d\n", n, a, a + b }' \
                "$T/$q.csv" "$T/out-$q-40/jobs.csv"
        done
    done
    echo "## waited > 60 s, 40 nodes: both no / only the log / only the replay / both (% of jobs)"
    for q in $Q; do
        printf '%s ' "$q"
        awk -F, 'NR == FNR { if (FNR > 1) o[$1] = $12; next }
                 FNR > 1 { c[(o[$1] > 60) (($5 > 60) ? 1 : 0)]++; n++ }
                 END { printf "%.1f %.1f %.1f %.1f\n", 100*c["00"]/n, 100*c["10"]/n, 100*c["01"]/n, 100*c["11"]/n }' \
            "$T/$q.csv" "$T/out-$q-40/jobs.csv"
    done
}

pct() {
    sort -g | awk -v q="$1" '{ v[NR] = $1 } END { p = q * (NR - 1); i = int(p);
        printf "%.0f", (i + 1 < NR) ? v[i+1] + (p - i) * (v[i+2] - v[i+1]) : v[NR] }'
}
pair() {
    awk -F, -v Q="$2" 'NR == FNR { if (FNR > 1 && $8 == Q) o[$1] = $12; next }
                       FNR > 1 && ($1 in o) { print o[$1], $5 }' "$T/$1.csv" "$T/out-$1-40/jobs.csv"
}

step_queues() {
    echo "## per AAIC queue, 40 nodes: observed p50 p90 p99, replayed p50 p90 p99"
    for q in $Q; do for k in 0 1 2 3; do
        printf '%s queue %s observed' "$q" "$k"
        for p in .5 .9 .99; do printf ' %s' "$(pair "$q" "$k" | cut -d' ' -f1 | pct $p)"; done
        printf '  replayed'
        for p in .5 .9 .99; do printf ' %s' "$(pair "$q" "$k" | cut -d' ' -f2 | pct $p)"; done
        echo
    done; done
    echo "## queue 2 capped at 16 GPUs (team = q<queue>): overall p90, p99, queue 2 p90 / p99"
    for q in $Q; do
        awk -F, 'BEGIN { OFS = "," } NR > 1 { $5 = "q" $8 } { print }' "$T/$q.csv" > "$T/$q-qteam.csv"
        "$G" sim --cluster "$T/c40.yaml" --trace "$T/$q-qteam.csv" \
            --policy examples/aaic-fcfs-easy-queue2-16.yaml --json |
            jq -r --arg q "$q" '"\($q) \(.wait.p90|round) \(.wait.p99|round) q2 \(.wait_by_team.q2.p90|round) / \(.wait_by_team.q2.p99|round)"'
    done
}

# GPUs in use in the log (start = submit + observed_wait)
step_usage() {
    echo "## observed GPUs in use: max, share of time above 256 / 288 / 320 GPUs"
    for q in $Q; do
        printf '%s ' "$q"
        awk -F, 'NR > 1 { s = $2 + $12; print s, $4; print s + $3, -$4 }' "$T/$q.csv" | sort -k1,1g -k2,2n |
        awk '{ if (NR > 1 && $1 > t) { d = $1 - t; tot += d; if (u > 256) a += d; if (u > 288) b += d; if (u > 320) c += d }
               u += $2; t = $1; if (u > m) m = u }
             END { printf "max %d; %.1f%% / %.1f%% / %.1f%%\n", m, 100*a/tot, 100*b/tot, 100*c/tot }'
    done
}

# 20 policies x 5 quarters on 40 nodes, one timed sim each (compare gives
# the same numbers in one run, but no per-policy time).
step_policies() {
    : > "$T/times-policies.tsv"
    for q in $Q; do for p in $POLICIES; do
        t=$( { time "$G" sim --cluster "$T/c40.yaml" --trace "$T/$q.csv" \
                   --policy "examples/policies/$p.yaml" --json > "$T/pol-$q-$p.json" 2> /dev/null; } 2>&1 )
        printf '%s\t%s\t%s\n' "$q" "$p" "$t" >> "$T/times-policies.tsv"
    done; done
    echo "## Table 3: wait p50 / p90 / p99 (mean) per quarter"
    for p in $POLICIES; do
        printf '| %s |' "$p"
        for q in $Q; do
            jq -r '" \(.wait.p50|round) / \(.wait.p90|round) / \(.wait.p99|round) (\(.wait.mean|round)) |"' \
                "$T/pol-$q-$p.json" | tr -d '\n'
        done
        echo
    done
    echo "## Table 4: wait of jobs of > 8 GPUs, p90 / p99, and backfilled jobs per quarter"
    for p in $POLICIES; do
        printf '| %s |' "$p"
        for q in $Q; do
            jq -r '" \(.wait_by_size[">8"].p90|round) / \(.wait_by_size[">8"].p99|round); \(.backfilled) |"' \
                "$T/pol-$q-$p.json" | tr -d '\n'
        done
        echo
    done
    echo "## Table 5: estimate / actual p50 / p90, share underestimated (EASY runs)"
    for p in easy-user easy-hist-p50 easy-hist-p90 easy-oracle; do
        printf '| %s |' "$p"
        for q in $Q; do
            jq -r '.estimate_accuracy | " \(.ratio_p50*100|round/100) / \(.ratio_p90*10|round/10) / \(.underestimated*100|round) % |"' \
                "$T/pol-$q-$p.json" | tr -d '\n'
        done
        echo
    done
    echo "## util_alloc min-max, completed, rejected per quarter over the 20 policies"
    for q in $Q; do
        cat "$T"/pol-"$q"-*.json | jq -s -r --arg q "$q" \
            '"\($q) util \(map(.util_alloc)|min*1000|round/1000)-\(map(.util_alloc)|max*1000|round/1000) completed \(map(.completed)|unique) rejected \(map(.rejected)|unique)"'
    done
    echo "## Table 6: seconds per run, wall (user CPU)"
    for p in $POLICIES; do
        printf '| %s |' "$p"
        for q in $Q; do
            awk -v q="$q" -v p="$p" '$1 == q && $2 == p { printf " %.1f (%.1f) |", $3, $4 }' "$T/times-policies.tsv"
        done
        echo
    done
}

# Facts about the log used in sections 1 and 3 (raw files and imported traces).
step_logfacts() {
    echo "## killed at the limit (termcode 2), de-duplicated raw rows"
    for q in $Q; do
        printf '%s ' "$q"
        zcat "$AAIC/aaicwl-$q.csv.gz" | awk -F', *' 'NR > 1 { k = $0; sub(/^[^,]*, */, "", k); if (k in seen) next; seen[k] = 1
            d = ($11 - $10) - $13; if (d != 0) mis++
            if ($8 == 2) { n2++; if ($13 == $7) eq++; if (d != 0) mis2++; if (n2 == 1 || d < lo) lo = d; if (d > hi) hi = d; if (d >= 5 && d <= 100) mid++ } }
          END { printf "termcode 2: %d jobs, walltime = walltime_req in %d, (end - start) - walltime %d..%d s (5-100 s: %d); %d of the %d rows with walltime != end - start (%.0f%%)\n", n2, eq, lo, hi, mid, mis2, mis, 100 * mis2 / mis }'
    done
    echo "## 2018Q2 duplicates: id distance to the original; time-weighted p99 of GPUs in use with and without them"
    zcat "$AAIC/aaicwl-2018Q2.csv.gz" | awk -F', *' 'NR > 1 { k = $0; sub(/^[^,]*, */, "", k); if (k in first) print $1 - first[k]; else first[k] = $1 }' |
        sort -g | awk '{ v[NR] = $1 } END { printf "%d duplicates, id distance median %d\n", NR, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
    for dedup in 0 1; do
        zcat "$AAIC/aaicwl-2018Q2.csv.gz" | awk -F', *' -v dedup=$dedup 'NR > 1 { k = $0; sub(/^[^,]*, */, "", k); if (dedup && (k in seen)) next; seen[k] = 1
            g = ($5 > 1) ? 8 * $5 : $6; print $10, g; print $11, -g }' | sort -k1,1g -k2,2n |
        awk '{ if (NR > 1 && $1 > t) print u, $1 - t; u += $2; t = $1 }' | sort -k1,1g |
        awk -v dedup=$dedup '{ u[NR] = $1; d[NR] = $2; tot += $2 }
            END { for (i = 1; i <= NR; i++) { c += d[i]; if (c >= 0.99 * tot) { printf "duplicates dropped=%d: time-weighted p99 of GPUs in use %d\n", dedup, u[i]; exit } } }'
    done
    echo "## widest job per AAIC queue; most queue-2 jobs running at once (observed starts)"
    for q in $Q; do
        printf '%s ' "$q"
        awk -F, 'NR > 1 { if ($4 > g[$8]) g[$8] = $4 } END { for (k = 0; k <= 3; k++) printf "queue %d widest %d GPUs; ", k, g[k] }' "$T/$q.csv"
        awk -F, 'NR > 1 && $8 == 2 { s = $2 + $12; print s, 1; print s + $3, -1 }' "$T/$q.csv" | sort -k1,1g -k2,2n |
            awk '{ u += $2; if (u > m) m = u; if (u > 16) t++ } END { printf "queue 2: most jobs at once %d (%d times above 16)\n", m, t }'
    done
    echo "## jobs rejected on 30 nodes (fifo + EASY)"
    for q in $Q; do
        "$G" sim --cluster "$T/c30.yaml" --trace "$T/$q.csv" --policy examples/aaic-fcfs-easy.yaml --json |
            jq -r --arg q "$q" '"\($q) rejected \(.rejected)"'
    done
    echo "## jobs that waited > 1 h: room in the log at submission; GPUs their user was running at submission"
    for q in 2017Q4 2018Q2; do
        echo "== $q"
        awk -F, 'NR > 1 { s = $2 + $12; print $2, 1, $4, $6, $12; print s, 2, $4, $6; print s + $3, 0, -$4, $6 }' "$T/$q.csv" |
        sort -k1,1g -k2,2n |
        awk '$2 != 1 { u += $3; uu[$4] += $3; next }
             $5 > 3600 { n++; if (u + $3 <= 320) room++; print "waited_over_1h", uu[$4] }
             $5 < 60 { print "waited_under_1min", uu[$4] }
             END { print "room", n, room }' |
        sort -k1,1 -k2,2g |
        awk '$1 == "room" { printf "%d jobs waited > 1 h; at submission the log shows room for %d of them within 320 GPUs\n", $2, $3; next }
             { v[$1, ++c[$1]] = $2 }
             END { for (k in c) printf "%s: %d jobs, median GPUs their user was running at submission %s\n", k, c[k], v[k, int((c[k] + 1) / 2)] }'
    done
}

# The two 32-node jobs of 2018Q2 (ids 1546 and 52820) and the jobs of > 8
# GPUs under each backfill policy, 40 nodes.
step_widejobs() {
    echo "## 2018Q2, 40 nodes: wait of jobs 1546 and 52820; jobs of > 8 GPUs: n, mean wait, max wait; jobs waiting > 100,000 s"
    for p in fifo-user easy-user easy-hist-p50 easy-hist-p90 easy-oracle \
             conservative-user conservative-hist-p50 conservative-hist-p90 conservative-oracle; do
        "$G" sim --cluster "$T/c40.yaml" --trace "$T/2018Q2.csv" --policy "examples/policies/$p.yaml" \
            --out "$T/wide-2018Q2-$p" > /dev/null
        awk -F, -v p="$p" 'FNR > 1 && $1 == 1546 { a = $5 } FNR > 1 && $1 == 52820 { b = $5 }
            FNR > 1 && $6 > 8 { n++; s += $5; if ($5 > m) m = $5 } FNR > 1 && $5 > 100000 { l++ }
            END { printf "| %s | %d | %d | %d jobs, mean %.0f, max %d | %d |\n", p, a, b, n, s / n, m, l }' \
            "$T/wide-2018Q2-$p/jobs.csv"
    done
}

steps=${*:-import validate perjob queues usage logfacts policies widejobs}
for s in $steps; do
    case $s in
        import|validate|perjob|queues|usage|logfacts|policies|widejobs) "step_$s" ;;
        *) echo "aaic-tables.sh: unknown step '$s'" >&2; exit 2 ;;
    esac
done

#!/bin/sh
# The HTML report tells the story without the docs (issue 14): the heatmap
# paints the allocated share of each cell, the page names its inputs, waits
# use the CLI's units, reason bars share one scale, an empty chart says so.
. "$(dirname "$0")/tap.sh"
plan 9
C=$ROOT/examples/seed-cluster.yaml
"$GPUSCHED" gen --jobs 300 --seed 1 --cluster "$C" >"$TMP/t.csv"
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --html "$TMP/s.html" --json >"$TMP/s.json"
ua=$(jq .util_alloc "$TMP/s.json")
# Independent check from the drawn marks: the plot is 820 x 260; each cell
# rect covers width x height at opacity = its allocated share (in tenths), so
# their weighted area over the plot is the painted share.  It must match
# util_alloc (0.680) within the tenths' rounding, not the "any job touches
# the cell" share (0.741 with the old heatmap on this trace).
painted=$(grep -o '<rect class="cell"[^>]*>' "$TMP/s.html" |
    sed -E 's/.*width="([0-9.]+)" height="([0-9.]+)".*fill-opacity="([0-9.]+)".*/\1 \2 \3/' |
    awk '{s += $1 * $2 * $3} END {printf "%.3f", s / (820 * 260)}')
ok $(awk -v p="$painted" -v u="$ua" 'BEGIN { d = p - u; exit !(d < 0.02 && d > -0.02) }'; echo $?) \
   "heatmap paints the allocated share: $painted vs util_alloc $ua"
like "$(cat "$TMP/s.html")" "painted share is 68.0% of the picture, util_alloc 68.0%" "... and says so in the caption"
# The page names the cluster, trace and policy.
m=$(grep -o '<table id="meta">.*</table>' "$TMP/s.html")
like "$m" "seed-cluster.yaml" "the page names the cluster file"
like "$m" "t.csv.*defaults (that is: queue fifo, placement pack" "... the trace and the policy"
# Waits in the CLI's units (the sim table: s, m or h), util_alloc beside
# util_effective in the key figures.
kf=$(awk '/<h2>Key figures/,/<\/section>/' "$TMP/s.html")
like "$kf" "<th>util_alloc</th><th>util_effective</th>" "util_alloc beside util_effective"
w90=$(jq -r '.wait.p90' "$TMP/s.json")
exp=$(awk -v s="$w90" 'BEGIN { if (s < 60) printf "%.0fs", s; else if (s < 3600) printf "%.1fm", s / 60; else printf "%.2fh", s / 3600 }')
like "$kf" "<td>$exp</td>" "wait p90 printed as the CLI prints it ($exp)"
# Reason bars on one scale: in compare, the bar with the most waiting
# GPU-hours spans 600 px and a smaller one less.
printf 'queue:\n  policy: fifo\n' >"$TMP/fifo.yaml"
printf 'queue:\n  policy: priority_with_backfill\n  duration_estimate: oracle\n' >"$TMP/bf.yaml"
"$GPUSCHED" compare --cluster "$C" --trace "$TMP/t.csv" --policy "$TMP/fifo.yaml" --policy "$TMP/bf.yaml" \
    --html "$TMP/c.html" >/dev/null 2>&1
widths=$(awk '/id="chart-compare-reasons"/,/<\/svg>/' "$TMP/c.html" | grep -o '<rect class="bar"[^>]*' |
    sed -E 's/.*y="([0-9.]+)" width="([0-9.]+)".*/\1 \2/' | awk '{w[$1] += $2} END {for (y in w) printf "%.0f\n", w[y]}' | sort -n | tr '\n' ' ')
like "$widths" " 600 $" "the longest reason bar is the full 600 px ($widths)"
ok $(echo "$widths" | awk '{ exit !($1 < 600) }'; echo $?) "... and the other is shorter: one scale"
# An empty trace: every chart says there is no data.
"$GPUSCHED" sim --cluster "$C" --trace "$DATA/no-jobs.csv" --html "$TMP/e.html" >/dev/null 2>&1
is "$(grep -c 'class="empty">No data' "$TMP/e.html")" 3 "an empty run: three sections say 'No data'"

#!/bin/sh
# gpusched import --format aaic: the hand-made fixtures of tests/data/aaic
# (see its README.md for what each row exercises) and one real quarter,
# ../shared/traces/aaic/aaicwl-2017Q3.csv.gz (numbers from
# ../shared/traces/RESULTS.md table T4).
. "$(dirname "$0")/tap.sh"
plan 31
A=$ROOT/tests/data/aaic
REAL=$ROOT/../shared/traces/aaic/aaicwl-2017Q3.csv.gz

skip() { # skip N REASON: N skipped assertions
    i=0
    while [ "$i" -lt "$1" ]; do
        _n=$((_n + 1)); i=$((i + 1))
        echo "ok $_n # skip $2"
    done
}
col() { # col FILE NAME: the values of column NAME, one a line
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                          { print $c }' "$1"
}
cell() { # cell FILE ID NAME: column NAME of the row with id ID
    awk -F, -v id="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                                     $1 == id { print $c }' "$1"
}

# --- help and usage ----------------------------------------------------------
run "$GPUSCHED" import --format aaic --help
ok $rc "--format aaic --help exits 0"
like "$out" "walltime_req becomes time_limit" "aaic help says how the columns map"
run "$GPUSCHED" import --help
ok $rc "import --help (no format) exits 0"
like "$out" "aaic" "import --help lists the aaic format"
run "$GPUSCHED" import --format aaic
is "$rc" 2 "missing --in: usage error 2"
run "$GPUSCHED" import --format nope --in "$A/small.csv"
is "$rc" 2 "unknown format: usage error 2"

# --- the small fixture ----------------------------------------------------------
run "$GPUSCHED" import --format aaic --in "$A/small.csv" --trace-out "$TMP/t.csv" \
    --cluster-out "$TMP/c.yaml" --nodes 2
ok $rc "small.csv imports"
like "$out" "9 rows; 2 exact duplicate rows dropped" "summary: 9 rows, 2 duplicates dropped"
like "$out" "2 rows dropped (1 no submit time, 0 no duration, 1 no GPUs" "summary: rows dropped and why"
is "$(head -n 1 "$TMP/t.csv")" \
   "id,submit,duration,gpus,team,user,name,queue,time_limit,nodes,termcode,observed_wait" \
   "trace columns"
is "$(col "$TMP/t.csv" id | tr '\n' ' ')" "12 13 10 14 10-2 " \
   "5 jobs in submit order; the repeated id 10 becomes 10-2"
is "$(col "$TMP/t.csv" submit | tr '\n' ' ')" "0 50 100 200 400 " \
   "submit shifted: the earliest (row 12) is 0"
is "$(cell "$TMP/t.csv" 12 gpus)" 16 "2 nodes x 4 GPUs take 2 whole nodes: 16 GPUs"
is "$(cell "$TMP/t.csv" 12 time_limit)" 7200 "walltime_req becomes time_limit"
is "$(cell "$TMP/t.csv" 14 duration)" 100 "no walltime: time_end - time_start = 100"
is "$(cell "$TMP/t.csv" 10-2 observed_wait)" 3600 "observed_wait column"
is "$(cell "$TMP/t.csv" 10 team)/$(cell "$TMP/t.csv" 10 user)/$(cell "$TMP/t.csv" 10 queue)" \
   "g2/u1/0" "team g<group>, user u<user>, queue as logged"

run "$GPUSCHED" import --format aaic --in "$A/small.csv" --json
is "$(printf '%s' "$out" | sed -n '/^{/,$p' | jq -c '[.duplicates, .jobs, .dropped.gpus, .multi_node_partial, .observed_wait.p50]')" \
   "[2,5,1,1,10]" "json: 2 duplicates, 5 jobs, 1 no-GPU row, 1 partial multi-node job, wait p50 10"

run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --json
is "$(printf '%s' "$out" | jq -c '[.jobs, .rejected]')" "[5,0]" \
   "the trace replays on the written 2-node cluster YAML"

gzip -c "$A/small.csv" >"$TMP/small.csv.gz"
"$GPUSCHED" import --format aaic --in "$TMP/small.csv.gz" --trace-out "$TMP/tz.csv" 2>/dev/null
ok $(cmp -s "$TMP/t.csv" "$TMP/tz.csv"; echo $?) ".gz input gives the same trace"

# --- malformed input -------------------------------------------------------------
run "$GPUSCHED" import --format aaic --in "$A/bad.csv" --trace-out "$TMP/bad.csv"
is "$rc" 1 "malformed value: exit 1"
like "$out" "^gpusched import: .*bad.csv:3:19: walltime_req: '10m' is not an integer" \
     "error names file:line:column and the column"
run "$GPUSCHED" import --format aaic --in "$A/short.csv"
like "$out" "short.csv:3: row has 12 fields, the header has 13" "short row: file:line named"

# --- the real 2017Q3 quarter -------------------------------------------------------
if [ -f "$REAL" ]; then
    run "$GPUSCHED" import --format aaic --in "$REAL" --trace-out "$TMP/q3.csv" --json
    ok $rc "2017Q3 imports"
    j=$(printf '%s' "$out" | sed -n '/^{/,$p')
    is "$(printf '%s' "$j" | jq -c '[.rows, .duplicates, .jobs]')" "[13712,915,12797]" \
       "2017Q3: 13,712 rows, 915 exact duplicates dropped (README), 12,797 jobs"
    is "$(printf '%s' "$j" | jq -c '[.observed_wait.p50, .observed_wait.p90, .observed_wait.p99] | map(round)')" \
       "[6,110143,223811]" "2017Q3 observed wait p50/p90/p99 = RESULTS.md T4"
    like "$out" "p50 6 s, p90 110143 s, p99 223811 s" "summary prints the T4 percentiles"
    # capacity inferred from the log (io/capacity.h, docs/aaic-replay.md 3.7)
    run "$GPUSCHED" import --format aaic --in "$REAL" --nodes 50 --cluster-out "$TMP/c50.yaml" \
        --node-events-out "$TMP/cap.csv"
    like "$out" "capacity: .* nodes outside 1 outages" "2017Q3: one outage inferred (its 21 h stop)"
    is "$(head -n 1 "$TMP/cap.csv")" "time,node,state" "node events header"
    ok "$(awk -F, 'NR > 1 && ($3 != "drain" && $3 != "up" || $2 !~ /^aaic-[0-9]+$/) { bad = 1 } END { print bad + 0 }' "$TMP/cap.csv")" \
       "every event drains or brings back an aaic-N node"
    run "$GPUSCHED" sim --cluster "$TMP/c50.yaml" --trace "$TMP/q3.csv" --node-events "$TMP/cap.csv" --json
    ok $rc "sim replays the quarter on the inferred capacity"
else
    skip 8 "$REAL is absent"
fi

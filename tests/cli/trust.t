#!/bin/sh
# Trust: no silent data loss.  Every case here was accepted silently (exit 0,
# partial or wrong output) before issue 14; each now fails loudly or keeps
# every value.  Run with GPUSCHED=/path/to/old/gpusched to see them fail.
. "$(dirname "$0")/tap.sh"
plan 85
C=$ROOT/examples/seed-cluster.yaml
A=$ROOT/tests/data/aaic

# --- 1. truncated / corrupt .gz input -----------------------------------
# A 300-job generated trace, gzipped.  540 bytes of it decompress to whole
# lines (27 jobs in the old build) but the stream stops inside the member.
"$GPUSCHED" gen --jobs 300 --seed 1 --cluster "$C" >"$TMP/t.csv"
gzip -c "$TMP/t.csv" >"$TMP/t.csv.gz"
head -c 540 "$TMP/t.csv.gz" >"$TMP/cut.csv.gz"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/cut.csv.gz" --json
ok $([ $rc -ne 0 ]; echo $?) "sim refuses a gzip stream cut mid-member"
like "$out" "cut.csv.gz: gzip: the gzip stream ends early" "... and says it is truncated"
# Only the 8-byte trailer (CRC32 + length) missing: every line decompresses.
head -c -4 "$TMP/t.csv.gz" >"$TMP/nocrc.csv.gz"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/nocrc.csv.gz" --json
ok $([ $rc -ne 0 ]; echo $?) "sim refuses a gzip file without its full trailer"
# A plain file named .gz, and an empty .gz.
cp "$TMP/t.csv" "$TMP/plain.csv.gz"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/plain.csv.gz" --json
like "$out" "not gzip data" "a plain file named .gz is refused"
: >"$TMP/empty.csv.gz"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/empty.csv.gz" --json
ok $([ $rc -ne 0 ]; echo $?) "an empty .gz is refused"
# The importers read through the same reader: the AAIC importer on a cut file.
gzip -c "$A/small.csv" >"$TMP/a.csv.gz"
head -c -4 "$TMP/a.csv.gz" >"$TMP/acut.csv.gz"
run "$GPUSCHED" import --format aaic --in "$TMP/acut.csv.gz" --trace-out "$TMP/aout.csv"
ok $([ $rc -ne 0 ]; echo $?) "import aaic refuses a truncated .gz"
ok $([ ! -e "$TMP/aout.csv" ]; echo $?) "... and writes no trace"
# An intact .gz still works (300 jobs).
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv.gz" --json
is "$(printf '%s' "$out" | jq .jobs)" 300 "an intact .gz reads all 300 jobs"

# --- 2. write errors: stdout full (/dev/full) or closed (>&-) ------------
T=$DATA/hol.csv
N=$DATA/one-node.yaml
S=$ROOT/examples/seed-snapshot.json
for cmd in "sim --cluster $N --trace $T" "sim --cluster $N --trace $T --json" \
           "frag --cluster $C --state $S" "compare --cluster $N --trace $T --policy $DATA/diag-fifo.yaml" \
           "whatif --cluster $N --trace $T" "fill --cluster $N --trace $T --seeds 1-1" \
           "gen --jobs 5 --seed 1 --cluster $C" \
           "import --format aaic --in $A/small.csv --json"; do
    name=$(echo "$cmd" | cut -d' ' -f1-2)
    # shellcheck disable=SC2086
    "$GPUSCHED" $cmd >/dev/full 2>"$TMP/err"; rc=$?
    ok $([ $rc -eq 1 ] && grep -q "stdout: write failed" "$TMP/err"; echo $?) "$name >/dev/full fails loudly"
    # shellcheck disable=SC2086
    "$GPUSCHED" $cmd >&- 2>"$TMP/err"; rc=$?
    ok $([ $rc -eq 1 ] && grep -q "stdout: write failed" "$TMP/err"; echo $?) "$name >&- fails loudly"
done
# stdout closed must not let --out's files take descriptor 1 (they would get
# the table): the files are complete, only stdout's failure is reported.
"$GPUSCHED" sim --cluster "$N" --trace "$T" --out "$TMP/closed" >&- 2>/dev/null
ok $([ $? -eq 1 ] && jq -e '.jobs == 3' "$TMP/closed/summary.json" >/dev/null; echo $?) "sim --out with stdout closed: summary.json intact, exit 1"
# File outputs on a full device.
run "$GPUSCHED" gen --jobs 5 --seed 1 --cluster "$C" --out /dev/full
ok $([ $rc -eq 1 ]; echo $?) "gen --out /dev/full fails"
run "$GPUSCHED" sim --cluster "$N" --trace "$T" --html /dev/full
ok $([ $rc -eq 1 ]; echo $?) "sim --html /dev/full fails"
run "$GPUSCHED" import --format aaic --in "$A/small.csv" --trace-out /dev/full
ok $([ $rc -eq 1 ]; echo $?) "import --trace-out /dev/full fails"

# --- 3. --out DIR and other files appear whole or not at all --------------
# A good run fills DIR; a rerun whose writes fail part way (a file-size limit
# stands in for a full disk: with SIGXFSZ ignored, write() returns EFBIG once
# a file passes 16 blocks, and jobs.csv of the 300-job trace is ~27 KB) must
# leave the three files of the good run untouched and no temporaries behind.
# The old build left a cut jobs.csv beside a new timeline.csv.
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --out "$TMP/keep" >/dev/null 2>&1
before=$(cat "$TMP/keep/summary.json" "$TMP/keep/jobs.csv" "$TMP/keep/timeline.csv" | cksum)
out=$( (trap '' XFSZ; ulimit -f 16; "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" \
        --out "$TMP/keep" --html "$TMP/keep.html") 2>&1 >/dev/null); rc=$?
ok $([ $rc -eq 1 ]; echo $?) "a rerun whose writes fail exits 1"
like "$out" "write failed" "... and says a write failed"
is "$(cat "$TMP/keep/summary.json" "$TMP/keep/jobs.csv" "$TMP/keep/timeline.csv" | cksum)" "$before" \
   "... and leaves the earlier run's three files as they were"
is "$(ls -A "$TMP/keep" | tr '\n' ' ')" "jobs.csv summary.json timeline.csv " "... with no temporary files"
like "$out" "keep: nothing written" "... and says what DIR holds"
ok $([ ! -e "$TMP/keep.html" ]; echo $?) "... and writes no HTML page"
# A fresh DIR for a failing run stays empty.
(trap '' XFSZ; ulimit -f 16; "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" \
    --out "$TMP/fresh" >/dev/null 2>&1)
is "$(ls -A "$TMP/fresh" | wc -l)" 0 "a failing first run leaves DIR empty"
# A run stopped by Ctrl-C (SIGINT after 1 s; the 200,000-job replay takes
# ~3.5 s in the debug build) removes its temporary files: the old build left
# a partial timeline.csv.  Should the machine finish first, all three files
# must be there instead.
"$GPUSCHED" gen --jobs 200000 --seed 3 --cluster "$C" --load 0.7 >"$TMP/big.csv"
timeout -s INT 1 "$GPUSCHED" sim --cluster "$C" --trace "$TMP/big.csv" --out "$TMP/sig" >/dev/null 2>&1
rc=$?
left=$(ls -A "$TMP/sig" 2>/dev/null | tr '\n' ' ')
ok $({ [ $rc -eq 124 ] && [ -z "$left" ]; } || { [ $rc -eq 0 ] && [ "$left" = "jobs.csv summary.json timeline.csv " ]; }; echo $?) \
   "an interrupted run leaves nothing in DIR (rc $rc, left '$left')"

# --- 4. errors found after parsing name the input -------------------------
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/dup-id.csv"
like "$out" "dup-id.csv:4: id 'A' already used on line 2" "a repeated id names file, line and first use"

# An error only the engine finds (a MIG profile the cluster does not know,
# checked at submit, after parsing) names the trace file and the job's line.
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/bad-mig.csv"
like "$out" "bad-mig.csv:2: job A: mig: unknown profile '9g.99gb'" "an engine error names FILE:LINE of the job"
# --- 5. CSV outputs are valid CSV for any name; JSON keeps every value ------
# ids, teams and a node name with commas, quotes, a line break and blanks:
# Python's csv module (an independent RFC 4180 reader) must see 19 fields per
# row and the exact values.
run "$GPUSCHED" sim --cluster "$DATA/comma-node.yaml" --trace "$DATA/quoted.csv" --out "$TMP/q"
ok $rc "sim with quoted names runs"
got=$(python3 -c 'import csv,sys
r=list(csv.reader(open(sys.argv[1], newline="")))
print(all(len(x)==19 for x in r), repr([(x[0],x[6],x[8]) for x in r[1:]]))' "$TMP/q/jobs.csv")
is "$got" "True [('a,1', 'rack,1:0 rack,1:1', 'team \"x\", y'), ('b\"q', 'rack,1:2', 'plain'), ('l\\nm', 'rack,1:3', ' pad ')]" \
   "jobs.csv quotes ids, placements and teams (RFC 4180)"
# The summary JSON keeps the team with quotes and commas as a key.
is "$(jq -r '.wait_by_team | keys | join("|")' "$TMP/q/summary.json")" ' pad |plain|team "x", y' \
   "wait_by_team keeps every team"
# A team that is not UTF-8 used to vanish from wait_by_team (jansson refuses
# the key); now the reader refuses it, naming file, line and column.
printf 'id,submit,duration,gpus,team\nA,0,10,1,t\351am\nB,0,10,1,ok\n' >"$TMP/latin1.csv"
run "$GPUSCHED" sim --cluster "$N" --trace "$TMP/latin1.csv" --json
ok $([ $rc -ne 0 ]; echo $?) "a non-UTF-8 team is refused, not dropped"
like "$out" "latin1.csv:2: team: not valid UTF-8 (byte 0xE9 at offset 1)" "... naming file:line, column and byte"

# --- 6. JSON readers: a number where a string is expected keeps its value --
# The snapshot reader formatted numbers into one shared buffer that the row's
# id borrowed, so {"id": 12, "gpus": 8} came out as job "8".
run "$GPUSCHED" frag --cluster "$C" --state "$DATA/snap-numeric-id.json" --json
is "$(printf '%s' "$out" | jq -c '[.pending[].id]')" '["12","x"]' "a numeric id in a snapshot stays 12"

# --- 7. arithmetic on times inside the limits --------------------------------
# 1e7 s of work, 1 ms interval, 1e6 s cost: ~1e10 checkpoints x 1e6 s = 1e16 s,
# past the 9e12 s time limit (and past INT64_MAX ms, so the old build wrapped).
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/ckpt-overflow.csv" --out "$TMP/ovf"
ok $([ $rc -eq 1 ]; echo $?) "a run whose checkpoints pass the time limit is refused"
like "$out" "ckpt-overflow.csv:2: checkpoint_interval, checkpoint_cost: 9999999999 checkpoints" \
     "... at FILE:LINE with the count"
# A CPU-only job (gpus 0) that starts first: the engine copied 0 placement
# parts from a NULL pool (UB the sanitizer build aborts on).  It runs 0-100
# beside A (4 GPUs, 0-100): util_alloc = 4*100 / (8*100) = 0.5.
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/cpu-first.csv" --json
ok $rc "a CPU-only job that starts first runs (sanitizer clean in the san variant)"
is "$(printf '%s' "$out" | jq .util_alloc)" 0.5 "... and util_alloc is 400/800"
# Only CPU-only jobs: the engine never grows its placement pool, and jobs.csv
# asked for each job's (empty) placement at a NULL pool (found by fuzz_report).
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/cpu-only.csv" --out "$TMP/cpu"
ok $rc "a trace of CPU-only jobs replays and writes jobs.csv (sanitizer clean)"
is "$(awk -F, 'NR > 1 { print $1 ":" $7 }' "$TMP/cpu/jobs.csv" | tr '\n' ' ')" "c1: c2: " "... with empty placements"

# --- 8. jobs that can never run, empty traces: said on stderr, --strict -----
# A asks for 16 GPUs on an 8-GPU cluster: rejected at submit.
"$GPUSCHED" sim --cluster "$N" --trace "$DATA/too-wide.csv" --json >"$TMP/o.json" 2>"$TMP/e"; rc=$?
ok $rc "a rejected job alone still exits 0 ..."
like "$(cat "$TMP/e")" "warning: 1 job can never run on this cluster and was rejected.*A (16 GPUs)" \
     "... but says so on stderr with the id"
is "$(jq .rejected "$TMP/o.json")" 1 "... and counts it in the summary"
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/too-wide.csv" --strict
ok $([ $rc -eq 1 ]; echo $?) "--strict makes a rejected job an error"
for c in compare whatif; do
    run "$GPUSCHED" $c --cluster "$N" --trace "$DATA/too-wide.csv" --policy "$DATA/diag-fifo.yaml" --strict
    ok $([ $rc -eq 1 ] && printf '%s' "$out" | grep -q "error: 1 job can never run"; echo $?) "$c --strict refuses it too"
done
"$GPUSCHED" sim --cluster "$N" --trace "$DATA/no-jobs.csv" >"$TMP/o.txt" 2>"$TMP/e"; rc=$?
like "$(cat "$TMP/e")" "no-jobs.csv: the trace has no jobs" "an empty trace is reported on stderr"
like "$(cat "$TMP/o.txt")" "schedulability S_8" "... and S_k keeps the cluster's k (was S_0)"
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/no-jobs.csv" --strict
ok $([ $rc -eq 1 ]; echo $?) "--strict refuses an empty trace"

# --- 9. --version and -h ------------------------------------------------------
run "$GPUSCHED" --version
like "$out" "^gpusched [0-9]" "gpusched --version"
for c in sim frag compare whatif fill gen import; do
    run "$GPUSCHED" $c -h
    ok $([ $rc -eq 0 ] && printf '%s' "$out" | grep -q -- "--strict"; echo $?) "$c -h prints the help with the common options"
done
# Every long option in each command's getopt table appears in its --help.
missing=""
for f in "$ROOT"/src/cli/cmd_*.c; do
    c=$(basename "$f" .c | sed 's/^cmd_//')
    case $c in
    import) h=$("$GPUSCHED" import --format aaic --help) ;;
    import_openb) h=$("$GPUSCHED" import --format openb --help) ;;
    import_sacct) h=$("$GPUSCHED" import --format sacct --help) ;;
    slurm_conf) h=$("$GPUSCHED" slurm-conf --help) ;;
    why_slurm) h=$("$GPUSCHED" why --from-slurm --help) ;;
    client_queue) h=$("$GPUSCHED" queue --help) ;;
    client_submit) h=$("$GPUSCHED" submit --help) ;;
    client_nodes) h=$("$GPUSCHED" nodes --help; "$GPUSCHED" down --help) ;;
    client_cancel) h=$("$GPUSCHED" cancel --help) ;;
    client_jobs) h=$("$GPUSCHED" jobs --help) ;;
    client_history) h=$("$GPUSCHED" history --help) ;;
    client_node_act) h=$("$GPUSCHED" drain --help; "$GPUSCHED" down --help) ;;
    *) h=$("$GPUSCHED" "$c" --help) ;;
    esac
    for o in $(grep -oE '\{ "[a-z][a-z0-9_-]*", (required|no|optional)_argument' "$f" |
               sed -E 's/\{ "([^"]+)".*/\1/' | sort -u); do
        printf '%s' "$h" | grep -q -- "--$o\b" || missing="$missing $c:--$o"
    done
done
is "$missing" "" "every option of every command is in its --help"

# --- 10. empty statistics are null, not 0 -------------------------------------
"$GPUSCHED" sim --cluster "$N" --trace "$DATA/no-jobs.csv" --json >"$TMP/e.json" 2>/dev/null
is "$(jq -c '[.wait.p50, .wait.max, .util_alloc, .jobs_per_gpu_day, .schedulability.mean, .fragmentation.count]' "$TMP/e.json")" \
   "[null,null,null,null,null,null]" "an empty run: waits, utilization, S_k and fragmentation are null"
# hol.csv has no inference job: SLO attainment is unknown (null), and a size
# class without jobs has null percentiles (1 GPU: none in hol.csv).
"$GPUSCHED" sim --cluster "$N" --trace "$T" --json >"$TMP/h.json"
is "$(jq -c '[.classes.infer.jobs, .classes.infer.slo_attainment, .wait_by_size["1"].p90]' "$TMP/h.json")" \
   "[0,null,null]" "no inference jobs: slo_attainment null; an empty size class: null p90"
is "$(jq '.wait.p90' "$TMP/h.json")" 136 "... while real statistics keep their value (p90 136 s)"

# --- 11. a queue that can only grow is flagged before the replay -------------
# 21 jobs of 8 GPUs x 100 s, one every 50 s, on 8 GPUs: 16800 GPU-s (4.7
# GPU-hours) asked over 1000 s (0.28 h) = 16800 / 8000 = 2.10 x capacity.  The
# arrivals span 10 run times, so this is a trend, not a burst.
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/over-capacity.csv"
like "$out" "warning: the trace offers 2.10 x the cluster's capacity (4.7 GPU-hours asked over 0.28 h of arrivals on 8 GPUs)" \
     "offered load above capacity is warned with the numbers"
# hol.csv asks for 20 x capacity, but all at once (5 s of arrivals, 10-100 s
# jobs): a burst that drains, not a growing queue - no warning.
run "$GPUSCHED" sim --cluster "$N" --trace "$T"
ok $(printf '%s' "$out" | grep -q "warning"; [ $? -ne 0 ]; echo $?) "a burst is not warned about"
# team-a: 41 1-GPU jobs of 100 s every 25 s plus one 4-GPU job of 100 s, over
# 1000 s: (4100 + 400) / 1000 = 4.5 GPUs against a quota of 2 (2.25 x); every
# job is team-a's, so at most 2 GPUs are ever busy; the 4-GPU job is wider
# than the quota.
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/quota-starve.csv" --policy "$DATA/verdict-quota.yaml"
like "$out" "team team-a asks for 4.5 GPUs on average against its quota of 2 (2.25 x): its queue grows without bound" \
     "a team over its quota is warned with the numbers"
like "$out" "quotas add up to 2 of the 8 GPUs: at most 2 can ever be busy; the trace offers 2.25 x that" \
     "quotas that starve most of the cluster are warned"
like "$out" "1 job of team team-a asks for more than its quota of 2 GPUs and can never start" \
     "a job wider than its team's quota is warned"

# --- 12. progress on stderr ---------------------------------------------------
"$GPUSCHED" sim --cluster "$N" --trace "$T" --progress >/dev/null 2>"$TMP/p"
like "$(cat "$TMP/p")" "gpusched sim: done: simulated .*3 of 3 jobs finished (100%)" "--progress: a last line with jobs finished"
"$GPUSCHED" sim --cluster "$N" --trace "$T" >/dev/null 2>"$TMP/p"
is "$(wc -c <"$TMP/p")" 0 "no progress when stderr is not a terminal and --progress is absent"
"$GPUSCHED" compare --cluster "$N" --trace "$T" --policy "$DATA/diag-fifo.yaml" --policy "$DATA/diag-backfill.yaml" \
    --progress >/dev/null 2>"$TMP/p"
is "$(grep -c 'done: simulated' "$TMP/p")" 2 "compare --progress: one line per policy"

# --- 13. ISO-8601 submit times come back as absolute times ------------------
# Time 0 is the earliest submit, 2017-07-01T10:00:00Z = 1498903200 s (date -u
# -d @1498903200).  A runs 0-100 s, B (submitted at 30.5 s) 100-150 s.
run "$GPUSCHED" sim --cluster "$N" --trace "$DATA/iso-submit.csv" --out "$TMP/iso"
like "$out" "time 0 = 2017-07-01T10:00:00Z" "the text report gives the epoch of time 0"
is "$(jq -c .time_zero "$TMP/iso/summary.json")" '{"iso":"2017-07-01T10:00:00Z","unix":1498903200}' \
   "summary.json: time_zero"
is "$(date -u -d @1498903200 +%Y-%m-%dT%H:%M:%SZ)" "2017-07-01T10:00:00Z" "... (checked with date(1))"
is "$(awk -F, '$1 == "B" { print $16 "|" $17 "|" $18 }' "$TMP/iso/jobs.csv")" \
   "2017-07-01T10:00:30.500Z|2017-07-01T10:01:40Z|2017-07-01T10:02:30Z" "jobs.csv: ISO submit/start/end of B"
"$GPUSCHED" sim --cluster "$N" --trace "$T" --out "$TMP/num" >/dev/null 2>&1
is "$(head -1 "$TMP/num/jobs.csv" | tr ',' '\n' | tail -5 | head -1)" wait_reason \
   "numeric submits: no ISO columns (wait_reason, then the four promise columns of docs/eta.md)"

# --- 14. one CSV reader: the same quoting rules reach every reader ------------
# A CSV whose quoted field spans two lines: the trace reader keeps the record
# together and numbers lines after it correctly: the repeated id starts on
# line 5 (header 1, "a\nb" 2-3, c 4).
printf 'id,submit,duration,gpus,team\n"a\nb",0,10,1,x\nc,0,10,1,y\n"a\nb",0,10,1,z\n' >"$TMP/ml.csv"
run "$GPUSCHED" sim --cluster "$N" --trace "$TMP/ml.csv"
like "$out" "ml.csv:5: id 'a" "a record spanning lines keeps line numbers right (dup on line 5, first on 2)"

#!/bin/sh
# import-progress.t - `gpusched import` progress on stderr (issue 14): with
# --progress (or a terminal) lines while a file is read, parsed and
# converted, and a last line with the rows read; never on stdout, which is
# byte for byte what it is without --progress.  GPUSCHED_PROGRESS_SECONDS=0
# asks for a line at every count (every 4096 rows) so that a small input
# shows every kind of line.
. "$(dirname "$0")/tap.sh"
plan 25
S=$ROOT/fuzz/corpus/sacct

# 10000 AAIC rows (one job each: distinct ids, 1-8 GPUs on one node).
awk 'BEGIN {
    print "id,user,group,queue,nodes,gpus,walltime_req,termcode,time_submit,time_start,time_end,waittime,walltime"
    for (i = 0; i < 10000; i++) {
        t = 1500000000 + 7 * i
        printf "%d,%d,%d,0,1,%d,7200,0,%d,%d,%d,5,100\n", i, i % 50, i % 9, 2 ^ (i % 4), t, t + 5, t + 105
    }
}' >"$TMP/a.csv"
gzip -c "$TMP/a.csv" >"$TMP/a.csv.gz"

# The same import with and without --progress: stdout identical, the rows
# counted on stderr.
for f in a.csv a.csv.gz; do
    "$GPUSCHED" import --format aaic --in "$TMP/$f" --trace-out - >"$TMP/plain.out" 2>"$TMP/plain.err"
    GPUSCHED_PROGRESS_SECONDS=0 "$GPUSCHED" import --format aaic --in "$TMP/$f" --trace-out - \
        --progress >"$TMP/prog.out" 2>"$TMP/prog.err"
    ok $? "aaic $f --progress exits 0"
    cmp -s "$TMP/plain.out" "$TMP/prog.out"
    ok $? "aaic $f: stdout unchanged by --progress (the trace, $(wc -l <"$TMP/prog.out") lines)"
    # 10000 data rows: the header is not a row.
    like "$(cat "$TMP/prog.err")" \
        "^gpusched import: done: 10000 rows read (last input $TMP/$f), [0-9.]* s, [0-9]* rows/s$" \
        "aaic $f: the last line counts the 10000 rows"
done
# Lines of each phase, in their form (file a.csv.gz: a few kB compressed,
# 0.6 MB of text; 4096 and 8192 rows are the counts at which the reader calls).
like "$(cat "$TMP/prog.err")" \
    "^gpusched import: reading $TMP/a.csv.gz: [0-9.]* of [0-9.]* MB (100%), [0-9.]* s, [0-9.]* MB/s$" \
    "a reading line: bytes of the file of its size, MB/s"
like "$(cat "$TMP/prog.err")" \
    "^gpusched import: parsing $TMP/a.csv.gz: 8192 rows, [0-9.]* of 0.[0-9] MB ([0-9]*%), [0-9.]* s, [0-9]* rows/s" \
    "a parsing line: rows, bytes of the text of its size, rows/s"
like "$(cat "$TMP/prog.err")" \
    "^gpusched import: converting $TMP/a.csv.gz: 4096 of 10000 rows (41%), [0-9.]* s" \
    "a converting line: rows of the total (4096/10000 = 41%)"
is "$(grep -c '^gpusched import: \(reading\|parsing\|converting\|done\)' "$TMP/plain.err")" 0 \
    "no progress without --progress when stderr is not a terminal"
# The summary lines are the same either way.
is "$(grep -v '^gpusched import: \(reading\|parsing\|converting\|done\)' "$TMP/prog.err")" \
   "$(cat "$TMP/plain.err")" "the import's own report on stderr is unchanged"

# From a pipe the size is unknown: bytes without a total.
cat "$TMP/a.csv" | GPUSCHED_PROGRESS_SECONDS=0 "$GPUSCHED" import --format aaic --in - \
    --progress >/dev/null 2>"$TMP/pipe.err"
like "$(cat "$TMP/pipe.err")" "^gpusched import: reading -: 0.[0-9] MB, [0-9.]* s, [0-9.]* MB/s$" \
    "stdin: bytes read without a total"
like "$(cat "$TMP/pipe.err")" "^gpusched import: done: 10000 rows read (last input -)" \
    "stdin: every row counted"

# sacct -P and --json: the data rows (a step is a row too), and --json's
# report on stdout unchanged.
for f in odd.txt odd.json; do
    "$GPUSCHED" import --format sacct --in "$S/$f" --json >"$TMP/plain.out" 2>/dev/null
    "$GPUSCHED" import --format sacct --in "$S/$f" --json --progress >"$TMP/prog.out" 2>"$TMP/prog.err"
    ok $? "sacct $f --progress exits 0"
    cmp -s "$TMP/plain.out" "$TMP/prog.out"
    ok $? "sacct $f: the JSON report on stdout unchanged"
    rows=$(jq .rows "$TMP/prog.out")
    like "$(cat "$TMP/prog.err")" "^gpusched import: done: $rows rows read (last input $S/$f)" \
        "sacct $f: the last line counts the $rows rows the report counts"
done

# openb: both files' rows together; the last input is the pods file.
N=$TMP/nodes.csv
P=$TMP/pods.csv
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,32000,131072,2,T4\nn2,64000,262144,8,G2\n' >"$N"
printf '%s\n' name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time \
    p1,4000,8192,1,500,,LS,Running,10,100,20 p2,8000,16384,2,,T4,BE,Running,15,,30 \
    p3,1000,2048,0,200,,,Failed,40,50, >"$P"
nrows=5 # 2 nodes + 3 pods
"$GPUSCHED" import --format openb --nodes "$N" --pods "$P" --trace-out - >"$TMP/plain.out" 2>/dev/null
"$GPUSCHED" import --format openb --nodes "$N" --pods "$P" --trace-out - --progress \
    >"$TMP/prog.out" 2>"$TMP/prog.err"
cmp -s "$TMP/plain.out" "$TMP/prog.out"
ok $? "openb: stdout unchanged by --progress"
like "$(cat "$TMP/prog.err")" "^gpusched import: done: $nrows rows read (last input $P)" \
    "openb: the rows of both files ($nrows)"

# A failed import says it stopped, and still nothing on stdout.
printf 'id,user\n1,2\n' >"$TMP/bad.csv"
"$GPUSCHED" import --format aaic --in "$TMP/bad.csv" --trace-out - --progress \
    >"$TMP/bad.out" 2>"$TMP/bad.err"
ok $([ $? -ne 0 ]; echo $?) "a bad input still fails"
like "$(cat "$TMP/bad.err")" "^gpusched import: stopped: " "... with a last line that says it stopped"
is "$(wc -c <"$TMP/bad.out")" 0 "... and nothing on stdout"

# --progress is in every format's help (and so in the man pages and the
# bash completion, which are made from the help).
like "$("$GPUSCHED" import --format sacct --help)" "fill (each seed), import (bytes read, rows parsed)" \
    "--progress in import's help"

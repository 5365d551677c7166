#!/bin/sh
# slurm_sacct.t - `import --format sacct` on accounting written by a real
# private Slurm 22.05 with slurmdbd + MariaDB (scripts/slurm-local.sh
# --accounting): a preempted and requeued job, a multi-node job, a
# cancelled one and the urgent job that preempted; both `sacct --json` and
# `sacct -P` (columns shuffled) are imported and checked against what the
# test submitted; whatif and compare run on the result.  Debug variant only
# (the sanitizer variant replays the same sacct output through fuzz_sacct's
# corpus and test_slurm).
. "$(dirname "$0")/tap.sh"
if [ "${GS_VARIANT:-debug}" = san ]; then
    echo "1..0 # SKIP the Slurm-cluster tests run in the debug variant"; exit 0
fi
if [ ! -x /usr/sbin/slurmdbd ] || ! command -v mariadbd >/dev/null || ! command -v sacct >/dev/null; then
    echo "1..0 # SKIP slurmdbd / mariadb-server / sacct not installed"; exit 0
fi
. "$(dirname "$0")/slurm_lib.sh"
RUN=$TMP/slurm
trap 'GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$RUN" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
plan 23
SEED=$ROOT/examples/seed-cluster.yaml
T0=$(date +%s)

GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN" --accounting >"$TMP/up.log" 2>&1
ok $? "private cluster with accounting up"
echo "# up after $(( $(date +%s) - T0 )) s"
. "$RUN/env.sh"
cd "$TMP" || exit 1
state() { squeue -h -j "$1" -o %T 2>/dev/null; }
until_state() { # until_state JOB STATE: up to 15 s
    i=0; while [ "$(state "$1")" != "$2" ] && [ $i -lt 150 ]; do i=$((i + 1)); sleep 0.1; done
}

t0=$(date +%s)
LOW=$(sbatch --parsable -J low -w node-1 --gres=gpu:8 -t 5 --requeue -o /dev/null --wrap 'sleep 4')
MULTI=$(sbatch --parsable -J multi -N 2 -w 'node-[2-3]' --gres=gpu:8 -t 3 -o /dev/null --wrap 'sleep 2')
CANC=$(sbatch --parsable -J cancelme -w node-4 --gres=gpu:2 -t 2 -o /dev/null --wrap 'sleep 100')
t1=$(date +%s)
until_state "$LOW" RUNNING
until_state "$CANC" RUNNING
URG=$(sbatch --parsable -J urgent -p urgent -w node-1 --gres=gpu:8 -t 2 -o /dev/null --wrap 'sleep 2')
scancel "$CANC"
i=0; while [ -n "$(squeue -h)" ] && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
echo "# jobs done after $(( $(date +%s) - T0 )) s"
is "$(squeue -h | wc -l)" 0 "every job ended (low was preempted, requeued and ran again)"

# slurmdbd learns of job ends asynchronously: wait until accounting has
# every job ended, or the -P and --json reads may see different states.
# 5 allocation records with -D: low twice (its preempted run and its last),
# multi, cancelme, urgent (slurm_lib.sh slurm_acct_wait)
slurm_acct_wait 5 2>"$TMP/acct-wait.err"
ok $? "accounting caught up ($(tail -1 "$TMP/acct-wait.err"))"
FMT=Priority,NodeList,State,JobName,User,Account,Partition,NNodes,ReqTRES,AllocTRES,Timelimit,Elapsed,End,Start,Submit,JobID
sacct -a -D -X -P --format=$FMT >"$TMP/acct.txt"
sacct -a -D -P --format=$FMT >"$TMP/acct-steps.txt"
sacct -a -D --json >"$TMP/acct.json"
rep=$("$GPUSCHED" import --format sacct --in "$TMP/acct.json" --trace-out "$TMP/j.csv" \
    --cluster-out "$TMP/c.yaml" --json 2>"$TMP/j.err")
is "$?" 0 "sacct --json imports"
is "$(printf '%s' "$rep" | jq -c '[.jobs, .requeued_jobs, .runs_lost]')" "[4,1,1]" \
   "4 jobs; low requeued once, its preempted run counted as lost work"
pre=$(sacct -a -D -X -n -P -j "$LOW" --format=State,ElapsedRaw | awk -F'|' '$1 == "PREEMPTED" { print $2 }')
is "$(printf '%s' "$rep" | jq '.lost_gpu_s | floor')" "$((8 * pre))" \
   "lost GPU-s = 8 GPUs x the preempted run's ElapsedRaw ($pre s)"
run "$GPUSCHED" import --format sacct --in "$TMP/acct.txt" --trace-out "$TMP/p.csv"
is "$rc" 0 "sacct -P (columns shuffled) imports"
run diff "$TMP/j.csv" "$TMP/p.csv"
is "$rc" 0 "--json and -P give the same trace"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
run "$GPUSCHED" import --format sacct --in "$TMP/acct-steps.txt" --trace-out "$TMP/s.csv"
like "$out" "steps skipped" "without -X the step rows are skipped"
run cmp "$TMP/j.csv" "$TMP/s.csv"
is "$rc" 0 "... and the trace is the same"

col() { # col JOBID COLUMN: one field of the imported trace
    awk -F, -v id="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $1 == id { print $h[c] }' "$TMP/j.csv"
}
base=$(printf '%s' "$rep" | jq .submit_min)
sub=$(( base + $(col "$LOW" submit) ))
[ "$sub" -ge "$t0" ] && [ "$sub" -le "$t1" ]
ok $? "low's submit ($sub) lies between the test's clock before and after sbatch ($t0..$t1)"
is "$(col "$LOW" runs) $(col "$LOW" gpus) $(col "$LOW" state) $(col "$LOW" nodelist)" \
   "2 8 COMPLETED node-1" "low: 2 runs, 8 GPUs, completed on node-1"
d=$(col "$LOW" duration); [ "$d" -ge 4 ] && [ "$d" -le 6 ]
ok $? "low's duration is its last run ($d s for sleep 4), not both"
[ "$(col "$LOW" start)" -gt "$(col "$URG" start)" ]
ok $? "low's last run started after the urgent job that preempted it"
is "$(col "$LOW" time_limit)" 300 "time limit 5 min = 300 s"
is "$(col "$MULTI" gpus) $(col "$MULTI" nodes) $(col "$MULTI" nodelist)" "16 2 node-2 node-3" \
   "multi-node: 16 GPUs on node-2 and node-3"
d=$(col "$MULTI" duration); [ "$d" -ge 2 ] && [ "$d" -le 4 ]
ok $? "multi-node duration $d s for sleep 2"
is "$(col "$CANC" state) $(col "$CANC" gpus)" "CANCELLED 2" "the cancelled job: 2 GPUs"
[ "$(col "$CANC" duration)" -lt 30 ]
ok $? "cancelled long before its 100 s sleep"
is "$(col "$URG" queue) $(col "$URG" gpus)" "urgent 8" "the urgent job in its partition"

# an odd row is counted and placed, not fatal
{ cat "$TMP/acct.txt"; echo "1|2|3"; } >"$TMP/odd.txt"
run "$GPUSCHED" import --format sacct --in "$TMP/odd.txt"
like "$out" "dropped fields         1 (first: $TMP/odd.txt:" "a short row is dropped and named"

run "$GPUSCHED" whatif --cluster "$TMP/c.yaml" --trace "$TMP/j.csv"
is "$rc" 0 "whatif runs on the imported trace"
run "$GPUSCHED" compare --cluster "$TMP/c.yaml" --trace "$TMP/j.csv" \
    --policy "$ROOT/examples/seed-policy.yaml"
is "$rc" 0 "compare runs on the imported trace"
echo "# checks done after $(( $(date +%s) - T0 )) s"

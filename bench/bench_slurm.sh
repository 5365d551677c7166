#!/bin/bash
# bench_slurm.sh - how long gpusched takes to read a live Slurm cluster and
# to import Slurm accounting (bench/README.md, "Slurm").
#
#   bench/bench_slurm.sh [NODES] [JOBS] [SACCT_ROWS]     (default 64 200 1000000)
#
# 1. A private Slurm 22.05 cluster of NODES nodes x 8 GPUs (scripts/
#    slurm-local.sh), JOBS held-free sleeping jobs of 1, 2, 4 and 8 GPUs
#    (about half run, the rest pend), then `gpusched frag --from-slurm
#    --json` timed 5 times: the wall time, and the part spent in the two
#    Slurm calls (read_ms in the output).
# 2. A synthetic `sacct -P` file of SACCT_ROWS job rows plus one .batch
#    step row each (the forms sacct prints: 1-02:03:04, UNLIMITED,
#    gpu[01-02], TRES strings, requeued runs), and the same jobs as
#    `sacct --json`, each imported and timed.
# GPUSCHED defaults to the release build (make release); SKIP_SLURM=1 runs
# only part 2.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${GPUSCHED:=$ROOT/build/release/bin/gpusched}"
NODES=${1:-64}; JOBS=${2:-200}; ROWS=${3:-1000000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gsbench.XXXXXX"); [ -z "${BENCH_KEEP:-}" ] || echo "keeping $TMP"
RUN=$TMP/slurm
trap 'GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$RUN" >/dev/null 2>&1; [ -n "${BENCH_KEEP:-}" ] || rm -rf "$TMP"' EXIT
ms() { date +%s%N | awk '{ printf "%d", $1 / 1e6 }'; }

if [ "${SKIP_SLURM:-0}" != 1 ]; then
printf 'cluster:\n  gpu_types: { H100: { memory_gb: 80 } }\n  nodes:\n    - { name: "gpu[001-%03d]", gpus: 8, gpu_type: H100 }\n' \
    "$NODES" >"$TMP/c.yaml"
t=$(ms)
GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$TMP/c.yaml" "$RUN" >/dev/null
echo "slurm: $NODES nodes idle after $(( $(ms) - t )) ms"
. "$RUN/env.sh"
cd "$TMP"
t=$(ms)
for i in $(seq 1 "$JOBS"); do
    g=$(( 1 << (i % 4) ))
    sbatch -J "b$i" --gres=gpu:$g -t $(( 10 + i % 50 )) -o /dev/null --wrap 'sleep 600' >/dev/null
done
echo "slurm: $JOBS jobs submitted in $(( $(ms) - t )) ms"
sleep 3
echo "slurm: $(squeue -h -t R | wc -l) running, $(squeue -h -t PD | wc -l) pending"
for k in 1 2 3 4 5; do
    t=$(ms)
    out=$("$GPUSCHED" frag --from-slurm --cluster "$TMP/c.yaml" --json)
    echo "frag --from-slurm: run $k: $(( $(ms) - t )) ms wall, $(printf '%s' "$out" |
         jq '.slurm.read_ms | floor') ms in squeue + sinfo, $(printf '%s' "$out" |
         jq '.pending | length') pending explained"
done
t=$(ms)
GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$RUN" >/dev/null
echo "slurm: down (jobs cancelled, $NODES slurmd stopped) in $(( $(ms) - t )) ms"
fi

# synthetic accounting: job i submits at i s, waits i % 600 s, runs
# 60 + i % 7200 s on (i % 4 == 0 ? 2 : 1) nodes; every 50th job was
# preempted once (an earlier PREEMPTED run of 30 s)
awk -v n="$ROWS" 'function ts(s) { return strftime("%Y-%m-%dT%H:%M:%S", 1767225600 + s, 1) }
function dur(s) { return sprintf("%s%02d:%02d:%02d", s >= 86400 ? int(s / 86400) "-" : "",
                                 int(s % 86400 / 3600), int(s % 3600 / 60), s % 60) }
BEGIN {
    print "JobID|JobName|Partition|Account|User|State|Submit|Start|End|Elapsed|Timelimit|AllocTRES|NNodes|NodeList|Priority"
    for (i = 1; i <= n; i++) {
        nn = i % 4 == 0 ? 2 : 1; g = nn == 2 ? 16 : 2 ^ (i % 4); st = i + i % 600; d = 60 + i % 7200
        nl = nn == 2 ? sprintf("gpu[%03d-%03d]", i % 63 + 1, i % 63 + 2) : sprintf("gpu%03d", i % 64 + 1)
        tres = sprintf("billing=%d,cpu=%d,gres/gpu=%d,node=%d", g, g, g, nn)
        lim = i % 10 == 0 ? "UNLIMITED" : dur(d * 2)
        if (i % 50 == 0)
            printf "%d|j%d|gpu|a%d|u%d|PREEMPTED|%s|%s|%s|%s|%s|%s|%d|%s|%d\n", i, i % 97, i % 5,
                   i % 31, ts(i), ts(st - 40), ts(st - 10), dur(30), lim, tres, nn, nl, i % 1000
        printf "%d|j%d|gpu|a%d|u%d|COMPLETED|%s|%s|%s|%s|%s|%s|%d|%s|%d\n", i, i % 97, i % 5,
               i % 31, ts(i), ts(st), ts(st + d), dur(d), lim, tres, nn, nl, i % 1000
        printf "%d.batch|batch|||||%s|%s|%s|%s||cpu=1|1|%s|\n", i, ts(i), ts(st), ts(st + d),
               dur(d), nl
    }
}' >"$TMP/acct.txt"
awk -v n="$ROWS" 'BEGIN {
    printf "{\"meta\": {}, \"errors\": [], \"jobs\": ["
    for (i = 1; i <= n; i++) {
        nn = i % 4 == 0 ? 2 : 1; g = nn == 2 ? 16 : 2 ^ (i % 4); st = 1767225600 + i + i % 600
        d = 60 + i % 7200
        printf "%s{\"job_id\": %d, \"name\": \"j%d\", \"partition\": \"gpu\", \"account\": \"a%d\", " \
               "\"user\": \"u%d\", \"state\": {\"current\": \"COMPLETED\"}, \"priority\": %d, " \
               "\"allocation_nodes\": %d, \"nodes\": \"gpu%03d\", \"time\": {\"submission\": %d, " \
               "\"start\": %d, \"end\": %d, \"elapsed\": %d, \"limit\": %d}, \"tres\": {\"allocated\": " \
               "[{\"type\": \"gres\", \"name\": \"gpu\", \"id\": 1001, \"count\": %d}]}, \"steps\": []}",
               (i > 1 ? ", " : ""), i, i % 97, i % 5, i % 31, i % 1000, nn, i % 64 + 1,
               1767225600 + i, st, st + d, d, int(d * 2 / 60) + 1, g
    }
    print "]}"
}' >"$TMP/acct.json"
for f in acct.txt acct.json; do
    sz=$(du -m "$TMP/$f" | cut -f1)
    t=$(ms)
    /usr/bin/time -o "$TMP/$f.time" -f '%U s user, %S s sys, %M KB max RSS' \
        "$GPUSCHED" import --format sacct --in "$TMP/$f" --trace-out "$TMP/$f.csv" 2>"$TMP/$f.err"
    e=$(( $(ms) - t ))
    jobs=$(( $(wc -l <"$TMP/$f.csv") - 1 ))
    echo "import sacct $f: $sz MB, $jobs jobs in $e ms wall ($(( jobs * 1000 / (e > 0 ? e : 1) )) jobs/s); $(cat "$TMP/$f.time")"
    sed 's/^/  /' "$TMP/$f.err" | head -2
done

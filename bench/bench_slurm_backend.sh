#!/bin/bash
# bench_slurm_backend.sh - gpuschedd --backend slurm on a private Slurm
# 22.05 cluster (bench/README.md, "Slurm backend").
#
#   bench/bench_slurm_backend.sh [NODES] [LATENCY_JOBS] [JOBS]   (default 64 50 200)
#
# 1. Decision-to-running: LATENCY_JOBS 1-GPU jobs submitted one at a time to
#    an idle cluster; each job writes the time it started under Slurm; the
#    latency is that time minus the client's time just before the POST (the
#    submit's own turn decides, so this is decision-to-running plus the
#    durable submit, about 1-5 ms).  Also running-to-confirmed: the API's
#    start_epoch (set when a poll sees RUNNING) minus the job's own time.
#    Median and p99 (nearest rank).
# 2. Poll cost: with JOBS running 1-GPU jobs, the two Slurm calls of one
#    poll (`scontrol -d -o show job`, `sinfo -h -N -o '%N %T'`) timed 10
#    times (median), and the engine thread's whole poll seen from outside.
# GPUSCHEDD defaults to bin/gpuschedd.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${GPUSCHED:=$ROOT/bin/gpusched}"
: "${GPUSCHEDD:=$ROOT/bin/gpuschedd}"
NODES=${1:-64}; LAT=${2:-50}; JOBS=${3:-200}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gsbench.XXXXXX")
RUN=$TMP/slurm
DPID=
trap '[ -n "$DPID" ] && kill "$DPID" 2>/dev/null; GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" down "$RUN" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
ms() { date +%s%N | awk '{ printf "%d", $1 / 1e6 }'; }
stats() { sort -n | awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.99 + 0.999)];
          printf "n=%d median=%.0f p99=%.0f max=%.0f\n", NR, m, p, v[NR] }'; }

printf 'cluster:\n  gpu_types: { H100: { memory_gb: 80 } }\n  nodes:\n    - { name: "gpu[001-%03d]", gpus: 8, gpu_type: H100 }\n' \
    "$NODES" >"$TMP/c.yaml"
GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$TMP/c.yaml" "$RUN" --gpu-types >/dev/null
. "$RUN/env.sh"
"$GPUSCHEDD" --cluster "$TMP/c.yaml" --state "$TMP/st" --listen 127.0.0.1:0 --trust-loopback --backend slurm \
    --slurm-poll 0.1 >"$TMP/d.out" 2>"$TMP/d.err" &
DPID=$!
for _ in $(seq 100); do URL=$(sed -n 's/^listening on //p' "$TMP/d.out"); [ -n "$URL" ] && break; sleep 0.1; done
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 200 ]; do sleep 0.1; done
job() { # job ID: a 1-GPU job that writes its Slurm start time, then sleeps
    curl -s -X POST -H "Content-Type: application/json" "$URL/v1/jobs" -d "{\"id\":\"$1\",\"gpus\":1,\"command\":[\"sh\",\"-c\",
        \"date +%s.%N > $TMP/t.$1; sleep 900\"]}" >/dev/null
}
for i in $(seq 1 "$LAT"); do
    date +%s.%N >"$TMP/s.L$i"
    job "L$i"
    until [ -s "$TMP/t.L$i" ]; do sleep 0.01; done
done
for i in $(seq 1 "$LAT"); do
    awk -v a="$(cat "$TMP/t.L$i")" -v s="$(cat "$TMP/s.L$i")" 'BEGIN { printf "%.0f\n", (a - s) * 1000 }'
done | stats | sed 's/^/submit(decision)-to-running on Slurm (ms): /'
for i in $(seq 1 "$LAT"); do
    s=$(curl -s "$URL/v1/jobs/L$i" | jq .start_epoch)
    awk -v a="$(cat "$TMP/t.L$i")" -v s="$s" 'BEGIN { printf "%.0f\n", (s - a) * 1000 }'
done | stats | sed 's/^/running-to-confirmed, poll 0.1 s (ms): /'
for i in $(seq $((LAT + 1)) "$JOBS"); do job "L$i"; done
until [ "$(squeue -h -t R | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
echo "slurm: $(squeue -h -t R | wc -l) jobs running on $NODES nodes"
for _ in $(seq 10); do
    t=$(ms); scontrol -d -o show job >/dev/null; sinfo -h -N -o '%N %T' >/dev/null; echo $(( $(ms) - t ))
done | stats | sed 's/^/one poll, both Slurm calls (ms): /'

#!/bin/sh
# retry.hold (docs/failures.md, "Recovery policies"): under expedited
# requeue the GPUs a job hit by a node failure used on its other nodes are
# held for its restart, for at most the bound, in the simulator (the same
# engine rule gpuschedd runs).  Every number is derived by hand.
#
# Cluster n1, n2, n3 x 8 GPUs; fifo, EASY backfill, user estimates (the
# time limits), pack (lowest-numbered node among equals), retry.expedite.
# Trace: big 16 GPUs, 5000 s of work, limit 36000 s, at 0; c 8 GPUs, 300 s,
# limit 1000 s, at 0; s 4 GPUs, 500 s, limit 500 s, at 100.  Node events
# (the failures file's node_events log): n1 down at 100, up at 400.
#  - at 0 big takes n1 + n2, c n3.  At 100 n1 goes down: big's run ends,
#    losing its 100 s of work (16 x 100 = 1600 GPU-s); expedited, it is
#    first in the queue and needs 16 GPUs with only n2's 8 free: blocked,
#    reserved at 1000 s (c's limit) on n2 + n3.
#  - retry.hold 0 (no hold): s backfills on n2 at 100 (it ends by 600 <
#    1000).  c ends at 300: n3's 8 + n2's 4 free GPUs are not 16.  n1 is
#    back at 400: big restarts on n1 + n3, ends 400 + 5000 = 5400.
#  - retry.hold 10m (bound 700): n2 is held for big, so s finds no free
#    GPU in service and waits.  c ends at 300: big restarts at once on n2 +
#    n3 (the held GPUs are free to it alone), ends 5300.  s starts on n1
#    when it is back at 400.  Held: 8 GPUs x (300 - 100) s = 1600 GPU-s.
#  - failures.events = 1 (the log's down: events_drawn 0, events_replayed
#    1); big's ETTR 5000 / 5300 = 0.943396 with the hold, 5000 / 5400 =
#    0.925926 without.
. "$(dirname "$0")/tap.sh"
plan 9
cat >"$TMP/c.yaml" <<'Y'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - { name: n1, gpus: 8, gpu_type: H100-80G }
    - { name: n2, gpus: 8, gpu_type: H100-80G }
    - { name: n3, gpus: 8, gpu_type: H100-80G }
Y
printf 'id,submit,duration,gpus,time_limit\nbig,0,5000,16,36000\nc,0,300,8,1000\ns,100,500,4,500\n' \
    >"$TMP/t.csv"
printf 'time,node,state\n100,n1,down\n400,n1,up\n' >"$TMP/e.csv"
printf 'node_mtbf: 100000d\nrepair: 1h\nseed: 1\nnode_events: e.csv\n' >"$TMP/f.yaml"
pol() { # pol FILE HOLD
    printf 'queue:\n  policy: fifo\n  backfill: easy\n  duration_estimate: user\nplacement:\n  strategy: pack\nretry:\n  expedite: true\n  hold: %s\n' "$2" >"$1"
}
pol "$TMP/p0.yaml" 0
pol "$TMP/p1.yaml" 10m
col() { # col CSV JOB COLUMN
    awk -F, -v j="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
        $1 == j { print $k[c] }' "$1"
}
"$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p0.yaml" \
    --failures "$TMP/f.yaml" --check --out "$TMP/o0" >"$TMP/o0.txt" 2>&1
is "$?" 0 "sim without a hold: exit 0"
"$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p1.yaml" \
    --failures "$TMP/f.yaml" --check --out "$TMP/o1" >"$TMP/o1.txt" 2>&1
is "$?" 0 "sim with retry.hold 10m: exit 0 (gs_engine_check after every step)"
is "$(col "$TMP/o0/jobs.csv" big end) $(col "$TMP/o0/jobs.csv" s start)" "5400 100" \
   "no hold: s backfills on big's survivor at 100, big restarts at 400 and ends 5400"
is "$(col "$TMP/o1/jobs.csv" big end) $(col "$TMP/o1/jobs.csv" s start)" "5300 400" \
   "hold: big restarts on its held survivor at 300 and ends 5300; s waits to 400"
is "$(col "$TMP/o1/jobs.csv" big held_gpu_s) $(col "$TMP/o1/jobs.csv" s held_gpu_s)" "1600 0" \
   "jobs.csv held_gpu_s: 8 GPUs x 200 s for big, 0 for s"
is "$(jq -r '.failures | "\(.held_gpu_s) \(.events) \(.events_drawn) \(.events_replayed)"' "$TMP/o1/summary.json")" \
   "1600 1 0 1" "summary: held_gpu_s 1600; events 1 = 0 drawn + 1 replayed"
is "$(col "$TMP/o1/jobs.csv" big ettr) $(col "$TMP/o0/jobs.csv" big ettr)" "0.943396 0.925926" \
   "big's ETTR 5000/5300 with the hold, 5000/5400 without"
is "$(head -1 "$TMP/o0/jobs.csv" | grep -c held_gpu_s)" 0 \
   "without retry.hold jobs.csv has no held_gpu_s column (the format of before)"
printf 'retry:\n  hold: 10m\n' >"$TMP/bad.yaml"
"$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/bad.yaml" \
    --failures "$TMP/f.yaml" >"$TMP/bad.txt" 2>&1
like "$(cat "$TMP/bad.txt")" "retry.hold: needs retry.expedite: true" \
     "retry.hold without retry.expedite is refused, naming the key"

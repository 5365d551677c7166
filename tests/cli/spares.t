#!/bin/sh
# Hot spares (policy spares.nodes, spares.min_gpus; docs/failures.md): idle
# nodes kept free for the restart of large jobs hit by a node failure.
# Every expected schedule below is derived by hand.
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
# n1..n3 x 8 GPUs, FIFO + pack.  A: 16 GPUs, 10000 s, no checkpoint, at 0;
# B: 8 GPUs, 20000 s, at 100.  n1 is down 5000-9000.
printf 'id,submit,duration,gpus\nA,0,10000,16\nB,100,20000,8\n' >"$TMP/t.csv"
printf 'time,node,state\n5000,n1,down\n9000,n1,up\n' >"$TMP/e.csv"
sim() { # sim POLICY-TEXT OUT: the run's id,start,end rows on one line
    printf "$1" >"$TMP/$2.yaml"
    "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --node-events "$TMP/e.csv" \
        --policy "$TMP/$2.yaml" --check --out "$TMP/$2" >/dev/null 2>&1 || echo "sim failed"
    cut -d, -f1,3,4 "$TMP/$2/jobs.csv" | tr '\n' ' '
}
# (start is the first start; A's restart shows in its end: 10000 s of work
# and no checkpoint, so end = restart + 10000)
# No spares: A on n1+n2 at 0, B on n3 at 100 (ends 20100).  At 5000 A loses
# its run and waits for n1 (only n2 is idle): restarts 9000, ends 19000.
is "$(sim 'retry:\n  expedite: false\n' none)" "id,start,end A,0,19000 B,100,20100 " \
   "no spares: A waits for the repair, B runs at once"
# One spare for jobs of >= 16 GPUs, expedited: n3 (the highest idle node) is
# kept, so A takes n1+n2 at 0 and B waits.  At 5000 A goes first and
# restarts on n2 + the spare n3 (ends 15000).  At 9000 n1 is the only idle
# node: it refills the pool, so B still waits; at 15000 all three are idle,
# n3 is the spare and B takes n1 (pack, first node): 15000-35000.
is "$(sim 'spares:\n  nodes: 1\n  min_gpus: 16\nretry:\n  expedite: true\n' sx)" \
   "id,start,end A,0,15000 B,15000,35000 " "one spare + expedite: A restarts at the failure on the spare"
is "$(cut -d, -f1,7 "$TMP/sx/jobs.csv" | sed -n 2p)" \
   "A,n2:0 n2:1 n2:2 n2:3 n2:4 n2:5 n2:6 n2:7 n3:0 n3:1 n3:2 n3:3 n3:4 n3:5 n3:6 n3:7" \
   "A's second run is on n2 and the spare n3"
# The same spare without expedite: the requeued A is behind B, B takes n2
# (n3 stays the spare), A has only n3 and waits for n1: 9000 on n1+n3.
is "$(sim 'spares:\n  nodes: 1\n  min_gpus: 16\n' sp)" "id,start,end A,0,19000 B,5000,25000 " \
   "one spare, plain requeue: B goes first and A still waits for the repair"
# min_gpus above A's size: nobody may use the spare n3.  A waits for n1
# (n2 alone is too small) and restarts on n1+n2 at 9000; B, kept off n3
# all along, starts on n1 when A ends at 19000.
is "$(sim 'spares:\n  nodes: 1\n  min_gpus: 17\nretry:\n  expedite: true\n' big)" \
   "id,start,end A,0,19000 B,19000,39000 " "spares for larger jobs only: A waits for the repair too"
# Two spares leave one node for first starts: A (16 GPUs) never starts, and
# B (FIFO, no backfill) waits behind it: the run ends with both pending.
sim 'spares:\n  nodes: 2\n' two >/dev/null
is "$(cut -d, -f1,3,8 "$TMP/two/jobs.csv" | tr '\n' ' ')" "id,start,state A,,pending B,,pending " \
   "spares are kept from first starts: a job needing them never starts"
# bad values name the file, the line and the key
printf 'spares:\n  nodes: -1\n' >"$TMP/bad.yaml"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/bad.yaml"
like "$out" "bad.yaml:2: .*spares.nodes" "a bad spares.nodes names file, line and key"
# random failures with spares and every invariant checked
C=$ROOT/examples/seed-cluster.yaml
"$GPUSCHED" gen --jobs 300 --seed 5 --cluster "$C" --ckpt-interval 30m --ckpt-cost 1m >"$TMP/t5.csv"
printf 'node_mtbf: 1d\nrepair: 2h\nseed: 5\n' >"$TMP/f5.yaml"
printf 'spares:\n  nodes: 1\n  min_gpus: 8\nretry:\n  expedite: true\n' >"$TMP/s5.yaml"
run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml" --policy "$TMP/s5.yaml" --check
ok $rc "random failures with a hot spare (invariants checked)"
# without the keys nothing changes: spares.nodes 0 = the default run
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml" --out "$TMP/d0" >/dev/null
printf 'spares:\n  nodes: 0\n  min_gpus: 8\n' >"$TMP/s0.yaml"
"$GPUSCHED" sim --cluster "$C" --trace "$TMP/t5.csv" --failures "$TMP/f5.yaml" --policy "$TMP/s0.yaml" \
    --out "$TMP/d1" >/dev/null
ok $(cmp -s "$TMP/d0/jobs.csv" "$TMP/d1/jobs.csv"; echo $?) "spares.nodes 0: jobs.csv as without the keys"

#!/bin/sh
# Pending reasons in `frag --state` (one hand-built snapshot per reason) and
# `whatif` (fragmentation vs shortage, the seed's boundary cases).
. "$(dirname "$0")/tap.sh"
plan 41
C=$ROOT/examples/seed-cluster.yaml
S=$ROOT/examples/seed-snapshot.json

pending() { # pending FIELD ID: .pending[] entry ID's FIELD (jq path)
    printf '%s' "$out" | jq -c ".pending[] | select(.id == \"$2\") | $1"
}

# The seed's snapshot (free 2, 3, 8, 7): the 8-GPU job fits node-3.
run "$GPUSCHED" frag --cluster "$C" --state "$S" --json
ok $rc "seed: frag exits 0"
is "$(pending .reason big)" '"none"' "seed: big is not blocked"
like "$(pending .detail big)" "node-3:0,1,2,3,4,5,6,7" "seed: it starts on node-3's eight GPUs"

# node-3 split 4+4: topology fragmentation, with its numbers.
run "$GPUSCHED" frag --cluster "$DATA/split-node3.yaml" --state "$S" --json
is "$(pending .reason big)" '"topology_fragmentation"' "[4,4] node-3: topology_fragmentation"
is "$(pending '.reasons[0].free_gpus' big)" 20 "20 GPUs free"
is "$(pending '.reasons[0].largest_node' big)" '"node-3"' "largest block on node-3"
is "$(pending '.reasons[0].largest_node_block' big)" 8 "of 8 GPUs"
is "$(pending '.reasons[0].largest_node_domains_free' big)" '[4,4]' "split 4+4 across domains"
is "$(pending '.reasons[0].largest_domain_block' big)" 7 "largest block in one domain: 7 (node-4)"
like "$(pending .detail big)" "split 4+4 across NVLink domains" "detail names the split"
like "$(pending .unblock big)" "free 1 more GPU in one NVLink domain of node-4" "unblock: 1 GPU on node-4"

# Text output names the reason too.
run "$GPUSCHED" frag --cluster "$DATA/split-node3.yaml" --state "$S"
like "$out" "big  *topology_fragmentation" "text: reason column"

# count: after big takes node-3, free 2+3+0+7 = 12 but no node has 8.
run "$GPUSCHED" frag --cluster "$C" --state "$DATA/diag-count.json" --json
is "$(pending .reason big2)" '"count_fragmentation"' "count_fragmentation"
is "$(pending '.reasons[0].free_gpus' big2)" 12 "12 GPUs free"
is "$(pending '.reasons[0].largest_node_block' big2)" 7 "at most 7 on one node"

# shortage: 3 GPUs free for a 4-GPU job.
run "$GPUSCHED" frag --cluster "$C" --state "$DATA/diag-shortage.json" --json
is "$(pending .reason four)" '"shortage"' "shortage"
like "$(pending .detail four)" "3 GPUs free for it, needs 4" "detail: 3 of 4"

# memory: GPU 0 has a 0.7 share free but 20 GB; the job needs 0.5 and 40 GB.
run "$GPUSCHED" frag --cluster "$DATA/diag-two-gpus.yaml" --state "$DATA/diag-memory.json" --json
is "$(pending .reason infer)" '"memory_fragmentation"' "memory_fragmentation"
is "$(pending '.reasons[0].best_free_mem_gb' infer)" 20 "best free memory 20 GB"

# quota team-a: 4; a1 (4 GPUs, 1 h) starts, a2 waits for the quota until
# a1's time limit ends.
run "$GPUSCHED" frag --cluster "$DATA/diag-two-nodes.yaml" --state "$DATA/diag-quota.json" \
    --policy "$DATA/diag-quota.yaml" --json
is "$(pending .reason a2)" '"quota"' "quota"
is "$(pending '.reasons[0].quota_gpus' a2)" 4 "quota 4 GPUs"
is "$(pending .est_in a2)" 3600 "estimated start in 3600 s"
is "$(pending .est_basis a2)" '"quota"' "basis: quota"

# priority: FIFO, a 16-GPU head blocked; a 1-GPU job behind it waits.
run "$GPUSCHED" frag --cluster "$C" --state "$DATA/diag-priority.json" \
    --policy "$DATA/diag-fifo.yaml" --json
is "$(pending .reason small)" '"priority"' "priority"
is "$(pending '.reasons[0].blocker' small)" '"wide"' "blocked behind wide"
is "$(pending .reason wide)" '"count_fragmentation"' "wide: not enough whole idle nodes"

# reservation: j1 runs 1 h on n1; wide (16) holds n1+n2 from 3600 s; j3
# (2 h) fits n2 now but would overlap the reservation.
run "$GPUSCHED" frag --cluster "$DATA/diag-two-nodes.yaml" --state "$DATA/diag-reservation.json" \
    --policy "$DATA/diag-backfill.yaml" --json
is "$(pending .reason j3)" '"reservation"' "reservation"
is "$(pending '.reasons[0].holder' j3)" '"wide"' "held for wide"
is "$(pending '.reasons[0].holder_start' j3)" 3600 "from t=3600 s"
is "$(pending .est_basis wide)" '"reservation"' "wide: start from its reservation"

# partition: batch = n2 (training); t2 waits although n1 is idle.
run "$GPUSCHED" frag --cluster "$DATA/diag-two-nodes.yaml" --state "$DATA/diag-partition.json" \
    --policy "$DATA/diag-partition.yaml" --json
is "$(pending .reason t2)" '"partition"' "partition"
is "$(pending '.reasons[0].outside_free_gpus' t2)" 8 "8 usable GPUs outside its partition"

# quota partition: training may hold 6 of the 8 GPUs; T (6) runs, T2 (2)
# waits although 2 GPUs are idle.
run "$GPUSCHED" frag --cluster "$DATA/one-node.yaml" --state "$DATA/diag-partition-quota.json" \
    --policy "$DATA/diag-partition-quota.yaml" --json
is "$(pending .reason T2)" '"partition"' "quota partition: partition"
like "$(pending .detail T2)" "at its GPU quota; 2 GPUs are free" "detail: partition quota, 2 idle"

# whatif: four 6-GPU jobs leave 2 GPUs free on each node; the 8-GPU job
# waits 7190 s here but starts at once on the fluid cluster.
run "$GPUSCHED" whatif --cluster "$C" --trace "$DATA/diag-frag.csv" --policy "$DATA/diag-fifo.yaml" \
    --add-nodes 1 --json
ok $rc "whatif exits 0"
is "$(printf '%s' "$out" | jq -r '.verdict.call')" fragmentation "verdict: fragmentation"
is "$(printf '%s' "$out" | jq '.runs | length')" 3 "runs: actual, fluid, +1 node"
is "$(printf '%s' "$out" | jq '.runs[1].wait.max')" 0 "fluid: nobody waits"
run "$GPUSCHED" whatif --cluster "$C" --trace "$DATA/diag-frag.csv" --policy "$DATA/diag-fifo.yaml"
like "$out" "Verdict: cause fragmentation" "text verdict"

# one node, uniform 1-GPU jobs: the seed's boundary cases.
run "$GPUSCHED" whatif --cluster "$DATA/one-node.yaml" --trace "$DATA/diag-uniform.csv" --json
is "$(printf '%s' "$out" | jq -c '[.verdict.boundaries.one_node, .verdict.boundaries.uniform_jobs]')" \
    '[true,true]' "boundaries: one node and uniform jobs"
run "$GPUSCHED" whatif --cluster "$C"
is "$rc" 2 "missing --trace: usage error 2"

#!/bin/sh
# `compare --failures F.yaml` replays F.yaml's node_events (docs/failures.md)
# in every policy's run, as sim and whatif do.  Every number below is
# derived by hand.
#
# Cluster n1, n2 x 8 GPUs; A: 16 GPUs, 10000 s of work, no checkpoint,
# submitted at 0; B: 8 GPUs, 1000 s, at 100.  The log: n2 down at 2000, up
# at 6000.  F.yaml's random model draws nothing inside the run (node_mtbf
# 100000d: a node's first draw falls in the run's 17000 s with probability
# ~17000 / 8.64e9 ~ 2e-6; for seed 1 it does not, else A's end would
# differ).  FIFO + pack, retry.max_attempts 3.
#  - at 0 A takes n1 + n2; B waits.  At 2000 n2 goes down: A's run ends,
#    its 2000 s of work are lost (no checkpoint): 2000 x 16 = 32000 GPU-s.
#  - plain requeue: A goes behind B, which starts on n1 at 2000 (wait
#    1900 s) and ends at 3000; A needs both nodes: it restarts when n2 is
#    up at 6000 and ends at 16000.
#  - expedited (retry.expedite): A goes first and, needing 16 GPUs with 8
#    up, blocks the FIFO queue: B waits until A ends at 16000 (wait 15900
#    s), ends 17000.
#  - both: 1 failure (failures.events counts the log's downs with the
#    draws: events_drawn 0, events_replayed 1), 1 run ended, 1 job hit; A's ETTR = 10000 / (16000 - 0) = 0.625;
#    the GPU-time weighted ETTR = (16 x 10000 + 8 x 1000) / (16 x 16000 +
#    8 x 1000) = 168000 / 264000 = 0.6363636364; the longest wait is B's.
#  - without the log (same model, no node_events key) nothing fails: A ends
#    at 10000 and B waits for it (9900 s) under both policies.
. "$(dirname "$0")/tap.sh"
plan 7
cat >"$TMP/c.yaml" <<'Y'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - { name: n1, gpus: 8, gpu_type: H100-80G }
    - { name: n2, gpus: 8, gpu_type: H100-80G }
Y
printf 'id,submit,duration,gpus\nA,0,10000,16\nB,100,1000,8\n' >"$TMP/t.csv"
mkdir -p "$TMP/f"
printf 'time,node,state\n2000,n2,down\n6000,n2,up\n' >"$TMP/f/e.csv"
printf 'node_mtbf: 100000d\nrepair: 1h\nseed: 1\nnode_events: e.csv\n' >"$TMP/f/f.yaml"
printf 'node_mtbf: 100000d\nrepair: 1h\nseed: 1\n' >"$TMP/f/plain.yaml"
printf 'retry:\n  max_attempts: 3\n' >"$TMP/plain.yaml"
printf 'retry:\n  max_attempts: 3\n  expedite: true\n' >"$TMP/exp.yaml"
cmp_json() { # cmp_json F.yaml: per policy "name runs jobs lost ettr largest_ettr max_wait"
    (cd / && "$GPUSCHED" compare --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" \
        --policy "$TMP/plain.yaml" --policy "$TMP/exp.yaml" --failures "$1" --json) \
        >"$TMP/cmp.json" 2>"$TMP/cmp.err"
    echo "$?" >"$TMP/cmp.rc"
    jq -r '.policies[] | [.name, .failures.runs_ended, .failures.jobs_hit, .failures.lost_gpu_s,
               .failures.ettr, .failures.largest.ettr, .wait.max] | map(tostring) | join(" ")' \
        "$TMP/cmp.json" | tr '\n' ';'
}
got=$(cmp_json "$TMP/f/f.yaml")
is "$(cat "$TMP/cmp.rc") $(cat "$TMP/cmp.err")" "0 " \
   "compare --failures with node_events (relative path, another cwd) runs: exit 0, no error"
is "${got%%;*}" "plain 1 1 32000 0.6363636364 0.625 1900" \
   "plain requeue: 1 run ended, 32000 GPU-s lost, ETTR 0.636 (A 0.625), B waits 1900 s"
rest=${got#*;}
is "${rest%;}" "exp 1 1 32000 0.6363636364 0.625 15900" \
   "expedited: the same loss and ETTR, B waits 15900 s behind A"
# the table's failure rows say the same
(cd / && "$GPUSCHED" compare --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" \
    --policy "$TMP/plain.yaml" --policy "$TMP/exp.yaml" --failures "$TMP/f/f.yaml") >"$TMP/table.txt"
like "$(grep '^plain ' "$TMP/table.txt" | tail -1)" '^plain  *1  *1  *1  *8\.9  *0\.6364  *0\.6250$' \
     "the table: 1 failure (the log's), 1 run, 1 job, 8.9 GPU-h (32000 / 3600), ETTR 0.6364, largest 0.6250"
cmp_json "$TMP/f/f.yaml" >/dev/null
is "$(jq -r '[.policies[].failures | "\(.events) \(.events_drawn) \(.events_replayed)"] | join(";")' "$TMP/cmp.json")" \
   "1 0 1;1 0 1" "events counts the log's down: 0 drawn, 1 replayed, in each policy's run"
# without the key nothing fails
is "$(cmp_json "$TMP/f/plain.yaml")" "plain 0 0 0 1 1 9900;exp 0 0 0 1 1 9900;" \
   "the same model without the log: no failure, B waits 9900 s for A"
# a bad line of the log names the log's file and line
printf 'time,node,state\n10,n1,down\n20,n9,up\n' >"$TMP/f/bad.csv"
printf 'node_mtbf: 1d\nrepair: 1h\nnode_events: bad.csv\n' >"$TMP/f/bad.yaml"
"$GPUSCHED" compare --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/plain.yaml" \
    --failures "$TMP/f/bad.yaml" >"$TMP/e.txt" 2>&1
like "$(cat "$TMP/e.txt")" "bad.csv:3: .*n9" "a bad line of the log: the log's file and line"

#!/bin/sh
# F.yaml's node_events key (docs/failures.md): a log of real node events
# (the CSV `gen --node-events-out` writes, `--node-events` reads) replayed
# from inside the failures file, its path relative to the YAML's directory.
#
# The check: failures.t's hand model (failures_model.awk, derivation
# there: one 8-GPU node n1, job A of 36000 s of work, checkpoints every
# 3600 s costing 60 s, restore 300 s) walks the failures of gen's file;
# the same file named by node_events, with a random model that draws no
# failure before the run ends (node_mtbf 100000d: the one node's first draw
# falls inside the run's ~1e6 s with probability ~1e6/8.64e9 ~ 1e-4; for
# seed 1 it does not, else the ends would differ from the walk), gives A
# the end, restarts and lost GPU-seconds of the walk.
. "$(dirname "$0")/tap.sh"
plan 8
cat >"$TMP/c.yaml" <<'Y'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - { name: n1, gpus: 8, gpu_type: H100-80G }
Y
printf 'id,submit,duration,gpus,checkpoint_interval,checkpoint_cost,restore_cost\nA,0,36000,8,3600,60,300\nC,1000000,1,8,0,0,0\n' >"$TMP/t.csv"
printf 'retry:\n  max_attempts: 1000\n' >"$TMP/p.yaml"
AWKM=$(cd "$(dirname "$0")" && pwd)/failures_model.awk
mkdir -p "$TMP/f"
"$GPUSCHED" gen --jobs 100 --seed 1 --cluster "$TMP/c.yaml" --mtbf 3h --repair 20m \
    --node-events-out "$TMP/f/e.csv" >/dev/null
printf 'node_mtbf: 100000d\nrepair: 20m\nseed: 1\nnode_events: e.csv\n' >"$TMP/f/f.yaml"
# run from another directory: e.csv is found beside f.yaml, not in the cwd
(cd / && "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/f/f.yaml" --check --out "$TMP/o" >"$TMP/o.txt" 2>&1)
is "$?" 0 "sim --failures with node_events (relative path, another cwd): exit 0"
got=$(awk -F, '$1 == "A" {printf "%.3f %d %.3f", $4, $22, $21}' "$TMP/o/jobs.csv")
want=$(awk -f "$AWKM" "$TMP/f/e.csv" | awk '{printf "%s %s %s", $1, $2, $3}')
is "$got" "$want" "A's end, restarts, lost GPU-s equal the hand model's walk of the replayed log"
like "$want" '^[0-9.]* [1-9][0-9]* ' "the log does hit A (at least one restart)"
# whatif --failures replays it too: the same log through the same key
# gives the same grid as --node-events beside a file without the key
printf 'node_mtbf: 100000d\nrepair: 20m\nseed: 1\n' >"$TMP/f/plain.yaml"
"$GPUSCHED" whatif --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/f/f.yaml" --json >"$TMP/w1.json" 2>&1
"$GPUSCHED" whatif --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/f/plain.yaml" --node-events "$TMP/f/e.csv" --json >"$TMP/w2.json" 2>&1
is "$(cmp "$TMP/w1.json" "$TMP/w2.json" && jq -r 'type' "$TMP/w1.json")" "object" \
   "whatif --failures: node_events gives what --node-events gives"
"$GPUSCHED" whatif --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/f/plain.yaml" --json >"$TMP/w3.json" 2>&1
! cmp -s "$TMP/w3.json" "$TMP/w1.json"
ok $? "and differs from the same model without the log"
# errors name the file and line
printf 'node_mtbf: 1d\nrepair: 1h\nnode_events: nothere.csv\n' >"$TMP/f/miss.yaml"
"$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --failures "$TMP/f/miss.yaml" \
    --out "$TMP/o2" >"$TMP/e1.txt" 2>&1
like "$(cat "$TMP/e1.txt")" "miss.yaml:3: node_events: .*nothere.csv" \
     "a log that cannot be read: F.yaml:LINE: node_events: and the path"
printf 'time,node,state\n10,n1,down\n20,n9,up\n' >"$TMP/f/bad.csv"
printf 'node_mtbf: 1d\nrepair: 1h\nnode_events: bad.csv\n' >"$TMP/f/bad.yaml"
"$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --failures "$TMP/f/bad.yaml" \
    --out "$TMP/o3" >"$TMP/e2.txt" 2>&1
like "$(cat "$TMP/e2.txt")" "bad.csv:3: .*n9" "a bad line of the log: the log's file and line"
# compare replays it too (tests/cli/compare_node_events.t derives a case
# by hand): its failures object is sim's, with the log's restarts
(cd / && "$GPUSCHED" compare --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
    --failures "$TMP/f/f.yaml" --json) >"$TMP/c1.json" 2>&1
is "$(jq -c '.policies[0].failures' "$TMP/c1.json")" \
   "$(cd / && "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
       --failures "$TMP/f/f.yaml" --json | jq -c .failures)" \
   "compare --failures replays node_events: its failures object is sim's"

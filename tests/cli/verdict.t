#!/bin/sh
# whatif's verdict on cases whose right answer is known by construction
# (docs/diagnosis.md section 4).  Each case fixes the cause by building it in:
# every waiting job-hour has one reason, and the counterfactual runs agree.
. "$(dirname "$0")/tap.sh"
plan 30
N=$DATA/one-node.yaml
FIFO=$DATA/diag-fifo.yaml
v() { "$GPUSCHED" whatif "$@" --json >"$TMP/v.json" 2>"$TMP/v.err"; rc=$?; }
j() { jq -r "$1" "$TMP/v.json"; }

# 1. Pure shortage.  One 8-GPU node, ten 1-GPU jobs of 600 s at t 0: eight
# start, u9 and u10 wait 600 s.  u9 waits for a free GPU (shortage); u10
# waits behind u9 (priority), and no policy can help: backfill has nothing to
# pass, and the fluid cluster is the same node (bound keeps 100 %).  So the
# time behind u9 is shortage too: 100 % shortage.  Waits sorted: 8 x 0, 600,
# 600; p90 at rank 8.1 = 600, p99 = 600.
v --cluster "$N" --trace "$DATA/diag-uniform.csv" --policy "$FIFO" --policy "$DATA/diag-backfill.yaml" --add-nodes 1
ok $rc "shortage case runs"
is "$(j .verdict.cause)" shortage "pure shortage: cause shortage"
is "$(j '.verdict.attribution.resolved.shortage')" 1 "... 100 % of the waiting resolved to shortage"
is "$(j '.verdict.attribution.priority_counted_as')" shortage "... time behind u9 counted as shortage"
is "$(j '.verdict.bound.share_p90')" 1 "... the fluid bound keeps the whole p90"
is "$(j '.verdict.best_capacity')" "+1 node" "... capacity is the fix: +1 node"
is "$(j '.verdict.fixes[0].run')" "+1 node" "... and ranks first (p90 600 s -> 0)"
like "$(j .verdict.text)" "Complex scheduling is unnecessary here: one node of <= 8 GPUs; 100% of jobs ask for 1 GPUs" \
     "... the seed's simple cases apply and nothing contradicts them"

# 2. Pure fragmentation.  The seed's 4 x 8 cluster; four 6-GPU jobs (2 h)
# leave 2 GPUs on each node; b (8 GPUs) at 10 s waits 7190 s as count
# fragmentation although 8 GPUs are idle.  Fluid: b starts at once.
# Waits 0 0 0 0 7190: p90 rank 3.6 = 0.6 x 7190 = 4314 s.
v --cluster "$ROOT/examples/seed-cluster.yaml" --trace "$DATA/diag-frag.csv" --policy "$FIFO" --add-nodes 1
is "$(j .verdict.cause)" fragmentation "pure fragmentation: cause fragmentation"
is "$(j '.verdict.attribution.fragmentation.count')" 1 "... all of it count fragmentation"
is "$(j '.verdict.p90.actual')" 4314 "... actual p90 4314 s"
is "$(j '.verdict.bound.p90')" 0 "... the fluid bound p90 0"

# 3. Pure quota.  One node; eight 1-GPU jobs of team-a (600 s) at t 0 under a
# quota of 2: two run at a time while 6 GPUs idle.  Waits 0 0 600 600 1200
# 1200 1800 1800: p90 rank 6.3 = 1800.  Every waiting hour is quota; FIFO
# without the quota runs all eight at once.
v --cluster "$N" --trace "$DATA/verdict-quota.csv" --policy "$DATA/verdict-quota.yaml" --policy "$FIFO" --add-nodes 1
is "$(j .verdict.cause)" quota "pure quota: cause quota"
is "$(j '.verdict.attribution.quota')" 1 "... 100 % quota"
is "$(j '.verdict.p90.actual')" 1800 "... actual p90 1800 s"
is "$(j '.verdict.fixes[0].run')" diag-fifo "... the policy without the quota ranks first"
is "$(j '.verdict.fixes[0].p99')" 0 "... and removes the wait (p99 0)"
like "$(j .verdict.text)" "the policy change, on the same GPUs, shortens the tails more" \
     "... and beats the added node (+1 node changes nothing: the quota still holds)"

# 4. Pure priority inversion (head of line).  One node; A (4 GPUs, 0-1000 s),
# B (8 GPUs) at 1 s waits for the whole node (999 s, shortage), and ten 1-GPU
# jobs of 100 s at 2..11 s wait behind B under strict FIFO although 4 GPUs
# idle until 1000 s (priority: 8 x ~1595 s + 2 x ~1690 s).  Backfill runs them
# in the idle GPUs before B's reservation.  Waits sorted: 0, 999, 1591..1598,
# 1689, 1690: p90 rank 9.9 = 1598 + 0.9 x 91 = 1679.9.
v --cluster "$N" --trace "$DATA/verdict-hol.csv" --policy "$FIFO" --policy "$DATA/diag-backfill.yaml" --add-nodes 1
is "$(j .verdict.cause)" policy "pure priority inversion: cause policy"
is "$(j '.verdict.p90.actual')" 1679.9 "... actual p90 1679.9 s"
is "$(j '.verdict.attribution.priority_counted_as')" policy "... time behind B stays the queue rules' (backfill helps)"
is "$(j .verdict.best_policy)" diag-backfill "... best policy: backfill"
like "$(j .verdict.text)" "a plain FIFO is not enough" "... and the one-node case does not claim FIFO is enough"

# 5. A mixture.  One node; team-a (quota 2) a1..a4 and team-b b1..b8, all
# 1 GPU, 600 s, at t 0.  a1, a2 and six b jobs start; a3, a4 wait 600 s on the
# quota and b7, b8 600 s for GPUs: 50 % quota, 50 % shortage, neither 60 %.
# Removing the quota only moves the wait to other jobs (12 jobs, 8 GPUs).
v --cluster "$N" --trace "$DATA/verdict-mixed.csv" --policy "$DATA/verdict-quota.yaml" --policy "$FIFO" --add-nodes 1
is "$(j .verdict.cause)" mixed "quota + shortage mixture: cause mixed"
is "$(jq -c '[.verdict.attribution.resolved.quota, .verdict.attribution.resolved.shortage]' "$TMP/v.json")" "[0.5,0.5]" \
   "... half quota, half shortage"
is "$(j '.verdict.fixes[0].run')" "+1 node" "... only capacity shortens it"
like "$(j .verdict.text)" "no cause holds 60%" "... and the text says why it is mixed"

# The symptom checks state every condition they test, waits in hours only.
"$GPUSCHED" sim --cluster "$N" --trace "$DATA/hol.csv" --json >"$TMP/s.json"
m=$(jq -r '.symptoms[] | select(.name == "big_jobs_wait") | .message' "$TMP/s.json")
like "$m" "5-8-GPU p90 >= 1.00 h: 0.03 h (no), and >= 3 x the 1-GPU p90 0.00 h (yes), and S_8 >= 1 less than 50% of the time: 0% (yes)" \
     "big_jobs_wait names its three conditions with values"
ok $(jq -r '.symptoms[].message' "$TMP/s.json" | grep -q " min\b"; [ $? -ne 0 ]; echo $?) "no check mixes minutes with hours"
m=$(jq -r '.symptoms[] | select(.name == "long_queue_moderate") | .message' "$TMP/s.json")
like "$m" "wait p90 >= 1.00 h: 0.04 h (no), and util_alloc <= 80%: 64% (yes)" "long_queue_moderate names both conditions"

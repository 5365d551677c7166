#!/bin/sh
# sacct_capacity.t - `import --format sacct --node-events-out`: the capacity
# inferred from a hand-made sacct -P log whose capacity timeline is known
# by construction (io/capacity.h, cli/cli_capacity.h, docs/slurm.md).
. "$(dirname "$0")/tap.sh"
plan 9

# The log (times in s from the first submit, 2026-11-01T00:00:00):
#  A  plateau of 4 nodes n1-n4 x 8 GPUs: 32 slots (slot i on node
#     n(1 + i/8)), each running 1-GPU 1 h jobs back to back from 2700 to
#     38700; each job is submitted 2700 s before it starts, users alice and
#     bob alternate, so 1-GPU jobs of 2 users wait > 60 s for 2640 s of
#     every hour while all 32 GPUs are busy: saturated, capacity 4.
#  B  outage: the first jobs of C are submitted at 38700 and start at
#     45900; nothing runs in between while they wait: capacity 0 from
#     38700 + 60 s (the grace) to 45900 (7140 s >= the 1 h minimum).
#  C  plateau of 2 nodes n1-n2: 16 slots, 24 jobs each, 45900 to 132300,
#     saturated the same way: capacity 2.
# With 1 h windows the inference's hold rule (usage of the 6 windows either
# side is a lower bound) keeps 4 nodes through window 16 (the last with
# A's usage is window 10, [36000, 39600)), so 2 nodes from 61200 (window
# 17).  Expected steps: 0: 4, 38760: 0, 45900: 4, 61200: 2.
# gen_log RQ: with RQ=1 every job of C has an earlier 10 s run, REQUEUED
gen_log() {
    awk -v RQ="$1" 'function ts(t, r) { r = t % 86400
        return sprintf("2026-11-%02dT%02d:%02d:%02d", 1 + int(t / 86400), int(r / 3600), int(r % 3600 / 60), r % 60) }
     function row(sb, st, len, i, state) {
        printf "%d|%s|%s|%s|%d|01:00:00|cpu=1,gres/gpu=1|1|n%d|gpu|lab|%s|j%d|%s\n",
            id, ts(sb), ts(st), ts(st + len), len, 1 + int(i / 8), (i % 2 ? "bob" : "alice"), id, state }
     function job(sb, st, i, rq) { id++
        if (rq) row(sb, sb + 10, 10, i, "REQUEUED")
        row(sb, st, 3600, i, "COMPLETED") }
     BEGIN { print "JobID|Submit|Start|End|ElapsedRaw|Timelimit|AllocTRES|NNodes|NodeList|Partition|Account|User|JobName|State"
        for (k = 0; k < 10; k++) for (i = 0; i < 32; i++) job(k * 3600, 2700 + k * 3600, i, 0)
        for (k = 0; k < 24; k++) for (i = 0; i < 16; i++) job(k ? 45900 + k * 3600 - 2700 : 38700, 45900 + k * 3600, i, RQ) }'
}
LOG=$TMP/acct.txt
gen_log 0 > "$LOG"

run "$GPUSCHED" import --format sacct --in "$LOG" --trace-out "$TMP/t.csv" --cluster-out "$TMP/c.yaml" \
    --node-events-out "$TMP/e.csv" --cap-window 3600
is "$rc" 0 "import with --node-events-out"
# saturated windows: A's 1-9 (window 0 has no wait while busy), C's 13-35
like "$out" "capacity: 4 steps, 2-4 nodes outside 1 outages (2.0 h); 32 of 37 1 h windows saturated" \
    "summary: the plateaus, the outage, the saturated windows"
like "$out" "usage above it: 0.0 GPU-h over 0.0 h (at most 0 GPUs)" "no usage above the inferred capacity"
is "$(cat "$TMP/e.csv" | tr '\n' ' ')" \
   "time,node,state 38760,n1,drain 38760,n2,drain 38760,n3,drain 38760,n4,drain 45900,n1,up 45900,n2,up 45900,n3,up 45900,n4,up 61200,n3,drain 61200,n4,drain " \
   "node events: outage, back to 4, then the last two nodes drained"
run "$GPUSCHED" sim --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --node-events "$TMP/e.csv" --json
is "$rc" 0 "sim replays the log on the inferred capacity"

# the users are told apart: with 3 users required no instant is evidence
run "$GPUSCHED" import --format sacct --in "$LOG" --node-events-out "$TMP/e3.csv" --cap-window 3600 --cap-users 3
like "$out" " 0 of 37 1 h windows saturated" "--cap-users 3: only 2 users ever wait"

# a requeued job is no evidence (its last run did not wait for room):
# the same log with every C job requeued once loses C's saturation (A's
# windows 1-9 stay saturated)
gen_log 1 > "$TMP/rq.txt"
run "$GPUSCHED" import --format sacct --in "$TMP/rq.txt" --node-events-out "$TMP/erq.csv" --cap-window 3600
like "$out" " 9 of 37 1 h windows saturated" "requeued jobs are not evidence"

run "$GPUSCHED" import --format sacct --in "$LOG" --node-events-out "$TMP/e.csv" --cap-window 5
is "$rc" 2 "--cap-window below 60 s is a usage error"
printf 'JobID|Submit|Start|End|AllocTRES|NodeList\n1|2026-11-01T00:00:00|2026-11-01T00:00:01|2026-11-01T00:01:00|gres/gpu=1|None assigned\n' > "$TMP/nonode.txt"
run "$GPUSCHED" import --format sacct --in "$TMP/nonode.txt" --node-events-out "$TMP/e.csv"
like "$out" "the log names no nodes" "a log without node names says why it has no capacity"

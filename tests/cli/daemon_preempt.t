#!/bin/sh
# gpuschedd preemption on one 8-GPU node (tests/data/daemon/one-node.yaml).
# Checkpoint mode with a 2 s grace (grace.yaml): A (priority 0, 8 GPUs,
# checkpoint cost 1 s) runs; B (priority 10 >= 0 + priority_gap 5, 8 GPUs)
# arrives 2 s later: A can save within the grace (1 s <= 2 s) and sooner than the
# work it would lose, so it drains: SIGUSR1 at once, SIGTERM when the
# checkpoint is done (1 s later), then B starts once A's processes are gone;
# A is requeued (1 preemption, attempt 2) and starts again when B ends.
# Immediate mode (immediate.yaml, --kill-wait 1): a job that ignores
# SIGTERM gets SIGKILL 1 s later.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 18

D=$ROOT/tests/data/daemon
cat >"$TMP/job.sh" <<JOB
trap 'echo "\$(date +%s.%N) USR1" >> $TMP/sig' USR1
trap 'echo "\$(date +%s.%N) TERM" >> $TMP/sig; exit 143' TERM
echo "\$(date +%s.%N) START" >> $TMP/sig
while :; do sleep 0.05; done
JOB
daemon_start "$TMP/s1" --cluster "$D/one-node.yaml" --policy "$D/grace.yaml"
api POST /v1/jobs "{\"id\":\"A\",\"gpus\":8,\"priority\":0,\"checkpoint_interval\":\"10m\",
    \"checkpoint_cost\":\"1s\",\"command\":[\"sh\",\"$TMP/job.sh\"]}"
wait_state A running
sleep 2 # past 1 s of work, so saving (1 s) is cheaper than losing it
api POST /v1/jobs '{"id":"B","gpus":8,"priority":10,"time_limit":"1m","command":["sleep","1"]}'
is "$(field "$body" '.state')" pending "B waits while A drains"
wait_state B running
wait_state B completed
# A starts again once B has ended: wait for its second START line (its
# launch and its shell's first line come after B's end, slower under ASan)
for _ in $(seq 200); do
    [ "$(grep -c START "$TMP/sig")" -ge 2 ] && break
    sleep 0.05
done
sigs=$(awk '{print $2}' "$TMP/sig" | tr '\n' ' ')
is "$sigs" "START USR1 TERM START " "A sees SIGUSR1, then SIGTERM, then runs again"
gap=$(awk '$2 == "USR1" {u = $1} $2 == "TERM" {t = $1} END {print (t - u >= 0.8 && t - u <= 2.5) ? "ok" : t - u}' "$TMP/sig")
is "$gap" ok "SIGTERM comes when the 1 s checkpoint is done (within the 2 s grace)"
api GET /v1/jobs/B
bstart=$(field "$body" '.start_epoch')
term=$(awk '$2 == "TERM" {print $1}' "$TMP/sig")
is "$(awk -v b="$bstart" -v t="$term" 'BEGIN {print (b >= t) ? "after" : "before"}')" after \
    "B starts only after A's processes are gone (its GPUs were held while A stopped)"
wait_state A running
api GET /v1/jobs/A
is "$(field "$body" '(.preemptions|tostring) + " " + (.attempts|tostring)')" "1 2" \
    "A was preempted once and is on its second attempt"
is "$(field "$body" '.exit_code')" 143 "the stopped attempt's exit code (143 = TERM) is kept"
api GET /metrics
like "$body" '^gpusched_preemptions_total 1$' "/metrics counts the preemption"
api POST /v1/jobs/A/cancel
wait_state A cancelled
daemon_stop

# immediate: TERM ignored -> KILL after --kill-wait 1
cat >"$TMP/stubborn.sh" <<JOB
trap 'echo "\$(date +%s.%N) TERM-ignored" >> $TMP/sig2' TERM
echo "\$(date +%s.%N) START" >> $TMP/sig2
while :; do sleep 0.05; done
JOB
daemon_start "$TMP/s2" --cluster "$D/one-node.yaml" --policy "$D/immediate.yaml" --kill-wait 1
api POST /v1/jobs "{\"id\":\"S\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/stubborn.sh\"]}"
wait_state S running
sleep 0.3
api POST /v1/jobs '{"id":"U","gpus":8,"priority":10,"command":["true"]}'
wait_state U completed 10
ok $? "the urgent job runs once the stubborn one is killed"
like "$(cat "$TMP/sig2")" "TERM-ignored" "the stubborn job got SIGTERM first"
api GET /v1/jobs/S
is "$(field "$body" '.preemptions')" 1 "it counts as preempted"
wait_state S running 10
api GET /v1/jobs/S
is "$(field "$body" '.exit_code')" 137 "its stopped attempt ended by SIGKILL (137)"
# S had no checkpoint: its run's work (x 8 GPUs) is lost to preemption,
# as its job object's lost_gpu_s says; one restart by preemption
# (/metrics is re-rendered at most every 20 times its cost: read until it shows)
ls=$(field "$body" '.lost_gpu_s')
i=0
until api GET /metrics
      printf '%s\n' "$body" | awk -v l="$ls" '$1 == "gpusched_lost_gpu_seconds_total{cause=\"preemption\"}" { f = ($2 > 0 && $2 == l) } END { exit !f }' ||
      [ $i -ge 20 ]; do sleep 0.1; i=$((i + 1)); done
is "$(printf '%s\n' "$body" | awk '$1 == "gpusched_lost_gpu_seconds_total{cause=\"preemption\"}" { print ($2 > 0) " " $2 + 0 }')" \
    "1 $ls" "lost to preemption on /metrics = S's lost_gpu_s ($ls GPU-s)"
is "$(printf '%s\n' "$body" | grep -E '^gpusched_(job_restarts_total\{cause="preemption"\}|lost_gpu_seconds_total\{cause="node_failure"\})' | awk '{ print $2 }' | tr '\n' ' ')" \
    "0.000 1 " "one restart by preemption, nothing lost to node failures"
api GET /v1/jobs/U
ok "$(field "$body" '.start_epoch - 0.9 >= 0' >/dev/null; echo 0)" "U has a start time"
api POST /v1/jobs/S/cancel
wait_state S cancelled 10
daemon_stop

# Victims of one preemption are confirmed together (two-nodes.yaml,
# immediate-backfill.yaml; the client tests' thrash case): C holds n1; A and
# B (4 GPUs each, younger, so cheaper) hold n2; P (8 GPUs, priority 10)
# preempts A and B.  A exits at once on SIGTERM, B 0.5 s later.  Were A's
# stop confirmed alone, A (requeued, 4 GPUs) would be placed back on its
# freed half of n2 while P still waits for B's half, and be preempted
# again, over and over.  Expected: A and B preempted once each, P on n2.
daemon_start "$TMP/s3" --cluster "$D/two-nodes.yaml" --policy "$D/immediate-backfill.yaml"
hold='trap \"exit 143\" TERM; sleep 30 \u0026 wait' # JSON-escaped
api POST /v1/jobs "{\"id\":\"C\",\"gpus\":8,\"time_limit\":\"10m\",\"command\":[\"sh\",\"-c\",\"$hold\"]}"
wait_state C running
api POST /v1/jobs "{\"id\":\"A\",\"gpus\":4,\"time_limit\":\"10m\",\"command\":[\"sh\",\"-c\",\"$hold\"]}"
api POST /v1/jobs '{"id":"B","gpus":4,"time_limit":"10m","command":["sh","-c","trap \"sleep 0.5; exit 143\" TERM; sleep 30 & wait"]}'
wait_state A running
wait_state B running
api POST /v1/jobs '{"id":"P","gpus":8,"priority":10,"time_limit":"1m","command":["sleep","1"]}'
wait_state P completed 15
ok $? "P completes"
api GET /v1/jobs/P
is "$(field "$body" '.placement' | sed 's/:[0-9]*//g' | tr ',' '\n' | sort -u)" n2 "P ran on n2"
api GET /v1/jobs
is "$(field "$body" '[.jobs[] | select(.id == "A" or .id == "B") | .preemptions | tostring] | join(" ")')" \
    "1 1" "A and B were preempted once each (no thrash while B was still stopping)"
for j in A B C; do api POST /v1/jobs/$j/cancel; done
wait_state A cancelled
wait_state B cancelled
wait_state C cancelled
daemon_stop
sanitizer_clean

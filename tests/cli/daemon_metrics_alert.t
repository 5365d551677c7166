#!/bin/sh
# The /metrics series to alert on (issue 25) and the failure numbers (issue
# 26), docs/metrics.md "Live metrics": promtool (Debian's `prometheus`)
# checks a live exposition with a down GPU, a drained node and a team at
# its quota, and each number is derived by hand below.  Then a time limit,
# a completed job and a node failure: lost GPU-seconds by cause, restarts,
# node failures and ETTR, checked against the job objects; and a restart
# of the daemon keeps those counters (journal meta).
#
# Cluster: node-1..3, 8 GPUs each (24).  Policy: fifo, team a's quota 8.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 33
S=$TMP/s
cat >"$TMP/c.yaml" <<'EOF'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - name: node-[1-3]
      gpus: 8
      gpu_type: H100-80G
      nvlink_domains: [8]
EOF
printf 'queue:\n  policy: fifo\n  quota: { a: 8 }\n' >"$TMP/p.yaml"
daemon_start "$S" --cluster "$TMP/c.yaml" --policy "$TMP/p.yaml"
ok $? "gpuschedd starts"
M=$TMP/metrics.txt
metric() { # NAME{LABELS}: its value in $M
    awk -v k="$1" '$1 == k { print $2 }' "$M"
}
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; print !(d <= t) }'; }
submit() { api POST /v1/jobs "$1"; [ "$code" = 201 ] || echo "# submit: $code $body"; }
# fetch PATTERN...: /metrics into $M, read again until each PATTERN matches
# a line (the body is re-rendered at most every 20 times its cost: slow
# under ASan)
fetch() {
    i=0
    while curl -s "$URL/metrics" >"$M"; [ $i -lt 100 ]; do
        all=1
        for p in "$@"; do grep -qE "$p" "$M" || all=0; done
        [ $all = 1 ] && break
        sleep 0.1; i=$((i + 1))
    done
}

api POST /v1/nodes/node-2/drain
api POST /v1/nodes/node-3/gpus/0/down '{"reason":"xid 79"}'
is "$code" 200 "node-2 drained, node-3 GPU 0 down"
# a1 (8, team a) fits only node-1 (node-2 drains, node-3 has 7 in service);
# b1 (4, team b) then goes to node-3, leaving it 3 free
submit '{"id":"a1","gpus":8,"team":"a","command":["sleep","900"]}'
wait_state a1 running 10
submit '{"id":"b1","gpus":4,"team":"b","command":["sleep","900"]}'
wait_state b1 running 10
ok $? "a1 (8 GPUs) and b1 (4) run"
# a2 waits on team a's quota (8 of 8 held); b2 (8) on shortage: 3 GPUs are free
submit '{"id":"a2","gpus":1,"team":"a","command":["sleep","900"]}'
submit '{"id":"b2","gpus":8,"team":"b","command":["sleep","900"]}'
i=0
until [ "$(curl -s "$URL/v1/jobs/b2" | jq -r .reason.code)" = shortage ] || [ $i -ge 100 ]; do
    sleep 0.1; i=$((i + 1))
done
is "$(curl -s "$URL/v1/jobs/a2" | jq -r .reason.code) $(curl -s "$URL/v1/jobs/b2" | jq -r .reason.code)" \
    "quota shortage" "a2 waits on quota, b2 on shortage"
fetch '^gpusched_jobs_pending\{reason="shortage"\} 1$' '^gpusched_jobs_pending\{reason="quota"\} 1$'
run promtool check metrics <"$M"
is "$rc $out" "0 " "promtool check metrics: no problem, no lint finding"
like "$(grep '^gpusched_build_info' "$M")" '^gpusched_build_info{version="[^"]*",commit="[^"]*"} 1$' \
    "build info names version and commit"
# GPUs: down 1 (node-3:0); allocated 8 (a1) + 4 (b1) = 12; draining: node-2's
# 8 idle; free: node-3's 7 in service - 4 = 3.  3 + 12 + 1 + 8 = 24.
is "$(metric 'gpusched_gpus_by_state{state="free"}') $(metric 'gpusched_gpus_by_state{state="allocated"}') $(metric 'gpusched_gpus_by_state{state="down"}') $(metric 'gpusched_gpus_by_state{state="draining"}')" \
    "3 12 1 8" "GPUs by state: free 3, allocated 12, down 1, draining 8"
# allocation over the GPUs not down: 12 / (24 - 1) = 0.521739
is "$(metric gpusched_gpu_allocation_ratio)" 0.521739 "allocation ratio 12/23, the down GPU apart"
# the deprecated alias keeps its old meaning for one release: every GPU out
# of service counts as used: (12 + 1 down + 8 drained idle) / 24 = 0.875
is "$(metric gpusched_util_alloc)" 0.875000 "gpusched_util_alloc (deprecated) unchanged: 21/24"
is "$(metric 'gpusched_nodes{state="up"}') $(metric 'gpusched_nodes{state="drain"}') $(metric 'gpusched_nodes{state="down"}')" \
    "2 1 0" "nodes: 2 up, 1 drain, 0 down"
is "$(metric 'gpusched_node_state{node="node-2",state="drain"}') $(metric 'gpusched_node_state{node="node-2",state="up"}')" \
    "1 0" "node-2's state series: drain 1, up 0"
is "$(metric 'gpusched_team_allocated_gpus{team="a"}') $(metric 'gpusched_team_quota_gpus{team="a"}') $(metric 'gpusched_team_quota_usage_ratio{team="a"}')" \
    "8 8 1" "team a: 8 GPUs of its quota 8, ratio 1 (full)"
is "$(metric 'gpusched_team_allocated_gpus{team="b"}') $(grep -c 'quota.*team="b"' "$M")" "4 0" \
    "team b: 4 GPUs, no quota series"
is "$(metric 'gpusched_jobs_pending{reason="quota"}') $(metric 'gpusched_jobs_pending{reason="shortage"}') $(grep '^gpusched_jobs_pending' "$M" | awk '{ s += $2 } END { print s }')" \
    "1 1 2" "pending by reason: quota 1, shortage 1, 2 in all"
is "$(metric 'gpusched_node_failures_total{scope="gpu"}') $(metric 'gpusched_node_failures_total{scope="node"}')" \
    "1 0" "failures: one GPU down, no node"

# Time limit and a completed job.  a2, b2 cancelled (fifo: b2 would hold
# the head).  t1 (1 GPU, limit 2 s, no checkpoint) is stopped at its limit:
# all its work, 1 GPU x its run until the stop order (>= 2 s), is lost to
# time_limit; c1 (1 GPU, sleep 1) completes: ETTR 1.
api POST /v1/jobs/a2/cancel
api POST /v1/jobs/b2/cancel
submit '{"id":"t1","gpus":1,"time_limit":"2s","command":["sleep","30"]}'
submit '{"id":"c1","gpus":1,"command":["sleep","1"]}'
wait_state t1 timeout 20
ok $? "t1 ends at its time limit"
wait_state c1 completed 20
ok $? "c1 completes"
# both ended: t1's loss is counted, and c1's useful time
fetch '^gpusched_lost_gpu_seconds_total\{cause="time_limit"\} [1-9]' \
    '^gpusched_ended_job_useful_gpu_seconds_total [1-9]'
t1=$(curl -s "$URL/v1/jobs/t1" | jq '.end_epoch - .first_start_epoch')
c1=$(curl -s "$URL/v1/jobs/c1" | jq '.end_epoch - .first_start_epoch')
lt=$(metric 'gpusched_lost_gpu_seconds_total{cause="time_limit"}')
echo "# t1 ran $t1 s (lost $lt GPU-s), c1 $c1 s"
grep "^gpusched_ended" "$M" | sed "s/^/# /"
ok "$(awk -v l="$lt" -v w="$t1" 'BEGIN { print !(l >= 2 && l <= w + 0.002) }')" \
    "lost to time_limit: t1's run to its stop, 2 <= $lt <= $t1 GPU-s"
# Ended jobs: c1's useful time equals its wall time (completed, one run);
# t1 adds wall time only (nothing saved).  The engine's end of a run is
# when it hears of the exit, a little after the job object's end (the
# supervisor's record): up to 0.5 s later on a loaded machine.
u=$(metric gpusched_ended_job_useful_gpu_seconds_total)
w=$(metric gpusched_ended_job_wall_gpu_seconds_total)
ok "$(awk -v u="$u" -v c="$c1" 'BEGIN { print !(u >= c - 0.002 && u <= c + 0.5) }')" \
    "ended useful GPU-s $u = c1's run ($c1 s x 1 GPU)"
ok "$(awk -v u="$u" -v w="$w" -v t="$t1" 'BEGIN { d = w - u; print !(d >= t - 0.002 && d <= t + 0.5) }')" \
    "ended wall GPU-s $w = c1's run + t1's run ($t1 s)"
ok "$(near "$(metric 'gpusched_job_ettr_ratio{jobs="ended"}')" "$(echo "scale=8; $u / $w" | bc)" 0.001)" \
    "ETTR of the ended jobs = useful / wall = $u / $w"

# Node failure: node-1 down while a1 (8 GPUs, no checkpoint) runs: a1 is
# requeued (retry.on node_failure by default) losing all its work, which
# its job object counts as lost_gpu_s; one restart, one node failure.
api POST /v1/nodes/node-1/down '{"reason":"test"}'
wait_state a1 pending 10
ok $? "a1 requeued by node-1's failure"
fetch '^gpusched_node_failures_total\{scope="node"\} 1$'
la=$(curl -s "$URL/v1/jobs/a1" | jq .lost_gpu_s)
ln=$(metric 'gpusched_lost_gpu_seconds_total{cause="node_failure"}')
ok "$(awk -v a="$la" -v b="$ln" 'BEGIN { print !(a > 0 && a == b) }')" \
    "lost to node_failure = a1's lost_gpu_s ($la)"
is "$(metric 'gpusched_lost_gpu_seconds_total{cause="preemption"}') $(metric 'gpusched_lost_gpu_seconds_total{cause="other"}')" \
    "0.000 0.000" "nothing lost to preemption or other causes"
is "$(metric 'gpusched_job_restarts_total{cause="node_failure"}') $(metric 'gpusched_job_restarts_total{cause="preemption"}')" \
    "1 0" "restarts: 1 by node failure, 0 by preemption"
is "$(metric 'gpusched_node_failures_total{scope="node"}') $(metric 'gpusched_nodes{state="down"}')" "1 1" \
    "node failures: 1; 1 node down"
# the dashboard's Failures panel has the same numbers (its document's "failures")
api GET '/v1/dashboard?k=8'
is "$(field "$body" '[.failures.lost_gpu_s.node_failure, .failures.restarts.node_failure, .failures.node_failures.node, .failures.node_failures.gpu] | map(tostring) | join(" ")')" \
    "$la 1 1 1" "the dashboard's failures: lost $la GPU-s and 1 restart by node failure, 1 node and 1 GPU failure"
grep -E '^gpusched_(lost_gpu|job_restarts|node_failures|ended_job|job_ettr_ratio\{jobs="ended")' "$M" >"$TMP/before"

# A restart keeps the counters (journal meta)
daemon_stop
daemon_start "$S" --cluster "$TMP/c.yaml" --policy "$TMP/p.yaml"
ok $? "gpuschedd restarts on the same journal"
curl -s "$URL/metrics" >"$M"
grep -E '^gpusched_(lost_gpu|job_restarts|node_failures|ended_job|job_ettr_ratio\{jobs="ended")' "$M" >"$TMP/after"
run diff "$TMP/before" "$TMP/after"
is "$rc" 0 "lost, restarts, node failures and ended ETTR the same after the restart"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
is "$(wc -l <"$TMP/after" | tr -d ' ')" 12 "all 12 of those series are there"
run promtool check metrics <"$M"
is "$rc $out" "0 " "promtool: the exposition after the restart is clean too"
for j in a1 b1; do api POST "/v1/jobs/$j/cancel"; done
wait_state b1 cancelled 20
ok $? "b1 cancelled"
daemon_stop
sanitizer_clean

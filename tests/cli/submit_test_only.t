#!/bin/sh
# `gpusched submit --test-only` (POST /v1/jobs?test_only=1) against a real
# gpuschedd: where and when a job would start, by the engine's own
# estimate, with nothing submitted or journaled.  Cluster door-cluster.yaml
# (3 x 8 GPUs), pack placement, EASY backfill on the users' time limits
# (live-basic.yaml).  Idle: a 4-GPU job would start now on node-1's GPUs
# 0-3 (pack on an idle cluster takes the first node, lowest GPUs first).
# Full (three 8-GPU jobs with a 10 min limit): an 8-GPU job would start when
# the first of them is expected to end, by its time limit: its start + 600 s.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 16
G=$GPUSCHED
start_daemon --cluster "$DATA/door-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts"
db() { sqlite3 "$STATE/journal.db" "$1"; }

run "$G" submit --test-only --gpus 4 -- sleep 1
is "$rc" 0 "idle cluster: --test-only exits 0"
is "$out" "would start now on node-1:0,node-1:1,node-1:2,node-1:3" "it would start now on node-1's first 4 GPUs"
run "$G" submit --test-only --json --gpus 4 -- sleep 1
is "$(printf '%s' "$out" | jq -r '[.test_only, .would_start, .basis, (.nodes | join(","))] | map(tostring) | join(" ")')" \
    "true now now node-1" "--json: would_start now, basis now, nodes"
is "$("$G" queue --all --json | jq '.jobs | length')" 0 "no job was made"
is "$(db 'select count(*) from jobs'):$(db 'select count(*) from events')" "0:0" "nothing journaled"

for i in 1 2 3; do
    "$G" submit --id f$i --gpus 8 --time-limit 10m -- sh -c "$job_prelude exec sleep 60" >/dev/null
done
WAIT_S=20 wait_for sh -c "[ \"\$(\"$G\" queue --json --state running | jq '.jobs | length')\" = 3 ]"
ok $? "three 8-GPU jobs fill the cluster"
ev=$(db 'select count(*) from events')
run "$G" submit --test-only --json --gpus 8 --time-limit 5m -- sleep 1
is "$rc" 0 "full cluster: --test-only exits 0"
is "$(printf '%s' "$out" | jq -r .would_start)" later "it would start later"
is "$(printf '%s' "$out" | jq -r .reason.code)" shortage "it would wait for GPUs (shortage)"
like "$(printf '%s' "$out" | jq -r .basis)" "^profile$\|^reservation$" "the basis is the engine's plan"
first=$("$G" queue --all --json | jq '[.jobs[].start_epoch] | min')
d=$(printf '%s' "$out" | jq --argjson f "$first" '.estimated_start_epoch - ($f + 600) | fabs')
ok "$(awk -v d="$d" 'BEGIN { exit !(d < 1.5) }'; echo $?)" \
    "estimated start = the first filler's start + its 600 s limit (off by $d s)"
run "$G" submit --test-only --gpus 8 --time-limit 5m -- sleep 1
like "$out" "^would start 20[0-9-]*T[0-9:]*Z (basis [a-z]*)" "the text says when and on what basis"
like "$out" "^waits: shortage: " "... and why it would wait"
is "$(db 'select count(*) from jobs'):$(db 'select count(*) from events')" "3:$ev" \
    "nothing more journaled (3 jobs, the same events)"
run "$G" submit --test-only --gpus 100 -- sleep 1
like "$rc $out" "^1 .*gpus: 100 requested, the cluster has 24 GPUs (field gpus, never_runs, HTTP 400)" \
    "a job that can never run: refused as a submit would be"

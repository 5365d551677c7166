#!/bin/sh
# gpuschedd operations: /metrics parsed by a real Prometheus text parser
# (python3-prometheus-client), /v1/cluster and /v1/nodes, SIGHUP policy
# reload (a bad file is refused and the old policy stays), --clock-scale.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 16

cp "$ROOT/examples/seed-policy.yaml" "$TMP/policy.yaml"
daemon_start "$TMP/s" --policy "$TMP/policy.yaml"
api POST /v1/jobs '{"id":"m1","gpus":2,"team":"team-a","command":["sleep","30"]}'
api POST /v1/jobs '{"id":"m2","gpus":8,"team":"team-b","command":["true"]}'
api POST /v1/jobs '{"id":"m3","gpus":40,"command":["true"]}' # refused at the door
wait_state m1 running
wait_state m2 completed
curl -s "$URL/metrics" >"$TMP/metrics"
# Debian's python3-prometheus-client lives with /usr/bin/python3
PY=python3
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null && PY=/usr/bin/python3
"$PY" - "$TMP/metrics" >"$TMP/parsed" 2>&1 <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
fam = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
def val(name, **labels):
    for f in fam.values():
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
print("families", len(fam))
print("running_team_a", val("gpusched_jobs", state="running", team="team-a"))
print("completed_team_b", val("gpusched_jobs_ended_total", outcome="completed", team="team-b"))
print("rejected", val("gpusched_jobs_ended_total", outcome="rejected", team="default"))
print("gpus", val("gpusched_gpus"), "idle", val("gpusched_gpus_idle"))
print("sk", val("gpusched_schedulability", k="8"))
print("util", val("gpusched_util_alloc"))
print("wait_count", val("gpusched_queue_wait_seconds_count"))
print("pass_count_pos", val("gpusched_pass_duration_seconds_count") > 0)
print("commit_count_pos", val("gpusched_journal_commit_seconds_count") > 0)
print("types", sorted(set(f.type for f in fam.values())))
PY
sed 's/^/# /' "$TMP/parsed"
like "$(cat "$TMP/parsed")" "^families [3-9][0-9]" "the exposition parses (prometheus_client) into its families"
like "$(cat "$TMP/parsed")" "^running_team_a 1.0" "jobs by state and team: team-a has 1 running"
like "$(cat "$TMP/parsed")" "^completed_team_b 1.0" "ended jobs by outcome and team"
like "$(cat "$TMP/parsed")" "^rejected None" "the 40-GPU job, refused at the door, is no ended job"
# 32 GPUs, m1 holds 2 of node-1's 8: idle 30, S_8 = 3 whole nodes,
# util_alloc = 2 / 32 = 0.0625
like "$(cat "$TMP/parsed")" "^gpus 32.0 idle 30.0" "GPU totals"
like "$(cat "$TMP/parsed")" "^sk 3.0" "S_8 = 3 (node-1 has 6 free)"
like "$(cat "$TMP/parsed")" "^util 0.0625" "util_alloc = 2/32"
like "$(cat "$TMP/parsed")" "^wait_count 2.0" "two jobs started: two queue waits"
like "$(cat "$TMP/parsed")" "histogram" "histograms are typed as such"
api GET /v1/cluster
is "$(field "$body" '(.gpus|tostring) + " " + (.free_gpus|tostring) + " " + (.schedulability.value|tostring)')" \
    "32 30 3" "/v1/cluster: gpus, free, S_k"
api GET /v1/nodes
is "$(field "$body" '[.nodes[] | .name + "=" + (.free_gpus|tostring)] | join(" ")')" \
    "node-1=6 node-2=8 node-3=8 node-4=8" "/v1/nodes: free GPUs per node"

# SIGHUP: a broken policy is refused, the old one stays
echo 'queue: { policy: no_such_policy }' >"$TMP/policy.yaml"
kill -HUP "$DPID"
sleep 0.5
like "$(cat "$TMP/daemon.err")" "SIGHUP: policy refused, keeping the old one" "a bad policy is refused"
api GET /v1/jobs/m1
is "$(field "$body" '.state')" running "the running job is untouched"
cp "$ROOT/examples/seed-policy.yaml" "$TMP/policy.yaml"
kill -HUP "$DPID"
sleep 0.5
like "$(cat "$TMP/daemon.err")" "SIGHUP: policy .* reloaded" "a good one is taken between passes"
api POST /v1/jobs/m1/cancel
wait_state m1 cancelled
daemon_stop

# --clock-scale 60: a 60 s runtime cap (cap.yaml) is 1 s of wall time
daemon_start "$TMP/s2" --clock-scale 60 --policy "$ROOT/tests/data/daemon/cap.yaml"
api POST /v1/jobs '{"id":"k","command":["sleep","30"]}'
wait_state k killed 10
api GET /v1/jobs/k
# not before the cap, and far before the job's own end (sleep 30 = 1,800 s
# of engine time): 600 s of engine time is 10 s of wall time, room for a
# loaded machine's turns (a cap read in wall time would let the job end
# on its own, "completed")
is "$(field "$body" '(.end_epoch - .start_epoch) | (. >= 55 and . <= 600)')" true \
    "killed at the 60 s cap in engine time (about 1 s of wall time)"
daemon_stop
sanitizer_clean

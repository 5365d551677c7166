#!/bin/sh
# Bounded metrics label sets (docs/daemon.md, "Metrics"): the
# gpusched_jobs_ended_total series of a team that no longer exists (no live
# job, no quota, every ended job purged by retention) stop being exported
# once the purge has run; at most a cap of teams (500; GPUSCHEDD_METRICS_TEAMS
# lowers it here) get label sets of their own, the others are summed under
# team="(other)", and no job is lost from the sums.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 12

S=$TMP/s
metrics() { curl -s "$URL/metrics"; }
ended_teams() { metrics | sed -n 's/^gpusched_jobs_ended_total{.*team="\([^"]*\)"}.*/\1/p' | sort -u | tr '\n' ' '; }
sub() { # ID TEAM COMMAND-JSON
    api POST /v1/jobs "{\"id\":\"$1\",\"team\":\"$2\",\"gpus\":1,\"command\":$3}"
}
# the seed policy gives team-a and team-b quotas
daemon_start "$S" --retain 3s --policy "$ROOT/examples/seed-policy.yaml"
sub g1 gone '["true"]'
sub g2 gone '["false"]'
sub a1 team-a '["true"]'
sub s1 stay '["sleep","600"]'
wait_state g1 completed; wait_state g2 failed; wait_state a1 completed; wait_state s1 running
is "$(ended_teams)" "gone team-a " "ended series for teams gone and team-a"
sleep 3.5 # g1, g2, a1 ended more than --retain 3s ago
daemon_stop TERM
daemon_start "$S" --retain 3s --policy "$ROOT/examples/seed-policy.yaml" # the purge runs in the first turn after a start
for _ in $(seq 100); do grep -q 'retention: purged 3 ended jobs' "$TMP/daemon.err" && break; sleep 0.05; done
like "$(cat "$TMP/daemon.err")" "retention: purged 3 ended jobs" "the 3 ended jobs are purged"
t=$(ended_teams)
ok "$(! printf '%s' "$t" | grep -q 'gone'; echo $?)" \
    "team gone (no live job, no quota, all purged): no series any more (teams: $t)"
like "$t" "team-a" "team-a (a quota in the policy) keeps its series"
like "$(metrics)" 'gpusched_jobs{state="running",team="stay"} 1' "team stay (a live job) is exported"
like "$(cat "$TMP/daemon.err")" "metrics: team gone has no job left" "the log says so"
api POST /v1/jobs/s1/cancel
wait_state s1 cancelled
daemon_stop TERM

# the cap: 3 label sets; 6 teams x 2 ended jobs, 2 teams with a live job
S2=$TMP/s2
GPUSCHEDD_METRICS_TEAMS=3 daemon_start "$S2"
for t in 1 2 3 4 5 6; do
    sub "c$t-1" "t$t" '["true"]'
    sub "c$t-2" "t$t" '["false"]'
done
sub l1 t1 '["sleep","600"]'
sub l7 t7 '["sleep","600"]'
for t in 1 2 3 4 5 6; do wait_state "c$t-1" completed; wait_state "c$t-2" failed; done
wait_state l1 running; wait_state l7 running
m=$(metrics)
teams=$(printf '%s\n' "$m" | sed -n 's/^gpusched_jobs\(_ended_total\)\{0,1\}{.*team="\([^"]*\)"}.*/\2/p' | sort -u)
is "$(printf '%s\n' "$teams" | grep -vc '^(other)$')" 3 "3 teams get label sets of their own (the cap)"
like "$teams" "(other)" "the rest are summed under team=\"(other)\""
is "$(printf '%s\n' "$m" | awk '/^gpusched_jobs_ended_total\{/ { s += $2 } END { print s }')" 12 \
    "the ended series still sum to the 12 ended jobs"
is "$(printf '%s\n' "$m" | awk '/^gpusched_jobs_ended_total\{outcome="failed"/ { s += $2 } END { print s }')" 6 \
    "... 6 of them failed"
is "$(printf '%s\n' "$m" | awk '/^gpusched_jobs\{state="running"/ { s += $2 } END { print s }')" 2 \
    "the live series sum to the 2 running jobs"
api POST /v1/jobs/l1/cancel
api POST /v1/jobs/l7/cancel
wait_state l1 cancelled; wait_state l7 cancelled
daemon_stop TERM
sanitizer_clean

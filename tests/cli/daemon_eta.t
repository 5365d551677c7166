#!/bin/sh
# The daemon's start-time promises (docs/eta.md, section 6).  A trace
# (tests/data/cli/live-equiv.csv: 52 jobs of 1-8 GPUs on the seed's 4 x 8
# cluster, EASY backfill on the users' time limits) is replayed into
# `gpuschedd --clock-scale X`; every job's object then carries the promise
# made at its submit (estimate_at_submit), the journal holds the same values,
# and the live calibration /metrics reports is recomputed here independently
# with awk from GET /v1/jobs: the jobs with a promised start that started,
# the median |first_start - promised start| and the share of those with a
# P90 bound that started by it.  Then, on the restarted daemon (same journal:
# the promises are still there), two promises derived by hand:
#   - a reservation behind a known running job: A holds all 32 GPUs with a
#     time limit of 1 h under duration_estimate: user, so B (8 GPUs) is
#     promised A's confirmed start + 3600 s (basis reservation: EASY reserves
#     for the head of the queue); the calibration is empty after the
#     restart, so the point shown is the engine's estimate and there is no
#     P90 bound yet (fewer than 20 comparable jobs);
#   - an estimate that cannot be made: C holds all GPUs without a time
#     limit, so D's start is unknown (basis unknown, start null).
# `why` and `queue` print them ("starts by about HH:MMZ", UTC).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 18
export TZ=UTC

case "${GS_VARIANT:-debug}" in san) X=5 ;; *) X=10 ;; esac
C=$ROOT/examples/seed-cluster.yaml
P=$DATA/live-equiv.yaml
T=$DATA/live-equiv.csv
DB=$STATE/journal.db

start_daemon --cluster "$C" --policy "$P" --clock-scale "$X"
ok $? "daemon starts with --clock-scale $X"
"$GPUSCHED" replay --trace "$T" --scale "$X" --wait --timeout 3m --out "$TMP/live.csv" \
    >/dev/null 2>"$TMP/replay.err"
ok $? "replay submits every job and waits for them"
sed 's/^/# /' "$TMP/replay.err"
URL=$GPUSCHED_SERVER
curl -s "$URL/v1/jobs?limit=1000" >"$TMP/jobs.json"
curl -s "$URL/metrics" >"$TMP/metrics"
njobs=$(awk -F, 'NR>1' "$T" | wc -l)
is "$(jq '[.jobs[] | select(.estimate_at_submit.basis != null)] | length' "$TMP/jobs.json")" \
    "$njobs" "every job has its promise at submit, with a basis"

# id first_start promised_start p90 (null = -), one line per job
jq -r '.jobs[] | [.id, (.first_start_epoch // "-"), (.estimate_at_submit.start_epoch // "-"),
       (.estimate_at_submit.p90_epoch // "-")] | @tsv' "$TMP/jobs.json" >"$TMP/promises"
# the live calibration, independently: median of an even count = mean of the two middle values
awk -F'\t' '$2 != "-" && $3 != "-" { d = $2 - $3; if (d < 0) d = -d; e[++n] = d
        if ($4 != "-") { b++; if ($2 <= $4) c++ } }
    END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (e[j] < e[i]) { x = e[i]; e[i] = e[j]; e[j] = x }
        m = n % 2 ? e[(n + 1) / 2] : (e[n / 2] + e[n / 2 + 1]) / 2
        printf "%d %.3f %d %s\n", n, m, b, b ? sprintf("%.6f", c / b) : "NaN" }' \
    "$TMP/promises" >"$TMP/mine"
read -r n med nb cov <"$TMP/mine"
metric() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/metrics"; }
echo "# $n compared, median |error| $med s (engine time), $nb with a P90 bound, coverage $cov"
ok $([ "$n" -ge 40 ]; echo $?) "most jobs were compared ($n of $njobs)"
is "$(metric gpusched_eta_window_jobs)" "$n" "/metrics: the jobs compared"
is "$(metric gpusched_eta_compared_total)" "$n" "/metrics: compared since the start"
ok $(awk -v a="$(metric gpusched_eta_median_abs_error_seconds)" -v b="$med" \
    'BEGIN { d = a - b; exit !(d < 0.002 && d > -0.002) }'; echo $?) \
    "/metrics: the median |error| ($(metric gpusched_eta_median_abs_error_seconds) s) is awk's ($med s)"
is "$(metric gpusched_eta_window_bound_jobs)" "$nb" "/metrics: the jobs with a P90 bound"
is "$(metric gpusched_eta_p90_coverage_ratio)" "$cov" "/metrics: the P90 coverage"

# the journal holds the promise the job object shows (ms)
sqlite3 -separator ' ' "file:$DB?mode=ro" \
    "SELECT id, coalesce(eta_cal_ms, '-'), coalesce(eta_p90_ms, '-'), eta_basis FROM jobs ORDER BY id" \
    >"$TMP/db" 2>"$TMP/db.err"
jq -r '.jobs[] | [.id, (if .estimate_at_submit.start_epoch then (.estimate_at_submit.start_epoch * 1000 | round | tostring) else "-" end),
       (if .estimate_at_submit.p90_epoch then (.estimate_at_submit.p90_epoch * 1000 | round | tostring) else "-" end),
       .estimate_at_submit.basis] | join(" ")' "$TMP/jobs.json" | sort >"$TMP/api"
sort "$TMP/db" >"$TMP/db.s"
ok $(cmp -s "$TMP/api" "$TMP/db.s"; echo $?) "the journal's eta columns are the job objects' promises"

stop_daemon
start_daemon --cluster "$C" --policy "$P" --clock-scale "$X"
URL=$GPUSCHED_SERVER
curl -s "$URL/v1/jobs?limit=1000" | jq -r '.jobs[] | [.id, (.first_start_epoch // "-"),
    (.estimate_at_submit.start_epoch // "-"), (.estimate_at_submit.p90_epoch // "-")] | @tsv' \
    >"$TMP/promises2"
ok $(cmp -s "$TMP/promises" "$TMP/promises2"; echo $?) "after a restart the promises at submit are the same"

# a reservation behind a known running job
WAIT_S=30
"$GPUSCHED" submit --id A --gpus 32 --time-limit 1h -- sleep 600 >/dev/null
wait_for is_state A running
"$GPUSCHED" submit --id B --gpus 8 --time-limit 10m -- true >/dev/null
a=$(curl -s "$URL/v1/jobs/A" | jq -r .start_epoch)
curl -s "$URL/v1/jobs/B" >"$TMP/B.json"
is "$(jq -r '.estimate_at_submit | [.basis, (.p90 // "none")] | join(" ")' "$TMP/B.json")" \
    "reservation none" "B: basis reservation, no P90 bound yet"
ok $(jq -e --argjson a "$a" '.estimate_at_submit as $e | ($e.engine_start_epoch - $a - 3600 | fabs) < 0.0015
        and $e.start_epoch == $e.engine_start_epoch and .estimate.start_epoch == $e.start_epoch' \
    "$TMP/B.json" >/dev/null; echo $?) "B is promised A's start + 1 h (at submit and now)"
# UTC to the minute, the date in front when not today (client_eta.c);
# rounded to the nearest second first, as the client does
sec=$(jq -r '.estimate_at_submit.start_epoch + 0.5 | floor' "$TMP/B.json")
hm="\([0-9-]\{10\}T\)\{0,1\}$(date -u -d "@$sec" +%H:%M)Z" # a grep BRE
run "$GPUSCHED" why B
like "$out" "^promise: starts by about $hm (basis reservation)$" "why B: starts by about $hm"
run "$GPUSCHED" queue
like "$out" "^B .*\[starts by about $hm\]$" "queue: B starts by about $hm"
curl -s "$URL/v1/dashboard" >"$TMP/dash.json"
ok $(jq -e --argjson a "$a" '.queue.items[] | select(.id == "B") |
        (.estimate.start_epoch - $a - 3600 | fabs) < 0.0015 and .estimate.basis == "reservation"
        and .estimate.start_in > 3000 and .estimate.start_in <= 3600
        and .estimate_at_submit.basis == "reservation"' "$TMP/dash.json" >/dev/null; echo $?) \
    "the dashboard's queue item of B has its promise"
"$GPUSCHED" cancel B >/dev/null 2>&1
"$GPUSCHED" cancel A >/dev/null
wait_for is_state A cancelled

# an estimate that cannot be made
"$GPUSCHED" submit --id Cx --gpus 32 -- sleep 600 >/dev/null
wait_for is_state Cx running
"$GPUSCHED" submit --id D --gpus 8 --time-limit 10m -- true >/dev/null
is "$(curl -s "$URL/v1/jobs/D" | jq -r '.estimate_at_submit | [.basis, .start, .engine_start] | map(tostring) | join(" ")')" \
    "unknown null null" "D: basis unknown, no start"
run "$GPUSCHED" why D
like "$out" "^promise: start unknown (basis unknown)$" "why D: start unknown"
"$GPUSCHED" cancel D >/dev/null 2>&1
"$GPUSCHED" cancel Cx >/dev/null
wait_for is_state Cx cancelled

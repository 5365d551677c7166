#!/bin/sh
# The dashboard of a live gpuschedd at 1,024 nodes x 8 GPUs with 10,000
# queued jobs (issue 16): how long GET /v1/dashboard takes and how long the
# page takes to render it in headless Chromium.  The times are printed
# (bench/README.md keeps them), not asserted; what is asserted is that the
# page shows all of it: 8,192 cells, the queue paged, no console errors.
#
# Load: three multi-node jobs of team infra (no quota; topology any) hold
# 3,000 + 1,500 + 700 = 5,200 GPUs; then 10,000 jobs of teams a-f (quota
# 16 GPUs each) are queued under fifo: a few start, and once the head of
# the queue cannot start (an 8-GPU job with only 4+4 pods left free, or a
# team at its quota) the rest wait behind it.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/dash_lib.sh"
plan 9
ART=$ROOT/build/test-artifacts
mkdir -p "$ART"
V=${GS_VARIANT:-manual}
trap 'dash_daemon_kill "$TMP/d"; rm -rf "$TMP"' EXIT
dash_big_cluster "$TMP/big.yaml"
printf 'queue:\n  policy: fifo\n  quota: { team-a: 16, team-b: 16, team-c: 16, team-d: 16, team-e: 16, team-f: 16 }\n' \
    >"$TMP/quota.yaml"
mkdir "$TMP/d"
dash_daemon_start "$TMP/d" "$TMP/big.yaml" "$TMP/quota.yaml" --sync normal --clock-scale 60
ok "$([ -n "$URL" ]; echo $?)" "gpuschedd is up with 1,024 nodes"
st=""
for j in "fill-1 3000" "fill-2 1500" "fill-3 700"; do
    set -- $j
    st="$st $(curl -s -o /dev/null -w '%{http_code}' -XPOST -H "Content-Type: application/json" "$URL/v1/jobs" \
        -d "{\"id\":\"$1\",\"gpus\":$2,\"team\":\"infra\",\"topology\":\"any\",\"command\":[\"sleep\",\"900\"]}")"
done
is "$st" " 201 201 201" "three multi-node fill jobs accepted"
dash_queue_cfg "$TMP/cfg" "$URL" 10000
t0=$(date +%s%N)
curl -s --no-progress-meter --parallel --parallel-max 16 -K "$TMP/cfg" >"$TMP/codes"
t1=$(date +%s%N)
is "$(grep -c '^201 ' "$TMP/codes")" 10000 "10,000 jobs accepted"
sort "$TMP/codes" | uniq -c | sed 's/^/# HTTP status: /'
echo "# 10,000 submits (16 in parallel, --sync normal): $(( (t1 - t0) / 1000000 )) ms"
sleep 1
t0=$(date +%s%N)
curl -s -o "$TMP/doc.json" "$URL/v1/dashboard?q_limit=50&r_limit=50"
t1=$(date +%s%N)
echo "# GET /v1/dashboard at 1,024 nodes, 10,000 queued: $(( (t1 - t0) / 1000000 )) ms, $(wc -c <"$TMP/doc.json") bytes"
# each team holds at most 16 GPUs; the rest of its jobs wait
is "$(jq '.queue.total > 9800' "$TMP/doc.json")" true "almost all of the 10,000 wait (quota 16 per team)"
is "$(jq '[.teams[] | select(.team != "infra") | .gpus <= 16] | all' "$TMP/doc.json")" true \
    "no team over its quota of 16"
run $CDP --size 1400x900 --timeout 60 "$URL/" 'wait:document.body.dataset.ready' \
    'eval:document.body.dataset.readyMs + " " + document.body.dataset.renderMs' \
    'eval:document.querySelectorAll(".c").length' \
    'eval:document.querySelectorAll("#queue-table tbody tr").length' \
    'eval:document.querySelector("#s-map").getBoundingClientRect().height' \
    'wait:document.querySelector("[data-chart=sk] svg")' \
    "view:$ART/$V-dashboard-live-1024-top.png" \
    'eval:(document.getElementById("s-queue").scrollIntoView(), 0)' \
    "view:$ART/$V-dashboard-live-1024-queue.png" \
    "shot:$ART/$V-dashboard-live-1024.png"
set -- $(ev 1 | tr -d '"')
echo "# page at 1,024 nodes x 8 GPUs, 10,000 queued, live: ready ${1} ms after navigation, render ${2} ms"
is "$(printf '%s\n' "$out" | sed -n 's/^console-errors: //p')" 0 "no console errors"
is "$(ev 2)" 8192 "8,192 GPU cells"
is "$(ev 3)" 50 "the queue's first page: 50 rows"
h=$(ev 4 | cut -d. -f1)
if [ "${h:-9999}" -le 900 ]; then ok 0 "map fits one screen (${h}px of 900)"; else ok 1 "map fits one screen (${h}px)"; fi

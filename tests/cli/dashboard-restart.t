#!/bin/sh
# The live dashboard after a daemon restart (issue 25), in headless Chromium
# at 1,280 and 1,920 px (tests/cli/cdp.py, the DevTools protocol): the
# history comes back from the journal, k follows what waits (with a
# selector), no panel overflows the viewport, the map's cells name their
# jobs and the nodes their GPU type, and the failure numbers are shown.
#
# Cluster: node-1..4, 8 GPUs split in NVLink domains 4 + 4, so the
# cluster's own k is 4.  Under spread placement j1 (4 GPUs) goes to node-1,
# j2 (8) to node-2, j3 (4) to node-3, j4 (4) to node-4 (each time the node
# with the most free GPUs, first in order): 4 free on nodes 1, 3, 4, none
# on node-2.  w1 asks for 8: no node has 8 free, so it waits, and
# S_8 = 0 while S_4 = 3 (one free domain of 4 on each of nodes 1, 3, 4).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/dash_lib.sh"
plan 22
ART=$ROOT/build/test-artifacts
mkdir -p "$ART"
V=${GS_VARIANT:-manual}
D=$TMP/d
mkdir "$D"
trap 'dash_daemon_stop; dash_daemon_kill "$D"; rm -rf "$TMP"' EXIT
cat >"$TMP/c.yaml" <<'EOF'
cluster:
  gpu_types:
    H100-80G: { memory_gb: 80 }
  nodes:
    - name: node-[1-4]
      gpus: 8
      gpu_type: H100-80G
      nvlink_domains: [4, 4]
EOF
printf 'queue:\n  policy: fifo\nplacement:\n  strategy: spread\n' >"$TMP/p.yaml"
# --clock-scale 60: a history sample (every 30 s of engine time) each 0.5 s
dash_daemon_start "$D" "$TMP/c.yaml" "$TMP/p.yaml" --clock-scale 60
ok "$([ -n "$URL" ]; echo $?)" "gpuschedd is up"
running() { # ID: until it runs (10 s)
    i=0
    until [ "$(curl -s "$URL/v1/jobs/$1" | jq -r .state)" = running ] || [ $i -ge 100 ]; do
        sleep 0.1; i=$((i + 1))
    done
}
st=""
for j in "j1 4 a" "j2 8 a" "j3 4 b" "j4 4 b"; do
    set -- $j
    st="$st $(dash_submit "$1" "$2" "$3")"
    running "$1"
done
is "$st" " 201 201 201 201" "four jobs accepted"
# /v1/cluster is rebuilt at a cadence set by its cost (slow under ASan): read until it shows
i=0
until [ "$(curl -s "$URL/v1/cluster" | jq -c '[.nodes[].free]')" = '[4,0,4,4]' ] || [ $i -ge 150 ]; do
    sleep 0.2; i=$((i + 1))
done
is "$(curl -s "$URL/v1/cluster" | jq -c '[.nodes[].free]')" '[4,0,4,4]' "spread: 4, 0, 4, 4 GPUs free"
is "$(dash_submit w1 8 b)" 201 "w1 (8 GPUs) accepted"
run curl -s "$URL/v1/dashboard"
i=0
while [ "$(printf '%s' "$out" | jq '[.history.samples >= 4, .queue.total == 1] | all')" != true ] &&
      [ $i -lt 150 ]; do
    sleep 0.2; i=$((i + 1)); run curl -s "$URL/v1/dashboard"
done
is "$(printf '%s' "$out" | jq -c '[.schedulability.k, .schedulability.value, .schedulability.k_basis, .schedulability.k_choices]')" \
    '[8,0,"queue",[4,8]]' "k = 8 from the waiting w1 (not the cluster's 4): S_8 = 0; choices 4, 8"
run curl -s "$URL/v1/dashboard?k=4"
is "$(printf '%s' "$out" | jq -c '[.schedulability.k, .schedulability.value, .schedulability.k_basis, ([.nodes[].units | length] | add)]')" \
    '[4,3,"chosen",3]' "?k=4: S_4 = 3, three units (one domain on nodes 1, 3, 4)"
before=$(curl -s "$URL/v1/dashboard" | jq -c '[.time, .history.samples]')
echo "# before the restart: [engine time, samples] $before"

# Restart: SIGTERM (the jobs run on and are re-adopted), then the same state
kill "$DPID"
wait "$DPID"
DPID=
dash_daemon_start "$D" "$TMP/c.yaml" "$TMP/p.yaml" --clock-scale 60
# ready once the journal is replayed and the four jobs re-adopted (slow under ASan on a loaded machine)
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 200 ] &&
      [ "$(curl -s "$URL/v1/dashboard" | jq -c '[.running.total, .queue.total]')" = '[4,1]' ] ||
      [ $i -ge 150 ]; do
    sleep 0.2; i=$((i + 1))
done
ok "$([ -n "$URL" ]; echo $?)" "gpuschedd is up again on the same journal"
run curl -s "$URL/v1/dashboard"
t_stop=$(printf '%s' "$before" | jq '.[0]')
n_stop=$(printf '%s' "$before" | jq '.[1]')
h=$(printf '%s' "$out" | jq -c '[.history.from, .history.samples, (.charts.sk // "" | length > 0)]')
echo "# after: [from, samples, S_k chart] $h"
ok "$(printf '%s' "$h" | jq --argjson t "$t_stop" --argjson n "$n_stop" \
    'if .[0] < $t and .[1] >= $n and .[2] then 0 else 1 end')" \
    "history after the restart: from before it ($n_stop+ samples, from < t=$t_stop s), charts drawn"
is "$(printf '%s' "$out" | jq -c '[.running.total, .queue.total]')" '[4,1]' "the four jobs re-adopted, w1 waiting"

# The page at two widths.  Geometry: every section's right edge within the
# viewport and no section wider inside than its box (scrollWidth); each
# cell's text (the map writes the job id in it)
GEOM='[...document.querySelectorAll("main section")].filter(s => s.offsetParent).map(s => { const r = s.getBoundingClientRect(); return (r.right <= innerWidth + 0.5 && s.scrollWidth <= s.clientWidth + 1) ? "" : s.id + ":" + Math.round(r.right) + "/" + s.scrollWidth + ">" + s.clientWidth; }).join("")'
CELLS='[...document.querySelectorAll(".node")].map(n => n.dataset.node + "=" + [...n.querySelectorAll(".c")].map(c => c.textContent || "-").join(",")).join(" ")'
for W in 1280 1920; do
    run $CDP --size "${W}x900" --timeout 40 "$URL/" 'wait:document.body.dataset.ready' \
        'wait:document.querySelector("[data-chart=sk] svg")' \
        "eval:$GEOM" "eval:$CELLS" \
        'eval:document.querySelector(".node[data-node=node-1] .nl").textContent' \
        'eval:document.getElementById("sk").textContent.slice(0, 60)' \
        'eval:(() => { const t = document.getElementById("teams-table").getBoundingClientRect(); return t.right <= innerWidth && t.width > 0; })()' \
        'eval:document.querySelectorAll("#fail-table tbody tr").length' \
        'eval:(() => { const s = document.getElementById("ksel"); s.value = "4"; s.dispatchEvent(new Event("change", {bubbles: true})); return s.value; })()' \
        'wait:document.getElementById("sk").textContent.indexOf("S_4 = 3") >= 0' \
        "eval:$GEOM" \
        "shot:$TMP/dash-$W.png"
    ok $rc "chromium at $W px: the page loads, the history chart is drawn, k can be chosen"
    [ $rc -eq 0 ] || printf "%s\n" "$out" | sed "s/^/# /"
    is "$(printf '%s\n' "$out" | sed -n 's/^console-errors: //p')" 0 "$W px: no console errors"
    is "$(ev 1)|$(ev 8)" '""|""' "$W px: no panel overflows the viewport (before and after choosing k)"
    is "$(ev 2)" '"node-1=j1,j1,j1,j1,-,-,-,- node-2=j2,j2,j2,j2,j2,j2,j2,j2 node-3=j3,j3,j3,j3,-,-,-,- node-4=j4,j4,j4,j4,-,-,-,-"' \
        "$W px: the cells name their jobs (spread: each job from GPU 0)"
    like "$(ev 3)" 'H100-80G' "$W px: node-1's label gives its GPU type"
    cp "$TMP/dash-$W.png" "$ART/$V-dashboard-restart-$W.png" 2>/dev/null
done
like "$(ev 4 | sed 's/^"//')" 'k = 4.*S_8 = 0' "the selector offers k = 4; S_8 = 0 shown (auto k, 1,920 px run)"
is "$(ev 5) $(ev 6)" "true 4" "the Teams table fits; the Failures panel has 4 causes"
dash_daemon_stop
is "$(cat "$D"/err | grep -c 'AddressSanitizer\|LeakSanitizer\|runtime error')" 0 \
    "no sanitizer report from the daemon"

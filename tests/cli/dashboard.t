#!/bin/sh
# gpusched frag --html: the dashboard page of a snapshot (issue 16), loaded
# in real headless Chromium through the DevTools protocol (tests/cli/cdp.py):
# no console errors, the seed's map (free 2, 3, 8, 7; node-3 the one unit
# for an 8-GPU job), the queue with its reason, and the page at 1,024 nodes
# x 8 GPUs with 10,000 queued jobs (its load time is printed, not asserted).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/dash_lib.sh"
plan 30
C=$ROOT/examples/seed-cluster.yaml
S=$ROOT/examples/seed-snapshot.json
ART=$ROOT/build/test-artifacts
mkdir -p "$ART"
V=${GS_VARIANT:-manual}

run "$GPUSCHED" frag --cluster "$C" --state "$S" --html "$TMP/seed.html"
ok $rc "frag --html exits 0"
like "$out" "free GPUs: 20 of 32" "frag still prints its text report"
# self-contained: no src= or href= at all (no scripts, styles, fonts or images
# from elsewhere), no URL other than the SVG namespace
is "$(grep -oE '(src|href)="[^"]*' "$TMP/seed.html" | grep -vc '="data:')" 0 "no src/href in the page but data: URIs"
is "$(grep -oE 'https?://[^"]*' "$TMP/seed.html" | grep -v 'www.w3.org/2000/svg' | wc -l)" 0 \
    "no URL in the page"
run "$GPUSCHED" frag --cluster "$C" --state "$S" --html "$TMP/no/such/dir/x.html"
is "$rc" 1 "unwritable --html path: exit 1"
# a snapshot with running jobs and node states (a saved Slurm snapshot):
# the page names the running jobs and shows the drained node
jq '. + {nodes: {"node-3": "drain"}}' "$ROOT/tests/data/slurm/snapshot-running.json" >"$TMP/run.json"
run "$GPUSCHED" frag --cluster "$C" --state "$TMP/run.json" --html "$TMP/run.html"
is "$(grep -o '{"id":"a1","team":"a","gpus":6,"state":"running"' "$TMP/run.html" | head -1)" \
    '{"id":"a1","team":"a","gpus":6,"state":"running"' "running job a1 (6 GPUs, team a) on the page"
is "$(grep -o '"name":"node-3","state":"[a-z]*"' "$TMP/run.html")" '"name":"node-3","state":"drain"' \
    "node-3 shown drained"

if [ -z "$CHROME" ]; then
    i=7
    while [ $i -lt 30 ]; do i=$((i + 1)); echo "ok $i # skip chromium not installed"; done
    exit 0
fi

# cdp URL STEPS...: output in $out, exit status in $rc
cdp() { run $CDP --size 1400x900 --timeout 60 "$@"; }


cdp "file://$TMP/seed.html" 'wait:document.body.dataset.ready' \
    'eval:[...document.querySelectorAll(".node")].map(n => n.dataset.node + "=" + n.dataset.free).join(" ")' \
    'eval:[...document.querySelectorAll(".node.unit")].map(n => n.dataset.node).join(" ")' \
    'eval:document.querySelectorAll(".c").length' \
    'eval:document.querySelectorAll(".c.b").length' \
    'eval:document.getElementById("sk").textContent' \
    'eval:[...document.querySelectorAll("#queue-table tbody tr")].map(r => r.dataset.job + "/" + r.dataset.reason).join(" ")' \
    'eval:document.querySelector("#queue-table tbody tr").textContent' \
    'eval:document.querySelector(".node[data-node=node-1] .c.b").title' \
    "shot:$ART/$V-dashboard-seed.png"
ok $rc "chromium loads the seed's page"
is "$(printf '%s\n' "$out" | sed -n 's/^console-errors: //p')" 0 "no console errors or warnings"
is "$(ev 1)" '"node-1=2 node-2=3 node-3=8 node-4=7"' "map: free 2, 3, 8, 7 (the seed's snapshot)"
is "$(ev 2)" '"node-3"' "map: node-3 alone highlighted for 8-GPU jobs"
is "$(ev 3)" 32 "map: 32 GPU cells (4 nodes x 8)"
# busy: node-1 GPUs 0-5, node-2 0-4, node-4 0: 6 + 5 + 1
is "$(ev 4)" 12 "map: 12 busy cells (6 + 5 + 1)"
like "$(ev 5)" 'S_8 = 1.*node-3' "S_8 = 1 with node-3 named as the unit"
is "$(ev 6)" '"big/none"' "queue: big, which fits now (reason none)"
like "$(ev 7)" 'starts it on node-3:0-7' "queue: the reason's numbers name node-3's GPUs"
like "$(ev 8)" 'node-1 GPU 0: busy' "hover text of a busy cell names its node and GPU"

# node-3 split 4+4: nothing can take an 8-GPU job; 8 GPUs of topology fragmentation
run "$GPUSCHED" frag --cluster "$DATA/split-node3.yaml" --state "$S" --html "$TMP/split.html"
cdp "file://$TMP/split.html" 'wait:document.body.dataset.ready' \
    'eval:document.querySelectorAll(".node.unit, .dom.unit").length' \
    'eval:document.querySelectorAll(".node[data-node=node-3] .dom").length' \
    'eval:document.getElementById("sk").textContent'
is "$(ev 1)" 0 "[4,4] node-3: no unit highlighted"
is "$(ev 2)" 2 "[4,4] node-3: drawn as two NVLink domains"
like "$(ev 3)" 'S_8 = 0.* 8 because they are split across NVLink domains' "[4,4]: S_8 = 0, 8 GPUs topology"

# multi-node domains: nvl-1 and nvl-2 share domain rack-a, solo has none;
# k = 4 (the largest NVLink domain); nvl-1 has one busy GPU, so the units
# are nvl-2 and solo
printf 'cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n' >"$TMP/md.yaml"
printf '    - name: nvl-[1-2]\n      gpus: 4\n      gpu_type: H100-80G\n      domain: rack-a\n' >>"$TMP/md.yaml"
printf '    - name: solo\n      gpus: 4\n      gpu_type: H100-80G\n' >>"$TMP/md.yaml"
echo '{"time": 0, "busy": {"nvl-1": [0]}}' >"$TMP/md.json"
run "$GPUSCHED" frag --cluster "$TMP/md.yaml" --state "$TMP/md.json" --html "$TMP/md.html"
cdp "file://$TMP/md.html" 'wait:document.body.dataset.ready' \
    'eval:[...document.querySelectorAll(".grp .gl")].map(g => g.textContent).join(" | ")' \
    'eval:[...document.querySelectorAll(".grp")].map(g => [...g.querySelectorAll(".node")].map(n => n.dataset.node).join(",")).join(" | ")' \
    'eval:[...document.querySelectorAll(".node.unit")].map(n => n.dataset.node).join(" ")'
is "$(ev 1)" '"multi-node domain rack-a (2 nodes) | nodes outside multi-node domains (1 node)"' \
    "map groups nodes by multi-node domain"
is "$(ev 2)" '"nvl-1,nvl-2 | solo"' "each group holds its nodes"
is "$(ev 3)" '"nvl-2 solo"' "k = 4: nvl-2 and solo highlighted"

# 1,024 nodes x 8 GPUs, 10,000 queued jobs
dash_big_cluster "$TMP/big.yaml"
dash_big_snapshot "$TMP/big.json"
t0=$(date +%s%N)
run "$GPUSCHED" frag --cluster "$TMP/big.yaml" --state "$TMP/big.json" --html "$TMP/big.html"
t1=$(date +%s%N)
ok $rc "frag --html at 1,024 nodes and 10,000 queued jobs"
echo "# frag --html (10,000 jobs explained, page written): $(( (t1 - t0) / 1000000 )) ms"
cdp "file://$TMP/big.html" 'wait:document.body.dataset.ready' \
    'eval:document.body.dataset.readyMs + " " + document.body.dataset.renderMs' \
    'eval:document.querySelectorAll(".c").length' \
    'eval:document.querySelectorAll(".node.unit").length' \
    'eval:document.querySelectorAll("#queue-table tbody tr").length' \
    'eval:document.querySelector("#s-map").getBoundingClientRect().height' \
    'eval:(document.querySelector("button[data-pg=q][data-to=\"50\"]").click(), document.querySelector("#queue-table tbody tr td").textContent)' \
    "shot:$ART/$V-dashboard-1024.png"
set -- $(ev 1 | tr -d '"')
echo "# page at 1,024 nodes x 8 GPUs, 10,000 queued: ready ${1} ms after navigation, first render ${2} ms"
is "$(printf '%s\n' "$out" | sed -n 's/^console-errors: //p')" 0 "1,024 nodes: no console errors"
is "$(ev 2)" 8192 "1,024 nodes: 8,192 GPU cells"
# node-i (i <= 512, one domain of 8) is idle when i*5 mod 9 = 0, i.e. i a
# multiple of 9: 56 of them; pods ([4,4]) can never take an 8-GPU job
is "$(ev 3)" 56 "1,024 nodes: the 56 idle one-domain nodes highlighted"
is "$(ev 4)" 50 "queue paged: 50 rows of 10,000"
h=$(ev 5 | cut -d. -f1)
if [ "$h" -le 900 ]; then ok 0 "map fits one screen (${h}px of 900)"; else ok 1 "map fits one screen (${h}px)"; fi
is "$(ev 6)" '"51"' "next page starts at job 51"

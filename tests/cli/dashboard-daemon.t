#!/bin/sh
# The dashboard served by gpuschedd (issue 16): GET / and the page's polls
# of GET /v1/dashboard against a real daemon on 127.0.0.1 (port 0, state
# under mktemp -d, stopped by pid, every job cancelled first), in headless
# Chromium through the DevTools protocol (tests/cli/cdp.py).
#
# The seed's snapshot is made live: under spread placement on the seed's
# four empty 8-GPU nodes, j1 (6 GPUs) goes to node-1, j2 (5) to node-2
# (most free, first in order), x (8) to node-3, j4 (1) to node-4 (the only
# node with 8 free); cancelling x leaves free 2, 3, 8, 7.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/dash_lib.sh"
plan 33
C=$ROOT/examples/seed-cluster.yaml
ART=$ROOT/build/test-artifacts
mkdir -p "$ART"
V=${GS_VARIANT:-manual}
trap 'dash_daemon_stop; rm -rf "$TMP"' EXIT
printf 'queue:\n  policy: fifo\nplacement:\n  strategy: spread\n' >"$TMP/spread.yaml"

mkdir "$TMP/d1"
dash_daemon_start "$TMP/d1" "$C" "$TMP/spread.yaml" --clock-scale 60
ok "$([ -n "$URL" ]; echo $?)" "gpuschedd is up on 127.0.0.1"
run curl -s -D "$TMP/h" "$URL/"
like "$(cat "$TMP/h")" 'Content-Type: text/html' "GET / serves HTML"
like "$out" 'data-poll="v1/dashboard"' "the page polls v1/dashboard"
is "$(printf '%s' "$out" | grep -oE '(src|href)="[^"]*' | grep -vc '="data:')" 0 "no external src/href"
st=""
for j in "j1 6" "j2 5" "x 8" "j4 1"; do
    set -- $j
    st="$st $(dash_submit "$1" "$2" a)"
done
is "$st" " 201 201 201 201" "the seed's four jobs accepted"
curl -s -XPOST -H "Content-Type: application/json" "$URL/v1/jobs/x/cancel" >/dev/null
i=0
until [ "$(curl -s "$URL/v1/cluster" | jq .free_gpus)" = 20 ] || [ $i -ge 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
is "$(curl -s "$URL/v1/cluster" | jq -c '[.nodes[].free]')" '[2,3,8,7]' "live state: free 2, 3, 8, 7"

# w1 asks for 24 GPUs while 20 are free: it waits (shortage) whatever happens
Q='document.querySelector("#queue-table tr[data-job=w1]")'
run $CDP --size 1400x900 --timeout 40 "$URL/" 'wait:document.body.dataset.ready' \
    'eval:[...document.querySelectorAll(".node")].map(n => n.dataset.node + "=" + n.dataset.free).join(" ")' \
    'eval:[...document.querySelectorAll(".node.unit")].map(n => n.dataset.node).join(" ")' \
    'eval:document.querySelector(".node[data-node=node-1] .c.b").title' \
    'eval:[...document.querySelectorAll("#running-table tbody tr")].map(r => r.dataset.job).join(" ")' \
    'eval:+document.body.dataset.renders' \
    "sh:curl -s -XPOST -H 'Content-Type: application/json' $URL/v1/jobs -d '{\"id\":\"w1\",\"gpus\":24,\"team\":\"b\",\"command\":[\"sleep\",\"900\"]}' >/dev/null" \
    "wait:$Q" \
    'eval:+document.body.dataset.renders' \
    "eval:$Q.dataset.reason + \" | \" + $Q.textContent" \
    'wait:document.querySelector("[data-chart=sk] svg")' \
    'eval:document.querySelectorAll("[data-chart=sk] rect.window").length' \
    'eval:document.querySelectorAll("[data-chart] svg").length' \
    "shot:$ART/$V-dashboard-live-seed.png"
ok $rc "chromium loads the live page"
[ $rc -eq 0 ] || printf "%s\n" "$out" | sed "s/^/# /"
is "$(printf '%s\n' "$out" | sed -n 's/^console-errors: //p')" 0 "no console errors or warnings"
is "$(ev 1)" '"node-1=2 node-2=3 node-3=8 node-4=7"' "map: free 2, 3, 8, 7 once the seed's jobs run"
is "$(ev 2)" '"node-3"' "map: node-3 alone highlighted for 8-GPU jobs"
like "$(ev 3)" 'job j1 (team a, 6 GPUs)' "hover on node-1 GPU 0 names job j1"
is "$(ev 4)" '"j1 j2 j4"' "running list: j1 j2 j4 (in start order)"
r0=$(ev 5) r1=$(ev 6)
d=$((r1 - r0))
if [ "$d" -le 2 ] && [ "$d" -ge 1 ]; then ok 0 "w1 in the queue within two refreshes ($d)"
else ok 1 "w1 in the queue within two refreshes (took $d)"; fi
like "$(ev 7)" '^"shortage | .*24' "w1's reason: shortage, with its numbers"
# S_8 was 4 before the first job: at least one window with S_8 >= 1
if [ "$(ev 8)" -ge 1 ] 2>/dev/null; then ok 0 "S_k chart shades $(ev 8) window(s)"; else ok 1 "S_k chart shades windows"; fi
is "$(ev 9)" 3 "three history charts (util_alloc, S_k, fragmentation)"
run curl -s "$URL/v1/dashboard?q_limit=1&q_offset=0"
is "$(printf '%s' "$out" | jq -c '[.queue.total, .queue.items[0].id, .queue.items[0].reason]')" \
    '[1,"w1","shortage"]' "GET /v1/dashboard: the queue with w1's reason"
# k follows the largest waiting job: w1's 24 GPUs need 3 fully idle nodes
# (only node-3 is), so S_24 = 0; at the cluster's k (?k=8) node-3 is the one unit
is "$(printf '%s' "$out" | jq -c '[.running.total, .schedulability.k, .schedulability.value]')" '[3,24,0]' \
    "GET /v1/dashboard: 3 running, k = 24 (w1), S_24 = 0"
is "$(curl -s "$URL/v1/dashboard?k=8" | jq -c '[.schedulability.k, .schedulability.value]')" '[8,1]' \
    "GET /v1/dashboard?k=8: S_8 = 1"
# paging arguments out of range or not numbers fall back to the defaults
run curl -s -w ' %{http_code}' "$URL/v1/dashboard?q_offset=999999&q_limit=-3&r_offset=x&r_limit=1e9"
is "$(printf '%s' "${out% *}" | jq -c '[.queue.offset, .queue.limit, (.queue.items | length), .running.offset, .running.limit]') ${out##* }" \
    '[1,50,0,0,50] 200' "bad paging arguments: clamped or defaults, 200"

# A job that ignores SIGTERM, cancelled: it is stopping and its GPU is held
# (h) until SIGKILL after --kill-wait (10 s); spread puts it on node-3, the
# node with the most free GPUs.
echo '#!/bin/sh
trap "" TERM
sleep 60' >"$TMP/stubborn.sh"
chmod +x "$TMP/stubborn.sh"
curl -s -XPOST -H "Content-Type: application/json" "$URL/v1/jobs/w1/cancel" >/dev/null # fifo: w1 at the head would hold h1 back
curl -s -XPOST -H "Content-Type: application/json" "$URL/v1/jobs" -d "{\"id\":\"h1\",\"gpus\":1,\"team\":\"a\",\"command\":[\"$TMP/stubborn.sh\"]}" >/dev/null
i=0
until [ "$(curl -s "$URL/v1/jobs/h1" | jq -r .state)" = running ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
curl -s -XPOST -H "Content-Type: application/json" "$URL/v1/jobs/h1/cancel" >/dev/null
# The page is a polled view: a body that costs more than 2 ms to render
# (the sanitizer build) is published again within about 20x its cost, so
# read until it shows the change (h1 stays held for the 10 s kill-wait).
i=0
while run curl -s "$URL/v1/dashboard"
      [ "$(printf '%s' "$out" | jq -r '.nodes[2].cells')" != hfffffff ] && [ $i -lt 30 ]; do
    sleep 0.1; i=$((i + 1))
done
is "$(printf '%s' "$out" | jq -r '.nodes[2].cells')" hfffffff "a stopping job's GPU is held (h) on node-3"
is "$(printf '%s' "$out" | jq -r '[.jobs[] | select(.id == "h1") | .state][0]')" stopping "h1 is stopping"
# node-3 drained: its free GPUs are shown as n and it is no unit any more
curl -s -XPOST -H "Content-Type: application/json" "$URL/v1/nodes/node-3/drain" >/dev/null
run curl -s "$URL/v1/dashboard"
is "$(printf '%s' "$out" | jq -c '[.nodes[2].state, (.nodes[2].units | length), .nodes[2].free]')" \
    '["drain",0,0]' "drained node-3: state drain, no unit, nothing free"
like "$(printf '%s' "$out" | jq -r '.nodes[2].cells')" '^[hn]nnnnnnn$' "drained node-3: free GPUs drawn as n"
curl -s -XPOST -H "Content-Type: application/json" "$URL/v1/nodes/node-3/resume" >/dev/null
dash_daemon_stop

# With --tokens: the page's data needs a read token; the page takes it from
# its URL fragment and sends it as a bearer token.
printf 'tokens:\n  - { token: readtoken1, team: ops, role: read }\n' >"$TMP/tokens.yaml"
mkdir "$TMP/d2"
DASH_TRUST= dash_daemon_start "$TMP/d2" "$C" "$TMP/spread.yaml" --tokens "$TMP/tokens.yaml"
[ -n "$URL" ] || sed "s/^/# /" "$TMP/d2/err"
is "$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/dashboard")" 401 "no token: 401"
is "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer nope' "$URL/v1/dashboard")" 401 \
    "unknown token: 401"
is "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer readtoken1' "$URL/v1/dashboard")" 200 \
    "read token: 200"
is "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer readtoken1' -XPOST -H "Content-Type: application/json" "$URL/v1/jobs" -d '{}')" 403 \
    "read token cannot submit"
run $CDP --size 1400x900 --timeout 30 "$URL/#token=readtoken1" 'wait:document.body.dataset.ready' \
    'eval:document.querySelectorAll(".node").length'
is "$(ev 1)" 4 "page with #token=readtoken1 renders the map"
is "$(printf '%s\n' "$out" | sed -n 's/^console-errors: //p')" 0 "page with the token: no console errors"
dash_daemon_stop -H "Authorization: Bearer readtoken1"

# Without --tokens and --trust-loopback, a client from this host's own
# address (when it has one) is refused: 421 when its Host is not a name of
# the daemon, 401 for the data when it is
IP=$(hostname -I 2>/dev/null | awk '{ print $1 }')
mkdir "$TMP/d3"
"$GPUSCHEDD" --cluster "$C" --state "$TMP/d3/state" --listen 0.0.0.0:0 >"$TMP/d3/out" 2>"$TMP/d3/err" &
DPID=$!
i=0
until grep -q listening "$TMP/d3/out" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(sed -n 's/^listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$TMP/d3/out")
if [ -n "$IP" ] && [ -n "$PORT" ]; then
    is "$(curl -s -o /dev/null -w '%{http_code}' "http://$IP:$PORT/")" 421 \
        "no tokens: GET / from $IP with Host $IP refused (421)"
    is "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: localhost:$PORT" "http://$IP:$PORT/v1/dashboard")" 401 \
        "no tokens: the dashboard's data from $IP needs a token (401)"
else
    echo "ok $((_n = _n + 1)) # skip no non-loopback address"
    echo "ok $((_n = _n + 1)) # skip no non-loopback address"
fi
URL= dash_daemon_stop
# a sanitizer build reports to the daemons' stderr
is "$(cat "$TMP"/d*/err | grep -c 'AddressSanitizer\|LeakSanitizer\|runtime error')" 0 \
    "no sanitizer report from the daemons"

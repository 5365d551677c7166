#!/bin/sh
# A web page the operator opens cannot drive the daemon (docs/security.md):
# headless Chromium loads a page from another origin (a python http.server
# on another 127.0.0.1 port, and a file: page) whose script POSTs jobs and a
# node drain to the daemon with no-cors fetches (text/plain and form bodies,
# the kinds a browser sends cross-site without asking) and a cors fetch with
# JSON; the daemon runs with --trust-loopback, the most exposed setting, so
# only its Origin and Content-Type checks stand between.  No job is created
# and node-1 stays up.  The control: the same browser, on the daemon's own
# page, can POST (so the requests do reach the daemon).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 7
CDP="python3 $ROOT/tests/cli/cdp.py"

daemon_start "$TMP/s"
mkdir "$TMP/www"
cat >"$TMP/www/evil.html" <<EOF2
<!doctype html><title>evil</title><script>
const d = "$URL";
const job = id => JSON.stringify({id: id, gpus: 0, command: ["sh", "-c", "id > $TMP/pwned-" + id]});
const form = new URLSearchParams({a: "1"});
const tries = [
  fetch(d + "/v1/jobs", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: job("x1")}),
  fetch(d + "/v1/jobs", {method: "POST", mode: "no-cors", body: job("x2")}),
  fetch(d + "/v1/jobs", {method: "POST", mode: "no-cors", body: form}),
  fetch(d + "/v1/jobs", {method: "POST", headers: {"Content-Type": "application/json"}, body: job("x4")}),
  fetch(d + "/v1/nodes/node-1/drain", {method: "POST", mode: "no-cors"}),
];
Promise.allSettled(tries).then(r => { window.done = r.map(x => x.status).join(","); });
</script>
EOF2
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$TMP/www" >"$TMP/www.out" 2>&1 &
WPID=$!
echo "$WPID" >>"$TMP/daemon.pids"
i=0
until grep -q 'port [0-9]' "$TMP/www.out" || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
WPORT=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$TMP/www.out" | head -1)

run $CDP --timeout 20 "http://127.0.0.1:$WPORT/evil.html" 'wait:window.done' 'eval:window.done'
like "$out" '^waited: window.done' "the page at http://127.0.0.1:$WPORT ran its fetches"
run $CDP --timeout 20 "file://$TMP/www/evil.html" 'wait:window.done' 'eval:window.done'
like "$out" '^waited: window.done' "and so did the file: page"
sleep 0.5
api GET /v1/jobs
is "$(field "$body" '.jobs | length')" 0 "no job was created"
is "$(find "$TMP" -maxdepth 1 -name 'pwned-*' | wc -l)" 0 "no command of the page ran"
api GET /v1/nodes
is "$(field "$body" '[.nodes[] | select(.name == "node-1") | .state][0]')" up "node-1 is still up"
run $CDP --timeout 20 "$URL/" 'wait:document.body' \
    'eval:fetch("/v1/jobs", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({id: "ctl", gpus: 0, command: ["true"]})}).then(r => r.status)'
like "$out" '^eval: 201' "control: the daemon's own page can POST (the browser reaches the daemon)"
kill "$WPID" 2>/dev/null
wait "$WPID" 2>/dev/null
daemon_stop
sanitizer_clean

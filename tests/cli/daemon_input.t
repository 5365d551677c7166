#!/bin/sh
# gpuschedd against bad input: malformed JSON, wrong types, unknown fields,
# huge bodies, slow clients and many connections give a clear 4xx (naming
# the field where there is one), never a crash, and lose nothing.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 28

daemon_start "$TMP/s"
# bad BODY "STATUS CODE FIELD" DESCRIPTION: what POST /v1/jobs answers
bad() {
    api POST /v1/jobs "$1"
    is "$code $(field "$body" '.error.code') $(field "$body" '.error.field // "-"')" "$2" "$3"
}
bad '{"gpus": 2, "command": ["true"' "400 malformed_json -" "malformed JSON: 400 malformed_json"
bad '[1, 2]' "400 invalid -" "a JSON array is not a job"
bad '' "400 malformed_json -" "an empty body"
bad '{"gpus":2,"colour":"red","command":["true"]}' "400 unknown_field colour" "unknown field named"
bad '{"gpus":"eight","command":["true"]}' "400 invalid gpus" "gpus as a word: field gpus"
bad '{"gpus":true,"command":["true"]}' "400 invalid gpus" "gpus as a boolean"
bad '{"gpus":-1,"command":["true"]}' "400 invalid gpus" "negative gpus"
bad '{"gpus":2.5,"command":["true"]}' "400 invalid gpus" "fractional gpus"
bad '{"time_limit":"4hours","command":["true"]}' "400 invalid time_limit" "a bad duration"
bad '{"gpus":2}' "400 missing command" "no command"
bad '{"command":"sleep 1"}' "400 invalid command" "command must be an array"
bad '{"command":[]}' "400 invalid command" "command must not be empty"
bad '{"command":["sleep",1]}' "400 invalid command" "command items must be strings"
bad '{"command":["true"],"env":{"A":1}}' "400 invalid env" "env values must be strings"
bad '{"command":["true"],"env":{"A=B":"x"}}' "400 invalid env" "env names must be names"
bad '{"command":["true"],"id":""}' "400 invalid id" "an empty id"
bad '{"command":["true"],"gpus":1,"gpus":2}' "400 malformed_json -" "a key given twice"
bad '{"command":["true"],"gpu_share":"1.5"}' "400 invalid gpu_share" "gpu_share over 1"
# a 2 MiB body: 413 before it is read
head -c 2097152 /dev/zero | tr '\0' ' ' >"$TMP/big"
code=$(curl -s -o "$TMP/big.out" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary @"$TMP/big" "$URL/v1/jobs")
is "$code $(jq -r .error.code "$TMP/big.out")" "413 too_large" "a 2 MiB body: 413"
api GET /v1/nosuch
is "$code" 404 "unknown route: 404"
api DELETE /v1/jobs
is "$code" 405 "wrong method: 405"

# slow clients and many connections (python: raw sockets)
python3 - "$URL" >"$TMP/py.out" 2>&1 <<'PY'
import json, socket, sys, threading, time, urllib.request
url = sys.argv[1]
host, port = url.split("//")[1].split(":")
port = int(port)
# 100 idle connections and 5 that send half a request and stall
idle = [socket.create_connection((host, port)) for _ in range(100)]
slow = []
for _ in range(5):
    s = socket.create_connection((host, port))
    s.sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"gpus\"")
    slow.append(s)
t0 = time.time()
ok = urllib.request.urlopen(url + "/healthz", timeout=5).status == 200
print("healthz_while_stalled", ok, round(time.time() - t0, 3) < 2)
# 64 concurrent submits
codes = []
def sub(i):
    req = urllib.request.Request(url + "/v1/jobs", method="POST",
        data=json.dumps({"id": "c%d" % i, "command": ["true"], "gpus": 0}).encode(),
        headers={"Content-Type": "application/json"})
    try:
        codes.append(urllib.request.urlopen(req, timeout=20).status)
    except Exception as e:
        codes.append(str(e))
th = [threading.Thread(target=sub, args=(i,)) for i in range(64)]
[t.start() for t in th]
[t.join() for t in th]
print("submits", sorted(set(map(str, codes))), len(codes))
for s in idle + slow:
    s.close()
PY
like "$(cat "$TMP/py.out")" "healthz_while_stalled True True" \
    "100 idle and 5 stalled connections do not hold up another client"
like "$(cat "$TMP/py.out")" "submits \['201'\] 64" "64 concurrent submits all answered 201"
api GET /v1/jobs
is "$(field "$body" '[.jobs[] | select(.id | startswith("c"))] | length')" 64 \
    "all 64 jobs exist, each once"
is "$(field "$body" '[.jobs[].id] | length')" 64 "and none of the refused bodies made a job"
api GET /healthz
is "$code" 200 "the daemon is still up"
kill -0 "$DPID"
ok $? "it did not crash"
daemon_stop
sanitizer_clean

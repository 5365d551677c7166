#!/bin/sh
# gpuschedd's HTTP server under hostile clients (docs/daemon.md, "HTTP
# server"; helper tests/data/daemon/http_flood.py): 1,000 slow connections
# (a header line a second, never done) while a probe makes 50 requests,
# the whole-request deadline (GPUSCHEDD_HTTP_DEADLINE_MS=4000 here) closing
# them, a flood of unauthenticated 1 MiB bodies answered 401 before the
# body is read (bounded memory), 405 with Allow, 400 on ambiguous framing,
# JSON error bodies.  Before (one thread per connection, 512 at most, no
# deadline) the probe got no answer while the slow connections were open
# and every 1 MiB body was buffered before the token was checked.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 25

# descriptors: 1,000 connections on both ends; the soft limit may rise to
# the hard one (the daemon does that itself).  Where the hard limit is
# lower, fewer slow connections (said below).
ulimit -n "$(ulimit -Hn)" 2>/dev/null
NSLOW=1000
hard=$(ulimit -n)
[ "$hard" != unlimited ] && [ "$hard" -lt 1300 ] && NSLOW=$((hard - 300))
FLOOD="python3 $ROOT/tests/data/daemon/http_flood.py"
TOK=reader-token-0001
S=$TMP/s
NO_TRUST=1 GPUSCHEDD_HTTP_DEADLINE_MS=4000 daemon_start "$S" --tokens "$ROOT/tests/data/daemon/tokens.yaml"
ok $? "gpuschedd starts with --tokens"
PORT=${URL##*:}
raw() { # REQUEST-TEXT (\r\n line ends): sets st, allow, ctype, rbody
    _o=$(printf "$1" | $FLOOD raw "$PORT")
    st=$(printf '%s\n' "$_o" | sed -n 1p) allow=$(printf '%s\n' "$_o" | sed -n 2p)
    ctype=$(printf '%s\n' "$_o" | sed -n 3p) rbody=$(printf '%s\n' "$_o" | sed -n '4,$p')
}
aget() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" "$URL$1"; }
H="Host: 127.0.0.1:$PORT\r\nAuthorization: Bearer admin-token-0001\r\nConnection: close\r\n"

# methods: 405 + Allow + JSON (DELETE /v1/jobs/ID was answered as a GET)
raw "DELETE /v1/jobs/j1 HTTP/1.1\r\n$H\r\n"
is "$st $allow" "405 GET, HEAD" "DELETE /v1/jobs/ID: 405, Allow: GET, HEAD"
is "$(printf '%s' "$rbody" | jq -r .error.code)" method_not_allowed "... with a JSON error body"
raw "GET /v1/jobs/j1/cancel HTTP/1.1\r\n$H\r\n"
is "$st $allow" "405 POST" "GET /v1/jobs/ID/cancel: 405, Allow: POST"
raw "PUT /v1/jobs HTTP/1.1\r\n$H\r\n"
is "$st $allow" "405 GET, HEAD, POST" "PUT /v1/jobs: 405, Allow: GET, HEAD, POST"
raw "POST /v1/cluster HTTP/1.1\r\n$H\r\n"
is "$st $allow $ctype" "405 GET, HEAD application/json" "POST /v1/cluster: 405, JSON"
raw "GET /v1/nope HTTP/1.1\r\n$H\r\n"
is "$st $(printf '%s' "$rbody" | jq -r .error.code)" "404 not_found" "an unknown route: 404 JSON"

# framing: libmicrohttpd took the first of two Content-Lengths (201) and
# let Transfer-Encoding win over Content-Length
B='{"id":"f1","gpus":1,"command":["true"]}'
raw "POST /v1/jobs HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: ${#B}\r\nContent-Length: 5\r\n\r\n$B"
is "$st $(printf '%s' "$rbody" | jq -r .error.code)" "400 bad_framing" "two Content-Length headers: 400"
CH=$(printf '%x' ${#B})
raw "POST /v1/jobs HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: ${#B}\r\nTransfer-Encoding: chunked\r\n\r\n$CH\r\n$B\r\n0\r\n\r\n"
is "$st $(printf '%s' "$rbody" | jq -r .error.code)" "400 bad_framing" \
    "Content-Length with Transfer-Encoding: chunked: 400"
is "$(aget /v1/jobs/f1)" 404 "the rejected submits left no job"
raw "POST /v1/jobs HTTP/1.1\r\n${H}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n$CH\r\n$B\r\n0\r\n\r\n"
is "$st" 201 "chunked alone is accepted (201)"
# the caller is checked before the body: a 1 MiB body without a token
raw "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:$PORT\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\nConnection: close\r\n\r\n"
is "$st $(printf '%s' "$rbody" | jq -r .error.code)" "401 unauthorized" \
    "a POST without a token is answered 401 on its headers (no body sent)"
# what libmicrohttpd answers itself (docs/daemon.md lists it): a header
# block over its 32 KiB per-connection memory is 431, with its HTML body
raw "GET /v1/cluster HTTP/1.1\r\n${H}X-Big: $(head -c 40000 /dev/zero | tr '\0' a)\r\n\r\n"
is "$st" 431 "a 40 kB header: libmicrohttpd's own 431"

# 1,000 slow connections; the probe must be answered throughout
[ "$NSLOW" -lt 1000 ] && echo "# descriptor limit $hard: $NSLOW slow connections, not 1,000"
out=$($FLOOD slow "$PORT" "$NSLOW" 8 "$TOK")
echo "# slow connections: $out"
is "$(printf '%s' "$out" | jq .opened)" "$NSLOW" "$NSLOW slow connections opened"
is "$(printf '%s' "$out" | jq '.answered')" 50 "all 50 probes answered 200 meanwhile"
echo "# probe latency p50 $(printf '%s' "$out" | jq .p50_ms) ms, p99 $(printf '%s' "$out" | jq .p99_ms) ms"
ok "$(printf '%s' "$out" | jq '.max_ms < 5000 | not | if . then 1 else 0 end')" \
    "every probe answered within 5 s"
ok "$(printf '%s' "$out" | jq --argjson n "$NSLOW" '.closed_by_server >= $n * 0.99 | not | if . then 1 else 0 end')" \
    "the 4 s request deadline closed the slow connections (>= 99 % within 8 s)"
is "$(aget /v1/cluster)" 200 "the daemon answers after the slow flood"
# a submit makes a turn, which publishes /metrics again
curl -s -o /dev/null -H 'Authorization: Bearer admin-token-0001' -H 'Content-Type: application/json' \
    --data-binary '{"id":"m1","gpus":1,"command":["true"]}' "$URL/v1/jobs"
m=$(curl -s -H "Authorization: Bearer $TOK" "$URL/metrics" |
    awk '$1 == "gpusched_http_deadline_closed_total" { print $2 }')
ok "$([ "${m:-0}" -ge $((NSLOW * 99 / 100)) ]; echo $?)" \
    "/metrics counts the connections the deadline closed ($m)"

# unauthenticated 1 MiB bodies: memory does not grow with them
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$DPID/status"; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$DPID/status"; }
h0=$(hwm) r0=$(rss)
out=$($FLOOD bodies "$PORT" 64 4)
h1=$(hwm) r1=$(rss)
echo "# 256 x 1 MiB unauthenticated bodies, 64 held open at once: $out"
echo "# VmRSS $r0 -> $r1 kB, VmHWM (peak) $h0 -> $h1 kB"
is "$(printf '%s' "$out" | jq '[.status["201"], .status["400"], .status["413"]] | add // 0')" 0 \
    "none of them is taken as a request"
ok "$([ $((h1 - h0)) -lt 32768 ]; echo $?)" \
    "peak memory grew by $((h1 - h0)) kB (< 32 MiB; 64 bodies held would be 64 MiB)"
is "$(aget /v1/cluster)" 200 "the daemon answers after the body flood"
daemon_stop
is $? 0 "the daemon stops cleanly"

# the per-IP limit (4,096; GPUSCHEDD_HTTP_PER_IP=64 here, so that it needs
# few descriptors): the next connection from that address is closed
# unanswered, one from another address is served
NO_TRUST=1 GPUSCHEDD_HTTP_PER_IP=64 daemon_start "$TMP/s2" --tokens "$ROOT/tests/data/daemon/tokens.yaml"
PORT=${URL##*:}
out=$($FLOOD perip "$PORT" 64 "$TOK")
echo "# per-IP limit: $out"
is "$(printf '%s' "$out" | jq -c '[.opened, .same_ip, .other_ip]')" '[64,0,200]' \
    "64 idle connections from 127.0.0.1: a 65th gets no answer, 127.0.0.2 gets 200"
daemon_stop
sanitizer_clean

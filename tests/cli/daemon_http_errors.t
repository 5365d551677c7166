#!/bin/sh
# Error bodies (docs/daemon.md, "HTTP server", "Error bodies"): every error
# the daemon answers is JSON ({"error": {"code", ...}}, Content-Type
# application/json), sent as raw requests over a socket
# (tests/data/daemon/http_flood.py raw).  What libmicrohttpd 0.9.75 answers
# by itself, before any code of the daemon runs, cannot be replaced (its
# bodies are compiled into the library; no option or callback reaches them):
# the second half pins exactly that documented list (status, and no
# Content-Type, so a JSON client can tell), so that a change of either is
# seen.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 25

FLOOD="python3 $ROOT/tests/data/daemon/http_flood.py"
S=$TMP/s
# a 2 s whole-request deadline: what libmicrohttpd leaves unanswered is closed by it
GPUSCHEDD_HTTP_DEADLINE_MS=2000 daemon_start "$S"
ok $? "daemon started"
PORT=${URL##*:}
H="Host: 127.0.0.1:$PORT\r\nConnection: close\r\n"
J="Content-Type: application/json\r\n"
raw() { # REQUEST-TEXT (printf format): sets st, ctype, rbody
    _o=$(printf "$1" | $FLOOD raw "$PORT")
    st=$(printf '%s\n' "$_o" | sed -n 1p) ctype=$(printf '%s\n' "$_o" | sed -n 3p)
    rbody=$(printf '%s\n' "$_o" | sed -n '4,$p')
}
# json_error STATUS DESCRIPTION: the last answer is STATUS with a JSON error
json_error() {
    is "$st $ctype $(printf '%s' "$rbody" | jq -r '.error.code // "NONE"' 2>/dev/null || echo NOTJSON)" \
        "$1 application/json $2" "$3"
}

# the daemon's own errors: JSON
raw "FOO /v1/jobs HTTP/1.1\r\n$H\r\n"
json_error 405 method_not_allowed "an unknown method: 405 JSON"
raw "GET /v1/nope HTTP/1.1\r\n$H\r\n"
json_error 404 not_found "an unknown route: 404 JSON"
raw "GET /v1/jobs HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n"
json_error 421 misdirected "a Host that does not name the daemon: 421 JSON"
raw "POST /v1/jobs HTTP/1.1\r\n$H${J}Content-Length: 99999999999\r\n\r\n"
json_error 413 too_large "a declared body over 1 MiB: 413 JSON, before the body"
raw "POST /v1/jobs HTTP/1.1\r\n$H${J}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}"
json_error 400 bad_framing "two Content-Length headers: 400 JSON"
raw "POST /v1/jobs HTTP/1.1\r\n$H${J}Content-Length: 5\r\n\r\n{bad}"
json_error 400 "$(printf '%s' "$rbody" | jq -r .error.code)" "a body that is not JSON: 400 JSON"
raw "POST /v1/jobs HTTP/1.1\r\n${H}Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}"
is "$(printf '%s' "$rbody" | jq -r 'has("error")') $ctype" "true application/json" \
    "a write without Content-Type: application/json: a JSON error ($st)"
raw "GET /v1/jobs/nosuch HTTP/1.1\r\n$H\r\n"
json_error 404 not_found "an unknown job: 404 JSON"

# libmicrohttpd's own answers (the documented exceptions): status, no
# Content-Type, its HTML body
BIG=$(head -c 40000 /dev/zero | tr '\0' a)
raw "GET /v1/jobs HTTP/1.1\r\n${H}X-Big: $BIG\r\n\r\n"
is "$st $ctype" "431 -" "headers over libmicrohttpd's 32 KiB: 431 from libmicrohttpd, no Content-Type"
like "$rbody" "^<html>" "... with its HTML body"
raw "GET /$BIG HTTP/1.1\r\n$H\r\n"
is "$st $ctype" "414 -" "a request line over 32 KiB: 414 from libmicrohttpd"
raw "GET /v1/jobs HTTP/2.0\r\n$H\r\n"
is "$st $ctype" "505 -" "HTTP/2.0 in a request line: 505 from libmicrohttpd"
raw "GET /v1/jobs HTTP/1.1\r\n${H}NoColonHere\r\n\r\n"
is "$st $ctype" "400 -" "a header line without a colon: 400 from libmicrohttpd"
raw "GET /v1/jobs\r\n\r\n"
is "$st $ctype" "400 -" "a request line without a version (HTTP/0.9): 400 from libmicrohttpd"
raw "POST /v1/jobs HTTP/1.1\r\n$H${J}Transfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n0\r\n\r\n"
is "$st $ctype" "400 -" "a chunk size that is not hex: 400 from libmicrohttpd"
raw "POST /v1/jobs HTTP/1.1\r\n$H${J}Content-Length: abc\r\n\r\n"
is "$st $ctype" "400 -" "a Content-Length that is not a number: 400 from libmicrohttpd"
raw "GARBAGE\r\n\r\n"
is "$st" none "a request line that is one word: never answered (closed at the deadline)"
raw "POST /v1/jobs HTTP/1.1\r\n$H${J}Transfer-Encoding: gzip\r\n\r\n"
is "$st" none "a Transfer-Encoding other than chunked: never answered (closed at the deadline)"

# and the daemon answers on: the same requests made well
raw "GET /v1/jobs HTTP/1.1\r\n$H\r\n"
is "$st $ctype" "200 application/json" "GET /v1/jobs after them: 200 JSON"
is "$(printf '%s' "$rbody" | jq -r '.jobs | length')" 0 "... no job was made by any of them"
B='{"id":"ok1","gpus":1,"command":["true"]}'
raw "POST /v1/jobs HTTP/1.1\r\n$H${J}Content-Length: ${#B}\r\n\r\n$B"
is "$st" 201 "a good submit: 201"
raw "GET /v1/jobs/ok1 HTTP/1.1\r\n$H\r\n"
is "$(printf '%s' "$rbody" | jq -r .id)" ok1 "and it is there"
daemon_stop TERM
is $? 0 "clean stop"
sanitizer_clean

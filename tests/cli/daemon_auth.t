#!/bin/sh
# gpuschedd bearer tokens over TCP (tests/data/daemon/tokens.yaml): 401
# without or with an unknown token, 403 for a role or team the token lacks,
# a job is recorded as the token's user; without --trust-loopback a
# token-less loopback client is refused too; tokens files are checked.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 26

NO_TRUST=1 daemon_start "$TMP/s" --tokens "$ROOT/tests/data/daemon/tokens.yaml"
A='Authorization: Bearer teama-submit-0001'
B='Authorization: Bearer teamb-submit-0001'
R='Authorization: Bearer reader-token-0001'
ADM='Authorization: Bearer admin-token-0001'
api GET /healthz
is "$code" 200 "/healthz needs no token"
api GET /v1/jobs
is "$code $(field "$body" '.error.code')" "401 unauthorized" "no token: 401"
is "$(curl -s -D - -o /dev/null "$URL/v1/jobs" | tr -d '\r' | grep -i '^www-authenticate')" \
    "WWW-Authenticate: Bearer" "... with WWW-Authenticate: Bearer"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer not-a-token' "$URL/v1/jobs")
is "$code" 401 "unknown token: 401"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer admin-token-000' "$URL/v1/jobs")
is "$code" 401 "a prefix of a token is not the token"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$R" "$URL/v1/jobs")
is "$code" 200 "read token: GET 200"
api POST /v1/jobs '{"command":["true"]}' -H "$R"
is "$code" 403 "read token: submit 403"
api POST /v1/jobs '{"id":"ja","command":["sleep","30"]}' -H "$A"
is "$code $(field "$body" '.team')" "201 team-a" "a submit token's job without a team is its team's"
is "$(field "$body" '.user')" nobody "... and runs as the token's user (nobody)"
api POST /v1/jobs '{"id":"jc","user":"root","command":["true"]}' -H "$A"
is "$code $(field "$body" '.error.field')" "403 user" "it cannot claim another user (403, field user)"
api POST /v1/jobs '{"id":"jd","user":"daemon","team":"team-b","command":["true"]}' -H "$ADM"
is "$code $(field "$body" '.user') $(field "$body" '.team')" "201 daemon team-b" \
    "an admin token may name any user and team"
api POST /v1/jobs '{"id":"jb","team":"team-b","command":["true"]}' -H "$A"
is "$code $(field "$body" '.error.field')" "403 team" "it cannot submit for another team (403, field team)"
api POST /v1/jobs/ja/cancel '' -H "$B"
is "$code $(field "$body" '.error.code')" "403 forbidden" "team-b cannot cancel team-a's job"
api POST /v1/jobs/ja/checkpoint '' -H "$B"
is "$code" 403 "nor report its checkpoint"
api POST /v1/nodes/node-1/drain '' -H "$A"
is "$code" 403 "a submit token cannot drain a node"
api POST /v1/nodes/node-1/drain '' -H "$ADM"
is "$code $(field "$body" '[.nodes[] | select(.name == "node-1") | .state][0]')" "200 drain" \
    "an admin token drains node-1"
api POST /v1/nodes/node-1/resume '' -H "$ADM"
is "$(field "$body" '[.nodes[] | select(.name == "node-1") | .state][0]')" up "and resumes it"
api POST /v1/jobs/ja/cancel '' -H "$A"
is "$code" 200 "team-a cancels its own job"
daemon_stop

# without --trust-loopback, no tokens file: even a loopback TCP client gets
# 401 (the Unix socket is the way in for local users)
NO_TRUST=1 daemon_start "$TMP/s3"
api POST /v1/jobs '{"id":"x","command":["true"]}'
is "$code $(field "$body" '.error.code')" "401 unauthorized" "no tokens, no --trust-loopback: token-less POST is 401"
api GET /v1/jobs
is "$code" 401 "... and a GET too"
daemon_stop
NO_TRUST=1 daemon_start "$TMP/s4" --tokens "$ROOT/examples/tokens.yaml"
ok $? "examples/tokens.yaml (tokens and users) loads"
daemon_stop
bad=$TMP/bad.yaml
printf 'tokens:\n  - { token: short, role: admin }\n' >"$bad"
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$TMP/s2" --listen 127.0.0.1:0 \
    --tokens "$bad" >/dev/null 2>"$TMP/bad.err"
ok $((1 - $?)) "a tokens file with a short token is refused"
like "$(cat "$TMP/bad.err")" "bad.yaml:2: tokens\[0\].token" "the error names file, line and key"
printf 'tokens:\n  - { token: long-enough-0001, team: a, role: submit }\n' >"$bad"
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$TMP/s2" --listen 127.0.0.1:0 \
    --tokens "$bad" >/dev/null 2>"$TMP/bad.err"
like "$(cat "$TMP/bad.err")" "tokens\[0\].user: required" "a submit token without user: is refused"
printf 'tokens:\n  - { token: long-enough-0001, user: no-such-user-x, team: a, role: submit }\n' >"$bad"
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$TMP/s2" --listen 127.0.0.1:0 \
    --tokens "$bad" >/dev/null 2>"$TMP/bad.err"
like "$(cat "$TMP/bad.err")" "tokens\[0\].user: no account 'no-such-user-x'" "... and so is a user with no account"
sanitizer_clean

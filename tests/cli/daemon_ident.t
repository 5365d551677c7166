#!/bin/sh
# Every request has an identity (docs/security.md): over the Unix socket the
# kernel's peer uid (root, nobody, daemon through the users: table), over
# TCP a bearer token naming its user; token-less TCP is 401; roles stop node
# actions; Host and Origin name the daemon; writes need Content-Type JSON;
# reserved environment names and bad names are 400 naming the field;
# Idempotency-Key belongs to its owner (another team gets its own job, a
# changed body 422, a key journaled before owners existed still answers).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 59

chmod 711 "$TMP" # nobody reaches the socket's directory, nothing else
mkdir -m 755 "$TMP/pub"
SOCK=$TMP/pub/gs.sock
cat >"$TMP/tokens.yaml" <<'Y'
tokens:
  - { token: tok-team-a-0001, user: nobody, team: a, role: submit }
  - { token: tok-team-b-0001, user: daemon, team: b, role: submit }
  - { token: tok-admin-00001, user: root, role: admin }
users:
  - { user: daemon, team: ops, role: read }
  - { user: bin, team: night }
Y
chmod 600 "$TMP/tokens.yaml"
A='Authorization: Bearer tok-team-a-0001'
B='Authorization: Bearer tok-team-b-0001'
ADM='Authorization: Bearer tok-admin-00001'
ARGS="--socket $SOCK --tokens $TMP/tokens.yaml --server-name gs.example --allow-origin https://ok.example"
# shellcheck disable=SC2086
NO_TRUST=1 daemon_start "$TMP/s" $ARGS
PORT=${URL##*:}

# sapi AS METHOD PATH [BODY]: the API over the socket as user AS.
sapi() {
    _as=$1 _m=$2 _p=$3
    shift 3
    case $_as in
    root) _pre= ;;
    nobody) _pre="setpriv --reuid=65534 --regid=65534 --clear-groups" ;;
    daemon) _pre="setpriv --reuid=1 --regid=1 --clear-groups" ;;
    bin) _pre="setpriv --reuid=2 --regid=2 --clear-groups" ;;
    esac
    body=$($_pre curl -s --unix-socket "$SOCK" -X "$_m" -H 'Content-Type: application/json' \
        ${1:+--data-binary "$1"} -w '\n%{http_code}' "http://localhost$_p")
    code=$(printf '%s' "$body" | tail -n 1)
    body=$(printf '%s' "$body" | sed '$d')
}

is "$(stat -c %a "$SOCK")" 666 "the socket is mode 0666 (the directory decides who reaches it)"
like "$(cat "$TMP/daemon.out")" "^socket unix:$SOCK\$" "the daemon says where its socket is"

# --- end to end: the job runs as the account that submitted it (the
# socket's peer uid, or the token's user), its output owned by it, 0600
sapi nobody POST /v1/jobs '{"id":"e2e-n","gpus":0,"command":["id","-u"]}'
sapi root POST /v1/jobs '{"id":"e2e-r","gpus":0,"command":["id","-u"]}'
api POST /v1/jobs '{"id":"e2e-t","gpus":0,"command":["id","-u"]}' -H "$A"
# sdone ID: until job ID has ended (20 s), asked over the socket as root
sdone() {
    for _ in $(seq 400); do
        sapi root GET "/v1/jobs/$1"
        [ "$(field "$body" .state)" = done ] && return 0
        sleep 0.05
    done
    return 1
}
# eout ID: "UID-IN-OUTPUT OWNER MODE" of job ID's default output file
eout() {
    _f=$TMP/s/output/$1.1.out
    printf '%s %s' "$(cat "$_f")" "$(stat -c '%u %a' "$_f")"
}
sdone e2e-n && sdone e2e-r && sdone e2e-t
is "$(eout e2e-n)" "65534 65534 600" "nobody's job over the socket ran as uid 65534; output nobody's, 0600"
is "$(eout e2e-r)" "0 0 600" "root's job over the socket ran as uid 0; output 0600"
is "$(eout e2e-t)" "65534 65534 600" "a job under a token naming nobody ran as uid 65534"

# --- identity over the socket
sapi nobody POST /v1/jobs '{"id":"n1","gpus":0,"command":["true"]}'
is "$code $(field "$body" .user) $(field "$body" .team)" "201 nobody nogroup" \
    "uid 65534 over the socket: user nobody, team = its primary group"
sapi root POST /v1/jobs '{"id":"r1","gpus":0,"command":["sleep","30"]}'
is "$code $(field "$body" .user) $(field "$body" .team)" "201 root root" "uid 0: user root"
sapi nobody POST /v1/jobs '{"id":"n2","user":"root","gpus":0,"command":["true"]}'
is "$code $(field "$body" .error.field)" "403 user" "nobody cannot claim user root (403, field user)"
sapi nobody POST /v1/jobs '{"id":"n3","team":"a","gpus":0,"command":["true"]}'
is "$code $(field "$body" .error.field)" "403 team" "nor another team (403, field team)"
sapi nobody POST /v1/nodes/node-1/drain
is "$code" 403 "nobody cannot drain a node (403)"
sapi nobody POST /v1/nodes/node-1/down '{"reason":"x"}'
is "$code" 403 "nor take one down (403)"
sapi nobody POST /v1/jobs/r1/cancel
is "$code" 403 "nor cancel root's job (403)"
sapi root POST /v1/nodes/node-1/down '{"reason":"disk\nforged log line"}'
is "$code $(field "$body" .error.field)" "400 reason" "a node-down reason with a newline: 400"
sapi root POST /v1/nodes/node-1/drain
is "$code" 200 "root (admin) drains node-1"
sapi root POST /v1/nodes/node-1/resume
is "$code" 200 "and resumes it"
sapi root POST /v1/jobs/r1/cancel
is "$code" 200 "root cancels its own job"
sapi daemon POST /v1/jobs '{"id":"d1","gpus":0,"command":["true"]}'
is "$code" 403 "daemon (users: role read) cannot submit"
sapi daemon GET /v1/jobs/n1
is "$code $(field "$body" .id)" "200 n1" "but reads"
sapi bin POST /v1/jobs '{"id":"b1","gpus":0,"command":["true"]}'
is "$code $(field "$body" .user) $(field "$body" .team)" "201 bin night" \
    "bin (users: team night, role defaults to submit): its team is the table's"
run setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUSCHED" submit --server "unix:$SOCK" \
    --id c1 --gpus 0 -- true
is "$rc $out" "0 c1" "gpusched submit --server unix:PATH as nobody"
sapi root GET /v1/jobs/c1
is "$(field "$body" .user)" nobody "... is recorded as nobody"
GPUSCHED_SERVER=unix:$SOCK run setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUSCHED" queue
is "$rc" 0 "GPUSCHED_SERVER=unix:PATH works too"

sapi root POST /v1/jobs "{\"id\":\"env1\",\"gpus\":0,\"command\":[\"sh\",\"-c\",\"echo \$GPUSCHED_SERVER > $TMP/srv\"]}"
i=0
until [ -s "$TMP/srv" ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
is "$(cat "$TMP/srv" 2>/dev/null)" "unix:$SOCK" "a job's GPUSCHED_SERVER is the socket (where it is its user)"

# --- TCP: tokens
api POST /v1/jobs '{"id":"t0","gpus":0,"command":["true"]}'
is "$code $(field "$body" .error.code)" "401 unauthorized" "token-less TCP POST: 401 with a JSON error"
api POST /v1/jobs '{"id":"t1","gpus":0,"command":["true"]}' -H "$A"
is "$code $(field "$body" .user) $(field "$body" .team)" "201 nobody a" \
    "a token's job is recorded as the token's user and team"

# --- the door: Host, Origin, Content-Type
api POST /v1/jobs '{"id":"h1","gpus":0,"command":["true"]}' -H "$A" -H "Host: evil.example:$PORT"
is "$code $(field "$body" .error.field)" "421 Host" "Host naming another site: 421 (DNS rebinding)"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: evil.example" "$URL/healthz")
is "$code" 200 "/healthz answers any Host (probes)"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$A" -H "Host: gs.example" "$URL/v1/jobs/t1")
is "$code" 200 "Host = a --server-name: served"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$A" -H "Host: localhost:$PORT" "$URL/v1/jobs/t1")
is "$code" 200 "Host = localhost:PORT: served"
api POST /v1/jobs '{"id":"o1","gpus":0,"command":["true"]}' -H "$A" -H "Origin: http://evil.example"
is "$code $(field "$body" .error.field)" "403 Origin" "Origin of another site: 403"
api POST /v1/jobs '{"id":"o2","gpus":0,"command":["true"]}' -H "$A" -H "Origin: null"
is "$code" 403 "Origin null (a file: page): 403"
api POST /v1/jobs '{"id":"o3","gpus":0,"command":["true"]}' -H "$A" -H "Origin: http://127.0.0.1:$PORT"
is "$code" 201 "the daemon's own origin: served"
api POST /v1/jobs '{"id":"o4","gpus":0,"command":["true"]}' -H "$A" -H "Origin: https://ok.example"
is "$code" 201 "an --allow-origin: served"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$A" -H 'Content-Type: text/plain' \
    --data-binary '{"id":"ct1","gpus":0,"command":["true"]}' "$URL/v1/jobs")
is "$code" 415 "Content-Type text/plain: 415"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$A" \
    --data-binary '{"id":"ct2","gpus":0,"command":["true"]}' "$URL/v1/jobs")
is "$code" 415 "a form's Content-Type: 415"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$A" -X POST "$URL/v1/jobs/t1/cancel")
is "$code" 415 "a cancel without Content-Type: 415"
n=0
for j in h1 o1 o2 ct1 ct2; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "$A" "$URL/v1/jobs/$j")" = 404 ] && n=$((n + 1))
done
is "$n" 5 "none of the refused requests made a job"

# --- reserved environment names
for v in CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES GPUSCHED_JOB_ID SLURM_JOB_ID; do
    api POST /v1/jobs "{\"gpus\":0,\"command\":[\"true\"],\"env\":{\"$v\":\"0,1,2,3\"}}" -H "$A"
    is "$code $(field "$body" .error.field)" "400 env.$v" "env.$v: 400 naming the field"
done

# --- names and sizes
long=$(printf '%0129d' 0)
api POST /v1/jobs "{\"id\":\"$long\",\"gpus\":0,\"command\":[\"true\"]}" -H "$A"
is "$code $(field "$body" .error.field)" "400 id" "a 129-byte id: 400"
api POST /v1/jobs '{"id":"a/b","gpus":0,"command":["true"]}' -H "$A"
is "$code $(field "$body" .error.field)" "400 id" "an id with '/': 400"
api POST /v1/jobs '{"id":"a\nb","gpus":0,"command":["true"]}' -H "$A"
is "$code $(field "$body" .error.field)" "400 id" "an id with a newline: 400"
api POST /v1/jobs '{"id":"e1","team":"\u001b[2J","gpus":0,"command":["true"]}' -H "$ADM"
is "$code $(field "$body" .error.field)" "400 team" "a team with a terminal escape: 400"
api POST /v1/jobs '{"id":"e2","name":"x\nforged","gpus":0,"command":["true"]}' -H "$A"
is "$code $(field "$body" .error.field)" "400 name" "a job name with a newline: 400"
printf '{"id":"big","gpus":0,"command":["true"],"team":"%0900000d"}' 0 >"$TMP/big.json"
code=$(curl -s -o "$TMP/big.out" -w '%{http_code}' -H "$A" -H 'Content-Type: application/json' \
    --data-binary "@$TMP/big.json" "$URL/v1/jobs")
is "$code $(jq -r .error.field "$TMP/big.out")" "400 team" "a 900 KB team name: 400"

# --- Idempotency-Key: per owner, and the body must match
K='Idempotency-Key: key-1'
api POST /v1/jobs '{"gpus":0,"command":["true"]}' -H "$A" -H "$K"
id1=$(field "$body" .id)
is "$code" 201 "team a submits with key-1"
api POST /v1/jobs '{"gpus":0,"command":["true"]}' -H "$A" -H "$K"
is "$code $(field "$body" .id)" "200 $id1" "team a's retry: 200, the same job"
api POST /v1/jobs '{"gpus":0,"command":["true"]}' -H "$B" -H "$K"
id2=$(field "$body" .id)
is "$code $(field "$body" .team)" "201 b" "team b with team a's key: its own new job (201)"
api POST /v1/jobs '{"gpus":0,"command":["false"]}' -H "$A" -H "$K"
is "$code $(field "$body" .error.code)" "422 idempotency_conflict" "team a, same key, another body: 422"
[ "$id1" != "$id2" ]
ok $? "two owners, two jobs ($id1, $id2)"

# a key journaled before keys had owners (the plain key in jobs.idem)
# belongs to its job's team and user
daemon_stop
sqlite3 "$TMP/s/journal.db" "UPDATE jobs SET idem = 'old-key' WHERE id = 't1'"
# shellcheck disable=SC2086
NO_TRUST=1 daemon_start "$TMP/s" $ARGS
api POST /v1/jobs '{"id":"t1","gpus":0,"command":["true"]}' -H "$A" -H 'Idempotency-Key: old-key'
is "$code $(field "$body" .id)" "200 t1" "an old journal's key: its owner's retry is 200"
api POST /v1/jobs '{"id":"t9","gpus":0,"command":["true"]}' -H "$B" -H 'Idempotency-Key: old-key'
is "$code $(field "$body" .id)" "201 t9" "another team's use of it is a new job"

# --- the socket file across restarts
daemon_stop KILL
# shellcheck disable=SC2086
NO_TRUST=1 daemon_start "$TMP/s" $ARGS
sapi nobody POST /v1/jobs '{"id":"n9","gpus":0,"command":["true"]}'
is "$code" 201 "after kill -9 the stale socket is replaced"
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$TMP/s2" --listen 127.0.0.1:0 \
    --socket "$SOCK" >/dev/null 2>"$TMP/second.err"
like "$(cat "$TMP/second.err")" "another daemon is serving it" \
    "a second daemon on a live socket refuses to start"
daemon_stop
[ ! -e "$SOCK" ]
ok $? "a clean stop removes the socket"
daemon_start "$TMP/s3" --socket ''
like "$(cat "$TMP/daemon.err")" "WARNING: --trust-loopback" "--trust-loopback is announced on stderr"
daemon_stop
sanitizer_clean

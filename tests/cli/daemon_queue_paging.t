#!/bin/sh
# GET /v1/queue pages (docs/daemon.md, "API"): `limit` (default 1,000, at
# most 10,000) and `next`, continued with `after=`, the cursor of GET
# /v1/jobs: a page holds the live jobs that follow the cursor in submission
# order, written as the queue reads (those holding GPUs, then the pending
# ones in pass order, each with its `queue_pos`).  On the seed cluster
# (4 x 8 GPUs): 4 jobs of 8 GPUs run, 300 of 8 GPUs wait.  Paging with
# limit 7 returns each of the 304 exactly once (before: no paging, every
# call returned all of them); with 6 jobs submitted and one pending job
# cancelled between pages, every job live throughout is still there once.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 15

FLOOD="python3 $ROOT/tests/data/daemon/http_flood.py"
S=$TMP/s
daemon_start "$S"
ok $? "gpuschedd starts"
PORT=${URL##*:}
n=$($FLOOD submit "$PORT" 4 run 8 none)
wait_state run3 running 20
n=$((n + $($FLOOD submit "$PORT" 300 p 8 none)))
is "$n" 304 "304 jobs accepted: 4 running, 300 pending"

# page through /v1/queue?limit=L (ACTION run before each next page); the
# ids, in page order, one per line, into FILE
page_all() { # LIMIT FILE [ACTION]
    : >"$2"
    : >"$2.pos"
    _after= _pages=0
    while :; do
        _b=$(curl -s "$URL/v1/queue?limit=$1${_after:+&after=$_after}")
        printf '%s' "$_b" | jq -r '.jobs[].id' >>"$2"
        printf '%s' "$_b" | jq -c '.jobs[] | select(.state == "pending") | [.queue_pos, .id]' >>"$2.pos"
        _pages=$((_pages + 1))
        _after=$(printf '%s' "$_b" | jq -r '.next // empty')
        [ -n "$_after" ] || break
        [ -n "${3:-}" ] && $3
    done
}
page_all 7 "$TMP/ids"
is "$(wc -l <"$TMP/ids" | tr -d ' ')" 304 "limit 7: 304 jobs over the pages"
is "$(sort "$TMP/ids" | uniq -d | wc -l | tr -d ' ')" 0 "... none twice"
is "$_pages" 44 "... in 44 pages (304 / 7 = 43.4)"
api GET /v1/queue
is "$(field "$body" '.jobs | length') $(field "$body" 'has("next")')" "304 false" \
    "the default page (limit 1,000) holds all 304, no next"
is "$(sort "$TMP/ids" | tr '\n' ' ')" "$(field "$body" '[.jobs[].id] | sort | join(" ")') " \
    "the pages hold exactly the jobs of the whole queue"
is "$(jq -rs 'sort_by(.[0]) | map(.[1]) | join(" ")' "$TMP/ids.pos")" \
    "$(field "$body" '[.jobs[] | select(.state == "pending") | .id] | join(" ")')" \
    "the pending jobs of all pages sorted by queue_pos = the whole queue's pass order"
# one page in queue order: running first, then the pending by queue_pos
api GET '/v1/queue?limit=10'
is "$(field "$body" '[.jobs[].state] | join(" ")')" \
    "running running running running pending pending pending pending pending pending" \
    "a page: the jobs holding GPUs first, then the pending ones"
is "$(field "$body" '[.jobs[] | select(.state == "pending") | .queue_pos] | join(" ")')" \
    "0 1 2 3 4 5" "... in pass order (queue_pos 0..5: FIFO among equals, by submission)"

# churn between pages: 6 more submitted, p150 cancelled
k=0
churn() {
    k=$((k + 1))
    [ $k -le 6 ] && curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d "{\"id\":\"new$k\",\"gpus\":8,\"command\":[\"sleep\",\"600\"]}" "$URL/v1/jobs"
    [ $k = 3 ] && curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$URL/v1/jobs/p150/cancel"
    return 0
}
page_all 25 "$TMP/ids2" churn
is "$(sort "$TMP/ids2" | uniq -d | wc -l | tr -d ' ')" 0 "with churn between pages: no job twice"
missing=0
for id in $(grep -v '^p150$' "$TMP/ids"); do grep -qx "$id" "$TMP/ids2" || missing=$((missing + 1)); done
is "$missing" 0 "every job live throughout (303) is on a page"
is "$(grep -c '^new' "$TMP/ids2")" 6 "the 6 submitted meanwhile come on the last pages"

api GET '/v1/queue?limit=0'
is "$code $(field "$body" '.error.field')" "400 limit" "limit 0: 400 naming limit"
api GET '/v1/queue?after=x'
is "$code $(field "$body" '.error.field')" "400 after" "a bad cursor: 400 naming after"
daemon_stop TERM
kill_jobs "$S"

#!/bin/sh
# GET /v1/jobs pages (docs/daemon.md, "API"): `limit` (default 1,000, at
# most 10,000) and `next`, continued with `after=`; every job in
# submission order, so pages neither repeat nor skip a job while jobs
# arrive, start and end between them.  2,500 jobs on the seed cluster
# (4 x 8 GPUs): 4 of 8 running, 1,000 of 8 cancelled while pending (ended,
# in the journal), 1,496 pending; 10 more submitted and one running job cancelled
# (the first pending one starts) between the pages.  `gpusched queue` pages through
# and keeps the queue order.  Then 16 clients page through 10,010 jobs at
# once: the daemon's peak memory must grow by less than 48 MiB, a bound
# that does not depend on the number of jobs (16 clients reading pages of
# 10,000, for comparison, take it up by about 70 MB; unpaged, every client
# got all the jobs in one answer).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 22

FLOOD="python3 $ROOT/tests/data/daemon/http_flood.py"
# under ASan, freed memory waits in a 256 MiB quarantine (counted in the
# peak): keep it small so that the bound below measures the daemon
[ "${GS_VARIANT:-}" = san ] &&
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
S=$TMP/s
daemon_start "$S"
ok $? "gpuschedd starts"
PORT=${URL##*:}
n=$($FLOOD submit "$PORT" 4 run 8 none)
wait_state run3 running 20
n=$((n + $($FLOOD submit "$PORT" 1000 r 8 none cancel)))
n=$((n + $($FLOOD submit "$PORT" 1496 p 8 none)))
is "$n" 2500 "2,500 jobs submitted"

page() { curl -s "$URL/v1/jobs?limit=1000${1:+&after=$1}"; }
p1=$(page)
is "$(printf '%s' "$p1" | jq '.jobs | length')" 1000 "page 1: 1,000 jobs"
c1=$(printf '%s' "$p1" | jq -r '.next // empty')
ok "$([ -n "$c1" ]; echo $?)" "page 1 has a next cursor ($c1)"
# between the pages: 10 new jobs, and a running one ends (p0 starts)
is "$($FLOOD submit "$PORT" 10 n 8 none)" 10 "10 more submitted between pages 1 and 2"
api POST /v1/jobs/run0/cancel
_w=0
until curl -s "$URL/v1/jobs?state=running" | jq -e '[.jobs[].id | select(startswith("p"))] |
        length == 1' >/dev/null || [ $_w -ge 200 ]; do sleep 0.1; _w=$((_w + 1)); done
ok "$([ $_w -lt 200 ]; echo $?)" "a pending job starts between the pages (run0 cancelled)"
p2=$(page "$c1")
is "$(printf '%s' "$p2" | jq '.jobs | length')" 1000 "page 2: 1,000 jobs"
c2=$(printf '%s' "$p2" | jq -r '.next // empty')
p3=$(page "$c2")
is "$(printf '%s' "$p3" | jq '.jobs | length')" 510 "page 3: the last 510"
is "$(printf '%s' "$p3" | jq 'has("next")')" false "page 3 has no next"
all=$( (printf '%s' "$p1"; printf '%s' "$p2"; printf '%s' "$p3") | jq -r '.jobs[].id')
is "$(printf '%s\n' "$all" | sort | uniq -d | wc -l)" 0 "no job on two pages"
want=$( (i=0; while [ $i -lt 4 ]; do echo run$i; i=$((i + 1)); done
         i=0; while [ $i -lt 1000 ]; do echo r$i; i=$((i + 1)); done
         i=0; while [ $i -lt 1496 ]; do echo p$i; i=$((i + 1)); done
         i=0; while [ $i -lt 10 ]; do echo n$i; i=$((i + 1)); done) | sort)
is "$(printf '%s\n' "$all" | sort | cmp -s - /dev/fd/3 3<<EOF && echo same
$want
EOF
)" same "the three pages hold exactly the 2,510 jobs"
# parameters
for q in limit=0 limit=10001 limit=x after=abc after=-1; do
    api GET "/v1/jobs?$q"
    printf '%s' "$code $(field "$body" .error.field) " >>"$TMP/bad"
done
is "$(cat "$TMP/bad")" "400 limit 400 limit 400 limit 400 after 400 after " \
    "bad limit / after: 400 naming the parameter"
api GET '/v1/jobs?state=pending&limit=1000'
is "$(field "$body" '[.jobs[] | select(.state == "pending")] | length')" 1000 \
    "a state filter pages too (1,000 of the pending)"

# the client pages through and keeps the queue order
out=$(GPUSCHED_SERVER=$URL "$GPUSCHED" queue --json --all)
is "$(printf '%s' "$out" | jq '.jobs | length')" 2510 "gpusched queue --json: all 2,510 jobs"
is "$(printf '%s' "$out" | jq 'has("next")')" false "... in one answer"
is "$(printf '%s' "$out" | jq '[.jobs[] | select(.state == "pending") | .queue_pos] |
    . == sort')" true "... the pending ones last, in queue order"
is "$(printf '%s' "$out" | jq -r '[.jobs[-1].state, (.jobs[4].id | .[0:1]), .jobs[4].outcome] | join(" ")')" \
    "pending r cancelled" "... after the others, in submission order (run0-3, then the r jobs)"

# 16 clients page through 10,010 jobs at once: bounded memory
is "$($FLOOD submit "$PORT" 7500 m 8 none cancel)" 7500 "7,500 more (ended) jobs: 10,010 in all"
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$DPID/status"; }
h0=$(hwm)
out=$($FLOOD pages "$PORT" 16 1000 none)
h1=$(hwm)
is "$(printf '%s' "$out" | jq -c '[.[] | [.jobs, .pages, .distinct]] | unique')" '[[10010,11,true]]' \
    "16 clients at once each get the 10,010 jobs in 11 pages, none twice"
echo "# VmHWM (peak) $h0 -> $h1 kB with 16 clients paging by 1,000"
# the bound: 16 x (a page: 1,000 jobs x ~0.5 kB, twice while it is copied
# out; one read-only journal handle per concurrent list, with SQLite's
# default 2 MiB page cache) = about 48 MiB, whatever the number of jobs
# (under ASan each pool thread that answers keeps its own allocator cache
# and every block carries redzones: 96 MiB there; measured 55.7 MB here and
# 64.6 MB in CI with the two listeners' pools, 16 of whose threads answer at
# once. Unpaged, the same 16 lists would hold 16 x 10,010 x ~0.5 kB x 2 =
# 160 MB before ASan's overhead, so the bound still tells the two apart)
bound=48
[ "${GS_VARIANT:-}" = san ] && bound=96
ok "$([ $((h1 - h0)) -lt $((bound * 1024)) ]; echo $?)" \
    "the daemon's peak memory grew by $((h1 - h0)) kB (< $bound MiB)"
out=$($FLOOD pages "$PORT" 16 10000 none)
h2=$(hwm)
echo "# VmHWM (peak) $h1 -> $h2 kB with 16 clients paging by 10,000 (for comparison)"
daemon_stop
is $? 0 "the daemon stops cleanly"
kill_jobs "$S"
sanitizer_clean

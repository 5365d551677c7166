#!/bin/sh
# Write failures are an outage of writes, never of the daemon
# (src/daemon/diskguard.c).  As root, a 4 MiB tmpfs mounted in the test's
# own directory holds the state: concurrent submits fill it until the
# journal cannot commit (SQLITE_FULL, with the free-space floor off): the
# daemon stays up, answers 507 with Retry-After and serves reads; once a
# ballast file is deleted it takes submits again by itself; a restart on
# the full disk comes up and serves reads; every acknowledged job is in the
# journal after a restart.  Then the floor (--min-free-mb) refuses submits
# with 507 before SQLite fails, and a job writing without end on the same
# filesystem is stopped by its file cap (--job-file-limit: SIGXFSZ).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
FS=$TMP/fs
mkdir "$FS"
if ! mount -t tmpfs -o size=4m tmpfs "$FS" 2>/dev/null; then
    echo "1..0 # SKIP mounting a tmpfs is not permitted here (needs root)"
    exit 0
fi
cleanup() {
    [ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
    [ -d "$FS/s/run" ] && kill_jobs "$FS/s"
    umount "$FS" 2>/dev/null || umount -l "$FS"
    daemon_cleanup
}
trap cleanup EXIT
plan 28
S=$FS/s

# fill FILE up to KB KiB short of full (or to the end when KB is 0)
ballast() {
    avail=$(df -k --output=avail "$FS" | tail -n 1 | tr -d ' ')
    n=$((avail - $2))
    [ "$n" -gt 0 ] && dd if=/dev/zero of="$1" bs=1k count="$n" 2>/dev/null
    [ "$2" -eq 0 ] && dd if=/dev/zero of="$1.end" bs=1k 2>/dev/null
    return 0
}
drain_all() {
    api GET /v1/nodes
    for n in $(field "$body" '.nodes[].name'); do api POST "/v1/nodes/$n/drain"; done
}
# submitter K N: N submits of ~1.5 KB bodies (kept pending: the nodes are
# drained), one "ID CODE" line each in $TMP/acks.K
PAD=$(head -c 1500 /dev/zero | tr '\0' x)
submitter() {
    i=0
    while [ $i -lt "$2" ]; do
        c=$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
            --data-binary "{\"id\":\"k$1-$i\",\"command\":[\"true\"],\"env\":{\"PAD\":\"$PAD\"}}" \
            "$URL/v1/jobs")
        echo "k$1-$i $c" >>"$TMP/acks.$1"
        i=$((i + 1))
    done
}

daemon_start "$S" --min-free-mb 0
ok $? "daemon on a 4 MiB tmpfs starts"
drain_all
ballast "$FS/ballast" 400
pids=
for k in 1 2 3 4; do submitter $k 150 & pids="$pids $!"; done
# shellcheck disable=SC2086
wait $pids
cat "$TMP"/acks.* >"$TMP/acks"
n201=$(grep -c ' 201$' "$TMP/acks")
n507=$(grep -c ' 507$' "$TMP/acks")
nother=$(grep -vc ' 201$\| 507$' "$TMP/acks")
echo "# 600 submits: $n201 acknowledged, $n507 refused 507, $nother other"
ok "$([ "$n201" -gt 0 ] && [ "$n507" -gt 0 ]; echo $?)" "the disk filled: some submits 201, then 507"
is "$nother" 0 "no other answer (no 500, no dropped connection)"
ok "$(kill -0 "$DPID" 2>/dev/null; echo $?)" "the daemon is alive"
like "$(cat "$TMP/daemon.err")" "journal cannot commit" "the log says the journal cannot commit"
first=$(grep ' 201$' "$TMP/acks" | head -n 1 | cut -d' ' -f1)
api GET "/v1/jobs/$first"
is "$code" 200 "reads go on: an acknowledged job answers 200"
api GET /readyz
like "$body" "not writable" "/readyz says the journal is not writable"
hdr=$(curl -s -D - -o "$TMP/b507" -XPOST -H 'Content-Type: application/json' \
      --data-binary '{"command":["true"]}' "$URL/v1/jobs")
like "$hdr" "^HTTP/1.1 507" "a submit now gets 507"
like "$hdr" "Retry-After: " "with Retry-After"
is "$(jq -r .error.code "$TMP/b507")" insufficient_storage "and a JSON error naming it"

rm -f "$FS/ballast"
i=0
while [ $i -lt 100 ]; do
    api POST /v1/jobs '{"id":"after","command":["true"]}'
    [ "$code" = 201 ] && break
    sleep 0.1
    i=$((i + 1))
done
is "$code" 201 "space freed: submits succeed again by themselves"
api GET /readyz
is "$body" ready "/readyz no longer reports the outage"

daemon_stop
acked=$(grep ' 201$' "$TMP/acks" | cut -d' ' -f1)
daemon_start "$S" --min-free-mb 0
found=0
for id in $acked after; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/jobs/$id")" = 200 ] && found=$((found + 1))
done
is "$found" $((n201 + 1)) "after a restart every acknowledged job ($((n201 + 1))) is there"
daemon_stop

# a restart on a disk that is full to the last block
ballast "$FS/ballast" 0
daemon_start "$S" --min-free-mb 0
ok $? "a daemon started on the full disk comes up"
api GET "/v1/jobs/$first"
is "$code" 200 "and serves reads"
api GET /v1/queue
ok "$([ "$(field "$body" '.jobs | length')" -gt 0 ]; echo $?)" "its queue lists the pending jobs"
api POST /v1/jobs '{"command":["true"]}'
is "$code" 507 "writes get 507"
sleep 1
ok "$(kill -0 "$DPID" 2>/dev/null; echo $?)" "it stays up (no crash loop)"
rm -f "$FS/ballast" "$FS/ballast.end"
i=0
while [ $i -lt 100 ]; do
    api POST /v1/jobs '{"id":"after2","command":["true"]}'
    [ "$code" = 201 ] && break
    sleep 0.1
    i=$((i + 1))
done
is "$code" 201 "space freed: it takes submits"
daemon_stop

# the floor: 507 before SQLite fails
daemon_start "$S" --min-free-mb 1 --job-file-limit 256K
ballast "$FS/ballast" 900
api POST /v1/jobs '{"command":["true"]}'
is "$code" 507 "under the --min-free-mb floor a submit gets 507"
like "$(field "$body" .error.message)" "floor" "naming the floor"
api GET /v1/cluster
is "$(field "$body" .journal.writable)" true "the journal itself is still writable"
rm -f "$FS/ballast"

# a job writing without end into its output on this filesystem
api GET /v1/nodes
for n in $(field "$body" '.nodes[].name'); do api POST "/v1/nodes/$n/resume"; done
api POST /v1/jobs '{"id":"yes","command":["yes"]}'
wait_state yes failed 20
ok $? "a job running yes into its output ends failed"
api GET /v1/jobs/yes
is "$(field "$body" .exit_code)" 153 "killed by SIGXFSZ (128 + 25) at its file cap"
is "$(stat -c %s "$S/output/yes.1.out")" 262144 "its output stopped at the cap (256 KiB)"
api POST /v1/jobs '{"id":"still","command":["true"]}'
is "$code" 201 "scheduling goes on"
daemon_stop
is "$?" 0 "the daemon stops cleanly"
sanitizer_clean

#!/bin/sh
# `gpusched backup` (src/cli/cmd_backup.c, io/store_check.c): a copy taken
# with SQLite's online backup API while 4 clients submit restores, in a
# state directory holding only the copy, every job acknowledged before the
# backup began; the copy checks healthy; an existing target is refused.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 9

S=$TMP/s
daemon_start "$S"
api GET /v1/nodes
for n in $(field "$body" '.nodes[].name'); do api POST "/v1/nodes/$n/drain"; done
# submitter K: submits until $TMP/stop exists, one "ID CODE" line each
submitter() {
    i=0
    while [ ! -e "$TMP/stop" ]; do
        c=$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
            --data-binary "{\"id\":\"k$1-$i\",\"command\":[\"true\"]}" "$URL/v1/jobs")
        echo "k$1-$i $c" >>"$TMP/acks.$1"
        i=$((i + 1))
    done
}
pids=
for k in 1 2 3 4; do submitter $k & pids="$pids $!"; done
sleep 1.5
# the jobs acknowledged before the backup began
cat "$TMP"/acks.* | grep ' 201$' | cut -d' ' -f1 | sort >"$TMP/before"
run "$GPUSCHED" backup --state "$S" --to "$TMP/backup.db"
brc=$rc bout=$out
sleep 1
touch "$TMP/stop"
# shellcheck disable=SC2086
wait $pids
is "$brc" 0 "backup under concurrent submits exits 0"
like "$bout" "integrity ok" "it says the copy checks ok"
nb=$(wc -l <"$TMP/before" | tr -d ' ')
nall=$(cat "$TMP"/acks.* | grep -c ' 201$')
echo "# $nb jobs acknowledged before the backup, $nall in all"
ok "$([ "$nb" -gt 0 ] && [ "$nall" -gt "$nb" ]; echo $?)" "submits were acknowledged before and after it"
run "$GPUSCHED" backup --state "$S" --to "$TMP/backup.db"
is "$rc" 1 "an existing target is refused"
like "$out" "exists" "saying so"
daemon_stop

R=$TMP/restored
mkdir "$R"
cp "$TMP/backup.db" "$R/journal.db"
run "$GPUSCHEDD" --check "$R"
is "$rc" 0 "the copy is healthy for gpuschedd --check"
daemon_start "$R"
ok $? "a daemon starts on a state directory holding only the copy"
missing=0
while read -r id; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/jobs/$id")" = 200 ] || missing=$((missing + 1))
done <"$TMP/before"
is "$missing" 0 "every job acknowledged before the backup began is there"
daemon_stop
sanitizer_clean

#!/bin/sh
# Damage is loud and bounded (src/daemon/check.c): a journal that is
# emptied, missing, truncated or has pages overwritten (seeded, dd
# conv=notrunc) is refused at start with exit status 4 and a message naming
# the damage, or (damage to a page no table uses) starts with every job:
# never a silent empty start.  `gpuschedd --check` gives the same verdict
# without starting, and --init starts a new journal, setting the empty one
# aside.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 35

S=$TMP/s
daemon_start "$S"
i=0
while [ $i -lt 40 ]; do
    api POST /v1/jobs "{\"id\":\"j$i\",\"team\":\"t$((i % 3))\",\"command\":[\"true\"]}"
    i=$((i + 1))
done
wait_state j39 completed 20
daemon_stop
is "$(sqlite3 "$S/journal.db" "select count(*) from jobs")" 40 "a journal of 40 jobs"
run "$GPUSCHEDD" --check "$S"
is "$rc" 0 "--check of the healthy journal exits 0"
like "$out" "integrity: ok" "it reports integrity ok"
like "$out" "done 40" "and the jobs by state"
like "$out" "last job seq: 40" "and the last sequence"

# start STATE: run the daemon on a copy; sets rc, out (its stderr) and the
# number of jobs it serves (jobs) when it started
start() {
    rm -f "$TMP/daemon.err"
    jobs=
    st=$1
    shift
    rm -f "$TMP/daemon.out" # a restart: not the old daemon's "listening on"
    "$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$st" \
        --listen 127.0.0.1:0 --trust-loopback "$@" >"$TMP/daemon.out" 2>"$TMP/daemon.err" &
    DPID=$!
    URL=
    i=0
    # until it listens or dies (a zombie counts as dead: it is not waited yet)
    while [ $i -lt 100 ] && [ -z "$URL" ]; do
        URL=$(sed -n 's/^listening on //p' "$TMP/daemon.out")
        [ "$(cut -d' ' -f3 "/proc/$DPID/stat" 2>/dev/null)" = Z ] && break
        [ -z "$URL" ] && sleep 0.05
        i=$((i + 1))
    done
    # ready serves reads; the first turn (a write) waits for quick_check,
    # so a submit's answer tells whether the daemon went on
    if [ -n "$URL" ] && wait_ready &&
       [ "$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
            --data-binary '{"id":"probe","command":["true"]}' "$URL/v1/jobs")" = 201 ]; then
        # the ended jobs it counts from the journal (robust to list paging;
        # the probe may be one of them)
        jobs=$(curl -s "$URL/metrics" | awk '/^gpusched_jobs_ended_total/ { s += $2 } END { print s + 0 }')
        daemon_stop
        rc=0
    else
        wait "$DPID" 2>/dev/null
        rc=$?
        DPID=
    fi
    out=$(cat "$TMP/daemon.err")
}
copy() { rm -rf "$TMP/$1"; cp -a "$S" "$TMP/$1"; }

copy empty
: >"$TMP/empty/journal.db"
start "$TMP/empty"
is "$rc" 4 "emptied journal: exit status 4"
like "$out" "empty (0 bytes)" "emptied journal: the message names it"
run "$GPUSCHEDD" --check "$TMP/empty"
is "$rc" 4 "emptied journal: --check exits 4"
like "$out" "DAMAGED" "emptied journal: --check says DAMAGED"
start "$TMP/empty" --init
# (the probe job may have ended too: at most 1)
ok "$([ "$rc" = 0 ] && [ "${jobs:-9}" -le 1 ]; echo $?)" "emptied journal with --init: starts with no jobs (rc=$rc ended=$jobs)"
ls "$TMP/empty" | grep -q 'journal.db.before-init-'
ok $? "--init set the empty file aside (renamed, not deleted)"

copy missing
rm -f "$TMP/missing/journal.db"
start "$TMP/missing"
is "$rc" 4 "missing journal in a used state dir: exit status 4"
like "$out" "is missing" "missing journal: the message names it"

copy trunc
size=$(stat -c %s "$TMP/trunc/journal.db")
truncate -s $((size / 2)) "$TMP/trunc/journal.db"
start "$TMP/trunc"
is "$rc" 4 "journal truncated to half: exit status 4"
like "$out" "damaged\|malformed" "truncated: the message names the damage"
run "$GPUSCHEDD" --check "$TMP/trunc"
is "$rc" 4 "truncated: --check exits 4"

copy header
printf 'garbage garbage garbage garbage ' | dd of="$TMP/header/journal.db" conv=notrunc 2>/dev/null
start "$TMP/header"
is "$rc" 4 "overwritten header: exit status 4"
like "$out" "not a database" "overwritten header: SQLite's words are in the message"

# seeded random page overwrites: each is refused naming the damage, or
# starts with all 40 jobs; --check agrees with the daemon
pages=$((size / 4096))
for seed in 1 2 3 4 5 6 7 8; do
    copy "p$seed"
    pg=$(awk -v s="$seed" -v n="$pages" 'BEGIN { srand(s); print 1 + int(rand() * (n - 1)) }')
    # 4 KiB of bytes fixed by the seed (AES-CTR of zeros under key = seed)
    head -c 4096 /dev/zero | openssl enc -aes-128-ctr -K "$(printf '%032x' "$seed")" \
        -iv 0 -nosalt >"$TMP/junk" 2>/dev/null
    dd if="$TMP/junk" of="$TMP/p$seed/journal.db" bs=4096 seek="$pg" conv=notrunc 2>/dev/null
    start "$TMP/p$seed"
    drc=$rc dout=$out
    run "$GPUSCHEDD" --check "$TMP/p$seed"
    if [ "${jobs:-0}" -ge 40 ]; then
        is "$rc" 0 "page $pg of $pages overwritten (seed $seed): unused page, all jobs served, --check healthy"
    else
        is "$rc" 4 "page $pg of $pages overwritten (seed $seed): --check exits 4"
    fi
    ok "$([ "${jobs:-0}" -ge 40 ] || { [ "$drc" = 4 ] && printf '%s' "$dout" | grep -q 'damaged\|malformed\|not a database'; }; echo $?)" \
        "seed $seed: refused naming the damage or all jobs kept (rc=$drc jobs=${jobs:-none})"
    [ "$seed" = 5 ] && echo "# seed 5 says: $(printf '%s' "$dout" | grep -v listening | tail -n 1)"
done
sanitizer_clean

#!/bin/sh
# A daemon that cannot start its HTTP server (threads or descriptors
# refused) exits at once with status 1 and says why; SIGTERM stops a daemon
# that is still starting.  Thread limits: RLIMIT_NPROC, which binds a
# non-root user only, so these daemons run as nobody (uid 65534) in a
# directory of their own (prlimit --nproc N: at most N threads of that uid
# on the host; libmicrohttpd's pool is 128 threads per listener).
# Descriptor limits: prlimit --nofile N on a root daemon.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 15

chmod 711 "$TMP"
NB=$TMP/nb
mkdir "$NB" && chown 65534:65534 "$NB"
CL="--cluster $ROOT/examples/seed-cluster.yaml --listen 127.0.0.1:0 --trust-loopback --virtual-gpus --virtual-users"
# start_limited NAME PRE...: run gpuschedd under PRE (setpriv, prlimit) with
# state NB/NAME and socket NB/NAME.sock; waits for its exit (20 s at most):
# sets rc (0 = it started and listened: stopped again; 124 = still running
# without listening: killed) and err (its stderr)
start_limited() {
    _name=$1
    shift
    # shellcheck disable=SC2086
    "$@" "$GPUSCHEDD" $CL --state "$NB/$_name" --socket "$NB/$_name.sock" \
        >"$TMP/$_name.out" 2>"$TMP/$_name.err" &
    _p=$!
    echo "$_p" >>"$TMP/daemon.pids"
    _w=0
    while kill -0 "$_p" 2>/dev/null && [ $_w -lt 400 ]; do
        grep -qs '^listening on ' "$TMP/$_name.out" && break
        sleep 0.05
        _w=$((_w + 1))
    done
    if grep -qs '^listening on ' "$TMP/$_name.out"; then
        kill -TERM "$_p"
        wait "$_p"
        rc=0
    elif kill -0 "$_p" 2>/dev/null; then
        kill -KILL "$_p"
        wait "$_p" 2>/dev/null
        rc=124
    else
        wait "$_p"
        rc=$?
    fi
    err=$(grep -v 'WARNING\|virtual' "$TMP/$_name.err")
}
AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

# one thread for uid 65534: not even the deadline thread starts
start_limited np1 $AS_NOBODY prlimit --nproc=1
is "$rc" 1 "--nproc 1: the daemon exits with status 1 (not hung)"
like "$err" "cannot start the HTTP deadline thread" "... and says which thread could not start"
like "$err" "the HTTP server did not start on http://127.0.0.1:" "... and that the HTTP server did not start"
# a few threads: the first pool cannot be made
start_limited np8 $AS_NOBODY prlimit --nproc=8
is "$rc" 1 "--nproc 8: exits with status 1"
like "$err" "cannot start the HTTP server (TCP)" "... naming the listener whose pool failed"
like "$err" "Failed to create a new pool thread" "... and libmicrohttpd's reason"
# room for one pool only (128 + the daemon's few): the second listener's fails,
# the first one is stopped again (were other uid-65534 threads on the host,
# the first one fails instead: the same exit)
start_limited np135 $AS_NOBODY prlimit --nproc=135
is "$rc" 1 "--nproc 135: the second pool fails, the first is stopped, status 1"
like "$err" "cannot start the HTTP server" "... saying so"
ok "$([ ! -e "$NB/np135.sock" ]; echo $?)" "the socket it made is removed"

# descriptors: with too few, every stage of the start that opens one
# (sockets, the cluster file, the journal, the account lookup, the epoll
# sets) fails with status 1 and says why.  How many each stage needs
# depends on the host (the descriptors a test harness leaves open, the
# account database's modules), so every limit from 4 up is tried until the
# daemon starts; the dynamic loader's own refusal (status 127, before any of
# the daemon's code runs) is the only other outcome allowed.
bad= unnamed= lookup= started=
for n in $(seq 4 40); do
    start_limited "nf$n" prlimit --nofile="$n"
    [ "$rc" = 0 ] && { started=$n; break; }
    case "$rc:$err" in
    127:*"error while loading shared libraries"*) continue ;;
    1:*) ;;
    *) bad="$bad $n:$rc" ;;
    esac
    case "$err" in *"Too many open files"*) ;; *) unnamed="$unnamed $n" ;; esac
    case "$err" in *"account lookup failed: Too many open files"*) lookup=$n ;; esac
done
ok "$([ -n "$started" ]; echo $?)" "with enough descriptors (${started:-none up to 40}) the daemon starts"
is "${bad:-none}" none "below that every start exits with status 1 (not a crash or a hang)"
is "${unnamed:-none}" none "... and each names the cause: Too many open files"
ok "$([ -n "$lookup" ]; echo $?)" \
    "one of them is the account lookup, naming its cause (was: 'no usable account name')"

# SIGTERM while it starts (before the loop runs): it stops, status 0
"$GPUSCHEDD" $CL --state "$TMP/early" >"$TMP/early.out" 2>"$TMP/early.err" &
P=$!
echo "$P" >>"$TMP/daemon.pids"
# once its state directory is locked (signals are blocked for the loop by then)
w=0
while [ ! -s "$TMP/early/lock" ] && [ $w -lt 200 ]; do sleep 0.01; w=$((w + 1)); done
kill -TERM "$P"
w=0
while kill -0 "$P" 2>/dev/null && [ $w -lt 200 ]; do sleep 0.05; w=$((w + 1)); done
ok "$(! kill -0 "$P" 2>/dev/null; echo $?)" "SIGTERM during the start: the daemon is gone within 10 s"
wait "$P"
st=$?
is "$st" 0 "... with status 0 (a clean stop)"
[ "$st" = 0 ] || sed 's/^/# /' "$TMP/early.err"

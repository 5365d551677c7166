# daemon_lib.sh - helpers for the tests that drive a real gpuschedd (source
# after tap.sh).  Each test gets its own state dir under $TMP and port 0;
# everything started is stopped by pid at exit, including job supervisors
# that outlive the daemon on purpose.
: "${GPUSCHEDD:=$(dirname "$GPUSCHED")/gpuschedd}"
# every engine invariant after each turn (the daemon aborts on a broken one)
GPUSCHEDD_ENGINE_CHECK=${GPUSCHEDD_ENGINE_CHECK:-1}
export GPUSCHEDD_ENGINE_CHECK
DPID=
URL=

# daemon_start STATE [ARGS...]: start gpuschedd on 127.0.0.1:0 with the
# seed cluster unless ARGS name one; sets DPID and URL.
daemon_start() {
    _st=$1
    shift
    case " $* " in *" --cluster "*) _cl= ;; *) _cl="--cluster $ROOT/examples/seed-cluster.yaml" ;; esac
    # exec: the tests' clusters are virtual (their CUDA_VISIBLE_DEVICES are node-local
    # indices) and their users labels (GS_STRICT_USERS=1: an unknown user fails its launch)
    case " $* " in *" --local-gpus "*|*" --virtual-gpus "*) ;; *) _cl="$_cl --virtual-gpus" ;; esac
    [ -n "$GS_STRICT_USERS" ] || _cl="$_cl --virtual-users"
    # the previous daemon's line must not be read as this one's (the child
    # truncates the file only once it runs)
    rm -f "$TMP/daemon.out"
    # shellcheck disable=SC2086
    # token-less loopback TCP is refused unless --trust-loopback; a test of
    # tokens or of the socket sets NO_TRUST=1
    _trust=--trust-loopback
    [ "${NO_TRUST:-}" = 1 ] && _trust=
    # a restart: the old "listening on" line goes first, or the loop below
    # can read it before the new daemon's shell truncates the file
    rm -f "$TMP/daemon.out"
    "$GPUSCHEDD" $_cl --state "$_st" --listen 127.0.0.1:0 $_trust "$@" \
        >"$TMP/daemon.out" 2>>"$TMP/daemon.err" &
    DPID=$!
    echo "$DPID" >>"$TMP/daemon.pids"
    _i=0
    URL=
    while [ $_i -lt 100 ]; do
        URL=$(sed -n 's/^listening on //p' "$TMP/daemon.out" 2>/dev/null)
        [ -n "$URL" ] && break
        kill -0 "$DPID" 2>/dev/null || break
        sleep 0.05
        _i=$((_i + 1))
    done
    [ -n "$URL" ] && wait_ready
}

# wait_ready: until /readyz answers 200 (5 s).
wait_ready() {
    _i=0
    while [ $_i -lt 100 ]; do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 200 ] && return 0
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# daemon_stop [SIGNAL]: stop the daemon by pid and wait for it; returns
# its exit status.
daemon_stop() {
    [ -n "$DPID" ] || return 0
    kill "-${1:-TERM}" "$DPID" 2>/dev/null
    wait "$DPID" 2>/dev/null
    _rc=$?
    DPID=
    return $_rc
}

# sanitizer_clean: no ASan/UBSan/LSan report in any daemon's stderr (or a
# job supervisor's: they are the same binary).
sanitizer_clean() {
    is "$(cat "$TMP/daemon.err" "$TMP"/*/run/*/supervisor.log 2>/dev/null |
          grep -c 'Sanitizer\|runtime error')" 0 "no sanitizer report from gpuschedd or a supervisor"
}

# api METHOD PATH [BODY] [CURL ARGS...]: sets $code and $body.
api() {
    _m=$1 _p=$2
    shift 2
    if [ $# -gt 0 ]; then
        _d=$1
        shift
        body=$(curl -s -X "$_m" -H 'Content-Type: application/json' --data-binary "$_d" \
            -w '\n%{http_code}' "$@" "$URL$_p")
    else
        # every write says Content-Type: application/json (docs/security.md)
        _ct=
        [ "$_m" = GET ] || _ct='Content-Type: application/json'
        body=$(curl -s -X "$_m" ${_ct:+-H "$_ct"} -w '\n%{http_code}' "$URL$_p")
    fi
    code=$(printf '%s' "$body" | tail -n 1)
    body=$(printf '%s' "$body" | sed '$d')
}

# field JSON JQ-FILTER
field() { printf '%s' "$1" | jq -r "$2"; }

# wait_state ID STATE [SECONDS]: until the job is in STATE (or outcome).
wait_state() {
    _w=$(( ${3:-20} * 20 ))
    while [ "$_w" -gt 0 ]; do
        _s=$(curl -s "$URL/v1/jobs/$1" | jq -r '.state + " " + (.outcome // "")')
        case " $_s " in *" $2 "*) return 0 ;; esac
        sleep 0.05
        _w=$((_w - 1))
    done
    echo "# job $1 is '$_s', not $2"
    return 1
}

# sup_alive FILE: the supervisor recorded in FILE ("PID STARTTIME") is still
# that very process (not a reused pid); prints the pid.
sup_alive() {
    _p=$(cut -d' ' -f1 "$1") _t=$(cut -d' ' -f2 "$1")
    [ -r "/proc/$_p/stat" ] || return 1
    [ "$(sed 's/.*) //' "/proc/$_p/stat" | cut -d' ' -f20)" = "$_t" ] || return 1
    echo "$_p"
}

# kill_jobs STATE: stop every supervisor recorded under STATE (and its job).
kill_jobs() {
    for _f in "$1"/run/*/sup; do
        [ -f "$_f" ] || continue
        _p=$(sup_alive "$_f") && kill -USR2 "$_p" 2>/dev/null
    done
    sleep 0.2
    for _f in "$1"/run/*/sup; do
        [ -f "$_f" ] || continue
        _p=$(sup_alive "$_f") && kill -KILL "$_p" 2>/dev/null
    done
}

daemon_cleanup() {
    [ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
    # every daemon this test started that still runs (a failed check can
    # leave one behind): only a process whose command line names $TMP
    if [ -f "$TMP/daemon.pids" ]; then
        while read -r _p; do
            grep -qF "$TMP" "/proc/$_p/cmdline" 2>/dev/null && kill -KILL "$_p" 2>/dev/null
        done <"$TMP/daemon.pids"
    fi
    for _d in "$TMP"/*/run; do
        [ -d "$_d" ] && kill_jobs "$(dirname "$_d")"
    done
    rm -rf "$TMP"
}
trap daemon_cleanup EXIT

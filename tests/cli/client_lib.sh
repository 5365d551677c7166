# client_lib.sh - start and stop a real gpuschedd for the client tests
# (POSIX sh; source after tap.sh).  Each test gets its own state dir under
# $TMP and its own port (--listen 127.0.0.1:0), so two runs never meet.
# Everything is stopped by pid: the daemon with SIGTERM (SIGKILL if it does
# not go), and the jobs by the process groups they record in $TMP/pgids
# (job_prelude), since jobs outlive a daemon on purpose.  (dash's kill takes
# no "--": groups are killed as `kill -KILL -PGID`.)
: "${GPUSCHEDD:=$(dirname "$GPUSCHED")/gpuschedd}" # the build variant of gpusched's
# every engine invariant after each turn (the daemon aborts on a broken one)
GPUSCHEDD_ENGINE_CHECK=${GPUSCHEDD_ENGINE_CHECK:-1}
export GPUSCHEDD_ENGINE_CHECK
STATE=$TMP/state
DPID=
PORT=
export GPUSCHED_SERVER=
JOB_PGIDS=$TMP/pgids
: >"$JOB_PGIDS"

# What each test job runs first: record its process group so cleanup can
# end it (the local backend gives every job its own group).
job_prelude="ps -o pgid= \$\$ | tr -d ' ' >>'$JOB_PGIDS';"

# start_daemon [gpuschedd options...]: start on $STATE listening on
# ${LISTEN:-127.0.0.1:0} (through $LAUNCH, e.g. a debugger, when set), wait
# for the "listening on" line and for /readyz; sets DPID, PORT,
# GPUSCHED_SERVER.
start_daemon() {
    _log=$TMP/daemon.$(date +%s%N).log
    _trust=--trust-loopback # token tests set NO_TRUST=1 (docs/security.md)
    [ "${NO_TRUST:-}" = 1 ] && _trust=
    # exec: virtual GPUs (node-local CUDA_VISIBLE_DEVICES) and users that are labels
    _vx="--virtual-users"; case " $* " in *" --local-gpus "*|*" --virtual-gpus "*) ;; *) _vx="$_vx --virtual-gpus" ;; esac
    # shellcheck disable=SC2086
    $LAUNCH "$GPUSCHEDD" --state "$STATE" --listen "${LISTEN:-127.0.0.1:0}" $_trust $_vx "$@" \
        >"$_log.out" 2>>"$TMP/daemon.err" &
    DPID=$!
    _i=0
    while [ $_i -lt 400 ]; do # 20 s: a restart on a loaded machine
        _url=$(sed -n 's/^listening on //p' "$_log.out" 2>/dev/null | head -1)
        [ -n "$_url" ] && break
        kill -0 "$DPID" 2>/dev/null || { echo "# daemon exited early"; cat "$TMP/daemon.err" | sed 's/^/# /'; DPID=; return 1; }
        sleep 0.05; _i=$((_i + 1))
    done
    [ -n "$_url" ] || { echo "# daemon did not print its address"; return 1; }
    GPUSCHED_SERVER=$_url
    PORT=${_url##*:}
    _i=0
    while [ $_i -lt 400 ]; do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$_url/readyz")" = 200 ] && return 0
        kill -0 "$DPID" 2>/dev/null || { echo "# daemon exited before ready:"; tail -3 "$TMP/daemon.err" | sed 's/^/#   /'; DPID=; return 1; }
        sleep 0.05; _i=$((_i + 1))
    done
    echo "# daemon not ready after 20 s"
    return 1
}

# stop_daemon: SIGTERM, wait up to 10 s, then SIGKILL.
stop_daemon() {
    [ -n "$DPID" ] || return 0
    kill -TERM "$DPID" 2>/dev/null
    _i=0
    while kill -0 "$DPID" 2>/dev/null && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
    kill -KILL "$DPID" 2>/dev/null
    wait "$DPID" 2>/dev/null
    DPID=
}

# kill9_daemon: SIGKILL at once (the durability tests).
kill9_daemon() {
    [ -n "$DPID" ] || return 0
    kill -KILL "$DPID" 2>/dev/null
    wait "$DPID" 2>/dev/null
    DPID=
}

# kill_jobs: end every job process group recorded by job_prelude, and the
# daemon's per-job supervisors (children that outlived it are reparented,
# so they are found by their pid files under the state dir, if any).
kill_jobs() {
    _own=$(ps -o pgid= $$ | tr -d ' ')
    for _g in $(sort -u "$JOB_PGIDS" 2>/dev/null); do
        # never our own group (a job always has one of its own; be safe)
        [ "$_g" -gt 1 ] 2>/dev/null && [ "$_g" != "$_own" ] && kill -KILL "-$_g" 2>/dev/null
    done
    : >"$JOB_PGIDS"
}

client_cleanup() {
    stop_daemon
    kill_jobs
    if [ -n "${KEEP_TMP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap client_cleanup EXIT
trap 'exit 1' INT TERM HUP

# wait_for CMD... : retry CMD every 0.1 s for up to ${WAIT_S:-20} s.
wait_for() {
    _i=0
    while [ $_i -lt $((${WAIT_S:-20} * 10)) ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1; _i=$((_i + 1))
    done
    return 1
}

# job_state ID: the job's state (or outcome when done), via gpusched show --json.
job_state() {
    "$GPUSCHED" show --json "$1" 2>/dev/null | jq -r 'if .state == "done" then .outcome else .state end'
}
is_state() { [ "$(job_state "$1")" = "$2" ]; }

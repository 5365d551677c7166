#!/bin/sh
# --run-dir DIR puts the supervisors' run files (SEQ-ATTEMPT/sup, exit, ...)
# outside the state directory, e.g. on a tmpfs (the unit uses
# /run/gpusched/run): a job is re-adopted from there after kill -9, and the
# directory is claimed for one state in DIR/.state, so a daemon of another
# state is refused instead of reading the first one's files as its own.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 13

S=$TMP/s
R=$TMP/x/run              # kill_jobs $TMP/x stops what runs under it
mkdir -p "$TMP/x"
trap 'kill_jobs "$TMP/x"' EXIT
daemon_start "$S" --run-dir "$R"
ok "$([ -n "$URL" ]; echo $?)" "a fresh state with a fresh run directory starts"
is "$(cat "$R/.state")" "$(cd "$S" && pwd -P)" "the run directory names its state in .state"
api POST /v1/jobs "{\"id\":\"w\",\"command\":[\"sh\",\"-c\",\"while [ ! -f $TMP/go ]; do sleep 0.05; done; exit 4\"]}"
wait_state w running
ok "$([ -f "$R/1-1/sup" ] && [ ! -e "$S/run" ]; echo $?)" \
    "the job's run files are in the run directory, and STATE/run is not made"
sp=$(sup_alive "$R/1-1/sup")
ok "$([ -n "$sp" ]; echo $?)" "its supervisor runs (pid $sp)"

kill -KILL "$DPID"; wait "$DPID" 2>/dev/null; DPID=
daemon_start "$S" --run-dir "$R"
api GET /v1/jobs/w
is "$(field "$body" '"\(.state) \(.attempts)"')" "running 1" \
    "after kill -9 the restarted daemon re-adopts the job from the run directory"
touch "$TMP/go"
wait_state w failed
api GET /v1/jobs/w
is "$(field "$body" '"\(.exit_code) \(.attempts)"')" "4 1" "... and records its own exit, attempt 1"

# another state on the same run directory: refused, nothing written there
out=$("$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --virtual-gpus --virtual-users \
      --state "$TMP/s2" --listen 127.0.0.1:0 --trust-loopback --run-dir "$R" 2>&1 >/dev/null)
is "$?" 1 "a daemon of another state on that run directory exits 1"
like "$out" "--run-dir $R belongs to the state directory '$(cd "$S" && pwd -P)'" \
    "... naming the state that owns it"
is "$(cat "$R/.state")" "$(cd "$S" && pwd -P)" "... and the claim is unchanged"
daemon_stop TERM
is $? 0 "the daemon stops cleanly"

# an empty claim (a daemon that died between creating and writing it) is taken
mkdir -p "$TMP/y/run"
: >"$TMP/y/run/.state"
daemon_start "$TMP/s3" --run-dir "$TMP/y/run"
ok "$([ -n "$URL" ]; echo $?)" "a run directory with an empty .state starts"
is "$(cat "$TMP/y/run/.state")" "$(cd "$TMP/s3" && pwd -P)" "... and is claimed for this state"
daemon_stop TERM
sanitizer_clean

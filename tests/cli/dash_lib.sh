# dash_lib.sh - shared by the dashboard tests (source after tap.sh).
CDP="python3 $ROOT/tests/cli/cdp.py"
CHROME=$(command -v chromium || command -v chromium-browser || true)

# dash_big_cluster FILE: 1,024 nodes x 8 GPUs, half with one NVLink domain
# of 8, half split 4+4 (so both unit kinds show on the map).
dash_big_cluster() {
    printf 'cluster:\n  gpu_types:\n    H100-80G: { memory_gb: 80 }\n  nodes:\n' >"$1"
    printf '    - name: node-[1-512]\n      gpus: 8\n      gpu_type: H100-80G\n      nvlink_domains: [8]\n' >>"$1"
    printf '    - name: pod-[1-512]\n      gpus: 8\n      gpu_type: H100-80G\n      nvlink_domains: [4, 4]\n' >>"$1"
}

# dash_big_snapshot FILE: a snapshot of that cluster at t = 10 h: node i
# (1-based over node-1..512, pod-1..512) has its first (i*5 mod 9) GPUs busy
# (every node from 0 to 8 busy GPUs), and 10,000 queued jobs job-00001 ..
# job-10000 of 8, 4, 2 or 1 GPUs from six teams, submitted over the 10 h.
dash_big_snapshot() {
    awk 'BEGIN {
        printf "{\"time\": 36000, \"busy\": {"; sep = ""
        for (n = 1; n <= 1024; n++) {
            name = n <= 512 ? "node-" n : "pod-" (n - 512); k = (n * 5) % 9
            if (k == 0) continue
            printf "%s\"%s\": [", sep, name; sep = ", "
            for (g = 0; g < k; g++) printf "%s%d", (g ? ", " : ""), g
            printf "]"
        }
        printf "}, \"queue\": ["
        for (j = 1; j <= 10000; j++) {
            sz = j % 10 == 0 ? 8 : j % 3 == 0 ? 4 : j % 2 == 0 ? 2 : 1
            printf "%s{\"id\": \"job-%05d\", \"gpus\": %d, \"team\": \"team-%c\", \"submit\": %d}",
                (j > 1) ? ", " : "", j, sz, 97 + j % 6, (j * 7919) % 36000
        }
        print "]}"
    }' >"$1"
}

# dash_daemon_start DIR CLUSTER POLICY [ARGS...]: start gpuschedd on
# 127.0.0.1:0 with its state under DIR; sets DPID and URL (empty URL when
# it did not come up within 20 s).
GPUSCHEDD=${GPUSCHEDD:-$(dirname "$GPUSCHED")/gpuschedd}
dash_daemon_start() {
    dir=$1 cl=$2 pol=$3
    shift 3
    # a restart on the same directory: the old "listening on" line must go
    # first, or the loop below can read it before the new daemon's shell
    # truncates the file (the redirection happens in the child)
    rm -f "$dir/out"
    "$GPUSCHEDD" --cluster "$cl" --policy "$pol" --state "$dir/state" --listen 127.0.0.1:0 \
        ${DASH_TRUST---trust-loopback} "$@" >"$dir/out" 2>"$dir/err" &
    DPID=$!
    URL=
    i=0
    while [ $i -lt 200 ] && [ -z "$URL" ]; do
        URL=$(sed -n 's/^listening on //p' "$dir/out" 2>/dev/null)
        [ -n "$URL" ] || sleep 0.1
        i=$((i + 1))
    done
    i=0
    while [ -n "$URL" ] && [ $i -lt 100 ] && ! curl -sf "$URL/readyz" >/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
}

# dash_daemon_stop [CURL-ARGS...]: cancel every job not done yet (pending
# ones too, which could start once the others are gone), until none is
# left, so no job process outlives the test; then stop the daemon by its pid.
dash_daemon_stop() {
    [ -n "$DPID" ] || return 0
    i=0
    while [ -n "$URL" ] && [ $i -lt 100 ]; do
        ids=$(for st in pending starting running stopping; do
                  curl -s "$@" "$URL/v1/jobs?state=$st" | jq -r '.jobs[].id' 2>/dev/null
              done)
        [ -z "$ids" ] && break
        for id in $ids; do
            curl -s "$@" -XPOST -H "Content-Type: application/json" "$URL/v1/jobs/$id/cancel" >/dev/null
        done
        sleep 0.2
        i=$((i + 1))
    done
    kill "$DPID" 2>/dev/null
    wait "$DPID" 2>/dev/null
    DPID=
}

# dash_submit ID GPUS TEAM [CURL-ARGS...]: POST /v1/jobs with a sleeping
# command; prints the HTTP status.
dash_submit() {
    id=$1 g=$2 team=$3
    shift 3
    curl -s -o /dev/null -w '%{http_code}' "$@" -XPOST -H "Content-Type: application/json" "$URL/v1/jobs" \
        -d "{\"id\":\"$id\",\"gpus\":$g,\"team\":\"$team\",\"time_limit\":\"1h\",\"command\":[\"sleep\",\"900\"]}"
}

# ev N: the value of the N-th "eval:" line in $out (cdp.py's output)
ev() { printf '%s\n' "$out" | sed -n "s/^eval: //p" | sed -n "${1}p"; }

# dash_queue_cfg FILE URL N: a curl config (-K) posting N jobs job-00001 ..
# of 8, 4, 2 or 1 GPUs (every 10th, 3rd, 2nd, else) from team-a .. team-f,
# each printing its HTTP status on a line.
dash_queue_cfg() {
    awk -v u="$2/v1/jobs" -v n="$3" 'BEGIN { q = "\\\""
        for (j = 1; j <= n; j++) {
            sz = j % 10 == 0 ? 8 : j % 3 == 0 ? 4 : j % 2 == 0 ? 2 : 1
            if (j > 1) print "next"
            printf "url = \"%s\"\ndata = \"{%sid%s:%sjob-%05d%s,%sgpus%s:%d,%steam%s:%steam-%c%s,", u, q, q, q, j, q, q, q, sz, q, q, q, 97 + j % 6, q
            printf "%scommand%s:[%ssleep%s,%s900%s]}\"\nheader = \"Content-Type: application/json\"\noutput = \"/dev/null\"\nwrite-out = \"%%{http_code} %%{errormsg}\\n\"\n", q, q, q, q, q, q
        } }' >"$1"
}

# dash_daemon_kill DIR: stop the daemon by its pid, then every job process
# it left running (a daemon stops without stopping its jobs): SIGTERM to
# each supervisor recorded in DIR/state/run/*/sup (pid and start time,
# checked against /proc so a reused pid is left alone) that has not written
# its exit file; the supervisor passes it to the job's process group.
# For a daemon with many queued jobs, where cancelling them one by one
# would take minutes.
dash_daemon_kill() {
    [ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
    DPID=
    for sup in "$1"/state/run/*/sup; do
        [ -f "$sup" ] || continue
        [ -f "$(dirname "$sup")/exit" ] && continue
        read -r pid start <"$sup"
        now=$(awk '{ print $22 }' "/proc/$pid/stat" 2>/dev/null)
        [ -n "$now" ] && [ "$now" = "$start" ] && kill -TERM "$pid" 2>/dev/null
    done
    i=0
    while [ $i -lt 100 ]; do
        left=0
        for sup in "$1"/state/run/*/sup; do
            [ -f "$sup" ] && [ ! -f "$(dirname "$sup")/exit" ] && left=$((left + 1))
        done
        [ $left -eq 0 ] && break
        sleep 0.1
        i=$((i + 1))
    done
}

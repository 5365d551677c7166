#!/bin/sh
# A job's supervisor and the job hold no descriptor of the daemon's: only
# 0, 1 and 2 (stdin /dev/null, the job's output files).  The daemon here
# is started with two descriptors open without close-on-exec, 7 and 1500
# (above 1023: the supervisor used to close only 3..1023, one close call
# each; it now closes everything from 3 up with close_range,
# gsd_close_fds_except in supervise.c), so a leak of either would show.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 7

# fds PID: the descriptor numbers PID holds, sorted, on one line
fds() { ls "/proc/$1/fd" 2>/dev/null | sort -n | tr '\n' ' ' | sed 's/ $//'; }

REAL=$GPUSCHEDD
WRAP=$TMP/gpuschedd-fds
# bash (dash cannot name descriptors above 9); exec keeps the pid, and the
# daemon finds its supervisor beside its own executable (/proc/self/exe)
cat >"$WRAP" <<EOF
#!/bin/bash
ulimit -n 4096 || exit 1
exec 7</dev/null 1500</dev/null
exec "$REAL" "\$@"
EOF
chmod +x "$WRAP"
GPUSCHEDD=$WRAP daemon_start "$TMP/s"
d=$(fds "$DPID")
like " $d " " 7 .* 1500 " "the daemon holds the inherited descriptors 7 and 1500 ($d)"

api POST /v1/jobs "{\"id\":\"w\",\"command\":[\"sh\",\"-c\",\"echo \$\$ >$TMP/jobpid; while [ ! -f $TMP/go ]; do sleep 0.05; done\"]}"
sup=
for _ in $(seq 200); do
    f=$(ls "$TMP"/s/run/*/sup 2>/dev/null | head -1)
    [ -n "$f" ] && [ -s "$TMP/jobpid" ] && sup=$(cut -d' ' -f1 "$f") && break
    sleep 0.05
done
job=$(cat "$TMP/jobpid" 2>/dev/null)
ok "$([ -n "$sup" ] && [ -n "$job" ]; echo $?)" "the job runs under its supervisor ($sup, job $job)"
is "$(fds "$sup")" "0 1 2" "the supervisor holds only 0, 1 and 2"
is "$(fds "$job")" "0 1 2" "the job holds only 0, 1 and 2"
touch "$TMP/go"
wait_state w completed
api GET /v1/jobs/w
is "$(field "$body" '"\(.outcome) \(.exit_code)"')" "completed 0" "the job completes"
daemon_stop TERM
is $? 0 "the daemon stops cleanly"
sanitizer_clean

#!/bin/sh
# Client commands without a daemon: --help, argument parsing into the request
# body (submit --dry-run), usage errors (exit 2) and an unreachable server
# (exit 1, "gpusched: URL: reason").
. "$(dirname "$0")/tap.sh"
plan 22

for c in submit queue show why cancel checkpoint nodes drain resume replay; do
    run "$GPUSCHED" $c --help
    like "$out" "usage: gpusched $c" "$c --help prints its usage"
done

# the trace columns as options, in the trace's units (time_limit 4h = 14400 s,
# checkpoint_interval 30m = 1800 s), the command after --
run "$GPUSCHED" submit --dry-run --gpus 8 --team a --time-limit 4h \
    --checkpoint-interval 30m --gpu-share 0.5 --env A=1 -- sh -c 'echo "$A"'
ok $rc "submit --dry-run exits 0"
body=$out
is "$(printf '%s' "$body" | jq -c '[.gpus, .team, .time_limit, .checkpoint_interval, .gpu_share]')" \
    '[8,"a",14400,1800,0.5]' "columns become trace-unit JSON values"
is "$(printf '%s' "$body" | jq -c '.command')" '["sh","-c","echo \"$A\""]' "argv after -- kept as is"
is "$(printf '%s' "$body" | jq -c '.env')" '{"A":"1"}' "env KEY=VALUE"
is "$(printf '%s' "$body" | jq -r 'keys | length')" 7 "only the given keys"

run "$GPUSCHED" submit --dry-run --time-limit 4hours -- true
is "$rc" 2 "bad duration: exit 2"
like "$out" "time_limit" "the error names the column"

run "$GPUSCHED" submit --gpus 2
is "$rc" 2 "no command: exit 2"
like "$out" "command" "the error says a command is missing"

# port 1 on loopback: nothing listens there
run "$GPUSCHED" queue --server http://127.0.0.1:1
is "$rc" 1 "unreachable server: exit 1"
like "$out" "^gpusched: http://127.0.0.1:1: " "the error names the server"

GPUSCHED_JOB_ID= run "$GPUSCHED" checkpoint --server http://127.0.0.1:1
is "$rc" 2 "checkpoint without an id: exit 2"

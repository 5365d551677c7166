#!/bin/sh
# The client's --token / GPUSCHED_TOKEN against a gpuschedd with a tokens file
# (tests/data/cli/client-tokens.yaml): no token is 401, a read token reads but
# cannot submit (403), a submit token acts for its own team only, and --json
# prints the API's error body on stdout while the message goes to stderr.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 13
G=$GPUSCHED

NO_TRUST=1 start_daemon --cluster "$ROOT/examples/seed-cluster.yaml" --tokens "$DATA/client-tokens.yaml"
ok $? "daemon with a tokens file starts"

run "$G" queue
is "$rc" 1 "no token: exit 1"
like "$out" "^gpusched: .*HTTP 401" "no token: 401"
run "$G" queue --token cli-reader-0001
ok $rc "--token with a read token: queue works"
GPUSCHED_TOKEN=cli-reader-0001 run "$G" nodes
ok $rc "GPUSCHED_TOKEN is used when --token is not given"
run "$G" submit --token cli-reader-0001 --team a -- true
like "$out" "^gpusched: .*HTTP 403" "a read token cannot submit (403)"
run "$G" submit --token cli-teama-0001 --id ta --team a --gpus 0 -- sh -c "$job_prelude exec sleep 30"
is "$out" ta "a submit token submits for its team"
is "$("$G" show --json --token cli-reader-0001 ta | jq -r .user)" nobody \
    "... as the token's user (nobody)"
run "$G" submit --token cli-teama-0001 --id tu --team a --user root --gpus 0 -- true
like "$out" "^gpusched: .*field user.*HTTP 403" "... and cannot claim another user (403, field user)"
run "$G" submit --token cli-teama-0001 --id tb --team b --gpus 0 -- true
like "$out" "^gpusched: .*HTTP 403" "... and not for another team (403)"
run "$G" cancel --token cli-teamb-0001 ta
like "$out" "^gpusched: .*HTTP 403" "team b's token cannot cancel team a's job"
out=$("$G" cancel --json --token cli-teamb-0001 ta 2>/dev/null)
like "$(printf '%s' "$out" | jq -r '.error.code')" . "--json: the error body on stdout"
run "$G" cancel --token cli-admin-0001 ta
ok $rc "the admin token cancels it"
stop_daemon

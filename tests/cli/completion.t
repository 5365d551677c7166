#!/bin/sh
# scripts/gpusched.bash-completion in a real bash: commands and options
# from the binary's help, queue's --format fields and -t states, and node
# names and job ids from a real gpuschedd (none when it does not answer).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 12
PATH=$(dirname "$GPUSCHED"):$PATH
export PATH
COMP=$ROOT/scripts/gpusched.bash-completion
# comp WORD... : the completions of the last word, sorted, on one line
comp() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpusched
             [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' comp "$COMP" gpusched "$@"
}

like "$(comp que)" "^queue $" "a command from gpusched --help"
like "$(comp queue --no)" "^--noheader $" "an option from the command's --help"
is "$(comp queue --format jobid,us)" "jobid,user " "--format: the field after the comma"
fields=$(comp queue --format "")
is "$(printf '%s\n' $fields | wc -l | tr -d ' ')" 20 "--format '': the 20 fields of queue --help"
bad=; for f in $fields; do
    GPUSCHED_SERVER=http://127.0.0.1:1 "$GPUSCHED" queue --format "$f" >/dev/null 2>&1
    [ $? -eq 2 ] && bad="$bad $f"
done
is "$bad" "" "every field offered is one queue --format takes (no usage error)"
is "$(comp queue -t P)" "PD " "-t: Slurm's codes"
is "$(comp cancel --state run)" "running " "cancel --state: state names"

got=$(GPUSCHED_SERVER=http://127.0.0.1:1 comp drain n)
is "$got" "" "daemon unreachable: no node names (and no hang)"

start_daemon --cluster "$DATA/two-nodes.yaml" --policy "$DATA/live-equiv.yaml"
ok $? "daemon starts"
"$GPUSCHED" submit --id job-a --gpus 8 --time-limit 10m -- sh -c "$job_prelude exec sleep 60" >/dev/null
"$GPUSCHED" submit --id job-b --gpus 16 --time-limit 10m -- true >/dev/null
"$GPUSCHED" down n2:3 --reason test >/dev/null
is "$(comp drain n)" "n1 n2 " "drain: the daemon's node names"
is "$(comp resume n)" "n1 n2 n2:3 " "resume: nodes and the GPU out alone (NODE:GPU)"
is "$(comp cancel job-)" "job-a job-b " "cancel: the live job ids"

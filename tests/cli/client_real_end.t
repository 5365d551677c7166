#!/bin/sh
# A job that ends while gpuschedd is down gets its real end time (DESIGN.md
# section 5, "What is promised"): e runs 1 s; the daemon is killed with
# SIGKILL at once and restarted 3 s later.  The job's supervisor writes its
# exit code and end time to the run dir; after the restart the job must be
# completed with that end (the job's own stamp, within 0.5 s), not the
# restart time 2 s later.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 3
G=$GPUSCHED
C=$ROOT/examples/seed-cluster.yaml
P=$DATA/live-basic.yaml
STAMPS=$TMP/stamps
job="$job_prelude"'echo "start $GPUSCHED_JOB_ID $(date +%s%N)" >>"'$STAMPS'"; sleep "$1";
echo "end $GPUSCHED_JOB_ID $(date +%s%N)" >>"'$STAMPS'"'
start_daemon --cluster "$C" --policy "$P"
ok $? "daemon starts"
"$G" submit --id e --gpus 1 --time-limit 5m -- sh -c "$job" sh 1 >/dev/null
WAIT_S=10 wait_for is_state e running
kill9_daemon
sleep 3
start_daemon --cluster "$C" --policy "$P"
WAIT_S=10 wait_for is_state e completed
ok $? "e, which ended while the daemon was down, is completed after the restart"
stamp=$(awk '$1=="end" && $2=="e" {printf "%.3f", $3 / 1e9}' "$STAMPS")
end=$("$G" show --json e | jq -r '.end_epoch')
echo "# e: ended at $stamp (its own stamp), the daemon says $end"
ok $(awk -v a="$stamp" -v b="$end" 'BEGIN{d = b - a; exit !(d > -0.5 && d < 0.5)}'; echo $?) \
    "its end is the real one (within 0.5 s of its stamp), not the restart 2 s later"
stop_daemon

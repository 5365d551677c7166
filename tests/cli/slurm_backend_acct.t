#!/bin/sh
# slurm_backend_acct.t - `gpuschedd --backend slurm` on a private Slurm 22.05
# with accounting (scripts/slurm-local.sh --accounting: slurmdbd + MariaDB):
# a job that ends while gpuschedd is down for longer than MinJobAge (2 s
# here), so that slurmctld no longer knows it, gets its real end from sacct
# after the restart: exit code 4 (the job's own) and the end time the job
# itself wrote (to the second: Slurm's times are whole seconds), and it is
# not run again.  tests/cli/slurm_backend_counts.t covers the same without
# accounting (end unknown).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
slurm_require acct
plan 9
SEED=$ROOT/examples/seed-cluster.yaml
T0=$(date +%s)

GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN" --gpu-types --accounting \
    >"$TMP/up.log" 2>&1
ok $? "private Slurm cluster with accounting up"
echo "# up after $(( $(date +%s) - T0 )) s"
. "$RUN/env.sh"
sed -i 's/^MinJobAge=.*/MinJobAge=2/' "$RUN/etc/slurm.conf" && scontrol reconfigure
cat >"$TMP/job.sh" <<JOB
echo "\$SLURM_JOB_ID" >>"$TMP/runs.\$GPUSCHED_JOB_ID"
sleep 1
date +%s >"$TMP/end.\$GPUSCHED_JOB_ID"
exit 4
JOB

sstart "$TMP/s1" --backend slurm --slurm-poll 0.2
ok $? "gpuschedd --backend slurm is ready"
api POST /v1/jobs "{\"id\":\"L\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/job.sh\"]}"
wait_state L running 15
i=0
while [ ! -s "$TMP/runs.L" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
L=$(cat "$TMP/runs.L")
daemon_stop KILL
i=0
while scontrol -o show job "$L" >/dev/null 2>&1 && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done
echo "# Slurm job $L purged by slurmctld after $((i / 10)) s"
scontrol -o show job "$L" >/dev/null 2>&1
ok $((! $?)) "slurmctld forgot L's Slurm job $L (ended, older than MinJobAge)"
# slurmdbd takes the end asynchronously: wait for it before reading sacct
# (and before the restart, whose recovery reads sacct)
slurm_acct_wait 1 "^$L[|]" 2>"$TMP/acct-wait.err"
ok $? "accounting caught up with L ($(tail -1 "$TMP/acct-wait.err"))"
is "$(sacct -n -P -X -j "$L" -o State,ExitCode)" "FAILED|4:0" "accounting has it: FAILED, exit 4"
sstart "$TMP/s1" --backend slurm --slurm-poll 0.2
wait_state L failed 15
api GET /v1/jobs/L
is "$(field "$body" '.exit_code')" 4 "after the restart L has its real exit code (4) from sacct"
end=$(cat "$TMP/end.L")
is "$(awk -v e="$(field "$body" .end_epoch)" -v j="$end" 'BEGIN { d = e - j; print (d >= -1 && d <= 1) ? "ok" : d }')" ok \
    "and its real end (within 1 s of the time the job wrote before exiting)"
like "$(cat "$TMP/daemon.err")" "job L: Slurm job $L is gone from slurmctld; sacct: ended with exit code 4" \
    "the log says where the end came from"
sleep 1
S=$(sqlite3 "$TMP/s1/journal.db" "select seq from jobs where id = 'L'")
is "$(wc -l <"$TMP/runs.L") $(squeue -h -n "gs:$S:1,gs:$S:2" | wc -l)" "1 0" "L ran once and is not run again"
daemon_stop
echo "# total $(( $(date +%s) - T0 )) s"

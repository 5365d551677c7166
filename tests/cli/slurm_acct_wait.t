#!/bin/sh
# slurm_acct_wait.t - the accounting wait of `make demo-slurm` and of the
# tests that read sacct (scripts/slurm-local.sh acct-wait, slurm_lib.sh
# slurm_acct_wait) under load: a CPU hog on every core beside a private
# Slurm with slurmdbd + MariaDB.  A few jobs end; the wait returns 0 only
# once sacct has every record; with slurmdbd stopped (SIGSTOP, so slurmctld
# queues its messages) it fails after its deadline naming the records it
# has, the DBD agent queue and the last lines of slurmctld's and slurmdbd's
# logs; with slurmdbd running again it catches up.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
slurm_require acct
plan 9
SEED=$ROOT/examples/seed-cluster.yaml
T0=$(date +%s)
HOGS=
DBD=
# shellcheck disable=SC2317 # called by the trap
stop_all() {
    [ -z "$DBD" ] || kill -CONT "$DBD" 2>/dev/null
    for h in $HOGS; do kill "$h" 2>/dev/null; done
    slurm_cleanup
}
trap stop_all EXIT
for _ in 1 2; do sh -c 'while :; do :; done' & HOGS="$HOGS $!"; done

GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN" --accounting >"$TMP/up.log" 2>&1
ok $? "private Slurm with accounting up beside two CPU hogs"
echo "# up after $(( $(date +%s) - T0 )) s"
. "$RUN/env.sh"
drain() { # until squeue is empty, up to 60 s
    i=0; while [ -n "$(squeue -h -o %i)" ] && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
}
ended() { sacct -a -X -n -P -S 1970-01-01T00:00:00 -o State | grep -c COMPLETED; }

for i in 1 2 3 4 5 6; do sbatch -J "w$i" -o /dev/null --wrap true >/dev/null; done
drain
t=$(date +%s)
SLURM_ACCT_EVERY=1 slurm_acct_wait 6 2>"$TMP/w1.err"
ok $? "the wait for 6 records returns 0 under load ($(( $(date +%s) - t )) s)"
like "$(tail -1 "$TMP/w1.err")" "accounting: 6/6 records, 0 not ended, DBD agent queue 0: caught up" \
    "its last line says what it waited for"
is "$(ended)" 6 "and sacct has all 6 jobs COMPLETED when it returns"

# slurmdbd stopped: the ends of 3 more jobs wait in slurmctld's DBD queue
DBD=$(cat "$RUN/run/slurmdbd.pid")
kill -STOP "$DBD"
for i in 7 8 9; do sbatch -J "w$i" -o /dev/null --wrap true >/dev/null; done
drain
SLURM_ACCT_TIMEOUT=4 slurm_acct_wait 9 2>"$TMP/w2.err"
is "$?" 1 "with slurmdbd stopped the wait fails after its deadline"
like "$(head -1 "$TMP/w2.err")" "records, .*DBD agent queue [1-9][0-9]* after 4 s: accounting did not catch up" \
    "and says the DBD agent queue is not empty"
like "$(tr '\n' ' ' <"$TMP/w2.err")" "last lines of $RUN/log/slurmctld.log.*_job_complete.*last lines of $RUN/log/slurmdbd.log" \
    "with the last lines of slurmctld's and slurmdbd's logs"
kill -CONT "$DBD"
DBD=
slurm_acct_wait 9 '[|]w[0-9][|]' 2>"$TMP/w3.err"
ok $? "slurmdbd running again: the wait catches up ($(tail -1 "$TMP/w3.err"))"
is "$(ended)" 9 "sacct has all 9 jobs"
echo "# total $(( $(date +%s) - T0 )) s"

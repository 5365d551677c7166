#!/bin/sh
# --backend slurm runs a job as its user (issue 21): root's sbatch with
# --uid/--gid for a job of another account, checked against Slurm's own
# record of the job's user (squeue %U); a job of the daemon's own account
# (root, or "-") runs as root; a user with no account fails its launch.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
slurm_require
plan 8
GS_STRICT_USERS=1
SEED=$ROOT/examples/seed-cluster.yaml

GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN" --gpu-types >"$TMP/up.log" 2>&1
ok $? "private Slurm cluster up"
. "$RUN/env.sh"
# the private cluster's spool lives under $TMP (0700): slurmd execs a job's
# script there as the job's user, who must be able to reach it (a real
# cluster's /var/spool/slurmd is reachable)
chmod 711 "$TMP" "$RUN"
find "$RUN" -type d -name spool -exec chmod 711 {} + -exec sh -c 'chmod 711 "$1"/*' _ {} \;
sstart "$TMP/s1" --backend slurm --slurm-poll 0.2
ok $? "gpuschedd --backend slurm is ready"

# nobody writes only where nobody may: its own directory
W=$(mktemp -d /tmp/gsslurmuser.XXXXXX)
chown nobody "$W"
api POST /v1/jobs "{\"id\":\"nb\",\"user\":\"nobody\",\"cwd\":\"/tmp\",\"stdout\":\"$W/nb.out\",
    \"stderr\":\"$W/nb.err\",\"command\":[\"sh\",\"-c\",\"id -u; sleep 3\"]}"
api POST /v1/jobs "{\"id\":\"rt\",\"user\":\"root\",\"stdout\":\"$W/rt.out\",\"command\":[\"id\",\"-u\"]}"
wait_state nb running 30
sid=$(sqlite3 "$TMP/s1/journal.db" "SELECT sup_pid FROM jobs WHERE id='nb'")
is "$(squeue -h -j "$sid" -o %U)" 65534 "Slurm's record: Slurm job $sid of nb runs as uid 65534"
wait_state nb completed 30; wait_state rt completed 30
is "$(cat "$W/nb.out")" 65534 "the job ran as nobody (id -u = 65534)"
is "$(stat -c %u "$W/nb.out")" 65534 "its output file is nobody's"
is "$(cat "$W/rt.out")" 0 "a job of root runs as root"
ghost=gs-no-such-user-$$
api POST /v1/jobs "{\"id\":\"ghost\",\"user\":\"$ghost\",\"command\":[\"true\"]}"
for _ in $(seq 100); do grep -q "job ghost: launch failed" "$TMP/daemon.err" && break; sleep 0.1; done
like "$(cat "$TMP/daemon.err")" "job ghost: launch failed: user '$ghost' does not exist" \
    "a user with no account: its launch fails, saying why (no Slurm job as root)"
api POST /v1/jobs/ghost/cancel
daemon_stop TERM
rm -rf "$W"
ok 0 "stopped"

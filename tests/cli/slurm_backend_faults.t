#!/bin/sh
# slurm_backend_faults.t - `gpuschedd --backend slurm` when Slurm goes wrong
# at the worst moment, on a real private Slurm 22.05 (scripts/slurm-local.sh,
# the seed's 4 x 8 nodes, per-GPU GRES types).  The faults are injected at
# exact points of gpuschedd's launch by a wrapper `scontrol` first in its
# PATH: it runs the real scontrol, and when a trigger file exists it first
# acts once (sets the decided node down or drained in Slurm, or SIGKILLs
# gpuschedd - its parent - before or after the release):
#   1. node set down between the decision and the release: a failed launch
#      (not a node failure: the run is not counted), run again elsewhere as
#      a new Slurm job; the first Slurm job never ran;
#   1b. a placement Slurm refuses (scontrol update fails): the Slurm job is
#      cancelled before any release, a failed launch, run again;
#   2. node drained between the decision and the release: Slurm holds the
#      job pending; at the start deadline gpuschedd cancels it and reports a
#      failed launch; the job goes back AHEAD of the peers queued meanwhile
#      and is the first to run when GPUs free up, on another node;
#   3. SIGKILL of gpuschedd after the held submit, before the release: on
#      restart the held Slurm job is cancelled and the attempt submitted
#      again; exactly one Slurm job of the attempt ran, the job ran once;
#   4. SIGKILL right after the release (before the journal has it): the
#      released Slurm job is re-adopted by its name, not submitted again.
# "Ran" is read from Slurm's own records (`scontrol show job`: a job that
# never ran has an empty NodeList) and from each job's own output.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
slurm_require
plan 31
SEED=$ROOT/examples/seed-cluster.yaml

GPUSCHED=$GPUSCHED "$ROOT/scripts/slurm-local.sh" up "$SEED" "$RUN" --gpu-types >"$TMP/up.log" 2>&1
ok $? "private Slurm cluster up (4 x 8 GPUs, one GRES type per GPU)"
. "$RUN/env.sh"
REAL=$(command -v scontrol)
F=$TMP/fault
mkdir -p "$TMP/bin" "$F"
cat >"$TMP/bin/scontrol" <<EOF
#!/bin/sh
# fault injection (slurm_backend_faults.t): act once per trigger file
case "\$1 \$2" in
"update JobId="*)
    node=\$(printf '%s\n' "\$@" | sed -n 's/^NodeList=//p' | cut -d, -f1)
    if [ -e "$F/down" ]; then
        rm -f "$F/down"; echo "\$node" >"$F/node"
        "$REAL" update NodeName="\$node" State=DOWN Reason=gstest || exit 1
    elif [ -e "$F/untyped" ]; then
        # an untyped GRES first: Slurm 22.05 then refuses the typed update
        rm -f "$F/untyped"; "$REAL" update "\$2" Gres=gpu:1 || exit 1
    elif [ -e "$F/drain" ]; then
        rm -f "$F/drain"; echo "\$node" >"$F/node"
        "$REAL" update NodeName="\$node" State=DRAIN Reason=gstest || exit 1
    fi ;;
"release "*)
    if [ -e "$F/kill-before" ]; then
        rm -f "$F/kill-before"; echo "\$2" >"$F/id"; kill -KILL \$PPID; exit 1
    elif [ -e "$F/kill-after" ]; then
        rm -f "$F/kill-after"; echo "\$2" >"$F/id"
        "$REAL" "\$@"; rc=\$?; kill -KILL \$PPID; exit \$rc
    fi ;;
esac
exec "$REAL" "\$@"
EOF
chmod +x "$TMP/bin/scontrol"
export PATH="$TMP/bin:$PATH"

# every job appends its Slurm job id and host to runs.ID, then sleeps $1
cat >"$TMP/once.sh" <<JOB
echo "\$SLURM_JOB_ID \$SLURMD_NODENAME" >>"$TMP/runs.\$GPUSCHED_JOB_ID"
sleep "\$1"
JOB
# slurm_jobs SEQ: "STATE NODELIST" of every Slurm job named gs:SEQ:*, by id
slurm_jobs() {
    "$REAL" -o show job 2>/dev/null | grep " JobName=gs:$1:" |
        sed 's/.*JobId=\([0-9]*\) .*JobName=\([^ ]*\) .*JobState=\([A-Z_]*\) .* NodeList=\([^ ]*\) .*/\1 \2 \3 \4/' |
        sort -n | cut -d' ' -f2- | sed 's/ $/ -/'
}
seq_of() { sqlite3 "$2/journal.db" "select seq from jobs where id = '$1'"; }

sstart "$TMP/s1" --backend slurm --slurm-poll 0.2 --slurm-start-deadline 4
ok $? "gpuschedd --backend slurm is ready"

# 0. the admin API cannot set a node down under Slurm: gpuschedd could not
# end the Slurm jobs there, and a requeued job would run twice; Slurm's
# own down is the way (case 1 below shows gpuschedd following it)
api POST "/v1/nodes/node-1/down" '{"reason":"test"}'
is "$code" 409 "POST /v1/nodes/NAME/down under --backend slurm: 409"
like "$body" "scontrol update nodename=node-1 state=down" "the error says to set it down in Slurm"

# 1. node down between decision and release
touch "$F/down"
api POST /v1/jobs "{\"id\":\"G\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/once.sh\",\"1\"]}"
wait_state G completed 30
ok $? "G completed"
X=$(cat "$F/node")
like "$(cat "$TMP/daemon.err")" "job G: node $X is down in Slurm; Slurm job [0-9]* is a failed launch" \
    "gpuschedd saw $X go down before Slurm ran G: a failed launch"
S=$(seq_of G "$TMP/s1")
is "$(sqlite3 "$TMP/s1/journal.db" "select attempts || ' ' || runs from jobs where id = 'G'")" "2 1" \
    "two attempts, one run: the engine took it as a failed launch, not a lost run"
is "$(sqlite3 "$TMP/s1/journal.db" "select count(*) from events where job = $S and kind = 'launch_failed'")" 1 \
    "the journal records the failed launch"
is "$(slurm_jobs "$S")" "gs:$S:1 CANCELLED -
gs:$S:2 COMPLETED $(cut -d' ' -f2 "$TMP/runs.G")" \
    "Slurm: attempt 1 cancelled without ever running, attempt 2 ran once"
is "$(wc -l <"$TMP/runs.G")$(grep -c " $X\$" "$TMP/runs.G")" "10" "G ran once, not on $X"
"$REAL" update NodeName="$X" State=RESUME

# 1b. a placement Slurm refuses (the 22.05 GRES update rule: typed after
# untyped is "Invalid GRES specification")
touch "$F/untyped"
api POST /v1/jobs "{\"id\":\"U\",\"gpus\":2,\"command\":[\"sh\",\"$TMP/once.sh\",\"1\"]}"
wait_state U completed 30
ok $? "U completed"
like "$(cat "$TMP/daemon.err")" "job U: launch failed: scontrol update: Invalid GRES specification" \
    "Slurm refused U's placement: a failed launch, with Slurm's own words"
S=$(seq_of U "$TMP/s1")
is "$(slurm_jobs "$S") $(sqlite3 "$TMP/s1/journal.db" "select attempts || ' ' || runs from jobs where id = 'U'")" \
    "gs:$S:1 CANCELLED -
gs:$S:2 COMPLETED $(cut -d' ' -f2 "$TMP/runs.U") 2 1" \
    "Slurm: the refused job was cancelled unreleased and never ran; attempt 2 ran once"
is "$(wc -l <"$TMP/runs.U")" 1 "U ran once"

# 2. node drained between decision and release; peers queue meanwhile
i=0
until [ "$(sinfo -h -N -o '%N %t' | grep -c idle)" -ge 4 ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
for b in B1 B2 B3; do
    api POST /v1/jobs "{\"id\":\"$b\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/once.sh\",\"10\"]}"
done
wait_state B1 running 15 && wait_state B2 running 15 && wait_state B3 running 15
ok $? "B1, B2, B3 run on three nodes"
touch "$F/drain"
api POST /v1/jobs "{\"id\":\"D\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/once.sh\",\"1\"]}"
wait_state D starting 10
for p in P1 P2; do
    api POST /v1/jobs "{\"id\":\"$p\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/once.sh\",\"1\"]}"
done
api GET /v1/jobs
is "$(field "$body" '[.jobs[] | select(.id == "D" or .id == "P1" or .id == "P2") | .id + ":" + .state] | join(" ")')" \
    "D:starting P1:pending P2:pending" "P1 and P2 queue while D's Slurm job waits on the drained node"
X=$(cat "$F/node")
wait_state D pending 15
ok $? "at the start deadline D is back in the queue"
like "$(cat "$TMP/daemon.err")" "job D: Slurm job [0-9]* not running after 4000 ms" \
    "gpuschedd cancelled D's Slurm job at the deadline"
api GET /v1/jobs
is "$(field "$body" '[.jobs[] | select(.state == "pending") | .id] | join(" ")')" "D P1 P2" \
    "D is queued ahead of its peers P1 and P2 (a failed launch goes to the front)"
wait_state D completed 30
# the engine's start decisions in journal order (events.seq): D's second
# one comes before P1's first.  (Not the start times: B1-B3 end together,
# so D and P1 are often decided in one pass, and which of the two Slurm
# reports running first is Slurm's and the poll's timing.)
start_seq() { # ID max|min: the last or first start decision of job ID
    sqlite3 "$TMP/s1/journal.db" "select $2(e.seq) from events e join jobs j on e.job = j.seq
        where j.id = '$1' and e.kind = 'start'"
}
dseq=$(start_seq D max) p1seq=$(start_seq P1 min)
echo "# start decisions (events.seq): D's last $dseq, P1's first ${p1seq:-none}"
is "$(awk -v d="$dseq" -v p="$p1seq" 'BEGIN { print (d != "" && (p == "" || d + 0 < p + 0)) ? "first" : "later" }')" first \
    "D is started before P1 once GPUs free up"
S=$(seq_of D "$TMP/s1")
is "$(slurm_jobs "$S" | cut -d' ' -f1-2)" "gs:$S:1 CANCELLED
gs:$S:2 COMPLETED" "Slurm: attempt 1 cancelled, attempt 2 completed"
is "$(slurm_jobs "$S" | head -1 | cut -d' ' -f3)" "-" "attempt 1 never ran in Slurm (no nodes)"
is "$(wc -l <"$TMP/runs.D")$(grep -c " $X\$" "$TMP/runs.D")" "10" "D ran once, not on the drained $X"
"$REAL" update NodeName="$X" State=RESUME
for j in B1 B2 B3 P1 P2; do wait_state $j completed 30; done

# 3. SIGKILL after the held submit, before the release
touch "$F/kill-before"
api POST /v1/jobs "{\"id\":\"H\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/once.sh\",\"1\"]}"
wait "$DPID" 2>/dev/null
is "$?" 137 "gpuschedd was SIGKILLed between the submit and the release"
DPID=
held=$(cat "$F/id")
is "$("$REAL" -o show job "$held" | grep -o 'Reason=[A-Za-z]*')" "Reason=JobHeldUser" \
    "its Slurm job $held is left held"
sstart "$TMP/s1" --backend slurm --slurm-poll 0.2 --slurm-start-deadline 4
like "$(cat "$TMP/daemon.err")" "job H: Slurm job $held was never released; cancelling it" \
    "on restart the held job is cancelled (the release was never recorded)"
wait_state H completed 30
S=$(seq_of H "$TMP/s1")
is "$(slurm_jobs "$S" | cut -d' ' -f1,3 | sed 's/ [^-].*/ NODES/')" "gs:$S:1 -
gs:$S:1 NODES" "Slurm: the held job never ran; one new job of the same attempt ran"
is "$(wc -l <"$TMP/runs.H")" 1 "H ran exactly once"

# 4. SIGKILL right after the release
touch "$F/kill-after"
api POST /v1/jobs "{\"id\":\"K\",\"gpus\":8,\"command\":[\"sh\",\"$TMP/once.sh\",\"2\"]}"
wait "$DPID" 2>/dev/null
DPID=
rel=$(cat "$F/id")
sstart "$TMP/s1" --backend slurm --slurm-poll 0.2 --slurm-start-deadline 4
like "$(cat "$TMP/daemon.err")" "job K: re-adopted Slurm job $rel" "the released Slurm job is re-adopted"
wait_state K completed 30
S=$(seq_of K "$TMP/s1")
is "$(slurm_jobs "$S" | cut -d' ' -f1-2)" "gs:$S:1 COMPLETED" "Slurm: one job for the attempt, no resubmit"
is "$(wc -l <"$TMP/runs.K")" 1 "K ran exactly once"
daemon_stop

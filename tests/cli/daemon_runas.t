#!/bin/sh
# Jobs run as their user (issue 21, local backend): the job's `user` field
# names the account (nobody = uid 65534, root = 0; "-" or none = the
# daemon's own), its groups, its clean environment (the request's and the
# scheduler's variables, never the daemon's), its working directory, its
# output files (owned by the user, 0600), and the daemon's private state
# (0700 directories, 0600 journal).  A daemon that is not root runs only its
# own account's jobs.  Needs root (CI and this machine run the tests as root).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 33
GS_STRICT_USERS=1 # an unknown user must fail its launch here

[ "$(id -u)" = 0 ] || { echo "# not root"; exit 1; }
NB=$(id -u nobody) NG=$(id -g nobody)
is "$NB $NG" "65534 65534" "the nobody account is uid 65534, gid 65534"

S=$TMP/s
# a variable only the daemon's environment has: no job may see it
GS_DAEMON_ONLY_SECRET=leak-$$ daemon_start "$S"
ok $? "daemon started"

# out FILE: the job's default stdout file (STATE/output/ID.ATTEMPT.out) of job ID
out_of() { printf '%s/output/%s.1.out' "$S" "$1"; }

api POST /v1/jobs '{"id":"nb","user":"nobody","command":["sh","-c",
    "id -u; id -g; grep -E \"^(Uid|Gid|Groups):\" /proc/self/status; pwd; env | sort"]}'
is "$code" 201 "job as nobody accepted"
wait_state nb completed
f=$(out_of nb)
o=$(cat "$f")
printf '%s\n' "$o" | sed 's/^/#   /'
is "$(printf '%s\n' "$o" | sed -n 1p)" 65534 "the job ran as uid 65534 (id -u)"
is "$(printf '%s\n' "$o" | sed -n 2p)" 65534 "with gid 65534 (id -g)"
is "$(printf '%s\n' "$o" | grep '^Uid:' | tr -s '\t ' ' ')" "Uid: 65534 65534 65534 65534" \
    "real, effective, saved and fs uid are all 65534 (root cannot be regained)"
is "$(printf '%s\n' "$o" | grep '^Gid:' | tr -s '\t ' ' ')" "Gid: 65534 65534 65534 65534" \
    "and every gid 65534"
is "$(printf '%s\n' "$o" | grep '^Groups:' | tr -s '\t ' ' ' | sed 's/ *$//')" "Groups: 65534" \
    "its supplementary groups are nobody's (nogroup), none of root's"
is "$(stat -c '%u %g %a' "$f")" "65534 65534 600" "its output file is owned by nobody, mode 0600"
is "$(printf '%s\n' "$o" | sed -n 6p)" / "cwd: nobody's home /nonexistent does not exist, so /"
is "$(printf '%s\n' "$o" | grep -c GS_DAEMON_ONLY_SECRET)" 0 \
    "the daemon's own environment does not reach the job"
is "$(printf '%s\n' "$o" | grep -E '^(USER|LOGNAME|HOME|SHELL)=' | tr '\n' ' ')" \
    "HOME=/nonexistent LOGNAME=nobody SHELL=/usr/sbin/nologin USER=nobody " \
    "USER, LOGNAME, HOME, SHELL come from nobody's passwd entry"
is "$(printf '%s\n' "$o" | grep '^PATH=')" \
    "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin" "PATH is the documented default"
is "$(printf '%s\n' "$o" | grep -E '^(CUDA_VISIBLE_DEVICES|GPUSCHED_JOB_ID)=' | tr '\n' ' ')" \
    "CUDA_VISIBLE_DEVICES=0 GPUSCHED_JOB_ID=nb " "the scheduler's variables are there (1 GPU, the default: node-1:0)"
# every variable is one of those the documentation lists
is "$(printf '%s\n' "$o" | sed -n '/=/s/=.*//p' | grep -v '^[A-Z_]*:' | sort -u | tr '\n' ' ')" \
    "CUDA_VISIBLE_DEVICES GPUSCHED_JOB_ID GPUSCHED_PLACEMENT GPUSCHED_SERVER HOME LOGNAME PATH PWD SHELL USER " \
    "the environment is exactly the scheduler's and the account's (and sh's PWD)"

# root, "-" and no user at all.  "-" (what journal records from before
# request identities hold: the daemon's own account) is not a name a request
# may give (docs/security.md, names): 400 naming the field
api POST /v1/jobs '{"id":"rt","user":"root","command":["sh","-c","id -u; pwd"]}'
api POST /v1/jobs '{"id":"dash","user":"-","command":["id","-u"]}'
dash="$code $(field "$body" .error.field)"
api POST /v1/jobs '{"id":"none","env":{"MY_VAR":"mine","PATH":"/bin:/usr/bin"},
    "command":["sh","-c","id -u; echo $MY_VAR; echo $PATH"]}'
wait_state rt completed; wait_state none completed
is "$(cat "$(out_of rt)" | tr '\n' ' ')" "0 /root " "user root runs as uid 0 in root's home"
is "$dash" "400 user" "a request naming user \"-\" is refused (400, field user)"
is "$(cat "$(out_of none)" | tr '\n' ' ')" "0 mine /bin:/usr/bin " \
    "no user: the caller's account (root, --trust-loopback); the request's env (and its own PATH) reach the job"
is "$(stat -c '%u %a' "$(out_of rt)")" "0 600" "root's output file is 0600 too"

# a user that does not exist: the launch fails with the reason, not as the daemon
ghost=gs-no-such-user-$$
api POST /v1/jobs "{\"id\":\"ghost\",\"user\":\"$ghost\",\"command\":[\"sh\",\"-c\",\"id -u > $TMP/ghost.ran\"]}"
wait_state ghost failed
api GET /v1/jobs/ghost
is "$(field "$body" '.exit_code')" 126 "an unknown user: the job fails with exit code 126"
ok "$([ ! -e "$TMP/ghost.ran" ]; echo $?)" "and its command never ran"
like "$(cat "$TMP/daemon.err")" "job ghost: launch failed: user '$ghost' does not exist" \
    "the daemon's log names the user that does not exist"
is "$(sqlite3 "$S/journal.db" "SELECT detail FROM events e JOIN jobs j ON e.job=j.seq
      WHERE j.id='ghost' AND kind='launch_failed'")" "user '$ghost' does not exist" \
    "the journal's launch_failed event carries the reason"

# cwd: entered as the user; a directory nobody cannot enter fails the launch
api POST /v1/jobs "{\"id\":\"cwdbad\",\"user\":\"nobody\",\"cwd\":\"$TMP\",\"command\":[\"pwd\"]}"
api POST /v1/jobs '{"id":"cwdok","user":"nobody","cwd":"/tmp","command":["pwd"]}'
wait_state cwdbad failed; wait_state cwdok completed
like "$(cat "$TMP/daemon.err")" "job cwdbad: launch failed: cwd $TMP: Permission denied (as user nobody)" \
    "a cwd nobody cannot enter (root's 0700 test dir): launch failed, with the reason"
is "$(cat "$(out_of cwdok)")" /tmp "a cwd nobody can enter is the job's directory"

# the request's own stdout file is opened with the user's rights
W=$(mktemp -d /tmp/gsrunas.XXXXXX)
chown nobody "$W"
api POST /v1/jobs "{\"id\":\"own\",\"user\":\"nobody\",\"stdout\":\"$W/o.txt\",\"command\":[\"id\",\"-u\"]}"
api POST /v1/jobs "{\"id\":\"steal\",\"user\":\"nobody\",\"stdout\":\"$S/journal.db\",\"command\":[\"true\"]}"
wait_state own completed; wait_state steal failed
is "$(cat "$W/o.txt") $(stat -c '%u %a' "$W/o.txt")" "65534 65534 600" \
    "a stdout path of the request: created by nobody, 0600"
like "$(cat "$TMP/daemon.err")" "job steal: launch failed: output $S/journal.db: Permission denied" \
    "nobody cannot make the daemon write its journal (stdout opened as the user)"
rm -rf "$W"

# the state is private: 0700 directories, 0600 journal
is "$(stat -c %a "$S" "$S/run" "$S/output" | tr '\n' ' ')" "700 700 700 " \
    "state, run and output directories are 0700"
is "$(stat -c %a "$S/journal.db" "$S/journal.db-wal" | tr '\n' ' ')" "600 600 " \
    "journal.db and its -wal are 0600"
daemon_stop TERM

# a state dir made 0755/0644 by an older version is made private at start
chmod 755 "$S"
chmod 644 "$S/journal.db"
daemon_start "$S"
is "$(stat -c %a "$S" "$S/journal.db" | tr '\n' ' ')" "700 600 " \
    "restart: an older 0755 state dir and 0644 journal become 0700 / 0600"
daemon_stop TERM

# a daemon that is not root runs its own account's jobs only
N=$(mktemp -d /tmp/gsrunas.XXXXXX)
chmod 755 "$N"
cp "$GPUSCHEDD" "$N/gpuschedd"
mkdir "$N/state" && chown nobody "$N/state"
rm -f "$TMP/daemon.out"
setpriv --reuid=65534 --regid=65534 --clear-groups "$N/gpuschedd" \
    --cluster "$ROOT/examples/seed-cluster.yaml" --state "$N/state" --listen 127.0.0.1:0 --trust-loopback \
    >"$TMP/daemon.out" 2>>"$TMP/daemon.err" &
DPID=$!
for _ in $(seq 100); do
    URL=$(sed -n 's/^listening on //p' "$TMP/daemon.out")
    [ -n "$URL" ] && break
    sleep 0.05
done
wait_ready
api POST /v1/jobs '{"id":"self","command":["id","-u"]}'
api POST /v1/jobs '{"id":"asroot","user":"root","command":["sh","-c","id -u"]}'
wait_state self completed; wait_state asroot failed
is "$(cat "$N/state/output/self.1.out")" 65534 "a daemon running as nobody: a job without user runs as nobody"
like "$(cat "$TMP/daemon.err")" "job asroot: launch failed: user 'root' (uid 0): the daemon runs as uid 65534, not root" \
    "and a job for root fails its launch, saying why"
daemon_stop TERM
kill_jobs "$N/state"
rm -rf "$N"
sanitizer_clean

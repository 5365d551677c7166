#!/bin/sh
# help_version.t - `-h`, `--help` and `--version` on every gpusched
# subcommand and on gpuschedd exit 0: the help on stdout starts with the
# command's usage line; --version names the commit the Makefile embedded
# (build/VARIANT/gen/commit.txt: `git describe --always --dirty`).  The
# commands come both from `gpusched --help` (the program's own table) and
# from the hard list below, and the two lists must agree, so a new command
# is either in both or this test fails.
. "$(dirname "$0")/tap.sh"
: "${GPUSCHEDD:=$(dirname "$GPUSCHED")/gpuschedd}"
LIST="sim frag compare whatif fill gen slurm-conf import submit queue show why cancel
checkpoint nodes drain resume replay start-latency down backup history jobs"
FROM_HELP=$("$GPUSCHED" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
n=$(printf '%s\n' $LIST | wc -l)
plan $((n * 3 + 12))

is "$(printf '%s\n' "$FROM_HELP" | sort | tr '\n' ' ')" "$(printf '%s\n' $LIST | sort | tr '\n' ' ')" \
    "gpusched --help lists exactly the $n commands of the hard list"

# the commit the build embedded; when built in this checkout it is a commit
# of this repository (the part before -dirty)
STAMP=$(dirname "$GPUSCHED")/../gen/commit.txt
C=$(cat "$STAMP" 2>/dev/null || echo unknown)
V="0.1 (commit $C)"
if [ "$C" != unknown ] && git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$ROOT" cat-file -e "$(git -C "$ROOT" rev-parse --verify -q "${C%-dirty}^{commit}")" 2>/dev/null
    ok $? "the embedded commit $C is a commit of this repository"
else
    ok 0 "# not a git checkout: the embedded commit is '$C'"
fi

for c in $LIST; do
    out=$("$GPUSCHED" "$c" -h 2>/dev/null); rc=$?
    is "$rc $(printf '%s\n' "$out" | head -1 | cut -d' ' -f1-3)" "0 usage: gpusched $c" "$c -h: exit 0, its usage on stdout"
    out=$("$GPUSCHED" "$c" --help 2>/dev/null); rc=$?
    is "$rc $(printf '%s\n' "$out" | head -1 | cut -d' ' -f1-3)" "0 usage: gpusched $c" "$c --help: exit 0, its usage on stdout"
    out=$("$GPUSCHED" "$c" --version 2>/dev/null); rc=$?
    is "$rc $out" "0 gpusched $c $V" "$c --version: exit 0, names the commit"
done

run "$GPUSCHED" --version
is "$rc $out" "0 gpusched $V" "gpusched --version"
out=$("$GPUSCHED" queue --server http://127.0.0.1:1 --json --version 2>&1); rc=$?
is "$rc $out" "0 gpusched queue $V" "--version after other options: still the version, no request"
# after `--` they belong to the job's command
out=$("$GPUSCHED" submit --dry-run --gpus 1 -- sh -c true --version -h 2>&1); rc=$?
is "$rc $(printf '%s' "$out" | jq -c .command)" '0 ["sh","-c","true","--version","-h"]' \
    "after -- they are the job's arguments"
run "$GPUSCHED" queue --bogus
is "$rc" 2 "an unknown option still exits 2"

out=$("$GPUSCHEDD" -h 2>/dev/null); rc=$?
is "$rc $(printf '%s\n' "$out" | head -1 | cut -d' ' -f1-2)" "0 usage: gpuschedd" "gpuschedd -h: exit 0, usage on stdout"
out=$("$GPUSCHEDD" --help 2>/dev/null); rc=$?
is "$rc $(printf '%s\n' "$out" | head -1 | cut -d' ' -f1-2)" "0 usage: gpuschedd" "gpuschedd --help"
like "$out" "^  -h, --help .*--version" "gpuschedd's usage lists -h, --help and --version"
out=$("$GPUSCHEDD" --version 2>/dev/null); rc=$?
is "$rc $out" "0 gpuschedd $V" "gpuschedd --version: exit 0, names the commit"
# with the required options missing it still answers and starts nothing
out=$("$GPUSCHEDD" --listen 127.0.0.1:0 --version 2>&1); rc=$?
is "$rc $out" "0 gpuschedd $V" "gpuschedd --version with other options: no daemon started"
run "$GPUSCHEDD" --bogus
is "$rc" 2 "gpuschedd: an unknown option still exits 2"

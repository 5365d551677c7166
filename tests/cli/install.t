#!/bin/sh
# make install PREFIX=...: a portable build (no -Werror, no -march) of
# gpusched and gpuschedd, man pages generated from --help and gpuschedd(8),
# bash completion, the systemd unit (systemd-analyze verify where systemd
# is installed) and the example configuration, with which the installed
# gpuschedd really starts.  Builds a copy of the tree in
# a temp dir so it never races another build; once per test run (skipped in
# the sanitizer variant, which would only repeat the same build).
. "$(dirname "$0")/tap.sh"
N=25
plan $N
if [ "${GS_VARIANT:-}" = san ]; then
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); echo "ok $i # skip install checked in the debug variant"; done
    exit 0
fi
mkdir -p "$TMP/src"
(cd "$ROOT" && git ls-files -co --exclude-standard | grep -v '^build/\|^bin/' | tar cf - -T -) |
    (cd "$TMP/src" && tar xf -)
make -C "$TMP/src" -j2 install PREFIX="$TMP/p" >"$TMP/build.log" 2>&1
ok $? "make install PREFIX=... succeeds"
P=$TMP/p
like "$("$P/bin/gpusched" --version)" "^gpusched " "the installed binary runs"
ok $(grep -E '^(gcc|cc|clang)' "$TMP/build.log" | grep -qE -- '-Werror|-march'; [ $? -ne 0 ]; echo $?) \
   "the install build has no -Werror and no -march"
ok $([ -f "$P/share/man/man1/gpusched.1" ] && [ -f "$P/share/man/man1/gpusched-sim.1" ]; echo $?) \
   "man pages for gpusched and each command"
page=$(MANWIDTH=100 man -l "$P/share/man/man1/gpusched-sim.1" 2>/dev/null)
like "$page" "--out DIR" "gpusched-sim(1) has sim's options"
like "$(MANWIDTH=100 man -l "$P/share/man/man1/gpusched-import.1" 2>/dev/null)" "FORMAT aaic" \
     "gpusched-import(1) has each format's options"
comp=$P/share/bash-completion/completions/gpusched
ok $([ -f "$comp" ]; echo $?) "bash completion installed"
got=$(PATH="$P/bin:$PATH" bash -c ". '$comp'; COMP_WORDS=(gpusched sim --clu); COMP_CWORD=2; _gpusched; echo \${COMPREPLY[*]}")
is "$got" "--cluster" "completion: gpusched sim --clu -> --cluster"
got=$(PATH="$P/bin:$PATH" bash -c ". '$comp'; COMP_WORDS=(gpusched wha); COMP_CWORD=1; _gpusched; echo \${COMPREPLY[*]}")
is "$got" "whatif" "completion: gpusched wha -> whatif"

# gpuschedd, built outside a git checkout (the copy has no .git): the
# version says the commit is unknown
like "$("$P/bin/gpuschedd" --version)" "^gpuschedd 0\.1 (commit unknown)$" \
    "gpuschedd installed; its --version falls back to 'commit unknown' outside git"
ok $([ -x "$P/bin/gpuschedd-supervise" ]; echo $?) "its supervisor program is installed beside it"
U=$P/lib/systemd/system/gpuschedd.service
ok $(grep -q -- "--run-dir /run/gpusched/run$" "$U" && grep -q '^RuntimeDirectoryPreserve=yes$' "$U"
     echo $?) "the unit keeps the run files on /run/gpusched/run, kept when the daemon stops"
ok $(grep -q "^ExecStart=$P/bin/gpuschedd --cluster /etc/gpusched/cluster.yaml " "$U" &&
     grep -q '^KillMode=process$' "$U"; echo $?) "the unit runs the installed gpuschedd on /etc/gpusched, KillMode=process"
like "$(tr '\n' ' ' <"$U")" "control-group .*every running job .*mixed .*none " \
    "the unit says what each KillMode would do"
if command -v systemd-analyze >/dev/null; then
    out=$(MANPATH=$P/share/man systemd-analyze verify "$U" 2>&1); rc=$?
    is "$rc:$out" "0:" "systemd-analyze verify: no complaint (Documentation=man:gpuschedd(8) found)"
else
    ok 0 "# skip systemd-analyze not installed (systemd is not a dependency of this check)"
fi
M=$P/share/man/man8/gpuschedd.8
page=$(MANWIDTH=100 man -l "$M" 2>/dev/null)
for sec in "EXIT STATUS" ENVIRONMENT FILES; do
    like "$page" "^$sec" "gpuschedd(8) has $sec"
done
is "$(MANWIDTH=100 man --warnings -l "$M" 2>&1 >/dev/null)" "" "gpuschedd(8) renders without groff warnings"
like "$page" "$P/share/doc/gpusched/examples/" "gpuschedd(8) names where the examples are installed"
E=$P/share/doc/gpusched/examples
is "$(ls "$E" | tr '\n' ' ')" "cluster.yaml policy.yaml tokens.yaml " "example cluster, policy and tokens installed"
# the installed daemon on the installed examples: ready, tokens enforced
"$P/bin/gpuschedd" --cluster "$E/cluster.yaml" --policy "$E/policy.yaml" --tokens "$E/tokens.yaml" \
    --state "$TMP/st" --listen 127.0.0.1:0 >"$TMP/d.out" 2>"$TMP/d.err" &
DP=$!
i=0
until URL=$(sed -n 's/^listening on //p' "$TMP/d.out" | head -1) && [ -n "$URL" ] &&
      [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 200 ]; do
    i=$((i + 1)); [ $i -lt 200 ] && kill -0 "$DP" 2>/dev/null || break; sleep 0.05
done
ok $([ $i -lt 200 ] && kill -0 "$DP" 2>/dev/null; echo $?) "gpuschedd starts on the example configuration"
is "$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/nodes") $(curl -s -o /dev/null -w '%{http_code}' \
      -H 'Authorization: Bearer CHANGE-ME-monitor-00000000' "$URL/v1/nodes")" "401 200" \
    "the example tokens: none 401, the read token 200"
like "$(curl -s -H 'Authorization: Bearer CHANGE-ME-admin-0000000000' "$URL/v1/nodes" | jq -c '[.nodes[].name]')" \
    '\["gpu01","gpu02"\]' "the example cluster's two nodes"
kill -TERM "$DP"; wait "$DP"
is "$?" 0 "and stops with 0 on SIGTERM"

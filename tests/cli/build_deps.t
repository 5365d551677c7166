#!/bin/sh
# build_deps.t - plain `make` on a machine without a library's headers stops
# before compiling anything, with one line naming the missing header, its
# Debian package and `make deps` (scripts/check-deps.sh; README "Quick
# start").  The missing header is a real one that no machine has
# (GS_DEPS_EXTRA adds it to the checked list), in a scratch tree of links
# to this checkout, so the checkout's own build/ is not touched.
. "$(dirname "$0")/tap.sh"
plan 6

run "$ROOT/scripts/check-deps.sh"
is "$rc:$out" "0:" "with every header installed the check is silent and passes"

T=$TMP/tree
mkdir -p "$T"
for d in Makefile src scripts tests bench fuzz examples; do ln -s "$ROOT/$d" "$T/$d"; done
out=$(cd "$T" && make GS_DEPS_EXTRA=gs_no_such_header.h:libgs-no-such-dev 2>&1 >/dev/null); rc=$?
is "$rc" 2 "make stops (exit 2)"
is "$(printf '%s\n' "$out" | grep -c '^gpusched: ')" 1 "with one line of its own"
like "$out" "^gpusched: missing headers: gs_no_such_header.h (libgs-no-such-dev): run 'make deps'" \
    "naming the header, its package and make deps"
is "$(find "$T/build" -name '*.o' 2>/dev/null | wc -l)" 0 "before compiling anything"
out=$(CC=gs-no-such-cc "$ROOT/scripts/check-deps.sh" 2>&1); rc=$?
like "$rc $out" "^1 gpusched: no C compiler ('gs-no-such-cc' not found): run 'make deps'" \
    "no compiler: one line naming make deps"

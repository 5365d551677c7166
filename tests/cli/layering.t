#!/bin/sh
# scripts/check-layering.sh reads the link graph of src/core's objects
# (issue 24): a call from a lower folder into a higher one fails even when
# its prototype is declared low, and so does a folder pair calling each
# other both ways.  Run on the objects of this build (GS_VARIANT), then on
# a copy of them with one planted object: jobs/zz.o (the jobs floor)
# calling gs_eng_diag_account_waits, which diagnose/ defines - the call the
# queue pass made before it went through the hooks table.
. "$(dirname "$0")/tap.sh"
plan 5
objs=$ROOT/build/${GS_VARIANT:-debug}/src/core
cd "$ROOT" || exit 1
run sh scripts/check-layering.sh "$objs"
is "$rc:$out" "0:check-layering: ok" "the build's objects pass"
cp -r "$objs" "$TMP/core"
cat >"$TMP/zz.c" <<'C'
int gs_eng_diag_account_waits(void *eng, long now, int full);
int zz_climb(void *eng);
int zz_climb(void *eng) { return gs_eng_diag_account_waits(eng, 0, 1); }
C
cc -c "$TMP/zz.c" -o "$TMP/core/jobs/zz.o"
run sh scripts/check-layering.sh "$TMP/core"
ok $((rc == 0)) "a planted upward call fails"
like "$out" "src/core/jobs calls up into src/core/diagnose (link level; use the hooks table): gs_eng_diag_account_waits" \
    "it names the folders and the symbol"
like "$out" "^diagnose <-> jobs" "and the circle it closes"
rm "$TMP/core/jobs/zz.o"
run sh scripts/check-layering.sh "$TMP/core"
is "$rc" 0 "without it the copy passes again"

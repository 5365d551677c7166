#!/bin/sh
# daemon_backend_iface.t - the backends see the loop only through the
# narrow interface of src/daemon/backend.h (docs/architecture.md, "The
# backend interface"), checked on the sources and on the compiled objects
# of this variant (build/$GS_VARIANT/src/daemon, nm):
#   1. no backend file (backend*.c, launcher.c) includes loop_private.h or
#      loop_shared.h;
#   2. no backend object calls a function (or reads a variable) defined in
#      a file of the engine thread (the .c files that include
#      loop_private.h): the backend-to-loop arrows of the link graph are 0;
#   3. no engine-thread object calls the local backend's primitives
#      (gsd_backend_launch/signal/adopt/read_sup/read_exit/exit_told/release)
#      or the launcher threads (gsd_launcher_*) itself: the loop reaches a
#      backend only through its ops table;
#   4. the check sees real objects: the loop does reach the ops tables
#      (gsd_backend_local, gsd_backend_slurm are undefined in loop.o) and
#      backend_slurm.o does call into the backend's own helpers.
. "$(dirname "$0")/tap.sh"
plan 5
SRC=$ROOT/src/daemon
OBJ=$ROOT/build/${GS_VARIANT:-debug}/src/daemon

bad=$(grep -l -E '#include "daemon/loop_(private|shared)\.h"' "$SRC"/backend*.c "$SRC"/launcher.c)
is "$bad" "" "no backend file includes loop_private.h or loop_shared.h"

ok "$([ -f "$OBJ/loop.o" ] && [ -f "$OBJ/backend_slurm.o" ]; echo $?)" \
   "the objects of this variant are built ($OBJ)"

# the engine thread's objects and the symbols they define
grep -l '#include "daemon/loop_private.h"' "$SRC"/*.c >"$TMP/eng.c"
: >"$TMP/eng.def"
while read -r c; do
    o=$OBJ/$(basename "$c" .c).o
    nm --defined-only "$o" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ {print $3}' >>"$TMP/eng.def"
done <"$TMP/eng.c"
sort -u "$TMP/eng.def" -o "$TMP/eng.def"
: >"$TMP/be.use"
for o in "$OBJ"/backend*.o "$OBJ"/launcher.o; do
    nm -u "$o" | awk -v f="$(basename "$o")" '{print $NF, f}' >>"$TMP/be.use"
done
up=$(sort "$TMP/be.use" | join - "$TMP/eng.def")
is "$up" "" "no backend object uses a symbol of the engine thread's files"

: >"$TMP/eng.use"
while read -r c; do
    o=$OBJ/$(basename "$c" .c).o
    nm -u "$o" | awk -v f="$(basename "$o")" '{print $NF, f}' >>"$TMP/eng.use"
done <"$TMP/eng.c"
direct=$(grep -E '^(gsd_backend_(launch|signal|adopt|read_sup|read_exit|exit_told|release)|gsd_launcher_[a-z_]*) ' "$TMP/eng.use")
is "$direct" "" "the engine thread calls no backend primitive and no launcher function itself"

tables=$(nm -u "$OBJ/loop.o" | awk '{print $NF}' | grep -c -E '^gsd_backend_(local|slurm)$')
helpers=$(nm -u "$OBJ/backend_slurm.o" | awk '{print $NF}' | grep -c '^gsd_slurm_run$')
is "$tables $helpers" "2 1" "the check reads real objects (loop.o names both ops tables)"

#!/bin/sh
# check-deps.sh - before `make` compiles anything: are the compiler and the
# library headers there?  Silent and 0 when they are; else one line on
# stderr naming what is missing and the command that installs it
# (`make deps`, scripts/deps.sh build), and 1.
#   CC (default cc): the compiler the build uses
#   GS_DEPS_EXTRA: more "HEADER:PACKAGE" pairs to check (tests)
CC=${CC:-cc}
set -f
# shellcheck disable=SC2086 # CC may be "ccache gcc"
if ! command -v ${CC%% *} >/dev/null 2>&1; then
    echo "gpusched: no C compiler ('$CC' not found): run 'make deps' (installs gcc and the libraries), then 'make'" >&2
    exit 1
fi
missing=
for hp in jansson.h:libjansson-dev yaml.h:libyaml-dev zlib.h:zlib1g-dev sqlite3.h:libsqlite3-dev \
          microhttpd.h:libmicrohttpd-dev curl/curl.h:libcurl4-openssl-dev ${GS_DEPS_EXTRA:-}; do
    h=${hp%%:*}
    # shellcheck disable=SC2086
    printf '#include <%s>\n' "$h" | $CC -E -x c - >/dev/null 2>&1 || missing="$missing ${h} (${hp#*:})"
done
[ -z "$missing" ] && exit 0
echo "gpusched: missing headers:$missing: run 'make deps' (installs them with apt-get), then 'make'" >&2
exit 1

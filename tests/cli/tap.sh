# tap.sh - tiny TAP helpers for the CLI tests (POSIX sh).  Source it, call
# plan N, then ok/is/like for each assertion.
: "${GPUSCHED:=$(cd "$(dirname "$0")/../.." && pwd)/bin/gpusched}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$ROOT/tests/data/cli
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gstest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_n=0
plan() { echo "1..$1"; }
ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
    _n=$((_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; fi
}
is() { # is GOT EXPECTED DESCRIPTION
    _n=$((_n + 1))
    if [ "$1" = "$2" ]; then echo "ok $_n - $3"
    else echo "not ok $_n - $3"; echo "#   got:      '$1'"; echo "#   expected: '$2'"; fi
}
like() { # like TEXT GREP-PATTERN DESCRIPTION
    _n=$((_n + 1))
    if printf '%s\n' "$1" | grep -q -- "$2"; then echo "ok $_n - $3"
    else echo "not ok $_n - $3"; echo "#   '$1' does not match '$2'"; fi
}
# run CMD...: sets $out (stdout+stderr) and $rc
run() { out=$("$@" 2>&1); rc=$?; }

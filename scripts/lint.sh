#!/bin/sh
# `make lint`: clang-tidy (bugprone, clang-analyzer, cert, performance,
# function size <= 80 lines) and cppcheck over src/.  Prints findings and
# exits non-zero when there are any.
set -u
cd "$(dirname "$0")/.."
status=0
FLAGS="-std=c11 -Isrc -D_POSIX_C_SOURCE=200809L"
files=$(ls src/*/*.c)
if command -v clang-tidy >/dev/null; then
    out=$(clang-tidy -quiet $files -- $FLAGS 2>/dev/null | grep -E "warning:|error:" || true)
    if [ -n "$out" ]; then
        echo "$out"
        status=1
    fi
fi
if command -v cppcheck >/dev/null; then
    cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,performance,portability \
        --suppress=missingIncludeSystem --inline-suppr -Isrc $files || status=1
fi
[ $status -eq 0 ] && echo "lint: clean"
exit $status

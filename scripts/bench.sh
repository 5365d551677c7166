#!/bin/sh
# `make bench`: run every benchmark built in build/release/bench.  Pass
# BENCH_ARGS (e.g. "--size small") to shrink the cases.
set -e
cd "$(dirname "$0")/.."
for b in build/release/bench/bench_*; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" ${BENCH_ARGS:-}
    echo
done

#!/bin/sh
# fuzz.sh - build and run the libFuzzer targets (fuzz/README.md).
#
#   scripts/fuzz.sh build          build build/fuzz/fuzz_<target> with clang
#   scripts/fuzz.sh run [SECONDS]  build, then fuzz each target SECONDS
#                                  (default 20) on a copy of its corpus
#   FUZZ_TARGETS="trace policy" scripts/fuzz.sh run 60   only some targets
#
# Each target is its fuzz/fuzz_<name>.c plus every src/core, src/workload,
# src/sim, src/report and
# src/io source, compiled by clang with -fsanitize=fuzzer,address,undefined.
# A run that finds a crash, leak, timeout or OOM copies the input into
# fuzz/corpus/<name>/ (where `make test` replays it from then on) and the
# script exits 1.
set -eu
cd "$(dirname "$0")/.."

CLANG=${CLANG:-clang}
OUT=build/fuzz
TARGETS=${FUZZ_TARGETS:-$(for f in fuzz/fuzz_*.c; do b=${f#fuzz/fuzz_}; printf "%s " "${b%.c}"; done)}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-std=c11 -g -O1 -fno-omit-frame-pointer -D_POSIX_C_SOURCE=200809L -Isrc $SAN"
LIBS="-ljansson -lyaml -lz -lsqlite3 -lm"

build() {
    mkdir -p "$OUT/obj"
    objs=""
    # the library once, instrumented for coverage (fuzzer-no-link)
    for src in src/core/*/*.c src/workload/*.c src/sim/*.c src/io/*.c src/report/*.c; do
        [ -e "$src" ] || continue
        obj="$OUT/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
        if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || \
           [ -n "$(find src -name '*.h' -newer "$obj" 2>/dev/null | head -1)" ]; then
            # a source that does not compile (someone's work in progress) is
            # skipped with a warning: the link fails only if a target needs it
            if ! $CLANG $CFLAGS -fsanitize=fuzzer-no-link -c "$src" -o "$obj"; then
                echo "fuzz: warning: $src does not compile; left out" >&2
                rm -f "$obj"
                continue
            fi
        fi
        objs="$objs $obj"
    done
    # an archive, like the Makefile's: a target pulls in only what it uses
    rm -f "$OUT/libgpusched.a"
    # shellcheck disable=SC2086
    ar rcs "$OUT/libgpusched.a" $objs
    for t in $TARGETS; do
        echo "fuzz: building $OUT/fuzz_$t"
        # shellcheck disable=SC2086
        $CLANG $CFLAGS -fsanitize=fuzzer "fuzz/fuzz_$t.c" "$OUT/libgpusched.a" $LIBS \
            -o "$OUT/fuzz_$t"
    done
}

run() {
    secs=${1:-20}
    build
    status=0
    for t in $TARGETS; do
        work="$OUT/work/$t"
        art="$OUT/artifacts/$t"
        rm -rf "$work" "$art"   # artifacts of an earlier run are not this run's
        mkdir -p "$work" "$art"
        cp fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
        dict=""
        [ -f "fuzz/$t.dict" ] && dict="-dict=fuzz/$t.dict"
        echo "fuzz: running fuzz_$t for ${secs}s"
        # shellcheck disable=SC2086
        if ! "$OUT/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
                -print_final_stats=1 -artifact_prefix="$art/" $dict "$work" \
                >"$OUT/fuzz_$t.log" 2>&1; then
            status=1
            echo "fuzz: fuzz_$t FAILED; see $OUT/fuzz_$t.log"
            grep -E 'ERROR|SUMMARY|runtime error' "$OUT/fuzz_$t.log" | head -5 || true
        fi
        for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
            [ -e "$f" ] || continue
            cp "$f" fuzz/corpus/"$t"/
            echo "fuzz: kept $(basename "$f") in fuzz/corpus/$t/ as a regression input"
            status=1
        done
        grep -E '^stat::number_of_executed_units|^#[0-9]+ *DONE' "$OUT/fuzz_$t.log" | tail -1 || true
    done
    return $status
}

case "${1:-build}" in
build) build ;;
run) shift; run "${1:-20}" ;;
*) echo "usage: $0 build | run [SECONDS]" >&2; exit 2 ;;
esac

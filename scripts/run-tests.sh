#!/bin/sh
# The README's test command (`make test`): builds the debug and the
# ASan+UBSan variants, then runs, for each: the cmocka unit tests, the CLI
# tests under prove, and the fuzz corpus replay; once: the static checks
# (layering, self-contained headers, clang-tidy + cppcheck) and a brief
# libFuzzer run of every target.  Ends with one line "N passed, N failed"
# over every assertion of every run.
set -u
cd "$(dirname "$0")/.." || exit 1
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# client_equiv.t and slurm_vs_sim.t: gpuschedd at --clock-scale 10 (12 over
# Slurm) checked against sim's order and placement within 150 ms (2 s) of
# wall time; daemon_startfail.t: RLIMIT_NPROC counts every thread of uid
# 65534 on the host, and other tests run jobs as nobody
SERIAL_CLI=${SERIAL_CLI:-client_equiv.t slurm_vs_sim.t daemon_startfail.t}
LOG=build/test-logs
mkdir -p "$LOG"
pass=0
fail=0

count() { # count TAP results in file $1
    p=$(grep -cE '^[[:space:]]*ok [0-9]' "$1")
    f=$(grep -cE '^[[:space:]]*not ok [0-9]' "$1")
    pass=$((pass + p))
    fail=$((fail + f))
    [ "$f" -eq 0 ] || grep -E '^[[:space:]]*not ok' "$1" | sed "s|^|  FAIL ($2): |"
}

run_variant() { # $1 = debug|san, $2 = make flags
    v=$1
    echo "== build ($v)"
    if ! make --no-print-directory -j"$JOBS" $2 test-bins >"$LOG/build-$v.log" 2>&1; then
        cat "$LOG/build-$v.log"
        echo "not ok 1 - build $v" >"$LOG/build-$v.tap"
        count "$LOG/build-$v.tap" "build"
        return
    fi
    B=build/$v
    echo "== unit ($v)"
    : >"$LOG/unit-$v.tap"
    for t in "$B"/tests/test_*; do
        [ -x "$t" ] || continue
        CMOCKA_MESSAGE_OUTPUT=TAP "$t" >>"$LOG/unit-$v.tap" 2>&1 ||
            { grep -qE '^not ok' "$LOG/unit-$v.tap" ||
              echo "not ok 1 - $t exited abnormally" >>"$LOG/unit-$v.tap"; }
    done
    count "$LOG/unit-$v.tap" "unit $v"
    echo "== cli ($v)"
    # JOBS files at a time (each test has its own directories and ports, and
    # passes with another beside it), except SERIAL_CLI (above: a host-wide
    # limit or wall time measured against a model), run alone after the
    # others (prove runs a file no --rules entry matches in sequence at the end)
    rules=
    for t in tests/cli/*.t; do
        case " $SERIAL_CLI " in *" ${t##*/} "*) ;; *) rules="$rules --rules=par=$t" ;; esac
    done
    # shellcheck disable=SC2086
    GPUSCHED="$PWD/$B/bin/gpusched" GS_VARIANT=$v \
        prove -j"$JOBS" $rules -v --timer tests/cli/*.t >"$LOG/cli-$v.tap" 2>&1
    count "$LOG/cli-$v.tap" "cli $v"
    echo "== fuzz corpus replay ($v)"
    : >"$LOG/fuzz-$v.tap"
    for r in "$B"/fuzz/fuzz_*; do
        [ -x "$r" ] || continue
        name=$(basename "$r")
        "$r" fuzz/corpus/"${name#fuzz_}" >>"$LOG/fuzz-$v.tap" 2>&1 ||
            echo "not ok 1 - $name replay crashed" >>"$LOG/fuzz-$v.tap"
    done
    count "$LOG/fuzz-$v.tap" "fuzz $v"
}

static_checks() {
    echo "== static checks"
    : >"$LOG/static.tap"
    i=0
    for chk in check-layering headers-check lint; do
        i=$((i + 1))
        if make --no-print-directory "$chk" >"$LOG/$chk.log" 2>&1; then
            echo "ok $i - $chk" >>"$LOG/static.tap"
        else
            cat "$LOG/$chk.log"
            echo "not ok $i - $chk" >>"$LOG/static.tap"
        fi
    done
    count "$LOG/static.tap" "static"
}

fuzz_briefly() { # libFuzzer on every target for FUZZ_SECONDS (CI: briefly)
    secs=${FUZZ_SECONDS:-15}
    [ "$secs" -gt 0 ] || return 0
    echo "== fuzz (libFuzzer, ${secs}s per target)"
    if ! command -v clang >/dev/null; then
        echo "not ok 1 - libFuzzer run: clang missing" >"$LOG/fuzz-run.tap"
    elif scripts/fuzz.sh run "$secs" >"$LOG/fuzz-run.log" 2>&1; then
        echo "ok 1 - libFuzzer: no crash in ${secs}s per target" >"$LOG/fuzz-run.tap"
    else
        tail -20 "$LOG/fuzz-run.log"
        echo "not ok 1 - libFuzzer found a crash (input kept in fuzz/corpus/)" >"$LOG/fuzz-run.tap"
    fi
    count "$LOG/fuzz-run.tap" "fuzz run"
}

run_variant debug ""
static_checks
fuzz_briefly
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    run_variant san "SAN=1"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

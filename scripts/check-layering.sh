#!/bin/sh
# The core engine must stay pure: no I/O, no clock, no randomness from libc,
# no environment, no threads, and no includes from outside src/core.
# Checked on the compiled objects (undefined symbols) and on the sources.
#
# src/core is grouped by subsystem; each folder may include only itself and
# the folders listed for it below (the layers, lowest first):
#   base      arena, errors, string table, statistics
#   cluster   nodes, GPUs, NVLink domains, MIG, node events
#   policy    the policy document and the job description
#   place     placement strategies, fragmentation, the availability profile
#   jobs      the jobs floor: the job table, slots and handles, the run
#             primitives, the lifecycle, progress, estimates, rates, caps,
#             node state (core/jobs/jobs.h); it reaches the policies only
#             through the hooks table
#   preempt   victims, draining, partitions            (jobs and below)
#   queue     queue order, quotas, backfill            (preempt, jobs and below)
#   diagnose  why a job waits                          (queue, jobs and below)
#   engine    the facade: gs_engine_create/destroy/step/next_wakeup, which
#             fills the hooks table (all above); its engine.h, the public
#             API (declarations only), may be included from every folder
#   metrics   schedulability, utilization, symptoms    (diagnose, preempt, ...)
#   check     gs_engine_check, which reads every subsystem
set -u
dir=${1:-build/debug/src/core}
status=0
banned='^(time|clock|clock_gettime|gettimeofday|rand|random|srand|srandom|drand48|fopen|fclose|fread|fwrite|fprintf|printf|puts|fputs|putchar|perror|getenv|secure_getenv|open|read|write|close|socket|connect|pthread_.*|sleep|usleep|nanosleep|exit|abort|system|popen)$'
for o in "$dir"/*/*.o; do
    bad=$(nm -u "$o" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$banned" || true)
    if [ -n "$bad" ]; then
        echo "check-layering: $(basename "$o") uses: $(echo $bad)"
        status=1
    fi
done
stray=$(ls src/core/*.[ch] 2>/dev/null || true)
if [ -n "$stray" ]; then
    echo "check-layering: files directly under src/core (put them in a subsystem folder): $stray"
    status=1
fi
outside=$(grep -n '#include "' src/core/*/*.c src/core/*/*.h | grep -v '#include "core/' || true)
if [ -n "$outside" ]; then
    echo "check-layering: core includes from outside src/core:"
    echo "$outside"
    status=1
fi
allowed() {
    low="base"
    case $1 in
    base) echo "base" ;;
    cluster) echo "$low cluster" ;;
    policy) echo "$low cluster policy" ;;
    place) echo "$low cluster policy place" ;;
    jobs) echo "$low cluster policy place jobs" ;;
    preempt) echo "$low cluster policy place jobs preempt" ;;
    queue) echo "$low cluster policy place jobs preempt queue" ;;
    diagnose) echo "$low cluster policy place jobs preempt queue diagnose" ;;
    engine) echo "$low cluster policy place jobs queue preempt diagnose engine" ;;
    metrics) echo "$low cluster policy place jobs queue preempt diagnose engine metrics" ;;
    check) echo "$low cluster policy place jobs queue preempt diagnose engine metrics check" ;;
    *) echo "" ;;
    esac
}
for d in src/core/*/; do
    folder=$(basename "$d")
    ok=$(allowed "$folder")
    if [ -z "$ok" ]; then
        echo "check-layering: src/core/$folder is not in the layer table of $0"
        status=1
        continue
    fi
    for f in "$d"*.[ch]; do
        for used in $(grep -v '^#include "core/engine/engine.h"' "$f" |
                      sed -n 's/^#include "core\/\([a-z_]*\)\/.*/\1/p' | sort -u); do
            case " $ok " in
            *" $used "*) ;;
            *) echo "check-layering: $f ($folder) includes core/$used/"; status=1 ;;
            esac
        done
    done
done
# The link graph (scripts/link-graph.sh: nm -u of each object against the
# others' definitions): a folder may call only the folders it may include
# (the table above), so a call that climbs fails even when its prototype is
# declared low; the floors reach the policies above them only through the
# hooks table (struct gs_eng_hooks, core/jobs/jobs.h), which the facade
# fills.  Hence also no two folders call each other both ways (checked on
# its own, so the message names the circle).
if ls "$dir"/*/*.o >/dev/null 2>&1; then
    arrows=$(sh "$(dirname "$0")/link-graph.sh" "$dir" arrows) || status=1
    climbs=$(echo "$arrows" | while read -r from to syms; do
        [ -n "$from" ] || continue
        case " $(allowed "$from") " in
        *" $to "*) ;;
        *) echo "check-layering: src/core/$from calls up into src/core/$to (link level; use the hooks table): $syms" ;;
        esac
    done)
    if [ -n "$climbs" ]; then
        echo "$climbs"
        status=1
    fi
    pairs=$(echo "$arrows" | awk '$1 != "" {e[$1 " " $2] = $0}
        END {for (k in e) {split(k, p, " "); r = p[2] " " p[1]
                 if (p[1] < p[2] && (r in e)) printf "%s <-> %s\n   %s\n   %s\n", p[1], p[2], e[k], e[r]}}')
    if [ -n "$pairs" ]; then
        echo "check-layering: folders calling each other both ways (link level):"
        echo "$pairs"
        status=1
    fi
else
    echo "check-layering: no objects under $dir: build first (the link graph is read from them)"
    status=1
fi
# Above the core (lowest first); each may include only the layers listed:
#   workload  the trace container and snapshot views      core
#   sim       the simulator and its experiments            core workload
#   io        formats: readers, writers, the journal       core workload
#   report    renderings of simulator results              core workload sim io
#   cli, daemon (the two programs)                         everything above
above_core() {
    case $1 in
    workload) echo "core workload" ;;
    sim) echo "core workload sim" ;;
    io) echo "core workload io" ;;
    report) echo "core workload sim io report" ;;
    cli) echo "core workload sim io report cli" ;;
    daemon) echo "core workload sim io report daemon" ;;
    *) echo "" ;;
    esac
}
for d in src/*/; do
    layer=$(basename "$d")
    [ "$layer" = core ] && continue
    ok=$(above_core "$layer")
    if [ -z "$ok" ]; then
        echo "check-layering: src/$layer is not in the layer table of $0"
        status=1
        continue
    fi
    for f in "$d"*.[ch]; do
        [ -e "$f" ] || continue
        for used in $(sed -n 's/^#include "\([a-z_]*\)\/.*/\1/p' "$f" | sort -u); do
            case " $ok " in
            *" $used "*) ;;
            *) echo "check-layering: $f ($layer) includes $used/"; status=1 ;;
            esac
        done
    done
done
[ $status -eq 0 ] && echo "check-layering: ok"
exit $status

#!/bin/sh
# The core engine must stay pure: no I/O, no clock, no randomness from libc,
# no environment, no threads, and no includes from outside src/core.
# Checked on the compiled objects (undefined symbols) and on the sources.
set -u
dir=${1:-build/debug/src/core}
status=0
banned='^(time|clock|clock_gettime|gettimeofday|rand|random|srand|srandom|drand48|fopen|fclose|fread|fwrite|fprintf|printf|puts|fputs|putchar|perror|getenv|secure_getenv|open|read|write|close|socket|connect|pthread_.*|sleep|usleep|nanosleep|exit|abort|system|popen)$'
for o in "$dir"/*.o; do
    bad=$(nm -u "$o" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$banned" || true)
    if [ -n "$bad" ]; then
        echo "check-layering: $(basename "$o") uses: $(echo $bad)"
        status=1
    fi
done
outside=$(grep -n '#include "' src/core/*.c src/core/*.h | grep -v '#include "core/' || true)
if [ -n "$outside" ]; then
    echo "check-layering: core includes from outside src/core:"
    echo "$outside"
    status=1
fi
# sim may use core only; io uses core and sim (traces); nothing below cli includes cli
for f in src/sim/*.[ch]; do
    grep -q '#include "\(io\|cli\|daemon\)/' "$f" && { echo "check-layering: $f includes io/cli"; status=1; }
done
for f in src/core/*.[ch] src/sim/*.[ch] src/io/*.[ch]; do
    grep -q '#include "cli/' "$f" && { echo "check-layering: $f includes cli"; status=1; }
done
[ $status -eq 0 ] && echo "check-layering: ok"
exit $status

#!/bin/sh
# Install the Debian packages gpusched needs, only when some are missing.
#   scripts/deps.sh build   what `make` and `make demo` need
#   scripts/deps.sh test    plus what `make test` needs (cmocka, jq, prove,
#                           chromium for the HTML report test, clang and its
#                           libFuzzer runtime for the brief fuzzing run,
#                           clang-tidy and cppcheck for `make lint`,
#                           Debian's Slurm 22.05 and MariaDB for the private
#                           Slurm cluster the Slurm tests start, python's
#                           prometheus_client to parse /metrics, curl for
#                           the daemon and dashboard tests)
# Safe to run repeatedly: with nothing missing it does nothing.
set -e
PKGS="gcc make libc6-dev libjansson-dev libyaml-dev zlib1g-dev libsqlite3-dev
libmicrohttpd-dev libcurl4-openssl-dev pkg-config jq"
if [ "${1:-build}" = test ]; then
    PKGS="$PKGS libcmocka-dev perl chromium clang libclang-rt-14-dev clang-tidy cppcheck
sqlite3 python3 python3-prometheus-client curl
slurmctld slurmd slurm-client libslurm-dev munge slurmdbd mariadb-server"
    # client tests: gdb stops gpuschedd at a launch, curl polls /readyz
    PKGS="$PKGS gdb curl"
    # daemon_clock.t: libfaketime steps gpuschedd's wall clock
    PKGS="$PKGS faketime"
    # daemon_damage.t: seeded page overwrites (openssl enc); daemon_lock.t: flock
    PKGS="$PKGS openssl util-linux"
    # daemon_metrics_alert.t: promtool check metrics on a live /metrics
    PKGS="$PKGS prometheus bc"
fi
[ -n "${GS_EXTRA_PKGS:-}" ] && PKGS="$PKGS $GS_EXTRA_PKGS"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null

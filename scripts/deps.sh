#!/bin/sh
# Install the Debian packages gpusched needs, only when some are missing.
# Used by `make test` and `make demo`; safe to run repeatedly.
set -e
PKGS="gcc make libc6-dev libcmocka-dev libjansson-dev libyaml-dev zlib1g-dev
libsqlite3-dev libmicrohttpd-dev pkg-config jq perl
chromium"  # chromium: tests/cli/html.t loads the HTML reports headless
[ -n "$GS_EXTRA_PKGS" ] && PKGS="$PKGS $GS_EXTRA_PKGS"
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

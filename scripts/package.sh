#!/bin/sh
# Builds the Debian packages from the committed tree (git archive HEAD, in
# a scratch directory: dpkg-buildpackage writes beside the source) into
# build/deb/, then runs lintian on them and prints what it says.
#   storscope_*.deb         the command and its man page
#   libsensorlog-dev_*.deb  sensorlog alone: libsensorlog.a, headers, sensorlog.pc
#   libstorscope-dev_*.deb  the storscope library, storscope.pc, CMake package
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh --only debhelper dpkg-dev lintian cmake pkg-config libcjson-dev libzstd-dev libsqlite3-dev libpq-dev
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/storscope"
git archive HEAD | tar -x -C "$work/storscope"
(cd "$work/storscope" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
    { tail -n 40 "$work/build.log" >&2; exit 1; }
mkdir -p build/deb
rm -f build/deb/*.deb
cp "$work"/*.deb build/deb/
ls -l build/deb/*.deb
echo "lintian:"
lintian --tag-display-limit 0 build/deb/*.deb || true

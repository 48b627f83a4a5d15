#!/bin/sh
# Installs the Debian packages storscope needs when they are missing.
# As root it runs apt-get; otherwise it prints the command to run.
set -eu
PKGS="build-essential cmake pkg-config libcjson-dev libcmocka-dev python3 python3-jsonschema
gcc-arm-none-eabi libnewlib-arm-none-eabi cppcheck util-linux mount e2fsprogs qemu-system-arm gnuplot-nox"
# the main job: build, run, and `report -o` with its figures (gnuplot)
[ "${1:-}" = "--runtime" ] && PKGS="build-essential cmake pkg-config libcjson-dev gnuplot-nox"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "storscope: missing Debian packages:$missing" >&2
    echo "storscope: install them with: sudo apt-get install -y$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# say how much will come down before it does (the test set, with the
# Cortex-M toolchain and QEMU, is most of a gigabyte)
size=$(apt-get install --assume-no --no-install-recommends $missing 2>/dev/null |
       sed -n 's/^Need to get \([^ ]* [kMG]*B\).*/\1/p')
echo "storscope: installing$missing${size:+ ($size to download)}" >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null

#!/bin/sh
# Installs the Debian packages storscope needs when they are missing.
# As root it runs apt-get; otherwise it prints the command to run.
#   deps.sh               the whole test set (scripts/test.sh)
#   deps.sh --runtime     the main job: build, run, `report -o` with figures (gnuplot)
#   deps.sh --only PKG... these (PKG:ARCH adds that architecture first: multiarch)
set -eu
PKGS="build-essential cmake pkg-config libcjson-dev libzstd-dev libsqlite3-dev libpq-dev postgresql python3-prometheus-client libcmocka-dev python3 python3-jsonschema zsh
gcc-arm-none-eabi libnewlib-arm-none-eabi cppcheck util-linux mount e2fsprogs qemu-system-arm gnuplot-nox
qemu-system-x86 busybox-static mtd-utils cpio"
case "${1:-}" in
--runtime) PKGS="build-essential cmake pkg-config libcjson-dev libzstd-dev libsqlite3-dev libpq-dev gnuplot-nox" ;;
--only) shift; PKGS="$*" ;;
esac
missing="" archs=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" && continue
    missing="$missing $p"
    case $p in *:*) archs="$archs ${p#*:}" ;; esac
done
[ -z "$missing" ] && exit 0
archs=$(echo $archs | tr ' ' '\n' | sort -u)
if [ "$(id -u)" -ne 0 ]; then
    # the line to run as root: a minimal Debian has no sudo (su -c runs it)
    echo "storscope: missing Debian packages:$missing" >&2
    add=""
    for a in $archs; do add="${add}dpkg --add-architecture $a && "; done
    cmd="${add}apt-get update && apt-get install -y$missing"
    echo "storscope: as root, run: $cmd" >&2
    echo "storscope: (from this account: su -c '$cmd', or with sudo: sudo sh -c '$cmd')" >&2
    exit 1
fi
for a in $archs; do dpkg --add-architecture "$a"; done
export DEBIAN_FRONTEND=noninteractive
# a mirror caught mid-sync fails one index: try again, then let the install
# say whether what is missing can be had from the indexes there are
for try in 1 2 3; do
    apt-get update -qq && break
    echo "storscope: apt-get update failed (try $try of 3)" >&2
    sleep 20
done
# say how much will come down before it does (the test set, with the
# Cortex-M toolchain and QEMU, is most of a gigabyte)
size=$(apt-get install --assume-no --no-install-recommends $missing 2>/dev/null |
       sed -n 's/^Need to get \([^ ]* [kMG]*B\).*/\1/p')
echo "storscope: installing$missing${size:+ ($size to download)}" >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null

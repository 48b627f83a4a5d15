#!/bin/sh
# storscope for ARM Linux boards (seed 003: Raspberry Pi, BeagleBone): cross
# builds for arm64 and armhf with Debian's cross compilers and the target's
# libraries installed multiarch, then under qemu-user runs the portable unit
# tests (their count must equal the host's) and a quick run of the main job
# on sim: and on posix: (a directory here). As root it installs what is
# missing (dpkg --add-architecture arm64 armhf, the cross compilers,
# qemu-user, libcjson-dev and libcmocka-dev for each, through deps.sh);
# otherwise it says what to run.
#   scripts/cross.sh [arm64|armhf ...]
set -eu
cd "$(dirname "$0")/.."
archs=${*:-arm64 armhf}
need=""
for a in $archs; do
    case $a in
    arm64) need="$need gcc-aarch64-linux-gnu libc6-dev-arm64-cross libcjson-dev:arm64 libcmocka-dev:arm64 libsqlite3-dev:arm64" ;;
    armhf) need="$need gcc-arm-linux-gnueabihf libc6-dev-armhf-cross libcjson-dev:armhf libcmocka-dev:armhf libsqlite3-dev:armhf" ;;
    *) echo "cross.sh: unknown architecture '$a' (arm64 or armhf)" >&2; exit 2 ;;
    esac
done
scripts/deps.sh --only $need qemu-user cmake pkg-config python3
# the host's count, from the same sources
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target storscope_unit >/dev/null
host=$(build/release/tests/storscope_unit | tail -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for a in $archs; do
    case $a in arm64) qemu=qemu-aarch64 ;; armhf) qemu=qemu-arm ;; esac
    echo "== linux-$a: cross-built, run under $qemu"
    cmake --preset "linux-$a" >/dev/null
    cmake --build --preset "linux-$a" -j"$(nproc)" --target storscope_unit storscope_cli >/dev/null
    got=$($qemu "build/linux-$a/tests/storscope_unit" | tail -n 1)
    echo "unit tests: $got (host: $host)"
    [ "$got" = "$host" ] || { echo "cross.sh: $a and the host differ" >&2; exit 1; }
    mkdir -p "$work/$a/dir"
    $qemu "build/linux-$a/storscope" run -q -o "$work/$a/sim.json"
    $qemu "build/linux-$a/storscope" run -q -t "posix:$work/$a/dir" --tests B0,M1,fsync \
        -d 1s -o "$work/$a/posix.json"
    python3 - "$work/$a/sim.json" "$work/$a/posix.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    doc = json.load(open(path))
    assert doc["status"] == "ok", (path, doc["status"])
    print("  %s: %s on %s, tests %s" % (path.rsplit("/", 1)[1], doc["status"], doc["run"]["target"].split("/")[0],
          ", ".join("%s %s" % (t["id"], t["status"]) for t in doc["tests"])))
PY
    [ -z "$(ls -A "$work/$a/dir")" ] || { echo "cross.sh: scratch files left on $a" >&2; exit 1; }
done

#!/bin/sh
# The whole test suite, as CI runs it: install what is missing; build and test
# Debug, Release (-O2), ASan+UBSan and TSan; compile the portable part for a
# Cortex-M33 and run the portable unit tests on it under QEMU; cppcheck;
# install and build an external consumer through pkg-config and find_package.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs="-j$(nproc)"
for preset in debug release asan tsan; do
    echo "== $preset"
    cmake --preset "$preset" >/dev/null
    cmake --build --preset "$preset" $jobs >/dev/null
    ctest --preset "$preset" $jobs
done

echo "== cortex-m33: portable part with arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os (newlib)"
cmake --preset cortex-m33 >/dev/null
cmake --build --preset cortex-m33 $jobs >/dev/null
lib=build/cortex-m33/libstorscope_portable.a
# the portable part must not pull in a heap, stdio or OS calls
bad=$(arm-none-eabi-nm -u "$lib" | awk '{print $2}' | sort -u |
      grep -E '^(malloc|calloc|realloc|free|printf|fprintf|sprintf|snprintf|puts|fopen|fwrite|open|read|write|close|clock_gettime|pthread_.*)$' || true)
if [ -n "$bad" ]; then
    echo "portable library references forbidden symbols: $bad" >&2
    exit 1
fi
arm-none-eabi-size -t "$lib" | tail -1

echo "== firmware: the portable unit tests on an emulated Cortex-M33 (QEMU mps2-an505)"
cmake --preset firmware >/dev/null
cmake --build --preset firmware $jobs >/dev/null
ctest --preset firmware --output-on-failure -V | tee build/firmware/ctest.log |
    grep -E "passed, |Test +#|tests passed|nb on the MCU|engine on the MCU"
# the same tests, the same count, on both machines
host=$(build/release/tests/storscope_unit | tail -n 1)
mcu=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' build/firmware/ctest.log | head -n 1)
echo "host: $host / cortex-m33: $mcu"
[ "$host" = "$mcu" ] || { echo "host and firmware test counts differ" >&2; exit 1; }
# the MCU's results file is read on the host like any other
build/release/storscope report build/firmware/firmware/suite-1.json |
    grep -q "the write knee at 8 KiB by the figures" ||
    { echo "storscope report did not accept the firmware suite's JSON" >&2; exit 1; }
build/release/storscope compare --threshold 0 build/firmware/firmware/suite-1.json \
    build/firmware/firmware/suite-2.json >/dev/null ||
    { echo "storscope compare did not accept the firmware suite's JSON" >&2; exit 1; }
echo "storscope report and compare accept the Cortex-M33 suite's JSON"

echo "== third-party filesystem adapters (ctest label thirdparty)"
if [ -n "${STORSCOPE_LITTLEFS_DIR:-}${STORSCOPE_FATFS_DIR:-}${STORSCOPE_FILEX_DIR:-}" ]; then
    cmake -S . -B build/thirdparty -DCMAKE_BUILD_TYPE=Debug \
        -DSTORSCOPE_LITTLEFS_DIR="${STORSCOPE_LITTLEFS_DIR:-}" \
        -DSTORSCOPE_FATFS_DIR="${STORSCOPE_FATFS_DIR:-}" \
        -DSTORSCOPE_FILEX_DIR="${STORSCOPE_FILEX_DIR:-}" >/dev/null
    cmake --build build/thirdparty -j"$(nproc)" >/dev/null
    ctest --test-dir build/thirdparty -L thirdparty --output-on-failure
    if [ -n "${STORSCOPE_FILEX_DIR:-}" ]; then # the user's FileX on the Cortex-M33 under QEMU
        cmake -S . -B build/thirdparty-fw --toolchain cmake/arm-none-eabi.cmake \
            -DSTORSCOPE_FIRMWARE=ON -DCMAKE_BUILD_TYPE=MinSizeRel \
            -DSTORSCOPE_FILEX_DIR="$STORSCOPE_FILEX_DIR" >/dev/null
        cmake --build build/thirdparty-fw -j"$(nproc)" >/dev/null
        ctest --test-dir build/thirdparty-fw -L thirdparty --output-on-failure
    fi
else
    echo "skipped: littlefs, FatFs and FileX sources not given (set STORSCOPE_LITTLEFS_DIR,"
    echo "STORSCOPE_FATFS_DIR, STORSCOPE_FILEX_DIR; docs/third-party-filesystems.md); none of"
    echo "their code is in this repository"
fi

echo "== sensorlog without parts or without pieces (a build for one kind of medium) compiles cleanly"
for opt in -DSL_PARTS=0 -DSL_PIECES=0 -DSL_SHORT=0; do
    for f in src/sensorlog/sl_*.c; do
        arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os -std=c11 -Wall -Wextra -Wpedantic -Werror \
            "$opt" -Iinclude -c "$f" -o /dev/null
    done
done

# A logger is built for its medium: raw flash, whose pages are smaller than a
# chunk, takes pieces (a sync's record costs a page) and leaves parts out; a
# managed medium, whose chunk is one page, takes parts and leaves pieces out.
echo "== sensorlog's writer for one medium, linked for Cortex-M33: what it adds to a program"
# Counted as issue 40 asks: its code and what it pulls in from libgcc and
# newlib, over an empty program, memcpy and memset excepted. The goal is
# 8 KiB (issue 16's, which counted its own objects only and left out 1.6 KB
# of 64-bit division, strcmp and memmove). Met by the writers for one
# medium (managed, and raw flash without short pieces); the raw-flash
# default, with short pieces, is ~1.3 KB over (docs/footprint.md). Held here
# to what they measure, so they only shrink.
ceiling=8186
for opt in "-DSL_PARTS=0 -DSL_SHORT=0" -DSL_PIECES=0; do
    # shellcheck disable=SC2086 # (two options in one word on purpose)
    writer_bytes=$(sh scripts/sensorlog-linked-size.sh $opt)
    if [ "$writer_bytes" -le 8192 ]; then
        echo "writer ($opt): $writer_bytes B linked ($((8192 - writer_bytes)) B within 8 KiB)"
    else
        echo "writer ($opt): $writer_bytes B linked ($((writer_bytes - 8192)) B over 8 KiB)"
    fi
    if [ "$writer_bytes" -gt "$ceiling" ]; then
        echo "sensorlog's writer built with $opt links $writer_bytes B, over its $ceiling B (docs/footprint.md)" >&2
        exit 1
    fi
done
raw_bytes=$(sh scripts/sensorlog-linked-size.sh -DSL_PARTS=0)
echo "writer (-DSL_PARTS=0, short pieces): $raw_bytes B linked ($((raw_bytes - 8192)) B over 8 KiB)"
if [ "$raw_bytes" -gt 9530 ]; then
    echo "sensorlog's raw-flash writer links $raw_bytes B, over its 9530 B (docs/footprint.md)" >&2
    exit 1
fi

echo "== the engine core, B0, the simulator and extentfs stay within 32 KiB on Cortex-M33"
fp=$(mktemp)
FOOTPRINT_OUT=$fp sh scripts/footprint.sh >/dev/null
grep -o "workload and the simulator: [a-zA-Z ]* by the objects above ([0-9]* B of flash" "$fp"
if grep -q "NOT met" "$fp"; then
    echo "over the 32 KiB engine budget (scripts/footprint.sh; docs/footprint.md)" >&2
    rm -f "$fp"
    exit 1
fi
rm -f "$fp"

echo "== the main job peaks within 256 MiB of RAM (issue 43; measured with wait4)"
python3 bench/rss_cpu.py build/release/storscope --cases main --max-main-rss 256

echo "== cppcheck"
cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,performance,portability \
    --inline-suppr -I include -I cli src cli tests/harness tests/unit firmware fuzz

echo "== install + external consumers (pkg-config and find_package; storscope, and sensorlog alone)"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install build/release --prefix "$prefix" >/dev/null
test -x "$prefix/bin/storscope"
"$prefix/bin/storscope" version
cc -std=c11 -Wall -Wextra -Werror tests/consumer/consumer.c -o "$prefix/consumer-pc" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs --static storscope)
"$prefix/consumer-pc"
# sensorlog alone: its own .pc file, and nothing of storscope's on the link line
sl_libs=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs sensorlog)
case "$sl_libs" in *storscope*) echo "sensorlog.pc pulls in storscope: $sl_libs" >&2; exit 1 ;; esac
cc -std=c11 -Wall -Wextra -Werror tests/consumer/sensorlog_consumer.c -o "$prefix/sensorlog-pc" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags sensorlog) $sl_libs
"$prefix/sensorlog-pc"
cmake -S tests/consumer -B "$prefix/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer-build" >/dev/null
"$prefix/consumer-build/consumer"
"$prefix/consumer-build/sensorlog_consumer"
echo "all checks passed"
